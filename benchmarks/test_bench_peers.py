"""vecfix against the columnar engines, each on its fastest exact path, in one run.

Group ``peers-1M``: 1M CME PRICE9 mantissas (exponent -9) printed at scale 4. The peers read
an Arrow ``decimal128(18, 9)`` column built from the int64 buffer *before* the timer (the
mantissas widened with their sign words and wrapped with ``pa.Array.from_buffers``; polars
takes it with ``pl.from_arrow``, 0.25 ns/value), so no peer pays for building its input:

- DuckDB: ``CAST(ROUND(px, 4) AS VARCHAR)`` over the Arrow table, result as Arrow;
- polars: ``round(4, mode="half_away_from_zero")`` → ``Decimal(18, 4)`` → ``String``;
- pyarrow.compute: ``round(ndigits=4, round_mode="half_towards_infinity")`` →
  ``decimal128(18, 4)`` → ``string``;

each at its default thread count and at one thread (polars fixes its pool when imported:
run this file a second time under ``POLARS_MAX_THREADS=1`` for its one-thread row, see
benchmarks/README.md). vecfix is timed from the int64 mantissas to the byte matrix (the
baseline), with ``threads=None`` (every core), and to a finished Arrow array, polars Series
and pandas Series. Every peer's text is compared with vecfix's on all rows.

Run::

    python -m pytest benchmarks/test_bench_peers.py --benchmark-enable --benchmark-json=peers.json
"""

from __future__ import annotations

import numpy as np
import pytest

import vecfix
from vecfix._plan import usable_cores

EXPONENT, SCALE = -9, 4
GROUP = "peers-1M"


def arrow_decimal(px: np.ndarray) -> object:
    """``px`` as an Arrow ``decimal128(18, 9)`` array: the int64 mantissas with their sign
    words as the 16-byte little-endian values, wrapped without a further copy."""
    import pyarrow as pa

    wide = np.empty((len(px), 2), dtype=np.int64)
    wide[:, 0] = px
    wide[:, 1] = px >> 63
    return pa.Array.from_buffers(pa.decimal128(18, 9), len(px), [None, pa.py_buffer(wide)])


def record(benchmark, rows: int, label: str, got: list[str], want: list[str], **info) -> None:
    """Fill ``extra_info`` as report.py reads it, with the text compared on every row."""
    bad = [i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
    benchmark.extra_info.update(rows=rows, label=label, same_text=not bad, mismatches=len(bad))
    if bad:
        i = bad[0]
        benchmark.extra_info["first_mismatch"] = f"row {i}: {got[i]!r} (vecfix {want[i]!r})"
    benchmark.extra_info.update(info)


@pytest.fixture(scope="module")
def decimal_px(price9: np.ndarray) -> object:
    pytest.importorskip("pyarrow")
    return arrow_decimal(price9)


# --- vecfix --------------------------------------------------------------------------------


@pytest.mark.benchmark(group=GROUP)
def test_vecfix_matrix(benchmark, price9: np.ndarray, vecfix_text: list[str]) -> None:
    out = benchmark(vecfix.format_fixed, price9, EXPONENT, SCALE, threads=1)
    record(benchmark, len(price9), "vecfix: byte matrix, 1 thread", out.to_list(), vecfix_text,
           baseline=True)  # fmt: skip


@pytest.mark.benchmark(group=GROUP)
def test_vecfix_matrix_all_cores(benchmark, price9: np.ndarray, vecfix_text: list[str]) -> None:
    out = benchmark(vecfix.format_fixed, price9, EXPONENT, SCALE, threads=None)
    label = f"vecfix: byte matrix, threads=None ({usable_cores()} cores)"
    record(benchmark, len(price9), label, out.to_list(), vecfix_text)


#: A finished column of each library: the method, the module it needs, its rows as a list.
OUTPUTS = {
    "to_arrow": ("pyarrow", lambda a: a.to_pylist()),
    "to_polars": ("polars", lambda s: s.to_list()),
    "to_pandas": ("pandas", lambda s: s.tolist()),
}


@pytest.mark.parametrize("threads", [1, None], ids=["1-thread", "all-cores"])
@pytest.mark.parametrize("layout", ["matrix", "arrow", "string_view"])
@pytest.mark.parametrize("method", list(OUTPUTS))
@pytest.mark.benchmark(group=GROUP)
def test_vecfix_to_a_column(
    benchmark,
    method: str,
    layout: str,
    threads: int | None,
    price9: np.ndarray,
    vecfix_text: list[str],
) -> None:
    """A finished Arrow, polars or pandas column, from the byte matrix or from the Arrow
    layout the kernels write with ``layout="arrow"``."""
    needs, rows_of = OUTPUTS[method]
    pytest.importorskip(needs)

    def column() -> object:
        out = vecfix.format_fixed(price9, EXPONENT, SCALE, threads=threads, layout=layout)
        return getattr(out, method)()

    result = benchmark(column)
    cores = "threads=1" if threads == 1 else f"threads=None ({usable_cores()} cores)"
    label = f'vecfix: format_fixed(..., {cores}, layout="{layout}").{method}()'
    record(benchmark, len(price9), label, rows_of(result), vecfix_text)


@pytest.mark.parametrize("threads", [1, None], ids=["1-thread", "all-cores"])
@pytest.mark.benchmark(group=GROUP)
def test_vecfix_polars_namespace(
    benchmark, threads: int | None, price9: np.ndarray, vecfix_text: list[str]
) -> None:
    """A polars ``String`` Series through the polars namespace (what ``vecfix format``
    hands polars' Parquet writer too): the kernels write polars' ``string_view`` records
    themselves, with no byte matrix (``layout="string_view"``)."""
    pl = pytest.importorskip("polars")
    import vecfix.polars  # noqa: F401  (registers the namespace)

    series = pl.Series("px", price9)  # built outside the timer, as the peers' input is
    result = benchmark(series.vecfix.fixed, exponent=EXPONENT, scale=SCALE, threads=threads)
    cores = "threads=1" if threads == 1 else f"threads=None ({usable_cores()} cores)"
    label = f"vecfix: pl.Series.vecfix.fixed(..., {cores}): polars String"
    record(benchmark, len(price9), label, result.to_list(), vecfix_text)


# --- DuckDB --------------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [None, 1], ids=["default-threads", "1-thread"])
@pytest.mark.benchmark(group=GROUP)
def test_duckdb(benchmark, decimal_px, vecfix_text: list[str], threads: int | None) -> None:
    duckdb = pytest.importorskip("duckdb")
    import pyarrow as pa

    con = duckdb.connect()
    if threads is not None:
        con.execute(f"SET threads = {threads}")
    used = con.sql("SELECT current_setting('threads')").fetchall()[0][0]
    table = pa.table({"px": decimal_px})
    con.register("quotes", table)
    query = f"SELECT CAST(ROUND(px, {SCALE}) AS VARCHAR) AS px FROM quotes"
    result = benchmark(lambda: con.sql(query).to_arrow_table())
    label = f"DuckDB CAST(ROUND(px, 4) AS VARCHAR), Arrow decimal in/out, {used} thread(s)"
    record(benchmark, len(decimal_px), label, result.column(0).to_pylist(), vecfix_text)


# --- polars --------------------------------------------------------------------------------


@pytest.mark.benchmark(group=GROUP)
def test_polars(benchmark, decimal_px, vecfix_text: list[str]) -> None:
    pl = pytest.importorskip("polars")
    s = pl.from_arrow(decimal_px)

    def run() -> object:
        rounded = s.round(SCALE, mode="half_away_from_zero")
        return rounded.cast(pl.Decimal(18, SCALE)).cast(pl.String)

    result = benchmark(run)
    label = f"polars round(half_away_from_zero) + cast, {pl.thread_pool_size()} thread(s)"
    record(benchmark, len(decimal_px), label, result.to_list(), vecfix_text)


# --- pyarrow -------------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [None, 1], ids=["default-threads", "1-thread"])
@pytest.mark.benchmark(group=GROUP)
def test_pyarrow(benchmark, decimal_px, vecfix_text: list[str], threads: int | None) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.compute as pc

    before = pa.cpu_count()
    if threads is not None:
        pa.set_cpu_count(threads)
    try:

        def run() -> object:
            rounded = pc.round(decimal_px, ndigits=SCALE, round_mode="half_towards_infinity")
            return rounded.cast(pa.decimal128(18, SCALE)).cast(pa.string())

        result = benchmark(run)
        label = f"pyarrow round + cast, {pa.cpu_count()} thread(s)"
    finally:
        pa.set_cpu_count(before)
    record(benchmark, len(decimal_px), label, result.to_pylist(), vecfix_text)
