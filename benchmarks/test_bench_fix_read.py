"""Benchmarks: reading FIX back, vecfix.fix.read against simplefix and a bare split loop.

Group ``fix-read``: 100,000 MarketDataSnapshotFullRefresh (35=W) messages of 10 entries
(1,000,000 entries, ~36 MB), built once by vecfix before any timer, read on one thread:

* ``vecfix.fix.read``: the whole log into a ``pyarrow.Table``, one row per entry, every
  BodyLength and CheckSum checked, prices as exact decimals (the baseline);
* the same messages as an engine's log keeps them: one a line, ``|`` for SOH, a time
  before each (read into the ``prefix`` column);
* simplefix, the per-message loop: ``FixParser.append_buffer`` + ``get_message`` for each
  message in turn (fed one large buffer it is quadratic); no checks, no types;
* a bare ``bytes.split(b"\\x01")`` + ``partition(b"=")`` loop over the log: the floor of any
  per-field Python code (no framing, checks, groups or types).

The two Python ways run on the first :data:`SIMPLEFIX_MESSAGES` and
:data:`SPLIT_MESSAGES` messages (they take seconds per hundred thousand entries).
``extra_info["rows"]`` holds the entries read, so ``report.py``'s ns/value reads as
ns/entry; ``entries_per_s`` and ``mb_per_s`` are from the median.

Run with pytest-benchmark (off in the normal test run)::

    python -m pytest benchmarks/test_bench_fix_read.py --benchmark-enable

or print every way's ns/entry and ratio directly::

    python benchmarks/test_bench_fix_read.py
"""

from __future__ import annotations

import os
import time
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

import vecfix
import vecfix.fix as fix

MESSAGES = int(os.environ.get("VECFIX_BENCH_READ_MESSAGES", "100000"))
ENTRIES = 10
SIMPLEFIX_MESSAGES = 2_000
SPLIT_MESSAGES = 20_000
SMOKE_MESSAGES = 200
WHEN = "20240102-14:30:00.000"


def build_log(n: int, seed: int = 0) -> tuple[bytes, list[bytes], np.ndarray]:
    """``n`` 35=W messages of 10 entries (five bid levels, five offers, quarter ticks around
    5000.00, PRICE9 at 2 decimals): the log, its messages, and the prices (int64, cents)."""
    rng = np.random.default_rng(seed)
    symbols = np.array([f"ES{'HMUZ'[i % 4]}{i % 10}.{i // 40:05d}" for i in range(n)], dtype="S")
    mid = 5_000_000_000_000 + rng.integers(-4000, 4000, n) * 250_000_000
    k = ENTRIES
    level = np.tile(np.r_[np.arange(1, k // 2 + 1), -np.arange(1, k - k // 2 + 1)], n)
    prices = np.repeat(mid, k) - level * 250_000_000
    sides = np.tile(np.r_[np.zeros(k // 2), np.ones(k - k // 2)].astype(int), n)
    msgs = fix.snapshots(
        symbols, np.full(n, k), sides, prices, rng.integers(1, 500, n * k),
        price=vecfix.NumberFormat(-9, 2), header=fix.Header("VECFIX", "CLIENT"), sending_time=WHEN,
    )  # fmt: skip
    return msgs.to_bytes(), msgs.to_list(), prices // 10_000_000


def vecfix_read(log: bytes) -> Any:
    return fix.read(log)


def as_engine_log(msgs: list[bytes]) -> bytes:
    """The messages one a line, ``|`` for SOH, each after a time and a direction."""
    return b"".join(
        b"2024-01-02 14:30:00.%06d IN : " % i + m.replace(b"\x01", b"|") + b"\n"
        for i, m in enumerate(msgs)
    )


def simplefix_loop(messages: list[bytes]) -> list[Any]:
    """simplefix's parser fed one message at a time, each message taken out."""
    import simplefix

    parser = simplefix.FixParser()
    out = []
    for msg in messages:
        parser.append_buffer(msg)
        out.append(parser.get_message())
    return out


def split_loop(log: bytes) -> list[tuple[bytes, bytes]]:
    """Every ``TAG=VALUE`` of the log as a pair of bytes: nothing checked or typed."""
    out = []
    append = out.append
    for field in log.split(b"\x01"):
        tag, _, value = field.partition(b"=")
        append((tag, value))
    return out


def check_table(table: Any, cents: np.ndarray) -> None:
    """vecfix read every entry, every message valid, every price to the cent."""
    import pyarrow.compute as pc

    assert table.num_rows == cents.size
    assert pc.all(table["valid"]).as_py()
    px = table["270"].combine_chunks()
    assert px.type.scale == 2
    got = np.frombuffer(px.buffers()[1], dtype=np.int64)[0::2][: cents.size]
    assert np.array_equal(got, cents)


# ---------------------------------------------------------------------------------------
# pytest-benchmark
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def log(enabled) -> tuple[bytes, list[bytes], np.ndarray]:
    return build_log(MESSAGES if enabled else SMOKE_MESSAGES)


def _record(benchmark, label: str, entries: int, nbytes: int, baseline: bool) -> None:
    benchmark.extra_info.update(rows=entries, label=label, baseline=baseline, bytes=nbytes)
    stats = getattr(benchmark, "stats", None)
    if stats:
        median = stats.stats.median
        benchmark.extra_info.update(
            ns_per_entry=median / entries * 1e9,
            entries_per_s=entries / median,
            mb_per_s=nbytes / median / 1e6,
        )


@pytest.mark.benchmark(group="fix-read")
def test_bench_vecfix_read(benchmark, log):
    data, msgs, cents = log
    vecfix_read(data[: len(b"".join(msgs[:2]))])  # compile outside the timing
    table = benchmark(vecfix_read, data)
    check_table(table, cents)
    _record(benchmark, "vecfix.fix.read (whole log, checked, typed)", cents.size, len(data), True)


@pytest.mark.benchmark(group="fix-read")
def test_bench_vecfix_read_engine_log(benchmark, log):
    _, msgs, cents = log
    data = as_engine_log(msgs)
    vecfix_read(as_engine_log(msgs[:2]))  # compile outside the timing
    table = benchmark(vecfix_read, data)
    check_table(table, cents)
    assert table["prefix"][0].as_py() == "2024-01-02 14:30:00.000000 IN :"
    label = "vecfix.fix.read, '|' log with a prefix a line"
    _record(benchmark, label, cents.size, len(data), False)


@pytest.mark.benchmark(group="fix-read")
def test_bench_simplefix_read(benchmark, log):
    pytest.importorskip("simplefix")
    _, msgs, cents = log
    sample = msgs[:SIMPLEFIX_MESSAGES]
    out = benchmark.pedantic(simplefix_loop, args=(sample,), rounds=1, iterations=1)
    assert len(out) == len(sample)
    first = out[0]
    assert [Decimal(first.get(270, 1).decode()), Decimal(first.get(270, 10).decode())] == [
        Decimal(int(cents[0])) / 100,
        Decimal(int(cents[9])) / 100,
    ]
    nbytes = sum(map(len, sample))
    _record(benchmark, "simplefix, message by message", len(sample) * ENTRIES, nbytes, False)


@pytest.mark.benchmark(group="fix-read")
def test_bench_split_loop(benchmark, log):
    _, msgs, _ = log
    sample = b"".join(msgs[:SPLIT_MESSAGES])
    out = benchmark.pedantic(split_loop, args=(sample,), rounds=1, iterations=1)
    assert len(out) == sample.count(b"\x01") + 1
    entries = min(SPLIT_MESSAGES, len(msgs)) * ENTRIES
    _record(benchmark, "bytes.split + partition loop", entries, len(sample), False)


# ---------------------------------------------------------------------------------------
# Direct run: ns/entry and ratios, CPU time of this thread
# ---------------------------------------------------------------------------------------


def _best(fn, *args, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.thread_time()
        fn(*args)
        best = min(best, time.thread_time() - start)
    return best


def main() -> None:
    data, msgs, cents = build_log(MESSAGES)
    vecfix_read(b"".join(msgs[:2]))
    check_table(vecfix_read(data), cents)
    entries = cents.size
    ours = _best(vecfix_read, data, repeat=5) / entries
    engine_log = as_engine_log(msgs)
    check_table(vecfix_read(engine_log), cents)
    piped = _best(vecfix_read, engine_log, repeat=5) / entries
    simple = _best(simplefix_loop, msgs[:SIMPLEFIX_MESSAGES], repeat=1)
    simple /= min(SIMPLEFIX_MESSAGES, len(msgs)) * ENTRIES
    split = _best(split_loop, b"".join(msgs[:SPLIT_MESSAGES]), repeat=1)
    split /= min(SPLIT_MESSAGES, len(msgs)) * ENTRIES
    print(f"vecfix {vecfix.__version__}, {entries:,} entries, {len(data) / 1e6:.1f} MB (CPU time)")
    print(
        f"vecfix.fix.read   {ours * 1e9:9.1f} ns/entry  {1e-6 / ours:6.2f} M entries/s"
        f"  {len(data) / entries / ours / 1e6:6.0f} MB/s"
    )
    print(f"'|' log, prefixes {piped * 1e9:9.1f} ns/entry  x{piped / ours:.2f}")
    print(f"simplefix loop    {simple * 1e9:9.1f} ns/entry  x{simple / ours:.0f}")
    print(f"split loop        {split * 1e9:9.1f} ns/entry  x{split / ours:.1f}")


if __name__ == "__main__":
    main()
