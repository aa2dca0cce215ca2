"""Benchmark: 100,000 MarketDataSnapshotFullRefresh (35=W) messages x 10 entries.

vecfix builds the whole batch (prices and sizes formatted from int64 coefficients included)
into one buffer. The baseline builds the same messages with simplefix, one
``FixMessage`` per snapshot: ``append_pair(...)`` for every field and ``encode()``. It is
handed the prices and sizes already formatted as text (not timed), so it is measured on
framing alone; both produce byte-identical output, which is checked.

Run with pytest-benchmark (off in the normal test run)::

    pytest benchmarks/test_bench_fix.py --benchmark-enable

or print messages/s and ns/field directly::

    python benchmarks/test_bench_fix.py

``VECFIX_BENCH_SNAPSHOTS`` sets the number of snapshots (default 100000).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np
import pytest

import vecfix
import vecfix.fix as fix

SNAPSHOTS = int(os.environ.get("VECFIX_BENCH_SNAPSHOTS", "100000"))
ENTRIES = 10
HEADER = {"sender": "VECFIX", "target": "CLIENT", "sending_time": "20240102-14:30:00.000"}


@dataclass
class Batch:
    symbols: np.ndarray
    counts: np.ndarray
    types: np.ndarray
    prices: np.ndarray  # int64, PRICE9 (exponent -9)
    sizes: np.ndarray  # int64 contracts

    def build(self) -> fix.Messages:
        return fix.snapshots(
            self.symbols, self.counts, self.types, self.prices, self.sizes,
            price_exponent=-9, price_scale=2, **HEADER,
        )  # fmt: skip


def make_batch(n: int = SNAPSHOTS, k: int = ENTRIES, seed: int = 0) -> Batch:
    """Five levels of bids then offers around 5000.00, quarter ticks, sizes 1..500."""
    rng = np.random.default_rng(seed)
    symbols = np.array([f"ES{'HMUZ'[i % 4]}{i % 10}.{i // 40:05d}" for i in range(n)], dtype="S")
    mid = 5_000_000_000_000 + rng.integers(-4000, 4000, n) * 250_000_000
    level = np.tile(np.r_[np.arange(1, k // 2 + 1), -np.arange(1, k - k // 2 + 1)], n)
    prices = np.repeat(mid, k) - level * 250_000_000
    return Batch(
        symbols=symbols,
        counts=np.full(n, k, dtype=np.int64),
        types=np.tile(np.r_[np.zeros(k // 2), np.ones(k - k // 2)].astype(np.int64), n),
        prices=prices.astype(np.int64),
        sizes=rng.integers(1, 500, n * k),
    )


def simplefix_inputs(batch: Batch) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """The same data as text, prepared outside the timed region."""
    px = vecfix.format_fixed(batch.prices, -9, 2).to_list()
    sz = [str(v) for v in batch.sizes.tolist()]
    types = [str(v) for v in batch.types.tolist()]
    out, e = [], 0
    for sym, k in zip(batch.symbols.tolist(), batch.counts.tolist(), strict=True):
        entries = list(zip(types[e : e + k], px[e : e + k], sz[e : e + k], strict=True))
        out.append((sym.decode(), entries))
        e += k
    return out


def build_with_simplefix(rows: list[tuple[str, list[tuple[str, str, str]]]]) -> list[bytes]:
    import simplefix

    out = []
    for seq, (sym, entries) in enumerate(rows, start=1):
        m = simplefix.FixMessage()
        m.append_pair(8, "FIX.4.4")
        m.append_pair(35, "W")
        m.append_pair(49, HEADER["sender"])
        m.append_pair(56, HEADER["target"])
        m.append_pair(34, seq)
        m.append_pair(52, HEADER["sending_time"])
        m.append_pair(55, sym)
        m.append_pair(268, len(entries))
        for t, px, sz in entries:
            m.append_pair(269, t)
            m.append_pair(270, px)
            m.append_pair(271, sz)
        out.append(m.encode())
    return out


@pytest.fixture(scope="module")
def batch() -> Batch:
    return make_batch()


def _record(benchmark, msgs: fix.Messages) -> None:
    fields = int(np.count_nonzero(msgs.buffer == 1))
    mean = benchmark.stats.stats.mean if benchmark.stats else None
    benchmark.extra_info.update(messages=len(msgs), fields=fields, bytes=msgs.nbytes)
    if mean:
        benchmark.extra_info.update(
            messages_per_s=len(msgs) / mean, ns_per_field=mean / fields * 1e9
        )


def test_bench_vecfix_snapshots(benchmark, batch):
    batch.build()  # compile outside the timing
    msgs = benchmark(batch.build)
    _record(benchmark, msgs)


def test_bench_simplefix_snapshots(benchmark, batch):
    pytest.importorskip("simplefix")
    rows = simplefix_inputs(batch)
    out = benchmark.pedantic(build_with_simplefix, args=(rows,), rounds=1, iterations=1)
    msgs = batch.build()
    assert b"".join(out) == msgs.to_bytes()  # the same messages, byte for byte
    _record(benchmark, msgs)


def main() -> None:
    batch = make_batch()
    msgs = batch.build()
    fields = int(np.count_nonzero(msgs.buffer == 1))
    vec = min(_timed(batch.build) for _ in range(5))
    rows = simplefix_inputs(batch)
    start = time.perf_counter()
    out = build_with_simplefix(rows)
    ref = time.perf_counter() - start
    assert b"".join(out) == msgs.to_bytes()
    print(f"{len(msgs):,} snapshots x {ENTRIES} entries: {fields:,} fields, {msgs.nbytes:,} bytes")
    for name, t in (("vecfix.fix.snapshots", vec), ("simplefix append_pair+encode", ref)):
        print(
            f"{name:30} {t * 1e3:9.1f} ms {len(msgs) / t:13,.0f} msg/s"
            f" {t / fields * 1e9:8.1f} ns/field"
        )
    print(f"speed-up: {ref / vec:.0f}x")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
