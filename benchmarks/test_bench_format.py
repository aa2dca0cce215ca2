"""vecfix against the other ways of formatting prices, in one pytest-benchmark run.

Run ``python -m pytest benchmarks --benchmark-enable --benchmark-json=bench.json`` and
turn the JSON into a table with ``python benchmarks/report.py bench.json``. Without
``--benchmark-enable`` each benchmark runs once on small data, as a smoke test.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import vecfix

# Shared data and the comparison table come from conftest.py, as fixtures: ``way`` (one
# entry of conftest.PRICE9_WAYS), ``price9``, ``vecfix_text``, ``decimal_reference``,
# ``mixed`` and ``price9_10m``.
EXPONENT, SCALE = -9, 4


def compare_text(got: list[str], want: list[str]) -> dict[str, object]:
    """Agreement of ``got`` with vecfix's text ``want``, for ``extra_info``.

    Examples
    --------
    >>> compare_text(["1.0", "2.0"], ["1.0", "2.1"])
    {'same_text': False, 'mismatches': 1, 'first_mismatch': "row 1: '2.0' (vecfix '2.1')"}
    """
    bad = [i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
    info: dict[str, object] = {"same_text": not bad, "mismatches": len(bad)}
    if bad:
        i = bad[0]
        info["first_mismatch"] = f"row {i}: {got[i]!r} (vecfix {want[i]!r})"
    return info


# --- A. group "price9-1M" ------------------------------------------------------------------


@pytest.mark.benchmark(group="price9-1M")
def test_price9(benchmark, way, price9: np.ndarray, vecfix_text: list[str]) -> None:
    """One way of formatting the PRICE9 prices (or a sample of them) at scale 4."""
    if way.needs:
        pytest.importorskip(way.needs)
    rows = min(way.sample or len(price9), len(price9))
    px = price9[:rows]
    result = benchmark(way.run, px)
    text = way.to_list(result)
    benchmark.extra_info.update(
        rows=rows, label=way.label, baseline=way.baseline, **compare_text(text, vecfix_text[:rows])
    )
    if way.reference:
        assert text == vecfix_text[:rows], benchmark.extra_info["first_mismatch"]


@pytest.mark.benchmark(group="price9-1M")
def test_price9_memory_floor(benchmark, price9: np.ndarray) -> None:
    """The least any formatter into a byte matrix costs: allocate it and write every byte."""
    width = vecfix.format_fixed(price9[:1000], EXPONENT, SCALE).width

    def floor() -> np.ndarray:
        matrix = np.empty((len(price9), width), dtype=np.uint8)
        matrix.fill(48)
        return matrix

    matrix = benchmark(floor)
    assert matrix.shape == (len(price9), width) and bool((matrix == 48).all())
    benchmark.extra_info.update(
        rows=len(price9), label=f"memory floor: np.empty((n, {width})).fill(48)", baseline=False
    )


# --- B. group "mixed" ----------------------------------------------------------------------


@pytest.mark.benchmark(group="mixed")
def test_mixed_uniform(benchmark, price9: np.ndarray, decimal_reference: Callable) -> None:
    """The uniform case: PRICE9, one exponent and one scale for every row."""
    out = benchmark(vecfix.format_fixed, price9, EXPONENT, SCALE)
    assert out.to_list()[:100] == decimal_reference(price9[:100])
    benchmark.extra_info.update(
        rows=len(price9), label="uniform: PRICE9, exponent -9, scale 4", baseline=True
    )


@pytest.mark.benchmark(group="mixed")
def test_mixed_uniform_arrays(benchmark, price9: np.ndarray, decimal_reference: Callable) -> None:
    """The uniform data, with exponents and scales passed as per-row arrays."""
    exps = np.full(len(price9), EXPONENT, dtype=np.int32)
    scales = np.full(len(price9), SCALE, dtype=np.int32)
    out = benchmark(vecfix.format_fixed, price9, exps, scales)
    assert out.to_list()[:100] == decimal_reference(price9[:100])
    benchmark.extra_info.update(
        rows=len(price9), label="uniform data, exponents and scales as arrays", baseline=False
    )


@pytest.mark.benchmark(group="mixed")
def test_mixed(benchmark, mixed) -> None:
    """The realistic mix: rows of tests/data/prices.tsv.gz, per-row exponent and scale."""
    coef, exp, scale, expected = mixed
    out = benchmark(vecfix.format_fixed, coef, exp, scale)
    bad = np.flatnonzero(out.to_numpy() != expected)
    assert bad.size == 0, f"{bad.size} rows differ from the golden text, first row {bad[0]}"
    benchmark.extra_info.update(
        rows=len(coef), label="mixed: resampled prices.tsv.gz, per-row exp/scale", baseline=False,
        versus="test_mixed_one_layout_as_wide",
    )  # fmt: skip


@pytest.mark.benchmark(group="mixed")
def test_mixed_runs(benchmark, mixed) -> None:
    """The mix sorted by exponent and scale: per-row arrays in long runs of one layout (a
    table grouped by instrument); the target is 1.2x uniform (its ``versus``: the mix's
    coefficients at one layout, into a matrix as wide)."""
    coef, exp, scale, expected = mixed
    order = np.lexsort((scale, exp))
    coef, exp, scale, expected = coef[order], exp[order], scale[order], expected[order]
    out = benchmark(vecfix.format_fixed, coef, exp, scale)
    bad = np.flatnonzero(out.to_numpy() != expected)
    assert bad.size == 0, f"{bad.size} rows differ from the golden text, first row {bad[0]}"
    benchmark.extra_info.update(
        rows=len(coef), label="runs: the mix sorted by exponent and scale", baseline=False,
        versus="test_mixed_one_layout_as_wide",
    )  # fmt: skip


@pytest.mark.benchmark(group="mixed")
def test_mixed_runs_by_layout(benchmark, mixed) -> None:
    """The runs without per-row layouts: one ``format_fixed`` call a run, with its scalar
    exponent and scale, into its rows of one matrix as wide (``out=``). The same text as
    the per-row call, by the only other way vecfix has to print it: the uniform path's cost
    of these rows, their digits and widths as they are (its ``versus``: the per-row call)."""
    coef, exp, scale, expected = mixed
    order = np.lexsort((scale, exp))
    coef, exp, scale, expected = coef[order], exp[order], scale[order], expected[order]
    starts = np.flatnonzero(np.diff(exp, prepend=exp[0] - 1) | np.diff(scale, prepend=-1))
    runs = list(zip(starts.tolist(), [*starts[1:].tolist(), len(coef)], strict=True))
    out = np.empty((len(coef), vecfix.format_fixed(coef, exp, scale).matrix.shape[1]), np.uint8)

    def by_layout() -> np.ndarray:
        for a, b in runs:
            vecfix.format_fixed(coef[a:b], int(exp[a]), int(scale[a]), out=out[a:b])
        return out

    benchmark(by_layout)
    want = vecfix.format_fixed(coef, exp, scale)
    assert np.array_equal(out, want.matrix)
    bad = np.flatnonzero(want.to_numpy() != expected)
    assert bad.size == 0, f"{bad.size} rows differ from the golden text, first row {bad[0]}"
    benchmark.extra_info.update(
        rows=len(coef), label=f"runs, one uniform call a run ({len(runs)} calls, out=)",
        baseline=False, versus="test_mixed_runs",
    )  # fmt: skip


@pytest.mark.benchmark(group="mixed")
def test_mixed_one_layout(benchmark, mixed, decimal_reference: Callable) -> None:
    """The mix's coefficients under one exponent and scale: what their spread of digit
    counts (1 to 15) costs without per-row layouts, next to PRICE9's 14 digits."""
    coef = mixed[0]
    out = benchmark(vecfix.format_fixed, coef, EXPONENT, SCALE)
    want = decimal_reference(coef[:100])  # decimal keeps the sign of a zero; FIX text does not
    assert out.to_list()[:100] == [t.lstrip("-") if not t.strip("-0.") else t for t in want]
    benchmark.extra_info.update(
        rows=len(coef), label="the mix's coefficients, exponent -9, scale 4", baseline=False
    )


def one_layout_as_wide(benchmark, coef, exps, scales, decimal_reference, label) -> None:
    """Time ``coef`` under one exponent and scale (-9, 4) into a matrix as wide as under
    their own ``exps`` and ``scales`` (``width=``, found outside the timer): the uniform
    case of the same values and output size, which a per-row case is weighed against (its
    ``versus``)."""
    width = vecfix.format_fixed(coef, exps, scales).matrix.shape[1]
    out = benchmark(vecfix.format_fixed, coef, EXPONENT, SCALE, width=width)
    assert out.matrix.shape[1] == width
    want = decimal_reference(coef[:100])  # decimal keeps the sign of a zero; FIX text does not
    assert out.to_list()[:100] == [t.lstrip("-") if not t.strip("-0.") else t for t in want]
    benchmark.extra_info.update(rows=len(coef), label=label, baseline=False)


@pytest.mark.benchmark(group="mixed")
def test_mixed_one_layout_as_wide(benchmark, mixed, decimal_reference: Callable) -> None:
    """The mix's coefficients at one layout into a matrix as wide as the mix's (its widest
    row is 23 bytes, theirs at one layout 12), for the mix and its runs (the runs' target
    is 1.2x)."""
    coef, exp, scale, _ = mixed
    label = "the mix's coefficients, exponent -9, scale 4, as wide"
    one_layout_as_wide(benchmark, coef, exp, scale, decimal_reference, label)


@pytest.mark.benchmark(group="mixed")
def test_mixed_nulls(benchmark, price9: np.ndarray, decimal_reference: Callable) -> None:
    """The uniform case with every 100th row CME's null sentinel (``null=``)."""
    from vecfix._sample import PRICENULL9

    px = price9.copy()
    px[::100] = PRICENULL9
    out = benchmark(vecfix.format_fixed, px, EXPONENT, SCALE, null=PRICENULL9)
    text = out.to_list()
    assert text[0] is None and text[1:100] == decimal_reference(px[1:100])
    benchmark.extra_info.update(
        rows=len(px), label="uniform, every 100th row null (null=PRICENULL9)", baseline=False
    )


@pytest.mark.benchmark(group="mixed")
def test_mixed_snapshot(benchmark, snapshot, decimal_reference: Callable) -> None:
    """A snapshot table as feeds deliver it: rows grouped by instrument, each instrument
    at its tick's decimals (per-row scales in runs of one layout)."""
    coef, scales = snapshot
    out = benchmark(vecfix.format_fixed, coef, EXPONENT, scales)
    text = out.to_list()
    sample = np.random.default_rng(0).integers(0, len(coef), size=200)
    want = [decimal_reference(coef[i : i + 1], EXPONENT, int(scales[i]))[0] for i in sample]
    assert [text[i] for i in sample] == want
    benchmark.extra_info.update(
        rows=len(coef), label="snapshot: per-instrument scales, grouped by instrument",
        baseline=False, versus="test_mixed_snapshot_one_layout",
    )  # fmt: skip


@pytest.mark.benchmark(group="mixed")
def test_mixed_snapshot_one_layout(benchmark, snapshot, decimal_reference: Callable) -> None:
    """The snapshot's coefficients at one layout into a matrix as wide as the snapshot's,
    for the snapshot (target 1.2x)."""
    coef, scales = snapshot
    label = "the snapshot's coefficients, exponent -9, scale 4, as wide"
    one_layout_as_wide(benchmark, coef, EXPONENT, scales, decimal_reference, label)


# --- B2. group "mixed-cold": the same comparisons, on data fresh to the caches -----------

#: Bytes written between two timed calls of the "mixed-cold" group: more than the last
#: level cache (32 MB a CCD on the EPYC VMs measured here), so that a call finds its input
#: in memory, as a call on fresh data does.
EVICT_BYTES = 64 << 20
COLD_ROUNDS = 40
COLD_CASES = ["snapshot", "snapshot, one layout as wide", "runs", "runs, one layout as wide"]


@pytest.mark.benchmark(group="mixed-cold")
@pytest.mark.parametrize("case", COLD_CASES)
def test_mixed_cold(benchmark, enabled: bool, case: str, snapshot, mixed) -> None:
    """The snapshot and the runs against their coefficients at one layout into a matrix as
    wide, each call after :data:`EVICT_BYTES` of other memory traffic (not timed). The
    ``mixed`` group repeats a call back to back, so a uniform call's smaller working set
    (no exponents or scales) stays in the last-level cache from one call to the next; here
    every call reads its input from memory, as formatting new data does."""
    evict = np.zeros(EVICT_BYTES if enabled else 1 << 20, dtype=np.uint8)
    if case.startswith("snapshot"):
        coef, exps, scales = snapshot[0], EXPONENT, snapshot[1]
        expected = None
    else:
        coef, exps, scales, expected = mixed
        order = np.lexsort((scales, exps))
        coef, exps, scales, expected = coef[order], exps[order], scales[order], expected[order]
    width = vecfix.format_fixed(coef, exps, scales).matrix.shape[1]
    if case.endswith("as wide"):
        args, kwargs = (coef, EXPONENT, SCALE), {"width": width}
    else:
        args, kwargs = (coef, exps, scales), {}

    def setup() -> None:
        np.add(evict, 1, out=evict)  # every byte read and written

    out = benchmark.pedantic(vecfix.format_fixed, args, kwargs, setup=setup, rounds=COLD_ROUNDS)
    assert out.matrix.shape[1] == width
    if case.endswith("as wide"):
        assert out.to_list()[:50] == vecfix.format_fixed(coef[:50], EXPONENT, SCALE).to_list()
    elif expected is not None:
        bad = np.flatnonzero(out.to_numpy() != expected)
        assert bad.size == 0, f"{bad.size} rows differ from the golden text, first row {bad[0]}"
    else:
        sample = np.random.default_rng(1).integers(0, len(coef), size=200)
        text = out.to_list()
        assert [text[i] for i in sample] == [
            vecfix.format_fixed(coef[i : i + 1], EXPONENT, int(scales[i])).to_list()[0]
            for i in sample
        ]
    versus = (
        {}
        if case.endswith("as wide")
        else {"versus": f"test_mixed_cold[{case}, one layout as wide]"}
    )
    benchmark.extra_info.update(
        rows=len(coef), label=f"cold caches: {case}", baseline=False, **versus
    )


# --- C. group "batch8" ---------------------------------------------------------------------

BATCH8 = np.array(
    [5000_250000000, -4_000050000, 12_345678901, 99_999950000, 1, 0, -31_250000, 10**17],
    dtype=np.int64,
)
BATCH8_TEXT = [
    "5000.2500",
    "-4.0001",
    "12.3457",
    "100.0000",
    "0.0000",
    "0.0000",
    "-0.0313",
    "100000000.0000",
]


@pytest.mark.benchmark(group="batch8")
def test_batch8_vecfix(benchmark) -> None:
    """Per-call overhead: eight values through format_fixed."""
    out = benchmark(vecfix.format_fixed, BATCH8, EXPONENT, SCALE)
    assert out.to_list() == BATCH8_TEXT
    benchmark.extra_info.update(rows=8, label="vecfix.format_fixed, 8 values", baseline=True)


#: A scale a row: eight instruments' quotes, each at its own tick size.
BATCH8_SCALES = np.array([4, 2, 6, 0, 3, 1, 5, 2], dtype=np.int32)


@pytest.mark.benchmark(group="batch8")
def test_batch8_per_row_scales(benchmark, decimal_reference: Callable) -> None:
    """Eight values with a scale each (an int32 column): the call of a quote batch across
    instruments, which takes the general path's steps (measure, then fill)."""
    out = benchmark(vecfix.format_fixed, BATCH8, EXPONENT, BATCH8_SCALES)
    want = [
        decimal_reference(BATCH8[i : i + 1], EXPONENT, int(s))[0]
        for i, s in enumerate(BATCH8_SCALES)
    ]
    assert out.to_list() == want
    benchmark.extra_info.update(
        rows=8, label="vecfix.format_fixed, 8 values, a scale each", baseline=False
    )


@pytest.mark.benchmark(group="batch8")
def test_batch8_width(benchmark) -> None:
    """Eight values of one layout into a matrix of a given width (``width=``)."""
    out = benchmark(vecfix.format_fixed, BATCH8, EXPONENT, SCALE, width=16)
    assert out.to_list() == BATCH8_TEXT and out.matrix.shape == (8, 16)
    benchmark.extra_info.update(
        rows=8, label="vecfix.format_fixed, 8 values, width=16", baseline=False
    )


@pytest.mark.benchmark(group="batch8")
def test_batch8_null(benchmark) -> None:
    """Eight values of one layout, one of them null (a sentinel): a one-sided quote."""
    out = benchmark(vecfix.format_fixed, BATCH8, EXPONENT, SCALE, null=int(BATCH8[1]))
    assert out.to_list() == [None if i == 1 else t for i, t in enumerate(BATCH8_TEXT)]
    benchmark.extra_info.update(
        rows=8, label="vecfix.format_fixed, 8 values, a null (null=)", baseline=False
    )


@pytest.mark.benchmark(group="batch8")
def test_batch8_decimal(benchmark, decimal_reference: Callable) -> None:
    """The same eight values through the decimal loop."""
    assert benchmark(decimal_reference, BATCH8) == BATCH8_TEXT
    benchmark.extra_info.update(rows=8, label="decimal loop, 8 values", baseline=False)


# --- D. group "threads" --------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.benchmark(group="threads")
@pytest.mark.parametrize("threads", [1, 2])
def test_threads(
    benchmark, threads: int, price9_10m: np.ndarray, decimal_reference: Callable
) -> None:
    """10M PRICE9 rows with one thread and with two."""
    out = benchmark(vecfix.format_fixed, price9_10m, EXPONENT, SCALE, threads=threads)
    assert out.to_list()[-100:] == decimal_reference(price9_10m[-100:])
    benchmark.extra_info.update(
        rows=len(price9_10m), label=f"vecfix.format_fixed threads={threads}", baseline=threads == 1
    )


@pytest.mark.benchmark(group="threads-1M")
@pytest.mark.parametrize("threads", [1, 2, None], ids=["1", "2", "default"])
def test_threads_1m(benchmark, threads: int | None, price9: np.ndarray, vecfix_text: list) -> None:
    """1M PRICE9 rows with one thread, two, and the default (every usable core)."""
    out = benchmark(vecfix.format_fixed, price9, EXPONENT, SCALE, threads=threads)
    assert out.to_list() == vecfix_text
    label = f"vecfix.format_fixed threads={threads}, 1M rows"
    benchmark.extra_info.update(rows=len(price9), label=label, baseline=threads == 1)


@pytest.mark.benchmark(group="numba-versions")
def test_kernel_on_this_numba(benchmark, price9: np.ndarray, vecfix_text: list) -> None:
    """1M PRICE9 rows on one thread, labelled with the NumPy and Numba that ran them: run
    this group again on the oldest versions pyproject.toml allows (benchmarks/README.md)
    and ``report.py`` puts the two rows side by side."""
    import numba

    out = benchmark(vecfix.format_fixed, price9, EXPONENT, SCALE, threads=1)
    assert out.to_list() == vecfix_text
    label = f"format_fixed, 1 thread, numba {numba.__version__}, numpy {np.__version__}"
    benchmark.extra_info.update(rows=len(price9), label=label, baseline=False)


# --- E. group "per-tick" -------------------------------------------------------------------
# Issue 38: format_fixed of a tick's few values against a bare @njit call on the same array:
# a function of the user's own, compiled by Numba, that formats the array with vecfix's row
# writer and makes its own output (an (n, widest) matrix and the lengths), in one run.
# Target: format_fixed at most 2.5x the bare call. Beside them, the floor: the scalar-pass
# kernel format_fixed calls (format_few) into buffers made beforehand.

TICK8 = BATCH8  # eight PRICE9 values
TICK8_TEXT = ["5000.25", "-4.00", "12.35", "100.00", "0.00", "0.00", "-0.03", "100000000.00"]


def _bare_tick() -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    """The bare call: a plain ``@numba.njit`` function, as a user would write one, on
    vecfix's row writer (``_row_length``, ``_write_row``), its output made inside."""
    import numba

    from vecfix._kernels.rows import _row_length, _write_row

    @numba.njit
    def bare(coef, exponent, scale):
        n = coef.shape[0]
        lo, hi = coef.min(), coef.max()  # a row's length grows with |c|
        widest = max(_row_length(lo, exponent, scale), _row_length(hi, exponent, scale))
        matrix = np.empty((n, widest), np.uint8)
        lengths = np.empty(n, np.int32)
        flat = matrix.reshape(-1)
        for i in range(n):
            lengths[i] = _write_row(flat, i * widest, widest, coef[i], exponent, scale)
        return matrix, lengths

    return bare


@pytest.mark.benchmark(group="per-tick")
def test_tick8_format_fixed(benchmark) -> None:
    """format_fixed of 8 PRICE9 values at scale 2 (the kernels loaded, one thread)."""
    vecfix.warmup()
    out = benchmark(vecfix.format_fixed, TICK8, EXPONENT, 2)
    assert out.to_list() == TICK8_TEXT
    benchmark.extra_info.update(rows=8, label="vecfix.format_fixed, 8 PRICE9 values",
                                baseline=False, versus="test_tick8_bare_njit")  # fmt: skip


@pytest.mark.benchmark(group="per-tick")
def test_tick8_format_fixed_number_format(benchmark) -> None:
    """The same call with one NumberFormat (its null sentinel too), as a publisher holds it."""
    vecfix.warmup()
    price9 = vecfix.NumberFormat(EXPONENT, 2, null=2**63 - 1)
    out = benchmark(vecfix.format_fixed, TICK8, price9)
    assert out.to_list() == TICK8_TEXT
    benchmark.extra_info.update(rows=8, label="vecfix.format_fixed(px, PRICE9), 8 values",
                                baseline=False, versus="test_tick8_bare_njit")  # fmt: skip


@pytest.mark.benchmark(group="per-tick")
def test_tick8_bare_njit(benchmark) -> None:
    """The bare @njit call on the same array, its output made inside (the baseline)."""
    vecfix.warmup()
    bare = _bare_tick()
    bare(TICK8, EXPONENT, 2)  # compiled before it is timed
    matrix, lengths = benchmark(bare, TICK8, EXPONENT, 2)
    assert [bytes(row[:k]).decode() for row, k in zip(matrix, lengths, strict=True)] == TICK8_TEXT
    benchmark.extra_info.update(rows=8, label="bare @njit call, its output made inside",
                                baseline=True)  # fmt: skip


@pytest.mark.benchmark(group="per-tick")
def test_tick8_format_few_buffers_made_before(benchmark) -> None:
    """The floor: format_fixed's own kernel (format_few) on the same array, into buffers
    made beforehand (no output made, no result)."""
    vecfix.warmup()
    from vecfix._kernels.rows import format_few

    buf, lengths = np.zeros(8 * 64 + 8, np.uint8), np.zeros(8, np.int32)
    width = benchmark(format_few, TICK8, EXPONENT, 2, buf, lengths)
    assert bytes(buf[:width][: lengths[0]]) == b"5000.25"
    benchmark.extra_info.update(rows=8, label="format_few alone, buffers made before",
                                baseline=False)  # fmt: skip
