"""MassQuote (35=i), incremental refresh (35=X) and the shared Header, checked independently.

Every message is parsed back by simplefix; BodyLength and CheckSum are recomputed from the
raw bytes (``fix_checks``); the groups are walked here by FIX 4.4's definitions (count tag
first, the group's first field opening every entry, fields in their defined order) and
every value compared with ``ref_fixed`` (a :mod:`decimal` reference) of its input row.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vecfix
import vecfix.fix as fix

simplefix = pytest.importorskip("simplefix")

from fix_checks import pairs_of, ref_fixed  # noqa: E402

WHEN = "20240102-14:30:00.000"
NUMBERS = {"price": vecfix.NumberFormat(-2, 2)}  # sizes: whole numbers, no format needed
QUOTE_ORDER = (132, 133, 134, 135)  # after 299 and 55, FIX 4.4 QuotEntryGrp
INC_ORDER = (270, 271, 273, 290)  # after 279, 269 and 55, FIX 4.4 MDIncGrp


def take(pairs, i, tag):
    assert pairs[i][0] == tag, (i, tag, pairs[i])
    return pairs[i][1], i + 1


def header_of(pairs, msg_type):
    """The standard header's fields, in order; returns (seq, position after it)."""
    assert [t for t, _ in pairs[:5]] == [35, 49, 56, 34, 52]
    assert pairs[0][1] == msg_type
    return int(pairs[3][1]), 5


# ---------------------------------------------------------------------------------------
# MassQuote: a reader that follows FIX 4.4 and collects what was sent
# ---------------------------------------------------------------------------------------


def read_mass_quotes(msgs):
    """Walk every 35=i; returns (messages, entries): per message its seq, QuoteID and
    entry count; per entry (set id, 304, 893 or None, entry id, symbol, {tag: value})."""
    messages, entries = [], []
    for msg in msgs:
        pairs = pairs_of(msg)
        seq, i = header_of(pairs, b"i")
        qid, i = take(pairs, i, 117)
        if pairs[i][0] == 301:
            i += 1
        n_sets, i = take(pairs, i, 296)
        count = 0
        for _ in range(int(n_sets)):
            set_id, i = take(pairs, i, 302)
            total, i = take(pairs, i, 304)
            flag = None
            if pairs[i][0] == 893:
                flag, i = take(pairs, i, 893)
            n_entries, i = take(pairs, i, 295)
            assert int(n_entries) >= 1
            for _ in range(int(n_entries)):
                eid, i = take(pairs, i, 299)
                sym, i = take(pairs, i, 55)
                values = {}
                for tag in QUOTE_ORDER:  # each optional, in this order
                    if i < len(pairs) and pairs[i][0] == tag:
                        values[tag] = pairs[i][1]
                        i += 1
                assert 132 in values or 133 in values
                entries.append((set_id, int(total), flag, eid, sym, values))
            count += int(n_entries)
        assert i == len(pairs), pairs[i:]  # nothing after the last group
        messages.append((seq, qid, count))
    return messages, entries


def expected_values(row, exps=(-2, -2, 0, 0), scales=(2, 2, 0, 0)):
    return {
        tag: ref_fixed(v, e, s).encode()
        for tag, v, e, s in zip(QUOTE_ORDER, row, exps, scales, strict=True)
        if v is not None
    }


def set_ids(set_counts):
    """``quote_set_ids`` for sets of these sizes, numbered 1, 2, ... (as the default)."""
    return np.repeat(np.arange(1, len(set_counts) + 1), set_counts)


def check_layout(set_counts, limit, messages, entries):
    """Entries in input order; 304, 893 and the packing rule, from the set sizes alone."""
    if not set_counts:
        assert messages == [] and entries == []
        return
    set_of = np.repeat(np.arange(len(set_counts)), set_counts)
    assert [int(e[0]) - 1 for e in entries] == set_of.tolist()  # default ids 1, 2, ...
    position = np.arange(len(set_of)) - np.repeat(np.cumsum([0, *set_counts[:-1]]), set_counts)
    assert [int(e[3]) for e in entries] == (position + 1).tolist()
    assert [e[1] for e in entries] == [set_counts[s] for s in set_of]
    sizes = [c for _, _, c in messages]
    assert all(1 <= c <= limit for c in sizes)
    assert sum(sizes) == len(entries)
    # which message each entry went to, and the sets cut across messages
    msg_of = np.repeat(np.arange(len(sizes)), sizes)
    for s, count in enumerate(set_counts):
        in_msgs = msg_of[set_of == s]
        flags = [e[2] for e, k in zip(entries, set_of, strict=True) if k == s]
        if in_msgs[0] == in_msgs[-1]:  # whole in one message: no LastFragment
            assert set(flags) == {None}
        else:  # only a set larger than the limit is cut, and it starts a message
            assert count > limit
            assert int(in_msgs[0]) == 0 or msg_of[np.flatnonzero(set_of == s)[0] - 1] < in_msgs[0]
            assert flags == [b"N" if k < in_msgs[-1] else b"Y" for k in in_msgs]
    # greedy: a set starts a new message only if it did not fit in the previous one
    start = 0
    for k, c in enumerate(sizes[:-1]):
        nxt = int(set_of[start + c])
        room = limit - c
        if set_of[start + c - 1] == nxt:  # a cut set goes on: the message was full
            assert room == 0
        else:
            assert set_counts[nxt] > room, (k, sizes, set_counts)
        start += c


def test_mass_quote_groups_order_and_values():
    rows = [  # bid px, offer px, bid size, offer size
        (5000_25, 5000_50, 10, 12),
        (None, 5011_00, None, 5),
        (4999_75, None, 3, None),
        (1, -1, 0, 7),
    ]
    symbols = ["ESZ4", "ESH5", "NQZ4", "YMZ4"]
    cols = [list(c) for c in zip(*rows, strict=True)]
    head = fix.Header("MM", "VENUE", next_seq=41)
    msgs = fix.mass_quotes(
        symbols, *cols, quote_set_ids=set_ids([3, 1]), max_entries=2, header=head,
        sending_time=WHEN, quote_ids="Q", response_level=2, **NUMBERS,
    )  # fmt: skip
    messages, entries = read_mass_quotes(msgs)
    # the 3-entry set is cut (2 + 1); the 1-entry set fits in the room left
    assert [m[0] for m in messages] == [41, 42] and head.next_seq == 43
    assert [m[1] for m in messages] == [b"Q41", b"Q42"]
    assert [m[2] for m in messages] == [2, 2]
    assert [e[4].decode() for e in entries] == symbols
    assert [e[5] for e in entries] == [expected_values(r) for r in rows]
    check_layout([3, 1], 2, messages, entries)
    assert [e[2] for e in entries] == [b"N", b"N", b"Y", None]
    assert all(b"\x01301=2\x01" in m for m in msgs)
    # every price is format_fixed of the same row
    bid = vecfix.format_fixed(cols[0], -2, 2).to_list()
    assert [e[5].get(132) for e in entries] == [None if b is None else b.encode() for b in bid]


def test_mass_quote_ids_given_and_defaults():
    msgs = fix.mass_quotes(
        np.array(["A", "B", "C"]), [1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 1, 1],
        quote_set_ids=np.array([10, 20, 20], dtype=np.uint8), quote_entry_ids=["e1", "e2", "e3"],
        quote_ids=["first"], header=fix.Header("S", "T"), sending_time=WHEN, **NUMBERS,
    )  # fmt: skip
    messages, entries = read_mass_quotes(msgs)
    assert messages == [(1, b"first", 3)]
    assert [(e[0], e[3]) for e in entries] == [(b"10", b"e1"), (b"20", b"e2"), (b"20", b"e3")]
    # default: sets of max_entries rows, QuoteID = MsgSeqNum
    msgs = fix.mass_quotes(
        ["A"] * 5, [1] * 5, [2] * 5, [3] * 5, [4] * 5, max_entries=2,
        header=fix.Header("S", "T", next_seq=9), sending_time=WHEN, **NUMBERS,
    )  # fmt: skip
    messages, entries = read_mass_quotes(msgs)
    assert messages == [(9, b"9", 2), (10, b"10", 2), (11, b"11", 1)]
    check_layout([2, 2, 1], 2, messages, entries)


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        (
            {"quote_set_ids": ["a", "b", "a"]},
            ValueError,
            r"quote_set_ids\[2\] = 'a' comes back after another set \(its set began at row 0\)",
        ),
        ({"quote_set_ids": [1, 1]}, ValueError, "quote_set_ids has 2 rows, expected 3"),
        ({"quote_set_ids": [1.5, 1.5, 2]}, TypeError, r"quote_set_ids\[0\] must be str or bytes"),
        ({"quote_set_ids": ["a", None, "a"]}, ValueError, r"quote_set_ids\[1\] is null"),
        ({"quote_set_ids": ["a", "a=", "b"]}, ValueError, r"quote_set_ids\[1\] .* contains '='"),
        ({"max_entries": 0}, ValueError, "max_entries must be >= 1"),
        ({"max_entries": 2.0}, TypeError, "max_entries must be an int"),
        ({"bid_px": [1, None, 3], "offer_px": [1, None, 3]}, ValueError, "quote entry 1 has"),
        ({"bid_px": [1, 2]}, ValueError, "bid_px has 2 rows, expected 3"),
        ({"quote_ids": ["a", "b"]}, ValueError, "quote_ids has 2 rows, expected 1"),
        ({"quote_ids": "a=b"}, ValueError, "contains '='"),
        ({"quote_entry_ids": ["x", None, "z"]}, ValueError, r"quote_entry_ids\[1\] is null"),
        ({"symbols": ["A", "B\x01", "C"]}, ValueError, r"symbols\[1\] = b'B\\x01' contains SOH"),
        ({"response_level": -1}, ValueError, "response_level must be >= 0"),
        ({"price": None}, TypeError, r"bid_px: price= is required for integer coefficients"),
        ({"size": vecfix.NumberFormat(-1)}, TypeError, r"bid_size: size.scale is required"),
    ],
)
def test_mass_quote_errors_take_no_sequence_number(change, error, match):
    head = fix.Header("S", "T", next_seq=5)
    good = {
        "symbols": ["A", "B", "C"], "bid_px": [1, 2, 3], "offer_px": [4, 5, 6],
        "bid_size": [1, 1, 1], "offer_size": [2, 2, 2], "quote_set_ids": [1, 1, 2],
        "header": head, "sending_time": WHEN, **NUMBERS,
    }  # fmt: skip
    with pytest.raises(error, match=match):
        fix.mass_quotes(**{**good, **change})
    assert head.next_seq == 5  # nothing taken by a call that raised
    assert len(fix.mass_quotes(**good)) == 1 and head.next_seq == 6


quote_sets = st.lists(
    st.lists(
        st.tuples(
            st.integers(-(10**12), 10**12) | st.none(),
            st.integers(-(10**12), 10**12) | st.none(),
            st.integers(0, 10**6) | st.none(),
            st.integers(0, 10**6) | st.none(),
        ).filter(lambda r: r[0] is not None or r[1] is not None),
        min_size=1,
        max_size=7,
    ),
    max_size=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=quote_sets, limit=st.integers(1, 6), first=st.integers(1, 10**9))
def test_random_quote_set_groupings(sets, limit, first):
    rows = [r for s in sets for r in s]
    counts = [len(s) for s in sets]
    cols = [list(c) for c in zip(*rows, strict=True)] if rows else [[], [], [], []]
    head = fix.Header("MM", "VENUE", next_seq=first)
    msgs = fix.mass_quotes(
        [f"S{i % 3}" for i in range(len(rows))], *cols, quote_set_ids=set_ids(counts),
        max_entries=limit, header=head, sending_time=WHEN, **NUMBERS,
    )  # fmt: skip
    messages, entries = read_mass_quotes(msgs)
    assert [m[0] for m in messages] == list(range(first, first + len(messages)))
    assert head.next_seq == first + len(messages)
    assert [e[5] for e in entries] == [expected_values(r) for r in rows]
    check_layout(counts, limit, messages, entries)


# ---------------------------------------------------------------------------------------
# Incremental refresh
# ---------------------------------------------------------------------------------------


def read_incremental(msgs):
    """Walk every 35=X: per message (seq, [(279, 269, 55, {tag: value}) per entry])."""
    out = []
    for msg in msgs:
        pairs = pairs_of(msg)
        seq, i = header_of(pairs, b"X")
        if pairs[i][0] == 262:
            i += 1
        n, i = take(pairs, i, 268)
        got = []
        for _ in range(int(n)):
            action, i = take(pairs, i, 279)
            kind, i = take(pairs, i, 269)
            sym, i = take(pairs, i, 55)
            values = {}
            for tag in INC_ORDER:
                if i < len(pairs) and pairs[i][0] == tag:
                    values[tag] = pairs[i][1]
                    i += 1
            got.append((action, kind, sym, values))
        assert i == len(pairs), pairs[i:]
        out.append((seq, got))
    return out


def test_incremental_entries_times_positions_and_groups():
    px = [5000_25, None, 4999_50, 12]
    sz = [7, None, None, 1]
    times = np.array(
        ["2024-01-02T14:30:00.123456", "NaT", "2024-01-02T00:00:01", "2024-01-02T23:59:59.999"],
        dtype="datetime64[us]",
    )
    msgs = fix.incremental(
        [0, 2, "1", 0], ["0", "1", 2, "J"], ["ESZ4", "ESZ4", "NQZ4", "CL"], px, sz,
        entry_counts=[3, 1], entry_times=times, position_nos=[1, None, 3, 10],
        md_req_id="REQ-1", header=fix.Header("MD", "C", next_seq=3), sending_time=WHEN,
        **NUMBERS,
    )  # fmt: skip
    got = read_incremental(msgs)
    assert [seq for seq, _ in got] == [3, 4]
    entries = [e for _, es in got for e in es]
    assert [len(es) for _, es in got] == [3, 1]
    assert [(a, k, s) for a, k, s, _ in entries] == [
        (b"0", b"0", b"ESZ4"), (b"2", b"1", b"ESZ4"), (b"1", b"2", b"NQZ4"), (b"0", b"J", b"CL"),
    ]  # fmt: skip
    for (_, _, _, values), p, s in zip(entries, px, sz, strict=True):
        assert values.get(270) == (None if p is None else ref_fixed(p, -2, 2).encode())
        assert values.get(271) == (None if s is None else str(s).encode())
    want = [b"14:30:00.123", None, b"00:00:01.000", b"23:59:59.999"]
    assert [v.get(273) for *_, v in entries] == want
    assert [v.get(290) for *_, v in entries] == [b"1", None, b"3", b"10"]
    assert all(b"\x01262=REQ-1\x01268=" in m for m in msgs)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    groups=st.lists(
        st.lists(
            st.tuples(st.integers(-(10**15), 10**15) | st.none(), st.none() | st.integers(0, 99)),
            min_size=1, max_size=6,
        ),
        max_size=5,
    ),
    limit=st.none() | st.integers(1, 4),
    grouped=st.booleans(),
)  # fmt: skip
def test_random_incremental_groupings(groups, limit, grouped):
    rows = [r for g in groups for r in g]
    counts = [len(g) for g in groups] if grouped else None
    px = [p for p, _ in rows]
    sz = [s for _, s in rows]
    msgs = fix.incremental(
        1, 0, ["X"] * len(rows), px, sz, entry_counts=counts, max_entries=limit,
        header=fix.Header("S", "T"), sending_time=WHEN, **NUMBERS,
    )  # fmt: skip
    got = read_incremental(msgs)
    sizes = [len(es) for _, es in got]
    wanted = counts if counts is not None else ([len(rows)] if rows else [])
    if limit is not None:  # each group cut into pieces of at most `limit`
        wanted = [min(limit, c - k) for c in wanted for k in range(0, c, limit)]
    assert sizes == wanted
    assert [seq for seq, _ in got] == list(range(1, len(got) + 1))
    values = [v for _, es in got for *_, v in es]
    assert [v.get(270) for v in values] == [
        None if p is None else ref_fixed(p, -2, 2).encode() for p in px
    ]
    assert [v.get(271) for v in values] == [None if s is None else str(s).encode() for s in sz]


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ({"entry_counts": [1, 0, 1]}, ValueError, r"entry_counts\[1\] = 0 is empty"),
        ({"entry_counts": [1]}, ValueError, "entry_counts sums to 1, but there are 2"),
        ({"actions": [0, 3, 1]}, ValueError, "actions has shape"),
        ({"actions": [0, 10]}, ValueError, r"actions\[1\] = 10"),
        ({"entry_types": ["0", "=="]}, ValueError, r"entry_types\[1\] = '==' must be"),
        ({"position_nos": [1, 0]}, ValueError, r"position_nos\[1\] = 0 must be >= 1"),
        ({"position_nos": [-1, 2]}, ValueError, r"position_nos\[0\] = -1 must be >= 1"),
        ({"entry_times": ["14:30:00", "25:00:00"]}, ValueError, r"entry_times\[1\] = '25:00:00'"),
        ({"md_req_id": "a\x01"}, ValueError, "md_req_id.* contains SOH"),
        ({"max_entries": -1}, ValueError, "max_entries must be >= 1"),
    ],
)
def test_incremental_errors(change, error, match):
    good = {
        "actions": 0, "entry_types": [0, 1], "symbols": ["A", "B"], "prices": [1, 2],
        "sizes": [3, 4], "header": fix.Header("S", "T"), "sending_time": WHEN, **NUMBERS,
    }  # fmt: skip
    assert len(fix.incremental(**good)) == 1
    with pytest.raises(error, match=match):
        fix.incremental(**{**good, **change})


# ---------------------------------------------------------------------------------------
# One Header across builders and calls
# ---------------------------------------------------------------------------------------


def test_sequence_numbers_continue_across_builders_and_calls():
    head = fix.Header("PUB", "SUB", begin_string="FIX.4.2", next_seq=99)
    batches = [
        fix.snapshots(["A", "B"], [1, 1], 0, [1, 2], [3, 4], header=head, sending_time=WHEN,
                      **NUMBERS),
        fix.quotes(["A"], [1], [2], [3], [4], quote_ids=["q"], header=head, sending_time=WHEN,
                   **NUMBERS),
        fix.mass_quotes(["A"] * 5, [1] * 5, [2] * 5, [3] * 5, [4] * 5, max_entries=2,
                        header=head, sending_time=WHEN, **NUMBERS),
        fix.incremental(0, 0, ["A"] * 3, [1] * 3, [2] * 3, max_entries=1, header=head,
                        sending_time=WHEN, **NUMBERS),
    ]  # fmt: skip
    seqs = []
    for msgs in batches:
        for m in msgs:
            pairs = pairs_of(m)
            assert m.startswith(b"8=FIX.4.2\x01")
            assert pairs[1] == (49, b"PUB") and pairs[2] == (56, b"SUB")
            seqs.append(int(pairs[3][1]))
    assert seqs == list(range(99, 99 + 2 + 1 + 3 + 3))
    assert head.next_seq == 99 + len(seqs)


def test_header_record_and_its_errors():
    head = fix.Header("S", "T")
    assert (head.sender, head.target, head.begin_string, head.next_seq) == ("S", "T", "FIX.4.4", 1)
    assert head.reserve(0) == range(1, 1) and head.reserve(2) == range(1, 3)
    with pytest.raises(ValueError, match="count must be >= 0"):
        head.reserve(-1)
    with pytest.raises(TypeError, match="count must be an int"):
        head.reserve(1.0)
    with pytest.raises(ValueError, match="would pass"):
        fix.Header("S", "T", next_seq=2**63 - 1).reserve(2)
    with pytest.raises(ValueError, match=r"sender = b'A=B' contains '='"):
        fix.Header("A=B", "T")
    with pytest.raises(ValueError, match="precision must be one of"):
        fix.Header("S", "T", precision="ns")
    with pytest.raises(TypeError, match="sender must be a str"):
        fix.Header(7, "T")
    with pytest.raises(ValueError, match=r"target .*is empty"):
        fix.Header("S", "")
    with pytest.raises(ValueError, match=r"begin_string.* contains SOH"):
        fix.Header("S", "T", begin_string="FIX\x014.4")
    with pytest.raises(ValueError, match="next_seq must be >= 1"):
        fix.Header("S", "T", next_seq=0)
    with pytest.raises(TypeError, match="next_seq must be an int, got float"):
        fix.Header("S", "T", next_seq=1.0)


def test_default_entry_ids_across_digit_widths_and_fragments():
    """Positions 1..1234 in one set cut at 500 and 1000: 1 to 4 digits, fragments starting
    mid-width (BodyLength is recomputed from the bytes by ``pairs_of``)."""
    n = 1234
    msgs = fix.mass_quotes(
        ["A"] * n, list(range(n)), [None] * n, [1] * n, [None] * n, quote_set_ids=[1] * n,
        max_entries=500, header=fix.Header("S", "T"), sending_time=WHEN, **NUMBERS,
    )  # fmt: skip
    messages, entries = read_mass_quotes(msgs)
    assert [c for _, _, c in messages] == [500, 500, 234]
    check_layout([n], 500, messages, entries)
    assert [e[3] for e in entries] == [str(k).encode() for k in range(1, n + 1)]
