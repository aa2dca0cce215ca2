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
``fix-tick-N``
    ``fix.quotes`` of N = 1, 8, 64, 1,000 and 100,000 quotes a call (a tick's re-quotes,
    then batches) against simplefix building a message a quote, its prices made exact
    text by :mod:`decimal` inside the timed call, and ``fix.mass_quotes`` of the same
    quotes (35=i, 100 entries a message); ``extra_info["ns_per_message"]`` (a quote).
    ``python benchmarks/test_bench_fix.py --tick`` prints the table alone (ns/message and
    the ratio, the two ways interleaved, best of rounds).

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
reads as ns/field. The groups are one table, :data:`GROUPS`, for the tests and :func:`main`.

Run with pytest-benchmark (off in the normal test run)::

    python -m pytest benchmarks/test_bench_fix.py --benchmark-enable

or print every way's ns/field and ratio directly::

    python benchmarks/test_bench_fix.py
"""

from __future__ import annotations

import decimal
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pytest

import vecfix
import vecfix.fix as fix

WHEN = "20240102-14:30:00.000"
PRICES = {"price": vecfix.NumberFormat(-9, 2)}  # PRICE9; sizes: whole numbers, no format
SNAPSHOTS = int(os.environ.get("VECFIX_BENCH_SNAPSHOTS", "100000"))
QUOTES = int(os.environ.get("VECFIX_BENCH_QUOTES", "2000000"))
ENTRIES, PER_MESSAGE = 10, 100  # entries a snapshot; a MassQuote's or a refresh's
BASELINE_ENTRIES, SMOKE_ENTRIES = 100_000, 2_000  # the Python ways'; every way's when not timed


@dataclass
class Batch:
    symbols: np.ndarray
    counts: np.ndarray
    types: np.ndarray
    prices: np.ndarray  # int64, PRICE9 (exponent -9)
    sizes: np.ndarray  # int64 contracts

    def build(self) -> fix.Messages:
        return fix.snapshots(
            self.symbols, self.counts, self.types, self.prices, self.sizes, **PRICES,
            header=fix.Header("VECFIX", "CLIENT"), sending_time=WHEN,
        )  # fmt: skip

    def head(self, entries: int) -> Batch:
        """The first messages, ``entries`` entries in all (whole messages)."""
        n = entries // ENTRIES
        e = int(self.counts[:n].sum())
        return Batch(
            self.symbols[:n],
            self.counts[:n],
            *(a[:e] for a in (self.types, self.prices, self.sizes)),
        )

    @property
    def height(self) -> int:
        return int(self.counts.sum())


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


def _rows(columns: list[str], prices: tuple[int, ...] = ()) -> Callable[..., list[tuple]]:
    """The rows of a frame's ``columns`` as Python values, the ``prices`` (positions)
    already formatted as text (simplefix is timed on framing alone)."""

    def rows(df) -> list[tuple]:
        out = zip(*(df[c].to_list() for c in columns), strict=True)
        return [tuple(_px(v) if i in prices else v for i, v in enumerate(r)) for r in out]

    return rows


def _messages(rows: list[tuple]):
    """The rows in messages of :data:`PER_MESSAGE`, with their MsgSeqNum."""
    return (
        (m + 1, rows[at : at + PER_MESSAGE])
        for m, at in enumerate(range(0, len(rows), PER_MESSAGE))
    )


def fstring_mass_quotes(rows: list[tuple]) -> list[bytes]:
    """``rows``: (symbol, bid, offer, bid size, offer size) with ints and None."""
    out = []
    for seq, part in _messages(rows):
        body = [f"117={seq}\x01296=1\x01302={seq}\x01304={len(part)}\x01295={len(part)}\x01"]
        for k, (sym, bid, offer, bsz, osz) in enumerate(part, start=1):
            body.append(f"299={k}\x0155={sym}\x01")
            for tag, v in ((132, _px(bid)), (133, _px(offer)), (134, bsz), (135, osz)):
                if v is not None:
                    body.append(f"{tag}={v}\x01")
        out.append(_frame(seq, "i", "".join(body)))
    return out


def fstring_incremental(rows: list[tuple]) -> list[bytes]:
    """``rows``: (action, side, symbol, price, size)."""
    out = []
    for seq, part in _messages(rows):
        body = [f"268={len(part)}\x01"]
        for action, side, sym, px, sz in part:
            body.append(f"279={action}\x01269={side}\x0155={sym}\x01270={_px(px)}\x01271={sz}\x01")
        out.append(_frame(seq, "X", "".join(body)))
    return out


def _simplefix_message(seq: int, msg_type: str, *pairs: tuple[int, object]):
    import simplefix

    m = simplefix.FixMessage()
    for tag, value in ((8, "FIX.4.4"), (35, msg_type), (49, "VECFIX"), (56, "CLIENT"),
                       (34, seq), (52, WHEN), *pairs):  # fmt: skip
        if value is not None:
            m.append_pair(tag, value)
    return m


def simplefix_mass_quotes(rows: list[tuple]) -> list[bytes]:
    """``rows``: (symbol, bid text, offer text, bid size, offer size)."""
    out = []
    for seq, part in _messages(rows):
        n = len(part)
        msg = _simplefix_message(seq, "i", (117, seq), (296, 1), (302, seq), (304, n), (295, n))
        for k, row in enumerate(part, start=1):
            for tag, v in zip((299, 55, 132, 133, 134, 135), (k, *row), strict=True):
                if v is not None:
                    msg.append_pair(tag, v)
        out.append(msg.encode())
    return out


def simplefix_incremental(rows: list[tuple]) -> list[bytes]:
    """``rows``: (action, side, symbol, price text, size)."""
    out = []
    for seq, part in _messages(rows):
        msg = _simplefix_message(seq, "X", (268, len(part)))
        for row in part:
            for tag, v in zip((279, 269, 55, 270, 271), row, strict=True):
                msg.append_pair(tag, v)
        out.append(msg.encode())
    return out


def snapshot_rows(batch: Batch) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """The batch as text: (symbol, [(type, price, size) per entry]) per message."""
    px = vecfix.format_fixed(batch.prices, -9, 2).to_list()
    sz = [str(v) for v in batch.sizes.tolist()]
    types = [str(v) for v in batch.types.tolist()]
    out, e = [], 0
    for sym, k in zip(batch.symbols.tolist(), batch.counts.tolist(), strict=True):
        out.append(
            (sym.decode(), list(zip(types[e : e + k], px[e : e + k], sz[e : e + k], strict=True)))
        )
        e += k
    return out


def simplefix_snapshots(rows: list[tuple[str, list[tuple[str, str, str]]]]) -> list[bytes]:
    out = []
    for seq, (sym, entries) in enumerate(rows, start=1):
        m = _simplefix_message(seq, "W", (55, sym), (268, len(entries)))
        for t, px, sz in entries:
            for tag, v in ((269, t), (270, px), (271, sz)):
                m.append_pair(tag, v)
        out.append(m.encode())
    return out


@dataclass
class Group:
    """One group: vecfix's label, its build and its data (a fixture), and the other ways,
    ``{label: (way, its input from the data)}``."""

    label: str
    build: Callable
    data: str
    others: dict[str, tuple[Callable, Callable]]


SIMPLEFIX, FSTRING = "simplefix append_pair + encode", "decimal + f-strings, per value"
MQ_COLUMNS = ["symbol", "bid", "offer", "bid_size", "offer_size"]
X_COLUMNS = ["action", "side", "symbol", "bid", "bid_size"]
GROUPS = {
    "fix-massquote": Group(
        "vecfix.fix.mass_quotes from polars", vecfix_mass_quotes, "quotes_df",
        {SIMPLEFIX: (simplefix_mass_quotes, _rows(MQ_COLUMNS, (1, 2))),
         FSTRING: (fstring_mass_quotes, _rows(MQ_COLUMNS))},
    ),
    "fix-incremental": Group(
        "vecfix.fix.incremental from polars", vecfix_incremental, "quotes_df",
        {SIMPLEFIX: (simplefix_incremental, _rows(X_COLUMNS, (3,))),
         FSTRING: (fstring_incremental, _rows(X_COLUMNS))},
    ),
    "fix-snapshots": Group(
        "vecfix.fix.snapshots", Batch.build, "batch",
        {SIMPLEFIX: (simplefix_snapshots, snapshot_rows)},
    ),
}  # fmt: skip


# ---------------------------------------------------------------------------------------
# pytest-benchmark
# ---------------------------------------------------------------------------------------


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
            ns_per_field=median / fields * 1e9,
            messages_per_s=messages / median,
            ns_per_message=median / messages * 1e9,
        )


@pytest.mark.parametrize("group", GROUPS)
def test_bench_vecfix(benchmark, request, group):
    g = GROUPS[group]
    data = request.getfixturevalue(g.data)
    g.build(data)  # compile (or load) and warm outside the timing
    benchmark.group = group
    msgs = benchmark(g.build, data)
    _record(benchmark, g.label, _fields(msgs.buffer), len(msgs), True)
    benchmark.extra_info["entries"] = data.height


@pytest.mark.parametrize(("group", "other"), [(g, w) for g in GROUPS for w in GROUPS[g].others])
def test_bench_other(benchmark, request, group, other):
    if other == SIMPLEFIX:
        pytest.importorskip("simplefix")
    g = GROUPS[group]
    sub = request.getfixturevalue(g.data).head(BASELINE_ENTRIES)
    fn, rows = g.others[other]
    benchmark.group = group
    out = benchmark.pedantic(fn, args=(rows(sub),), rounds=1, iterations=1)
    same = b"".join(out) == g.build(sub).to_bytes()
    assert same  # the same messages, byte for byte
    _record(benchmark, other, _fields(b"".join(out)), len(out), False, same)


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
    pairs = zip((55, 132, 133, 134, 135), quote, strict=True)
    return _simplefix_message(seq, "S", (117, "Q1"), *pairs).encode()


ONE_TEXT = (ONE_QUOTE[0], _px(ONE_QUOTE[1]), _px(ONE_QUOTE[2]), *ONE_QUOTE[3:])
ONE_WAYS = {  # label: the call to time, made afresh (vecfix's with a new Header)
    "vecfix.fix.quotes, one quote (lists of one)": lambda: partial(
        vecfix_one_quote, fix.Header("VECFIX", "CLIENT")
    ),
    "decimal + f-strings, one quote": lambda: fstring_one_quote,
    "simplefix append_pair + encode, one quote": lambda: partial(simplefix_one_quote, ONE_TEXT),
}


def _bytes(out: fix.Messages | bytes) -> bytes:
    return out.to_bytes() if isinstance(out, fix.Messages) else out


@pytest.mark.benchmark(group="fix-one")
@pytest.mark.parametrize("one", ONE_WAYS)
def test_bench_one_quote(benchmark, one):
    if "simplefix" in one:
        pytest.importorskip("simplefix")
    first = _bytes(next(iter(ONE_WAYS.values()))()())  # vecfix's first message
    same = _bytes(ONE_WAYS[one]()()) == first
    assert same  # the same message, byte for byte
    out = _bytes(benchmark(ONE_WAYS[one]()))
    baseline = one.startswith("vecfix")
    _record(benchmark, one, _fields(out), 1, baseline, None if baseline else same)


# ---------------------------------------------------------------------------------------
# fix-tick: a tick's quotes, 1 to 100,000 a call, against simplefix's per-message loop
# ---------------------------------------------------------------------------------------

#: Quotes a call: a tick re-quoting one instrument, eight, sixty-four; then batches.
TICK_SIZES = (1, 8, 64, 1_000, 100_000)
TICK_SIMPLEFIX = "simplefix, a message a quote, Decimal prices"


@dataclass
class Tick:
    """One call's quotes as a publisher holds them: symbols and IDs as lists of str,
    PRICE9 prices and whole sizes as int64 arrays."""

    symbols: list[str]
    quote_ids: list[str]
    bid: np.ndarray
    offer: np.ndarray
    bid_size: np.ndarray
    offer_size: np.ndarray

    def __len__(self) -> int:
        return len(self.symbols)


def tick(n: int, seed: int = 3) -> Tick:
    rng = np.random.default_rng(seed)
    bid = rng.integers(1_000, 20_000, n) * 250_000_000  # PRICE9, quarter ticks
    return Tick(
        [f"ES{'HMUZ'[i % 4]}{5 + i % 3}" for i in range(n)], [f"Q{i}" for i in range(n)],
        bid, bid + 250_000_000 * rng.integers(1, 4, n),
        rng.integers(1, 500, n), rng.integers(1, 500, n),
    )  # fmt: skip


def vecfix_tick(t: Tick, header: fix.Header) -> fix.Messages:
    """The per-tick call: one ``fix.quotes`` for the tick's quotes."""
    return fix.quotes(
        t.symbols, t.bid, t.offer, t.bid_size, t.offer_size, quote_ids=t.quote_ids,
        **PRICES, header=header, sending_time=WHEN,
    )  # fmt: skip


def simplefix_tick(t: Tick, first_seq: int = 1) -> list[bytes]:
    """A message a quote, its prices made exact text by :mod:`decimal` inside the call
    (what a per-message publisher pays: the prices arrive as PRICE9 integers too)."""
    out = []
    bid, offer = t.bid.tolist(), t.offer.tolist()
    bid_size, offer_size = t.bid_size.tolist(), t.offer_size.tolist()
    for i in range(len(t)):
        pairs = ((117, t.quote_ids[i]), (55, t.symbols[i]), (132, _px(bid[i])),
                 (133, _px(offer[i])), (134, bid_size[i]), (135, offer_size[i]))  # fmt: skip
        out.append(_simplefix_message(first_seq + i, "S", *pairs).encode())
    return out


def _tick_size(n: int, enabled: bool) -> int:
    return n if enabled else min(n, SMOKE_ENTRIES)


@pytest.mark.parametrize("n", TICK_SIZES)
def test_bench_tick_vecfix(benchmark, enabled, n):
    t = tick(_tick_size(n, enabled))
    header = fix.Header("VECFIX", "CLIENT")
    vecfix._engine.load()  # warm: the kernels loaded, as in a publisher that runs all day
    vecfix_tick(t, header)
    benchmark.group = f"fix-tick-{n}"
    msgs = benchmark(vecfix_tick, t, header)
    _record(benchmark, f"vecfix.fix.quotes, {len(t):,} quotes a call", _fields(msgs.buffer),
            len(t), True)  # fmt: skip


def vecfix_tick_mass(t: Tick, header: fix.Header) -> fix.Messages:
    """The tick's quotes as MassQuote entries: one ``fix.mass_quotes`` (35=i messages of
    100 entries, sets of 100 numbered from 1, entries by position)."""
    return fix.mass_quotes(
        t.symbols, t.bid, t.offer, t.bid_size, t.offer_size, **PRICES, header=header,
        sending_time=WHEN,
    )  # fmt: skip


@pytest.mark.parametrize("n", TICK_SIZES)
def test_bench_tick_mass_quotes(benchmark, enabled, n):
    t = tick(_tick_size(n, enabled))
    header = fix.Header("VECFIX", "CLIENT")
    vecfix._engine.load()
    vecfix_tick_mass(t, header)
    benchmark.group = f"fix-tick-{n}"
    msgs = benchmark(vecfix_tick_mass, t, header)
    _record(benchmark, f"vecfix.fix.mass_quotes, {len(t):,} quotes a call (35=i)",
            _fields(msgs.buffer), len(t), False)  # fmt: skip


@pytest.mark.parametrize("n", TICK_SIZES)
def test_bench_tick_simplefix(benchmark, enabled, n):
    pytest.importorskip("simplefix")
    t = tick(_tick_size(n, enabled))
    want = vecfix_tick(t, fix.Header("VECFIX", "CLIENT")).to_bytes()
    same = b"".join(simplefix_tick(t)) == want
    assert same  # the same messages, byte for byte
    benchmark.group = f"fix-tick-{n}"
    if len(t) > 1_000:  # seconds a call: a few rounds
        out = benchmark.pedantic(simplefix_tick, args=(t,), rounds=3, iterations=1)
    else:
        out = benchmark(simplefix_tick, t)
    _record(benchmark, TICK_SIMPLEFIX, _fields(b"".join(out)), len(t), False, same)


def tick_table(sizes: tuple[int, ...] = TICK_SIZES, rounds: int = 7) -> list[tuple]:
    """``(n, vecfix ns/message, simplefix ns/message, ratio)`` for each size: the best
    of ``rounds`` rounds (3 for large calls), the two ways interleaved so that a shared
    machine's load hits both."""
    vecfix._engine.load()
    rows = []
    for n in sizes:
        t, header = tick(n), fix.Header("VECFIX", "CLIENT")
        want = vecfix_tick(t, fix.Header("VECFIX", "CLIENT")).to_bytes()
        assert b"".join(simplefix_tick(t)) == want
        ways = (partial(vecfix_tick, t, header), partial(simplefix_tick, t))
        repeats = (max(1, 20_000 // n), max(1, 2_000 // n))
        best = [float("inf"), float("inf")]
        for _ in range(rounds if n <= 1_000 else 3):
            for k, (call, repeat) in enumerate(zip(ways, repeats, strict=True)):
                start = time.perf_counter()
                for _ in range(repeat):
                    call()
                best[k] = min(best[k], (time.perf_counter() - start) / repeat / n * 1e9)
        rows.append((n, best[0], best[1], best[1] / best[0]))
    return rows


# ---------------------------------------------------------------------------------------
# python benchmarks/test_bench_fix.py
# ---------------------------------------------------------------------------------------


def main() -> None:
    """Every way's median thread time, ns/field and ratio to vecfix, group by group."""
    sys.path.insert(0, str(Path(__file__).parent))
    from shapes import time_call  # median thread time of calls

    print("fix-tick: fix.quotes of n quotes a call vs simplefix a message a quote (Decimal"
          " prices), best of interleaved rounds")  # fmt: skip
    for n, ns, peer, ratio in tick_table():
        print(f"  {n:>7,} quotes  vecfix {ns:9.0f} ns/message  simplefix {peer:9.0f}"
              f" ns/message  {ratio:6.1f}x")  # fmt: skip
    if "--tick" in sys.argv:
        return
    data = {"quotes_df": quote_frame(QUOTES), "batch": make_batch()}
    for group, g in GROUPS.items():
        full = data[g.data]
        small = full.head(BASELINE_ENTRIES)
        msgs = g.build(full)
        t = time_call(lambda b=g.build, d=full: b(d), 7)
        fields = _fields(msgs.buffer)
        print(f"\n{group}: {full.height:,} entries, {len(msgs):,} messages, {fields:,} fields")
        base = t / fields * 1e9
        print(f"  {'vecfix':32} {t * 1e3:9.1f} ms  {base:7.1f} ns/field   1.0x"
              f"  {full.height / t / 1e6:6.2f} M entries/s")  # fmt: skip
        want = g.build(small).to_bytes()
        for name, (fn, rows) in g.others.items():
            inputs = rows(small)
            start = time.thread_time()
            out = fn(inputs)
            spent = time.thread_time() - start
            n_fields = _fields(b"".join(out))
            ns = spent / n_fields * 1e9
            same = "same bytes" if b"".join(out) == want else "DIFFERENT BYTES"
            print(f"  {name:32} {spent * 1e3:9.1f} ms  {ns:7.1f} ns/field {ns / base:6.0f}x"
                  f"  ({n_fields:,} fields, {same})")  # fmt: skip


if __name__ == "__main__":
    main()
