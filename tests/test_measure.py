"""``vecfix._measure``: the bytes rows of one layout print, counted without formatting.

Every expectation is the length of the golden vectors' text (Go's StringFixed) or of the
decimal reference's (tests/reference.py), never anything vecfix formatted.
"""

from __future__ import annotations

from collections import defaultdict

import numba
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from reference import reference_fixed

from vecfix._jit import readonly
from vecfix._measure import text_size, thresholds

JIT = not numba.config.DISABLE_JIT
INT64 = st.integers(-(2**63), 2**63 - 1)


def edges() -> np.ndarray:
    """0, the int64 extremes, and each side of every power of ten and of every half
    (where rounding half away from zero carries into a new digit: 9.99995 -> 10.0000)."""
    values = {0, 1, -1, 2**63 - 1, -(2**63), -(2**63) + 1}
    for k in range(19):
        for at in (10**k, 5 * 10**k):
            for v in (at - 1, at, at + 1):
                if v < 2**63:
                    values |= {v, -v}
    return readonly(np.array(sorted(values), dtype=np.int64))  # as format_fixed passes it


def lengths(coef: np.ndarray, e: int, s: int) -> list[int]:
    return [len(reference_fixed(int(c), e, s)) for c in coef]


def size(coef: np.ndarray, e: int, s: int, lo: int = 0, hi: int | None = None) -> int:
    """``text_size`` of ``coef[lo:hi]`` with the thresholds of those rows' extremes."""
    hi = coef.size if hi is None else hi
    part = coef[lo:hi]
    low, high = (int(part.min()), int(part.max())) if part.size else (0, 0)
    return text_size(lo, hi, readonly(coef), thresholds(e, s, low, high))


def test_each_edge_row_alone():
    """Every edge value, one row at a time, under exponents and scales of every kind:
    digits dropped (d < 0) or not, positive, zero and negative scales, d <= -20 where
    everything rounds to 0; the thresholds from all rows, or the row's own extremes."""
    coef = edges()
    exps = range(-30, 25, 3) if JIT else range(-22, 6, 7)
    scales = range(-6, 20) if JIT else (-3, 0, 1, 4, 17)  # every d = e + s, with the exps
    for e in exps:
        for s in scales:
            want = lengths(coef, e, s)
            every = thresholds(e, s)
            got = [text_size(i, i + 1, coef, every) for i in range(coef.size)]
            assert got == want, (e, s)
            if s % 4 == 0:
                got = [size(coef, e, s, i, i + 1) for i in range(coef.size)]
                assert got == want, (e, s)


@given(
    st.lists(INT64, min_size=1, max_size=60),
    st.integers(-25, 20),
    st.integers(-5, 19),
    st.data(),
)
def test_any_rows(values, e, s, data):
    coef = np.array(values, dtype=np.int64)
    assert size(coef, e, s) == sum(lengths(coef, e, s))
    lo = data.draw(st.integers(0, coef.size))
    hi = data.draw(st.integers(lo, coef.size))
    assert size(coef, e, s, lo, hi) == sum(lengths(coef[lo:hi], e, s))


@given(
    st.integers(-(10**6), 10**6),
    st.integers(0, 12),
    st.integers(-12, 4),
    st.integers(0, 8),
)
def test_near_a_rounding_edge(mantissa, zeros, e, s):
    """Values a unit either side of ``5 * 10**k`` and ``10**k`` multiples (the round-up
    into a new digit), with the thresholds of the rows' own extremes."""
    base = mantissa * 10**zeros
    coef = np.array([base - 1, base, base + 1, 5 * base - 1, 5 * base, 5 * base + 1])
    coef = coef.clip(-(2**63), 2**63 - 1).astype(np.int64)
    assert size(coef, e, s) == sum(lengths(coef, e, s))


def test_positive_rows_count_no_sign_and_largest_bounds_the_digits():
    coef = np.array([10**13, 99_999_999_949_999], dtype=np.int64)  # 10000.0000, 99999.9999
    assert thresholds(-9, 4, int(coef[0]), int(coef[1])).weight.size == 4  # no sign, no 6th
    assert size(coef, -9, 4) == 20
    coef = np.array([10**13, 99_999_999_950_000], dtype=np.int64)  # rounds to 100000.0000
    assert size(coef, -9, 4) == 21


def test_golden_vectors_by_layout(golden):
    """The text of each layout's golden rows (int64 coefficients), counted in stretches
    of the rows as the threads cut them."""
    for name in ("grid", "prices"):
        groups = defaultdict(list)
        for c, e, s, text in golden[name].rows():
            if -(2**63) <= c < 2**63:
                groups[e, s].append((c, len(text)))
        keys = sorted(groups) if JIT else sorted(groups)[::25]
        for e, s in keys:
            rows = groups[e, s][: None if JIT else 40]
            coef = np.array([c for c, _ in rows], dtype=np.int64)
            want = [n for _, n in rows]
            cut = coef.size // 3
            assert size(coef, e, s) == sum(want), (name, e, s)
            assert size(coef, e, s, 0, cut) == sum(want[:cut]), (name, e, s)
            assert size(coef, e, s, cut, coef.size) == sum(want[cut:]), (name, e, s)


def test_an_empty_stretch():
    coef = readonly(np.array([5, 6], dtype=np.int64))
    assert text_size(1, 1, coef, thresholds(0, 2)) == 0
