"""The scalar formatter built on Python's :mod:`decimal`, for rows the kernels do not take.

It handles coefficients of any size. Before it builds a string it works out, with integer
arithmetic, how long the text will be, so that a row asking for more than
:data:`MAX_ROW_LENGTH` bytes is refused instead of exhausting memory.
"""

from __future__ import annotations

import decimal
import operator

#: Longest text vecfix prints for one row, in bytes. A price or quantity is never near
#: this; a scale or exponent in the millions is a bug upstream, and printing it would ask
#: for megabytes per row (gigabytes for a whole column).
MAX_ROW_LENGTH = 65_536

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


class RowTooLongError(ValueError):
    """A row's text would exceed :data:`MAX_ROW_LENGTH` (or a caller's width)."""


def as_int(value: object, name: str) -> int:
    """``value`` as a Python int; refuses bools, floats and anything not an integer."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise TypeError(f"{name} must be an integer, got the bool {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"{name} must be an integer, got {type(value).__name__} {value!r}"
            " (pass an int, or convert exactly first, e.g. Decimal -> coefficient/exponent)"
        ) from None


def as_int32(value: object, name: str) -> int:
    """``value`` as a Python int within int32."""
    v = as_int(value, name)
    if not INT32_MIN <= v <= INT32_MAX:
        raise ValueError(f"{name} must fit in int32 ({INT32_MIN}..{INT32_MAX}), got {v}")
    return v


def row_length(coefficient: int, exponent: int, scale: int) -> int:
    """Exact length of ``string_fixed(coefficient, exponent, scale)``, without building it."""
    a = abs(coefficient)
    d = exponent + scale
    if d >= 0:
        m_digits = len(str(a)) if a else 0
        zeros = d + max(0, -scale)
    else:
        k = -d
        # M = (a + 5*10**(k-1)) // 10**k has (digits of the sum) - k digits, or is zero.
        if a == 0 or len(str(a)) < k:
            m_digits = 0
        else:
            m_digits = max(len(str(a + 5 * 10 ** (k - 1))) - k, 0)
        zeros = max(0, -scale)
    if m_digits == 0:
        return 1 if scale <= 0 else scale + 2
    sign = 1 if coefficient < 0 else 0
    if scale <= 0:
        return sign + m_digits + zeros
    return sign + max(m_digits + zeros - scale, 1) + 1 + scale


def string_fixed(coefficient: int, exponent: int, scale: int) -> str:
    """Format one value exactly as shopspring/decimal ``StringFixed`` does.

    The value is ``coefficient * 10**exponent``; it is rounded half away from zero to
    ``scale`` decimal places and printed with exactly ``scale`` digits after the point
    (none, and no point, when ``scale <= 0``; a negative scale rounds to a multiple of
    ``10**-scale``). A value that rounds to zero prints without a sign.

    Parameters
    ----------
    coefficient : int
        Any Python or NumPy integer, of any size.
    exponent : int
        Power of ten applied to the coefficient; must fit in int32.
    scale : int
        Decimal places to print; must fit in int32.

    Returns
    -------
    str
        Plain ASCII digits, an optional leading ``-`` and a ``.`` when ``scale > 0``.

    Raises
    ------
    TypeError
        If an argument is not an integer (floats and bools are refused).
    ValueError
        If ``exponent`` or ``scale`` is outside int32, or the text would be longer than
        :data:`MAX_ROW_LENGTH` bytes.

    Examples
    --------
    >>> string_fixed(-125, -3, 2)
    '-0.13'
    >>> string_fixed(-4, -3, 2)
    '0.00'
    >>> string_fixed(545, 0, -1)
    '550'
    >>> string_fixed(5, 3, 2)
    '5000.00'
    """
    c = as_int(coefficient, "coefficient")
    e = as_int32(exponent, "exponent")
    s = as_int32(scale, "scale")
    need = row_length(c, e, s)
    if need > MAX_ROW_LENGTH:
        raise RowTooLongError(
            f"coefficient={c}, exponent={e}, scale={s} would print {need} bytes, more than"
            f" vecfix.MAX_ROW_LENGTH={MAX_ROW_LENGTH}"
        )
    return _format(c, e, s)


def _format(c: int, e: int, s: int) -> str:
    """The decimal-based formatting itself; arguments already validated."""
    d = e + s
    if c == 0 or (d < 0 and len(str(abs(c))) < -d):  # |value| < 0.1 of the last place
        rounded_to_zero = True
    else:
        ctx = decimal.Context(
            prec=len(str(abs(c))) + max(d, 0) + 2,  # room for every digit of the result
            rounding=decimal.ROUND_HALF_UP,  # half away from zero, as StringFixed
            Emax=decimal.MAX_EMAX,
            Emin=decimal.MIN_EMIN,
        )
        rounded = (
            decimal.Decimal(c)
            .scaleb(e, ctx)
            .quantize(decimal.Decimal(1).scaleb(-s, ctx), context=ctx)
        )
        rounded_to_zero = rounded.is_zero()
    if rounded_to_zero:  # never a negative zero
        return "0" if s <= 0 else "0." + "0" * s
    return format(rounded, "f")  # "f", not str(): never scientific notation
