"""The block kernel's edges: its one length formula against the decimal one and the golden
lengths, block boundaries with rows for the general path among block rows, matrices with
no slack after them, and the staging arrays left from a previous call."""

from __future__ import annotations

import itertools
import random

import numba
import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import reference_fixed

import vecfix
from vecfix._kernels import fixed as _kernels
from vecfix._kernels import rows as row_kernels
from vecfix._scalar import row_length
from vecfix._tuning import BLOCK

#: int64 max and min rows (golden vectors, dtype extremes) are formatted here on purpose; the
#: SentinelWarning they raise is tested in tests/test_one_vocabulary.py
pytestmark = pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")

NOJIT = bool(numba.config.DISABLE_JIT)
NO_HINTS = np.empty(0, dtype=np.int32)

#: The format_fixed calls here run on the kernels (the suite's default, conftest).


@pytest.mark.parametrize("name", ["grid", "prices"])
def test_kernel_length_formula_agrees_with_decimal_and_golden(golden, name):
    """``row_kernels._row_length`` (the kernels' one formula, through ``_text_length``) and
    ``_scalar.row_length`` give each golden row's length."""
    rows = list(golden[name].rows())
    if NOJIT:
        rows = random.Random(name).sample(rows, 2_000)
    bad = []
    for c, e, s, text in rows:
        if INT64_MIN <= c <= INT64_MAX:
            got = (row_kernels._row_length(c, e, s), row_length(c, e, s))
            if got != (len(text), len(text)):
                bad.append((c, e, s, text, got))
    assert bad[:5] == []


def _rows(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Block rows (PRICE9-like) with rows for the general path mixed in at random."""
    rng = np.random.default_rng(seed)
    coef = rng.integers(-(10**14), 10**14, n, dtype=np.int64)
    exps = np.full(n, -9, dtype=np.int32)
    scales = rng.integers(0, 9, n).astype(np.int32)
    general = rng.random(n) < 0.05
    coef[general] = rng.integers(INT64_MIN, INT64_MAX, int(general.sum()), dtype=np.int64)
    exps[general] = rng.integers(-25, 6, int(general.sum()))
    scales[general] = rng.integers(-3, 20, int(general.sum()))
    rows = zip(coef.tolist(), exps.tolist(), scales.tolist(), strict=True)
    return coef, exps, scales, [reference_fixed(c, e, s) for c, e, s in rows]


@pytest.mark.parametrize("n", [BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK + 3])
def test_block_boundaries(n):
    n = min(n, 70) if NOJIT else n
    coef, exps, scales, want = _rows(n, n)
    got = vecfix.format_fixed(coef, exps, scales)
    assert got.to_list() == want
    assert got.width == max(map(len, want))  # the extremes of each layout decide it
    assert vecfix.format_fixed(coef, -9, scales).to_list() == [
        reference_fixed(c, -9, s) for c, s in zip(coef.tolist(), scales.tolist(), strict=True)
    ]


@pytest.mark.parametrize(
    "where", [(0,), (63,), (64,), (0, 63, 64, 127), (5, 700, 1000), (1023,), (1024, 1063), (1030,)]
)
@pytest.mark.parametrize("layout", ["one", "rows"])
def test_few_general_path_rows_anywhere_in_a_block(where, layout):
    """A few rows of a block that the block passes leave to the general path (their
    coefficients too large for float64), at a group's first or last row (the slow rows
    are looked for 16 at a time), in the rows after a block's last whole group, in
    several groups:
    every one is listed and written."""
    n = 130 if NOJIT else BLOCK + 40  # a whole block, then one of 40 rows (8 after 2 groups)
    rng = np.random.default_rng(len(where))
    coef = rng.integers(-(10**12), 10**12, n, dtype=np.int64)
    exps = np.full(n, -9, dtype=np.int32) if layout == "one" else rng.integers(-9, -3, n)
    scales = np.full(n, 4, dtype=np.int32) if layout == "one" else rng.integers(0, 5, n)
    for i in where:
        i = i if i < n else n - 1 - i % 29
        coef[i] = (-1) ** i * (9 * 10**18 - i)  # 10 integer digits and more
    rows = zip(coef.tolist(), np.asarray(exps).tolist(), np.asarray(scales).tolist(), strict=True)
    want = [reference_fixed(c, int(e), int(s)) for c, e, s in rows]
    for threads in (1, 2):
        got = vecfix.format_fixed(
            coef, np.asarray(exps, np.int32), np.asarray(scales, np.int32), threads=threads
        )
        assert got.to_list() == want


@pytest.mark.parametrize("extra", [0, 1, 7, 9, 20])
def test_out_without_slack_and_wide_rows(extra):
    """A caller's matrix has no bytes after it: the last rows are written byte by byte,
    and every byte past a row's text is zero."""
    coef, exps, scales, want = _rows(7, 60 if NOJIT else 3 * BLOCK + 5)
    width = max(map(len, want)) + extra
    out = np.full((len(want), width), 0xEE, dtype=np.uint8)
    got = vecfix.format_fixed(coef, exps, scales, out=out)
    assert got.to_list() == want
    padded = np.array([w.encode() for w in want], dtype=f"S{width}")
    np.testing.assert_array_equal(out, padded.view(np.uint8).reshape(out.shape))


def test_one_layout_after_per_row_layouts_in_one_thread():
    """The staging arrays are reused call after call in a thread: a one-layout call after
    a per-row one must not see the other's constants."""
    coef, exps, scales, want = _rows(3, 200)
    assert vecfix.format_fixed(coef, exps, scales).to_list() == want
    for e, s in ((-9, 4), (0, 0), (-2, 15), (3, 1)):
        got = vecfix.format_fixed(coef, e, s).to_list()
        assert got == [reference_fixed(c, e, s) for c in coef.tolist()], (e, s)


@pytest.mark.parametrize(
    ("c", "e", "s"),
    [
        (2**49, 0, 0),  # M just at the block passes' limit
        (2**49 - 1, 0, 0),
        (10**15 - 1, 0, 1),  # 16 digits printed
        (-(10**15) + 1, -15, 15),  # "-0.999..." with a 15-digit fraction
        (999_999_999_999_999, -18, 15),
        (5 * 10**17, -18, 0),  # the largest k the float division takes
        (INT64_MIN, -19, 0),  # k = 19: the general path
        (INT64_MAX, -20, 0),  # every digit dropped
        (-5, -1, 0),
        (1, 15, 0),
        (1, 16, 0),
    ],
)
def test_edges_of_the_block_passes(c, e, s):
    coef = np.array([c] * 3 + [1], dtype=np.int64)
    want = [reference_fixed(c, e, s)] * 3 + [reference_fixed(1, e, s)]
    assert vecfix.format_fixed(coef, e, s).to_list() == want
    assert vecfix.format_fixed(coef, np.full(4, e), np.full(4, s)).to_list() == want


@pytest.mark.parametrize("where", [0, 599, 1500])
def test_row_too_long_among_many_per_row_layouts(where):
    """With per-row layouts the widest row comes from each layout's extremes; a row over
    the length limit is still found and named."""
    n = 2_000
    coef = np.arange(1, n + 1, dtype=np.int64)
    exps = np.full(n, -2, dtype=np.int32)
    exps[::7] = -3
    exps[where] = 100_000
    with pytest.raises(
        ValueError, match=rf"row {where} \(coefficient={where + 1}, exponent=100000"
    ):
        vecfix.format_fixed(coef, exps, 1)


def test_quotients_near_the_float_division_limit():
    """Rounded quotients around ``2**49``, where the float64 division hands over to the
    general path, on and next to ties, both signs, every number of dropped digits that
    keeps the coefficient in int64."""
    rows = []
    for k in range(1, 5):
        p = 10**k
        for q in (2**49 - 2, 2**49 - 1, 2**49, 2**49 + 1, 10**14 - 1, 10**14):
            for r in (0, 1, p // 2 - 1, p // 2, p // 2 + 1, p - 1):
                for sign in (1, -1):
                    rows.append((sign * (q * p + r), -k - 2, 2))
    c, e, s = (list(col) for col in zip(*rows, strict=True))
    want = [reference_fixed(*row) for row in rows]
    got = vecfix.format_fixed(np.array(c, dtype=np.int64), np.array(e), np.array(s))
    assert got.to_list() == want


@pytest.mark.parametrize("cut", [0, 1, 255, 256, 257, 700])
def test_widest_of_layouts_runs_and_strays(cut):
    """Runs of one layout longer than the kernel's stretch (the table grouped by
    instrument), cut anywhere, with stray rows of other layouts and of no table layout:
    the matrix is exactly as wide as the widest row, and that row prints in full."""
    rng = np.random.default_rng(cut)
    n = 900 if not NOJIT else 600  # past MEASURE_BELOW: the extremes decide the width
    coef = rng.integers(-(10**9), 10**9, n, dtype=np.int64)
    exps = np.where(np.arange(n) < cut, -9, -6).astype(np.int32)
    scales = np.where(np.arange(n) < cut, 4, 2).astype(np.int32)
    stray = rng.integers(0, n, 3)
    exps[stray[0]], scales[stray[0]] = -3, 20  # scale past the table: measured alone
    coef[stray[1]] = -(10**18)  # the widest of its layout, inside a run
    exps[stray[2]], scales[stray[2]] = 2, 0  # another layout inside a run
    rows = zip(coef.tolist(), exps.tolist(), scales.tolist(), strict=True)
    want = [reference_fixed(c, e, s) for c, e, s in rows]
    got = vecfix.format_fixed(coef, exps, scales, threads=1)
    assert got.width == max(map(len, want))
    assert got.to_list() == want


@pytest.mark.parametrize("seed", range(4))
def test_widest_of_interleaved_layouts(seed):
    """Rows whose layouts change from row to row (the kernel keeps each layout's extremes
    in a table, storing only a new one): the matrix is exactly as wide as the widest
    row, wherever that row is and whatever its layout."""
    rng = np.random.default_rng(seed)
    n = 2000 if not NOJIT else 600  # past MEASURE_BELOW: the extremes decide the width
    exps = rng.integers(-12, 3, n).astype(np.int32)
    scales = rng.integers(0, 9, n).astype(np.int32)
    coef = rng.integers(-(10**6), 10**6, n, dtype=np.int64)
    wide = rng.integers(0, n)
    coef[wide] = -(10 ** int(rng.integers(12, 18)))  # one row wider than the rest
    exps[wide], scales[wide] = 0, int(rng.integers(0, 4))
    rows = zip(coef.tolist(), exps.tolist(), scales.tolist(), strict=True)
    want = [reference_fixed(c, e, s) for c, e, s in rows]
    got = vecfix.format_fixed(coef, exps, scales, threads=1)
    assert got.width == max(map(len, want))
    assert got.to_list() == want


@given(
    st.lists(
        st.tuples(
            st.one_of(st.integers(-(10**6), 10**6), st.integers(INT64_MIN, INT64_MAX)),
            st.integers(-25, 18),
            st.integers(0, 17),
        ),
        min_size=1,
        max_size=40,
    ),
    st.integers(1, 700),
    st.sampled_from(["rows", "runs", "sorted"]),
)
@settings(max_examples=60 if NOJIT else 200, deadline=None)
def test_widest_of_layouts_is_the_longest_row(rows, n, order):
    """:func:`row_kernels.widest_of_layouts` gives the longest row's length (rows of ``n``
    drawn from a few layouts and coefficients: row to row, in runs of one layout, or in
    ascending order, where every row is a new extreme of its layout)."""
    rng = np.random.default_rng(n)
    picked = [rows[i] for i in rng.integers(0, len(rows), n)]
    if order == "runs":
        picked.sort(key=lambda row: (row[1], row[2]))
    elif order == "sorted":
        picked.sort()
    c, e, s = (np.array(col) for col in zip(*picked, strict=True))
    table = np.empty((row_kernels.TABLE_ROWS, 2), dtype=np.int64)
    coef, exps, scales = c.astype(np.int64), e.astype(np.int32), s.astype(np.int32)
    got = row_kernels.widest_of_layouts(0, n, coef, 1, exps, 1, scales, 1, 10**6, NO_HINTS, table)
    assert got == max(len(reference_fixed(*map(int, row))) for row in picked)


@pytest.mark.parametrize("name", ["_as_double_native", "_as_double_halves"])
@given(st.integers(0, 2**64 - 1))
@settings(max_examples=200, deadline=None)
def test_as_double_both_ways(name, a):
    """uint64 -> float64 rounds once, to nearest (as Python's int -> float does), with
    AVX-512DQ's one instruction and without it (two exact halves added)."""
    helper = getattr(_kernels, name)
    as_double = getattr(helper, "py_func", helper)
    assert as_double(np.uint64(a)) == float(a)


@pytest.mark.parametrize("native", [True, False])
@given(st.integers(0, 2**64 - 1))
@settings(max_examples=200, deadline=None)
def test_small_double_both_ways(native, a):
    """``_small_double``: exact below ``2**52``; above, at least ``2**52`` with AVX-512DQ's
    conversion (the float64 rounding's test fails on it) and finite without it (where
    the rounding tests ``|c|`` itself)."""
    saved = _kernels._NATIVE_CONVERT
    _kernels._NATIVE_CONVERT = native  # read when the plain-Python function runs
    try:
        small = getattr(_kernels._small_double, "py_func", _kernels._small_double)
        x = float(small(np.uint64(a)))
    finally:
        _kernels._NATIVE_CONVERT = saved
    assert x == float(a) if a < 2**52 else (x >= 2.0**52 if native else np.isfinite(x))


def test_blocks_of_one_layout_between_mixed_blocks():
    """A block of one layout takes its constants from its first row, a mixed block from
    every row: blocks of each kind in turn (runs that start and end inside blocks), and
    calls in turn on one thread's staging arrays, print every row as the reference."""
    block = BLOCK
    n = 3 * block + 100
    rng = np.random.default_rng(7)
    coef = rng.integers(-(10**12), 10**12, n, dtype=np.int64)
    exps = np.full(n, -9, dtype=np.int32)
    scales = np.full(n, 4, dtype=np.int32)
    scales[block // 2 : block + 10] = 2  # a run across the first boundary
    scales[2 * block : 2 * block + 1] = 7  # a lone row opens the third block
    exps[2 * block + 5 :: 3] = -6  # the rest mixed
    rows = list(zip(coef.tolist(), exps.tolist(), scales.tolist(), strict=True))
    want = [reference_fixed(c, e, s) for c, e, s in rows]
    for _ in range(2):  # mixed, one layout, then mixed again on the same staging arrays
        assert vecfix.format_fixed(coef, exps, scales, threads=1).to_list() == want
        one = vecfix.format_fixed(coef[:block], -6, 2, threads=1).to_list()
        assert one == [reference_fixed(c, -6, 2) for c in coef[:block].tolist()]


def _float_limit(e: int, s: int, top: int = 2**52) -> int:
    """The ``|c|`` below which a row rounds in float64, stated independently of the
    kernel: ``x = |c| * 10**d + H < top`` (``2**52``; ``2**52 - 1`` without AVX-512DQ), in
    a layout the block passes take (0 in others; any ``|c|`` where ``d <= -20``)."""
    d = e + s
    if not (0 <= s <= 15 and (-18 <= d <= 15 or d <= -20)):
        return 0
    if d <= -20:
        return 2**64
    if d >= 0:
        return -(-top // 10**d)  # the least a with a * 10**d >= top
    return max(top - 10**-d // 2, 0)


@pytest.mark.parametrize(("e", "s"), [(-9, 4), (-1, 0), (-15, 0), (-6, 15), (-20, 2), (3, 2)])
def test_one_layout_blocks_around_the_float_limit(e, s):
    """Coefficients just under, at and over the limit of the float64 rounding, on and
    next to ties: a block with a few of them (they take the general path) and a block of
    little else (it goes through the integer passes) print as the reference."""
    lim = _float_limit(e, s)
    k = max(-(e + s), 0)
    near = []
    for base in (lim - 1, lim, lim + 1, lim - 10**k // 2, lim + 10**k // 2, 2**53, 2**63 - 1):
        if 0 <= base < 2**63:
            near += [base, -base]
    rng = np.random.default_rng(lim % 2**32)
    n = BLOCK + 64
    coef = rng.integers(-(10**12), 10**12, n, dtype=np.int64)
    coef[: len(near)] = near  # a few in the first block: the float pass keeps it
    many = np.resize(np.array(near, dtype=np.int64), n - BLOCK)
    coef[BLOCK:] = many  # the second block: nearly all past the limit
    if NOJIT:
        coef = np.concatenate([coef[:40], coef[BLOCK:]])
    want = [reference_fixed(c, e, s) for c in coef.tolist()]
    assert vecfix.format_fixed(coef, e, s, threads=1).to_list() == want


@given(
    st.integers(-22, 17),
    st.integers(0, 16),
    st.integers(0, 2**50),
    st.sampled_from(["any", "whole", "limit"]),
    st.sampled_from([0, 1, -1, 2, -2]),
    st.booleans(),
)
@settings(max_examples=500, deadline=None)
def test_rounded_float_matches_integer_rounding(d, s, m, where, r, tie):
    """``_rounded_float``, with the constants ``_layouts`` computes, gives M's 8-digit
    halves, rounded half away from zero, for every ``|c|`` under its limit (Python ints
    give the expectation); at or above it, it says so (``ok`` False). ``|c|`` is drawn
    next to where the float64 steps may land one off: where ``|c| * 10**d + H`` is a
    multiple of ``10**k`` (a tie) or not, ``M`` a multiple of ``10**8`` or not, and next
    to the limit; in layouts the block passes take and others."""
    e = d - s
    wide, real, narrow = _kernels.scratch(1)
    narrow[_kernels._E, 0] = np.int32(e).view(np.uint32)
    narrow[_kernels._SC, 0] = s
    getattr(_kernels._layouts, "py_func", _kernels._layouts)(1, wide, real, narrow)
    lim = _float_limit(e, s)
    k = max(-d, 0)
    m = m // 10**8 * 10**8 if where == "whole" else m
    a = m * 10**k - (10**k // 2 if tie else 0) + r if d < 0 else m // 10**d + r
    a = min(lim, 2**63) + r if where == "limit" else a
    a = min(max(a, 0), 2**63 - 1)
    rounded = getattr(_kernels._rounded_float, "py_func", _kernels._rounded_float)
    args = [real[r, 0] for r in (_kernels._PF, _kernels._HF, _kernels._RD, _kernels._DF)]
    saved = _kernels._NATIVE_CONVERT
    try:
        for native, c in itertools.product((True, False), (a, -a)):
            _kernels._NATIVE_CONVERT = native  # both conversions (the plain function's)
            hi, lo, ok = rounded(np.int64(c), *args)
            assert bool(ok) == (a < (lim if native else _float_limit(e, s, 2**52 - 1)))
            m = (a * 10**d if d >= 0 else (a + 10**k // 2) // 10**k) if ok else 0
            assert (int(hi), int(lo)) == divmod(m, 10**8), (c, e, s, native)
    finally:
        _kernels._NATIVE_CONVERT = saved


@pytest.mark.parametrize("k", range(1, 16))
def test_one_layout_quotients_on_multiples(k):
    """``|c| * 10**d + H`` a multiple of ``10**k`` and one either side, and ``M`` a
    multiple of ``10**8`` and one either side, for every ``k`` the float64 rounding takes
    (where ``1 / 10**k`` rounds below, the floor of the product is one short and the
    remainder fixes it)."""
    rng = np.random.default_rng(k)
    n = 600 if not NOJIT else 60
    top = max((2**52 - 10**k) // 10**k, 2)
    m = rng.integers(1, top, n, dtype=np.int64)
    m[: n // 3] = m[: n // 3] // 10**8 * 10**8 + rng.integers(-1, 2, n // 3)
    a = m * 10**k - 10**k // 2 + rng.integers(-1, 2, n)
    a[::2] = m[::2] * 10**k + rng.integers(-1, 2, (n + 1) // 2)
    coef = np.where(rng.random(n) < 0.5, -a, a)
    s = min(k, 4)
    want = [reference_fixed(c, -k - s, s) for c in coef.tolist()]
    assert vecfix.format_fixed(coef, -k - s, s, threads=1).to_list() == want


@pytest.mark.parametrize("layout", ["matrix", "arrow"])
def test_integer_fallback_after_a_call_of_one_layout(layout):
    """A block of one layout computes its constants for its first row only; a call after
    it (same thread, same staging arrays, same layout) whose coefficients send its block
    through the integer passes, which read every row's constants, prints as the
    reference (rows 1 on once kept the constants of an earlier call's layout)."""
    e, s = 0, 4
    rng = np.random.default_rng(11)
    small = rng.integers(-(10**6), 10**6, 100, dtype=np.int64)
    big = rng.integers(10**12, 10**14, 100, dtype=np.int64)  # past 2**52 / 10**4
    big[::3] = small[::3]
    vecfix.format_fixed(small, -3, 1, threads=1, layout=layout)  # another layout first
    vecfix.format_fixed(small, e, s, threads=1, layout=layout)
    got = vecfix.format_fixed(big, e, s, threads=1, layout=layout).to_list()
    assert got == [reference_fixed(c, e, s) for c in big.tolist()]


@pytest.mark.parametrize("share", [0.0, 0.01, 0.5, 1.0])
def test_extremes_with_a_validity_mask(share):
    """``extremes(values, valid)``: the smallest and largest of ``values`` with the rows
    where ``valid`` is False taken as 0 (as a zeroed copy would give), and with an empty
    mask of ``values`` themselves; rows all valid, some, none."""
    rng = np.random.default_rng(int(share * 100))
    for n in (1, 7, 100, 4099):
        values = rng.integers(-(2**62), 2**62, n) + 2**40  # mostly positive: 0 matters
        valid = rng.random(n) >= share
        zeroed = np.where(valid, values, 0)
        got = row_kernels.extremes(values, valid)
        assert (int(got[0]), int(got[1])) == (int(zeroed.min()), int(zeroed.max()))
        got = row_kernels.extremes(values, np.empty(0, dtype=np.bool_))
        assert (int(got[0]), int(got[1])) == (int(values.min()), int(values.max()))
