"""Every Numba option vecfix uses, decided in one place, on Numba's public API.

Kernels never hard-code an option: they are decorated with :func:`kernel` (compiled on its
own; an entry point called from Python names its signatures) or :func:`helper` (a small
function inlined into the kernels that call it).

An entry point's signatures are compiled (or loaded from the on-disk cache) when its
module is imported, so that importing :mod:`vecfix._kernels.fixed` is what loading the
format kernels means (:mod:`vecfix._engine` decides when), and a call never compiles by
surprise. Numba converts a writeable array to a read-only one of a signature (and a
C-contiguous one to ``A``), so inputs are declared read-only: a read-only memory map or
Arrow buffer takes the same code.

The cache lives where :func:`vecfix._engine.cache_dir` says (a folder named after a digest
of vecfix's sources, so that no stale code survives an edit or an upgrade); with no
writable folder the kernels compile in memory.

Also here: the few LLVM intrinsics the kernels use (:func:`store8`, :func:`load8`,
:func:`bits`, :func:`double`, :func:`funnel`), each with a pure-Python twin for
``NUMBA_DISABLE_JIT=1``, and :func:`target_has`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._engine import cache_dir

#: Options of every kernel: release the GIL, NumPy's integer semantics (no division-by-zero
#: checks), no bounds checks, and no C-callable wrapper (vecfix calls kernels only from
#: Python and from each other: the wrapper is code to compile for nothing).
OPTIONS: dict[str, Any] = {
    "nogil": True,
    "error_model": "numpy",
    "boundscheck": False,
    "no_cfunc_wrapper": True,
}

_DISABLED: bool = bool(numba.config.DISABLE_JIT)  # type: ignore[attr-defined]


def _njit(fn: Callable[..., Any], signatures: list[Any] | None, **options: Any) -> Any:
    """``numba.njit`` with :data:`OPTIONS`, cached under :func:`~vecfix._engine.cache_dir`.

    Numba places a kernel's cache under ``numba.config.CACHE_DIR`` as it is decorated
    (``NUMBA_CACHE_DIR``'s setting, public): it is pointed at vecfix's folder for that
    moment and put back, so that the user's own functions cache where they did.
    """
    where = cache_dir()
    options = {**OPTIONS, **options, "cache": where is not None}
    decorate = numba.njit(**options) if signatures is None else numba.njit(signatures, **options)
    if where is None:
        return decorate(fn)
    config: Any = numba.config
    before = config.CACHE_DIR
    config.CACHE_DIR = str(where)
    try:
        return decorate(fn)
    finally:
        config.CACHE_DIR = before


def kernel(*signatures: Any) -> Any:
    """Compile a function as a nopython kernel that releases the GIL.

    ``@kernel("u8[]r i64 ...", ...)``: an entry point, called from Python, compiled for
    exactly these signatures (:func:`signature`) when its module is imported. ``@kernel``:
    a function called only from other kernels, compiled on its own (not inlined: a large
    pass compiles faster so) when the first kernel that calls it is.
    """
    if len(signatures) == 1 and callable(signatures[0]):
        return _njit(signatures[0], None)
    return lambda fn: _njit(fn, [signature(text) for text in signatures])


#: The scalar types of :func:`signature`, by their short names.
_TYPES = {
    "bool": types.boolean,
    "u8": types.uint8,
    "i32": types.int32,
    "u32": types.uint32,
    "i64": types.int64,
    "u64": types.uint64,
    "f64": types.float64,
}


def signature(text: str) -> tuple:
    """A kernel's argument types from their short names: ``i64`` a scalar, ``u8[]`` a
    writeable C-contiguous array (``u8[,]`` of two dimensions), ``u8[]r`` a read-only one
    (any array of that type converts to it: kernel inputs are read-only).

    Examples
    --------
    >>> signature("u8[]r i64 i32[,]")
    (Array(uint8, 1, 'C', True, aligned=True), int64, Array(int32, 2, 'C', False, aligned=True))
    """
    out: list[Any] = []
    for token in text.split():
        name, _, shape = token.partition("[")
        if not shape:
            out.append(_TYPES[name])
            continue
        dims, _, flag = shape.partition("]")
        out.append(types.Array(_TYPES[name], dims.count(",") + 1, "C", readonly=flag == "r"))
    return tuple(out)


def helper(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a nopython helper, inlined into the kernels that call it.

    Numba links separately compiled functions through calls that LLVM does not inline;
    ``inline="always"`` splices the helper in at Numba's level, which keeps the row loop
    free of calls (3x faster here).
    """
    return _njit(fn, None, inline="always")


def target_has(feature: str) -> bool:
    """Whether the machine code Numba writes may use an x86 ``feature`` (``"avx512dq"``):
    the features of ``NUMBA_CPU_FEATURES`` when set (``NUMBA_CPU_NAME=generic`` sets
    none), else the host's as LLVM reports them. True on other architectures.
    """
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686", "x86"):
        return True
    features = numba.config.CPU_FEATURES  # type: ignore[attr-defined]
    if features is None:
        from llvmlite import binding

        features = binding.get_host_cpu_features().flatten()
    return f"+{feature}" in str(features).split(",")


# ------------------------------------------------------------------------ intrinsics


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
#: ``offset + 8 <= len(buf)``.
store8 = _store8_python if _DISABLED else _store8_intrinsic


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
load8 = _load8_python if _DISABLED else _load8_intrinsic


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


#: ``bits(x)`` / ``double(x)``: reinterpret a float64 as uint64 and back. With them an
#: integer below ``2**52`` converts to and from float64 by an ``or`` and a subtraction,
#: which AVX2 and SSE2 do in vector registers (they have no int64 <-> float64 conversion).
bits = _bits_python if _DISABLED else _bits_intrinsic
double = _double_python if _DISABLED else _double_intrinsic
#: ``funnel(hi, lo, n)``: ``(hi << n) | (lo >> (64 - n))`` for uint64s and ``0 <= n < 64``
#: (``hi`` for ``n = 0``), one instruction on AVX-512 (``vpshldvq``), a few on AVX2.
funnel = _funnel_python if _DISABLED else _funnel_intrinsic


def readonly(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (O(1)), for an input of a kernel compiled lazily
    (no signatures): Numba types a read-only array apart from a writeable one, so passing
    every input through this keeps one signature."""
    if not array.flags.writeable:
        return array
    view = array.view()
    view.setflags(write=False)
    return view
