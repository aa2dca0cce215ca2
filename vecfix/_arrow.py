"""Arrow string arrays straight from the byte matrix: ``string_view`` and ``string``.

A :class:`~vecfix.Formatted` result is an ``(n, width)`` byte matrix and the row lengths.
Two Arrow layouts can be made from it without a Python object per row:

``string_view``
    One 16-byte record a row: its length (int32), then, for a row of at most 12 bytes, the
    text itself (zero padded), else its first 4 bytes, a buffer index and an offset into a
    data buffer. The data buffer is the matrix itself, so a long row is not copied at all,
    and a short one is copied once into its record. polars keeps its strings in this
    layout and takes such an array without a copy (``pl.from_arrow``): this is what
    :meth:`~vecfix.Formatted.to_polars` hands it.
``string`` / ``large_string``
    Offsets (int32 or int64) and the rows' bytes back to back: what pandas' Arrow-backed
    strings, Parquet and CSV writers expect. One pass packs the rows, eight bytes a store.

Offsets into a data buffer are int32 in both layouts; ``offset_limit`` (2**31 - 1, the
largest int32) decides when ``string`` becomes ``large_string`` and when the matrix is
handed to ``string_view`` as several data buffers. Tests pass a small limit to cross it
on small data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._limits import INT32_MAX

INT32_LIMIT = INT32_MAX


def check_view(large: bool | None) -> None:
    """Refuse ``large=`` with ``view=True`` (a ``string_view`` array has no offsets)."""
    if large is not None:
        raise ValueError("large= applies to string and large_string, not to view=True")


def large_offsets(total: int, large: bool | None, offset_limit: int = INT32_LIMIT) -> bool:
    """Whether ``total`` bytes of text take ``large_string`` (int64 offsets): ``large``,
    or, when None, whether the text is past ``offset_limit``; ``large=False`` for text
    past it raises."""
    if large is None:
        return total > offset_limit
    if not large and total > offset_limit:
        raise ValueError(f"{total} bytes of text do not fit pa.string(); pass large=True")
    return large


def numpy_strings(
    matrix: np.ndarray, lengths: np.ndarray, valid: np.ndarray | None, large: bool = False
) -> Any:
    """The rows as an Arrow ``string`` (or ``large_string``) array, packed by NumPy alone:
    for a few rows, where the kernels are not loaded (and pyarrow's conversion from Python
    strings would import pandas, half a second)."""
    import pyarrow as pa

    n, width = matrix.shape
    offsets = np.zeros(n + 1, dtype=np.int64 if large else np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = matrix[np.arange(width) < lengths[:, None]]  # the rows' bytes, in row order
    nulls = 0 if valid is None else int(n - np.count_nonzero(valid))
    buffers = [validity(valid, nulls), pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(pa.large_string() if large else pa.string(), n, buffers, nulls)


def without_empty_buffers(array: Any) -> Any:
    """``array`` (a ``string_view`` array that pyarrow's cast made) without the missing
    data buffer the cast leaves when every row sits in its record: polars before 2.0
    crashes on it (a segmentation fault), where it takes the same array without it."""
    import pyarrow as pa

    buffers = array.buffers()
    if len(buffers) < 3 or buffers[2] is not None:
        return array
    return pa.Array.from_buffers(
        array.type, len(array), buffers[:2], null_count=array.null_count, offset=array.offset
    )


def validity(valid: np.ndarray | None, nulls: int) -> Any:
    """Arrow's validity bitmap for the bool mask ``valid`` (None when no row is null)."""
    import pyarrow as pa

    if valid is None or not nulls:
        return None
    return pa.py_buffer(np.packbits(valid, bitorder="little"))


def flat_buffer(matrix: np.ndarray) -> np.ndarray:
    """The matrix's bytes as one 1-D array (the matrix itself when it is C-contiguous)."""
    return np.ascontiguousarray(matrix).reshape(-1)


def arrow_strings(
    matrix: np.ndarray,
    lengths: np.ndarray,
    valid: np.ndarray | None,
    *,
    view: bool = False,
    large: bool | None = None,
    offset_limit: int = INT32_LIMIT,
    threads: int | None = 1,
) -> Any:
    """The rows as a ``pyarrow`` ``string_view``, ``string`` or ``large_string`` array.

    ``view=True`` gives ``string_view`` (``large`` must then be None); otherwise
    ``large=None`` gives ``string`` unless the text exceeds ``offset_limit`` bytes.
    ``threads``: as :func:`~vecfix.format_fixed`'s (``None``: the usable cores, for a
    large matrix); the records, or the text, are written by parts in parallel.

    Examples
    --------
    >>> import numpy as np
    >>> m = np.frombuffer(b"1.5\\0\\0\\0-12.25", dtype=np.uint8).reshape(2, 6)
    >>> lengths = np.array([3, 6], dtype=np.int32)
    >>> arrow_strings(m, lengths, None, view=True).to_pylist()
    ['1.5', '-12.25']
    >>> arrow_strings(m, lengths, np.array([True, False])).to_pylist()
    ['1.5', None]
    """
    import pyarrow as pa

    from ._kernels.text import copy_rows, string_views
    from ._plan import thread_count
    from ._threads import run_split

    n, width = matrix.shape
    parts = thread_count(n, threads)
    flat = flat_buffer(matrix)
    lengths = np.ascontiguousarray(lengths, dtype=np.int32)
    nulls = 0 if valid is None else int(n - np.count_nonzero(valid))
    bitmap = validity(valid, nulls)
    if view:
        check_view(large)
        records = np.empty((n, 2), dtype=np.uint64)
        per_buffer = max(offset_limit // max(width, 1), 1)
        run_split(string_views, n, parts, flat, width, lengths, per_buffer, records)
        step = per_buffer * max(width, 1)
        chunks = [pa.py_buffer(flat[s : s + step]) for s in range(0, max(flat.size, 1), step)]
        return pa.Array.from_buffers(
            pa.string_view(), n, [bitmap, pa.py_buffer(records), *chunks], null_count=nulls
        )
    total = int(lengths.sum(dtype=np.int64))
    large = large_offsets(total, large, offset_limit)
    offsets = np.empty(n + 1, dtype=np.int64 if large else np.int32)
    offsets[0] = 0
    np.cumsum(lengths, out=offsets[1:])
    packed = np.empty(total, dtype=np.uint8)

    def pack(lo: int, hi: int) -> int:
        # the text of a part of the matrix where it ends up; no store past the part's end,
        # which another thread writes
        room = packed[: int(offsets[hi])]
        return copy_rows(
            flat[lo * width :], _NO_STARTS, width, lengths[lo:hi], room, offsets[lo:hi]
        )

    run_split(pack, n, parts)
    return pa.Array.from_buffers(
        pa.large_string() if large else pa.string(),
        n,
        [bitmap, pa.py_buffer(offsets), pa.py_buffer(packed)],
        null_count=nulls,
    )


_NO_STARTS = np.empty(0, dtype=np.int64)
