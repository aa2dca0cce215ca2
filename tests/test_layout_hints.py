"""Layout hints: the widest-row pass over per-row exponents and scales names each stretch
of rows of one layout, and the fill that follows reads those names instead of the
exponents and scales (``format_rows``' ``HINTED`` flag).

A hint the fill trusts wrongly prints a row under another row's layout, so these tests
give the hints' room a plausible wrong slot before the pass, put layout changes on,
beside and between the stretch and block edges, and compare every row with the
independent reference, in every output layout, on one and on several threads, with null
rows.
"""

from __future__ import annotations

import itertools

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import reference_fixed

import vecfix
import vecfix._plan
import vecfix._tuning
from vecfix._kernels import fixed as _kernels
from vecfix._kernels import rows as row_kernels
from vecfix._tuning import BLOCK

NOJIT = bool(numba.config.DISABLE_JIT)
STRETCH = row_kernels._RUN
NULL = 2**63 - 1
#: Layouts of the runs: PRICE9 at tick decimals, one with digits padded (d > 0), one
#: outside the hints' table (scale 20: the general path), one dropping every digit.
LAYOUTS = [(-9, 4), (-9, 2), (-9, 0), (-4, 6), (-9, 20), (-30, 3), (-2, 2)]


def slot(e: int, s: int) -> int:
    """A layout's hint: its row in the widest-row pass's table, ``(e + s + 20) * 16 + s``
    for ``0 <= s < 16`` and ``-20 <= e + s < 16``, else -1 (none)."""
    d = e + s
    return (d + 20) * 16 + s if 0 <= s < 16 and -20 <= d < 16 else -1


def runs_of_layouts(cuts: list[int], n: int, seed: int) -> tuple[np.ndarray, ...]:
    """``n`` rows whose layout changes at each of ``cuts`` (to another of
    :data:`LAYOUTS`), coefficients of up to 14 digits of either sign."""
    rng = np.random.default_rng(seed)
    exps, scales = np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32)
    edges = [0, *sorted({c for c in cuts if 0 < c < n}), n]
    pick = 0
    for lo, hi in itertools.pairwise(edges):
        pick = (pick + 1 + int(rng.integers(0, len(LAYOUTS) - 1))) % len(LAYOUTS)
        exps[lo:hi], scales[lo:hi] = LAYOUTS[pick]
    coef = rng.integers(-(10**14), 10**14, n, dtype=np.int64)
    return coef, exps, scales


def read_only(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Read-only views, as ``format_fixed`` passes its columns to the kernels (one
    compiled signature: see ``test_small_calls``)."""
    views = tuple(a.view() for a in arrays)
    for v in views:
        v.flags.writeable = False
    return views


def expected(coef: np.ndarray, exps: np.ndarray, scales: np.ndarray) -> list[str]:
    rows = zip(coef.tolist(), exps.tolist(), scales.tolist(), strict=True)
    return [reference_fixed(c, e, s) for c, e, s in rows]


#: Layout changes on a stretch's first row, beside it, inside a stretch, on and beside a
#: block's edge, and a stray row of another layout inside a long run.
CUTS = [
    [STRETCH, 2 * STRETCH - 1, 3 * STRETCH + 1, BLOCK, BLOCK + 1, 2 * BLOCK - 5, 2 * BLOCK + 70],
    [BLOCK + 300, BLOCK + 301],
    [],
]


@pytest.mark.parametrize("start", [0, 1, STRETCH + 3])
@pytest.mark.parametrize("cuts", CUTS)
def test_hints_name_each_stretch(start, cuts):
    """Each stretch's first row gets its layout's slot when every row of the stretch
    (the last may be short) has that layout, else -1, whatever was there before."""
    n = 3 * BLOCK + 77
    coef, exps, scales = read_only(*runs_of_layouts(cuts, n, len(cuts)))
    hints = np.full(n, slot(-9, 4), dtype=np.int32)  # a plausible wrong hint everywhere
    table = np.empty((row_kernels.TABLE_ROWS, 2), dtype=np.int64)
    row_kernels.widest_of_layouts(start, n, coef, 1, exps, 1, scales, 1, 10**6, hints, table)
    for first in range(start, n, STRETCH):
        last = min(first + STRETCH, n)
        layouts = set(zip(exps[first:last].tolist(), scales[first:last].tolist(), strict=True))
        want = slot(*layouts.pop()) if len(layouts) == 1 else -1
        assert hints[first] == want, first


@pytest.mark.parametrize("mode", ["FILL", "PACK"])
@pytest.mark.parametrize("start", [0, 1, STRETCH + 3])
@pytest.mark.parametrize("cuts", CUTS)
def test_hinted_fill_is_exact(mode, start, cuts):
    """``format_rows`` with the hints of a widest-row pass over the same rows writes what
    the reference prints, as a matrix and in Arrow's layout."""
    n = 3 * BLOCK + 77
    coef, exps, scales = read_only(*runs_of_layouts(cuts, n, 7 + len(cuts)))
    want = expected(coef, exps, scales)[start:]
    lengths = np.full(n, slot(-9, 4), dtype=np.int32)
    table = np.empty((row_kernels.TABLE_ROWS, 2), dtype=np.int64)
    args = (coef, 1, exps, 1, scales, 1)
    widest = row_kernels.widest_of_layouts(start, n, *args, 10**6, lengths, table)
    assert widest == max(map(len, want))
    buf = np.zeros(n * widest + 64, dtype=np.uint8)
    flag = getattr(_kernels, mode) | _kernels.HINTED
    _kernels.format_rows(start, n, *args, buf, widest, lengths, 10**6, flag, *_kernels.scratch())
    if mode == "FILL":
        rows = buf[: n * widest].reshape(n, widest)[start:]
        got = [bytes(r[:k]).decode() for r, k in zip(rows, lengths[start:], strict=True)]
        assert not any(r[k:].any() for r, k in zip(rows, lengths[start:], strict=True))
    else:
        ends = [start * widest, *lengths[start:].tolist()]
        got = [bytes(buf[a:b]).decode() for a, b in itertools.pairwise(ends)]
    assert got == want


@pytest.mark.parametrize("layout", ["matrix", "arrow", "string_view"])
@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("nulls", [False, True])
def test_format_fixed_runs_of_layouts(layout, threads, nulls, monkeypatch):
    """``format_fixed`` over runs of layouts, in every output layout, on one and three
    threads (parts that start off the stretches' grid), with and without null rows."""
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 7)
    n = 5 * BLOCK + 11 if not NOJIT else 3 * BLOCK + 11
    coef, exps, scales = runs_of_layouts([*CUTS[0], 4 * BLOCK - 2, 4 * BLOCK + 400], n, 3)
    if layout == "string_view":  # rows of at most 12 bytes (no wider layout, no sign)
        coef = np.abs(coef) % 10**12
        scales = np.minimum(scales, 2)
    null_rows = np.random.default_rng(1).integers(0, n, n // 10 if nulls else 0)
    check_with_nulls(coef, exps, scales, null_rows, layout, threads)


@pytest.mark.parametrize("layout", ["matrix", "arrow", "string_view"])
@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize(
    "n", [vecfix._tuning.MEASURE_BELOW - 1, vecfix._tuning.MEASURE_BELOW, 2 * BLOCK + 5]
)
def test_arrays_of_one_layout(layout, threads, n, monkeypatch):
    """Exponent and scale arrays whose values are all one layout (taken as arrays, not
    as that layout: one run over every row), below and from the size where the widest-row
    pass runs, with null rows: every row as the reference prints it."""
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 7)
    rng = np.random.default_rng(n)
    coef = rng.integers(0, 10**9 if layout == "string_view" else 10**15, n, dtype=np.int64)
    exps, scales = np.full(n, -9, dtype=np.int32), np.full(n, 2, dtype=np.int32)
    check_with_nulls(coef, exps, scales, rng.integers(0, n, n // 10), layout, threads)


def check_with_nulls(coef, exps, scales, null_rows, layout, threads) -> None:
    """``format_fixed`` of ``coef`` with the rows ``null_rows`` set to the ``null=``
    sentinel, in output ``layout`` on ``threads``: the reference's text, None for a null
    row."""
    want: list[str | None] = list(expected(coef, exps, scales))
    coef = coef.copy()
    coef[null_rows] = NULL
    for i in null_rows.tolist():
        want[i] = None
    kwargs = {} if layout == "matrix" else {"layout": layout}
    got = vecfix.format_fixed(coef, exps, scales, threads=threads, null=NULL, **kwargs)
    assert got.to_list() == want


@given(
    st.lists(st.integers(1, 3 * BLOCK), min_size=1, max_size=8),
    st.integers(1, 3),
    st.sampled_from(["matrix", "arrow"]),
)
@settings(max_examples=15 if NOJIT else 60, deadline=None)
def test_runs_of_any_length(runs, threads, layout):
    """Runs of any lengths (hypothesis), on up to three threads: every row as the
    reference prints it."""
    cuts = np.cumsum(runs).tolist()
    n = cuts.pop()
    coef, exps, scales = runs_of_layouts(cuts, n, n)
    old = vecfix._tuning.MIN_ROWS_PER_THREAD
    vecfix._tuning.MIN_ROWS_PER_THREAD = 7  # (hypothesis runs the test many times per fixture)
    try:
        kwargs = {} if layout == "matrix" else {"layout": layout}
        got = vecfix.format_fixed(coef, exps, scales, threads=threads, **kwargs)
    finally:
        vecfix._tuning.MIN_ROWS_PER_THREAD = old
    assert got.to_list() == expected(coef, exps, scales)


@pytest.mark.parametrize("layout", ["matrix", "arrow"])
def test_hinted_blocks_of_large_coefficients(layout):
    """Runs whose coefficients are past float64's exact range (2**52 and more): their
    blocks take the integer pass, which reads every row's staged exponent and scale, so
    a hinted block must stage them all, not just its first row's."""
    n = 4 * BLOCK + 5 if not NOJIT else 2 * BLOCK + 5
    coef, exps, scales = runs_of_layouts([BLOCK + 7, 2 * BLOCK, 3 * BLOCK + 300], n, 11)
    rng = np.random.default_rng(11)
    coef = rng.integers(2**53, 2**62, n, dtype=np.int64) * rng.choice([-1, 1], n)
    kwargs = {} if layout == "matrix" else {"layout": layout}
    got = vecfix.format_fixed(coef, exps, scales, threads=1, **kwargs)
    assert got.to_list() == expected(coef, exps, scales)


def test_the_flag_is_ignored_where_lengths_are_the_callers():
    """``PACK_AT`` takes the rows' ends in ``lengths``: with the flag added it still reads
    them as ends, never as hints (the kernel takes the flag on FILL and PACK only). One
    stretch of rows: its first end (a row's length) would read as a layout's slot."""
    n = STRETCH - 56
    coef, exps, scales = read_only(*runs_of_layouts([], n, 5))
    want = expected(coef, exps, scales)
    ends = np.cumsum([len(t) for t in want]).astype(np.int32)
    buf = np.zeros(int(ends[-1]) + 64, dtype=np.uint8)
    args = (0, n, coef, 1, exps, 1, scales, 1, buf, 32, ends, 10**6)
    _kernels.format_rows(*args, _kernels.PACK_AT | _kernels.HINTED, *_kernels.scratch())
    starts = [0, *ends[:-1].tolist()]
    assert [bytes(buf[a:b]).decode() for a, b in zip(starts, ends, strict=True)] == want
