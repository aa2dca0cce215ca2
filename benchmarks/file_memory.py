"""Peak memory of the file job: ``vecfix format`` against a plain polars copy of the same
file and polars' exact pipeline, each in a fresh process.

The input is :func:`test_bench_files.snapshot` (symbol, ts, two PRICE9 prices, size),
written once as Parquet and as CSV into ``--tmp``. Each job runs in a child process that
reports:

* ``peak RSS``: ``VmHWM`` of ``/proc/self/status``, the most resident memory the process
  had (not ``ru_maxrss``, which a child started by ``fork`` and ``exec`` inherits from its
  parent). It counts the pages of memory-mapped files too: polars maps a CSV input, whose
  pages the kernel can drop at any time.
* ``peak anon``: the most anonymous memory (``RssAnon`` of ``/proc/self/status``, read every
  5 ms by a thread): what the process itself allocated, the figure that must stay bounded.
  Linux only; elsewhere n/a.

Usage::

    PYTHONPATH=$PWD python benchmarks/file_memory.py [--rows 20000000] [--tmp DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from memory import status_kib  # (benchmarks/memory.py)

HERE = Path(__file__).resolve().parent
JOBS = (("parquet", "csv"), ("parquet", "parquet"), ("csv", "parquet"))
WAYS = ("vecfix", "polars-copy", "polars-exact")


def child(way: str, src: str, dst: str) -> dict[str, object]:
    """Run one way in this process; its peak memory and seconds."""
    sys.path.insert(0, str(HERE))
    import test_bench_files as bench

    run = {"vecfix": bench.run_vecfix, "polars-copy": bench.run_copy,
           "polars-exact": bench.run_polars}[way]  # fmt: skip
    if way == "vecfix":  # imported and the kernels loaded before the clock (in the memory)
        import vecfix.files
        import vecfix.polars  # noqa: F401  (its namespace registered before the clock)
        from vecfix import _engine

        _engine.load()  # (a call of a few rows runs in plain Python: it loads nothing)
    peak = [status_kib("RssAnon")]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            now = status_kib("RssAnon")
            if now is not None and peak[0] is not None:
                peak[0] = max(peak[0], now)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    start = time.perf_counter()
    run(Path(src), Path(dst))
    seconds = time.perf_counter() - start
    done.set()
    watcher.join()
    rss = status_kib("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    return {"rss_mb": rss / 1024, "anon_mb": None if peak[0] is None else peak[0] / 1024,
            "seconds": seconds}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--tmp", default=None, help="folder for the files (default: TMPDIR)")
    parser.add_argument("--child", nargs=3, metavar=("WAY", "SRC", "DST"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    sys.path.insert(0, str(HERE))
    import test_bench_files as bench

    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        d = Path(tmp)
        frame = bench.snapshot(args.rows)
        frame.write_parquet(d / "snap.parquet", compression="snappy", row_group_size=1 << 20)
        frame.write_csv(d / "snap.csv")
        del frame
        sizes = {f: (d / f"snap.{f}").stat().st_size / 1e6 for f in ("parquet", "csv")}
        print(
            f"{args.rows:,} rows; Parquet {sizes['parquet']:,.0f} MB, CSV {sizes['csv']:,.0f}"
            f" MB; {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs"
        )
        pl_small = d / "small.parquet"  # compiles (or loads) the kernels: not measured below
        bench.snapshot(1000).write_parquet(pl_small)
        warm = [sys.executable, __file__, "--child", "vecfix", str(pl_small), str(d / "s.csv")]
        subprocess.run(warm, capture_output=True, check=True)
        print(
            f"{'job':<18}{'way':<14}{'seconds':>9}{'peak RSS':>11}{'peak anon':>11}"
            "  (each in a fresh process, its imports before the clock)"
        )
        for src_fmt, dst_fmt in JOBS:
            for way in WAYS:
                src, dst = d / f"snap.{src_fmt}", d / f"out.{dst_fmt}"
                r = subprocess.run(
                    [sys.executable, __file__, "--child", way, str(src), str(dst)],
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                got = json.loads(r.stdout.strip().splitlines()[-1])
                anon = "n/a" if got["anon_mb"] is None else f"{got['anon_mb']:,.0f} MB"
                print(f"{src_fmt + '→' + dst_fmt:<18}{way:<14}{got['seconds']:>8.2f}s"
                      f"{got['rss_mb']:>8,.0f} MB{anon:>11}")  # fmt: skip
                dst.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
