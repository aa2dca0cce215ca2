"""Benchmarks of the file path: ``vecfix format`` (:func:`vecfix.files.format_file`) against
polars' fastest exact lazy pipeline, on the three file jobs of the end-to-end issue.

Run them with::

    PYTHONPATH=$PWD python -m pytest benchmarks/test_bench_files.py --benchmark-enable

and at the issue's size (20M rows x 2 columns; ~1 GB of input files in the temporary
folder, a few minutes)::

    export VECFIX_BENCH_FILE_ROWS=20000000 VECFIX_BENCH_FILE_ROUNDS=3
    PYTHONPATH=$PWD python -m pytest benchmarks/test_bench_files.py --benchmark-enable

The input has :data:`ROWS` rows (``VECFIX_BENCH_FILE_ROWS``, default 1,000,000;
``VECFIX_BENCH_FILE_ROUNDS`` timed rounds, default 5) of two CME PRICE9 price columns
(int64 mantissas, exponent −9, 5% negative), formatted at scale 4. The input files are
written once per session, outside the timer (Parquet by pyarrow, snappy, row groups of
1M rows; CSV by pyarrow). Without ``--benchmark-enable`` each job runs once on
:data:`SMOKE_ROWS` rows and its output is compared, as a smoke test.

Groups (one per job; vecfix's default settings are the baseline of each):

``Parquet→Parquet``, ``Parquet→CSV``, ``CSV→Parquet``
    - ``vecfix``: ``format_file(src, dst, [ColumnSpec(c, 4, -9) ...])`` at its defaults:
      one formatting thread; Parquet output by polars' writer (``engine="auto"`` with
      polars installed), snappy, no min/max statistics (every column is formatted text);
      CSV output of formatted columns only by vecfix's own writer (``vecfix._csv``);
    - ``vecfix-pyarrow``: the same with ``engine="pyarrow"`` (Parquet output only), the
      writer used where polars is not installed;
    - ``vecfix-none``: ``compression="none"`` (Parquet output only);
    - ``polars-snappy``: polars' lazy pipeline writing the same file as vecfix: ``scan_*`` →
      ``(col.cast(Decimal(38, 0)) * Decimal("1e-9")).round(4,
      mode="half_away_from_zero").cast(Decimal(38, 4)).cast(String)`` → ``sink_*``
      (the fastest exact polars expression measured: 47 ns/value against 65 for
      ``cast(Decimal(38, 9)) / 10**9``), Parquet with snappy and ``statistics=False``
      like vecfix's; CSV at its defaults. **The like-for-like peer**;
    - ``polars-none``: the same with ``compression="uncompressed"``, beside ``vecfix-none``;
    - ``vecfix-lz4`` and ``polars-lz4``: both with ``compression="lz4"`` (the writer's
      CPU time about a third less than with snappy on random prices, the file 4% larger;
      a codec some older Parquet readers lack, so an option, not the default);
    - ``polars-default``: the pipeline at polars' own defaults (zstd, statistics), as a
      user would first write it (Parquet output only).

After the timed rounds each output is read back and its columns compared with vecfix's
(``same_text`` in ``extra_info``, asserted). ``extra_info["cpu_s"]`` is the process CPU
time of the last round (all threads): on a shared machine it moves less than wall time.
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

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROWS = int(os.environ.get("VECFIX_BENCH_FILE_ROWS", "1000000"))
ROUNDS = int(os.environ.get("VECFIX_BENCH_FILE_ROUNDS", "5"))
SMOKE_ROWS = 2_000
SEED = 20261129
COLUMNS = ("bid_px", "ask_px")
EXPONENT, SCALE = -9, 4
JOBS = {"Parquet→Parquet": ("parquet", "parquet"), "Parquet→CSV": ("parquet", "csv"),
        "CSV→Parquet": ("csv", "parquet")}  # fmt: skip


def price9(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    px = rng.integers(10**13, 10**14, size=n, dtype=np.int64)
    return np.where(rng.random(n) < 0.05, -px, px)


@pytest.fixture(scope="session")
def inputs(tmp_path_factory, enabled: bool) -> tuple[Path, int]:
    """``px.parquet`` and ``px.csv``: the same rows, written once, outside any timer."""
    n = ROWS if enabled else SMOKE_ROWS
    d = tmp_path_factory.mktemp("files")
    t = pa.table({c: price9(n, SEED + i) for i, c in enumerate(COLUMNS)})
    pq.write_table(t, d / "px.parquet")
    import pyarrow.csv as pacsv

    pacsv.write_csv(t, d / "px.csv")
    return d, n


def run_vecfix(src: Path, dst: Path, compression: str | None = None, engine: str = "auto") -> None:
    from vecfix.files import ColumnSpec, format_file

    specs = [ColumnSpec(c, SCALE, EXPONENT) for c in COLUMNS]
    format_file(src, dst, specs, compression=compression, progress=False, engine=engine)


def run_polars(
    src: Path, dst: Path, compression: str | None = None, statistics: bool = True
) -> None:
    import polars as pl

    if src.suffix == ".csv":
        lf = pl.scan_csv(src, schema_overrides=dict.fromkeys(COLUMNS, pl.Int64))
    else:
        lf = pl.scan_parquet(src)
    e9 = pl.lit(Decimal("1e-9"))
    lf = lf.with_columns(
        (pl.col(c).cast(pl.Decimal(38, 0)) * e9)
        .round(SCALE, mode="half_away_from_zero")
        .cast(pl.Decimal(38, SCALE))
        .cast(pl.String)
        for c in COLUMNS
    )
    if dst.suffix == ".csv":
        lf.sink_csv(dst)
    elif compression is None:
        lf.sink_parquet(dst, statistics=statistics)
    else:
        lf.sink_parquet(dst, compression=compression, statistics=statistics)


def read_text(path: Path) -> dict[str, Any]:
    """The formatted columns of an output file, as pyarrow ``string`` arrays."""
    if path.suffix == ".csv":
        import pyarrow.csv as pacsv

        types = dict.fromkeys(COLUMNS, pa.string())
        t = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(column_types=types))
    else:
        t = pq.read_table(path)
    return {c: t[c].cast(pa.string()).combine_chunks() for c in COLUMNS}


class Way(NamedTuple):
    label: str
    run: Callable[..., None]
    kwargs: dict
    needs: str | None = None  # an optional module it needs
    parquet_only: bool = False  # a Parquet writer's setting: Parquet output only


WAYS = {
    "vecfix": Way("vecfix format (Parquet: polars writer, snappy)", run_vecfix, {}),
    "vecfix-pyarrow": Way(
        "vecfix format --engine pyarrow (snappy)", run_vecfix, {"engine": "pyarrow"},
        parquet_only=True,
    ),
    "vecfix-none": Way(
        "vecfix format --compression none", run_vecfix, {"compression": "none"},
        parquet_only=True,
    ),
    "polars-snappy": Way(
        "polars lazy scan -> round -> cast -> sink (snappy, no statistics)", run_polars,
        {"compression": "snappy", "statistics": False}, "polars",
    ),
    "polars-none": Way(
        "polars lazy ... sink_parquet(compression='uncompressed', no statistics)", run_polars,
        {"compression": "uncompressed", "statistics": False}, "polars", True,
    ),
    "vecfix-lz4": Way(
        "vecfix format --compression lz4", run_vecfix, {"compression": "lz4"},
        parquet_only=True,
    ),
    "polars-lz4": Way(
        "polars lazy ... sink_parquet(compression='lz4', no statistics)", run_polars,
        {"compression": "lz4", "statistics": False}, "polars", True,
    ),
    "polars-default": Way(
        "polars lazy ... sink_parquet() at its defaults (zstd, statistics)", run_polars, {},
        "polars", True,
    ),
}  # fmt: skip


@pytest.mark.parametrize("engine", list(WAYS))
@pytest.mark.parametrize("job", list(JOBS))
def test_file_job(benchmark, inputs, job, engine):
    way = WAYS[engine]
    src_fmt, dst_fmt = JOBS[job]
    if way.parquet_only and dst_fmt != "parquet":
        pytest.skip("a Parquet writer's setting: Parquet output only")
    if way.needs:
        pytest.importorskip(way.needs)
    d, n = inputs
    benchmark.group = f"{job} {n:,} rows x 2"
    src = d / f"px.{src_fmt}"
    dst = d / f"out-{engine}-{job.replace('→', '-')}.{dst_fmt}"
    benchmark.extra_info.update(rows=2 * n, label=way.label, baseline=engine == "vecfix")
    cpu: list[float] = []

    def run() -> None:
        start = time.process_time()
        way.run(src, dst, **way.kwargs)
        cpu.append(time.process_time() - start)

    benchmark.extra_info["load_before"] = os.getloadavg()[0]
    benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1 if benchmark.enabled else 0)
    benchmark.extra_info.update(cpu_s=round(cpu[-1], 3), load_after=os.getloadavg()[0])
    # Same text as vecfix's own default run of the job, column by column.
    ours = d / f"check-{job.replace('→', '-')}.{dst_fmt}"
    if not ours.exists():
        run_vecfix(src, ours)
    got, want = read_text(dst), read_text(ours)
    import pyarrow.compute as pc

    assert all(len(got[c]) == len(want[c]) == n for c in COLUMNS)
    mismatches = sum(
        pc.sum(pc.fill_null(pc.not_equal(got[c], want[c]), True)).as_py() or 0 for c in COLUMNS
    )
    benchmark.extra_info.update(same_text=mismatches == 0, mismatches=mismatches)
    assert mismatches == 0


def test_vecfix_text_is_exact(inputs):
    """The check file itself against the decimal reference, on a sample of rows."""
    import decimal

    d, n = inputs
    out = d / "exact.parquet"
    run_vecfix(d / "px.parquet", out)
    got = read_text(out)
    src = pq.read_table(d / "px.parquet")
    rows = np.unique(np.linspace(0, n - 1, 500).astype(np.int64)).tolist()
    q = Decimal(1).scaleb(-SCALE)
    for c in COLUMNS:
        raw = src[c].to_numpy()
        for r in rows:
            want = Decimal(int(raw[r])).scaleb(EXPONENT).quantize(q, decimal.ROUND_HALF_UP)
            assert got[c][r].as_py() == format(want, "f"), (c, r)
