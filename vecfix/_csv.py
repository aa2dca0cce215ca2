"""CSV lines straight from formatted columns: the kernel behind ``vecfix format``'s CSV
output when every column it writes is one vecfix formatted.

pyarrow's ``CSVWriter`` would take the text as Arrow strings and copy it again, field by
field; here each batch's lines are laid out in one ``uint8`` buffer by :func:`csv_lines`
(one pass over each column's :class:`~vecfix.Formatted` matrix) and written in one write.
The bytes are pyarrow's: a value is quoted unless the quoting style is ``"none"``, a null
is an empty field, fields are separated by ``,`` and lines end with ``\\n``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._jit import kernel, load8, readonly, store8

_U64 = np.uint64
_ONES = _U64(0xFFFFFFFFFFFFFFFF)


@kernel
def place_csv_column(out, starts, matrix, width, lengths, quote, sep):
    """Write field ``i`` of one column at ``out[starts[i]:]`` and advance ``starts[i]``.

    Row ``i``'s text is ``matrix[i * width : i * width + lengths[i]]`` (the flattened
    ``(n, width)`` matrix); it is written between two ``quote`` bytes (none when ``quote``
    is 0), then ``sep``. A row of length 0 (a null) is the empty field: ``sep`` alone.
    Text moves 8 bytes at a time; the last, partial word is merged with the bytes already
    in ``out``, so nothing past the field changes: ``out`` needs 8 bytes of room past the
    last line (the caller allocates them).
    """
    size = matrix.shape[0]
    for i in range(lengths.shape[0]):
        pos = starts[i]
        length = np.int64(lengths[i])
        if length > 0:
            if quote != 0:
                out[pos] = quote
                pos += 1
            src = i * width
            if src + (length + 7) // 8 * 8 <= size:
                done = 0
                while length - done >= 8:
                    store8(out, pos + done, load8(matrix, src + done))
                    done += 8
                left = length - done
                if left > 0:
                    mask = (_U64(1) << _U64(8 * left)) - _U64(1)
                    word = load8(matrix, src + done) & mask
                    store8(out, pos + done, word | (load8(out, pos + done) & (mask ^ _ONES)))
            else:  # the matrix's last bytes: no word may be read past its end
                for j in range(length):
                    out[pos + j] = matrix[src + j]
            pos += length
            if quote != 0:
                out[pos] = quote
                pos += 1
        out[pos] = sep
        starts[i] = pos + 1


def _buffer(keep: dict[str, np.ndarray] | None, name: str, size: int, dtype: Any) -> np.ndarray:
    """``size`` items of the buffer ``keep[name]``, made (a quarter larger) when too small."""
    if keep is None:
        return np.empty(size, dtype=dtype)
    buf = keep.get(name)
    if buf is None or buf.size < size:
        buf = keep[name] = np.empty(size + size // 4, dtype=dtype)
    return buf[:size]


def csv_lines(
    columns: Sequence[Any], quoted: bool, keep: dict[str, np.ndarray] | None = None
) -> np.ndarray:
    """The CSV lines of formatted columns, one line per row, as a ``uint8`` array.

    Parameters
    ----------
    columns : sequence of Formatted
        The columns, in output order, all of the same length.
    quoted : bool
        Put each value (not a null) between double quotes.
    keep : dict, optional
        Buffers kept from one call to the next: pass the same dict to every call, and the
        result is a view of a buffer the next call overwrites. A fresh buffer for each
        batch costs about as much in page faults as laying out its lines.

    Returns
    -------
    numpy.ndarray
        ``uint8``: each row's fields joined by ``,``, each line ended by ``\\n``.

    Examples
    --------
    >>> import numpy as np, vecfix
    >>> from vecfix._csv import csv_lines
    >>> px = vecfix.format_fixed(np.array([1250, 5]), -3, 2)
    >>> qty = vecfix.format_fixed([3, None], 0, 0)
    >>> csv_lines([px, qty], quoted=True).tobytes()
    b'"1.25","3"\\n"0.01",\\n'
    >>> csv_lines([px, qty], quoted=False).tobytes()
    b'1.25,3\\n0.01,\\n'
    """
    n = len(columns[0]) if columns else 0
    fixed = len(columns)  # bytes every line has: the separators and the newline
    if quoted:
        fixed += 2 * sum(col.valid is None for col in columns)  # the quotes of a null-free column
    rows = _buffer(keep, "rows", n, np.int64)
    rows[:] = fixed
    lengths = []
    for col in columns:
        k = np.ascontiguousarray(col.lengths, dtype=np.int32)
        rows += k
        if quoted and col.valid is not None:
            rows += 2 * (k > 0)  # a null (length 0) is the empty field: no quotes
        lengths.append(readonly(k))
    starts = _buffer(keep, "starts", n, np.int64)
    if n:
        starts[0] = 0
        np.cumsum(rows[:-1], out=starts[1:])
    total = int(starts[-1] + rows[-1]) if n else 0
    out = _buffer(keep, "out", total + 8, np.uint8)  # 8 bytes of room for the last word
    quote = ord('"') if quoted else 0
    for j, col in enumerate(columns):
        matrix = np.ascontiguousarray(col.matrix)
        sep = ord("\n") if j == len(columns) - 1 else ord(",")
        flat = readonly(matrix.reshape(-1))
        place_csv_column(out, starts, flat, matrix.shape[1], lengths[j], quote, sep)
    return out[:total]
