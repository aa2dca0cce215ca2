"""The ``vecfix`` command line."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np


def sample_prices(n: int, seed: int = 20261129) -> tuple[np.ndarray, np.ndarray]:
    """A deterministic sample of CME-style PRICE9 mantissas (exponent -9) and sizes.

    Prices sit on real tick sizes (0.25, 0.01, 0.005, 1/32 ...) around a few hundred
    instrument levels; 5% are negative (spreads).
    """
    rng = np.random.default_rng(seed)
    ticks_e9 = np.array([250_000_000, 10_000_000, 5_000_000, 31_250_000, 1_000_000_000])
    levels = rng.integers(1, 20_000, size=300)
    tick = ticks_e9[rng.integers(0, len(ticks_e9), size=n)]
    base = levels[rng.integers(0, len(levels), size=n)] * 1_000_000_000
    px = base + tick * rng.integers(-400, 400, size=n)
    px = np.where(rng.random(n) < 0.05, -px, px).astype(np.int64)
    sizes = rng.integers(1, 5_000, size=n).astype(np.int64)
    return px, sizes


def _demo(args: argparse.Namespace) -> int:
    import decimal

    from . import format_fixed, warmup

    warmup()
    px, _ = sample_prices(args.rows)
    start = time.perf_counter()
    out = format_fixed(px, -9, args.scale)
    fast = time.perf_counter() - start
    k = min(len(px), 20_000)
    ctx = decimal.Context(prec=40, rounding=decimal.ROUND_HALF_UP)
    q = decimal.Decimal(1).scaleb(-args.scale)
    start = time.perf_counter()
    slow_text = [format(ctx.quantize(decimal.Decimal(int(v)).scaleb(-9), q), "f") for v in px[:k]]
    slow = (time.perf_counter() - start) / k * len(px)
    agree = slow_text == out[:k].to_list()
    print(f"vecfix demo: {len(px):,} PRICE9 prices (exponent -9) at scale {args.scale}")
    print(f"  vecfix.format_fixed : {fast * 1e9 / len(px):8.1f} ns/value")
    print(f"  decimal loop        : {slow * 1e9 / len(px):8.1f} ns/value (on {k:,} rows)")
    print(f"  speed-up            : {slow / fast:8.1f}x   same text: {agree}")
    for i in range(min(5, len(px))):
        print(f"  {int(px[i]):>22d} e-9 -> {out[i]}")
    return 0 if agree else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="vecfix", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="format a built-in sample of market data")
    demo.add_argument("--rows", type=int, default=1_000_000, help="rows to format")
    demo.add_argument("--scale", type=int, default=4, help="decimal places")
    args = parser.parse_args(argv)
    return _demo(args)


if __name__ == "__main__":
    sys.exit(main())
