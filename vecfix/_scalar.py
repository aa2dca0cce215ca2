"""The scalar formatter built on Python's :mod:`decimal`, for rows the kernels do not take
(coefficients of any size). A row's length is worked out first, with integer arithmetic,
so that one asking for more than :data:`MAX_ROW_LENGTH` bytes is refused, not printed.
"""

from __future__ import annotations

import decimal

from .columns.rules import RowError, as_int, as_int32, digits, show_int, show_value

__all__ = ["MAX_ROW_LENGTH", "RowTooLongError", "row_length", "string_fixed"]

#: Longest text vecfix prints for one row, in bytes. A price or quantity is never near
#: this; a scale or exponent in the millions is a bug upstream, and printing it would ask
#: for megabytes per row (gigabytes for a whole column).
MAX_ROW_LENGTH = 65_536


class RowTooLongError(RowError):
    """A row's text would exceed :data:`MAX_ROW_LENGTH` (or a caller's width).

    A :class:`~vecfix.RowError`: :attr:`row` is the row (``None`` for a single value).
    """


def text_length(nd, z, neg, s):
    """The length of a row's text: ``M`` of ``nd`` digits (0 for ``M = 0``) followed by
    ``z`` zeros, at scale ``s``, ``neg`` for a negative coefficient (see
    :mod:`vecfix._kernels.rows`). vecfix's one length formula: the kernels compile this
    very function.

    Examples
    --------
    >>> text_length(3, 0, True, 2), text_length(0, 0, True, 2), text_length(2, 1, False, -1)
    (5, 4, 3)
    """
    body = nd + z if nd > 0 else 0
    return max(body, max(s, 0) + 1) + (1 if s > 0 else 0) + (1 if neg and nd > 0 else 0)


def row_length(coefficient: int, exponent: int, scale: int) -> int:
    """Exact length of ``string_fixed(coefficient, exponent, scale)``, without building it."""
    a = abs(coefficient)
    d = exponent + scale
    if d >= 0:
        nd, z = (digits(a) if a else 0), d + max(0, -scale)
    else:
        k = -d  # M = (a + 5*10**(k-1)) // 10**k has (digits of the sum) - k digits, or none
        nd = 0 if a == 0 or digits(a) < k else max(digits(a + 5 * 10 ** (k - 1)) - k, 0)
        z = max(0, -scale)
    return int(text_length(nd, z, coefficient < 0, scale))


def string_fixed(
    coefficient: int | decimal.Decimal | str | bytes,
    exponent: int | None = None,
    scale: int | None = None,
) -> str:
    """Format one value exactly as shopspring/decimal ``StringFixed`` does.

    The value is ``coefficient * 10**exponent``; it is rounded half away from zero to
    ``scale`` decimal places and printed with exactly ``scale`` digits after the point
    (none, and no point, when ``scale <= 0``; a negative scale rounds to a multiple of
    ``10**-scale``). A value that rounds to zero prints without a sign.

    Parameters
    ----------
    coefficient : int or decimal.Decimal or str or bytes
        Any Python or NumPy integer, of any size; or a value that carries its own
        exponent, as :func:`~vecfix.format_fixed` reads it: a finite ``Decimal`` or
        decimal text (``"2.675"``, ``b"1e-3"``).
    exponent : int, optional
        Power of ten applied to an integer coefficient; must fit in int32. Required for
        an integer, refused for a ``Decimal`` or text.
    scale : int
        Decimal places to print; must fit in int32.

    Returns
    -------
    str
        Plain ASCII digits, an optional leading ``-`` and a ``.`` when ``scale > 0``.

    Raises
    ------
    TypeError
        An argument not an integer, a ``Decimal`` or decimal text (floats, bools), or
        ``exponent`` missing for an integer or given for a decimal.
    ValueError
        ``exponent`` or ``scale`` outside int32, or text over :data:`MAX_ROW_LENGTH` bytes.

    Examples
    --------
    >>> string_fixed(-125, -3, 2), string_fixed(-4, -3, 2), string_fixed(545, 0, -1)
    ('-0.13', '0.00', '550')
    >>> from decimal import Decimal
    >>> string_fixed(Decimal("2.675"), scale=2), string_fixed("-0.125", scale=2)
    ('2.68', '-0.13')
    """
    if isinstance(coefficient, (decimal.Decimal, str, bytes, bytearray, memoryview)):
        from .columns import read_column

        if exponent is not None:
            kind = "a Decimal" if isinstance(coefficient, decimal.Decimal) else "decimal text"
            shown = show_value(coefficient)
            raise TypeError(
                f"coefficient {shown} is {kind}, which carries its own exponent: leave out"
                f" exponent (got exponent={show_value(exponent)})\nGive only the decimals to"
                f" print, e.g. string_fixed({shown}, scale=2)"
            )
        try:
            col = read_column(coefficient, "coefficient")
        except RowError as exc:  # one value: no row to name
            raise type(exc)(f"coefficient{exc.detail}", argument="coefficient") from None
        coefficient, exponent = int(col.coefficients), int(col.exponents)  # type: ignore[arg-type]
    elif isinstance(coefficient, float):
        raise TypeError(
            f"coefficient must be an int, a Decimal or decimal text, got the float"
            f" {float(coefficient)!r}\nA float cannot hold a decimal price exactly (1.005 is stored"
            " as 1.00499999999999989...), so the digits to round are not known. Pass an int"
            " with an exponent, e.g. string_fixed(1005, -3, 2), or a Decimal or text, e.g."
            " string_fixed('1.005', scale=2); if a float is all you have, convert it through"
            " its shortest text, string_fixed(Decimal(repr(x)), scale=2), and check that this"
            " is what the data meant"
        )
    elif exponent is None:
        raise TypeError("exponent is required for an integer coefficient (e.g. -9 for PRICE9)")
    if scale is None:
        raise TypeError("scale is required: the number of decimal places to print")
    c = as_int(coefficient, "coefficient")
    e = as_int32(exponent, "exponent")
    s = as_int32(scale, "scale")
    need = row_length(c, e, s)
    if need > MAX_ROW_LENGTH:
        raise RowTooLongError(
            f"coefficient={show_int(c)}, exponent={e}, scale={s} would print {need} bytes,"
            f" more than vecfix.MAX_ROW_LENGTH={MAX_ROW_LENGTH}"
        )
    return format_row(c, e, s)


def format_row(c: int, e: int, s: int) -> str:
    """One row's text by :mod:`decimal`: vecfix's exact fallback (the rows beyond int64,
    every row of the plain-Python engine). The row is checked already: an int ``c``,
    ``e`` and ``s`` within int32, and a length within :data:`MAX_ROW_LENGTH`."""
    d = e + s
    if c and not (d < 0 and digits(abs(c)) < -d):  # (else under 0.1 of the last place)
        rounded = _D(c).scaleb(e, _EXACT).quantize(_D(1).scaleb(-s, _EXACT), context=_EXACT)
        if not rounded.is_zero():
            return format(rounded, "f")  # "f", not str(): never scientific notation
    return "0" if s <= 0 else "0." + "0" * s  # never a negative zero


_D = decimal.Decimal
#: Room for every digit of any row vecfix prints (at most :data:`MAX_ROW_LENGTH`), rounding
#: half away from zero as StringFixed does (ROUND_HALF_UP), any exponent: exact.
_EXACT = decimal.Context(
    prec=MAX_ROW_LENGTH + 64,
    rounding=decimal.ROUND_HALF_UP,
    Emax=decimal.MAX_EMAX,
    Emin=decimal.MIN_EMIN,
)
