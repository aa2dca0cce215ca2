"""Arrow string arrays from a byte matrix, with no Python object per row: ``string_view``
(a 16-byte record a row, a longer row pointing into the matrix, shared) or ``string`` /
``large_string`` (offsets and the rows packed back to back). Offsets into a data buffer
are int32: ``offset_limit`` says when ``string`` becomes ``large_string`` and when
``string_view`` takes several data buffers (tests pass a small one).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._limits import INT32_MAX

_NO_STARTS = np.empty(0, dtype=np.int64)


def check_view(large: bool | None) -> None:
    """Refuse ``large=`` with ``view=True`` (a ``string_view`` array has no offsets)."""
    if large is not None:
        raise ValueError("large= applies to string and large_string, not to view=True")


def large_offsets(total: int, large: bool | None, offset_limit: int = INT32_MAX) -> bool:
    """Whether ``total`` bytes of text take ``large_string``: ``large``, or by default
    whether the text is past ``offset_limit``; ``large=False`` for text past it raises."""
    if large is None:
        return total > offset_limit
    if not large and total > offset_limit:
        raise ValueError(f"{total} bytes of text do not fit pa.string(); pass large=True")
    return large


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


def offsets(counts: Any, dtype: Any = np.int64) -> np.ndarray:
    """``n + 1`` offsets from ``n`` counts (Arrow's layout of strings and lists): 0, then
    their running sum; ``offsets(c)[:-1]`` is where each run starts.

    >>> offsets([3, 0, 2]).tolist()
    [0, 3, 3, 5]
    """
    out = np.empty(len(counts) + 1, dtype=dtype)
    out[0] = 0
    np.cumsum(counts, out=out[1:])
    return out


def pack_rows(
    matrix: np.ndarray, lengths: np.ndarray, out: np.ndarray, at: np.ndarray, parts: int
) -> None:
    """Copy row ``i``'s text from ``matrix`` to ``out[at[i]:]`` (``at``: ``n + 1`` ascending
    places) by the row-copy kernel on ``parts`` threads, or by NumPy (``parts=0``: a few
    rows, where the kernels are not loaded)."""
    n, width = matrix.shape
    if not parts:
        ends = np.cumsum(lengths, dtype=np.int64)
        ranks = np.arange(int(ends[-1]) if n else 0) - np.repeat(ends - lengths, lengths)
        out[np.repeat(at[:n], lengths) + ranks] = matrix[np.arange(width) < lengths[:, None]]
        return
    from ._kernels.text import copy_rows
    from ._threads import run_split

    flat = np.ascontiguousarray(matrix).reshape(-1)
    if parts == 1:  # (no slices, no pool)
        copy_rows(flat, _NO_STARTS, width, lengths, out, at)
        return

    def part(lo: int, hi: int) -> int:  # no store past the part's room: another part's
        room = out[: int(at[hi])]
        return copy_rows(flat[lo * width :], _NO_STARTS, width, lengths[lo:hi], room, at[lo:hi])

    run_split(part, n, parts)


def arrow_strings(
    matrix: np.ndarray,
    lengths: np.ndarray,
    valid: np.ndarray | None,
    *,
    view: bool = False,
    large: bool | None = None,
    offset_limit: int = INT32_MAX,
    threads: int | None = 1,
    kernels: bool = True,
) -> Any:
    """The rows as a ``pyarrow`` ``string_view`` (``view=True``), ``string`` or
    ``large_string`` (``large``, by default past ``offset_limit`` bytes) array, written on
    ``threads`` as :func:`~vecfix.format_fixed` takes them; ``kernels=False``: by NumPy
    (a result made in plain Python, the kernels not loaded).

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

    if view:
        check_view(large)
    n, width = matrix.shape
    lengths = np.ascontiguousarray(lengths, dtype=np.int32)
    nulls = 0 if valid is None else int(n - np.count_nonzero(valid))
    bitmap = validity(valid, nulls)
    parts = 0  # (NumPy packs the rows)
    if kernels:
        from ._plan import thread_count

        parts = thread_count(n, threads)
    if view and parts:
        from ._kernels.text import string_views
        from ._threads import run_split

        flat = np.ascontiguousarray(matrix).reshape(-1)
        records = np.empty((n, 2), dtype=np.uint64)
        per_buffer = max(offset_limit // max(width, 1), 1)
        run_split(string_views, n, parts, flat, width, lengths, per_buffer, records)
        step = per_buffer * max(width, 1)
        chunks = [pa.py_buffer(flat[s : s + step]) for s in range(0, max(flat.size, 1), step)]
        return pa.Array.from_buffers(
            pa.string_view(), n, [bitmap, pa.py_buffer(records), *chunks], null_count=nulls
        )
    total = int(lengths.sum(dtype=np.int64))
    wide = large_offsets(total, large, offset_limit)
    starts = offsets(lengths, np.int64 if wide else np.int32)
    packed = np.empty(total, dtype=np.uint8)
    pack_rows(matrix, lengths, packed, starts, parts)
    string = pa.large_string() if wide else pa.string()
    buffers = [bitmap, pa.py_buffer(starts), pa.py_buffer(packed)]
    text = pa.Array.from_buffers(string, n, buffers, null_count=nulls)
    return without_empty_buffers(text.cast(pa.string_view())) if view else text
