"""The LLVM intrinsics of ``vecfix._jit`` against Python integers: compiled, and their
plain-Python twins (what ``NUMBA_DISABLE_JIT=1`` runs)."""

from __future__ import annotations

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vecfix import _jit
from vecfix._kernels import words

U64 = st.integers(0, 2**64 - 1)


@numba.njit(cache=False)
def _funnel_compiled(hi, lo, n):
    return _jit.funnel(hi, lo, n)


@given(U64, U64, st.integers(0, 63))
@settings(max_examples=300, deadline=None)
def test_funnel_is_the_high_word_of_the_shifted_pair(hi, lo, n):
    """``funnel(hi, lo, n)``: the high 64 bits of the 128-bit ``hi:lo`` shifted left by
    ``n``; ``hi`` itself for ``n = 0``."""
    want = ((hi << 64 | lo) << n >> 64) & (2**64 - 1)
    args = np.uint64(hi), np.uint64(lo), np.uint64(n)
    assert int(_funnel_compiled(*args)) == want
    assert int(_jit._funnel_python(*args)) == want


@numba.njit(cache=False)
def _counts_compiled(x):
    return words.ctz(x), words.popcount(x)


@given(st.one_of(U64, st.sampled_from([0, 1, 2**63, 2**64 - 1])))
@settings(max_examples=300, deadline=None)
def test_ctz_and_popcount_count_bits_as_python_does(x):
    """``ctz``: the trailing zero bits (64 for 0); ``popcount``: the set bits; compiled
    (LLVM's ``cttz``, ``ctpop``) and their plain-Python twins."""
    want = ((x & -x).bit_length() - 1 if x else 64, bin(x).count("1"))
    assert tuple(int(v) for v in _counts_compiled(np.uint64(x))) == want
    got = words._ctz_python(np.uint64(x)), words._popcount_python(np.uint64(x))
    assert tuple(int(v) for v in got) == want
