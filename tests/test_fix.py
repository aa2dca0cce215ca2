"""vecfix.fix: every message is parsed back by simplefix and checked field by field.

Two independent truths: simplefix's own ``FixMessage.encode()`` (which computes BodyLength
and CheckSum itself) and a recomputation of 9 and 10 here from the raw bytes. Expected
field values come from the inputs through ``ref_fixed``, a slow :mod:`decimal` reference
written for this file (not vecfix's fallback), itself checked against the Go vectors.
"""

from __future__ import annotations

import io
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vecfix
import vecfix.fix as fix

simplefix = pytest.importorskip("simplefix")

from fix_checks import (  # noqa: E402
    SOH,
    check_frame,
    check_messages,
    golden,
    parse,
    ref_fixed,
)

HEADER = {"sender": "VECFIX", "target": "CLIENT", "sending_time": "20240102-03:04:05.678"}


def head(seq: int = 1, sending_time: object = HEADER["sending_time"]) -> dict:
    """``header=`` and ``sending_time=`` for one call: a fresh Header numbering from ``seq``."""
    return {
        "header": fix.Header(HEADER["sender"], HEADER["target"], next_seq=seq),
        "sending_time": sending_time,
    }


def fmt(exponent, scale, null=None) -> vecfix.NumberFormat:
    return vecfix.NumberFormat(exponent, scale, null)


def test_reference_matches_go_vectors():
    for c, e, s, text in golden("prices.tsv.gz", 500) + golden("big.tsv.gz", 500):
        assert ref_fixed(c, e, s) == text


def header(msg_type: bytes, seq: int, time: str) -> list[tuple[int, bytes]]:
    return [
        (35, msg_type),
        (49, HEADER["sender"].encode()),
        (56, HEADER["target"].encode()),
        (34, str(seq).encode()),
        (52, time.encode()),
    ]


def expected_snapshots(
    symbols, counts, types, prices, sizes, pexp, pscale, sexp=0, sscale=0, seq=1, times=None
):
    """Pairs after 8 and 9 for every 35=W, from the inputs (None = null)."""
    out, e = [], 0
    for i, (sym, k) in enumerate(zip(symbols, counts, strict=True)):
        t = HEADER["sending_time"] if times is None else times[i]
        body = [*header(b"W", seq + i, t), (55, sym.encode()), (268, str(k).encode())]
        for _ in range(k):
            body.append((269, str(types[e]).encode()))
            pe = pexp[e] if isinstance(pexp, list) else pexp
            ps = pscale[e] if isinstance(pscale, list) else pscale
            if prices[e] is not None:
                body.append((270, ref_fixed(prices[e], pe, ps).encode()))
            if sizes[e] is not None:
                body.append((271, ref_fixed(sizes[e], sexp, sscale).encode()))
            e += 1
        out.append(body)
    assert e == len(prices)
    return out


# ---------------------------------------------------------------------------------------
# Snapshots (35=W)
# ---------------------------------------------------------------------------------------


def test_snapshot_fields_checksum_and_group_order():
    symbols = ["ESZ4", "NQZ4", "CL"]
    counts = [3, 0, 2]
    types = [0, 1, 2, 0, 1]
    prices = [5000_250000000, 5000_500000000, -1_125000000, 72_005000000, None]
    sizes = [7, None, 1, 12, 3]
    msgs = fix.snapshots(symbols, counts, types, prices, sizes, price=fmt(-9, 2), **head())
    check_messages(msgs, expected_snapshots(symbols, counts, types, prices, sizes, -9, 2))
    # spelled out once, so that a reader sees what the checks above accept
    assert msgs[0].split(SOH)[7:19] == [
        b"55=ESZ4", b"268=3",
        b"269=0", b"270=5000.25", b"271=7",
        b"269=1", b"270=5000.50",
        b"269=2", b"270=-1.13", b"271=1",
        b"10=" + msgs[0][-4:-1], b"",
    ]  # fmt: skip
    assert b"268=0\x0110=" in msgs[1]


def test_snapshot_prices_match_go_vectors():
    """Each 270 is byte-identical to StringFixed, fallback rows (beyond int64) included."""
    rows = golden("prices.tsv.gz", 300) + golden("big.tsv.gz", 100)
    coef = [c for c, _, _, _ in rows]
    counts = [len(rows) // 4] * 4
    msgs = fix.snapshots(
        [f"S{i}" for i in range(4)], counts, "2", coef, [1] * len(rows),
        price=fmt(np.array([e for _, e, _, _ in rows]), np.array([s for _, _, s, _ in rows])),
        **head(),
    )  # fmt: skip
    got = [v for m in msgs for tag, v in parse(m) if tag == 270]
    assert got == [text.encode() for _, _, _, text in rows]
    for m in msgs:
        check_frame(m)


def test_snapshot_body_length_and_sequence_digit_boundaries():
    """BodyLength crossing 99/100 and 999/1000 (its own width changes), MsgSeqNum 9 -> 10."""
    n = 240
    symbols = ["X" * (1 + i % 80) for i in range(n)]
    counts = [0 if i < 80 else (i - 80) // 2 for i in range(n)]
    total = sum(counts)
    prices = list(range(1, total + 1))
    msgs = fix.snapshots(
        symbols, counts, 1, prices, prices, price=fmt(-2, 2), **head(5),
    )  # fmt: skip
    bodies = {int(m.split(SOH)[1][2:]) for m in msgs}
    assert {99, 100} <= bodies and min(bodies) < 1000 < max(bodies)
    check_messages(
        msgs, expected_snapshots(symbols, counts, [1] * total, prices, prices, -2, 2, seq=5)
    )


def test_snapshot_per_message_times_masks_and_string_types():
    symbols = np.array(["A", "BB"], dtype="S")
    times = ["20240102-03:04:05", "20241231-23:59:60.999"]
    px = np.array([100, 200, 300], dtype=np.int64)
    valid = np.array([True, False, True])
    msgs = fix.snapshots(
        symbols, np.array([1, 2], dtype=np.uint8), np.array(["0", "J", "z"]), px, [5, 6, 7],
        price=fmt(0, -1), size=fmt(-1, 1),
        price_valid=valid, size_valid=[False, True, True],
        **head(10, times),
    )  # fmt: skip
    expected = expected_snapshots(
        ["A", "BB"], [1, 2], ["0", "J", "z"], [100, None, 300], [None, 6, 7],
        0, -1, -1, 1, seq=10, times=times,
    )  # fmt: skip
    check_messages(msgs, expected)


def test_snapshot_accepts_formatted_columns_and_their_valid_attribute():
    px = vecfix.format_fixed([1, 22, 333], -1, 1)
    nullable = SimpleNamespace(
        matrix=px.matrix, lengths=px.lengths, valid=np.array([True, False, True])
    )
    sz = vecfix.format_fixed([4, 5, 6], 0, 0)
    msgs = fix.snapshots(["A"], [3], [0, 1, 2], nullable, sz, **head())
    expected = expected_snapshots(["A"], [3], [0, 1, 2], [1, None, 333], [4, 5, 6], -1, 1)
    check_messages(msgs, expected)
    # an explicit mask and the column's own are combined
    msgs = fix.snapshots(
        ["A"], [3], [0, 1, 2], nullable, sz, price_valid=[False, True, True], **head()
    )
    got = [v for tag, v in parse(msgs[0]) if tag == 270]
    assert got == [b"33.3"]


def test_python_int_lists_mixing_int64_and_beyond():
    """NumPy makes ``[0, 2**63]`` float64; the values must still print exactly."""
    prices = [0, 2**63, -(2**63) - 1, None]
    msgs = fix.snapshots(["A"], [4], 0, prices, [1, 2, 3, 4], price=fmt(-2, 3),
                         **head())  # fmt: skip
    check_messages(msgs, expected_snapshots(["A"], [4], [0] * 4, prices, [1, 2, 3, 4], -2, 3))


def test_empty_batches():
    msgs = fix.snapshots([], [], [], [], [], price=fmt(0, 0), **head())
    assert len(msgs) == 0 and msgs.buffer.size == 0 and msgs.offsets.tolist() == [0]
    assert msgs.to_list() == [] and msgs.to_bytes() == b""
    sink = io.BytesIO()
    assert msgs.write(sink) == 0 and sink.getvalue() == b""


snapshot_batches = st.lists(
    st.tuples(
        st.text(st.characters(min_codepoint=32, max_codepoint=126, exclude_characters="="),
                min_size=1, max_size=12),
        st.lists(
            st.tuples(
                st.sampled_from("0123456789ABJaz"),
                st.none() | st.integers(-(10**25), 10**25) | st.integers(-(2**63), 2**63 - 1),
                st.none() | st.integers(0, 10**12),
            ),
            max_size=50,
        ),
    ),
    max_size=6,
)  # fmt: skip


@pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")  # (random prices, int64 max and min)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    batch=snapshot_batches,
    pexp=st.integers(-30, 5),
    pscale=st.integers(-3, 25),
    sexp=st.integers(-4, 2),
    sscale=st.integers(0, 6),
    seq=st.integers(1, 10**12),
    use_masks=st.booleans(),
)
@pytest.mark.filterwarnings("ignore:prices holds 2\\*\\*63 - 1:UserWarning")  # (drawn)
def test_random_snapshots_round_trip(batch, pexp, pscale, sexp, sscale, seq, use_masks):
    symbols = [sym for sym, _ in batch]
    counts = [len(entries) for _, entries in batch]
    entries = [e for _, es in batch for e in es]
    types = [t for t, _, _ in entries]
    prices = [p for _, p, _ in entries]
    sizes = [s for _, _, s in entries]
    if use_masks:  # the mask path: nulls carry garbage that must never be printed
        args = (
            np.array([0 if p is None else p for p in prices], dtype=object),
            np.array([2**63 - 1 if s is None else s for s in sizes], dtype=np.uint64),
        )
        masks = {
            "price_valid": np.array([p is not None for p in prices], dtype=bool),
            "size_valid": np.array([s is not None for s in sizes], dtype=bool),
        }
    else:  # the None path
        args, masks = (prices, sizes), {}
    msgs = fix.snapshots(
        symbols, np.array(counts, dtype=np.int64), np.array(types, dtype="U1"), *args,
        price=fmt(pexp, pscale), size=fmt(sexp, sscale),
        **masks, **head(seq),
    )  # fmt: skip
    expected = expected_snapshots(
        symbols, counts, types, prices, sizes, pexp, pscale, sexp, sscale, seq=seq
    )
    check_messages(msgs, expected)


# ---------------------------------------------------------------------------------------
# Quotes (35=S)
# ---------------------------------------------------------------------------------------


def expected_quotes(ids, symbols, values, pexp, pscale, sexp=0, sscale=0, seq=1):
    out = []
    for i, (qid, sym) in enumerate(zip(ids, symbols, strict=True)):
        body = [*header(b"S", seq + i, HEADER["sending_time"]), (117, qid.encode())]
        body.append((55, sym.encode()))
        for tag, col in zip((132, 133, 134, 135), values, strict=True):
            e, s = (pexp, pscale) if tag < 134 else (sexp, sscale)
            if col[i] is not None:
                body.append((tag, ref_fixed(col[i], e, s).encode()))
        out.append(body)
    return out


def test_quotes_round_trip_with_one_sided_quotes():
    ids = ["q-1", "q-2", "q-3"]
    symbols = ["EUR/USD", "USD/JPY", "GBP/USD"]
    values = (
        [108_215, None, 126_0005],
        [108_225, 155_020, None],
        [1_000_000, None, 5],
        [2_000_000, 3, None],
    )
    msgs = fix.quotes(
        symbols, *values, quote_ids=ids, price=fmt(-5, 4), **head(99),
    )  # fmt: skip
    check_messages(msgs, expected_quotes(ids, symbols, values, -5, 4, seq=99))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(*[st.none() | st.integers(-(10**20), 10**20)] * 4).filter(
            lambda r: r[0] is not None or r[1] is not None  # a quote needs a price
        ),
        min_size=0,
        max_size=20,
    ),
    st.integers(-12, 0),
    st.integers(0, 12),
)
def test_random_quotes_round_trip(rows, pexp, pscale):
    ids = [f"Q{i}" for i in range(len(rows))]
    symbols = [f"SYM{i % 3}" for i in range(len(rows))]
    values = tuple(list(col) for col in zip(*rows, strict=True)) if rows else ([], [], [], [])
    msgs = fix.quotes(
        symbols, *values, quote_ids=ids, price=fmt(pexp, pscale),
        size=fmt(-2, 1), **head(),
    )  # fmt: skip
    check_messages(msgs, expected_quotes(ids, symbols, values, pexp, pscale, -2, 1))


# ---------------------------------------------------------------------------------------
# Messages container
# ---------------------------------------------------------------------------------------


def _three() -> fix.Messages:
    return fix.snapshots(
        ["A", "B", "C"], [1, 1, 1], 0, [1, 2, 3], [4, 5, 6], price=fmt(0, 1),
        **head(),
    )  # fmt: skip


def test_messages_access_and_slicing():
    msgs = _three()
    items = msgs.to_list()
    assert [msgs[i] for i in range(3)] == items and msgs[-1] == items[2]
    assert list(msgs) == items and msgs.to_bytes() == b"".join(items)
    assert msgs.lengths.tolist() == [len(m) for m in items]
    assert msgs[1:].to_list() == items[1:] and msgs[1:1].to_list() == []
    assert msgs[:2].to_bytes() == items[0] + items[1]
    assert repr(msgs).startswith("Messages(3, ")
    with pytest.raises(IndexError):
        msgs[3]
    with pytest.raises(ValueError, match="step"):
        msgs[::2]
    with pytest.raises(TypeError, match="integers or slices"):
        msgs[1.0]


class _Trickle(io.RawIOBase):
    """A raw stream that accepts at most 5 bytes per write."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.calls = 0

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        self.calls += 1
        chunk = bytes(b[:5])
        self.data += chunk
        return len(chunk)


def test_messages_write(tmp_path):
    msgs = _three()
    path = tmp_path / "out.fix"
    with open(path, "wb") as f:
        assert msgs.write(f) == msgs.nbytes
    assert path.read_bytes() == msgs.to_bytes()
    trickle = _Trickle()
    assert msgs.write(trickle) == msgs.nbytes
    assert bytes(trickle.data) == msgs.to_bytes() and trickle.calls > 1
    sliced = io.BytesIO()
    msgs[1:].write(sliced)
    assert sliced.getvalue() == msgs[1] + msgs[2]


# ---------------------------------------------------------------------------------------
# fields
# ---------------------------------------------------------------------------------------


def test_fields_new_buffer_with_nulls():
    px = vecfix.format_fixed([125, -125, 7, 0], -3, 2)
    out = fix.fields(270, px, valid=np.array([True, True, False, True]))
    assert out.to_list() == [b"270=0.13\x01", b"270=-0.13\x01", b"", b"270=0.00\x01"]
    assert out.offsets.tolist() == [0, 9, 19, 19, 28]
    assert out.to_bytes() == out.buffer.tobytes()
    strings = fix.fields(55, ["ES", None, b"a=b"])  # '=' is allowed inside a value
    assert strings.to_list() == [b"55=ES\x01", b"", b"55=a=b\x01"]
    assert fix.fields(9999999, ["x"])[0] == b"9999999=x\x01"
    assert len(fix.fields(1, [])) == 0


def test_fields_append_into_callers_buffer():
    buf = np.full(64, 0xAA, dtype=np.uint8)
    starts = np.array([0, 30])
    ends = fix.fields(55, np.array(["ESZ4", "NQ"]), out=buf, offsets=starts)
    assert ends.tolist() == [8, 36] and ends.dtype == np.int64
    ends = fix.fields(270, vecfix.format_fixed([1, 2], 0, 1), out=buf, offsets=ends,
                      valid=[False, True])  # fmt: skip
    assert ends.tolist() == [8, 44]
    assert buf[:9].tobytes() == b"55=ESZ4\x01\xaa"
    assert buf[30:45].tobytes() == b"55=NQ\x01270=2.0\x01\xaa"
    assert starts.tolist() == [0, 30]  # the caller's offsets are not modified


def test_fields_refuse_before_writing_anything():
    buf = np.full(20, 0xAA, dtype=np.uint8)
    before = buf.copy()
    with pytest.raises(ValueError, match=r"row 1's field needs out\[14:21\]"):
        fix.fields(55, ["abc", "abc"], out=buf, offsets=[0, 14])
    with pytest.raises(ValueError, match=r"row 1's field .* overlaps"):
        fix.fields(55, ["abc", "abc"], out=buf, offsets=[0, 5])
    with pytest.raises(ValueError, match="overlaps"):  # unsorted offsets are checked too
        fix.fields(55, ["abc", "abc", "abc"], out=buf, offsets=[12, 0, 3])
    with pytest.raises(ValueError, match="contains SOH"):
        fix.fields(58, ["ok", "bad\x01"], out=buf, offsets=[0, 10])
    assert (buf == before).all()
    # non-overlapping unsorted and null rows are fine
    ends = fix.fields(55, ["abc", None, "d"], out=buf, offsets=[10, 0, 0])
    assert ends.tolist() == [17, 0, 5]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"tag": 0}, ValueError, "tag must be between 1 and 2147483647, got 0"),
        ({"tag": -3}, ValueError, "got -3"),
        ({"tag": 2**31}, ValueError, "2147483648"),
        ({"tag": True}, TypeError, "tag must be an int"),
        ({"tag": "55"}, TypeError, "tag must be an int"),
        ({"column": ["a", ""]}, ValueError, r"column\[1\] = b'' is empty"),
        ({"column": "abc"}, TypeError, "not a single str"),
        ({"column": ["é"]}, ValueError, "not ASCII"),
        ({"column": [1.5]}, TypeError, r"column\[0\] must be str or bytes, got float"),
        ({"valid": [1, 0]}, TypeError, "valid must be booleans"),
        ({"valid": [True]}, ValueError, "valid has shape"),
        ({"offsets": [0, 1]}, TypeError, "offsets is only used together with out"),
        ({"out": np.zeros(9, np.uint8)}, TypeError, "out needs offsets"),
        ({"out": np.zeros(9), "offsets": [0, 4]}, TypeError, "1-D uint8"),
        ({"out": np.zeros(9, np.uint8), "offsets": [0]}, ValueError, r"expected \(2,\)"),
        ({"out": np.zeros(9, np.uint8), "offsets": [0, -4]}, ValueError, "row 1 is -4"),
        ({"out": np.zeros(9, np.uint8), "offsets": [0.0, 4]}, TypeError, "integers"),
    ],
)
def test_fields_errors(kwargs, error, match):
    args = {"tag": 55, "column": ["a", "b"], **kwargs}
    with pytest.raises(error, match=match):
        fix.fields(args.pop("tag"), args.pop("column"), **args)


def test_fields_refuse_malformed_formatted_like_columns():
    bad = SimpleNamespace(matrix=np.zeros((2, 3), np.uint8), lengths=np.array([1, 4]))
    with pytest.raises(ValueError, match=r"lengths must lie within 0\.\.width=3"):
        fix.fields(270, bad)


# ---------------------------------------------------------------------------------------
# Bad input to the message builders: clear errors
# ---------------------------------------------------------------------------------------

GOOD = {
    "symbols": ["ES", "NQ"],
    "entry_counts": [1, 2],
    "entry_types": [0, 1, 2],
    "prices": [1, 2, 3],
    "sizes": [4, 5, 6],
    "price": fmt(-2, 2),
    **head(),
}


def test_good_inputs_build():
    assert len(fix.snapshots(**GOOD)) == 2


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ({"prices": [1, 2]}, ValueError, r"prices has 2 rows, expected 3: one per entry"),
        ({"sizes": [1, 2, 3, 4]}, ValueError, "sizes has 4 rows, expected 3"),
        ({"entry_counts": [1, 1]}, ValueError, r"entry_types .* \(entry_counts sums to 2\)"),
        ({"entry_counts": [1, 1], "entry_types": 0}, ValueError, "prices has 3 rows, expected 2"),
        ({"entry_counts": [3, -1]}, ValueError, r"entry_counts\[1\] = -1 is negative"),
        ({"entry_counts": [1, 2, 0]}, ValueError, "one per symbol"),
        ({"entry_counts": [1.0, 2.0]}, TypeError, "entry_counts must be integers"),
        ({"entry_types": [0, 1]}, ValueError, "entry_types has shape"),
        ({"entry_types": [0, 1, 10]}, ValueError, r"entry_types\[2\] = 10"),
        (
            {"entry_types": ["0", "1", "10"]},
            ValueError,
            r"entry_types\[2\] = '10' must be a single",
        ),
        ({"entry_types": ["0", "1", "="]}, ValueError, "single letter or digit"),
        ({"entry_types": ["0", "1", "é"]}, ValueError, r"entry_types\[2\] = 'é' is not ASCII"),
        ({"entry_types": [0.0, 1.0, 2.0]}, TypeError, r"entry_types\[0\] must be str or bytes"),
        ({"entry_types": np.zeros(3)}, TypeError, "entry_types must be ints"),
        ({"symbols": ["ES", "N\x01Q"]}, ValueError, r"symbols\[1\] = b'N\\x01Q' contains SOH"),
        ({"symbols": ["ES", "N=Q"]}, ValueError, r"symbols\[1\] = b'N=Q' contains '='"),
        ({"symbols": ["ES", ""]}, ValueError, "is empty"),
        ({"symbols": ["ES", "a\tb"]}, ValueError, "outside printable ASCII"),
        ({"symbols": ["ES", None]}, ValueError, r"symbols\[1\] is null"),
        ({"symbols": "ES"}, TypeError, "sequence of strings"),
        ({"symbols": 5}, TypeError, "sequence of str or bytes"),
        ({"symbols": np.array([["a"]])}, ValueError, "must be 1-D"),
        (
            {"price": fmt(-2, 10**6)},
            vecfix.RowTooLongError,
            r"prices: row 0 .* vecfix\.MAX_ROW_LENGTH=65536",
        ),
        ({"price": fmt(-2, [2, 2**40, 2])}, ValueError, r"prices: price.scale must fit in int32"),
        ({"price": fmt(-2, None)}, TypeError, r"prices: price.scale is required for integer"),
        ({"price": None}, TypeError, r"prices: price= is required for integer coefficients"),
        ({"price": (-2, 2)}, TypeError, "price must be a vecfix.NumberFormat, got tuple"),
        ({"size": fmt(-1, None)}, TypeError, r"sizes: size.scale is required for integer"),
        ({"prices": [1.5, 2, 3]}, TypeError, "prices: coefficients must be integers"),
        ({"price_valid": [1, 1, 1]}, TypeError, "price_valid must be booleans"),
        ({"size_valid": [True]}, ValueError, "size_valid has shape"),
        ({"header": None}, TypeError, r"header is required: pass header=vecfix.fix.Header\("),
        ({"header": {"sender": "S"}}, TypeError, "header must be a vecfix.fix.Header, got dict"),
        (
            {"header": fix.Header("S", "T", next_seq=2**63 - 1)},
            ValueError,
            "2 messages from MsgSeqNum 9223372036854775807 would pass",
        ),
        ({"sending_time": "2024-01-02 03:04:05"}, ValueError, "not a UTC timestamp"),
        ({"sending_time": "20241302-03:04:05"}, ValueError, "not a UTC timestamp"),
        ({"sending_time": "20240102-24:00:00"}, ValueError, "not a UTC timestamp"),
        ({"sending_time": "20240102-03:04:05.12"}, ValueError, "not a UTC timestamp"),
        ({"sending_time": "20240102-03:04:05,123"}, ValueError, "not a UTC timestamp"),
        ({"sending_time": ["20240102-03:04:05"]}, ValueError, "1 values for 2 messages"),
        ({"sending_time": ["20240102-03:04:05", None]}, ValueError, r"sending_time\[1\] is null"),
        (
            {"sending_time": ["20240102-03:04:05", "20240102-03:04:61"]},
            ValueError,
            r"sending_time\[1\] = '20240102-03:04:61'",
        ),
    ],
)
def test_snapshot_errors(change, error, match):
    with pytest.raises(error, match=match):
        fix.snapshots(**{**GOOD, **change})


def test_formatted_columns_refuse_exponent_and_scale():
    px = vecfix.format_fixed([1, 2, 3], 0, 0)
    with pytest.raises(TypeError, match="prices is already formatted"):
        fix.snapshots(**{**GOOD, "prices": px})
    bad = SimpleNamespace(matrix=np.frombuffer(b"1\x012", np.uint8).reshape(3, 1),
                          lengths=np.ones(3, np.int64))  # fmt: skip
    with pytest.raises(ValueError, match=r"prices\[1\] = b'\\x01' contains SOH"):
        fix.snapshots(**{**GOOD, "prices": bad, "price": None})


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ({"quote_ids": ["a"]}, ValueError, "quote_ids has 1 values for 2 symbols"),
        ({"quote_ids": ["a", None]}, ValueError, r"quote_ids\[1\] is null"),
        ({"quote_ids": ["a", "b=c"]}, ValueError, "contains '='"),
        ({"bid_px": [1]}, ValueError, "bid_px has 1 rows, expected 2: one per quote"),
        ({"offer_size": [1, 2, 3]}, ValueError, "offer_size has 3 rows"),
        ({"offer_px_valid": [True]}, ValueError, "offer_px_valid has shape"),
        ({"price": fmt(-1, None)}, TypeError, r"bid_px: price.scale is required"),
        ({"price": None}, TypeError, r"bid_px: price= is required"),
        ({"bid_px": [1, None], "offer_px": [3, None]}, ValueError, "quote 1 has neither"),
        ({"bid_px_valid": [False, True], "offer_px": [None, 4]}, ValueError, "quote 0 has n"),
    ],
)
def test_quote_errors(change, error, match):
    good = {
        "symbols": ["A", "B"], "bid_px": [1, 2], "offer_px": [3, 4], "bid_size": [5, 6],
        "offer_size": [7, 8], "quote_ids": ["q1", "q2"], "price": fmt(0, 1), **head(),
    }  # fmt: skip
    assert len(fix.quotes(**good)) == 2
    with pytest.raises(error, match=match):
        fix.quotes(**{**good, **change})
