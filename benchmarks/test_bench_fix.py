"""Benchmarks: FIX messages for a batch, vecfix against simplefix and the per-value way.

Four groups, each comparing in one run:

``fix-snapshots``
    100,000 MarketDataSnapshotFullRefresh (35=W) x 10 entries from int64 columns.
``fix-massquote``
    2,000,000 two-sided quotes from a polars DataFrame (symbol, PRICE9 bid/offer, sizes)
    into MassQuote (35=i) messages of 100 entries.
``fix-incremental``
    2,000,000 book updates from a polars DataFrame into MarketDataIncrementalRefresh
    (35=X) messages of 100 entries.
``fix-one``
    One Quote (35=S) from Python values: the fixed cost of a call, for a loop that sends
    each quote as it comes (vecfix is built for batches; this is its floor).

Against vecfix (the baseline of each group, prices and sizes formatted from the integer
columns inside the timed call):

* simplefix: one ``FixMessage`` per message, ``append_pair`` for every field, then
  ``encode()`` (which computes 9 and 10). It is handed the prices and sizes already
  formatted as text (not timed), so it is measured on framing alone;
* the per-value way: ``decimal`` for each price (``Decimal(c).scaleb(-9).quantize``),
  f-strings for each field, BodyLength and CheckSum computed in Python.

The two Python ways run on the first :data:`BASELINE_ENTRIES` entries (they take seconds
per hundred thousand); each way's output is checked byte for byte against vecfix's for the
same rows. ``extra_info["rows"]`` holds the fields written, so ``report.py``'s ns/value
reads as ns/field.

Run with pytest-benchmark (off in the normal test run)::

    python -m pytest benchmarks/test_bench_fix.py --benchmark-enable

or print every way's ns/field and ratio directly::

    python benchmarks/test_bench_fix.py
"""

from __future__ import annotations

import decimal
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import vecfix
import vecfix.fix as fix

SNAPSHOTS = int(os.environ.get("VECFIX_BENCH_SNAPSHOTS", "100000"))
QUOTES = int(os.environ.get("VECFIX_BENCH_QUOTES", "2000000"))
BASELINE_ENTRIES = 100_000
SMOKE_ENTRIES = 2_000
ENTRIES = 10
PER_MESSAGE = 100
WHEN = "20240102-14:30:00.000"
PRICES = {"price": vecfix.NumberFormat(-9, 2)}  # PRICE9; sizes: whole numbers, no format


# ---------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------


@dataclass
class Batch:
    symbols: np.ndarray
    counts: np.ndarray
    types: np.ndarray
    prices: np.ndarray  # int64, PRICE9 (exponent -9)
    sizes: np.ndarray  # int64 contracts

    def build(self) -> fix.Messages:
        return fix.snapshots(
            self.symbols,
            self.counts,
            self.types,
            self.prices,
            self.sizes,
            **PRICES,
            header=fix.Header("VECFIX", "CLIENT"),
            sending_time=WHEN,
        )


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


def quote_frame(n: int, seed: int = 1):
    """``n`` quotes on 2,000 symbols: PRICE9 bids and offers a tick apart, sizes 1..500;
    one side in 50 is missing (null), as in a real book."""
    import polars as pl

    rng = np.random.default_rng(seed)
    names = np.array([f"ES{'HMUZ'[i % 4]}{i % 10}.{i:04d}" for i in range(2000)])
    mid = 5_000_000_000_000 + rng.integers(-4000, 4000, n) * 250_000_000
    one_sided = rng.random(n) < 0.02
    return pl.DataFrame(
        {
            "symbol": names[rng.integers(0, names.size, n)],
            "bid": mid - 125_000_000,
            "offer": pl.Series(mid + 125_000_000).set(pl.Series(one_sided), None),
            "bid_size": rng.integers(1, 500, n),
            "offer_size": pl.Series(rng.integers(1, 500, n)).set(pl.Series(one_sided), None),
            "action": rng.integers(0, 3, n),
            "side": rng.integers(0, 2, n),
        }
    )


def vecfix_mass_quotes(df) -> fix.Messages:
    return fix.mass_quotes(
        df["symbol"], df["bid"], df["offer"], df["bid_size"], df["offer_size"],
        max_entries=PER_MESSAGE, header=fix.Header("VECFIX", "CLIENT"), sending_time=WHEN,
        **PRICES,
    )  # fmt: skip


def vecfix_incremental(df) -> fix.Messages:
    return fix.incremental(
        df["action"], df["side"], df["symbol"], df["bid"], df["bid_size"],
        max_entries=PER_MESSAGE, header=fix.Header("VECFIX", "CLIENT"), sending_time=WHEN,
        **PRICES,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------
# The other ways
# ---------------------------------------------------------------------------------------

_CENT = decimal.Decimal("0.01")


def _px(c: int | None) -> str | None:
    """The per-value way for one PRICE9 price at 2 decimals (half away from zero)."""
    if c is None:
        return None
    q = decimal.Decimal(c).scaleb(-9).quantize(_CENT, decimal.ROUND_HALF_UP)
    return format(q, "f")


def _frame(seq: int, msg_type: str, body: str) -> bytes:
    """Header, BodyLength and CheckSum the plain way, around a body of ``TAG=V|`` fields."""
    head = f"35={msg_type}\x0149=VECFIX\x0156=CLIENT\x0134={seq}\x0152={WHEN}\x01"
    payload = (head + body).encode()
    msg = b"8=FIX.4.4\x019=%d\x01" % len(payload) + payload
    return msg + b"10=%03d\x01" % (sum(msg) % 256)


def _rows(df, columns: list[str]) -> list[tuple]:
    return list(zip(*(df[c].to_list() for c in columns), strict=True))


def fstring_mass_quotes(rows: list[tuple]) -> list[bytes]:
    """``rows``: (symbol, bid, offer, bid size, offer size) with ints and None."""
    out = []
    for m, start in enumerate(range(0, len(rows), PER_MESSAGE)):
        part = rows[start : start + PER_MESSAGE]
        body = [f"117={m + 1}\x01296=1\x01302={m + 1}\x01304={len(part)}\x01295={len(part)}\x01"]
        for k, (sym, bid, offer, bsz, osz) in enumerate(part, start=1):
            body.append(f"299={k}\x0155={sym}\x01")
            for tag, v in ((132, _px(bid)), (133, _px(offer))):
                if v is not None:
                    body.append(f"{tag}={v}\x01")
            for tag, v in ((134, bsz), (135, osz)):
                if v is not None:
                    body.append(f"{tag}={v}\x01")
        out.append(_frame(m + 1, "i", "".join(body)))
    return out


def fstring_incremental(rows: list[tuple]) -> list[bytes]:
    """``rows``: (action, side, symbol, price, size)."""
    out = []
    for m, start in enumerate(range(0, len(rows), PER_MESSAGE)):
        part = rows[start : start + PER_MESSAGE]
        body = [f"268={len(part)}\x01"]
        for action, side, sym, px, sz in part:
            body.append(f"279={action}\x01269={side}\x0155={sym}\x01270={_px(px)}\x01271={sz}\x01")
        out.append(_frame(m + 1, "X", "".join(body)))
    return out


def _simplefix_message(seq: int, msg_type: str):
    import simplefix

    m = simplefix.FixMessage()
    m.append_pair(8, "FIX.4.4")
    m.append_pair(35, msg_type)
    m.append_pair(49, "VECFIX")
    m.append_pair(56, "CLIENT")
    m.append_pair(34, seq)
    m.append_pair(52, WHEN)
    return m


def as_text(rows: list[tuple], price_columns: tuple[int, ...]) -> list[tuple]:
    """The rows with prices already formatted (simplefix is timed on framing alone)."""
    return [tuple(_px(v) if i in price_columns else v for i, v in enumerate(row)) for row in rows]


def simplefix_mass_quotes(rows: list[tuple]) -> list[bytes]:
    """``rows``: (symbol, bid text, offer text, bid size, offer size)."""
    out = []
    for m, start in enumerate(range(0, len(rows), PER_MESSAGE)):
        part = rows[start : start + PER_MESSAGE]
        msg = _simplefix_message(m + 1, "i")
        msg.append_pair(117, m + 1)
        msg.append_pair(296, 1)
        msg.append_pair(302, m + 1)
        msg.append_pair(304, len(part))
        msg.append_pair(295, len(part))
        for k, row in enumerate(part, start=1):
            msg.append_pair(299, k)
            msg.append_pair(55, row[0])
            for tag, v in zip((132, 133, 134, 135), row[1:], strict=True):
                if v is not None:
                    msg.append_pair(tag, v)
        out.append(msg.encode())
    return out


def simplefix_incremental(rows: list[tuple]) -> list[bytes]:
    """``rows``: (action, side, symbol, price text, size)."""
    out = []
    for m, start in enumerate(range(0, len(rows), PER_MESSAGE)):
        part = rows[start : start + PER_MESSAGE]
        msg = _simplefix_message(m + 1, "X")
        msg.append_pair(268, len(part))
        for action, side, sym, px, sz in part:
            msg.append_pair(279, action)
            msg.append_pair(269, side)
            msg.append_pair(55, sym)
            msg.append_pair(270, px)
            msg.append_pair(271, sz)
        out.append(msg.encode())
    return out


def simplefix_snapshots(rows: list[tuple[str, list[tuple[str, str, str]]]]) -> list[bytes]:
    out = []
    for seq, (sym, entries) in enumerate(rows, start=1):
        m = _simplefix_message(seq, "W")
        m.append_pair(55, sym)
        m.append_pair(268, len(entries))
        for t, px, sz in entries:
            m.append_pair(269, t)
            m.append_pair(270, px)
            m.append_pair(271, sz)
        out.append(m.encode())
    return out


def snapshot_rows(batch: Batch) -> list[tuple[str, list[tuple[str, str, str]]]]:
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


# ---------------------------------------------------------------------------------------
# pytest-benchmark
# ---------------------------------------------------------------------------------------

MQ_COLUMNS = ["symbol", "bid", "offer", "bid_size", "offer_size"]
X_COLUMNS = ["action", "side", "symbol", "bid", "bid_size"]


@pytest.fixture(scope="module")
def quotes_df(enabled):
    pytest.importorskip("polars")
    return quote_frame(QUOTES if enabled else SMOKE_ENTRIES)


@pytest.fixture(scope="module")
def batch(enabled) -> Batch:
    return make_batch(SNAPSHOTS if enabled else SMOKE_ENTRIES // ENTRIES)


def _fields(data: bytes | np.ndarray) -> int:
    if isinstance(data, np.ndarray):
        return int(np.count_nonzero(data == 1))
    return data.count(b"\x01")


def _record(benchmark, label: str, fields: int, messages: int, baseline: bool, same=None):
    benchmark.extra_info.update(rows=fields, label=label, baseline=baseline, messages=messages)
    if same is not None:
        benchmark.extra_info["same_text"] = same
    stats = getattr(benchmark, "stats", None)
    if stats:
        median = stats.stats.median
        benchmark.extra_info.update(
            ns_per_field=median / fields * 1e9, messages_per_s=messages / median
        )


def _subset(df, n: int = BASELINE_ENTRIES):
    return df.head(min(n, df.height))


@pytest.mark.benchmark(group="fix-massquote")
def test_bench_vecfix_mass_quotes(benchmark, quotes_df):
    vecfix_mass_quotes(quotes_df[:10])  # compile outside the timing
    msgs = benchmark(vecfix_mass_quotes, quotes_df)
    _record(benchmark, "vecfix.fix.mass_quotes from polars", _fields(msgs.buffer), len(msgs), True)


@pytest.mark.benchmark(group="fix-massquote")
def test_bench_simplefix_mass_quotes(benchmark, quotes_df):
    pytest.importorskip("simplefix")
    sub = _subset(quotes_df)
    rows = as_text(_rows(sub, MQ_COLUMNS), (1, 2))
    out = benchmark.pedantic(simplefix_mass_quotes, args=(rows,), rounds=1, iterations=1)
    same = b"".join(out) == vecfix_mass_quotes(sub).to_bytes()
    assert same
    _record(
        benchmark, "simplefix append_pair + encode", _fields(b"".join(out)), len(out), False, same
    )


@pytest.mark.benchmark(group="fix-massquote")
def test_bench_fstring_mass_quotes(benchmark, quotes_df):
    sub = _subset(quotes_df)
    rows = _rows(sub, MQ_COLUMNS)
    out = benchmark.pedantic(fstring_mass_quotes, args=(rows,), rounds=1, iterations=1)
    same = b"".join(out) == vecfix_mass_quotes(sub).to_bytes()
    assert same
    _record(
        benchmark, "decimal + f-strings, per value", _fields(b"".join(out)), len(out), False, same
    )


@pytest.mark.benchmark(group="fix-incremental")
def test_bench_vecfix_incremental(benchmark, quotes_df):
    vecfix_incremental(quotes_df[:10])
    msgs = benchmark(vecfix_incremental, quotes_df)
    _record(benchmark, "vecfix.fix.incremental from polars", _fields(msgs.buffer), len(msgs), True)
    benchmark.extra_info["entries"] = quotes_df.height


@pytest.mark.benchmark(group="fix-incremental")
def test_bench_simplefix_incremental(benchmark, quotes_df):
    pytest.importorskip("simplefix")
    sub = _subset(quotes_df)
    rows = as_text(_rows(sub, X_COLUMNS), (3,))
    out = benchmark.pedantic(simplefix_incremental, args=(rows,), rounds=1, iterations=1)
    same = b"".join(out) == vecfix_incremental(sub).to_bytes()
    assert same
    _record(
        benchmark, "simplefix append_pair + encode", _fields(b"".join(out)), len(out), False, same
    )


@pytest.mark.benchmark(group="fix-incremental")
def test_bench_fstring_incremental(benchmark, quotes_df):
    sub = _subset(quotes_df)
    rows = _rows(sub, X_COLUMNS)
    out = benchmark.pedantic(fstring_incremental, args=(rows,), rounds=1, iterations=1)
    same = b"".join(out) == vecfix_incremental(sub).to_bytes()
    assert same
    _record(
        benchmark, "decimal + f-strings, per value", _fields(b"".join(out)), len(out), False, same
    )


@pytest.mark.benchmark(group="fix-snapshots")
def test_bench_vecfix_snapshots(benchmark, batch):
    batch.build()  # compile outside the timing
    msgs = benchmark(batch.build)
    _record(benchmark, "vecfix.fix.snapshots", _fields(msgs.buffer), len(msgs), True)


@pytest.mark.benchmark(group="fix-snapshots")
def test_bench_simplefix_snapshots(benchmark, batch):
    pytest.importorskip("simplefix")
    rows = snapshot_rows(batch)
    out = benchmark.pedantic(simplefix_snapshots, args=(rows,), rounds=1, iterations=1)
    same = b"".join(out) == batch.build().to_bytes()
    assert same  # the same messages, byte for byte
    _record(
        benchmark, "simplefix append_pair + encode", _fields(b"".join(out)), len(out), False, same
    )


# ---------------------------------------------------------------------------------------
# fix-one: one Quote (35=S) at a time, as a loop that sends each quote as it comes
# ---------------------------------------------------------------------------------------

#: One two-sided quote: symbol, PRICE9 bid and offer, sizes.
ONE_QUOTE = ("EURUSD", 1_082_150_000, 1_082_249_999, 1_000_000, 2_000_000)


def vecfix_one_quote(header: fix.Header, quote: tuple = ONE_QUOTE) -> fix.Messages:
    """One quote from Python values, numbered by a ``Header`` kept across calls (as a
    loop sending quotes one at a time keeps its sequence numbers)."""
    sym, bid, offer, bid_size, offer_size = quote
    return fix.quotes(
        [sym], [bid], [offer], [bid_size], [offer_size], quote_ids=["Q1"], **PRICES,
        header=header, sending_time=WHEN,
    )  # fmt: skip


def fstring_one_quote(seq: int = 1, quote: tuple = ONE_QUOTE) -> bytes:
    sym, bid, offer, bid_size, offer_size = quote
    body = f"117=Q1\x0155={sym}\x01132={_px(bid)}\x01133={_px(offer)}\x01"
    return _frame(seq, "S", body + f"134={bid_size}\x01135={offer_size}\x01")


def simplefix_one_quote(quote: tuple, seq: int = 1) -> bytes:
    """``quote`` with its prices already text (simplefix is timed on framing alone)."""
    msg = _simplefix_message(seq, "S")
    msg.append_pair(117, "Q1")
    for tag, value in zip((55, 132, 133, 134, 135), quote, strict=True):
        msg.append_pair(tag, value)
    return msg.encode()


def _first_quote() -> bytes:
    return vecfix_one_quote(fix.Header("VECFIX", "CLIENT")).to_bytes()


@pytest.mark.benchmark(group="fix-one")
def test_bench_vecfix_one_quote(benchmark):
    assert _first_quote() == fstring_one_quote()
    header = fix.Header("VECFIX", "CLIENT")
    msgs = benchmark(vecfix_one_quote, header)
    _record(benchmark, "vecfix.fix.quotes, one quote (lists of one)", _fields(msgs.buffer), 1, True)


@pytest.mark.benchmark(group="fix-one")
def test_bench_fstring_one_quote(benchmark):
    out = benchmark(fstring_one_quote)
    same = out == _first_quote()
    assert same
    _record(benchmark, "decimal + f-strings, one quote", _fields(out), 1, False, same)


@pytest.mark.benchmark(group="fix-one")
def test_bench_simplefix_one_quote(benchmark):
    pytest.importorskip("simplefix")
    quote = (ONE_QUOTE[0], _px(ONE_QUOTE[1]), _px(ONE_QUOTE[2]), *ONE_QUOTE[3:])
    out = benchmark(simplefix_one_quote, quote)
    same = out == _first_quote()
    assert same
    _record(benchmark, "simplefix append_pair + encode, one quote", _fields(out), 1, False, same)


# ---------------------------------------------------------------------------------------
# python benchmarks/test_bench_fix.py
# ---------------------------------------------------------------------------------------


def _median(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return float(np.median(times))


def main() -> None:
    """Every way's median thread time, ns/field and ratio to vecfix, group by group."""
    df = quote_frame(QUOTES)
    sub = _subset(df)
    batch = make_batch()
    snap_sub = make_batch(BASELINE_ENTRIES // ENTRIES)
    groups = [
        (
            "35=i MassQuote", df, sub, vecfix_mass_quotes,
            [("simplefix", simplefix_mass_quotes, as_text(_rows(sub, MQ_COLUMNS), (1, 2))),
             ("decimal + f-strings", fstring_mass_quotes, _rows(sub, MQ_COLUMNS))],
        ),
        (
            "35=X incremental", df, sub, vecfix_incremental,
            [("simplefix", simplefix_incremental, as_text(_rows(sub, X_COLUMNS), (3,))),
             ("decimal + f-strings", fstring_incremental, _rows(sub, X_COLUMNS))],
        ),
        (
            "35=W snapshots", batch, snap_sub, Batch.build,
            [("simplefix", simplefix_snapshots, snapshot_rows(snap_sub))],
        ),
    ]  # fmt: skip
    for title, data, small, build, others in groups:
        msgs = build(data)
        t = _median(lambda b=build, d=data: b(d), 7)
        fields = _fields(msgs.buffer)
        entries = getattr(data, "height", None) or int(data.counts.sum())
        print(f"\n{title}: {entries:,} entries, {len(msgs):,} messages, {fields:,} fields")
        base = t / fields * 1e9
        print(f"  {'vecfix':22} {t * 1e3:9.1f} ms  {base:7.1f} ns/field   1.0x"
              f"  {entries / t / 1e6:6.2f} M entries/s")  # fmt: skip
        want = build(small).to_bytes()
        for name, fn, rows in others:
            start = time.thread_time()
            out = fn(rows)
            spent = time.thread_time() - start
            n_fields = _fields(b"".join(out))
            ns = spent / n_fields * 1e9
            same = "same bytes" if b"".join(out) == want else "DIFFERENT BYTES"
            print(f"  {name:22} {spent * 1e3:9.1f} ms  {ns:7.1f} ns/field {ns / base:6.0f}x"
                  f"  ({n_fields:,} fields, {same})")  # fmt: skip


if __name__ == "__main__":
    main()
