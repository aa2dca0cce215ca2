"""The plain-Python engine: a few rows formatted with no compiled kernel at all.

Each row goes through :mod:`decimal` (:func:`vecfix._scalar.format_row`, the exact
fallback the kernels send their rows beyond int64 to), a few microseconds a row: less, for
a few thousand rows, than a fresh process pays to load the kernels (:mod:`vecfix._engine`
decides). The result is a byte matrix whatever the ``layout`` asked for (the layouts are
the kernels' ways to skip a copy; the text is the same).
"""

from __future__ import annotations

import numpy as np

from . import _plan
from ._inputs import Rows
from ._result import Formatted
from ._scalar import MAX_ROW_LENGTH, format_row, row_length
from .columns import rules
from .columns.column import Identity


def run(
    rows: Rows,
    valid: np.ndarray | None,
    plan: _plan.Plan,
    identity: Identity | None,
    sentinels: bool = False,
) -> Formatted:
    """Format ``rows`` as :func:`vecfix.format_fixed` does, on ``plan``; ``sentinels``:
    warn of a usual null sentinel among them."""
    if sentinels:
        column = rows.coef if rows.cstep or rows.n == 1 else np.broadcast_to(rows.coef, (rows.n,))
        rules.warn_sentinels(
            column, valid=valid, big_rows=rows.big_rows.tolist(), big_values=rows.big_values
        )
    coef, exps, scales = rows.values()
    keep = [True] * rows.n if valid is None else valid.tolist()
    texts = []
    for i, (c, e, s, present) in enumerate(zip(coef, exps, scales, keep, strict=True)):
        if not present:
            texts.append(b"")
            continue
        if abs(e) + abs(s) > _SURELY_SHORT or not _INT64_MIN <= c <= _INT64_MAX:
            if row_length(c, e, s) > MAX_ROW_LENGTH:  # refused before it is written
                _plan.check_lengths(rows, np.zeros(rows.n, np.int32), valid, too_long=i)
        texts.append(format_row(c, e, s).encode("ascii"))
    lengths = np.fromiter(map(len, texts), dtype=np.int32, count=rows.n)
    widest = _plan.check_lengths(rows, lengths, valid)
    matrix, flat = _plan.output_matrix(rows, lambda: lengths, widest, plan, valid)
    width = matrix.shape[1]
    flat[: rows.n * width] = np.frombuffer(b"".join(t.ljust(width, b"\0") for t in texts), np.uint8)
    return Formatted(matrix, lengths, valid, identity=identity)


#: Rows of int64 coefficients whose exponent and scale are this small in size print far
#: fewer than :data:`~vecfix.MAX_ROW_LENGTH` bytes (19 digits, a sign, a point, the zeros
#: the exponent and the scale add): only the others are measured first.
_SURELY_SHORT = MAX_ROW_LENGTH - 64
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
