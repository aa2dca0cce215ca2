"""Python objects: sequences (and object arrays) of ints, ``Decimal``, ``str``, ``bytes``,
with ``None`` for a null; single scalars."""

from __future__ import annotations

import decimal
from collections.abc import Sequence

import numpy as np

from . import rules
from .column import Column
from .rules import RowError, RowTypeError
from .text import parse_bytes, parse_joined, parse_strings, valid_of

#: Types read as one row of decimal text.
TEXT_TYPES = (str, np.str_)
BYTES_TYPES = (bytes, np.bytes_, bytearray, memoryview)
_NESTED = (list, tuple, np.ndarray)


def read_scalar(value: object, argument: str) -> Column:
    """One ``Decimal``, ``str`` or bytes-like value: a column of one row (0-d)."""
    col = read_objects([value], argument)
    return Column(
        col.kind,
        col.coefficients.reshape(()),
        col.exponents if not isinstance(col.exponents, np.ndarray) else col.exponents.reshape(()),
        None,
        col.source,
    )


def read_objects(seq: Sequence[object], argument: str) -> Column:
    """A flat sequence of Python objects, each row checked, ``None`` a null."""
    if not len(seq):
        return Column("empty", np.empty(0, dtype=np.int64), source="an empty sequence")
    if isinstance(seq[0], str):
        try:  # all str: one pass over the objects (join refuses anything else)
            joined = "\n".join(seq)  # type: ignore[arg-type]
        except TypeError:
            pass
        else:
            col = parse_strings(seq, False, argument, joined)  # type: ignore[arg-type]
            return Column("text", *col, source="decimal text")
    kinds = set(map(type, seq))
    missing = {k for k in kinds if _is_missing_type(k)}
    if missing:  # pandas' NA (or NaT) in a plain list: a null, as None is
        seq = [None if type(v) in missing else v for v in seq]
        kinds = (kinds - missing) | {type(None)}
    has_null = type(None) in kinds
    kinds.discard(type(None))
    if not kinds:  # only None: every row null, nothing says what they would hold
        n = len(seq)
        return Column("empty", np.zeros(n, np.int64), None, np.zeros(n, bool), "null values")
    if any(issubclass(k, _NESTED) for k in kinds):
        return _nested(seq, argument)
    if all(issubclass(k, TEXT_TYPES) for k in kinds):
        col = parse_strings(seq, has_null, argument)  # type: ignore[arg-type]
        return Column("text", *col, source="decimal text")
    if all(issubclass(k, BYTES_TYPES) for k in kinds):
        col = parse_bytes(seq, has_null, argument)  # type: ignore[arg-type]
        return Column("text", *col, source="decimal text")
    if any(issubclass(k, decimal.Decimal) for k in kinds):
        if not all(issubclass(k, decimal.Decimal) for k in kinds):
            _check_same(seq, decimal.Decimal, "Decimal values", argument)
        return _decimals(seq, has_null, argument)
    first = next(v for v in seq if v is not None)  # the first value says what the rows are
    for family in (TEXT_TYPES, BYTES_TYPES):
        if isinstance(first, family):
            _check_same(seq, family, "decimal text", argument)
    return _integers(seq, kinds, has_null, argument)


def _is_missing_type(kind: type) -> bool:
    """Whether values of ``kind`` are pandas' missing-value scalars (``pd.NA``,
    ``pd.NaT``), found without importing pandas."""
    return kind.__module__.startswith("pandas") and kind.__name__ in ("NAType", "NaTType")


def _nested(seq: Sequence[object], argument: str) -> Column:
    """Rows that are themselves sequences: NumPy says whether they make a 2-D array."""
    from ._numpy import read_array

    try:
        arr = np.asarray(seq)
    except (ValueError, TypeError) as exc:  # ragged lists and the like
        raise TypeError(f"{argument} could not be read as an array: {exc}") from None
    return read_array(arr, argument)


def _check_same(
    seq: Sequence[object], cls: type | tuple[type, ...], what: str, argument: str
) -> None:
    """Refuse a sequence that mixes ``what`` with other values, naming the first other row."""
    for i, v in enumerate(seq):
        if v is not None and not isinstance(v, cls):
            if isinstance(v, (float, np.floating)):
                raise rules.float_error(argument, f"{what} mixed with floats", i, v)
            advice = (
                "; pass every row as decimal text (or every row as integers, with exponents=)"
                if what == "decimal text"
                else f"; pass every row as {what} (or None for a null)"
            )
            raise RowTypeError(
                f" holds {v!r}{advice}",
                argument=argument,
                row=i,
                lead=f"{argument} mix {what} with {type(v).__name__}: ",
            )


def _decimals(seq: Sequence[object], has_null: bool, argument: str) -> Column:
    """``Decimal`` values, read exactly through their text (``str`` is exact)."""
    texts = ["" if v is None else str(v) for v in seq]
    valid = valid_of(seq, has_null)
    try:
        col = parse_joined("\n".join(texts).encode("ascii"), texts, valid, argument)
    except RowError as exc:
        if exc.row is None or seq[exc.row].is_finite():  # type: ignore[attr-defined]
            raise
        value = seq[exc.row]
        raise RowError(
            f" is Decimal({str(value)!r}): NaN and infinities have no fixed-point text; drop"
            " them or mark them null (None)",
            argument=argument,
            row=exc.row,
            lead=f"{argument} ",
        ) from None
    return Column("decimals", *col, source="Decimal values")


def _integers(seq: Sequence[object], kinds: set[type], has_null: bool, argument: str) -> Column:
    """Python or NumPy ints (of any size), bools and everything else refused."""
    if not all(rules.is_int_type(k) for k in kinds):  # find the first row that is not
        for i, v in enumerate(seq):
            if v is not None and not rules.is_int(v):
                raise rules.row_type_error(argument, i, v)
    values = [0 if v is None else v for v in seq] if has_null else seq
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu":  # beyond one NumPy integer dtype: Python ints
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
    return Column("integers", arr, None, valid_of(seq, has_null), "integers")
