"""Performance cliffs: ``format_fixed`` on one thread over many shapes of input.

The benchmark groups time the cases users are known to have; this script looks for the
shapes where one path of a kernel falls off (a sorted column once cost the row kernel
300 ns a row against 20 in random order: it looked for a run's end again at each short
turn). For each shape, 1M rows by default, it prints ns/value, the matrix's width and
ns/byte (the text's bytes differ from shape to shape: ns/byte is the figure to compare),
and flags a shape that costs more than ``--flag`` times the uniform PRICE9 column per
byte. Every output is checked against the tests' ``decimal`` reference on a sample of
rows.
Usage::

    PYTHONPATH=$PWD python benchmarks/shapes.py
    NUMBA_CPU_NAME=generic NUMBA_CACHE_DIR=/tmp/generic PYTHONPATH=$PWD \\
        python benchmarks/shapes.py                              # an SSE2-only build

Thread time (``time.thread_time``), median of ``--repeat`` calls: on a shared machine it
moves less than wall time. Shapes whose rows all go to the general path (scale 16, say)
are expected to cost several times more: they are listed to show by how much.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def shapes(n: int, seed: int = 7) -> dict[str, tuple[np.ndarray, object, object]]:
    """``{name: (coef, exps, scales)}``: the shapes of input timed, ``n`` rows each."""
    sys.path.insert(0, str(HERE))
    import conftest as bench  # benchmarks/conftest.py: the groups' data

    rng = np.random.default_rng(seed)
    px = bench.price9_mantissas(n)
    coef, exp, scale, _ = bench.load_prices_tsv()
    pick = np.random.default_rng(bench.SEED).integers(0, len(coef), size=n)
    mc, me, ms = coef[pick], exp[pick], scale[pick]
    runs = np.lexsort((ms, me))
    by_coef = np.argsort(mc, kind="stable")
    ticks = (10 ** rng.uniform(-2, 5, n) * 1e9).astype(np.int64)
    every = np.arange(n)
    two_e, two_s = np.array([-9, -6], np.int32), np.array([4, 2], np.int32)
    return {
        "uniform PRICE9 (-9, 4)": (px, -9, 4),
        "PRICE9 sorted": (np.sort(px), -9, 4),
        "tick prices 0.01-100,000": (ticks, -9, 4),
        "tick prices sorted": (np.sort(ticks), -9, 4),
        "prices mix (per-row layouts)": (mc, me, ms),
        "mix sorted by layout": (mc[runs], me[runs], ms[runs]),
        "mix sorted by layout, descending": (mc[runs[::-1]], me[runs[::-1]], ms[runs[::-1]]),
        "mix sorted by coefficient": (mc[by_coef], me[by_coef], ms[by_coef]),
        "two layouts alternating": (px, np.resize(two_e, n), np.resize(two_s, n)),
        "scales 0..15 in turn": (px // 1000, -6, (every % 16).astype(np.int32)),
        "18-digit coefficients": (rng.integers(10**17, 10**18, n), -9, 4),
        "a 19-digit row every 64th": (np.where(every % 64 == 0, 10**18, px), -9, 4),
        "19-digit first half": (np.where(every < n // 2, 10**18, px), -9, 4),
        "scale 16 (general path)": (px, -9, 16),
        "integers (0, 0)": (px // 10**9, 0, 0),
        "exponent 5, scale 2": (px // 10**9, 5, 2),
        "exponent -30 (all zeros)": (px, -30, 4),
        "all negative": (-px, -9, 4),
        "all zero": (np.zeros(n, np.int64), -9, 4),
        "strided view (every 2nd)": (np.repeat(px, 2)[::2], -9, 4),
    }


def time_call(call: Callable[[], object], repeat: int) -> float:
    """Median thread seconds of ``repeat`` calls (after one untimed call)."""
    call()
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        call()
        times.append(time.thread_time() - start)
    return float(np.median(times))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--flag", type=float, default=3.0, help="flag ns/byte above this x uniform")
    args = parser.parse_args(argv)

    import vecfix

    sys.path.insert(0, str(HERE.parent / "tests"))
    from reference import reference_fixed  # the tests' decimal-based reference

    sample = np.random.default_rng(0).integers(0, args.rows, size=200)
    cpu = os.environ.get("NUMBA_CPU_NAME", "host")
    print(f"{args.rows:,} rows, 1 thread, NUMBA_CPU_NAME={cpu}")
    print(f"{'shape':36s} {'ns/value':>9s} {'width':>6s} {'ns/byte':>8s}")
    base = None
    for name, (coef, exps, scales) in shapes(args.rows).items():
        out = vecfix.format_fixed(coef, exps, scales, threads=1)
        e, s = np.broadcast_to(exps, coef.shape), np.broadcast_to(scales, coef.shape)
        text = out.to_list()
        for i in sample:
            want = reference_fixed(int(coef[i]), int(e[i]), int(s[i]))
            assert text[i] == want, f"{name}: row {i}: {text[i]!r} != {want!r}"

        def call(coef=coef, exps=exps, scales=scales) -> object:
            return vecfix.format_fixed(coef, exps, scales, threads=1)

        took = time_call(call, args.repeat)
        per_value = took / args.rows * 1e9
        per_byte = per_value / max(out.matrix.shape[1], 1)
        base = per_byte if base is None else base
        flag = "  <-- cliff?" if per_byte > args.flag * base else ""
        print(f"{name:36s} {per_value:9.2f} {out.matrix.shape[1]:6d} {per_byte:8.3f}{flag}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
