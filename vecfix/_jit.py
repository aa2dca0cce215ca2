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
"""

from __future__ import annotations

import os
import threading
import warnings

import numba
import numpy as np
from llvmlite import ir
from numba.core import sigutils, types
from numba.extending import intrinsic

CACHE: bool = os.environ.get("VECFIX_NUMBA_CACHE", "1").strip().lower() not in {"0", "false", "no"}

_OPTIONS = {
    "cache": CACHE,
    "nogil": True,
    "error_model": "numpy",
    "boundscheck": False,
    "_nrt": False,
}


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


def _guard_cache(dispatcher: object) -> None:
    """Make a cache failure of ``dispatcher`` a cache miss instead of an exception.

    Wraps the instance's ``load_overload`` and ``save_overload`` (Numba's
    ``numba.core.caching.Cache``); does nothing if a Numba version lacks them.
    """
    cache = getattr(dispatcher, "_cache", None)
    load = getattr(cache, "load_overload", None)
    save = getattr(cache, "save_overload", None)
    if load is None or save is None:
        return

    def load_overload(sig, target_context):
        try:
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


def _njit(fn, **options):
    """``numba.njit(**options)(fn)``, falling back to no cache when Numba cannot cache."""
    if options.get("cache") and not numba.config.DISABLE_JIT:
        try:
            dispatcher = numba.njit(**options)(fn)
        except RuntimeError as exc:  # "cannot cache function ...: no locator available"
            _cache_warning("used", exc)
        else:
            _guard_cache(dispatcher)
            return dispatcher
        options = {**options, "cache": False}
    return numba.njit(**options)(fn)


def kernel(fn):
    """Compile ``fn`` as a nopython kernel that releases the GIL (entry point from Python)."""
    return _njit(fn, **_OPTIONS)


def helper(fn):
    """Compile ``fn`` as a nopython helper, inlined into the kernels that call it.

    Numba links separately compiled functions through calls that LLVM does not inline;
    ``inline="always"`` splices the helper in at Numba's level, which keeps the row loop
    free of calls (3x faster here).
    """
    return _njit(fn, inline="always", **_OPTIONS)


def _store8_python(buf, offset, value):
    """Pure-Python ``store8`` for ``NUMBA_DISABLE_JIT=1``: never writes past the buffer."""
    data = int(value).to_bytes(8, "little")[: max(buf.shape[0] - offset, 0)]
    buf[offset : offset + len(data)] = np.frombuffer(data, dtype=np.uint8)


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
#: ``offset + 8 <= len(buf)``.
store8 = _store8_python if numba.config.DISABLE_JIT else _store8_intrinsic


def _mulhi_python(a, b):
    """Pure-Python ``mulhi`` for ``NUMBA_DISABLE_JIT=1``."""
    return np.uint64((int(a) * int(b)) >> 64)


@intrinsic
def _mulhi_intrinsic(typingctx, a, b):
    """High 64 bits of the 128-bit product of two uint64 (one ``mul`` instruction)."""
    if a != types.uint64 or b != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return types.uint64(a, b), codegen


#: ``mulhi(a, b)``: the high 64 bits of ``a * b`` for two uint64.
mulhi = _mulhi_python if numba.config.DISABLE_JIT else _mulhi_intrinsic


def _bit_length_python(x):
    """Pure-Python ``bit_length`` for ``NUMBA_DISABLE_JIT=1``."""
    return int(x).bit_length()


@intrinsic
def _bit_length_intrinsic(typingctx, x):
    """Bits needed for the uint64 ``x`` (0 for 0): ``64 - lzcnt(x)``."""
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        zeros = builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))
        bits = builder.sub(ir.Constant(ir.IntType(64), 64), zeros)
        return bits

    return types.int64(x), codegen


#: ``bit_length(x)``: bits needed for the uint64 ``x``, as int64 (0 for 0).
bit_length = _bit_length_python if numba.config.DISABLE_JIT else _bit_length_intrinsic


def _trailing_zeros_python(x):
    """Pure-Python ``trailing_zeros`` for ``NUMBA_DISABLE_JIT=1``."""
    x = int(x)
    return np.uint64((x & -x).bit_length() - 1 if x else 64)


@intrinsic
def _trailing_zeros_intrinsic(typingctx, x):
    """Trailing zero bits of the uint64 ``x`` (64 for 0): one ``tzcnt``."""
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(x), codegen


#: ``trailing_zeros(x)``: trailing zero bits of the uint64 ``x``, as uint64 (64 for 0).
trailing_zeros = _trailing_zeros_python if numba.config.DISABLE_JIT else _trailing_zeros_intrinsic


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


def _opaque_python(x):
    """Pure-Python ``opaque`` for ``NUMBA_DISABLE_JIT=1``: the identity."""
    return x


@intrinsic
def _opaque_intrinsic(typingctx, x):
    """``x`` unchanged, through an empty inline-assembly block LLVM cannot see into."""
    if x not in (types.int64, types.uint64):
        return None

    def codegen(context, builder, sig, args):
        word = ir.IntType(64)
        return builder.asm(ir.FunctionType(word, [word]), "", "=r,0", [args[0]], False, "opaque")

    return x(x), codegen


#: ``opaque(x)``: the int64 or uint64 ``x``, hidden from LLVM's pattern matching. A mask
#: made opaque keeps ``x & mask`` an ``and``: LLVM would otherwise see a ``max`` or a
#: select and may turn it into a jump, mispredicted when the data varies row to row.
opaque = _opaque_python if numba.config.DISABLE_JIT else _opaque_intrinsic
