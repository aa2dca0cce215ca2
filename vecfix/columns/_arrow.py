"""pyarrow arrays and chunked arrays: decimals, integers, strings (with their nulls)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import rules
from .column import Column
from .text import parse_arrow_buffers


def read_arrow(values: Any, argument: str, source: str | None = None) -> Column:
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        chunks = values.chunks or [pa.array([], type=values.type)]
        parts, start = [], 0
        for chunk in chunks:
            try:
                parts.append(_read_array(chunk, argument, source))
            except rules.RowError as exc:  # its row counted from the column's start
                raise exc.shifted(start) from None
            start += len(chunk)
        return _concat(parts)
    if isinstance(values, pa.Array):
        return _read_array(values, argument, source)
    raise TypeError(
        f"{argument} must be one column, got a pyarrow {type(values).__name__}\nPass one"
        " column (a pyarrow Array or ChunkedArray), e.g. table['price']"
    )


def arrow_valid(arr: Any) -> np.ndarray | None:
    """Where an Arrow array holds a value (None when every row does)."""
    if arr.null_count == 0:
        return None
    present = arr.is_valid()  # a boolean array: its bitmap, whatever the array's layout
    return bits(present.buffers()[1], present.offset, len(present))


def bits(buffer: Any, offset: int, n: int) -> np.ndarray:
    """``n`` bits of an Arrow bitmap (validity, booleans) from bit ``offset`` on, as bools.

    Read here, not by pyarrow's ``to_numpy``, which imports pandas (half a second) to do it.
    """
    packed = np.frombuffer(buffer, dtype=np.uint8)
    return np.unpackbits(packed, count=offset + n, bitorder="little")[offset:].astype(bool)


def fixed_width(arr: Any) -> np.ndarray:
    """The values of an Arrow array of a fixed-width NumPy type (integers), a view of its
    buffer (a null row's slot holds whatever was there). Without pyarrow's ``to_numpy``,
    which imports pandas."""
    dtype = np.dtype(str(arr.type))
    data = arr.buffers()[1]
    if data is None:  # no rows
        return np.empty(0, dtype=dtype)
    return np.frombuffer(data, dtype=dtype)[arr.offset : arr.offset + len(arr)]


def _read_array(arr: Any, argument: str, source: str | None) -> Column:
    import pyarrow as pa

    t = arr.type
    source = source or f"an Arrow array of type {t}"
    if pa.types.is_dictionary(t):
        return _read_array(arr.dictionary_decode(), argument, source)
    if pa.types.is_string_view(t) or pa.types.is_binary_view(t):
        t = pa.large_string() if pa.types.is_string_view(t) else pa.large_binary()
        arr = arr.cast(t)
    n = len(arr)
    valid = arrow_valid(arr)
    if t in (pa.string(), pa.binary(), pa.large_string(), pa.large_binary()):
        wide = t in (pa.large_string(), pa.large_binary())
        col = parse_arrow_buffers(arr, wide, valid, argument)
        return Column("text", *col, source="decimal text")
    if pa.types.is_decimal(t):
        coef = _decimal_coefficients(arr)
        return Column("decimals", coef, -t.scale, valid, f"decimals ({source})")
    if pa.types.is_integer(t):
        coef = fixed_width(arr)
        if valid is not None:  # a null row's coefficient is 0
            coef = np.where(valid, coef, 0).astype(coef.dtype, copy=False)
        return Column("integers", coef, None, valid, f"integers ({source})")
    if pa.types.is_null(t):
        return Column("empty", np.zeros(n, dtype=np.int64), None, np.zeros(n, bool), source)
    if pa.types.is_floating(t):
        raise rules.float_error(argument, source)
    raise TypeError(
        f"{argument} must be decimals, integers or decimal text, got {source}"
        if argument == "coefficients"
        else f"{argument} must be integers, got {source}"
    )


def _decimal_coefficients(arr: Any) -> np.ndarray:
    """The coefficients in a decimal array's storage: int64 (a view of decimal32/64
    storage), or Python ints when some are beyond int64."""
    import pyarrow as pa

    t, n = arr.type, len(arr)
    if t.byte_width <= 8:
        buf = arr.buffers()[1]
        return np.frombuffer(buf, dtype=f"<i{t.byte_width}", count=arr.offset + n)[arr.offset :]
    whole = arr.view((pa.decimal128 if t.byte_width == 16 else pa.decimal256)(t.precision, 0))
    try:
        return fixed_width(whole.cast(pa.int64()))
    except pa.ArrowInvalid:  # beyond int64 (pyarrow checks the rows present only)
        return np.array([0 if v is None else int(v) for v in whole.to_pylist()], dtype=object)


def _concat(parts: list[Column]) -> Column:
    if len(parts) == 1:
        return parts[0]
    exps = [p.exponents for p in parts]
    exponent = exps[0]
    if any(isinstance(e, np.ndarray) or e != exponent for e in exps):  # per row, or differ
        shaped = [np.broadcast_to(np.asarray(p.exponents, np.int32), (len(p),)) for p in parts]
        exponent = np.concatenate(shaped)
    valid = None
    if any(p.valid is not None for p in parts):
        valid = np.concatenate(
            [np.ones(len(p), bool) if p.valid is None else p.valid for p in parts]
        )
    coef = np.concatenate([p.coefficients for p in parts])
    return Column(parts[0].kind, coef, exponent, valid, parts[0].source)
