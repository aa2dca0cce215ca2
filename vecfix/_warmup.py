"""Compile (or load from the on-disk cache) every kernel ahead of the first real call."""

from __future__ import annotations

import time

import numpy as np


def warmup() -> float:
    """Compile vecfix's kernels now, so the first real call pays no compile time.

    With Numba's on-disk cache warm this only loads the compiled code. Call it at start-up
    in latency-sensitive services.

    Returns
    -------
    float
        Seconds it took.

    Examples
    --------
    >>> import vecfix
    >>> seconds = vecfix.warmup()
    """
    from ._format import format_fixed

    start = time.perf_counter()
    format_fixed(np.array([1, -2], dtype=np.int64), -1, 1)
    return time.perf_counter() - start
