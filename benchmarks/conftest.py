"""Data, sizes and the comparison table shared by vecfix's benchmarks.

The benchmarks run only when asked (``--benchmark-enable``); without it pytest-benchmark
calls each one once, and this file shrinks every data set to :data:`SMOKE_ROWS` rows so
that ``python -m pytest benchmarks`` is a quick smoke test of the same code.

Every benchmark records in ``benchmark.extra_info``:

``rows``
    Values formatted per call; ``report.py`` divides the median time by it (ns/value).
``label``
    What the row of the report says.
``baseline``
    True for the benchmark the others in its group are compared with.
``same_text``, ``mismatches``, ``first_mismatch``
    Whether the output is byte for byte vecfix's text on the same rows (where that is
    checked), how many rows differ, and the first difference.
"""

from __future__ import annotations

import csv
import decimal
import gzip
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

SEED = 20261129
PRICE9_ROWS = 1_000_000
MIXED_ROWS = 1_000_000
THREAD_ROWS = 10_000_000
SMOKE_ROWS = 2_000
EXPONENT = -9
SCALE = 4
PRICES_TSV = Path(__file__).resolve().parent.parent / "tests" / "data" / "prices.tsv.gz"
VERSIONED = ("vecfix", "numpy", "numba", "pyarrow", "polars", "duckdb", "pytest-benchmark")


def price9_mantissas(n: int, seed: int = SEED) -> np.ndarray:
    """``n`` deterministic CME PRICE9 mantissas: 14-digit int64, 5% negative.

    With exponent -9 they are prices from 10000 to 99999.999999999, every row needing
    rounding at scale 4; the text is 10 bytes, 11 with the sign.
    """
    rng = np.random.default_rng(seed)
    px = rng.integers(10**13, 10**14, size=n, dtype=np.int64)
    return np.where(rng.random(n) < 0.05, -px, px)


def decimal_loop(px: np.ndarray, exponent: int = EXPONENT, scale: int = SCALE) -> list[str]:
    """The per-value ``decimal`` way: ``Decimal(c).scaleb(e).quantize(...)``, then ``'f'``."""
    q = decimal.Decimal(1).scaleb(-scale)
    half_up = decimal.ROUND_HALF_UP
    return [format(decimal.Decimal(int(c)).scaleb(exponent).quantize(q, half_up), "f") for c in px]


def fstring_floats(px: np.ndarray) -> list[str]:
    """The float way: divide by 1e9 and ``f"{x:.4f}"`` (binary floats, half to even)."""
    return [f"{x:.4f}" for x in (px / 1e9)]


def vecfix_price9(px: np.ndarray) -> object:
    """vecfix: ``format_fixed(px, -9, 4)``."""
    import vecfix

    return vecfix.format_fixed(px, EXPONENT, SCALE)


@dataclass(frozen=True)
class Way:
    """One way of turning PRICE9 mantissas into scale-4 text, as a benchmark runs it."""

    label: str
    run: Callable[[np.ndarray], object]
    to_list: Callable[[object], list[str]]
    sample: int | None = None  # rows per call, when not all of them (slow ways)
    needs: str | None = None  # optional module the way needs
    baseline: bool = False  # the way the others are compared with
    reference: bool = False  # an independent reference: vecfix must print its text


def _to_list(result: object) -> list[str]:
    return result if isinstance(result, list) else result.to_list()


#: Group "price9-1M": vecfix against the per-value ways (Python loops) on the same rows.
#: The columnar peers (DuckDB, polars, pyarrow) are in group "peers-1M"
#: (``test_bench_peers.py``), each reading an Arrow decimal column built before the timer.
#: Group "price9-1M": every way of formatting the same PRICE9 prices at scale 4.
PRICE9_WAYS: dict[str, Way] = {
    "vecfix": Way("vecfix.format_fixed", vecfix_price9, _to_list, baseline=True),
    "decimal": Way(
        "decimal loop (quantize, ROUND_HALF_UP)", decimal_loop, _to_list, 20_000, reference=True
    ),
    "fstring": Way('f"{x:.4f}" on px / 1e9 (floats)', fstring_floats, _to_list, 100_000),
}


def load_prices_tsv() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The golden vectors of ``tests/data/prices.tsv.gz``: coef, exp, scale, expected.

    ``expected`` is a NumPy bytes array, comparable with ``Formatted.to_numpy()``.
    """
    with gzip.open(PRICES_TSV, "rt", newline="") as f:
        reader = csv.reader(f, delimiter="\t")
        next(reader)
        rows = list(reader)
    coef = np.array([int(r[0]) for r in rows], dtype=np.int64)
    exp = np.array([int(r[1]) for r in rows], dtype=np.int32)
    scale = np.array([int(r[2]) for r in rows], dtype=np.int32)
    expected = np.array([r[3].encode("ascii") for r in rows])
    return coef, exp, scale, expected


def benchmarks_enabled(config: pytest.Config) -> bool:
    """Whether pytest-benchmark times the benchmarks (``--benchmark-enable``)."""
    return not config.getoption("benchmark_disable") or bool(config.getoption("benchmark_enable"))


@pytest.fixture(scope="session")
def enabled(request: pytest.FixtureRequest) -> bool:
    """True when timing; False in the smoke run, where every data set is small."""
    return benchmarks_enabled(request.config)


# test_bench_format.py gets all of this through fixtures, never ``from conftest import``:
# in a run that also loads tests/conftest.py, the module name "conftest" is ambiguous. For
# the same reason --doctest-modules must not import this file as a module of its own.
collect_ignore = ["conftest.py"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize a ``way`` argument with :data:`PRICE9_WAYS`, ids being their names."""
    if "way" in metafunc.fixturenames:
        metafunc.parametrize("way", list(PRICE9_WAYS.values()), ids=list(PRICE9_WAYS))


@pytest.fixture(scope="session")
def price9(enabled: bool) -> np.ndarray:
    """The PRICE9 mantissas of group "price9-1M" (and the uniform case of "mixed")."""
    return price9_mantissas(PRICE9_ROWS if enabled else SMOKE_ROWS)


@pytest.fixture(scope="session")
def vecfix_text(price9: np.ndarray) -> list[str]:
    """vecfix's text for the PRICE9 rows, which the other ways are compared with."""
    return _to_list(vecfix_price9(price9))


@pytest.fixture(scope="session")
def decimal_reference() -> Callable[..., list[str]]:
    """:func:`decimal_loop`, the independent reference vecfix is checked against."""
    return decimal_loop


@pytest.fixture(scope="session")
def mixed(enabled: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows resampled from tests/data/prices.tsv.gz: coef, exp, scale, expected text.

    Per-row exponents and scales, all coefficients int64.
    """
    coef, exp, scale, expected = load_prices_tsv()
    n = MIXED_ROWS if enabled else SMOKE_ROWS
    pick = np.random.default_rng(SEED).integers(0, len(coef), size=n)
    return coef[pick], exp[pick], scale[pick], expected[pick]


@pytest.fixture(scope="session")
def snapshot(enabled: bool) -> tuple[np.ndarray, np.ndarray]:
    """The demo's market-by-order snapshot (``vecfix demo``): PRICE9 mantissas and each
    row's scale (its instrument's tick decimals), rows grouped by instrument, no nulls."""
    from vecfix._sample import PRICENULL9, sample_snapshot

    snap = sample_snapshot(MIXED_ROWS if enabled else SMOKE_ROWS)
    keep = snap.price_e9 != PRICENULL9
    scales = snap.decimals[snap.instrument].astype(np.int32)
    return snap.price_e9[keep], scales[keep]


@pytest.fixture(scope="session")
def price9_10m(enabled: bool) -> np.ndarray:
    """10M PRICE9 mantissas for the threads group; skips where that group cannot run."""
    import vecfix

    if "threads" not in inspect.signature(vecfix.format_fixed).parameters:
        pytest.skip("vecfix.format_fixed has no threads= keyword")
    if not enabled:
        pytest.skip(f"{THREAD_ROWS:,} rows (~250 MB): only with --benchmark-enable")
    return price9_mantissas(THREAD_ROWS)


@pytest.fixture(scope="session", autouse=True)
def _warm_vecfix() -> None:
    """Compile (or load) the kernels before any timing."""
    import vecfix

    vecfix.warmup()


def pytest_benchmark_update_machine_info(config: pytest.Config, machine_info: dict) -> None:
    """Record library versions, usable cores and the command line in the JSON."""
    versions = {"python": sys.version.split()[0]}
    for name in VERSIONED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    machine_info["versions"] = versions
    if hasattr(os, "sched_getaffinity"):
        machine_info["usable_cores"] = len(os.sched_getaffinity(0))
    machine_info["argv"] = list(getattr(sys, "orig_argv", sys.argv))
    machine_info["pythonpath"] = os.environ.get("PYTHONPATH")
    machine_info["isa"] = cpu_isa()


def cpu_isa() -> str:
    """The instruction set Numba compiles for: ``AVX-512``, ``AVX2`` or ``SSE2 (generic)``,
    with LLVM's CPU name (``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES`` change it).

    Examples
    --------
    >>> cpu_isa().split()[0] in {"AVX-512", "AVX2", "SSE2", "other"}
    True
    """
    import numba
    from llvmlite import binding

    name = numba.config.CPU_NAME or binding.get_host_cpu_name()
    features = numba.config.CPU_FEATURES
    if features is None:
        features = binding.get_host_cpu_features().flatten() if name != "generic" else ""
    if "+avx512f" in features:
        isa = "AVX-512"
    elif "+avx2" in features:
        isa = "AVX2"
    elif name == "generic" or "+sse2" in features:
        isa = "SSE2"
    else:
        isa = "other"
    return f"{isa} ({name})"
