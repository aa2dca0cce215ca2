"""What a run pays before its first row, in fresh processes: vecfix against its peers.

Each measurement starts a new Python interpreter, ``--repeat`` times (medians printed):

* ``import vecfix`` + ``format_fixed`` of 100 rows, against ``import numpy`` + the same
  rows through a ``decimal`` loop, and ``import numba`` alone;
* ``import polars, pyarrow.parquet`` alone (what the file job rides on);
* ``vecfix format`` (``python -m vecfix``) on a 100-row and a 100,000-row Parquet file to
  CSV, against polars' exact lazy pipeline on the same file (``scan_parquet`` → a decimal
  cast and ``round(2, mode="half_away_from_zero")`` → ``sink_csv``), in fresh processes
  too;
* on an empty Numba cache: ``format_fixed`` of 100,000 rows (plain Python while a child
  compiles the kernels), and how long until ``vecfix demo`` prints its first line.

The warm measurements run on a Numba cache filled by ``vecfix.warmup()`` first. Usage::

    PYTHONPATH=$PWD python benchmarks/fresh_process.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

VECFIX_100 = """
import time
t0 = time.perf_counter()
import numpy as np, vecfix
out = vecfix.format_fixed(np.arange(100) * 123456789 - 5_000_000_000, -9, 4)
assert len(out.to_list()) == 100
print(time.perf_counter() - t0)
"""
DECIMAL_100 = """
import time
t0 = time.perf_counter()
import decimal, numpy as np
px = (np.arange(100) * 123456789 - 5_000_000_000).tolist()
q = decimal.Decimal(1).scaleb(-4)
text = [format(decimal.Decimal(c).scaleb(-9).quantize(q, decimal.ROUND_HALF_UP), "f") for c in px]
assert len(text) == 100
print(time.perf_counter() - t0)
"""
IMPORT = """
import time
t0 = time.perf_counter()
import {modules}
print(time.perf_counter() - t0)
"""
POLARS_JOB = """
import sys, time
t0 = time.perf_counter()
import polars as pl
px = pl.col("px").cast(pl.Decimal(38, 0)) * pl.lit(1, pl.Decimal(38, 9)) / 10**9
(pl.scan_parquet(sys.argv[1])
   .with_columns(px.round(2, mode="half_away_from_zero").cast(pl.Decimal(38, 2)).cast(pl.String))
   .sink_csv(sys.argv[2]))
print(time.perf_counter() - t0)
"""
COLD_100K = """
import time
t0 = time.perf_counter()
import numpy as np, vecfix
from vecfix import _engine
out = vecfix.format_fixed(np.arange(100_000) * 987654321, -9, 2)
print(time.perf_counter() - t0)
_engine._wait_for_child()  # (not timed: the next measurement must not race it)
"""


def run(code: str, env: dict, *args: str) -> float:
    """Seconds a fresh interpreter running ``code`` prints (its own clock)."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip().splitlines()[-1])


def wall(argv: list[str], env: dict) -> float:
    """Wall seconds of a command in a fresh process, start to end."""
    start = time.perf_counter()
    subprocess.run(argv, env=env, capture_output=True, check=True)
    return time.perf_counter() - start


def first_line(argv: list[str], env: dict) -> float:
    """Seconds until a command prints its first line (stdout or stderr)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    proc.stderr.readline()
    took = time.perf_counter() - start
    proc.wait()
    return took


def parquet(path: Path, rows: int) -> None:
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(rows)
    px = rng.integers(10**9, 10**14, rows) * np.where(rng.random(rows) < 0.05, -1, 1)
    pl.DataFrame({"sym": ["ESZ4"] * rows, "px": px}).write_parquet(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="vecfix-fresh-"))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp / "cache")}
    env.pop("VECFIX_ENGINE", None)
    # an installed package has its bytecode cached, as the peers' wheels do: where the
    # environment forbids writing it, each run would compile vecfix's modules (~40 ms)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    subprocess.run([sys.executable, "-c", "import vecfix; vecfix.warmup()"], env=env, check=True)
    for rows in (100, 100_000):
        parquet(tmp / f"in{rows}.parquet", rows)
    vecfix_cli = [sys.executable, "-m", "vecfix", "format"]

    def cli(rows: int) -> list[str]:
        src, dst = tmp / f"in{rows}.parquet", tmp / f"out{rows}.csv"
        return [*vecfix_cli, str(src), "-o", str(dst), "--column", "px", "--exponent", "-9",
                "--scale", "2", "-q"]  # fmt: skip

    cases = {
        "import vecfix + format_fixed, 100 rows": lambda: run(VECFIX_100, env),
        "import numpy + decimal loop, 100 rows": lambda: run(DECIMAL_100, env),
        "import numba": lambda: run(IMPORT.format(modules="numba"), env),
        "import polars, pyarrow.parquet": lambda: run(
            IMPORT.format(modules="polars, pyarrow.parquet"), env
        ),
        "vecfix format, 100-row Parquet -> CSV": lambda: wall(cli(100), env),
        "polars exact lazy pipeline, 100 rows": lambda: wall(
            [sys.executable, "-c", POLARS_JOB, str(tmp / "in100.parquet"), str(tmp / "p100.csv")],
            env,
        ),
        "vecfix format, 100k-row Parquet -> CSV": lambda: wall(cli(100_000), env),
        "polars exact lazy pipeline, 100k rows": lambda: wall(
            [sys.executable, "-c", POLARS_JOB, str(tmp / "in100000.parquet"), str(tmp / "p.csv")],
            env,
        ),
    }

    def cold(code_or_argv: str | list[str]) -> float:
        fresh = {**env, "NUMBA_CACHE_DIR": tempfile.mkdtemp(dir=tmp)}
        if isinstance(code_or_argv, str):
            return run(code_or_argv, fresh)
        took = first_line(code_or_argv, fresh)
        subprocess.run([sys.executable, "-c", "import vecfix._engine as e; e._wait_for_child()"],
                       env=fresh, check=True)  # fmt: skip
        return took

    cases["empty cache: import + format_fixed, 100k rows"] = lambda: cold(COLD_100K)
    cases["empty cache: vecfix demo, first line"] = lambda: cold(
        [sys.executable, "-m", "vecfix", "demo"]
    )
    results = {}
    for name, case in cases.items():
        times = [case() for _ in range(args.repeat)]
        results[name] = statistics.median(times)
        print(f"{results[name] * 1e3:9.0f} ms  {name}", flush=True)
    ratio = (
        results["vecfix format, 100-row Parquet -> CSV"]
        / results["polars exact lazy pipeline, 100 rows"]
    )
    print(f"\nvecfix format / polars on 100 rows: {ratio:.2f}x")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(json.dumps({k: round(v, 4) for k, v in results.items()}))


if __name__ == "__main__":
    main()
