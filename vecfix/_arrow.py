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

from ._jit import kernel, load8, store8
from ._limits import INT32_MAX

INT32_LIMIT = INT32_MAX
_U64 = np.uint64
_ALL = _U64(0xFFFFFFFFFFFFFFFF)


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


@kernel
def string_views(start, stop, flat, width, lengths, rows_per_buffer, out):
    """Write the Arrow ``string_view`` record of each row ``i`` of ``start:stop`` into
    ``out[i]`` (two uint64).

    ``flat`` is the matrix's buffer (row ``i`` at ``i * width``), split into data buffers
    of ``rows_per_buffer`` rows for the rows longer than 12 bytes. Rows are independent:
    threads may take parts of them.
    """
    quick = stop  # rows whose 12 bytes can be read with two 8-byte loads
    while quick > start and (quick - 1) * width + 12 > flat.shape[0]:
        quick -= 1
    for i in range(start, stop):
        k = _U64(lengths[i])
        base = i * width
        if i < quick:
            head, tail = load8(flat, base), load8(flat, base + 4)
        else:  # the last rows of a buffer without slack: byte by byte
            head, tail = _U64(0), _U64(0)
            for j in range(min(lengths[i], 12)):
                byte = _U64(flat[base + j])
                if j < 8:
                    head |= byte << _U64(8 * j)
                if j >= 4:
                    tail |= byte << _U64(8 * (j - 4))
        shown = min(k, _U64(4))  # the bytes after the text are not the row's: mask them
        lo = k | ((head & ((_U64(1) << (_U64(8) * shown)) - _U64(1))) << _U64(32))
        if k <= _U64(12):
            rest = max(k, _U64(4)) - _U64(4)
            hi = (_ALL >> (_U64(64) - _U64(8) * rest)) & tail if rest else _U64(0)
        else:
            b = i // rows_per_buffer
            hi = _U64(b) | (_U64((i - b * rows_per_buffer) * width) << _U64(32))
        out[i, 0] = lo
        out[i, 1] = hi


@kernel(vectorize=False)
def pack_rows(start, stop, flat, width, lengths, offsets, data, given):
    """Copy the text of rows ``start:stop`` to ``data`` back to back, eight bytes a store;
    return where it ends.

    Without ``given`` (one call for all rows, ``start`` 0), ``offsets`` (``n + 1``) gets
    the bounds as the rows are copied, and ``data`` has 8 bytes of slack after the text.
    With ``given`` (a thread's part), ``offsets`` holds them already and the part's text
    goes to ``data[offsets[start]:offsets[stop]]`` with nothing stored past it (another
    thread writes there), except into the slack after the last part.
    """
    quick = stop  # rows that can be read eight bytes at a time without passing the buffer
    while quick > start and (quick - 1) * width + ((width + 7) // 8) * 8 > flat.shape[0]:
        quick -= 1
    if not given:
        offsets[start] = 0
    pos = offsets[start]
    end = data.shape[0] if stop == lengths.shape[0] or not given else offsets[stop]
    for i in range(start, stop):
        k = lengths[i]
        base = i * width
        if i < quick and pos + (k + 7) // 8 * 8 <= end:
            for j in range(0, k, 8):  # the bytes past the text are overwritten next
                store8(data, pos + j, load8(flat, base + j))
        else:
            for j in range(k):
                data[pos + j] = flat[base + j]
        pos += k
        if not given:
            offsets[i + 1] = pos
    return pos


@kernel
def unpack_rows(data, offsets, lengths, matrix):
    """Copy row ``i``'s ``lengths[i]`` bytes from ``data[offsets[i]:]`` into ``matrix[i]``
    (zeroed by the caller): the byte matrix of a result made in Arrow's layout."""
    for i in range(lengths.shape[0]):
        base = offsets[i]
        for j in range(lengths[i]):
            matrix[i, j] = data[base + j]


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

    from ._format import _thread_count
    from ._threads import run_split

    n, width = matrix.shape
    parts = _thread_count(n, threads)
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
    packed = np.empty(total + 8, dtype=np.uint8)  # 8 bytes of slack for the last store
    if parts > 1:  # the bounds first, then each part's text where it ends up
        offsets[0] = 0
        np.cumsum(lengths, out=offsets[1:])
        run_split(pack_rows, n, parts, flat, width, lengths, offsets, packed, True)
    else:
        pack_rows(0, n, flat, width, lengths, offsets, packed, False)
    return pa.Array.from_buffers(
        pa.large_string() if large else pa.string(),
        n,
        [bitmap, pa.py_buffer(offsets), pa.py_buffer(packed[:total])],
        null_count=nulls,
    )
