"""Time ``import vecfix`` plus the first ``format_fixed`` call (on 3 values, and on a
100,000-row column), ``vecfix.warmup()`` and ``python -m vecfix demo``.

Each measurement runs in a fresh Python process, against a Numba cache directory of its
own (under a new temporary one unless ``--cache-dir`` is given):

* cold: ``VECFIX_NUMBA_CACHE=0``, so every process compiles the kernels in memory;
* empty: cache on but empty (a new directory for each run), so the process compiles and
  writes the cache (``warmup()`` shares the compile with worker processes);
* warm: cache on and populated by the run before, so the process only loads it.

Usage::

    PYTHONPATH=$PWD python benchmarks/first_call.py [--repeat 3]

It prints medians in seconds. NumPy is imported before the clock starts (a program that
formats arrays has it already); the ``import vecfix`` time includes importing Numba.
``warmup()`` also reports the CPU seconds of this process (``cpu_here``) and of its worker
processes (``cpu_workers``, all of them together): on a busy machine, wall times stretch
but these hold. The demo's ``first_line`` is its first line on stdout or stderr (the
"compiling kernels" notice when the cache is empty).

On an empty cache a first call runs through the cold tier (``vecfix._coldstart``) while a
worker process compiles the block kernel into the cache; the worker outlives the call (so
that the next process finds the cache warm). Each run waits for the processes it started,
so that none runs into the next measurement, and reports ``background``: the seconds until
the last of them ended (the block kernel is then in the cache). ``tier`` is 1 when the
first call ran the cold tier. ``VECFIX_WARMUP_WORKERS=0`` turns the tier off (the first
call then compiles the block kernel itself, as before the tier).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence

FIRST_CALL = r"""
import json, time
import numpy as np
px = np.array([5000_250000000, -4_000050000, 12_345678901], dtype=np.int64)
t0 = time.perf_counter()
import vecfix
t1 = time.perf_counter()
out = vecfix.format_fixed(px, -9, 4)
t2 = time.perf_counter()
vecfix.format_fixed(px, -9, 4)
t3 = time.perf_counter()
assert out.to_list() == ["5000.2500", "-4.0001", "12.3457"], out.to_list()
print(json.dumps({"import": t1 - t0, "first_call": t2 - t1, "second_call": t3 - t2,
                  "total": t2 - t0}))
"""

#: The first call on a column of 100,000 rows: past the few-rows kernel (``format_few``),
#: so it compiles the block kernel ``format_rows`` and its passes.
FIRST_CALL_COLUMN = r"""
import json, time
import numpy as np
px = (np.arange(100_000, dtype=np.int64) - 50_000) * 1_234_567
t0, cpu = time.perf_counter(), time.process_time()
import vecfix
t1 = time.perf_counter()
out = vecfix.format_fixed(px, -9, 4)
t2 = time.perf_counter()
cpu = time.process_time() - cpu
from vecfix import _format
tier = int(_format._kernel is None)  # the cold tier ran it (a worker compiles)
assert out.to_list()[:2] == ["-61.7284", "-61.7271"], out.to_list()[:2]
print(json.dumps({"import": t1 - t0, "first_call": t2 - t1, "total": t2 - t0,
                  "cpu_here": cpu, "tier": tier}))
"""

WARMUP = r"""
import json, resource, time
import numpy as np
import vecfix
cpu = time.process_time()
seconds = vecfix.warmup()
cpu = time.process_time() - cpu
t0 = time.perf_counter()
vecfix.format_fixed(np.array([1], dtype=np.int64), -9, 4)
t1 = time.perf_counter()
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"warmup": seconds, "call_after": t1 - t0, "cpu_here": cpu,
                  "cpu_workers": children.ru_utime + children.ru_stime}))
"""


def run_demo(cache_dir: str, cache: bool) -> dict[str, float]:
    """``python -m vecfix demo`` in a fresh process: seconds to its first line (stdout or
    stderr) and to its end."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, VECFIX_NUMBA_CACHE="1" if cache else "0")
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "vecfix", "demo"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    first = time.perf_counter() - start
    text = proc.stdout.read()
    if proc.wait() != 0:
        raise RuntimeError(f"vecfix demo failed ({proc.returncode})")
    done = time.perf_counter() - start
    wait_for_session(proc.pid)
    return {
        "first_line": first,
        "done": done,
        "background": time.perf_counter() - start,
        "tier": float("first run: a scalar kernel" in text),
    }


def wait_for_session(sid: int, timeout: float = 600.0) -> None:
    """Wait until no process of the session ``sid`` runs (the workers a child started)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(sid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def run_child(
    code: str, cache_dir: str, cache: bool, workers: int | None = None
) -> dict[str, float]:
    """Run ``code`` in a fresh interpreter with the given Numba cache setup (and
    ``VECFIX_WARMUP_WORKERS=workers`` unless None); parse its JSON."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, VECFIX_NUMBA_CACHE="1" if cache else "0")
    if workers is not None:
        env["VECFIX_WARMUP_WORKERS"] = str(workers)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"child process failed ({proc.returncode}):\n{err}")
    wait_for_session(proc.pid)
    return {
        **json.loads(out.strip().splitlines()[-1]),
        "background": time.perf_counter() - start,
    }


def medians(results: Sequence[dict[str, float]]) -> dict[str, float]:
    """The median of each numeric field over several runs.

    Examples
    --------
    >>> medians([{"a": 1.0, "f": "x"}, {"a": 3.0, "f": "x"}, {"a": 2.0, "f": "x"}])
    {'a': 2.0}
    """
    keys = [k for k, v in results[0].items() if isinstance(v, (int, float))]
    return {k: statistics.median(r[k] for r in results) for k in keys}


def seconds(v: float) -> str:
    """Seconds to the millisecond, or microseconds below 10 ms.

    Examples
    --------
    >>> seconds(8.0214), seconds(0.0000153)
    ('8.021 s', '15.3 µs')
    """
    return f"{v:.3f} s" if v >= 0.01 else f"{v * 1e6:.1f} µs"


def measure(cache_dir: str, repeat: int) -> Iterator[tuple[str, dict[str, float]]]:
    """Yield cold, empty-cache and warm timings of the first call, warmup and the demo."""

    def fresh() -> str:  # a new, empty cache directory
        return tempfile.mkdtemp(prefix="run", dir=cache_dir)

    def median_of(
        code: str, cache: bool, empty: bool = False, before: str = "", workers: int | None = None
    ) -> dict:
        results = []
        for _ in range(repeat):
            where = fresh() if empty else warm
            if before:
                run_child(before, where, cache=True)
            results.append(run_child(code, where, cache, workers))
        return medians(results)

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

    warm = fresh()
    run_child(WARMUP, warm, cache=True)  # fills ``warm``
    yield "import + first call, cold (VECFIX_NUMBA_CACHE=0)", median_of(FIRST_CALL, False)
    yield (
        "import + first call, empty cache (compiles, writes the cache)",
        median_of(FIRST_CALL, True, empty=True),
    )
    yield "import + first call, cache warm", median_of(FIRST_CALL, True)
    yield (
        "import + first call on 100,000 rows, empty cache (the cold tier, a worker compiles)",
        median_of(FIRST_CALL_COLUMN, True, empty=True),
    )
    yield (
        "import + first call on 100,000 rows, empty cache, VECFIX_WARMUP_WORKERS=0 (compiles"
        " format_rows here)",
        median_of(FIRST_CALL_COLUMN, True, empty=True, workers=0),
    )
    yield "import + first call on 100,000 rows, cache warm", median_of(FIRST_CALL_COLUMN, True)
    yield (
        "vecfix.warmup(), cold (VECFIX_NUMBA_CACHE=0: all in this process)",
        median_of(WARMUP, False),
    )
    yield (
        "vecfix.warmup(), empty cache (workers on the idle cores, if any)",
        median_of(WARMUP, True, empty=True),
    )
    yield (
        f"vecfix.warmup(), empty cache, VECFIX_WARMUP_WORKERS={max((cores or 1) - 1, 1)}",
        median_of(WARMUP, True, empty=True, workers=max((cores or 1) - 1, 1)),
    )
    yield (
        "vecfix.warmup(), empty cache, VECFIX_WARMUP_WORKERS=0",
        median_of(WARMUP, True, empty=True, workers=0),
    )
    yield (
        "vecfix.warmup(), after a first call cached format_fixed's kernels",
        median_of(WARMUP, True, empty=True, before=FIRST_CALL),
    )
    yield "vecfix.warmup(), cache warm", median_of(WARMUP, True)
    yield (
        "python -m vecfix demo, empty cache",
        medians([run_demo(fresh(), cache=True) for _ in range(repeat)]),
    )
    yield (
        "python -m vecfix demo, cache warm",
        medians([run_demo(warm, True) for _ in range(repeat)]),
    )


def _vecfix_file() -> str:
    """Where the child processes import vecfix from (they share this environment)."""
    code = "import importlib.util; print(importlib.util.find_spec('vecfix').origin)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "?"


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per median (default 3)")
    parser.add_argument(
        "--cache-dir",
        help="where to make the Numba cache directories, one a run (default: a new temp one)",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="vecfix-numba-cache-") as tmp:
        cache_dir = args.cache_dir or tmp
        print(f"Python {sys.version.split()[0]}, NUMBA_CACHE_DIR={cache_dir}/run*")
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        print(
            f"{cores} usable cores; VECFIX_WARMUP_WORKERS={os.environ.get('VECFIX_WARMUP_WORKERS')}"
        )
        print(
            f"medians of {args.repeat} fresh processes; vecfix from {_vecfix_file()}\n", flush=True
        )
        for what, t in measure(cache_dir, args.repeat):
            fields = ", ".join(
                f"{k} {v:g}" if k == "tier" else f"{k} {seconds(v)}" for k, v in t.items()
            )
            print(f"{what}:\n    {fields}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
