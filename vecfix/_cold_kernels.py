"""The cold tier: :func:`format_rows_cold`, a scalar twin of
:func:`vecfix._kernels.fixed.format_rows` that compiles in a fraction of its time.

The block kernel's passes take seconds to compile (Numba's on-disk cache keeps them for
later processes). While a worker process compiles them into that cache,
:mod:`vecfix._format` runs a call through this kernel instead (:mod:`vecfix._coldstart`
says when): one loop over the rows, each through the general path of
:mod:`vecfix._kernels.fixed` (:func:`~vecfix._kernels._row_length`,
:func:`~vecfix._kernels._write_row`, which ``format_few`` compiles too), exact for any
int64 row, with the same arguments (less the staging arrays), contract and result. It is
slower a row than the block kernel (tens of nanoseconds), which does not matter for the
calls of the few seconds the compile takes.
"""

from __future__ import annotations

import numpy as np

from ._jit import helper, kernel
from ._kernels.fixed import _phase, _row_length, _write_row

_I64 = np.int64
#: ``mode`` of :func:`format_rows_cold`, as :mod:`vecfix._kernels.fixed` numbers them.
FILL, MEASURE, PACK, PACK_AT = 0, 1, 2, 3


@kernel(vectorize=False)
def format_rows_cold(start, stop, coef, cstep, exps, estep, scales, sstep, buf, width, lengths,
                     limit, mode):  # fmt: skip
    """:func:`vecfix._kernels.fixed.format_rows` (see it for the arguments, the modes and the
    result) without its staging arrays, a row at a time through the general path.

    Examples
    --------
    >>> import numpy as np
    >>> coef = np.array([5000_250000000, -4_000050000, 7], dtype=np.int64)
    >>> exps, scales = np.array([-9], dtype=np.int32), np.array([4], dtype=np.int32)
    >>> buf, lengths = np.zeros(3 * 24 + 8, dtype=np.uint8), np.zeros(3, dtype=np.int32)
    >>> widest, first = format_rows_cold(0, 3, coef, 1, exps, 0, scales, 0, buf, -1, lengths,
    ...                                  24, FILL)  # fmt: skip
    >>> [bytes(buf[widest * i : widest * i + n]) for i, n in enumerate(lengths)]
    [b'5000.2500', b'-4.0001', b'0.0000']
    """
    widest = 0
    first = -1
    for phase in range(2 if width < 0 else 1):
        width, now = _phase(phase, width, widest, mode)
        widest, first = _rows(start, stop, coef, exps, estep, scales, sstep, buf, width,
                              lengths, limit, now)  # fmt: skip
    return widest, first


@helper
def _rows(start, stop, coef, exps, estep, scales, sstep, buf, width, lengths, limit, mode):
    """One pass of :func:`format_rows_cold` over rows ``start:stop`` in ``mode``. A row
    longer than ``limit`` (measuring: the callers of the other modes keep within it) gets
    length 0 and is not written; the first such row is returned."""
    packed, given = mode >= PACK, mode == PACK_AT
    widest = 0
    first = -1
    cap = max(limit, 0) + 1
    pos = start * width  # PACK: where the next row starts
    for i in range(start, stop):
        c, e, s = coef[i], _I64(exps[i * estep]), _I64(scales[i * sstep])
        if mode == FILL and width <= limit:  # each row fits (the caller checked): write
            n = _write_row(buf, i * width, width, c, e, s)
        else:
            n = min(_row_length(c, e, s), cap)
            if n > limit:
                first = i if first < 0 else first
                lengths[i] = 0
                continue
            if mode == FILL:
                _write_row(buf, i * width, width, c, e, s)
            elif packed:
                pos = _I64(lengths[i]) - n if given else pos
                _write_row(buf, pos, n, c, e, s)
                pos += n
        widest = max(widest, n)
        lengths[i] = pos if packed else n
    return widest, first
