"""The row-at-a-time kernel (``vecfix._row_kernels.format_rows``) against the block kernel
it stands in for on CPUs without AVX2: the golden vectors, the reference, and the same
bytes, lengths and results as ``vecfix._kernels.fixed.format_rows`` for every part of their
shared contract (measuring, limits, automatic width, spills, ranges of rows); and the
choice between the two."""

from __future__ import annotations

import random

import numba
import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN, any_rows, general_rows, packing_case, read_only
from hypothesis import given
from reference import reference_fixed

import vecfix
from vecfix import _format, _row_kernels
from vecfix._kernels import fixed as _kernels
from vecfix._kernels.fixed import FILL, MEASURE

NOJIT = bool(numba.config.DISABLE_JIT)
NO_LIMIT = 2**31 - 1
KERNELS = {"block": _kernels.format_rows, "rows": _row_kernels.format_rows}


def _call(name, start, stop, coef, exps, scales, buf, width, lengths, limit, measure):
    """``format_rows`` of kernel ``name``; per-row or (for one-element arrays) broadcast
    exponents and scales."""
    estep, sstep = int(exps.size > 1), int(scales.size > 1)
    return KERNELS[name](start, stop, coef, 1, exps, estep, scales, sstep, buf, width,
                         lengths, limit, measure, *_kernels.scratch())  # fmt: skip


def _both(start, stop, coef, exps, scales, size, width, limit, measure):
    """Run both kernels on copies of one buffer (``size`` bytes, filled with 0xEE) and
    lengths (-7); return ``{name: (result, buf, lengths)}``."""
    out = {}
    for name in KERNELS:
        buf = np.full(size, 0xEE, dtype=np.uint8)
        lengths = np.full(coef.size, -7, dtype=np.int32)
        result = _call(name, start, stop, coef, exps, scales, buf, width, lengths, limit,
                       measure)  # fmt: skip
        out[name] = (tuple(int(x) for x in result), buf, lengths)
    return out


def _texts(coef, exps, scales) -> list[str]:
    e = np.broadcast_to(exps, coef.shape).tolist()
    s = np.broadcast_to(scales, coef.shape).tolist()
    return [reference_fixed(*row) for row in zip(coef.tolist(), e, s, strict=True)]


N = 90 if NOJIT else 3000


@pytest.mark.parametrize("seed", range(3))
def test_rows_kernel_writes_the_reference_text(seed):
    coef, exps, scales = general_rows(seed, N)
    want = _texts(coef, exps, scales)
    width = max(map(len, want))
    for extra in (0, 1, 9, 17):  # wider rows: zero stores past the words
        w = width + extra
        buf = np.full(N * w + 8, 0xEE, dtype=np.uint8)
        lengths = np.zeros(N, dtype=np.int32)
        got = _call("rows", 0, N, coef, exps, scales, buf, w, lengths, NO_LIMIT, FILL)
        assert got == (width, -1)
        rows = buf[: N * w].reshape(N, w)
        padded = np.array([t.encode() for t in want], dtype=f"S{w}").view(np.uint8)
        np.testing.assert_array_equal(rows, padded.reshape(N, w))
        assert lengths.tolist() == list(map(len, want))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("layout", ["per-row", "one exponent", "one layout"])
def test_rows_kernel_agrees_with_the_block_kernel(seed, layout):
    """Same result, lengths and bytes, in every mode of the contract: measuring with and
    without a limit, writing at the widest width and wider, with no slack after the
    matrix, the automatic width, and a range of rows inside a larger column."""
    coef, exps, scales = general_rows(seed + 10, N)
    if layout != "per-row":
        exps = read_only(np.array([-9], dtype=np.int32))
    if layout == "one layout":
        scales = read_only(np.array([seed + 2], dtype=np.int32))
    lengths = np.zeros(N, dtype=np.int32)
    widest, _ = _call("block", 0, N, coef, exps, scales, buf := np.empty(0, np.uint8), 0,
                      lengths, NO_LIMIT, MEASURE)  # fmt: skip
    del buf
    cases = [
        (0, N, 0, 0, NO_LIMIT, MEASURE),  # measure
        (0, N, 0, 0, 21, MEASURE),  # measure with a limit: rows beyond it get 0
        (0, N, 0, 0, 9, MEASURE),
        (0, N, N * widest + 8, widest, NO_LIMIT, FILL),  # write, with slack
        (0, N, N * widest, widest, NO_LIMIT, FILL),  # no slack: the last rows by bytes
        (0, N, N * (widest + 13) + 8, widest + 13, NO_LIMIT, FILL),
        (0, N, N * 64 + 8, -1, NO_LIMIT, FILL),  # the automatic width (room for any row)
        (N // 3, N - 5, N * widest + 8, widest, NO_LIMIT, FILL),  # rows inside a column
        (N // 3, N // 3, N * widest + 8, widest, NO_LIMIT, FILL),  # no rows
    ]
    for start, stop, size, width, limit, measure in cases:
        got = _both(start, stop, coef, exps, scales, size, width, limit, measure)
        (result, buf, lengths), (result2, buf2, lengths2) = got["block"], got["rows"]
        case = (start, stop, size, width, limit, measure)
        assert result == result2, case
        np.testing.assert_array_equal(lengths, lengths2, err_msg=str(case))
        used = width if width >= 0 else result[0]
        # the matrix's bytes, rows before start untouched (the slack after the matrix
        # holds either kernel's own spills)
        end = 0 if measure else stop * used
        np.testing.assert_array_equal(buf[:end], buf2[:end], err_msg=str(case))
        assert (buf2[: start * used] == 0xEE).all(), case
        if stop < N and not measure:
            assert (buf2[stop * used :] == 0xEE).all(), case
        if measure and limit < NO_LIMIT:
            too_long = [i for i, t in enumerate(_texts(coef, exps, scales)) if len(t) > limit]
            assert result2[1] == (too_long[0] if too_long else -1)


@pytest.mark.parametrize("name", ["grid", "prices"])
def test_rows_kernel_golden_vectors(golden, name, monkeypatch):
    """Every golden row that fits int64 through format_fixed with the row kernel chosen."""
    monkeypatch.setattr(_format, "_kernel", _row_kernels.format_rows)
    monkeypatch.setattr(_format, "_small_entry", None)
    rows = [r for r in golden[name].rows() if INT64_MIN <= r[0] <= INT64_MAX]
    if NOJIT:
        rows = random.Random(name).sample(rows, 1_500)
    c, e, s, want = (list(col) for col in zip(*rows, strict=True))
    got = vecfix.format_fixed(np.array(c, dtype=np.int64), np.array(e), np.array(s))
    bad = [(row, g) for row, g in zip(rows, got.to_list(), strict=True) if g != row[3]]
    assert bad[:5] == []
    assert got.width == max(map(len, want))


@given(any_rows(40))
def test_rows_kernel_property(rows):
    """Any int64 rows, the kernel called directly, against the reference."""
    c, e, s = (np.array(col) for col in zip(*rows, strict=True))
    coef, exps, scales = (
        read_only(c.astype(np.int64)),
        read_only(e.astype(np.int32)),
        read_only(s.astype(np.int32)),
    )
    want = _texts(coef, exps, scales)
    width = max(map(len, want))
    buf = np.zeros(len(rows) * 64 + 8, dtype=np.uint8)
    lengths = np.zeros(len(rows), dtype=np.int32)
    got = _call("rows", 0, len(rows), coef, exps, scales, buf, -1, lengths, 200, FILL)
    assert got == (width, -1)
    text = [bytes(buf[i * width : i * width + n]).decode() for i, n in enumerate(lengths)]
    assert text == want


@pytest.mark.parametrize(
    ("name", "features", "kernel"),
    [
        ("generic", "", "rows"),  # NUMBA_CPU_NAME=generic: no features at all
        ("x86-64-v2", "+sse2,+sse4.2,-avx2", "rows"),
        ("haswell", "+sse2,+avx,+avx2", "block"),
        ("znver4", "+avx2,+avx512f", "block"),
    ],
)
def test_kernel_choice_follows_the_target(monkeypatch, name, features, kernel):
    """The block kernel where Numba compiles for AVX2, the row kernel below it; and
    VECFIX_KERNEL overrides the choice."""
    from numba.core import config

    monkeypatch.setattr(config, "CPU_NAME", name)
    monkeypatch.setattr(config, "CPU_FEATURES", features)
    monkeypatch.setattr(_format, "_kernel", None)
    monkeypatch.setattr(_format, "_small_entry", None)
    monkeypatch.delenv("VECFIX_KERNEL", raising=False)
    assert _format._row_kernel() is KERNELS[kernel]
    other = "block" if kernel == "rows" else "rows"
    monkeypatch.setenv("VECFIX_KERNEL", other)
    assert _format._row_kernel() is KERNELS[other]
    px = np.array([5000_250000000, -4_000050000, 7], dtype=np.int64)
    assert vecfix.format_fixed(px, -9, 4).to_list() == ["5000.2500", "-4.0001", "0.0000"]


@pytest.mark.parametrize("kernel", ["block", "rows"])
def test_arrays_of_one_value_follow_the_kernel(monkeypatch, kernel):
    """Exponent and scale arrays of one value stay arrays for the block kernel (its
    widest-row pass reads them once and leaves hints for the fill) and become that value
    (step 0) for the row kernel, which reads no hints; arrays of several values stay
    arrays for both; the text is the reference's either way."""
    from vecfix._inputs import read_inputs

    monkeypatch.setattr(_format, "_kernel", KERNELS[kernel])
    monkeypatch.setattr(_format, "_small_entry", None)
    n = 700
    coef = np.arange(n, dtype=np.int64) * 1_234_567 - 400_000_000
    one = np.full(n, -9, dtype=np.int32), np.full(n, 4, dtype=np.int32)
    several = one[0], (np.arange(n) % 3).astype(np.int32)  # one exponent, three scales
    one_step = 1 if kernel == "block" else 0
    for (exps, scales), steps in ((one, (one_step, one_step)), (several, (one_step, 1))):
        rows = _format._for_kernels(read_inputs(coef, exps, scales, None).rows)
        assert (rows.estep, rows.sstep) == steps
        got = vecfix.format_fixed(coef, exps, scales).to_list()
        assert got == _texts(coef, exps, scales)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("layout", ["per-row", "one layout"])
def test_rows_kernel_packs_arrow_layout(seed, layout):
    """``PACK``: the rows' text back to back from ``start * width``, ``lengths`` where each
    row ends; ``PACK_AT``: at ends the caller gives (Arrow's offsets). Against the
    reference, for a range of rows inside a column, with and without slack."""
    coef, exps, scales, want, width, ends = packing_case(seed + 20, N, layout, _texts)
    for start, stop in ((0, N), (N // 3, N - 5)):
        for size in (N * width + 8, N * width):
            buf = np.full(size, 0xEE, dtype=np.uint8)
            lengths = np.full(N, -7, dtype=np.int32)
            got = _call("rows", start, stop, coef, exps, scales, buf, width, lengths, NO_LIMIT,
                        _row_kernels.PACK)  # fmt: skip
            assert got[0] == max(map(len, want[start:stop]))
            text = "".join(want[start:stop]).encode()
            at = start * width
            assert bytes(buf[at : at + len(text)]) == text
            assert (
                lengths[start:stop].tolist()
                == (at + ends[start:stop] - ends[start - 1] * (start > 0)).tolist()
            )
            if stop < N:  # nothing past the range's rows
                assert (buf[stop * width :] == 0xEE).all()
            buf = np.full(size, 0xEE, dtype=np.uint8)
            given = ends.copy()
            _call("rows", start, stop, coef, exps, scales, buf, width, given, NO_LIMIT,
                  _row_kernels.PACK_AT)  # fmt: skip
            first = int(ends[start - 1]) if start else 0
            assert bytes(buf[first : int(ends[stop - 1])]) == text
            assert (given == ends).all()
            if stop < N:
                assert (buf[int(ends[stop - 1]) :] == 0xEE).all()


def _fill_and_check(coef, exps, scales, extra=0):
    """Write ``coef`` with the row kernel (``FILL``, the widest width plus ``extra``) and
    compare every row, its zero padding and length with the reference."""
    want = _texts(coef, exps, scales)
    width = max(map(len, want)) + extra
    n = coef.size
    buf = np.full(n * width + 8, 0xEE, dtype=np.uint8)
    lengths = np.full(n, -7, dtype=np.int32)
    got = _call("rows", 0, n, coef, exps, scales, buf, width, lengths, NO_LIMIT, FILL)
    assert got == (width - extra, -1)
    padded = np.array([t.encode() for t in want], dtype=f"S{width}").view(np.uint8)
    np.testing.assert_array_equal(buf[: n * width].reshape(n, width), padded.reshape(n, width))
    assert lengths.tolist() == list(map(len, want))


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("extra", [0, 9])
def test_rows_kernel_digit_counts_that_change(seed, extra):
    """One layout whose integer part's digit count changes row to row, then in runs of
    1 to 12 rows (the lean runs: short ones, pauses after them, rows counted one by one),
    0.01 to 100,000 (then to 10**9: integer parts past 7 digits) at exponent -9 and scale
    4, 5% negative, and ties."""
    rng = np.random.default_rng(seed + 40)
    prices = (10 ** rng.uniform(-2, 5 + 4 * seed, N) * 1e9).astype(np.int64)
    runs = np.repeat(prices[: N // 4], rng.integers(1, 13, N // 4))[: N - N // 2]
    coef = np.concatenate([prices[: N // 2], runs + rng.integers(0, 10**5, runs.size)])
    coef[rng.random(coef.size) < 0.05] *= -1
    ties = rng.random(coef.size) < 0.1
    coef[ties] = coef[ties] // 10**5 * 10**5 + 50_000
    e, s = np.array([-9], dtype=np.int32), np.array([4], dtype=np.int32)
    _fill_and_check(read_only(coef), read_only(e), read_only(s), extra)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("extra", [0, 9])
def test_rows_kernel_runs_of_layouts(seed, extra):
    """Per-row layouts in runs of 1 to 40 rows (a snapshot sorted by instrument: the long
    runs of a lean layout go through lean runs, the others row by row), with rows of the
    general path among them (values of 17 digits and more, scales past 15)."""
    rng = np.random.default_rng(seed + 50)
    layouts = [(-9, 4), (-9, 2), (-8, 8), (-4, 2), (-9, 0), (-2, 7), (-9, 12), (-3, 16)]
    pick = rng.integers(0, len(layouts), N // 8)
    size = rng.integers(1, 41, N // 8)
    chosen = np.repeat(np.array(layouts)[pick], size, axis=0)[:N]
    exps, scales = chosen[:, 0].astype(np.int32), chosen[:, 1].astype(np.int32)
    coef = (10 ** rng.uniform(0, 15, exps.size)).astype(np.int64)
    coef[rng.random(coef.size) < 0.02] = rng.integers(10**17, 10**18)
    coef[rng.random(coef.size) < 0.05] *= -1
    _fill_and_check(read_only(coef), read_only(exps), read_only(scales), extra)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("extra", [0, 9])
def test_rows_kernel_long_runs_of_changing_digit_counts(seed, extra):
    """A column sorted by layout: runs of hundreds of rows of one lean layout whose
    integer parts change digit count row to row, so that a run takes many short lean
    turns, each after the end of the run that an earlier turn found (kept, not looked
    for again); a run of one layout follows another of the same layout after a run of
    another, and the last run reaches the end of the rows."""
    rng = np.random.default_rng(seed + 60)
    layouts = [(-9, 4), (-6, 2), (-9, 4), (-8, 7), (-4, 1)]
    size = rng.integers(N // 12, N // 4, len(layouts))
    chosen = np.repeat(np.array(layouts), size, axis=0)
    exps, scales = chosen[:, 0].astype(np.int32), chosen[:, 1].astype(np.int32)
    coef = (10 ** rng.uniform(1, 13, exps.size)).astype(np.int64)
    coef[rng.random(coef.size) < 0.05] *= -1
    ties = rng.random(coef.size) < 0.1
    coef[ties] = coef[ties] // 10**5 * 10**5 + 50_000
    _fill_and_check(read_only(coef), read_only(exps), read_only(scales), extra)


@pytest.mark.parametrize("slack", [0, 8])
@pytest.mark.parametrize("tail", [9, 40])
def test_rows_kernel_narrow_run_to_the_end(slack, tail):
    """Narrow rows (``99.9``: a lean layout whose stores reach past the row) in a run of
    one layout that ends with the rows, per-row layouts before it, in a buffer with no
    slack or 8 bytes: the run the pass finds reaches the last row, the lean rows stop
    before the rows whose stores would leave the buffer (under ``NUMBA_DISABLE_JIT`` a
    store past it raises)."""
    rng = np.random.default_rng(tail + slack)
    head = 5
    exps = np.array([-3] * head + [-2] * tail, dtype=np.int32)
    scales = np.array([2] * head + [1] * tail, dtype=np.int32)
    coef = rng.integers(100, 999, head + tail)
    coef[rng.random(coef.size) < 0.2] *= -1
    want = _texts(coef, exps, scales)
    width = max(map(len, want))
    n = coef.size
    buf = np.full(n * width + slack, 0xEE, dtype=np.uint8)
    lengths = np.full(n, -7, dtype=np.int32)
    coef, exps, scales = read_only(coef), read_only(exps), read_only(scales)
    got = _call("rows", 0, n, coef, exps, scales, buf, width, lengths, NO_LIMIT, FILL)
    assert got == (width, -1)
    padded = np.array([t.encode() for t in want], dtype=f"S{width}").view(np.uint8)
    np.testing.assert_array_equal(buf[: n * width].reshape(n, width), padded.reshape(n, width))
    assert lengths.tolist() == list(map(len, want))


def test_rows_kernel_fill_with_a_limit():
    """Writing with a limit, rows the first pass leaves to the general one among the others:
    the same lengths (0 beyond the limit), first row beyond it and bytes as the block
    kernel."""
    coef, exps, scales = general_rows(60, N)
    want = _texts(coef, exps, scales)
    width = max(map(len, want))
    for limit in (NO_LIMIT, 20, 18):
        got = _both(0, N, coef, exps, scales, N * width + 8, width, limit, FILL)
        (result, buf, lengths), (result2, buf2, lengths2) = got["block"], got["rows"]
        too_long = [i for i, t in enumerate(want) if len(t) > limit]
        assert result2 == result == (result[0], too_long[0] if too_long else -1)
        np.testing.assert_array_equal(lengths2, lengths)
        np.testing.assert_array_equal(buf2[: N * width], buf[: N * width])


@pytest.mark.parametrize(
    "top", [0, 1, 9, 10, 99, 1000, 10**7 - 1, 10**7, 10**8 - 1, 10**8, 10**9 + 7, 10**16 - 1]
)
def test_int_part(top):
    """``_int_part``: the digit count, the word of the first digits and ``top // 10**8``,
    against Python's text of ``top``."""
    text = str(top)
    nt, word, hi = _row_kernels._int_part(np.uint64(top))
    first = text[:8] if len(text) <= 8 else text[: len(text) - 8]
    assert int(nt) == len(text)
    assert int(word).to_bytes(8, "little") == first.encode().ljust(8, b"\0")
    assert int(hi) == top // 10**8
