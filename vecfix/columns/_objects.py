"""NumPy arrays (and masked arrays), Python scalars and sequences (and object arrays) of
ints, ``Decimal``, ``str``, ``bytes``, with ``None`` for a null: read into one another (an
object array row by row, nested sequences as an array)."""

from __future__ import annotations

import decimal
from collections.abc import Sequence

import numpy as np

from . import rules
from .column import Column
from .rules import RowError, RowTypeError
from .text import parse_numpy, parse_texts, valid_of

#: Types read as one row of decimal text.
TEXT_TYPES = (str, np.str_)
BYTES_TYPES = (bytes, np.bytes_, bytearray, memoryview)
_NESTED = (list, tuple, np.ndarray)
_NA = ("NAType", "NaTType")  # pandas' missing-value scalars, known without importing pandas


def read_scalar(value: object, argument: str) -> Column:
    """One ``Decimal``, ``str`` or bytes-like value: a column of one row (0-d)."""
    col = read_objects([value], argument)
    exps = col.exponents
    exps = exps.reshape(()) if isinstance(exps, np.ndarray) else exps
    return Column(col.kind, col.coefficients.reshape(()), exps, None, col.source)


def as_array(values: object, argument: str) -> np.ndarray:
    """``values`` as NumPy makes them an array; ragged lists and the like refused."""
    try:
        return np.asarray(values)
    except (ValueError, TypeError, OverflowError) as exc:
        raise TypeError(f"{argument} could not be read as an array\n{exc}") from None


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
            col = parse_texts(seq, None, argument, joined)  # type: ignore[arg-type]
            return Column("text", *col, source="decimal text")
    kinds = set(map(type, seq))
    missing = {k for k in kinds if k.__module__.startswith("pandas") and k.__name__ in _NA}
    if missing:  # pandas' NA (or NaT) in a plain list: a null, as None is
        seq = [None if type(v) in missing else v for v in seq]
        kinds = (kinds - missing) | {type(None)}
    has_null = type(None) in kinds
    kinds.discard(type(None))
    if not kinds:  # only None: every row null, nothing says what they would hold
        n = len(seq)
        return Column("empty", np.zeros(n, np.int64), None, np.zeros(n, bool), "null values")
    if any(issubclass(k, _NESTED) for k in kinds):
        return read_array(as_array(seq, argument), argument)  # rows that are sequences
    texts: list = []
    if all(issubclass(k, TEXT_TYPES) for k in kinds):
        texts = ["" if v is None else v for v in seq]
    elif all(issubclass(k, BYTES_TYPES) for k in kinds):
        texts = [b"" if v is None else bytes(v) for v in seq]  # type: ignore[call-overload]
    if texts:
        col = parse_texts(texts, valid_of(seq, has_null), argument)
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


def _check_same(
    seq: Sequence[object], cls: type | tuple[type, ...], what: str, argument: str
) -> None:
    """Refuse a sequence that mixes ``what`` with other values, naming the first other row."""
    for i, v in enumerate(seq):
        if v is not None and not isinstance(v, cls):
            if isinstance(v, (float, np.floating)):
                raise rules.float_error(argument, f"{what} mixed with floats", i, v)
            advice = (
                "\nPass every row as decimal text (or every row as integers, with exponent=)"
                if what == "decimal text"
                else f"\nPass every row as {what} (or None for a null)"
            )
            raise RowTypeError(
                f" holds {rules.show_value(v)}{advice}",
                argument=argument,
                row=i,
                lead=f"{argument} mix {what} with {type(v).__name__}: ",
            )


def _decimals(seq: Sequence[object], has_null: bool, argument: str) -> Column:
    """``Decimal`` values, read exactly through their text (``str`` is exact)."""
    texts = ["" if v is None else str(v) for v in seq]
    try:
        col = parse_texts(texts, valid_of(seq, has_null), argument)
    except RowError as exc:
        if exc.row is None or seq[exc.row].is_finite():  # type: ignore[attr-defined]
            raise
        value = seq[exc.row]
        raise RowError(
            f" is Decimal({str(value)!r}): NaN and infinities have no fixed-point text"
            "\nDrop them or mark them null (None)",
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


def read_array(arr: np.ndarray, argument: str, source: str | None = None) -> Column:
    """A plain NumPy array: integers as they are, ``S``/``U`` as decimal text, objects row
    by row; floats and the rest refused."""
    rules.check_1d(argument, arr.shape)
    kind = arr.dtype.kind
    if kind in "iu":  # the common case: its description is written only if needed
        return Column("integers", arr, source=lambda: f"integers ({_describe(arr, source)})")
    if kind in "SU":
        return Column("text", *parse_numpy(arr, argument), source="decimal text")
    if kind == "O":
        return read_objects(arr.reshape(-1).tolist(), argument)
    if kind == "f":
        flat = arr.reshape(-1)
        nan = np.isnan(flat)
        if nan.any() and argument in ("exponent", "scale"):  # NaN: a null, as pandas has it
            raise rules.null_in(
                argument,
                int(np.argmax(nan)),
                f"A float column's NaN: keep the {argument} integers with their nulls"
                " (.astype('Int64')), and a null is a null row",
            )
        whole = flat[~nan]
        if nan.any() and argument == "coefficients" and np.all(whole == np.floor(whole)):
            raise TypeError(
                f"coefficients must be integers, got {_describe(arr, source)} holding whole"
                " numbers and NaN\nThese are integers turned into floats to hold their nulls"
                " (pandas does this to int columns with missing values), which is exact only"
                " below 2**53. Keep them integers with their nulls: .astype('Int64') on the"
                " column before the nulls appear, or read it with dtype_backend='pyarrow'"
            )
    raise rules.kind_error(argument, kind, _describe(arr, source))


def _describe(arr: np.ndarray, source: str | None) -> str:
    return source or f"an array of dtype {arr.dtype}"


def read_masked(arr: np.ma.MaskedArray, argument: str) -> Column:
    """A masked array: its masked rows are null, whatever their hidden data holds."""
    rules.check_1d(argument, arr.shape)
    mask = np.ma.getmaskarray(arr).reshape(-1)
    data = np.asarray(arr.data)
    if not mask.any():
        return read_array(data, argument)
    if data.dtype.kind in "iu":
        col = read_array(data.reshape(-1), argument, "a masked array")
        return Column("integers", col.coefficients, None, ~mask, col.source)
    # anything else row by row, the hidden values never read
    objs = data.reshape(-1).astype(object)
    objs[mask] = None
    return read_objects(objs.tolist(), argument)
