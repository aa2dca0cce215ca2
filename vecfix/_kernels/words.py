"""Kernels' building blocks for text read 8 bytes a step (SWAR) and a few LLVM intrinsics,
shared by :mod:`~vecfix._kernels.text`, :mod:`~vecfix._kernels.fixread` and
:mod:`~vecfix._kernels.fixcolumns`.

Each intrinsic has a pure-Python twin for ``NUMBA_DISABLE_JIT=1``; :data:`WORDS` tells
kernels to take their byte-by-byte paths there (wrapping uint64 arithmetic warns in NumPy).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .._jit import helper

_U64 = np.uint64
#: Whether kernels may read 8 bytes a step (numba.config sets DISABLE_JIT at run time).
WORDS = not numba.config.DISABLE_JIT  # type: ignore[attr-defined]
ZEROS = _U64(0x3030303030303030)  # "0" in every byte
DOTS = _U64(0x1E1E1E1E1E1E1E1E)  # "." ^ "0" in every byte
HIGHS = _U64(0x8080808080808080)
LOW7 = _U64(0x7F7F7F7F7F7F7F7F)
OVER9 = _U64(0x7676767676767676)  # a byte's low 7 bits plus this pass 127 above 9
LOW1 = _U64(0x0101010101010101)


def _ctz_python(x):
    """``ctz`` for ``NUMBA_DISABLE_JIT=1``."""
    x = int(x)
    return _U64((x & -x).bit_length() - 1 if x else 64)


def _popcount_python(x):
    """``popcount`` for ``NUMBA_DISABLE_JIT=1``."""
    return _U64(bin(int(x)).count("1"))


def _bit_count(name, *flags):
    """An intrinsic of one uint64 calling LLVM's ``name`` (one instruction), with
    ``flags`` (i1 constants) after the value."""

    @intrinsic
    def count_intrinsic(typingctx, x):
        if x != types.uint64:
            return None

        def codegen(context, builder, sig, args):
            kinds = [ir.IntType(64), *(ir.IntType(1) for _ in flags)]
            fn = builder.module.declare_intrinsic(name, kinds)
            return builder.call(fn, [args[0], *(ir.IntType(1)(f) for f in flags)])

        return types.uint64(x), codegen

    return count_intrinsic


#: ``ctz(x)``: the trailing zero bits of a uint64 (64 for 0: ``cttz`` told 0 is defined).
ctz = _bit_count("llvm.cttz", 0) if WORDS else _ctz_python
#: ``popcount(x)``: the set bits of a uint64.
popcount = _bit_count("llvm.ctpop") if WORDS else _popcount_python


@helper
def first_byte(word, pattern):
    """A uint64 whose lowest set bit is bit 7 of the first byte of ``word`` that equals
    ``pattern``'s (a byte repeated 8 times); 0 if none. Bits above it may be set falsely."""
    x = word ^ pattern
    return (x - LOW1) & ~x & HIGHS


@helper
def swar_number(digits):
    """The number that 8 digit values (0 to 9, one a byte, the first in the lowest byte)
    write: three multiplies, each joining pairs of groups."""
    v = ((digits * _U64(2561)) >> _U64(8)) & _U64(0x00FF00FF00FF00FF)
    v = ((v * _U64(6553601)) >> _U64(16)) & _U64(0x0000FFFF0000FFFF)
    return (v * _U64(42949672960001)) >> _U64(32)


def _prefetch_python(buf, offset, write=0):
    """``prefetch`` for ``NUMBA_DISABLE_JIT=1``: nothing to do."""


def _prefetcher(write):
    @intrinsic
    def prefetch_intrinsic(typingctx, buf, offset):
        """Ask for the cache line of element ``offset`` of a 1-D array (LLVM's
        ``prefetch``), to read or to write."""
        if not (isinstance(buf, types.Array) and buf.ndim == 1):
            return None

        def codegen(context, builder, sig, args):
            array = context.make_array(sig.args[0])(context, builder, args[0])
            where = context.cast(builder, args[1], sig.args[1], types.intp)
            byte = ir.IntType(8).as_pointer()
            pointer = builder.bitcast(builder.gep(array.data, [where]), byte)
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32])
            fn = builder.module.declare_intrinsic("llvm.prefetch", [byte], fnty)
            builder.call(fn, [pointer, i32(write), i32(3), i32(1)])  # keep, data cache
            return context.get_dummy_value()

        return types.void(buf, offset), codegen

    return prefetch_intrinsic


#: ``prefetch(buf, offset)``: start loading ``buf[offset]``'s cache line; no wait, no
#: fault (an address past the buffer is harmless). A value a column takes from each
#: message lies a message apart from the last: without it, each such read waits on memory
#: while the row stores behind it pile up. ``prefetch_write`` asks for the line to write it.
prefetch = _prefetcher(0) if WORDS else _prefetch_python
prefetch_write = _prefetcher(1) if WORDS else _prefetch_python


def _load_lanes(context, builder, sig, args):
    """Codegen: the 64 bytes at ``args[1]`` of the 1-D uint8 array ``args[0]``, as one
    unaligned vector load."""
    array = context.make_array(sig.args[0])(context, builder, args[0])
    where = context.cast(builder, args[1], sig.args[1], types.intp)
    lanes = ir.VectorType(ir.IntType(8), 64)
    pointer = builder.bitcast(builder.gep(array.data, [where]), lanes.as_pointer())
    return builder.load(pointer, align=1)


def _splat(builder, byte):
    """Codegen: the i8 ``byte`` in each of 64 lanes."""
    lanes = ir.VectorType(ir.IntType(8), 64)
    one = builder.insert_element(ir.Constant(lanes, ir.Undefined), byte, ir.IntType(32)(0))
    zeros = ir.Constant(ir.VectorType(ir.IntType(32), 64), None)
    return builder.shuffle_vector(one, ir.Constant(lanes, ir.Undefined), zeros)


def _equal_bits_python(buf, offset, byte):
    """``equal_bits`` for ``NUMBA_DISABLE_JIT=1``."""
    hits = np.flatnonzero(buf[offset : offset + 64] == byte)
    return _U64(sum(1 << int(h) for h in hits))


@intrinsic
def _equal_bits_intrinsic(typingctx, buf, offset, byte):
    """Bit ``j`` set where byte ``offset + j`` of a 1-D uint8 array is ``byte``, for 64
    bytes: one vector compare (AVX-512: ``vpcmpeqb`` to a mask; other targets in parts)."""
    if not (isinstance(buf, types.Array) and buf.dtype == types.uint8 and buf.ndim == 1):
        return None

    def codegen(context, builder, sig, args):
        block = _load_lanes(context, builder, sig, args)
        every = _splat(builder, context.cast(builder, args[2], sig.args[2], types.uint8))
        return builder.bitcast(builder.icmp_unsigned("==", block, every), ir.IntType(64))

    return types.uint64(buf, offset, byte), codegen


#: ``equal_bits(buf, offset, byte)``: a uint64 whose bit ``j`` says whether
#: ``buf[offset + j] == byte``, for ``j`` below 64. No bounds check: callers guarantee
#: ``offset + 64 <= len(buf)``.
equal_bits = _equal_bits_intrinsic if WORDS else _equal_bits_python


def _byte_sum_python(buf, offset, count):
    """``byte_sum`` for ``NUMBA_DISABLE_JIT=1``."""
    return _U64(int(buf[offset : offset + count].sum()))


@intrinsic
def _byte_sum_intrinsic(typingctx, buf, offset, count):
    """The sum of the ``count`` (0 to 64) bytes at ``offset`` of a 1-D uint8 array, as a
    uint64: one 64-byte load, the lanes past ``count`` zeroed, one vector sum."""
    if not (isinstance(buf, types.Array) and buf.dtype == types.uint8 and buf.ndim == 1):
        return None

    def codegen(context, builder, sig, args):
        lanes = ir.VectorType(ir.IntType(8), 64)
        wide = ir.VectorType(ir.IntType(16), 64)
        block = _load_lanes(context, builder, sig, args)
        count = context.cast(builder, args[2], sig.args[2], types.int64)
        every = _splat(builder, builder.trunc(count, ir.IntType(8)))
        index = ir.Constant(lanes, list(range(64)))
        kept = builder.select(
            builder.icmp_unsigned("<", index, every), block, ir.Constant(lanes, None)
        )
        name = "llvm.vector.reduce.add.v64i16"
        fn = builder.module.globals.get(name) or ir.Function(
            builder.module, ir.FunctionType(ir.IntType(16), [wide]), name=name
        )
        total = builder.call(fn, [builder.zext(kept, wide)])
        return builder.zext(total, ir.IntType(64))

    return types.uint64(buf, offset, count), codegen


#: ``byte_sum(buf, offset, count)``: the sum of bytes ``offset:offset + count`` (count 0
#: to 64). No bounds check: callers guarantee ``offset + 64 <= len(buf)``.
byte_sum = _byte_sum_intrinsic if WORDS else _byte_sum_python
