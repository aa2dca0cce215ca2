"""Benchmarks of the file job: ``vecfix format`` (:func:`vecfix.files.format_file`) against
polars' fastest exact lazy pipeline, a plain polars copy of the same file, and DuckDB, on
a market-data snapshot.

Run them with::

    PYTHONPATH=$PWD python -m pytest benchmarks/test_bench_files.py --benchmark-enable

and at the issue's size (20M rows; ~1.3 GB of input files in the temporary folder)::

    export VECFIX_BENCH_FILE_ROWS=20000000 VECFIX_BENCH_FILE_ROUNDS=3
    PYTHONPATH=$PWD python -m pytest benchmarks/test_bench_files.py --benchmark-enable

The input (:func:`snapshot`) has :data:`ROWS` rows (``VECFIX_BENCH_FILE_ROWS``, default
1,000,000; ``VECFIX_BENCH_FILE_ROUNDS`` timed rounds, default 5) of five columns: ``symbol``
(300 instruments, text), ``ts`` (int64 nanoseconds), ``bid_px`` and ``ask_px`` (CME PRICE9:
int64 mantissas of 14 digits, exponent −9, 5% negative) and ``size`` (int64); the two price
columns are printed at scale 2. It is written once per session, outside the timer: Parquet
by polars (snappy, row groups of 1M rows) and CSV by polars. Without
``--benchmark-enable`` each job runs once on :data:`SMOKE_ROWS` rows and its output is
checked, as a smoke test. Every way runs on polars' threads (``POLARS_MAX_THREADS``, all
cores by default; DuckDB is given as many), named in the group: run again under
``POLARS_MAX_THREADS=1`` for the one-thread groups.

Groups, one per job (``Parquet→CSV``, ``Parquet→Parquet``, ``CSV→Parquet``); every way
writes the same file (Parquet: snappy, statistics, row groups of 1,048,576 rows, as
``vecfix format`` writes; a CSV input's other columns read as text, its price columns as
int64, as ``vecfix format`` reads them):

- ``vecfix``: ``format_file(src, dst, [ColumnSpec(c, NumberFormat(-9, 2)) ...])``, which
  is one polars lazy query with vecfix's expression in it (the baseline);
- ``namespace``: that query written by hand, ``scan_*(src).with_columns(pl.col(c).vecfix
  .fixed(exponent=-9, scale=2) ...).sink_*(dst)``: what ``vecfix format`` adds to it;
- ``polars-exact``: polars' fastest exact expression for any int64 mantissa,
  ``(col.cast(Decimal(38, 0)) * Decimal("1e-9")).round(2, mode="half_away_from_zero")
  .cast(Decimal(38, 2)).cast(String)``;
- ``polars-exact-18``: the same through ``Decimal(18, ...)``, faster, exact only while
  every mantissa has at most 18 digits (these do; int64's 19th digit overflows it);
- ``polars-copy``: ``scan_*(src).sink_*(dst)``, nothing formatted: the cost of moving the
  file, the floor of the job;
- ``duckdb``: ``COPY (SELECT ..., CAST(ROUND(CAST(px AS DECIMAL(18, 0)) *
  0.000000001::DECIMAL(10, 9), 2) AS VARCHAR) ...) TO dst`` (skipped when duckdb is not
  installed).

After the timed rounds each output is read back: its formatted columns must equal
vecfix's (``same_text``), the other columns the input's, and a CSV output's bytes
polars-exact's (the same columns through polars' writer). ``extra_info["cpu_s"]`` is the
process CPU time of the last round (all threads).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

pl = pytest.importorskip("polars")

ROWS = int(os.environ.get("VECFIX_BENCH_FILE_ROWS", "1000000"))
ROUNDS = int(os.environ.get("VECFIX_BENCH_FILE_ROUNDS", "5"))
SMOKE_ROWS = 2_000
SEED = 20261129
PRICES = ("bid_px", "ask_px")
EXPONENT, SCALE = -9, 2
ROW_GROUP = 1 << 20
#: polars' threads (``POLARS_MAX_THREADS``, fixed at its import); DuckDB is given as many.
THREADS = pl.thread_pool_size()
JOBS = {"Parquet→CSV": ("parquet", "csv"), "Parquet→Parquet": ("parquet", "parquet"),
        "CSV→Parquet": ("csv", "parquet")}  # fmt: skip


def snapshot(n: int, seed: int = SEED) -> Any:
    """``n`` rows of a market-data snapshot: symbol, ts, two PRICE9 prices, size."""
    rng = np.random.default_rng(seed)
    symbols = np.array([f"S{i:03d}" for i in range(300)])
    cols: dict[str, Any] = {
        "symbol": symbols[rng.integers(0, 300, n)],
        "ts": 1_733_000_000_000_000_000 + np.arange(n, dtype=np.int64) * 1_000,
    }
    for price in PRICES:
        px = rng.integers(10**13, 10**14, size=n, dtype=np.int64)
        cols[price] = np.where(rng.random(n) < 0.05, -px, px)
    cols["size"] = rng.integers(1, 10_000, size=n, dtype=np.int64)
    return pl.DataFrame(cols)


@pytest.fixture(scope="session")
def inputs(tmp_path_factory, enabled: bool) -> tuple[Path, int]:
    """``snap.parquet`` and ``snap.csv``: the same rows, written once, outside any timer."""
    n = ROWS if enabled else SMOKE_ROWS
    d = tmp_path_factory.mktemp("files")
    frame = snapshot(n)
    frame.write_parquet(d / "snap.parquet", compression="snappy", row_group_size=ROW_GROUP)
    frame.write_csv(d / "snap.csv")
    return d, n


def scan(src: Path) -> Any:
    if src.suffix == ".csv":  # as vecfix format reads a CSV: prices int64, the rest text
        return pl.scan_csv(
            src, infer_schema=False, schema_overrides=dict.fromkeys(PRICES, pl.Int64)
        )
    return pl.scan_parquet(src)


def sink(lf: Any, dst: Path) -> None:
    if dst.suffix == ".csv":
        lf.sink_csv(dst)
    else:
        lf.sink_parquet(dst, compression="snappy", statistics=True, row_group_size=ROW_GROUP)


def run_vecfix(src: Path, dst: Path) -> None:
    from vecfix import NumberFormat
    from vecfix.files import ColumnSpec, format_file

    specs = [ColumnSpec(c, NumberFormat(EXPONENT, SCALE)) for c in PRICES]
    format_file(src, dst, specs, progress=False)


def run_namespace(src: Path, dst: Path) -> None:
    import vecfix.polars  # noqa: F401

    sink(scan(src).with_columns(pl.col(c).vecfix.fixed(exponent=EXPONENT, scale=SCALE)
                                for c in PRICES), dst)  # fmt: skip


def run_polars(src: Path, dst: Path, precision: int = 38) -> None:
    e9 = pl.lit(Decimal("1e-9"))
    sink(scan(src).with_columns(
        (pl.col(c).cast(pl.Decimal(precision, 0)) * e9)
        .round(SCALE, mode="half_away_from_zero")
        .cast(pl.Decimal(precision, SCALE))
        .cast(pl.String)
        for c in PRICES
    ), dst)  # fmt: skip


def run_copy(src: Path, dst: Path) -> None:
    sink(scan(src), dst)


def run_duckdb(src: Path, dst: Path) -> None:
    import duckdb

    read = f"read_csv('{src}', header=true, all_varchar=true)" if src.suffix == ".csv" else (
        f"read_parquet('{src}')")  # fmt: skip
    text = ", ".join(
        f"CAST(ROUND(CAST({c} AS DECIMAL(18, 0)) * 0.000000001::DECIMAL(10, 9), {SCALE})"
        f" AS VARCHAR) AS {c}"
        for c in PRICES
    )
    to = "(FORMAT csv, HEADER)" if dst.suffix == ".csv" else (
        f"(FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE {ROW_GROUP})")  # fmt: skip
    with duckdb.connect() as con:
        con.sql(f"SET threads TO {THREADS}")
        con.sql(f"COPY (SELECT symbol, ts, {text}, size FROM {read}) TO '{dst}' {to}")


class Way(NamedTuple):
    label: str
    run: Callable[[Path, Path], None]
    needs: str | None = None


WAYS = {
    "vecfix": Way("vecfix format (one polars query)", run_vecfix),
    "namespace": Way("polars scan -> pl.col(c).vecfix.fixed(-9, 2) -> sink", run_namespace),
    "polars-exact": Way(
        "polars scan -> (cast(Decimal(38, 0)) * 1e-9).round(2, half_away_from_zero)"
        " -> cast(String) -> sink",
        run_polars,
    ),
    "polars-exact-18": Way(
        "polars, the same through Decimal(18, ...) (exact below 10**18 only)",
        lambda src, dst: run_polars(src, dst, 18),
    ),
    "polars-copy": Way("polars scan -> sink, nothing formatted (a plain copy)", run_copy),
    "duckdb": Way(
        "DuckDB COPY (SELECT ... CAST(ROUND(decimal, 2) AS VARCHAR)) TO", run_duckdb, "duckdb"
    ),
}


@pytest.mark.parametrize("how", list(WAYS))
@pytest.mark.parametrize("job", list(JOBS))
def test_file_job(benchmark, inputs, job, how):
    spec = WAYS[how]
    if spec.needs:
        pytest.importorskip(spec.needs)
    d, n = inputs
    src_fmt, dst_fmt = JOBS[job]
    benchmark.group = f"{job} {n:,} rows, {THREADS} thread(s)"
    src = d / f"snap.{src_fmt}"
    dst = d / f"out-{how}-{job.replace('→', '-')}.{dst_fmt}"
    benchmark.extra_info.update(rows=2 * n, label=spec.label, baseline=how == "vecfix")
    cpu: list[float] = []

    def run() -> None:
        start = time.process_time()
        spec.run(src, dst)
        cpu.append(time.process_time() - start)

    benchmark.extra_info["load_before"] = os.getloadavg()[0]
    benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1 if benchmark.enabled else 0)
    benchmark.extra_info.update(cpu_s=round(cpu[-1], 3), load_after=os.getloadavg()[0])
    if how == "polars-copy":
        return
    check_output(d, job, dst, how, benchmark.extra_info)


def read_back(path: Path) -> Any:
    if path.suffix == ".csv":
        return pl.read_csv(path, infer_schema=False)
    return pl.read_parquet(path).with_columns(pl.col(pl.String).cast(pl.String))


def check_output(d: Path, job: str, dst: Path, way: str, info: dict) -> None:
    """The formatted columns equal vecfix's (and the decimal reference's, on a sample),
    the other columns the input's; a CSV's bytes equal polars-exact's."""
    ours = d / f"check-{job.replace('→', '-')}{dst.suffix}"
    if not ours.exists():
        run_vecfix(d / f"snap.{JOBS[job][0]}", ours)
    got, want = read_back(dst), read_back(ours)
    mismatches = sum(int((got[c] != want[c]).sum()) for c in PRICES)
    info.update(same_text=mismatches == 0, mismatches=mismatches)
    assert mismatches == 0 and got.columns == want.columns
    raw = read_back(d / "snap.csv")  # the input's other columns, as text
    for c in ("symbol", "ts", "size"):
        assert got[c].cast(pl.String).equals(raw[c]), c
    if dst.suffix == ".csv" and way == "polars-exact":
        assert dst.read_bytes() == ours.read_bytes()  # polars' own writer, the same bytes


def test_vecfix_text_is_exact(inputs):
    """vecfix's text against the decimal reference, on a sample of rows."""
    import decimal

    d, n = inputs
    out = d / "exact.parquet"
    run_vecfix(d / "snap.parquet", out)
    got = pl.read_parquet(out)
    src = pl.read_parquet(d / "snap.parquet")
    rows = np.unique(np.linspace(0, n - 1, 500).astype(np.int64)).tolist()
    q = Decimal(1).scaleb(-SCALE)
    for c in PRICES:
        for r in rows:
            want = Decimal(int(src[c][r])).scaleb(EXPONENT).quantize(q, decimal.ROUND_HALF_UP)
            assert got[c][r] == format(want, "f"), (c, r)
