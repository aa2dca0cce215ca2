"""Rows per second: vecfix on a local Dask cluster against one process.

The data is :func:`vecfix._sample.sample_prices` (CME PRICE9 mantissas, exponent -9),
formatted at scale 4 into Arrow-backed pandas strings. Three ways are timed:

one process
    ``format_fixed(px, -9, 4).to_pandas()`` on the whole column in memory, with
    ``threads=1`` and ``threads=--workers``.
cluster, in memory
    The column split into ``--partitions`` partitions and persisted on a
    ``LocalCluster`` of ``--workers`` processes (one thread each, loopback only) before the
    clock starts, i.e. the data already lives on the workers. Timed: ``format_columns``
    with the result kept on the workers (``persist``), and with it gathered back to
    the client (``compute``: what serialization costs).
Parquet to Parquet
    A dataset of ``--partitions`` files: one process reads each file with pyarrow, formats,
    writes it; the cluster runs :func:`vecfix.dask.format_parquet` (on the cluster already
    started; the start-up is reported on its own).

Usage::

    PYTHONPATH=$PWD python benchmarks/dask_scaling.py [--rows 20000000] [--partitions 8]

Each timing is the best of ``--repeat`` runs (the closest a shared machine gets to an idle
one). Kernels and workers are warmed up first; outputs are checked against the
single-process text on a sample of rows.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np


def best(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    """The fastest of ``repeat`` calls, in seconds, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-parquet", action="store_true", help="skip the Parquet runs")
    parser.add_argument("--scratch", default=None, help="directory for the Parquet files")
    args = parser.parse_args(argv)

    import dask.dataframe as dd
    import distributed
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    import vecfix
    import vecfix.dask as vd
    from vecfix._sample import sample_prices

    n, parts = args.rows, args.partitions
    px, _ = sample_prices(n)
    df = pd.DataFrame({"px": px})
    spec = {"px": {"exponent": -9, "scale": 4}}
    check = np.random.default_rng(1).integers(0, n, size=min(n, 10_000))
    vecfix.warmup()
    expected = vecfix.format_fixed(px[check], -9, 4).to_list()
    rows: list[tuple[str, float]] = []

    def report(label: str, seconds: float) -> None:
        rows.append((label, seconds))
        print(f"  {label:<44s} {seconds:7.2f} s  {n / seconds / 1e6:7.1f} M rows/s", flush=True)

    print(
        f"{n:,} PRICE9 rows, {parts} partitions, {args.workers} workers, "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; best of {args.repeat}"
    )
    for threads in sorted({1, args.workers}):
        t, out = best(
            lambda t=threads: vecfix.format_fixed(px, -9, 4, threads=t).to_pandas(), args.repeat
        )
        assert out.iloc[check].tolist() == expected
        report(f"one process, threads={threads}", t)
    del out

    start = time.perf_counter()
    cluster = distributed.LocalCluster(**vd.local_cluster_options(args.workers), silence_logs=40)
    client = distributed.Client(cluster)
    client.wait_for_workers(args.workers)
    client.run(vecfix.warmup)
    startup = time.perf_counter() - start
    print(f"  (cluster start-up and worker warm-up: {startup:.1f} s)")
    try:
        with warnings.catch_warnings():  # "Sending large graph": the set-up ships the data
            warnings.simplefilter("ignore", UserWarning)
            ddf = client.persist(dd.from_pandas(df, npartitions=parts))
        distributed.wait(ddf)

        def timed(run: Callable[[object], object]) -> float:
            """Seconds of the fastest run. Each run formats a renamed copy of the column, so
            that its tasks are new to Dask (same keys would return the last run's results)."""
            times = []
            for i in range(args.repeat + 1):  # the first is an untimed warm-up
                name = f"px{i}"
                job = vd.format_columns(ddf.rename(columns={"px": name}), {name: spec["px"]})
                start = time.perf_counter()
                out = run(job)
                times.append(time.perf_counter() - start)
                if isinstance(out, pd.DataFrame):
                    assert out[name].iloc[check].tolist() == expected
                else:
                    client.cancel(out)
                del out
            return min(times[1:])

        def persist_and_wait(job: object) -> object:
            kept = client.persist(job)
            distributed.wait(kept)
            return kept

        report("cluster, result kept on the workers", timed(persist_and_wait))
        gathered = timed(lambda job: client.compute(job).result())
        report("cluster, result gathered to the client", gathered)

        if not args.no_parquet:
            scratch = tempfile.mkdtemp(prefix="vecfix-dask-bench-", dir=args.scratch)
            try:
                src, dst1, dst2 = (os.path.join(scratch, d) for d in ("in", "one", "dask"))
                os.makedirs(src)
                os.makedirs(dst1)
                for k, chunk in enumerate(np.array_split(px, parts)):
                    pq.write_table(pa.table({"px": chunk}), os.path.join(src, f"part.{k}.parquet"))
                files = sorted(os.listdir(src))

                def one_process() -> None:
                    for name in files:
                        table = pq.read_table(os.path.join(src, name))
                        text = vecfix.format_fixed(table["px"], -9, 4).to_arrow()
                        pq.write_table(pa.table({"px": text}), os.path.join(dst1, name))

                one_process()  # untimed warm-up
                t, _ = best(one_process, args.repeat)
                report("Parquet -> Parquet, one process", t)

                def on_cluster() -> None:
                    shutil.rmtree(dst2, ignore_errors=True)
                    vd.format_parquet(
                        src, dst2, spec, scheduler=client, write_kwargs={"write_index": False}
                    )

                on_cluster()  # untimed warm-up
                t, _ = best(on_cluster, args.repeat)
                report("Parquet -> Parquet, cluster (format_parquet)", t)
                back = pd.read_parquet(dst2)["px"]
                assert len(back) == n and back.iloc[check].tolist() == expected
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    finally:
        client.close()
        cluster.close()

    base = dict(rows)["one process, threads=1"]
    print("\nspeed-up over one process, threads=1:")
    for label, seconds in rows:
        print(f"  {label:<44s} {base / seconds:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
