"""Whether the first call in this process will compile vecfix's kernels (Numba's cache is
empty or stale), told cheaply: from the cache's index files, compiling nothing."""

from __future__ import annotations

import sys


def cache_is_cold() -> bool:
    """True when no kernel of :func:`vecfix.format_fixed` has usable compiled code on disk.

    Reads each kernel's cache index (Numba keys it on the source file's time stamp and
    size, and on the CPU it was compiled for). False when unsure (JIT disabled, an
    unexpected Numba version, no kernels found), so a caller only ever says "compiling"
    when it will.

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
    """Whether ``kernel``'s cache index lists code for this CPU (raises on a Numba change)."""
    # {} when the index is missing or stale (another source file's time stamp)
    index = kernel._cache._cache_file._load_index()  # type: ignore[attr-defined]
    magic = kernel.targetctx.codegen().magic_tuple()  # type: ignore[attr-defined]
    return any(isinstance(key, tuple) and magic in key for key in index)


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
