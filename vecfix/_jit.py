"""Every Numba option vecfix uses, decided in one place.

Kernels never hard-code ``cache``, ``nogil`` or ``fastmath``: they are decorated with
:func:`kernel` (an entry point called from Python) or :func:`helper` (a small function
called only from other kernels).

Environment variables
---------------------
``VECFIX_NUMBA_CACHE``
    ``1`` (default) keeps compiled kernels in Numba's on-disk cache, so a fresh process
    skips the compile; ``0`` compiles in memory every time.

The on-disk cache is an optimisation, never a point of failure: when Numba finds no
writable cache directory (``NUMBA_CACHE_DIR``, the package's ``__pycache__`` and the
user's cache directory all unusable), or reading or writing a cache entry fails (a
truncated file, a directory that vanished, a full disk), vecfix compiles in memory and
says so once with a :class:`RuntimeWarning`. A cache entry whose signature is not the one
asked for (two processes compiling different signatures at once can leave the index
pointing at the other one's code) is ignored and compiled afresh.

Numba keys a cache entry on the kernel's own source file and bytecode only, so a change
to a helper it inlines from another module (``_phase`` of :mod:`vecfix._kernels.fixed` in the
row kernel) would leave the old code in use. vecfix adds a digest of the package's
source files (:func:`cache_digest`), taken when each kernel is defined, to the key: any
change to them (an upgrade over a cache left behind, an edit) compiles afresh, and a
process that imported the old sources never files its code under the new ones.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import inspect
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import sigutils, types
from numba.core.caching import NullCache
from numba.extending import intrinsic

CACHE: bool = os.environ.get("VECFIX_NUMBA_CACHE", "1").strip().lower() not in {"0", "false", "no"}

_OPTIONS = {
    "cache": CACHE,
    "nogil": True,
    "error_model": "numpy",
    "boundscheck": False,
    "_nrt": False,
    # no C-callable (``cfunc``) wrapper: vecfix calls kernels through the dispatcher or
    # its Python entry point, never by address; it is a second wrapper to lower, optimize
    # and emit for every kernel (about 4% of a cold compile, more for many-array kernels)
    "no_cfunc_wrapper": True,
}


def target_has(feature: str) -> bool:
    """Whether the machine code Numba writes may use an x86 ``feature`` (``"avx2"``,
    ``"avx512dq"``): the features of ``NUMBA_CPU_FEATURES`` when set
    (``NUMBA_CPU_NAME=generic`` sets none), else the host's as LLVM reports them. True on
    other architectures (where the kernels' defaults apply).
    """
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686", "x86"):
        return True
    from numba.core import codegen, config

    features = config.CPU_FEATURES  # type: ignore[attr-defined]
    if features is None:
        features = codegen.get_host_cpu_features()  # "+avx2,-avx512f,...", NUMBA_ENABLE_AVX
    return f"+{feature}" in str(features).split(",")


_WARNED_LOCK = threading.Lock()
_WARNED: set[str] = set()


def _cache_warning(what: str, exc: BaseException) -> None:
    """Say once per process and kind that the on-disk cache could not be used."""
    with _WARNED_LOCK:
        if what in _WARNED:
            return
        _WARNED.add(what)
    warnings.warn(
        f"vecfix: Numba's on-disk cache could not be {what} ({type(exc).__name__}: {exc});"
        " kernels are compiled in memory instead, which costs time but not correctness."
        " Point NUMBA_CACHE_DIR at a writable directory, or set VECFIX_NUMBA_CACHE=0 to"
        " compile in memory without this warning.",
        RuntimeWarning,
        stacklevel=3,
    )


@functools.cache
def sources_digest(root: str) -> str:
    """A SHA-256 digest of the ``.py`` files of ``root``: a package's folder (every file
    in it and its subfolders, names and contents) or a module's file. Part of the cache
    key of each kernel of that package (see the module's notes); read once per process,
    when its first kernel is defined (2 ms for vecfix).

    Examples
    --------
    >>> import vecfix._jit as jit
    >>> len(jit.sources_digest(str(Path(jit.__file__).parent)))
    64
    """
    path = Path(root)
    files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
    digest = hashlib.sha256()
    for file in files:
        name = file.relative_to(path).as_posix() if path.is_dir() else file.name
        digest.update(name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_digest(dispatcher: object) -> str:
    """The :func:`sources_digest` that ``dispatcher``'s cache keys carry: that of the
    top-level package its Python function comes from (vecfix's, for its kernels)."""
    py_func: Any = getattr(dispatcher, "py_func", dispatcher)
    top = sys.modules.get(py_func.__module__.partition(".")[0])
    if top is not None and getattr(top, "__path__", None) and top.__file__:
        return sources_digest(str(Path(top.__file__).resolve().parent))
    return sources_digest(str(Path(inspect.getfile(py_func)).resolve()))


def _guard_cache(dispatcher: object) -> None:
    """Make a cache failure of ``dispatcher`` a cache miss instead of an exception, and
    key its entries on the sources beside it too (:func:`cache_digest`).

    Wraps the instance's ``load_overload``, ``save_overload`` and ``_index_key`` (Numba's
    ``numba.core.caching.Cache``); does nothing if a Numba version lacks them.
    """
    cache: Any = getattr(dispatcher, "_cache", None)  # numba.core.caching.Cache, untyped
    load = getattr(cache, "load_overload", None)
    save = getattr(cache, "save_overload", None)
    index_key = getattr(cache, "_index_key", None)
    if load is None or save is None or index_key is None:
        return
    # taken now, as the kernel's source is read (as Numba takes its file's stamp): sources
    # changed on disk later (an upgrade under a running process) must not get this code
    try:
        digest = cache_digest(dispatcher)
    except Exception as exc:  # a source file unreadable: no key, so no cache at all
        _cache_warning("keyed", exc)
        dispatcher._cache = NullCache()  # type: ignore[attr-defined]
        return

    def keyed(sig, codegen):
        return (*index_key(sig, codegen), digest)

    def load_overload(sig, target_context):
        try:
            with gc_paused():  # as a compile: loading makes cycles too
                cres = load(sig, target_context)
        except Exception as exc:  # a corrupt, truncated or unreadable entry: compile
            _cache_warning("read", exc)
            return None
        if cres is not None:
            wanted = sigutils.normalize_signature(sig)[0]
            if tuple(cres.signature.args) != tuple(wanted):
                return None  # the index points at another signature's code
        return cres

    def save_overload(sig, data):
        try:
            save(sig, data)
        except Exception as exc:  # the directory vanished, the disk is full ...
            _cache_warning("written", exc)

    cache.load_overload = load_overload
    cache.save_overload = save_overload
    cache._index_key = keyed


def _njit(fn: Callable[..., Any], **options: Any) -> Any:
    """``numba.njit(**options)(fn)``, falling back to no cache when Numba cannot cache."""
    if options.get("cache") and not numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
        try:
            dispatcher = numba.njit(**options)(fn)
        except RuntimeError as exc:  # "cannot cache function ...: no locator available"
            _cache_warning("used", exc)
        else:
            _guard_cache(dispatcher)
            return dispatcher
        options = {**options, "cache": False}
    return numba.njit(**options)(fn)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block, unless it is off already
    (then leave it so): the outermost of nested blocks turns it back on.

    Every kernel compiles (:func:`_compile_hooks`) and loads from the on-disk cache
    (:func:`_guard_cache`) inside one. Numba's compiler makes hundreds of thousands of
    objects with reference cycles, and the collector, running as they pile up, walks the
    whole heap again and again: 2.3 s of a 14.8 s cold ``warmup()`` in one process, 0.8 s
    once paused (what is left: the garbage collected once after each compile); warm,
    loading every kernel, 0.16 s of 0.8 against 0.085 of 0.65. The process holds no more
    memory than that garbage, which the next collection frees.

    Examples
    --------
    >>> import gc
    >>> from vecfix._jit import gc_paused
    >>> with gc_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


#: Whether LLVM's loop vectorizer runs by default (``NUMBA_LOOP_VECTORIZE``), as Numba
#: read it at import; :func:`kernel` turns it off per kernel with ``vectorize=False``.
_LOOP_VECTORIZE: bool = bool(numba.config.LOOP_VECTORIZE)  # type: ignore[attr-defined]


def _compile_hooks(dispatcher: Any, on: bool) -> None:
    """Compile ``dispatcher``'s code with LLVM's loop vectorizer ``on`` or off, and with
    the garbage collector paused (:func:`gc_paused`).

    Numba reads ``numba.config.LOOP_VECTORIZE`` when it builds LLVM's pass pipelines, so
    each compile sets it for its own duration (under Numba's compiler lock, which every
    compile holds; a kernel compiled while another one's typing calls it sets its own
    value and restores the caller's). Does nothing if a Numba version lacks the hook.
    """
    compiler: Any = getattr(dispatcher, "_compiler", None)
    compile_ = getattr(compiler, "compile", None)
    if compile_ is None:
        return
    config: Any = numba.config

    def compile(args, return_type):
        before = config.LOOP_VECTORIZE
        config.LOOP_VECTORIZE = on
        try:
            with gc_paused():
                return compile_(args, return_type)
        finally:
            config.LOOP_VECTORIZE = before

    compiler.compile = compile


def kernel(fn: Callable[..., Any] | None = None, *, vectorize: bool = True) -> Any:
    """Compile ``fn`` as a nopython kernel that releases the GIL (entry point from Python).

    ``@kernel(vectorize=False)`` compiles it without LLVM's loop vectorizer: for kernels
    whose loops are short byte copies or carry a dependence from one step to the next,
    where vector code never runs faster yet costs compile time (often a third of the
    kernel's). The setting is the kernel's own: a kernel it calls compiles with that
    one's setting, and a kernel calling it keeps its own (LLVM may then vectorize this
    one's loops where it inlines them into that caller).
    """
    if fn is None:
        return lambda f: kernel(f, vectorize=vectorize)
    dispatcher = _njit(fn, **_OPTIONS)
    if not numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
        _compile_hooks(dispatcher, _LOOP_VECTORIZE and vectorize)
    return dispatcher


def helper(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a nopython helper, inlined into the kernels that call it.

    Numba links separately compiled functions through calls that LLVM does not inline;
    ``inline="always"`` splices the helper in at Numba's level, which keeps the row loop
    free of calls (3x faster here).
    """
    return _njit(fn, inline="always", **_OPTIONS)


def _store8_python(buf, offset, value):
    """Pure-Python ``store8`` for ``NUMBA_DISABLE_JIT=1``: a store the compiled one would
    make past the buffer (memory corruption there) raises here, so tests without the JIT
    catch it."""
    if not 0 <= offset <= buf.shape[0] - 8:
        raise IndexError(f"store8 at {offset} of a {buf.shape[0]}-byte buffer")
    buf[offset : offset + 8] = np.frombuffer(int(value).to_bytes(8, "little"), dtype=np.uint8)


@intrinsic
def _store8_intrinsic(typingctx, buf, offset, value):
    """Store the uint64 ``value`` at byte ``offset`` of a 1-D uint8 array, unaligned."""
    if not (isinstance(buf, types.Array) and buf.dtype == types.uint8 and buf.ndim == 1):
        return None

    def codegen(context, builder, sig, args):
        array = context.make_array(sig.args[0])(context, builder, args[0])
        where = context.cast(builder, args[1], sig.args[1], types.intp)
        word = context.cast(builder, args[2], sig.args[2], types.uint64)
        pointer = builder.bitcast(builder.gep(array.data, [where]), ir.IntType(64).as_pointer())
        builder.store(word, pointer, align=1)
        return context.get_dummy_value()

    return types.void(buf, offset, value), codegen


#: ``store8(buf, offset, value)``: an unaligned little-endian 8-byte store into a uint8
#: array, one machine instruction in compiled code. No bounds check: callers guarantee
#: ``offset + 8 <= len(buf)``. (numba.config sets DISABLE_JIT at run time: its stubs lack it.)
store8 = _store8_python if numba.config.DISABLE_JIT else _store8_intrinsic  # type: ignore[attr-defined]


def _load8_python(buf: np.ndarray, offset: int) -> np.uint64:
    """Pure-Python ``load8`` for ``NUMBA_DISABLE_JIT=1``: zeros past the buffer's end."""
    data = bytes(buf[offset : offset + 8]).ljust(8, b"\0")
    return np.uint64(int.from_bytes(data, "little"))


@intrinsic
def _load8_intrinsic(typingctx, buf, offset):
    """The uint64 at byte ``offset`` of a 1-D uint8 array, unaligned, little-endian."""
    if not (isinstance(buf, types.Array) and buf.dtype == types.uint8 and buf.ndim == 1):
        return None

    def codegen(context, builder, sig, args):
        array = context.make_array(sig.args[0])(context, builder, args[0])
        where = context.cast(builder, args[1], sig.args[1], types.intp)
        pointer = builder.bitcast(builder.gep(array.data, [where]), ir.IntType(64).as_pointer())
        return builder.load(pointer, align=1)

    return types.uint64(buf, offset), codegen


#: ``load8(buf, offset)``: an unaligned 8-byte load from a uint8 array. No bounds check:
#: callers guarantee ``offset + 8 <= len(buf)``.
load8 = _load8_python if numba.config.DISABLE_JIT else _load8_intrinsic  # type: ignore[attr-defined]


def readonly(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (O(1)), for a kernel input.

    Numba types a read-only array apart from a writeable one, so a kernel called with both
    compiles (and caches) twice; a read-only ``np.load(mmap_mode="r")`` or Arrow buffer
    would cost a cold compile of tens of seconds. Passing every input through this keeps
    one signature.
    """
    if not array.flags.writeable:
        return array
    view = array.view()
    view.setflags(write=False)  # faster than view.flags.writeable = False
    return view


def _bits_python(x):
    """Pure-Python ``bits`` for ``NUMBA_DISABLE_JIT=1``."""
    return np.float64(x).view(np.uint64)


def _double_python(x):
    """Pure-Python ``double`` for ``NUMBA_DISABLE_JIT=1``."""
    return np.uint64(x).view(np.float64)


@intrinsic
def _bits_intrinsic(typingctx, x):
    """The IEEE bits of the float64 ``x`` as a uint64 (a bitcast, no instruction)."""
    if x != types.float64:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.uint64(x), codegen


@intrinsic
def _double_intrinsic(typingctx, x):
    """The float64 whose IEEE bits are the uint64 ``x`` (a bitcast, no instruction)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(x), codegen


#: ``bits(x)`` / ``double(x)``: reinterpret a float64 as uint64 and back. With them an
#: integer below ``2**52`` converts to and from float64 by an ``or`` and a subtraction,
#: which AVX2 and SSE2 do in vector registers (they have no int64 <-> float64 conversion).
#: (numba.config sets DISABLE_JIT at run time: its stubs lack it.)
def _funnel_python(hi, lo, n):
    """Pure-Python ``funnel`` for ``NUMBA_DISABLE_JIT=1``."""
    n = int(n) % 64
    joined = (int(hi) << 64 | int(lo)) << n
    return np.uint64((joined >> 64) & 0xFFFF_FFFF_FFFF_FFFF)


@intrinsic
def _funnel_intrinsic(typingctx, hi, lo, n):
    """LLVM's ``fshl``: the high word of the 128-bit ``hi:lo`` shifted left by ``n % 64``."""
    if hi != types.uint64 or lo != types.uint64 or n != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        word = ir.IntType(64)
        fshl = builder.module.declare_intrinsic(
            "llvm.fshl", [word], ir.FunctionType(word, [word, word, word])
        )
        return builder.call(fshl, args)

    return types.uint64(hi, lo, n), codegen


#: ``funnel(hi, lo, n)``: ``(hi << n) | (lo >> (64 - n))`` for uint64s and ``0 <= n < 64``
#: (``hi`` for ``n = 0``), one instruction on AVX-512 (``vpshldvq``), a few on AVX2.
funnel = _funnel_python if numba.config.DISABLE_JIT else _funnel_intrinsic  # type: ignore[attr-defined]
bits = _bits_python if numba.config.DISABLE_JIT else _bits_intrinsic  # type: ignore[attr-defined]
double = _double_python if numba.config.DISABLE_JIT else _double_intrinsic  # type: ignore[attr-defined]
