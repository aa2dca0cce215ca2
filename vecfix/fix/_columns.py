"""Columns for the FIX builders, as :class:`vecfix.Formatted` byte matrices, checked before
anything is written.

* :func:`text_column` reads symbols and IDs from NumPy ``S``/``U`` arrays, Arrow string,
  binary and dictionary arrays, pandas and polars string or categorical columns, integer
  columns (printed as digits) and, for plain sequences, one Python object per row;
* prices and sizes are read in :mod:`vecfix.fix._numbers`;
* :func:`codes` reads one-character codes (``269`` MDEntryType, ``279`` MDUpdateAction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _engine, format_fixed
from .._inputs import check_same_index
from .._kernels import SOH
from .._result import Formatted
from ..columns import ColumnLike, Identity
from ..columns._arrow import arrow_valid, fixed_width
from ..columns.rules import is_int, show_value

_ALNUM = np.frombuffer(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", np.uint8)


def _fix() -> Any:
    """The FIX kernels (:mod:`vecfix._kernels.fix`), loaded on first use."""
    return _KERNELS[0] if _KERNELS else _loaded_fix()


_KERNELS: list[Any] = []


def _loaded_fix() -> Any:
    module = _engine.import_kernels("fix")
    _KERNELS[:] = [module]
    return module


def _module(values: object) -> str:
    return type(values).__module__.partition(".")[0]


def checked_int(
    name: str, value: object, low: int, high: int | None = None, bounds: str | None = None
) -> int:
    """``value``: an int (not a bool) from ``low`` to ``high`` (``bounds`` says so)."""
    if not is_int(value):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {show_value(value)}")
    if value < low or (high is not None and value > high):  # type: ignore[operator]
        bounds = bounds or (f">= {low}" if high is None else f"between {low} and {high}")
        raise ValueError(f"{name} must be {bounds}, got {value}")
    return int(value)  # type: ignore[call-overload]


def all_valid(col: Formatted) -> np.ndarray:
    """The presence mask of ``col`` as a full bool array (``valid`` may be ``None``)."""
    return np.ones(len(col), dtype=np.bool_) if col.valid is None else col.valid


def parts(col: Formatted) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A column as the kernels take it: matrix, lengths and presence mask."""
    return col.matrix, col.lengths, all_valid(col)


def with_fields(base: np.ndarray, cols: Sequence[Formatted | None]) -> np.ndarray:
    """``base`` plus, per row, the bytes of ``TAG=VALUE|`` (a 3-digit tag) of each value
    present in ``cols`` (``None``: a column not given), int64."""
    out = base.astype(np.int64)
    for col in cols:
        if col is not None:
            np.add(out, col.lengths + 5, out=out, where=True if col.valid is None else col.valid)
    return out


def check_rows(name: str, col: Formatted, n: int, what: str) -> None:
    if len(col) != n:
        raise ValueError(f"{name} has {len(col)} rows, expected {n}: one per {what}")


def require_a_price(bid: Formatted, offer: Formatted, what: str) -> None:
    """Refuse a row (a quote, a quote entry) with neither a bid nor an offer price."""
    priced = all_valid(bid) | all_valid(offer)
    if not priced.all():
        r = int(np.argmin(priced))
        raise ValueError(
            f"{what} {r} has neither bid_px nor offer_px\nA {what} needs a price on at least"
            " one side (leave the row out to send no quote)"
        )


def check_bytes(name: str, col: Formatted, identifier: bool) -> None:
    """Refuse empty rows and SOH anywhere; identifiers must be printable ASCII without '='."""
    lo, hi, forbidden = (0x20, 0x7E, ord("=")) if identifier else (0, 255, SOH)
    r = int(_fix().first_bad_byte(col.matrix, col.lengths, all_valid(col), lo, hi, forbidden))
    if r < 0:
        return
    text = col.matrix[r, : col.lengths[r]].tobytes()
    if not text:
        why = "is empty (FIX forbids empty values: mark the row null instead)"
    elif 1 in text:
        why = "contains SOH (\\x01), the FIX field delimiter"
    elif identifier and b"=" in text:
        why = "contains '=', which a FIX parser would take for a tag separator"
    else:
        why = "contains a byte outside printable ASCII"
    raise ValueError(f"{name}[{r}] = {show_value(text)} {why}")


def text_column(
    name: str, values: ColumnLike, *, identifier: bool = True, rows: int = -1, what: str = ""
) -> Formatted:
    """Strings, bytes or integers as rows of ASCII bytes, checked for FIX: identifiers
    (symbols, IDs) printable ASCII without ``=``, any value non-empty and free of SOH;
    nulls give rows with ``valid`` False. With ``what``, every row is required (one per
    ``what``), and ``rows`` of them if ``rows >= 0``."""
    if isinstance(values, (str, bytes)):
        raise TypeError(
            f"{name} must be a sequence of strings, not a single {type(values).__name__}"
        )
    col = _read_text(name, values)
    check_bytes(name, col, identifier)
    if rows >= 0:
        check_rows(name, col, rows, what)
    if what and col.valid is not None and not col.valid.all():
        raise ValueError(f"{name}[{int(np.argmin(col.valid))}] is null; every {what} needs one")
    return col


def _read_text(name: str, values: ColumnLike) -> Formatted:
    if isinstance(values, Formatted):
        return values
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {values.shape}")
        return _from_numpy(name, values)
    module = _module(values)
    if module == "pyarrow":
        return _from_arrow(name, values)
    if module == "pandas":
        return _from_pandas(name, values)
    if module == "polars":
        if type(values).__name__ == "DataFrame":
            raise TypeError(f"{name} must be one column, got a polars DataFrame")
        return _from_arrow(name, values.to_arrow())  # type: ignore[union-attr]
    try:
        items = list(values)  # type: ignore[arg-type]  # not iterable: TypeError below
    except TypeError:
        raise TypeError(
            f"{name} must be a sequence of str or bytes, got {type(values).__name__}"
        ) from None
    return _from_objects(name, items)


def plain_text(values: object) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The symbols or IDs of a per-tick call, cheaply: a list or tuple of ``str`` as their
    ASCII bytes back to back (and a stride of 0), a 1-D NumPy ``S``/``U`` array as its
    matrix's bytes (and the matrix's width), with int32 lengths; the bytes not yet
    checked (the caller's kernel checks them, and a refused row goes to
    :func:`text_column`, which says what is wrong). None for anything else."""
    if type(values) is list or type(values) is tuple:
        try:
            data = "".join(values).encode("ascii")  # (TypeError: not all str)
        except (TypeError, UnicodeEncodeError):
            return None
        lengths = np.fromiter(map(len, values), np.int32, len(values))
        return np.frombuffer(data or b"\0", np.uint8), lengths, 0
    if type(values) is np.ndarray and values.ndim == 1 and values.dtype.kind in "SU":
        try:
            col = _from_numpy("", values)
        except ValueError:  # not ASCII
            return None
        return col.matrix.reshape(-1), col.lengths, col.matrix.shape[1]
    return None


def _str_matrix(values: list[Any]) -> Formatted | None:
    """A list of ``str`` (ASCII) as a byte matrix, in a few NumPy calls; None otherwise."""
    if not all(type(v) is str for v in values):
        return None
    try:
        arr = np.array(values, dtype="S")
    except UnicodeEncodeError:
        return None
    lengths = np.fromiter(map(len, values), np.int32, len(values))
    return Formatted(arr.view(np.uint8).reshape(len(values), arr.dtype.itemsize), lengths)


def _from_numpy(name: str, arr: np.ndarray) -> Formatted:
    kind = arr.dtype.kind
    if kind == "S":
        matrix = np.ascontiguousarray(arr).view(np.uint8).reshape(arr.size, arr.dtype.itemsize)
        return Formatted(matrix, np.char.str_len(arr).astype(np.int32))
    if kind == "U":
        codes = np.ascontiguousarray(arr).view(np.uint32).reshape(arr.size, arr.dtype.itemsize // 4)
        if codes.size and int(codes.max()) > 0x7F:
            r = int(np.flatnonzero((codes > 0x7F).any(axis=1))[0])
            raise ValueError(f"{name}[{r}] = {show_value(str(arr[r]))} is not ASCII")
        return Formatted(codes.astype(np.uint8), np.char.str_len(arr).astype(np.int32))
    if kind in "iu":
        return _integers(name, arr)
    if kind in "OT":
        return _from_objects(name, arr.tolist())
    raise TypeError(f"{name} must hold strings, bytes or integers, got dtype {arr.dtype}")


def _integers(name: str, values: ColumnLike) -> Formatted:
    """Integer IDs as their decimal digits (nulls stay null)."""
    try:
        return format_fixed(values, 0, 0)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}: {exc}") from None


def _from_objects(name: str, items: list[Any]) -> Formatted:
    plain = _str_matrix(items)  # (the common call: every value a str)
    if plain is not None:
        return plain
    encoded = []
    for i, v in enumerate(items):
        if v is None:
            encoded.append(b"")
        elif isinstance(v, str):
            try:
                encoded.append(v.encode("ascii"))
            except UnicodeEncodeError:
                raise ValueError(f"{name}[{i}] = {show_value(v)} is not ASCII") from None
        elif isinstance(v, (bytes, bytearray)):
            encoded.append(bytes(v))
        elif is_int(v):
            encoded.append(str(int(v)).encode())
        else:
            raise TypeError(
                f"{name}[{i}] must be str or bytes, got {type(v).__name__} {show_value(v)}"
            )
    valid = np.fromiter((v is not None for v in items), dtype=np.bool_, count=len(items))
    lengths = np.fromiter(map(len, encoded), dtype=np.int32, count=len(encoded))
    width = max(1, int(lengths.max(initial=0)))
    matrix = np.array(encoded, dtype=f"S{width}").reshape(len(encoded)).view(np.uint8)
    return Formatted(matrix.reshape(len(encoded), width), lengths, None if valid.all() else valid)


def _from_arrow(name: str, values: Any) -> Formatted:
    import pyarrow as pa

    t = pa.types
    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 1:
            values = values.chunk(0)
        elif t.is_dictionary(values.type):
            values = values.unify_dictionaries().combine_chunks()
        else:
            values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        raise TypeError(f"{name} must be an Arrow array of strings, got {type(values).__name__}")
    if t.is_dictionary(values.type):  # (pandas and polars categoricals too)
        words = _read_text(name, values.dictionary)  # read once, gathered by code
        valid = arrow_valid(values.indices)
        codes = fixed_width(values.indices).astype(np.intp)
        if valid is not None:
            codes[~valid] = 0
        if len(words) == 0:  # every row is null
            return Formatted(
                np.zeros((len(codes), 1), np.uint8), np.zeros(len(codes), np.int32), valid
            )
        if words.valid is not None:
            valid = words.valid[codes] if valid is None else valid & words.valid[codes]
        return Formatted(words.matrix[codes], words.lengths[codes], valid)
    if t.is_integer(values.type):
        return _integers(name, values)
    if t.is_string_view(values.type) or t.is_binary_view(values.type):
        values = values.cast(pa.large_binary())
    large = t.is_large_string(values.type) or t.is_large_binary(values.type)
    if not (large or t.is_string(values.type) or t.is_binary(values.type)):
        raise TypeError(
            f"{name} must hold strings, bytes or integers, got Arrow type {values.type}"
        )
    n = len(values)
    _, off_buf, data_buf = values.buffers()
    offsets = np.frombuffer(off_buf, dtype=np.int64 if large else np.int32)
    offsets = offsets[values.offset : values.offset + n + 1]
    data = np.zeros(1, np.uint8) if data_buf is None else np.frombuffer(data_buf, dtype=np.uint8)
    lengths = np.diff(offsets).astype(np.int32)
    width = max(1, int(lengths.max(initial=0)))
    matrix = np.zeros((n, width), dtype=np.uint8)
    at = np.arange(n, dtype=np.int64) * width
    text = _engine.import_kernels("text")
    text.copy_rows(data, offsets[:-1].astype(np.int64), 0, lengths, matrix.reshape(-1), at)
    valid = arrow_valid(values)
    if valid is not None:  # a null's bytes (normally none) are never read
        lengths[~valid] = 0
    return Formatted(matrix, lengths, valid)


def _from_pandas(name: str, values: Any) -> Formatted:
    import pandas as pd

    dtype = getattr(values, "dtype", None)
    if dtype is not None and pd.api.types.is_bool_dtype(dtype):
        raise TypeError(f"{name} must hold strings, bytes or integers, got dtype {dtype}")
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pandas >= 3 needs pyarrow for strings
        return _from_objects(name, list(values))
    try:
        arr = pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return _from_objects(name, list(values))  # names the bad row
    return _from_arrow(name, arr)


def identifier(name: str, value: object) -> bytes:
    """One header value (sender, target, begin string): printable ASCII, no '='."""
    if not isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {show_value(value)}")
    if isinstance(value, str) and value.isascii() and value.isprintable() and value:
        if "=" not in value:  # (the common value, in a tenth of the column's checks)
            return value.encode("ascii")
    try:
        col = text_column(name, [value])  # says what is wrong, if anything
    except ValueError as exc:  # one value: no row, and no column's hint about nulls
        message = str(exc).replace(f"{name}[0]", name, 1)
        raise ValueError(message.replace(": mark the row null instead", "")) from None
    return col.matrix[0, : col.lengths[0]].tobytes()


def has_formatted_shape(values: object) -> bool:
    return hasattr(values, "matrix") and hasattr(values, "lengths")


def valid_mask(name: str, valid: ColumnLike, n: int) -> np.ndarray:
    """A boolean presence mask of length ``n``."""
    arr = np.asarray(valid)
    if arr.dtype != np.bool_:
        raise TypeError(f"{name} must be booleans (True = present), got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"{name} has shape {arr.shape} but its column has {n} rows")
    return np.ascontiguousarray(arr)


def check_aligned(columns: dict[str, object]) -> None:
    """Refuse pandas Series among ``columns`` (one kind of row: entries, or instruments)
    whose indexes differ, as :func:`vecfix.format_fixed` does: the builders pair rows by
    position, and another row's value in an entry would go out in a well-framed message."""
    owner = None
    for name, values in columns.items():
        if owner is None:
            identity = Identity.of(values)
            owner = None if identity is None or identity.index is None else (name, identity)
        else:
            check_same_index(owner[1], values, name, owner[0])


def codes(name: str, values: ColumnLike, n: int, what: str) -> np.ndarray:
    """One ASCII letter or digit per row: ints 0..9 or one-character strings; a scalar
    applies to every row. ``what`` says what ``n`` counts, for the length error."""
    if isinstance(values, (str, bytes, int, np.integer)) and not isinstance(values, bool):
        values = np.broadcast_to(np.asarray(values), (n,))
    if isinstance(values, np.ndarray) and values.ndim == 0:
        values = np.broadcast_to(values, (n,))
    if isinstance(values, (list, tuple)) and values and is_int(values[0]):
        values = np.asarray(values)
    values = _plain_integers(values)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        if values.shape != (n,):
            raise ValueError(f"{name} has shape {values.shape}, expected ({n},): one per {what}")
        if n and (values.min() < 0 or values.max() > 9):
            i = int(np.flatnonzero((values < 0) | (values > 9))[0])
            raise ValueError(f"{name}[{i}] = {int(values[i])}: integer codes must be 0..9")
        return (values + ord("0")).astype(np.uint8)
    if isinstance(values, np.ndarray) and values.dtype.kind not in "SUOT":
        raise TypeError(
            f"{name} must be ints 0..9 or one-character strings, got dtype {values.dtype}"
        )
    col = _read_text(name, values)
    if len(col) != n:
        raise ValueError(f"{name} has shape ({len(col)},), expected ({n},): one per {what}")
    first = col.matrix[:, 0] if col.matrix.shape[1] else np.zeros(n, np.uint8)
    ok = (col.lengths == 1) & np.isin(first, _ALNUM) & all_valid(col)
    if not ok.all():
        i = int(np.argmin(ok))
        text = col.matrix[i, : col.lengths[i]].tobytes().decode("ascii", "replace")
        shown = text if all_valid(col)[i] else None
        raise ValueError(f"{name}[{i}] = {show_value(shown)} must be a single letter or digit")
    return np.ascontiguousarray(first)


def _plain_integers(values: Any) -> ColumnLike:  # Any: duck-typed by its module
    """An Arrow, pandas or polars integer column without nulls as a NumPy array (no copy
    where the library allows); anything else as it is."""
    module = _module(values)
    try:
        if module == "polars" and values.dtype.is_integer() and not values.null_count():
            return values.to_numpy()
        if module == "pandas" and getattr(values, "dtype", None) is not None:
            if values.dtype.kind in "iu" and not values.hasnans:
                return values.to_numpy()
        if module == "pyarrow" and not values.null_count:
            import pyarrow as pa

            if pa.types.is_integer(values.type):
                return values.to_numpy()
    except (AttributeError, TypeError):  # not a column these attributes describe
        pass
    return values
