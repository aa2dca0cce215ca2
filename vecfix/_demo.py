"""``vecfix demo``: format a built-in market-data snapshot, time it against a per-value
:mod:`decimal` loop, and optionally write it out as FIX, CSV or Parquet."""

from __future__ import annotations

import argparse
import decimal
import sys
import time
from typing import Any


def _reference_text(c: int, e: int, s: int) -> str:
    """The per-value :mod:`decimal` way (ROUND_HALF_UP is half away from zero)."""
    q = decimal.Decimal(c).scaleb(e).quantize(decimal.Decimal(1).scaleb(-s), decimal.ROUND_HALF_UP)
    text = format(q, "f")
    return text[1:] if text.startswith("-") and not q else text


def demo(args: argparse.Namespace) -> int:
    """Run ``vecfix demo`` with its parsed ``args``; returns the exit status.

    What it is doing goes to stderr as it goes (at once, then while it waits); the report
    goes to stdout at the end, after the files asked for are written."""
    import numpy as np

    from . import _engine, format_fixed
    from ._sample import PRICE_EXPONENT, PRICENULL9, sample_snapshot

    say(f"formatting a market-data snapshot of {args.rows:,} book entries")
    snap = sample_snapshot(args.rows, args.instruments)
    n = len(snap)
    scales = snap.scales if args.scale is None else np.int32(args.scale)
    python, compiled = _first_run(snap, scales) if _engine.cold() else (None, 0.0)
    fast, first = float("inf"), 0.0
    for attempt in range(3):  # the best of three: the machine may be busy with something else
        start = time.perf_counter()
        prices = format_fixed(snap.price_e9, PRICE_EXPONENT, scales, null=PRICENULL9)
        took = time.perf_counter() - start
        first = took if attempt == 0 else first  # with the kernels' load from the cache
        fast = min(fast, took / n)

    # The same work, value by value, through decimal, on evenly spaced rows.
    k = min(n, args.sample)
    rows = np.unique(np.linspace(0, n - 1, k).astype(np.int64))
    coef = snap.price_e9[rows].tolist()
    row_scales = np.broadcast_to(scales, (n,))[rows].tolist()
    ctx = decimal.Context(prec=60)
    start = time.perf_counter()
    with decimal.localcontext(ctx):
        slow_text = [
            None if c == PRICENULL9 else _reference_text(c, PRICE_EXPONENT, s)
            for c, s in zip(coef, row_scales, strict=True)
        ]
    slow = (time.perf_counter() - start) / len(rows)
    mismatches = [int(r) for r, t in zip(rows, slow_text, strict=True) if prices[int(r)] != t]
    sizes = format_fixed(snap.size, 0, 0)

    # The files asked for first, their lines printed last: a reader of stdout that stops
    # early (``vecfix demo --csv book.csv | head``) loses no file.
    written = []  # a line for each file written; None where one could not be
    if args.fix:
        written.append(_write_fix(args.fix, snap, prices, sizes, args.fix_type))
    for path, fmt in ((args.csv, "csv"), (args.parquet, "parquet")):
        if path:
            written.append(_write_table(path, fmt, snap, prices, sizes))
    status = int(None in written)

    nulls = int(n - snap.price_valid.sum())
    scale_text = "each at its tick's decimals" if args.scale is None else f"at scale {args.scale}"
    print(f"vecfix demo: a market-by-order snapshot, {n:,} book entries over")
    print(f"  {len(snap.symbols)} instruments (CME PRICE9 mantissas on real tick sizes,")
    print(f"  {nulls:,} null prices), formatted {scale_text}")
    if python is not None:
        print(f"  first run on this machine: the kernels compiled in {compiled:.0f} s, once, in a")
        print(f"  background process (meanwhile plain Python did {python * 1e9:,.0f} ns/value);")
        print("  every run from now on loads them from Numba's cache in a fraction of a second")
    print(f"  first call {first:.2f} s (loading the kernels from Numba's cache, and the work)")
    print(f"  vecfix.format_fixed  {fast * 1e9:9.1f} ns/value   on all {n:,} prices (best of 3)")
    print(f"  decimal, per value   {slow * 1e9:9.1f} ns/value   on {len(rows):,} of them")
    same = "same text" if not mismatches else f"{len(mismatches)} rows DIFFER"
    print(f"  speed-up             {slow / fast:9.1f}x          {same}")
    print()
    _print_rows(snap, prices, sizes)
    if mismatches:
        r = mismatches[0]
        print(f"first difference, row {r}: vecfix {prices[r]!r}", file=sys.stderr)
        status = 1
    for line in written:
        if line is not None:
            print(line)
    return status


def say(text: str) -> None:
    """A line on stderr, at once: what the demo is doing."""
    print(f"vecfix demo: {text}", file=sys.stderr, flush=True)


def _first_run(snap: Any, scales: Any) -> tuple[float, float]:
    """The first run on a machine: a child process compiles the kernels (the one already
    compiling, if any); meanwhile plain Python formats a sample. Returns Python's seconds
    a value and how long the kernels took to be ready."""
    import numpy as np

    from . import _engine, format_fixed
    from ._sample import PRICE_EXPONENT, PRICENULL9

    start = time.perf_counter()
    _engine.compiling()
    say("first run on this machine: the kernels compile in a background process (once,")
    say("tens of seconds); meanwhile, plain Python formats a sample")
    rows = slice(0, min(len(snap), 20_000))
    sample_scales = scales[rows] if np.ndim(scales) else scales
    with _engine.forced("python"):
        began = time.perf_counter()
        format_fixed(snap.price_e9[rows], PRICE_EXPONENT, sample_scales, null=PRICENULL9)
        python = (time.perf_counter() - began) / len(snap.price_e9[rows])
    say(f"plain Python: {python * 1e9:,.0f} ns/value; waiting for the kernels ...")
    _engine.load()
    compiled = time.perf_counter() - start
    say(f"the kernels are ready ({compiled:.0f} s)")
    return python, compiled


def _print_rows(snap: Any, prices: Any, sizes: Any) -> None:
    """The best bid of a few instruments, plus a null price and a spread if there are any."""
    import numpy as np

    from ._arrow import offsets
    from ._sample import PRICENULL9

    starts = offsets(snap.entry_counts)[:-1]
    picks = [int(starts[i]) for i in range(min(6, len(starts)))]
    spread = [i for i, s in enumerate(snap.symbols) if "-" in s]
    if spread:
        picks.append(int(starts[spread[0]]))
    null = np.flatnonzero(~snap.price_valid)
    if null.size:
        picks.append(int(null[0]))
    print(f"  {'symbol':<10} {'side':<5} {'price_e9':>20}  {'price':>14} {'size':>6}")
    for r in picks:
        raw = int(snap.price_e9[r])
        raw_text = "PRICENULL9" if raw == PRICENULL9 else str(raw)
        side = "bid" if snap.entry_types[r] == 0 else "offer"
        text = prices[r] if prices[r] is not None else "(null)"
        sym = snap.symbols[int(snap.instrument[r])]
        print(f"  {sym:<10} {side:<5} {raw_text:>20}  {text:>14} {sizes[r]:>6}")


def _write_fix(path: str, snap: Any, prices: Any, sizes: Any, msg_type: str = "W") -> str | None:
    """The demo's book as FIX 4.4: snapshots (W), MassQuote (i) or incremental refreshes (X).
    Returns the line that says what was written, or None (the error printed on stderr)."""
    import numpy as np

    from . import fix

    head = fix.Header("VECFIX", "DEMO")
    when = "20241129-14:30:00.000"
    start = time.perf_counter()
    if msg_type == "i":
        msgs = _mass_quotes(fix, head, when, snap, prices, sizes)
    elif msg_type == "X":  # one refresh per instrument: its whole book as new entries
        symbols = np.array(snap.symbols)[snap.instrument]
        msgs = fix.incremental(0, snap.entry_types, symbols, prices, sizes, header=head,
                               entry_counts=snap.entry_counts, sending_time=when)  # fmt: skip
    else:
        msgs = fix.snapshots(snap.symbols, snap.entry_counts, snap.entry_types, prices, sizes,
                             header=head, sending_time=when)  # fmt: skip
    built = time.perf_counter() - start
    try:
        msgs.write(path)
    except OSError as exc:
        print(f"vecfix demo: cannot write {path!r}: {exc.strerror or exc}", file=sys.stderr)
        return None
    return (
        f"\nwrote {len(msgs):,} FIX 4.4 35={msg_type} message{'s' * (len(msgs) != 1)}"
        f" ({msgs.nbytes:,} bytes) to {path}"
        f" (built in {built * 1e3:.1f} ms)"
    )


def _mass_quotes(fix: Any, head: Any, when: str, snap: Any, prices: Any, sizes: Any) -> Any:
    """The k-th bid and the k-th offer of an instrument as one two-sided quote entry; one
    quote set per instrument (its symbol as QuoteSetID); entries with no price on either
    side are left out."""
    import numpy as np

    from ._arrow import offsets
    from ._result import Formatted

    inst, side = snap.instrument, snap.entry_types
    first = offsets(snap.entry_counts)[:-1]
    n_inst = len(snap.symbols)
    n_bids = np.bincount(inst[side == 0], minlength=n_inst)
    n_offers = np.bincount(inst[side == 1], minlength=n_inst)
    per_inst = np.maximum(n_bids, n_offers)
    entry_first = offsets(per_inst)[:-1]
    level = np.arange(len(snap)) - first[inst] - np.where(side == 1, n_bids[inst], 0)
    entry = entry_first[inst] + level
    rows = np.full((2, int(per_inst.sum())), -1, dtype=np.int64)  # bid row, offer row
    rows[side, entry] = np.arange(len(snap))
    cols = []
    for r in rows:
        for values in (prices, sizes):
            taken = values[np.maximum(r, 0)]
            ok = (r >= 0) & (np.ones(len(r), bool) if taken.valid is None else taken.valid)
            cols.append(Formatted(taken.matrix, taken.lengths, ok))
    (bid_px, bid_sz, offer_px, offer_sz) = cols
    assert bid_px.valid is not None and offer_px.valid is not None  # ``ok`` above
    keep = np.flatnonzero(bid_px.valid | offer_px.valid)
    symbols = np.array(snap.symbols)[np.repeat(np.arange(n_inst), per_inst)[keep]]
    return fix.mass_quotes(  # one quote set per instrument, its symbol its QuoteSetID
        symbols, bid_px[keep], offer_px[keep], bid_sz[keep], offer_sz[keep],
        quote_set_ids=symbols, max_entries=100, header=head, sending_time=when,
    )  # fmt: skip


def _write_table(path: str, fmt: str, snap: Any, prices: Any, sizes: Any) -> str | None:
    """The demo's table as CSV or Parquet, written as ``vecfix format`` writes (polars'
    writers, :class:`vecfix._files_io.Destination`: a CSV field in quotes only where it
    needs them); returns the line that says so, or None (the error printed on stderr)."""
    import numpy as np
    import pyarrow as pa

    from ._files_io import STDIO, Destination, UsageError, polars

    pl = polars()
    table = pa.table(
        {
            "symbol": pa.array(snap.symbols, pa.string()).take(pa.array(snap.instrument)),
            "side": pa.array(np.array(["bid", "offer"])[snap.entry_types]),
            "price_e9": pa.array(snap.price_e9, mask=~snap.price_valid),
            "price": prices.to_arrow(large=False),
            "size": sizes.to_arrow(large=False),
        }
    )
    frame = pl.from_arrow(table)
    try:
        with Destination(path, STDIO, fmt) as dst:
            dst.sink(frame.lazy(), plain={"price", "size"})
    except (OSError, UsageError) as exc:
        print(f"vecfix demo: cannot write {path!r}: {exc}", file=sys.stderr)
        return None
    return f"wrote the formatted table ({table.num_rows:,} rows, {fmt}) to {path}"
