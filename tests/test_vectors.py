"""Every golden vector, byte for byte: through ``format_fixed``, ``string_fixed`` and the
reference. The vectors come from Go's shopspring/decimal, not from vecfix."""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN, VECTOR_FILES, Vectors
from reference import reference_fixed

import vecfix
import vecfix._passes
import vecfix._plan
import vecfix._tuning
from vecfix._tuning import BLOCK

#: int64 max and min rows (golden vectors, dtype extremes) are formatted here on purpose; the
#: SentinelWarning they raise is tested in tests/test_one_vocabulary.py
pytestmark = pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")

# The examples of SPEC.md "The rules, with examples", copied as literal data:
# (coefficient, exponent, scale, text).
SPEC_EXAMPLES = [
    (125, -3, 2, "0.13"),
    (-125, -3, 2, "-0.13"),
    (-125, -2, 1, "-1.3"),
    (1249999, -7, 2, "0.12"),
    (2675, -3, 2, "2.68"),
    (-4, -3, 2, "0.00"),
    (-5, -3, 2, "-0.01"),
    (5, 3, 2, "5000.00"),
    (1, 0, 25, "1.0000000000000000000000000"),
    (5, -2, 4, "0.0500"),
    (123000123, -6, 6, "123.000123"),
    (125, -1, 0, "13"),
    (12345, 0, -2, "12300"),
    (545, 0, -1, "550"),
    (50, 0, -2, "100"),
    (-150, 0, -2, "-200"),
    (-49, 0, -2, "0"),
]


def first_mismatches(got: list[str], want: list[str], v: Vectors | None = None, limit: int = 5):
    """A short description of the first rows that differ (empty when all agree)."""
    assert len(got) == len(want), (len(got), len(want))
    bad = [i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
    out = []
    for i in bad[:limit]:
        where = f"({v.coef[i]}, {v.exp[i]}, {v.scale[i]})" if v is not None else ""
        out.append(f"row {i} {where}: got {got[i]!r}, want {want[i]!r}")
    if len(bad) > limit:
        out.append(f"... {len(bad)} rows differ in all")
    return out


def assert_formatted(result: vecfix.Formatted, want: list[str], v: Vectors | None = None):
    """``result`` holds exactly ``want``: text, lengths, width, matrix and ``S`` view."""
    assert isinstance(result, vecfix.Formatted)
    assert len(result) == len(want)
    assert first_mismatches(result.to_list(), want, v) == []
    lengths = np.array([len(x) for x in want], dtype=np.int32)
    assert result.lengths.dtype == np.int32
    np.testing.assert_array_equal(result.lengths, lengths)
    width = int(lengths.max()) if len(want) else 0
    assert result.width == width
    raw = np.array([x.encode("ascii") for x in want], dtype=f"S{max(width, 1)}")
    got_np = result.to_numpy()
    assert got_np.dtype == np.dtype(f"S{width}")
    assert np.array_equal(got_np, raw)
    # the matrix itself, zero padding included
    assert result.matrix.shape == (len(want), width)
    assert result.matrix.dtype == np.uint8 and result.matrix.flags.c_contiguous
    np.testing.assert_array_equal(result.matrix, raw.view(np.uint8).reshape(len(want), width))


# --- the reference and the spec ---------------------------------------------------------


@pytest.mark.parametrize(("c", "e", "s", "want"), SPEC_EXAMPLES)
def test_reference_spec_examples(c, e, s, want):
    assert reference_fixed(c, e, s) == want


@pytest.mark.parametrize(("c", "e", "s", "want"), SPEC_EXAMPLES)
def test_string_fixed_spec_examples(c, e, s, want):
    assert vecfix.string_fixed(c, e, s) == want


def test_format_fixed_spec_examples():
    c, e, s, want = (list(t) for t in zip(*SPEC_EXAMPLES, strict=True))
    assert_formatted(vecfix.format_fixed(np.array(c, dtype=np.int64), e, s), want)


@pytest.mark.parametrize("name", VECTOR_FILES)
def test_reference_matches_vectors(golden, name):
    v = golden[name]
    got = [reference_fixed(c, e, s) for c, e, s in zip(v.coef, v.exp, v.scale, strict=True)]
    assert first_mismatches(got, v.expected, v) == []


def test_vector_files_cover_what_they_claim(golden):
    """Guard against truncated or swapped data files."""
    assert len(golden["grid"]) == 320_535
    assert len(golden["big"]) == 20_000
    assert len(golden["prices"]) == 200_000
    assert golden["grid"].fits_int64() and golden["prices"].fits_int64()
    assert INT64_MIN in golden["grid"].coef and INT64_MAX in golden["grid"].coef
    assert not any(INT64_MIN <= c <= INT64_MAX for c in golden["big"].coef)


# --- format_fixed on whole columns ------------------------------------------------------


@pytest.mark.golden_full
@pytest.mark.parametrize("name", ["grid", "prices"])
def test_format_fixed_int64_column(golden, name):
    v = golden[name]
    result = vecfix.format_fixed(np.array(v.coef, dtype=np.int64), v.exp_array(), v.scale_array())
    assert_formatted(result, v.expected, v)


@pytest.mark.golden_full
@pytest.mark.parametrize("name", ["grid", "prices"])
def test_format_fixed_python_list_column(golden, name):
    v = golden[name]
    assert_formatted(vecfix.format_fixed(v.coef, v.exp, v.scale), v.expected, v)


@pytest.mark.golden_full
def test_format_fixed_big_python_list(golden):
    v = golden["big"]
    assert_formatted(vecfix.format_fixed(v.coef, v.exp_array(), v.scale_array()), v.expected, v)


@pytest.mark.golden_full
def test_format_fixed_big_object_array(golden):
    v = golden["big"]
    coef = np.array(v.coef, dtype=object)
    assert coef.dtype == object
    assert_formatted(vecfix.format_fixed(coef, v.exp_array(), v.scale_array()), v.expected, v)


def test_format_fixed_big_uint64_rows(golden):
    """The big rows that fit uint64 (beyond int64), as a uint64 array."""
    v = golden["big"]
    keep = [i for i, c in enumerate(v.coef) if 0 <= c < 2**64]
    assert len(keep) > 100
    coef = np.array([v.coef[i] for i in keep], dtype=np.uint64)
    exp = np.array([v.exp[i] for i in keep], dtype=np.int32)
    scale = np.array([v.scale[i] for i in keep], dtype=np.int32)
    want = [v.expected[i] for i in keep]
    assert_formatted(vecfix.format_fixed(coef, exp, scale), want)


def _mixed_rows(golden, seed: int, n_small: int):
    """All big rows interleaved at random with a sample of grid and prices rows."""
    rng = random.Random(seed)
    rows = list(golden["big"].rows())
    for name in ("grid", "prices"):
        rows += rng.sample(list(golden[name].rows()), n_small)
    rng.shuffle(rows)
    return tuple(list(col) for col in zip(*rows, strict=True))


@pytest.mark.golden_full
def test_format_fixed_mixed_column(golden):
    c, e, s, want = _mixed_rows(golden, 1, 20_000)
    assert any(INT64_MIN <= x <= INT64_MAX for x in c) and any(x > INT64_MAX for x in c)
    assert_formatted(vecfix.format_fixed(c, np.array(e), np.array(s)), want)
    assert_formatted(vecfix.format_fixed(np.array(c, dtype=object), e, s), want)


@pytest.mark.golden_full
def test_format_fixed_mixed_column_with_out_and_width(golden):
    c, e, s, want = _mixed_rows(golden, 2, 5_000)
    widest = max(map(len, want))
    out = np.full((len(c), widest + 3), 0xFF, dtype=np.uint8)
    result = vecfix.format_fixed(c, e, s, out=out)
    assert result.matrix is out
    assert first_mismatches(result.to_list(), want) == []
    padded = np.array([x.encode() for x in want], dtype=f"S{widest + 3}")
    np.testing.assert_array_equal(out, padded.view(np.uint8).reshape(out.shape))


@pytest.mark.golden_full
@pytest.mark.parametrize("name", ["grid", "prices"])
def test_format_fixed_grouped_scalar_broadcast(golden, name):
    """Rows grouped by (exponent, scale), each group with scalar exponent and scale, then
    with the same exponent and scale as arrays (taken as one layout when constant)."""
    v = golden[name]
    groups: dict[tuple[int, int], list[int]] = {}
    for i, key in enumerate(zip(v.exp, v.scale, strict=True)):
        groups.setdefault(key, []).append(i)
    keys = sorted(groups)
    if len(keys) > 200:  # grid: 765 groups; a spread of them is plenty
        keys = keys[:: len(keys) // 200 + 1]
    for e, s in keys:
        idx = groups[(e, s)]
        coef = np.array([v.coef[i] for i in idx], dtype=np.int64)
        want = [v.expected[i] for i in idx]
        got = vecfix.format_fixed(coef, e, s).to_list()
        assert first_mismatches(got, want) == [], (e, s)
        exps, scales = np.full(len(idx), e, dtype=np.int32), np.full(len(idx), s)
        assert_formatted(vecfix.format_fixed(coef, exps, scales), want)
        assert_formatted(vecfix.format_fixed(coef, exps, s), want)


@pytest.mark.golden_full
@pytest.mark.parametrize("threads", [1, 2])
def test_format_fixed_runs_of_layouts(golden, threads):
    """Golden rows in runs of one exponent and scale, as a table sorted by instrument
    comes: runs of every length around the kernel's block of rows, and layouts outside
    the block passes (grid). Long enough for two threads."""
    rng = random.Random(3)
    by_layout: dict[tuple[int, int], list[tuple]] = {}
    for name in ("grid", "prices"):
        for row in golden[name].rows():
            by_layout.setdefault((row[1], row[2]), []).append(row)
    layouts = sorted(by_layout)
    lengths = [1, 2, 15, 16, 17, 64, 300, BLOCK - 1, BLOCK + 1, 2000]
    rows: list[tuple] = []
    while len(rows) < 2 * vecfix._tuning.MIN_ROWS_PER_THREAD + 10_000:
        pool = by_layout[rng.choice(layouts)]
        rows += rng.choices(pool, k=rng.choice(lengths))
    c, e, s, want = (list(col) for col in zip(*rows, strict=True))
    coef = np.array(c, dtype=np.int64)
    exps, scales = np.array(e, dtype=np.int32), np.array(s, dtype=np.int32)
    assert_formatted(vecfix.format_fixed(coef, exps, scales, threads=threads), want)


@pytest.mark.parametrize("longest", [-(10**15), 10**15])
def test_format_fixed_runs_longest_row_inside_a_run(longest):
    """The longest row deep inside a long run of one layout, whichever its sign, in a
    block of its own."""
    n = 12 * BLOCK
    coef = np.arange(n, dtype=np.int64) % 1000 * 10**6
    exps = np.where(np.arange(n) < n // 2, -9, -8).astype(np.int32)
    scales = np.full(n, 2, dtype=np.int32)
    coef[n // 4] = longest
    rows = zip(coef.tolist(), exps.tolist(), scales.tolist(), strict=True)
    want = [reference_fixed(c, e, s) for c, e, s in rows]
    assert_formatted(vecfix.format_fixed(coef, exps, scales), want)


@pytest.mark.golden_full
def test_prices_take_only_the_fast_path(golden, monkeypatch):
    """prices is all int64, so the decimal fallback must never be called."""

    def refuse(*args):
        raise AssertionError(f"fallback called with {args}")

    monkeypatch.setattr(vecfix._passes, "string_fixed", refuse)
    v = golden["prices"]
    result = vecfix.format_fixed(np.array(v.coef, dtype=np.int64), v.exp_array(), v.scale_array())
    assert first_mismatches(result.to_list(), v.expected, v) == []
    # and the patch is live: a big coefficient does reach it
    with pytest.raises(AssertionError, match="fallback called"):
        vecfix.format_fixed([2**70], 0, 0)


# --- string_fixed -----------------------------------------------------------------------


@pytest.mark.parametrize("name", VECTOR_FILES)
def test_string_fixed_vectors(golden, name):
    v = golden[name]
    rows = list(v.rows())
    if name != "big":
        rows = random.Random(name).sample(rows, 3_000)
    bad = [(c, e, s, x, got) for c, e, s, x in rows if (got := vecfix.string_fixed(c, e, s)) != x]
    assert bad[:5] == []
