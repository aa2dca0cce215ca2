"""Independent checks of FIX messages, shared by the ``test_fix*.py`` files.

Nothing here calls vecfix: BodyLength (9) and CheckSum (10) are recomputed from the raw
bytes, messages are parsed by simplefix, and expected values come from ``ref_fixed``, a
slow :mod:`decimal` reference (checked against the Go vectors in ``test_fix.py``).
"""

from __future__ import annotations

import gzip
from decimal import ROUND_HALF_UP, Decimal, localcontext
from pathlib import Path
from typing import Any

import simplefix

DATA = Path(__file__).parent / "data"
SOH = b"\x01"


def ref_fixed(c: int, e: int, s: int) -> str:
    """shopspring/decimal StringFixed, the slow obvious way."""
    with localcontext() as ctx:
        ctx.prec = 2000
        q = Decimal(c).scaleb(e).quantize(Decimal(1).scaleb(-s), rounding=ROUND_HALF_UP)
        text = format(q, "f")
    return text.lstrip("-") if q == 0 else text


def golden(name: str, rows: int) -> list[tuple[int, int, int, str]]:
    with gzip.open(DATA / name, "rt") as f:
        next(f)
        out = []
        for line, _ in zip(f, range(rows), strict=False):
            c, e, s, text = line.rstrip("\n").split("\t")
            out.append((int(c), int(e), int(s), text))
    return out


def check_frame(msg: bytes) -> None:
    """Recompute BodyLength (9) and CheckSum (10) from the raw bytes, per the FIX spec."""
    assert msg.startswith(b"8=")
    first_soh = msg.index(SOH)
    assert msg[first_soh + 1 : first_soh + 3] == b"9="
    body_start = msg.index(SOH, first_soh + 1) + 1
    assert msg[body_start : body_start + 3] == b"35="
    trailer = msg.rindex(SOH + b"10=") + 1
    assert msg.endswith(SOH) and len(msg) - trailer == 7  # "10=" + 3 digits + SOH
    assert int(msg[first_soh + 3 : body_start - 1]) == trailer - body_start
    assert msg[trailer + 3 : trailer + 6] == b"%03d" % (sum(msg[:trailer]) % 256)


def parse(msg: bytes) -> list[tuple[int, bytes]]:
    """Parse one message with simplefix; it must consume every byte."""
    parser = simplefix.FixParser()
    parser.append_buffer(msg)
    parsed = parser.get_message()
    assert parsed is not None and parser.get_buffer() == b""
    return list(parsed)


def encode_with_simplefix(pairs: list[tuple[int, bytes]]) -> bytes:
    m = simplefix.FixMessage()
    for tag, value in pairs:
        m.append_pair(tag, value)
    return m.encode()


def check_messages(msgs: Any, expected: list[list[tuple[int, bytes]]]) -> None:
    """Every message: frame recomputed, parsed pairs in order, same bytes as simplefix."""
    assert len(msgs) == len(expected)
    assert msgs.offsets[0] == 0 and msgs.offsets[-1] == msgs.buffer.size
    assert b"".join(msgs.to_list()) == msgs.buffer.tobytes()
    for i, (msg, body) in enumerate(zip(msgs.to_list(), expected, strict=True)):
        check_frame(msg)
        pairs = parse(msg)
        assert pairs[0][0] == 8 and pairs[1][0] == 9 and pairs[-1][0] == 10, i
        assert pairs[2:-1] == body, i
        assert pairs[0][1] == b"FIX.4.4"
        assert encode_with_simplefix([pairs[0], *body]) == msg, i


def pairs_of(msg: bytes) -> list[tuple[int, bytes]]:
    """Frame checked, parsed, no empty value anywhere: the pairs between 9 and 10."""
    check_frame(msg)
    pairs = parse(msg)
    assert pairs[0][0] == 8 and pairs[1][0] == 9 and pairs[-1][0] == 10
    for tag, value in pairs:
        assert value != b"", (tag, msg)
    assert encode_with_simplefix(pairs[:1] + pairs[2:-1]) == msg
    return pairs[2:-1]
