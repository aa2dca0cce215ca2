"""Where the file job's time goes: ``vecfix format`` (:func:`vecfix.files.format_file`)
beside the same job with one piece taken away, its query alone, the namespace query,
polars' exact pipeline and a plain copy, interleaved round by round in one process (best
of ``--rounds``, wall and process CPU seconds, ratios to ``vecfix``).

The ways:

* ``vecfix``: the job as shipped;
* ``vecfix-nofsync``: the same with ``os.fsync`` a no-op: what flushing the output to
  disk before it replaces the old file costs (:func:`vecfix._io.atomic_path`);
* ``vecfix-writer-quotes``: CSV quoting left to polars' writer (``"necessary"``, which
  looks into every text value, the formatted ones too) instead of done in the query;
* ``vecfix-query``: the job's lazy query (row index, vecfix's batches, CSV quoting) sunk
  by hand: no input checks, progress, temporary file, fsync or rename;
* ``namespace``: ``scan -> with_columns(pl.col(c).vecfix.fixed(-9, 2)) -> sink``;
* ``polars-exact``, ``polars-copy``: as in ``test_bench_files.py``.

Usage (the input from :func:`test_bench_files.snapshot`, written once into ``--tmp``)::

    PYTHONPATH=$PWD python benchmarks/file_job_parts.py --rows 5000000 --to csv
    POLARS_MAX_THREADS=1 PYTHONPATH=$PWD python benchmarks/file_job_parts.py --to parquet
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl
from test_bench_files import EXPONENT, PRICES, ROW_GROUP, SCALE, run_copy, run_polars, snapshot

import vecfix._files_io as fio
import vecfix.polars  # noqa: F401  (the namespace)
from vecfix import NumberFormat, files

SPECS = [files.ColumnSpec(c, NumberFormat(EXPONENT, SCALE)) for c in PRICES]


@contextlib.contextmanager
def patched(owner: object, name: str, value: object) -> Iterator[None]:
    before = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, before)


def sink(lf: pl.LazyFrame, dst: Path, quoting: str = "necessary") -> None:
    if dst.suffix == ".csv":
        lf.sink_csv(dst, quote_style=quoting)  # type: ignore[arg-type]
    else:
        lf.sink_parquet(dst, compression="snappy", statistics=True, row_group_size=ROW_GROUP)


def vecfix_job(src: Path, dst: Path) -> None:
    files.format_file(src, dst, SPECS, progress=False)


def without_fsync(src: Path, dst: Path) -> None:
    with patched(os, "fsync", lambda fd: None):
        vecfix_job(src, dst)


def writer_quotes(src: Path, dst: Path) -> None:
    with patched(fio, "csv_query", lambda pl_, q, quoting, plain, failed: (q, quoting)):
        vecfix_job(src, dst)


def query_alone(src: Path, dst: Path) -> None:
    lf = pl.scan_parquet(src)
    job = files._Job(pl, lf, lf.collect_schema(), SPECS, None)
    query, quoting = job.query, "necessary"
    if dst.suffix == ".csv":
        query, quoting = fio.csv_query(pl, query, quoting, set(PRICES), job.failed)
    sink(query, dst, quoting)


def namespace(src: Path, dst: Path) -> None:
    fixed = (pl.col(c).vecfix.fixed(EXPONENT, SCALE) for c in PRICES)  # type: ignore[attr-defined]
    sink(pl.scan_parquet(src).with_columns(fixed), dst)


WAYS: dict[str, Callable[[Path, Path], None]] = {
    "vecfix": vecfix_job,
    "vecfix-nofsync": without_fsync,
    "vecfix-writer-quotes": writer_quotes,
    "vecfix-query": query_alone,
    "namespace": namespace,
    "polars-exact": run_polars,
    "polars-copy": run_copy,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--to", choices=("csv", "parquet"), default="csv")
    parser.add_argument("--tmp", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    src = args.tmp / f"vecfix-parts-{args.rows}.parquet"
    if not src.exists():
        snapshot(args.rows).write_parquet(src, compression="snappy", row_group_size=ROW_GROUP)
    ways = {k: w for k, w in WAYS.items() if args.to == "csv" or k != "vecfix-writer-quotes"}
    best: dict[str, tuple[float, float]] = {}
    for way, run in ways.items():  # a first round each, not timed (kernels, caches)
        run(src, args.tmp / f"vecfix-parts-{way}.{args.to}")
    for _ in range(args.rounds):
        for way, run in ways.items():
            wall, cpu = time.perf_counter(), time.process_time()
            run(src, args.tmp / f"vecfix-parts-{way}.{args.to}")
            took = (time.perf_counter() - wall, time.process_time() - cpu)
            old = best.get(way, took)
            best[way] = (min(old[0], took[0]), min(old[1], took[1]))
    base = best["vecfix"]
    print(f"{args.rows:,} rows, Parquet -> {args.to}, {pl.thread_pool_size()} polars thread(s)")
    for way, (wall, cpu) in best.items():
        print(f"  {way:21s} wall {wall:6.3f} s {wall / base[0]:5.2f}x"
              f"   cpu {cpu:6.3f} s {cpu / base[1]:5.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
