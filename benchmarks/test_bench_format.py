"""vecfix against the other ways of formatting prices, in one pytest-benchmark run.

Run ``python -m pytest benchmarks --benchmark-enable --benchmark-json=bench.json`` and
turn the JSON into a table with ``python benchmarks/report.py bench.json``. Without
``--benchmark-enable`` each benchmark runs once on small data, as a smoke test.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from conftest import (
    EXPONENT,
    MIXED_ROWS,
    PRICE9_WAYS,
    SCALE,
    SEED,
    SMOKE_ROWS,
    THREAD_ROWS,
    compare_text,
    decimal_loop,
    price9_mantissas,
)

import vecfix


@pytest.fixture(scope="module")
def vecfix_text(price9: np.ndarray) -> list[str]:
    """vecfix's text for the PRICE9 rows, which the other ways are compared with."""
    return vecfix.format_fixed(price9, EXPONENT, SCALE).to_list()


# --- A. group "price9-1M" ------------------------------------------------------------------


@pytest.mark.benchmark(group="price9-1M")
@pytest.mark.parametrize("name", list(PRICE9_WAYS))
def test_price9(benchmark, name: str, price9: np.ndarray, vecfix_text: list[str]) -> None:
    """One way of formatting the PRICE9 prices (or a sample of them) at scale 4."""
    way = PRICE9_WAYS[name]
    if way.needs:
        pytest.importorskip(way.needs)
    rows = min(way.sample or len(price9), len(price9))
    px = price9[:rows]
    result = benchmark(way.run, px)
    text = way.to_list(result)
    benchmark.extra_info.update(
        rows=rows, label=way.label, baseline=way.baseline, **compare_text(text, vecfix_text[:rows])
    )
    if name == "decimal":
        # The decimal loop is the independent reference: vecfix must agree with it.
        assert text == vecfix_text[:rows]


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


@pytest.fixture(scope="module")
def mixed(prices_tsv, enabled: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows resampled from the golden prices: per-row exponents and scales, all int64."""
    coef, exp, scale, expected = prices_tsv
    n = MIXED_ROWS if enabled else SMOKE_ROWS
    pick = np.random.default_rng(SEED).integers(0, len(coef), size=n)
    return coef[pick], exp[pick], scale[pick], expected[pick]


@pytest.mark.benchmark(group="mixed")
def test_mixed_uniform(benchmark, price9: np.ndarray, vecfix_text: list[str]) -> None:
    """The uniform case: PRICE9, one exponent and one scale for every row."""
    out = benchmark(vecfix.format_fixed, price9, EXPONENT, SCALE)
    assert out.to_list()[:100] == decimal_loop(price9[:100])
    benchmark.extra_info.update(
        rows=len(price9), label="uniform: PRICE9, exponent -9, scale 4", baseline=True
    )


@pytest.mark.benchmark(group="mixed")
def test_mixed_uniform_arrays(benchmark, price9: np.ndarray) -> None:
    """The uniform data, with exponents and scales passed as per-row arrays."""
    exps = np.full(len(price9), EXPONENT, dtype=np.int32)
    scales = np.full(len(price9), SCALE, dtype=np.int32)
    out = benchmark(vecfix.format_fixed, price9, exps, scales)
    assert out.to_list()[:100] == decimal_loop(price9[:100])
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
        rows=len(coef), label="mixed: resampled prices.tsv.gz, per-row exp/scale", baseline=False
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


@pytest.mark.benchmark(group="batch8")
def test_batch8_decimal(benchmark) -> None:
    """The same eight values through the decimal loop."""
    assert benchmark(decimal_loop, BATCH8) == BATCH8_TEXT
    benchmark.extra_info.update(rows=8, label="decimal loop, 8 values", baseline=False)


# --- D. group "threads" --------------------------------------------------------------------


@pytest.fixture(scope="module")
def price9_10m(enabled: bool) -> np.ndarray:
    if "threads" not in inspect.signature(vecfix.format_fixed).parameters:
        pytest.skip("vecfix.format_fixed has no threads= keyword")
    if not enabled:
        pytest.skip(f"{THREAD_ROWS:,} rows (~250 MB): only with --benchmark-enable")
    return price9_mantissas(THREAD_ROWS)


@pytest.mark.slow
@pytest.mark.benchmark(group="threads")
@pytest.mark.parametrize("threads", [1, 2])
def test_threads(benchmark, threads: int, price9_10m: np.ndarray) -> None:
    """10M PRICE9 rows with one thread and with two."""
    out = benchmark(vecfix.format_fixed, price9_10m, EXPONENT, SCALE, threads=threads)
    assert out.to_list()[-100:] == decimal_loop(price9_10m[-100:])
    benchmark.extra_info.update(
        rows=len(price9_10m), label=f"vecfix.format_fixed threads={threads}", baseline=threads == 1
    )
