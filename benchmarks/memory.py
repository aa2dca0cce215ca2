"""Peak extra memory of one ``format_fixed`` call on PRICE9 rows, next to its output size.

Each size runs in a fresh process (``--child``), which builds the mantissas, warms the
kernels and then measures one ``format_fixed(px, -9, 4)`` call twice:

* RSS: the peak resident set during the call (``VmHWM``, reset just before it through
  ``/proc/self/clear_refs``) minus the resident set before it. Linux only; elsewhere the
  column says n/a.
* tracemalloc: the peak of traced allocations during the call minus those before it
  (NumPy reports its array buffers to tracemalloc).

The output is the ``(n, width)`` matrix plus the int32 lengths; the ratio is peak extra
memory over that. ``--null`` makes every 100th row CME's ``PRICENULL9`` and passes it as
``null=``: the output then includes the validity mask the call returns.

Usage::

    PYTHONPATH=$PWD python benchmarks/memory.py [--rows 1000000 10000000] [--null]
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tracemalloc
from collections.abc import Sequence
from pathlib import Path


def status_kib(field: str) -> int | None:
    """A ``/proc/self/status`` field in KiB, or None where there is none."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
    except OSError:
        return False
    return True


def child(n: int, null: bool = False) -> dict[str, object]:
    """Measure one call on ``n`` rows in this process (run by ``--child``); with ``null``,
    every 100th row is the null sentinel."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from conftest import EXPONENT, SCALE, price9_mantissas

    import vecfix
    from vecfix._sample import PRICENULL9

    px = price9_mantissas(n)
    options = {}
    if null:
        px[::100] = PRICENULL9
        options["null"] = PRICENULL9
    vecfix.warmup()
    gc.collect()

    rss_extra = None
    before = status_kib("VmRSS")
    if before is not None and _reset_peak_rss():
        out = vecfix.format_fixed(px, EXPONENT, SCALE, **options)
        rss_extra = (status_kib("VmHWM") - before) * 1024
        del out
        gc.collect()

    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    out = vecfix.format_fixed(px, EXPONENT, SCALE, **options)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "rows": n,
        "width": out.width,
        "output_bytes": out.matrix.nbytes + out.lengths.nbytes + _nbytes(out.valid),
        "null": null,
        "rss_extra": rss_extra,
        "traced_peak_extra": peak - base,
        "traced_kept": current - base,
    }


def _nbytes(array: object) -> int:
    return 0 if array is None else array.nbytes


def mib(nbytes: float | None) -> str:
    """Bytes as MiB with one decimal, or n/a.

    Examples
    --------
    >>> mib(11 * 2**20), mib(None)
    ('11.0 MiB', 'n/a')
    """
    return "n/a" if nbytes is None else f"{nbytes / 2**20:.1f} MiB"


def line(r: dict) -> str:
    """One printed line for a child's result.

    Examples
    --------
    >>> print(line({"rows": 1000, "width": 11, "output_bytes": 15000, "rss_extra": 16384,
    ...             "traced_peak_extra": 15100, "traced_kept": 15050}))
    ... # doctest: +NORMALIZE_WHITESPACE
    1,000 rows, width 11: output (matrix + lengths) 0.0 MiB; peak extra RSS 0.0 MiB (1.09x);
    peak extra traced 0.0 MiB (1.01x), kept after the call 0.0 MiB
    """
    out = r["output_bytes"]
    what = "matrix + lengths + validity" if r.get("null") else "matrix + lengths"
    rss = r["rss_extra"]
    rss_ratio = "" if rss is None else f" ({rss / out:.2f}x)"
    traced = r["traced_peak_extra"]
    return (
        f"{r['rows']:,} rows, width {r['width']}: output ({what}) {mib(out)};"
        f" peak extra RSS {mib(rss)}{rss_ratio};"
        f" peak extra traced {mib(traced)} ({traced / out:.2f}x),"
        f" kept after the call {mib(r['traced_kept'])}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Measure each size in a fresh process and print; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--null", action="store_true", help="every 100th row null (PRICENULL9)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.null)))
        return 0
    for n in args.rows:
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(n), *(["--null"] if args.null else [])],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            print(f"{n:,} rows: child failed ({done.returncode}):\n{done.stderr}")
            return 1
        print(line(json.loads(done.stdout.strip().splitlines()[-1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
