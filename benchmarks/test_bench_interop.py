"""Benchmarks for getting text out (``to_arrow``) and decimal text in (the parser).

Run them with::

    PYTHONPATH=$PWD python -m pytest benchmarks/test_bench_interop.py --benchmark-enable

Each benchmark records ``rows``, ``label`` and ``baseline`` in ``benchmark.extra_info``
(ns/value = median / rows). Without ``--benchmark-enable`` each runs once on
:data:`SMOKE_ROWS` rows, as a quick smoke test.

Groups:

``to_arrow``
    1M formatted PRICE9 prices (scale 4) to a ``pyarrow.StringArray``: vecfix's compacting
    kernel against ``pa.array`` of the same rows as a list of Python ``str`` (given the
    list, and with ``to_list()`` included).
``parse``
    1M decimal strings (PRICE9 prices with 4 decimals, crypto quantities with 8) to
    coefficients and exponents, from a NumPy ``S`` array, an Arrow string array and a list
    of ``str``, against ``[Decimal(s) for s in texts]``.
``text-to-text``
    The whole trip: Arrow decimal text in, rounded Arrow text out.
"""

from __future__ import annotations

import decimal

import numpy as np
import pytest

from vecfix import format_fixed, parse_decimal_text

pa = pytest.importorskip("pyarrow")

FULL_ROWS = 1_000_000
SMOKE_ROWS = 2_000
SEED = 20261129


def _rows(benchmark) -> int:
    return SMOKE_ROWS if benchmark.disabled else FULL_ROWS


def price9(n: int) -> np.ndarray:
    """``n`` PRICE9 mantissas, 10000 to 99999.999999999, 5% negative."""
    rng = np.random.default_rng(SEED)
    px = rng.integers(10**13, 10**14, size=n, dtype=np.int64)
    return np.where(rng.random(n) < 0.05, -px, px)


def venue_text(n: int) -> list[str]:
    """Half prices with 4 decimals (``"-12345.6789"``), half crypto sizes (``"0.00100000"``)."""
    rng = np.random.default_rng(SEED + 1)
    prices = format_fixed(price9(n // 2), -9, 4).to_list()
    sizes = format_fixed(rng.integers(1, 10**9, size=n - n // 2), -8, 8).to_list()
    texts = prices + sizes
    rng.shuffle(texts)
    return texts


def record(benchmark, rows: int, label: str, baseline: bool = False) -> None:
    benchmark.extra_info.update(rows=rows, label=label, baseline=baseline)


# --------------------------------------------------------------------------- to_arrow


@pytest.fixture
def formatted(benchmark):
    return format_fixed(price9(_rows(benchmark)), -9, 4)


@pytest.mark.benchmark(group="to_arrow")
def test_to_arrow_vecfix(benchmark, formatted):
    record(benchmark, len(formatted), "Formatted.to_arrow()")
    arr = benchmark(formatted.to_arrow)
    assert arr.to_pylist()[:100] == formatted.to_list()[:100]


@pytest.mark.benchmark(group="to_arrow")
def test_to_arrow_from_list_of_str(benchmark, formatted):
    texts = formatted.to_list()
    record(benchmark, len(texts), "pa.array(list_of_str), list given", baseline=True)
    benchmark(pa.array, texts, pa.string())


@pytest.mark.benchmark(group="to_arrow")
def test_to_arrow_via_to_list(benchmark, formatted):
    record(benchmark, len(formatted), "pa.array(out.to_list())")
    benchmark(lambda: pa.array(formatted.to_list(), pa.string()))


# ----------------------------------------------------------------------------- parse


@pytest.fixture
def texts(benchmark):
    return venue_text(_rows(benchmark))


@pytest.mark.benchmark(group="parse")
def test_parse_numpy_bytes(benchmark, texts):
    arr = np.array(texts, dtype="S")
    record(benchmark, len(texts), "parse_decimal_text(S array)")
    col = benchmark(parse_decimal_text, arr)
    assert decimal.Decimal(f"{col.coefficients[0]}e{col.exponents[0]}") == decimal.Decimal(texts[0])


@pytest.mark.benchmark(group="parse")
def test_parse_arrow_strings(benchmark, texts):
    arr = pa.array(texts, pa.string())
    record(benchmark, len(texts), "parse_decimal_text(pa.StringArray)")
    benchmark(parse_decimal_text, arr)


@pytest.mark.benchmark(group="parse")
def test_parse_list_of_str(benchmark, texts):
    record(benchmark, len(texts), "parse_decimal_text(list_of_str)")
    benchmark(parse_decimal_text, texts)


@pytest.mark.benchmark(group="parse")
def test_parse_decimal_loop(benchmark, texts):
    record(benchmark, len(texts), "[Decimal(s) for s in list_of_str]", baseline=True)
    benchmark(lambda: [decimal.Decimal(s) for s in texts])


# ---------------------------------------------------------------------- text to text


@pytest.mark.benchmark(group="text-to-text")
def test_arrow_text_round_to_arrow_text(benchmark, texts):
    arr = pa.array(texts, pa.string())
    record(benchmark, len(texts), "format_fixed(pa text, scale=2).to_arrow()")
    benchmark(lambda: format_fixed(arr, scale=2).to_arrow())


@pytest.mark.benchmark(group="text-to-text")
def test_decimal_quantize_loop(benchmark, texts):
    q = decimal.Decimal("0.01")
    half_up = decimal.ROUND_HALF_UP

    def loop():
        out = [format(decimal.Decimal(s).quantize(q, half_up), "f") for s in texts]
        return pa.array(out, pa.string())

    record(benchmark, len(texts), "Decimal(s).quantize() loop + pa.array", baseline=True)
    benchmark(loop)
