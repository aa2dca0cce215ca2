"""The rules of vecfix's input, stated once: bounds, integer checks, row errors, and what
each kind of column needs, so the same input gets the same answer everywhere.

Kinds (:attr:`vecfix.columns.Column.kind`): ``"integers"`` need an exponent and take
``null=`` sentinels; ``"decimals"`` and ``"text"`` carry their own exponent and nulls,
so both are refused; ``"empty"`` (``[]``, ``[None]``, an Arrow null array) holds no
value, and a column with no value present needs no exponent.

Messages: an error's first line (at most 200 characters) names the argument, the row and
the value (:func:`show_value`); why, and what to do, follow on the next lines.
"""

from __future__ import annotations

import os
import reprlib
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeGuard, TypeVar

import numpy as np

from .._limits import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, UINT64_MAX

__all__ = ["INT32_MAX", "INT32_MIN", "INT64_MAX", "INT64_MIN"]  # and the names below

#: What a column holds (see the module docstring).
Kind = Literal["integers", "decimals", "text", "empty"]

#: ``null=``: sentinel coefficients that mean "no value".
NullLike = int | np.integer | Sequence[int] | np.ndarray | None

#: The argument names rows are reported under.
ARGUMENTS = ("coefficients", "exponent", "scale")

_E = TypeVar("_E", bound="RowError")


class RowError(ValueError):
    """An input row vecfix cannot format, as data: which argument, which row, and why.

    ``str(error)`` is ``f"{lead}row {row}{detail}"`` (just ``detail`` when the error is
    about no row in particular). :func:`vecfix.iter_format` counts :attr:`row` from the
    start of the whole input (:meth:`shifted`), never by rewriting the text.

    Attributes
    ----------
    argument : str or None
        The argument holding the row: ``"coefficients"``, ``"exponent"`` or ``"scale"``
        for :func:`vecfix.format_fixed`, ``"values"`` for :func:`vecfix.decimal_column`,
        ``"texts"`` for :func:`vecfix.parse_decimal_text` (``None`` if not known).
    row : int or None
        The row's position in the input.

    Examples
    --------
    >>> import vecfix
    >>> try:
    ...     vecfix.format_fixed(["1.5", "1,5"], scale=2)
    ... except vecfix.RowError as exc:
    ...     print(exc.argument, exc.row, "|", exc)  # doctest: +ELLIPSIS
    coefficients 1 | coefficients row 1: '1,5' is not decimal text (expected e.g. ...)
    """

    def __init__(
        self,
        detail: str,
        *,
        argument: str | None = None,
        row: int | None = None,
        lead: str = "",
    ) -> None:
        self.detail, self.argument, self.row, self.lead = detail, argument, row, lead
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.row is None:
            return self.detail
        return f"{self.lead}row {self.row}{self.detail}"

    def shifted(self: _E, offset: int) -> _E:
        """The same error with :attr:`row` counted ``offset`` rows later."""
        if self.row is None or not offset:
            return self
        return type(self)(
            self.detail, argument=self.argument, row=self.row + offset, lead=self.lead
        )


RowError.__module__ = "vecfix"  # shown as vecfix.RowError, where users import it from


class RowTypeError(RowError, TypeError):
    """A :class:`RowError` about a row's type (a float among integers, say): also a
    ``TypeError``, as the other type errors are."""


def is_int(value: object) -> bool:
    """An integer that is not a bool (Python or NumPy)."""
    return is_int_type(type(value))


def is_int_type(cls: type) -> bool:
    """Whether values of ``cls`` are integers that are not bools."""
    return issubclass(cls, (int, np.integer)) and not issubclass(cls, (bool, np.bool_))


def as_int(value: object, name: str) -> int:
    """``value`` as a Python int; refuses bools, floats and anything not an integer."""
    if not is_int(value):
        raise TypeError(
            f"{name} must be an integer, got {type(value).__name__} {show_value(value)}"
            "\nPass an int, or convert exactly first, e.g. Decimal -> coefficient/exponent"
        )
    return int(value)  # type: ignore[call-overload]


def as_int32(value: object, name: str) -> int:
    """``value`` as a Python int within int32."""
    v = as_int(value, name)
    check_int32(v, name)
    return v


def check_int32(value: int, name: str, row: int | None = None) -> None:
    """Refuse an exponent or scale outside int32 (naming the row when there is one)."""
    if INT32_MIN <= value <= INT32_MAX:
        return
    bounds = f"{name} must fit in int32 ({INT32_MIN}..{INT32_MAX})"
    if row is None:
        raise ValueError(f"{bounds}, got {value}")
    raise RowError(f" is {value}", argument=name, row=row, lead=f"{bounds}; ")


def digits(a: int) -> int:
    """How many decimal digits the positive int ``a`` has, without ``str`` (whose
    int-to-text limit of 4,300 digits would refuse a long coefficient)."""
    if a < 10**18:
        return len(str(a))
    k = (a.bit_length() - 1) * 30103 // 100000  # about log10(a), never more than 1 off
    while 10**k > a:
        k -= 1
    while 10 ** (k + 1) <= a:
        k += 1
    return k + 1


def show_int(value: int) -> str:
    """An int for the first line of a message: its digits, or their count beyond 40."""
    n = digits(abs(value))
    return str(value) if n <= 40 else f"<an integer of {n} digits>"


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdeque = 6
_REPR.maxarray, _REPR.maxdict, _REPR.maxlevel = 6, 4, 2


def show_value(value: object, limit: int = 60) -> str:
    """``repr(value)`` for the first line of a message: on one line and at most ``limit``
    characters (a long text, list or array is cut, with ``...``), never slow to make.

    >>> show_value("1.5"), show_value("9" * 100)
    ("'1.5'", "'999999999999999999999999999...9999999999999999999999999999'")
    >>> show_value(list(range(100)))
    '[0, 1, 2, 3, 4, 5, ...]'
    """
    if is_int(value) and int(value).bit_length() >= 128:  # type: ignore[call-overload]
        return show_int(int(value))  # type: ignore[call-overload]
    text = _REPR.repr(value)
    if "\n" in text:  # a NumPy array's repr, say: one line
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def positive_int(value: object, name: str, allow_none: bool = False) -> int | None:
    """A positive int option (``chunksize``, ``threads``...), or ``None`` if allowed."""
    if value is None and allow_none:
        return None
    what = "a positive int or None" if allow_none else "a positive int"
    if not is_int(value):
        raise TypeError(f"{name} must be {what}, got {show_value(value)}")
    if value < 1:  # type: ignore[operator]
        raise ValueError(f"{name} must be {what}, got {value}")
    return int(value)  # type: ignore[call-overload]


def needs(
    kind: Kind,
    exponent: object,
    null: NullLike,
    *,
    source: str | Callable[[], str],
    where: str = "",
    has_values: bool = True,
) -> None:
    """Check what a column of ``kind`` needs: an exponent or none, ``null=`` or not.
    ``source`` (or a function writing it) names the column in messages, after ``where``;
    ``has_values=False`` (empty or all null) waives the exponent: nothing is printed."""
    carries = kind in ("decimals", "text")
    if carries and exponent is not None:
        raise TypeError(
            f"{where}coefficients are {_text(source)}, which carry their own exponent;"
            " leave exponent=None\nPass the number of decimals as scale=..."
        )
    if kind == "integers" and exponent is None and has_values:
        raise TypeError(
            f"{where}exponent is required for integer coefficients ({_text(source)})"
            "\nPass the power of ten of each coefficient, e.g. exponent=-9 for PRICE9"
        )
    if carries and null is not None:
        raise TypeError(
            f"{where}null= marks sentinel integer coefficients; coefficients are"
            f" {_text(source)}, which carry their own exponent\nA sentinel (e.g. 2**63 - 1"
            " for PRICENULL9) would be compared with a meaningless part of them. Mark"
            " missing values as nulls of the column itself (None, NA, null): they are kept"
        )


#: The usual null sentinels of integer columns (CME ``PRICENULL9`` is int64 max), and what
#: they are: a column holding one, with no ``null=``, most likely means "no value" there.
USUAL_SENTINELS = {INT64_MAX: "int64 max", INT64_MIN: "int64 min", UINT64_MAX: "uint64 max"}


class SentinelWarning(UserWarning):
    """An integer column holds int64 max or min, or a uint64 column uint64 max (the usual
    null sentinels), and no ``null`` was given for it: those rows are printed as numbers."""


SentinelWarning.__module__ = "vecfix"


def usual_sentinel(low: int, high: int, unsigned: bool = False) -> int | None:
    """The usual null sentinel (:data:`USUAL_SENTINELS`) among a column's extremes, or None:
    int64 max or min for a signed column, uint64 max for an unsigned one. vecfix's one rule
    of when to warn (:func:`warn_sentinels`, ``vecfix format``).

    >>> usual_sentinel(-5, 2**63 - 1), usual_sentinel(-(2**63), 7), usual_sentinel(0, 7)
    (9223372036854775807, -9223372036854775808, None)
    >>> usual_sentinel(0, 2**63 - 1, unsigned=True), usual_sentinel(0, 2**64 - 1, unsigned=True)
    (None, 18446744073709551615)
    """
    if unsigned:
        return UINT64_MAX if high == UINT64_MAX else None
    if high == INT64_MAX:
        return INT64_MAX
    return INT64_MIN if low == INT64_MIN else None


def sentinel_text(value: int, where: str, advice: str) -> str:
    """The warning for a usual null sentinel ``value`` printed as a number: ``where`` says
    where it is (``"coefficients row 3"``), ``advice`` how to say it means no value."""
    return (
        f"{where} holds {value} ({USUAL_SENTINELS[value]}, the usual null sentinel, e.g. CME"
        f" PRICENULL9); it is printed as a number. If it means no value, {advice}"
    )


def warn_sentinels(
    values: np.ndarray,
    argument: str = "coefficients",
    *,
    valid: np.ndarray | None = None,
    extremes: tuple[int, int] | None = None,
    big_rows: Sequence[int] = (),
    big_values: Sequence[int] = (),
) -> None:
    """One :class:`SentinelWarning` (naming ``null=`` and the first such row) if the integer
    column ``values`` holds a usual null sentinel (:func:`usual_sentinel`) in a row that is
    not null: for callers given no ``null=`` (``format_fixed``, the namespaces, the FIX
    builders). ``valid``: False in the null rows (or None). ``extremes``: ``(min, max)`` of
    ``values`` with the null rows as 0, when the caller has them from a pass it makes
    anyway. ``big_rows``, ``big_values``: rows beyond int64 the caller holds apart (their
    slot in ``values`` 0). The warning points at the first frame outside vecfix.

    >>> import numpy as np, warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     warn_sentinels(np.array([5, 2**63 - 1]))
    >>> print(seen[0].message)  # doctest: +ELLIPSIS
    coefficients row 1 holds 9223372036854775807 (int64 max, ...); ... pass null=9223372036854775807
    """
    if values.dtype.kind not in "iu" or (not values.size and not big_values):
        return
    flat = values.reshape(-1)
    if extremes is None and flat.size:
        kept = flat if valid is None else np.where(valid, flat, 0)
        extremes = int(kept.min()), int(kept.max())
    unsigned = flat.dtype.kind == "u" and flat.dtype.itemsize == 8
    found = None if extremes is None else usual_sentinel(*extremes, unsigned=unsigned)
    if found is not None:
        hit = flat == flat.dtype.type(found)
        row = int(np.flatnonzero(hit if valid is None else hit & valid)[0])
    elif UINT64_MAX in big_values:
        found = UINT64_MAX
        row = int(big_rows[list(big_values).index(found)])
    else:
        return
    text = sentinel_text(found, f"{argument} row {row}", f"pass null={found}")
    warnings.warn(text, SentinelWarning, stacklevel=_outside_vecfix())


def _outside_vecfix() -> int:
    """The ``stacklevel`` of the first frame outside vecfix's package, for a warning made
    by a caller's caller (as pandas' ``find_stack_level``)."""
    package = os.path.dirname(os.path.dirname(__file__))
    frame: Any = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def _text(source: str | Callable[[], str]) -> str:
    return source if isinstance(source, str) else source()


def sentinels(null: NullLike) -> list[int]:
    """The ``null=`` argument as a list of Python ints."""
    items = null if isinstance(null, (list, tuple, np.ndarray)) else [null]
    out = []
    for v in np.asarray(items, dtype=object).reshape(-1).tolist():
        if not is_int(v):
            raise TypeError(
                "null must be an int or a sequence of ints (e.g. null=2**63 - 1), got"
                f" {show_value(v)}"
            )
        out.append(int(v))
    return out


_FLOAT_ADVICE = (
    "\nFloats cannot hold decimal prices exactly: 1.005 is stored as 1.00499999999999989...,"
    " so the digits to round are not known.\nPass integer coefficients with an exponent"
    " (e.g. mantissas with exponent=-9), decimal text or Decimal values (then scale="
    " only), or a decimal column; if floats are all you have, convert each one through its"
    " shortest text first, e.g. [Decimal(repr(x)) for x in values], and check that this is"
    " what the data meant"
)


def float_error(
    argument: str, source: str, row: int | None = None, value: object = None
) -> TypeError:
    """The error for floats: for coefficients, advice about prices in floats; for exponents
    and scales, that they are counts."""
    if argument in ("coefficients", "coefficient", "values"):
        advice = _FLOAT_ADVICE
    else:
        cast = ".cast(pa.int32())" if source.startswith("an Arrow") else ".astype(np.int32)"
        advice = f"\n{argument.capitalize()}s count powers of ten: convert whole numbers with"
        advice += f" {cast}"
    if row is None:
        return TypeError(f"{argument} must be integers, got {source}{advice}")
    return RowTypeError(
        f" holds float {show_value(value)}{advice}",
        argument=argument,
        row=row,
        lead=f"{argument} must be integers; ",
    )


def kind_error(argument: str, dtype_kind: str, source: str) -> TypeError:
    """The error for a NumPy dtype kind that is not integer (floats see :func:`float_error`)."""
    if dtype_kind == "f":
        return float_error(argument, source)
    hint = {
        "b": "\nBooleans are not numbers here: convert explicitly with .astype(np.int64).",
        "M": "\nDatetimes are not prices: pass integer coefficients.",
        "m": "\nTimedeltas are not prices: pass integer coefficients.",
    }.get(dtype_kind, "")
    if dtype_kind in "Mm" and argument not in ("coefficients", "coefficient", "values"):
        hint = f"\n{argument.capitalize()}s count powers of ten, not times."
    return TypeError(f"{argument} must be integers, got {source}{hint}")


def row_type_error(argument: str, row: int, value: object, expected: str = "integers") -> TypeError:
    """A row of the wrong type among integers (or among ``expected``)."""
    if isinstance(value, (float, np.floating)):
        return float_error(argument, f"{type(value).__name__} values", row, value)
    return RowTypeError(
        f" holds {type(value).__name__} {show_value(value)}",
        argument=argument,
        row=row,
        lead=f"{argument} must be {expected}; ",
    )


def null_in(argument: str, row: int, advice: str | None = None) -> RowTypeError:
    """A null exponent or scale where one is needed for every row (``advice``: what to do
    instead, if not the usual)."""
    return RowTypeError(
        " is null\n"
        + (
            advice
            or f"Every row needs its {argument} (a missing price is marked null in"
            " coefficients, or with null=)"
        ),
        argument=argument,
        row=row,
        lead=f"{argument} must be integers; ",
    )


def check_1d(argument: str, shape: tuple[int, ...]) -> None:
    if len(shape) > 1:
        raise ValueError(
            f"{argument} must be a scalar or 1-D, got shape {shape}"
            "\nPass .ravel() to format every element in row-major order"
        )


def broadcast_length(lengths: Sequence[int | None], names: Sequence[str] = ARGUMENTS) -> int:
    """NumPy's broadcasting for scalars (``None``) and 1-D columns: their common length."""
    n = 1
    for length in lengths:
        if length is not None and length != 1:
            if n != 1 and length != n:
                described = ", ".join(
                    f"{name} {'(scalar)' if k is None else f'of length {k}'}"
                    for name, k in zip(names, lengths, strict=True)
                )
                raise ValueError(f"cannot broadcast {described} to one length")
            n = length
    return n


def is_masked(values: object) -> TypeGuard[np.ma.MaskedArray]:
    """Whether ``values`` is a NumPy masked array. None is unless :mod:`numpy.ma` has been
    imported, so the test leaves that import (15 ms) to the programs that use it; while
    another thread imports it, ``numpy.ma`` is in ``sys.modules`` without its class yet,
    and no value can be one."""
    masked = getattr(sys.modules.get("numpy.ma"), "MaskedArray", None)
    return masked is not None and isinstance(values, masked)
