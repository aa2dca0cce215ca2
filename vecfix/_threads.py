"""Running a kernel over a range of rows on several threads.

The kernels release the GIL, so Python threads run them in parallel. The threads are kept
between calls (a new thread costs tens of microseconds and can wait milliseconds for the
GIL on a busy machine), and the calling thread takes the first part of the rows itself.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

_LOCK = threading.Lock()
_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0


def _pool(workers: int) -> ThreadPoolExecutor:
    """The shared pool, with room for at least ``workers`` threads."""
    global _POOL, _POOL_SIZE
    with _LOCK:
        if _POOL is None or _POOL_SIZE < workers:
            old = _POOL
            _POOL, _POOL_SIZE = ThreadPoolExecutor(workers, thread_name_prefix="vecfix"), workers
            if old is not None:
                old.shutdown(wait=False)  # its running jobs finish; it takes no new ones
        return _POOL


def _forget_pool() -> None:
    """After ``fork``, the child has the pool object but none of its threads."""
    global _POOL, _POOL_SIZE
    _POOL, _POOL_SIZE = None, 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def split_bounds(n: int, threads: int) -> list[tuple[int, int]]:
    """The ``(start, stop)`` of each part :func:`run_split` cuts rows ``0:n`` into.

    Examples
    --------
    >>> split_bounds(10, 3)
    [(0, 3), (3, 6), (6, 10)]
    """
    if threads <= 1 or n < 2:
        return [(0, n)]
    bounds = np.linspace(0, n, threads + 1).astype(np.int64).tolist()
    return list(itertools.pairwise(bounds))


def run_split(kernel: Callable[..., Any], n: int, threads: int, *args: Any) -> list[Any]:
    """``kernel(start, stop, *args)`` over rows ``0:n`` cut into ``threads`` even parts:
    the first on the calling thread, the others on the shared pool; the results in row
    order. Every part has finished when it returns or raises (an error of a part).

    Examples
    --------
    >>> run_split(lambda lo, hi, step: list(range(lo, hi, step)), 10, 3, 2)
    [[0, 2], [3, 5], [6, 8]]
    """
    (lo, hi), *rest = split_bounds(n, threads)
    jobs: list[Future[Any]] = []
    if rest:
        pool = _pool(len(rest))
        jobs = [pool.submit(kernel, start, stop, *args) for start, stop in rest]
    try:
        first = kernel(lo, hi, *args)
    finally:
        for job in jobs:  # wait for every part, even when the first one failed
            job.exception()
    return [first, *(job.result() for job in jobs)]
