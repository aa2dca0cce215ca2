"""``vecfix demo --fix OUT --fix-type {W,i,X}`` through the real entry point.

The demo's book is rebuilt here from ``sample_snapshot`` and paired or grouped the plain
way (Python loops); every message is parsed with simplefix and its frame recomputed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vecfix._sample import PRICENULL9, sample_snapshot

simplefix = pytest.importorskip("simplefix")

from fix_checks import pairs_of, ref_fixed  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ROWS, INSTRUMENTS = 1_500, 12


def split_messages(data: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos < len(data):
        end = data.index(b"\x0110=", pos) + 8
        out.append(data[pos:end])
        pos = end
    return out


def run_demo(tmp_path: Path, msg_type: str | None) -> tuple[list[bytes], str]:
    out = tmp_path / "book.fix"
    args = ["demo", "--rows", str(ROWS), "--instruments", str(INSTRUMENTS), "--sample", "50"]
    args += ["--fix", str(out)] + ([] if msg_type is None else ["--fix-type", msg_type])
    r = subprocess.run(
        [sys.executable, "-m", "vecfix", *args], capture_output=True, text=True, cwd=ROOT,
        timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return split_messages(out.read_bytes()), r.stdout


def price(snap, row):
    c = int(snap.price_e9[row])
    return None if c == PRICENULL9 else ref_fixed(c, -9, int(snap.scales[row])).encode()


def test_demo_mass_quotes(tmp_path):
    msgs, stdout = run_demo(tmp_path, "i")
    assert f"{len(msgs)} FIX 4.4 35=i messages" in stdout
    snap = sample_snapshot(ROWS, INSTRUMENTS)
    want = []  # (symbol, bid px, offer px, bid size, offer size), bid k paired with offer k
    row = 0
    for sym, count in zip(snap.symbols, snap.entry_counts.tolist(), strict=True):
        rows = range(row, row + count)
        bids = [r for r in rows if snap.entry_types[r] == 0]
        offers = [r for r in rows if snap.entry_types[r] == 1]
        for k in range(max(len(bids), len(offers))):
            b = bids[k] if k < len(bids) else None
            o = offers[k] if k < len(offers) else None
            bp = None if b is None else price(snap, b)
            op = None if o is None else price(snap, o)
            if bp is None and op is None:
                continue
            bs = None if b is None or bp is None else str(snap.size[b]).encode()
            os_ = None if o is None or op is None else str(snap.size[o]).encode()
            want.append((sym.encode(), bp, op, bs, os_))
        row += count
    got, seqs = [], []
    for m in msgs:
        pairs = pairs_of(m)
        seqs.append(int(dict(pairs)[34]))
        assert sum(int(v) for t, v in pairs if t == 295) <= 100
        entry = None
        for tag, value in pairs:
            if tag == 299:
                entry = {}
                got.append(entry)
            elif entry is not None and tag in (55, 132, 133, 134, 135):
                entry[tag] = value
    assert seqs == list(range(1, len(msgs) + 1))
    assert [tuple(e.get(t) for t in (55, 132, 133, 134, 135)) for e in got] == want


@pytest.mark.parametrize("msg_type", ["X", None])
def test_demo_incremental_and_default_snapshots(tmp_path, msg_type):
    msgs, stdout = run_demo(tmp_path, msg_type)
    kind = msg_type or "W"
    assert f"{INSTRUMENTS} FIX 4.4 35={kind} messages" in stdout
    snap = sample_snapshot(ROWS, INSTRUMENTS)
    row = 0
    for i, (m, sym, count) in enumerate(
        zip(msgs, snap.symbols, snap.entry_counts.tolist(), strict=True)
    ):
        pairs = pairs_of(m)
        fields = dict(pairs)
        assert fields[35] == kind.encode() and int(fields[34]) == i + 1
        assert int(fields[268]) == count
        rows = range(row, row + count)
        row += count
        assert [v for t, v in pairs if t == 270] == [
            p for r in rows if (p := price(snap, r)) is not None
        ]
        if kind == "X":
            assert [v for t, v in pairs if t == 279] == [b"0"] * count
            assert [v for t, v in pairs if t == 55] == [sym.encode()] * count
        else:
            assert fields[55] == sym.encode()
