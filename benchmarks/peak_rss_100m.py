"""Peak memory and throughput of formatting 100M PRICE9 rows in chunks with ``iter_format``.

The rows come from a lazy column (``len()`` and slicing, like a memory map of a file too
big to load) that makes each chunk's CME-style PRICE9 mantissas when it is sliced, so no
100M-row array ever exists; ``--source memmap`` reads them from a memory-mapped raw int64
file instead (written first, 800 MB for 100M rows; the pages of the file that the loop
has read count in the resident set, though the kernel can drop them at any time). Each
chunk is formatted at scale 4 and written to ``--out`` (``/dev/null`` by default) one row
per line.

Printed: rows, bytes written, seconds spent making the rows, formatting and writing,
ns/row for format+write, and the peak resident set (``ru_maxrss``) before the loop and
after it. With the lazy source the peak is set by ``--chunksize``, not by ``--rows``.

Usage::

    PYTHONPATH=$PWD python benchmarks/peak_rss_100m.py [--rows 100000000]
        [--chunksize 1000000] [--threads 1] [--source lazy|memmap] [--out /dev/null]
        [--tmp DIR]
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import resource
import sys
import tempfile
import time
from collections.abc import Sequence

import numpy as np

EXPONENT, SCALE = -9, 4
_TICKS = np.array([250_000_000, 10_000_000, 5_000_000, 31_250_000, 1_000_000_000])


def _peak_rss_mib() -> float:
    """The peak resident set so far, in MiB (``ru_maxrss`` is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (2**20 if sys.platform == "darwin" else 2**10)


class LazyPrices:
    """``n`` PRICE9 mantissas on real tick sizes, made slice by slice (deterministic)."""

    def __init__(self, n: int, seed: int = 20261129) -> None:
        self.n = n
        self.seed = seed
        self.seconds = 0.0  # time spent making rows, reported apart from formatting

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, key: slice) -> np.ndarray:
        start = time.perf_counter()
        lo, hi, _ = key.indices(self.n)
        m = max(hi - lo, 0)
        rng = np.random.default_rng([self.seed, lo])
        levels = rng.integers(1, 20_000, m) * 1_000_000_000
        px = levels + _TICKS[rng.integers(0, len(_TICKS), m)] * rng.integers(-400, 400, m)
        np.negative(px, out=px, where=rng.random(m) < 0.05)  # 5% negative (spreads)
        self.seconds += time.perf_counter() - start
        return px


def _memmap_source(n: int, chunksize: int, directory: str) -> np.ndarray:
    """Write ``n`` lazy prices to a raw int64 file chunk by chunk; return it memory-mapped.

    The file is written with plain ``write`` calls, so none of its pages is mapped into
    this process before the formatting loop reads them.
    """
    path = os.path.join(directory, "price9.i8")
    lazy = LazyPrices(n)
    with open(path, "wb") as f:
        for lo in range(0, n, chunksize):
            f.write(lazy[lo : lo + chunksize].astype("<i8").tobytes())
    return np.memmap(path, dtype="<i8", mode="r", shape=(n,))


def run(
    rows: int, chunksize: int, threads: int | None, source: str, out: str, tmp_dir: str | None
) -> dict:
    import vecfix
    from vecfix._chunks import iter_format

    with tempfile.TemporaryDirectory(prefix="vecfix-peak-rss-", dir=tmp_dir) as tmp:
        prices = LazyPrices(rows) if source == "lazy" else _memmap_source(rows, chunksize, tmp)
        for chunk in iter_format(prices[:1000], EXPONENT, SCALE):  # compile outside the loop
            chunk.write(io.BytesIO())
        if isinstance(prices, LazyPrices):
            prices.seconds = 0.0
        before = _peak_rss_mib()
        written = 0
        start = time.perf_counter()
        with open(out, "wb") as f:
            for chunk in iter_format(prices, EXPONENT, SCALE, chunksize=chunksize, threads=threads):
                written += chunk.write(f)
        total = time.perf_counter() - start
        making = prices.seconds if isinstance(prices, LazyPrices) else 0.0
        return {
            "rows": rows,
            "chunksize": chunksize,
            "threads": threads,
            "source": source,
            "bytes": written,
            "seconds": total,
            "making_rows_s": making,
            "format_write_ns_per_row": (total - making) / rows * 1e9,
            "peak_rss_before_mib": before,
            "peak_rss_mib": _peak_rss_mib(),
            "vecfix": vecfix.__version__,
            "numpy": np.__version__,
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}",
        }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--chunksize", type=int, default=1_000_000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--source", choices=["lazy", "memmap"], default="lazy")
    parser.add_argument("--out", default=os.devnull)
    parser.add_argument("--tmp", default=None, help="where --source memmap writes its file")
    args = parser.parse_args(argv)
    r = run(args.rows, args.chunksize, args.threads, args.source, args.out, args.tmp)
    print(
        f"{r['rows']:,} PRICE9 rows at scale {SCALE} in chunks of {r['chunksize']:,}"
        f" ({r['source']} source, threads={r['threads']}) -> {args.out}\n"
        f"  written          : {r['bytes']:,} bytes\n"
        f"  wall             : {r['seconds']:.2f} s"
        f" (making the rows {r['making_rows_s']:.2f} s)\n"
        f"  format + write   : {r['format_write_ns_per_row']:.1f} ns/row\n"
        f"  peak RSS         : {r['peak_rss_mib']:.0f} MiB"
        f" (before the loop: {r['peak_rss_before_mib']:.0f} MiB)\n"
        f"  {r['machine']}; vecfix {r['vecfix']}, numpy {r['numpy']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
