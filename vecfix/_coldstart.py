"""Cold start: whether vecfix's kernels will compile (Numba's cache is empty or stale),
told cheaply from the cache's index files, and the *cold tier* that keeps a first call
from waiting for the block kernel's compile.

The cold tier
-------------
The block kernel (:func:`vecfix._kernels.fixed.format_rows` and its passes) takes seconds to
compile; the scalar :func:`vecfix._cold_kernels.format_rows_cold` takes under one and
writes the same bytes (tens of nanoseconds a row slower). When a call of
:func:`vecfix.format_fixed` finds the block kernel with no compiled code in this process
and none on disk, :func:`cold_tier` starts one worker process (:mod:`vecfix._warmup`'s
machinery) that compiles the block kernel into Numba's on-disk cache, and the call runs
through the scalar kernel. So do the calls after it, until the worker is done; the first
call after that loads the block kernel from the cache (a fraction of a second) and the
process runs it from then on. The worker finishes its compile even if this process ends
first, so that the next process finds the cache warm.

The tier is not taken (and the block kernel compiles in this process, as without it) when
the JIT is off, the on-disk cache is off (``VECFIX_NUMBA_CACHE=0``) or unusable,
``VECFIX_WARMUP_WORKERS=0`` allows no worker, the worker cannot start, or a kernel call
has more than :data:`~vecfix._tuning.COLD_TIER_ROWS` rows (there the compile costs less
than the slower rows; a call that large while the worker runs waits for it instead).
A worker that fails or runs past :data:`~vecfix._warmup.WORKER_TIMEOUT` ends the tier:
the block kernel then compiles here. :func:`vecfix.warmup` ends it too (it waits for the
worker, then loads what it wrote).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

#: Whether :func:`cold_tier` may start the tier (the test suite turns it off so that its
#: calls compile here as they expect, and turns it on in the tier's own tests; a worker
#: process runs without it).
ENABLED = True

#: Priority steps (``os.nice``) below this process's for the tier's worker: its compile is
#: background work, which should not slow this process's calls on a busy machine.
WORKER_NICE = 10

_LOCK = threading.Lock()
#: The worker compiling the block kernel while the tier runs, and when it started.
_worker: subprocess.Popen[bytes] | None = None
_since = 0.0
#: Set once the tier is over (or was never to run) in this process.
_settled = False


def cold_tier(choose: Callable[[], Any], rows: int) -> bool:
    """Whether a kernel call of ``rows`` rows runs through the cold tier now, the block
    kernel compiling in a worker process (see the module docstring). The first call asks
    ``choose()`` for the kernel (a Numba dispatcher) and starts the worker if it is cold;
    the calls while it runs only look at the worker (microseconds); once the worker is
    done (or cannot help), this returns False for good.

    Examples
    --------
    >>> from vecfix import _coldstart
    >>> _coldstart.cold_tier(lambda: len, 10)  # not a Numba kernel: nothing to compile
    False
    """
    global _worker, _since, _settled
    if _settled:
        return False
    with _LOCK:
        if _settled:
            return False
        if _worker is None:
            proc = _start_worker(choose(), rows)
            if proc is None:
                _settled = True
                return False
            _worker, _since = proc, time.monotonic()
            return True
        if _worker.poll() is None:
            from ._tuning import COLD_TIER_ROWS
            from ._warmup import WORKER_TIMEOUT

            waited = time.monotonic() - _since
            if rows <= COLD_TIER_ROWS and waited < WORKER_TIMEOUT:
                return True
            _end(WORKER_TIMEOUT - waited)  # a large call: the worker is done soonest
            return False
        _end(0.0)
        return False


def settle(timeout: float | None = None) -> None:
    """End the cold tier in this process: wait up to ``timeout`` seconds (default
    :data:`~vecfix._warmup.WORKER_TIMEOUT`) for its worker, if one runs, killing it past
    that; calls from now on run the block kernel (loaded from what the worker wrote, or
    compiled here)."""
    global _settled
    if timeout is None:
        from ._warmup import WORKER_TIMEOUT

        timeout = WORKER_TIMEOUT - (time.monotonic() - _since)
    with _LOCK:
        if _worker is not None:
            _end(timeout)
        _settled = True


def compiling_in_background() -> bool:
    """Whether a worker process started by the cold tier is compiling the block kernel now.

    Examples
    --------
    >>> from vecfix._coldstart import compiling_in_background
    >>> isinstance(compiling_in_background(), bool)
    True
    """
    proc = _worker
    return proc is not None and not _settled and proc.poll() is None


def _end(timeout: float) -> None:
    """Wait up to ``timeout`` seconds for the worker (killing it past that) and end the
    tier. Called under :data:`_LOCK`."""
    global _worker, _settled
    from ._warmup import _wait

    if _worker is not None:
        _wait([_worker], max(timeout, 0.0))
    _worker, _settled = None, True


def _start_worker(kernel: Any, rows: int) -> subprocess.Popen[bytes] | None:
    """A worker compiling the block ``kernel`` (the cold tier's groups of
    :mod:`vecfix._warmup`) into the on-disk cache, if the tier may run for a call of
    ``rows`` rows (see the module docstring); else None."""
    import numba

    from . import _jit
    from ._tuning import COLD_TIER_ROWS

    if not ENABLED or rows > COLD_TIER_ROWS or not _jit.CACHE:
        return None
    if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
        return None
    if getattr(kernel, "overloads", None) or not hasattr(
        getattr(kernel, "_cache", None), "_cache_file"
    ):
        return None  # compiled in this process already, or no on-disk cache to share it
    workers = os.environ.get("VECFIX_WARMUP_WORKERS", "").strip()
    if (workers.isdigit() and int(workers) == 0) or cached_on_disk(kernel):
        return None
    from ._warmup import _TIER_GROUPS, _start

    return _start(_TIER_GROUPS, nice=WORKER_NICE)


def cache_is_cold() -> bool:
    """True when no kernel of :func:`vecfix.format_fixed` has usable compiled code on disk.

    Reads each kernel's cache index (Numba keys it on the source file, and on the CPU it
    was compiled for; vecfix on the package's sources too: :func:`vecfix._jit.cache_digest`).
    False when unsure (JIT disabled, an unexpected Numba version, no kernels found), so a
    caller only ever says "compiling" when it will.

    Examples
    --------
    >>> from vecfix._coldstart import cache_is_cold
    >>> isinstance(cache_is_cold(), bool)
    True
    """
    try:
        import numba
        from numba.core.registry import CPUDispatcher

        if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
            return False
        from . import _format  # noqa: F401  (imports the kernel modules; compiles nothing)

        kernels = [
            obj
            for name, module in list(sys.modules.items())
            if name.startswith("vecfix.") and module is not None
            for obj in list(vars(module).values())
            if isinstance(obj, CPUDispatcher)
            and hasattr(getattr(obj, "_cache", None), "_cache_file")  # cache=True
            and obj.targetoptions.get("inline", "never") != "always"  # helpers: inlined
        ]
        if not kernels:
            return False
        return not any(_indexed(kernel) for kernel in kernels)
    except Exception:  # private Numba API: never fail a command over a notice
        return False


def _indexed(kernel: object) -> bool:
    """Whether ``kernel``'s cache index lists code for this CPU and these sources (raises
    on a Numba change)."""
    from ._jit import cache_digest

    # {} when the index is missing or stale (another source file)
    index = kernel._cache._cache_file._load_index()  # type: ignore[attr-defined]
    magic = kernel.targetctx.codegen().magic_tuple()  # type: ignore[attr-defined]
    digest = cache_digest(kernel)
    return any(isinstance(key, tuple) and magic in key and key[-1] == digest for key in index)


def cached_on_disk(kernel: object) -> bool:
    """Whether Numba's on-disk cache holds code of ``kernel`` (a Numba dispatcher) for this
    CPU, for any signature; False when unsure (the cache off, an unexpected Numba version),
    so that :func:`vecfix.warmup` compiles rather than counts on a load.

    Examples
    --------
    >>> from vecfix._coldstart import cached_on_disk
    >>> cached_on_disk(len)
    False
    """
    try:
        return _indexed(kernel)
    except Exception:  # no _cache_file: cache=False, or private Numba API changed
        return False
