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
from .columns.column import Identity


def run(
    rows: Rows, valid: np.ndarray | None, plan: _plan.Plan, identity: Identity | None
) -> Formatted:
    """Format ``rows`` as :func:`vecfix.format_fixed` does, on ``plan``."""
    coef, exps, scales = rows.values()
    keep = [True] * rows.n if valid is None else valid.tolist()
    lengths = np.zeros(rows.n, dtype=np.int32)
    for i, (c, e, s, present) in enumerate(zip(coef, exps, scales, keep, strict=True)):
        if present:
            length = row_length(c, e, s)
            if length > MAX_ROW_LENGTH:
                _plan.check_lengths(rows, lengths, valid, too_long=i)
            lengths[i] = length
    widest = _plan.check_lengths(rows, lengths, valid)
    matrix, flat = _plan.output_matrix(rows, lambda: lengths, widest, plan, valid)
    width = matrix.shape[1]
    texts = (
        format_row(c, e, s).encode("ascii").ljust(width, b"\0") if present else bytes(width)
        for c, e, s, present in zip(coef, exps, scales, keep, strict=True)
    )
    flat[: rows.n * width] = np.frombuffer(b"".join(texts), dtype=np.uint8)
    return Formatted(matrix, lengths, valid, identity=identity)
