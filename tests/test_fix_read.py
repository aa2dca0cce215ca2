"""vecfix.fix.read: FIX tag=value back into Arrow columns, checked independently.

Expected values come from outside the reader: fixtures written here by hand after FIX 4.4's
message definitions, framed by :func:`frame` (BodyLength and CheckSum computed here, the
plain way), the inputs vecfix's builders were given (prices through ``ref_fixed``, the
:mod:`decimal` reference), and simplefix's parse of the same bytes.
"""

from __future__ import annotations

import warnings
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import vecfix
import vecfix.fix as fix

pa = pytest.importorskip("pyarrow")
simplefix = pytest.importorskip("simplefix")

from fix_checks import ref_fixed  # noqa: E402

SOH = b"\x01"
WHEN = "20240102-14:30:00.125"


def frame(body: str, begin: str = "FIX.4.4") -> bytes:
    """A whole message around ``body`` (``|`` for SOH): BodyLength and CheckSum computed
    here, by the definitions in FIX 4.4 (vol. 2, "Message format")."""
    assert body.endswith("|"), "every field ends with SOH"
    payload = body.replace("|", "\x01").encode()
    head = f"8={begin}\x019={len(payload)}\x01".encode()
    msg = head + payload
    return msg + b"10=%03d\x01" % (sum(msg) % 256)


def rows(table, *names):
    """The table's rows as tuples of Python values (decimals as their text)."""
    cols = [table[n].to_pylist() for n in names]
    return [
        tuple(str(v) if isinstance(v, Decimal) else v for v in row)
        for row in zip(*cols, strict=True)
    ]


def epoch(column) -> list[int | None]:
    """A timestamp column as integers in its unit."""
    return column.cast(pa.int64()).to_pylist()


def read_quiet(source, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fix.read(source, **kw)


# ---------------------------------------------------------------------------------------
# Hand-written fixtures (FIX 4.4)
# ---------------------------------------------------------------------------------------

# MarketDataSnapshotFullRefresh: Instrument (55), optional MDReqID (262), then NoMDEntries
# (268): each entry opens with MDEntryType (269); MDEntryPx (270), Currency (15),
# MDEntrySize (271), MDEntryDate/Time (272/273) and MDEntryPositionNo (290) optional.
W = frame(
    "35=W|49=VENUE|56=CLIENT|34=12|52=20240102-14:30:00.125|262=REQ7|55=ESZ4|268=3|"
    "269=0|270=5000.25|15=USD|271=10|290=1|"
    "269=1|270=5000.5|271=7|272=20240102|273=14:30:00.120|"
    "269=2|270=-0.125|"
)
# MarketDataIncrementalRefresh: NoMDEntries opens with MDUpdateAction (279); the symbol is
# in each entry.
X = frame(
    "35=X|49=VENUE|56=CLIENT|34=13|52=20240102-14:30:01|268=2|"
    "279=0|269=0|55=NQZ4|270=18000.00|271=3|"
    "279=2|269=1|55=ESZ4|"
)
# MassQuote: QuoteID (117), NoQuoteSets (296): each set opens with QuoteSetID (302), has
# TotNoQuoteEntries (304) and NoQuoteEntries (295): each entry opens with QuoteEntryID (299).
MQ = frame(
    "35=i|49=MM|56=VENUE|34=5|52=20240102-14:30:00.000001|117=Q1|296=2|"
    "302=S1|304=2|295=2|299=E1|55=ESZ4|132=5000.25|133=5000.50|134=10|135=12|"
    "299=E2|55=ESH5|133=5011|135=5|"
    "302=S2|304=1|295=1|299=E1|55=NQZ4|132=18000.125|134=1|"
)
# NewOrderSingle: no repeating group; TransactTime (60) in microseconds, a price (44).
D = frame(
    "35=D|49=BUY|56=SELL|34=2|52=20240102-14:30:00|11=ORD-1|55=MSFT|54=1|"
    "60=20240102-14:29:59.999999|38=100|40=2|44=402.12|"
)
HEARTBEAT = frame("35=0|49=A|56=B|34=3|52=20240102-14:30:02.000|")


def test_snapshot_one_row_per_entry_with_the_message_fields():
    t = read_quiet(W)
    assert t.num_rows == 3
    assert t.column_names[:3] == ["msg", "offset", "valid"]
    assert t.column_names[3:] == [
        "8", "9", "35", "49", "56", "34", "52", "262", "55", "268", "269", "270", "15",
        "271", "290", "272", "273", "10",
    ]  # fmt: skip
    assert (
        rows(t, "msg", "offset", "valid", "55", "262", "34")
        == [(0, 0, True, "ESZ4", "REQ7", 12)] * 3
    )
    assert rows(t, "269", "270", "15", "271", "290", "272", "273") == [
        ("0", "5000.250", "USD", "10", 1, None, None),
        ("1", "5000.500", None, "7", None, "20240102", "14:30:00.120"),
        ("2", "-0.125", None, None, None, None, None),
    ]
    assert t.schema.field("270").type == pa.decimal128(18, 3)  # the widest scale seen
    assert t.schema.field("271").type == pa.decimal128(18, 0)
    assert t.schema.field("34").type == pa.int64()
    assert t.schema.field("268").type == pa.int64()
    assert t.schema.field("52").type == pa.timestamp("ms", tz="UTC")
    assert t["52"][0].value == 1704205800125  # ms since 1970, computed by hand
    assert t["9"].to_pylist() == [int(W.split(SOH)[1][2:])] * 3
    assert t["10"].to_pylist() == [W[-4:-1].decode()] * 3


def test_incremental_mass_quote_and_messages_without_groups():
    log = W + X + MQ + D + HEARTBEAT
    t = read_quiet(log)
    starts = [0, len(W), len(W) + len(X), len(W) + len(X) + len(MQ), len(log) - len(HEARTBEAT)]
    assert t["msg"].to_pylist() == [0, 0, 0, 1, 1, 2, 2, 2, 3, 4]
    assert t["offset"].to_pylist() == [starts[i] for i in t["msg"].to_pylist()]
    assert all(t["valid"].to_pylist())
    assert rows(t, "35", "279", "269", "55", "270")[3:5] == [
        ("X", "0", "0", "NQZ4", "18000.000"),
        ("X", "2", "1", "ESZ4", None),
    ]
    assert rows(t, "117", "302", "304", "299", "55", "132", "133", "134", "135")[5:8] == [
        ("Q1", "S1", 2, "E1", "ESZ4", "5000.250", "5000.50", "10", "12"),
        ("Q1", "S1", 2, "E2", "ESH5", None, "5011.00", None, "5"),
        ("Q1", "S2", 1, "E1", "NQZ4", "18000.125", None, "1", None),
    ]
    assert rows(t, "35", "11", "55", "54", "38", "40", "44")[8:] == [
        ("D", "ORD-1", "MSFT", "1", "100", "2", "402.12"),
        ("0", None, None, None, None, None, None),
    ]
    assert t.schema.field("60").type == pa.timestamp("us", tz="UTC")
    assert t["60"][8].value == 1704205799999999
    assert t.schema.field("52").type == pa.timestamp("us", tz="UTC")  # 35=i wrote us
    assert epoch(t["52"])[::3] == [
        1704205800125000, 1704205801000000, 1704205800000001, 1704205802000000,
    ]  # fmt: skip


def test_a_group_of_zero_entries_is_one_row():
    msg = frame("35=W|49=A|56=B|34=1|52=20240102-14:30:00|55=ES|268=0|")
    t = read_quiet(msg)
    assert rows(t, "55", "268", "valid") == [("ES", 0, True)]
    assert "269" not in t.column_names


def as_text(value) -> str:
    """A read value as FIX would write it (decimals compared by value elsewhere)."""
    if hasattr(value, "strftime"):
        return value.strftime("%Y%m%d-%H:%M:%S")
    return str(value)


def test_the_parse_agrees_with_simplefix():
    """Every field simplefix finds is in one of its message's rows, with the same value;
    and each row holds no value its message does not have."""
    log = W + X + MQ + D + HEARTBEAT
    parser = simplefix.FixParser()
    parser.append_buffer(log)
    t = read_quiet(log)
    msg_of = t["msg"].to_pylist()
    for m in range(5):
        msg = parser.get_message()
        assert msg is not None
        mine = [r for r, x in enumerate(msg_of) if x == m]
        pairs = [(str(int(tag)), value.decode()) for tag, value in msg]
        for tag, text in pairs:
            values = [t[tag][r].as_py() for r in mine]
            if pa.types.is_decimal(t.schema.field(tag).type):
                assert Decimal(text) in values, (m, tag, text)
            else:
                assert text[:17] in [as_text(v)[:17] for v in values if v is not None], (m, tag)
        for name in t.column_names[3:]:
            present = {as_text(t[name][r].as_py()) for r in mine} - {"None"}
            if pa.types.is_decimal(t.schema.field(name).type):
                assert {Decimal(v) for v in present} <= {Decimal(x) for g, x in pairs if g == name}
            else:
                assert {v[:17] for v in present} <= {x[:17] for g, x in pairs if g == name}, name


# ---------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------


def corrupt_checksum(msg: bytes) -> bytes:
    digits = int(msg[-4:-1])
    return msg[:-4] + b"%03d\x01" % ((digits + 1) % 256)


def test_wrong_checksum_truncation_and_prefixed_lines():
    good = frame("35=0|49=A|56=B|34=1|52=20240102-14:30:00|")
    bad_sum = corrupt_checksum(frame("35=0|49=A|56=B|34=2|52=20240102-14:30:00|"))
    prefixed = b"2024-01-02 14:30:00.001 INFO " + frame("35=0|49=A|56=B|34=3|52=20240102-14:30:00|")
    cut = frame(
        "35=W|49=A|56=B|34=4|52=20240102-14:30:00|55=ES|268=2|269=0|270=1.5|269=1|270=1.75|"
    )
    cut = cut[: cut.index(b"269=1")]
    log = good + b"\n" + bad_sum + b"\n" + prefixed + b"\n" + cut
    with pytest.warns(UserWarning) as caught:
        t = fix.read(log)
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "2 of 4 messages are not valid" in text
    assert "1 wrong CheckSum (10)" in text and "1 truncated" in text
    assert rows(t, "msg", "34", "valid") == [
        (0, 1, True),
        (1, 2, False),
        (2, 3, True),
        (3, 4, False),
    ]
    assert t["offset"].to_pylist()[2] == log.index(b"8=FIX", len(good) + len(bad_sum) + 2)
    assert rows(t, "55", "269", "270")[3] == ("ES", "0", "1.5")  # as far as it parses


def test_wrong_body_length_falls_back_to_the_trailer():
    body = "35=0|49=A|56=B|34=1|52=20240102-14:30:00|"
    msg = frame(body)
    wrong = msg.replace(b"9=%d" % (len(body)), b"9=%d" % (len(body) + 3))
    checksum = sum(wrong[: wrong.index(b"\x0110=") + 1]) % 256
    wrong = wrong[:-4] + b"%03d\x01" % checksum  # only BodyLength is wrong now
    log = wrong + frame("35=0|49=A|56=B|34=2|52=20240102-14:30:00|")
    with pytest.warns(UserWarning, match="1 wrong BodyLength"):
        t = fix.read(log)
    assert rows(t, "34", "valid") == [(1, False), (2, True)]
    with pytest.raises(
        ValueError, match=r"message 0 at byte 0 is not valid: BodyLength \(9="
    ) as info:
        fix.read(log, strict=True)
    assert len(str(info.value).splitlines()[0]) <= 200


@pytest.mark.parametrize(
    ("body", "what"),
    [
        ("35=0|49=A|56|34=1|", "a field without '='"),
        ("35=0|49=A|5x6=B|34=1|", "a tag that is not a number"),
        ("35=0|49=A|56=|34=1|", "an empty value"),
        ("49=A|35=0|34=1|", "MsgType (35) not third"),
        ("35=W|55=ES|268=2|269=0|270=1|", "a group count that disagrees with its entries"),
        ("35=W|55=ES|268=1|269=0|270=1e3|", "a value not of its tag's type"),
        ("35=W|55=ES|268=1|269=0|270=+1|", "a value not of its tag's type"),
        ("35=0|34=1.0|", "a value not of its tag's type"),
        ("35=0|52=20240230-00:00:00|", "a value not of its tag's type"),
    ],
)
def test_grammar_problems_are_kept_and_named(body, what):
    bad = frame(body)
    log = frame("35=0|34=1|") + bad
    with pytest.warns(UserWarning, match=rf"1 {__import__('re').escape(what)}"):
        t = fix.read(log)
    assert t["valid"].to_pylist()[0] is True
    assert set(t["valid"].to_pylist()[1:]) == {False}
    with pytest.raises(ValueError, match=rf"message 1 at byte {len(log) - len(bad)} is not valid"):
        fix.read(log, strict=True)


def test_strict_passes_a_clean_log_and_names_the_first_problem():
    log = W + corrupt_checksum(X) + corrupt_checksum(MQ)
    assert fix.read(W + X, strict=True).num_rows == 5
    with pytest.raises(ValueError) as info:
        fix.read(log, strict=True)
    first = str(info.value).splitlines()[0]
    assert first.startswith(f"message 1 at byte {len(W)} is not valid: CheckSum (10=")
    assert f"the bytes sum to {int(X[-4:-1]):03d}" in first
    assert len(first) <= 200


def test_bytes_after_the_last_message_are_reported():
    with pytest.warns(UserWarning, match="the last 4 bytes .* are not a FIX message"):
        t = fix.read(HEARTBEAT + b"\n8=FI")
    assert t.num_rows == 1
    with pytest.raises(ValueError, match="not a FIX message"):
        fix.read(HEARTBEAT + b"junk", strict=True)
    assert read_quiet(HEARTBEAT + b"\r\n\n").num_rows == 1  # line ends are not junk


def test_an_entry_s_own_field_wins_over_its_message_s():
    # Currency (15), MDEntrySize (271) and MDEntryPositionNo (290) for the whole message,
    # and in one entry its own
    msg = frame(
        "35=W|49=A|56=B|34=1|52=20240102-14:30:00|15=USD|271=100|290=9|55=ES|268=3|"
        "269=0|270=1|269=1|270=2|15=EUR|271=7|290=5|269=2|270=3|"
    )
    t = read_quiet(msg + HEARTBEAT + msg)
    assert t["15"].to_pylist() == ["USD", "EUR", "USD", None, "USD", "EUR", "USD"]
    assert rows(t, "271") == [("100",), ("7",), ("100",), (None,), ("100",), ("7",), ("100",)]
    assert t["290"].to_pylist() == [9, 5, 9, None, 9, 5, 9]
    assert t["270"].to_pylist() == [1, 2, 3, None, 1, 2, 3]


def test_a_tag_repeated_in_a_row_keeps_the_first_and_says_so():
    # NoPartyIDs (453) is a repeating group that makes no rows: its fields repeat
    msg = frame("35=8|49=A|56=B|34=1|52=20240102-14:30:00|453=2|448=P1|452=1|448=P2|452=3|")
    with pytest.warns(UserWarning, match="2 fields repeat a tag already in their row"):
        t = fix.read(msg)
    assert rows(t, "453", "448", "452", "valid") == [(2, "P1", 1, True)]


# ---------------------------------------------------------------------------------------
# Sources, tags= and types=
# ---------------------------------------------------------------------------------------


def test_every_kind_of_source(tmp_path):
    log = W + X
    path = tmp_path / "log.fix"
    path.write_bytes(log)
    expected = read_quiet(log)
    arr = np.frombuffer(log, dtype=np.uint8)
    for source in (bytearray(log), memoryview(log), arr, arr.copy(), str(path), path):
        assert read_quiet(source).equals(expected), type(source)
    empty = tmp_path / "empty.fix"
    empty.write_bytes(b"")
    assert read_quiet(empty).num_rows == 0
    assert read_quiet(b"").column_names == ["msg", "offset", "valid"]


def test_bad_sources_and_arguments():
    with pytest.raises(TypeError, match="source must be bytes"):
        fix.read([W])
    with pytest.raises(TypeError, match="must be uint8, got int16"):
        fix.read(np.zeros(4, dtype=np.int16))
    with pytest.raises(FileNotFoundError):
        fix.read("/nonexistent/log.fix")
    with pytest.raises(TypeError, match="tags must be a sequence"):
        fix.read(W, tags=270)
    with pytest.raises(ValueError, match="tags: 270 is given twice"):
        fix.read(W, tags=[270, "270"])
    with pytest.raises(ValueError, match="between 1 and"):
        fix.read(W, tags=[0])
    with pytest.raises(ValueError, match="types\\[270\\] = 'float'"):
        fix.read(W, types={270: "float"})
    with pytest.raises(TypeError, match="floats are not exact"):
        fix.read(W, types={270: pa.float64()})
    with pytest.raises(TypeError, match="strict must be True or False"):
        fix.read(W, strict=1)


def test_tags_pick_and_order_the_columns():
    t = read_quiet(W + X, tags=[270, "55", 9999])
    assert t.column_names == ["msg", "offset", "valid", "270", "55", "9999"]
    assert rows(t, "270", "55", "9999") == [
        ("5000.250", "ESZ4", None), ("5000.500", "ESZ4", None), ("-0.125", "ESZ4", None),
        ("18000.000", "NQZ4", None), (None, "ESZ4", None),
    ]  # fmt: skip


def test_types_override_fix_44():
    t = read_quiet(
        W + D,
        types={
            270: "string", 271: pa.decimal128(20, 4), "34": pa.int32(), 52: pa.timestamp("ns"),
            290: "decimal", 44: pa.decimal256(40, 2),
        },
    )  # fmt: skip
    assert t["270"].to_pylist()[:3] == ["5000.25", "5000.5", "-0.125"]
    assert t.schema.field("271").type == pa.decimal128(20, 4)
    assert [str(v) for v in t["271"].to_pylist()[:2]] == ["10.0000", "7.0000"]
    assert t.schema.field("34").type == pa.int32()
    assert t.schema.field("52").type == pa.timestamp("ns")
    assert t["52"][0].value == 1704205800125000000
    assert t.schema.field("290").type == pa.decimal128(18, 0)
    assert t.schema.field("44").type == pa.decimal256(40, 2)
    assert str(t["44"][3].as_py()) == "402.12"


def test_a_fixed_scale_refuses_more_decimals():
    with pytest.warns(UserWarning, match="1 a value not of its tag's type"):
        t = fix.read(W, types={270: pa.decimal128(18, 2)})
    assert rows(t, "270", "valid") == [("5000.25", False), ("5000.50", False), (None, False)]
    with pytest.warns(UserWarning, match="3 a value not of its tag's type"):
        t = fix.read(W + X + W, types={270: pa.decimal128(5, 3)})  # 5 digits at most
    assert rows(t, "270")[:4] == [(None,), (None,), ("-0.125",), (None,)]


def test_wide_and_huge_decimals_stay_exact():
    big = "123456789012345678901234.5"  # beyond int64: decimal128(38, 1)
    huge = "9" * 45 + ".25"  # beyond 38 digits: decimal256
    t = read_quiet(frame(f"35=S|117=Q|55=X|132={big}|133={huge}|134=-0.000000000000000000001|"))
    assert t.schema.field("132").type == pa.decimal128(38, 1)
    assert str(t["132"][0].as_py()) == big
    assert t.schema.field("133").type == pa.decimal256(76, 2)
    assert str(t["133"][0].as_py()) == huge
    assert t.schema.field("134").type == pa.decimal128(38, 21)
    assert t["134"][0].as_py() == Decimal("-0.000000000000000000001")


def test_timestamps_at_every_precision():
    for text, unit, value in [
        ("20240229-23:59:59", "s", 1709251199),
        ("20240229-23:59:59.500", "ms", 1709251199500),
        ("20240229-23:59:59.123456", "us", 1709251199123456),
        ("20240229-23:59:59.123456789", "ns", 1709251199123456789),
        ("19700101-00:00:00.000", "ms", 0),
        ("19691231-23:59:59.999", "ms", -1),
    ]:
        t = read_quiet(frame(f"35=0|52={text}|"))
        assert t.schema.field("52").type == pa.timestamp(unit, tz="UTC"), text
        assert t["52"][0].value == value, text


@pytest.mark.parametrize("after", [b"", b"\n", b"\r\n" + b" " * 70])
def test_tags_and_values_of_every_length(after):
    """Tags of 1 to 10 digits and values of 0 to 150 bytes (the scan reads 8 bytes and
    64 SOH bits a step), in messages that end the buffer or not."""
    tags = [1, 12, 123, 1234, 12345, 123456, 1234567, 12345678, 123456789, 2147483647]
    bodies, want = [], []
    for n in range(151):
        tag = tags[n % len(tags)]
        value = ("v=" * 80)[:n]  # "=" inside a value is the value's
        bodies.append(f"35=0|58=x|{tag}={value}|")
        want.append((tag, value))
    log = b"".join(frame(b) for b in bodies)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the empty value
        t = fix.read(log + after, types=dict.fromkeys(tags, "string"))
    for i, (tag, value) in enumerate(want):
        assert t[str(tag)][i].as_py() == value, (i, tag)
        assert t["valid"][i].as_py() is (value != ""), i
    assert t["58"].to_pylist() == ["x"] * 151


@pytest.mark.parametrize(
    ("field", "what"),
    [
        ("035=0", "a tag that is not a number"),  # a leading zero
        ("0=0", "a tag that is not a number"),
        ("2147483648=0", "a tag that is not a number"),  # beyond int32
        ("99999999999=0", "a tag that is not a number"),
        ("12a=0", "a tag that is not a number"),
        ("=0", "a tag that is not a number"),
        ("1234567", "a field without '='"),
        ("123456789012345678", "a field without '='"),
    ],
)
def test_tags_that_are_not_tags(field, what):
    for tail in ("", "|58=after"):  # the field last in its message, or not
        bad = frame(f"35=0|34=1|{field}{tail}|")
        with pytest.warns(UserWarning, match=rf"1 {what}"):
            t = fix.read(frame("35=0|34=1|") + bad)
        assert t["valid"].to_pylist() == [True, False]
        assert t["34"].to_pylist() == [1, 1]


def test_large_string_by_types():
    t = read_quiet(W + X, types={55: pa.large_string(), 270: pa.large_string()})
    assert t.schema.field("55").type == pa.large_string()  # a message's, over its rows
    assert t["55"].to_pylist() == ["ESZ4", "ESZ4", "ESZ4", "NQZ4", "ESZ4"]
    assert t.schema.field("270").type == pa.large_string()
    assert t["270"].to_pylist() == ["5000.25", "5000.5", "-0.125", "18000.00", None]
    one = read_quiet(frame("35=D|11=A|44=1.5|"), types={11: pa.large_string()})
    assert one["11"].type == pa.large_string() and one["11"].to_pylist() == ["A"]


def test_large_tags_and_many_messages():
    msgs = b"".join(frame(f"35=0|34={i}|70000={i * 3}|65536=x{i}|") for i in range(1, 2001))
    t = read_quiet(msgs)
    assert t["34"].to_pylist() == list(range(1, 2001))
    assert t["70000"].to_pylist() == [str(i * 3) for i in range(1, 2001)]
    assert t["65536"].to_pylist()[-1] == "x2000"
    t = read_quiet(msgs, tags=[70000, 34])
    assert t.column_names[3:] == ["70000", "34"]
    assert t["70000"].to_pylist()[:2] == ["3", "6"]


def test_fixt_and_a_message_cut_in_its_first_field():
    fixt = frame("35=0|49=A|56=B|34=1|52=20240102-14:30:00|1128=9|", begin="FIXT.1.1")
    with pytest.warns(UserWarning, match="1 truncated"):
        t = fix.read(fixt + b"\n8=FIX.4")
    assert rows(t, "8", "35", "1128", "valid") == [
        ("FIXT.1.1", "0", "9", True),
        ("FIX.4", None, None, False),
    ]
    assert t["offset"].to_pylist() == [0, len(fixt) + 1]


# ---------------------------------------------------------------------------------------
# Round trips: messages vecfix builds read back to what they were built from
# ---------------------------------------------------------------------------------------
# One function per message type builds through vecfix's builders; only these change when
# the builders' keywords do.


def head(seq: int = 1) -> fix.Header:
    return fix.Header("VECFIX", "CLIENT", next_seq=seq)


def build_w(symbols, counts, types, prices, sizes, exponent, scale, seq=1):
    return fix.snapshots(
        symbols, counts, types, prices, sizes, price=vecfix.NumberFormat(exponent, scale),
        header=head(seq), sending_time=WHEN,
    )  # fmt: skip


def build_s(symbols, ids, bid, offer, bid_size, offer_size, exponent, scale, seq=1):
    return fix.quotes(
        symbols, bid, offer, bid_size, offer_size, quote_ids=ids,
        price=vecfix.NumberFormat(exponent, scale), header=head(seq), sending_time=WHEN,
    )  # fmt: skip


def build_i(symbols, bid, offer, bid_size, offer_size, set_counts, max_entries, seq=1):
    set_ids = np.repeat([str(k + 1) for k in range(len(set_counts))], set_counts)
    return fix.mass_quotes(
        symbols, bid, offer, bid_size, offer_size, quote_set_ids=set_ids,
        max_entries=max_entries, price=vecfix.NumberFormat(-9, 4), header=head(seq),
        sending_time=WHEN,
    )  # fmt: skip


def build_x(actions, types, symbols, prices, sizes, counts, seq=1):
    return fix.incremental(
        actions, types, symbols, prices, sizes, entry_counts=counts,
        price=vecfix.NumberFormat(-2, 2), header=head(seq), sending_time=WHEN,
    )  # fmt: skip


def text_of(column) -> list[str | None]:
    return [None if v is None else format(v, "f") for v in column.to_pylist()]


def expected_text(prices, exponent, scales) -> list[str | None]:
    scales = np.broadcast_to(scales, len(prices))
    return [
        None if p is None else ref_fixed(p, exponent, int(s))
        for p, s in zip(prices, scales, strict=True)
    ]


def same_as_source(col, texts):
    """Every read value equals its source text's value, exactly; nulls where it was null."""
    assert [v is None for v in col.to_pylist()] == [t is None for t in texts]
    got = [v for v in col.to_pylist() if v is not None]
    assert got == [Decimal(t) for t in texts if t is not None]


def test_snapshots_read_back():
    prices = [5000_250000000, 5000_500000000, None, 110_015625000, -29_250000000]
    msgs = build_w(
        ["ESZ4", "ZNZ4"],
        [3, 2],
        [0, 1, 2, 0, 1],
        prices,
        [7, 12, 3, None, 1],
        -9,
        [2, 2, 2, 6, 2],
        seq=40,
    )
    t = read_quiet(msgs.buffer)
    texts = expected_text(prices, -9, [2, 2, 2, 6, 2])
    same_as_source(t["270"], texts)
    assert t.schema.field("270").type == pa.decimal128(18, 6)
    assert rows(t, "55", "34", "269", "271") == [
        ("ESZ4", 40, "0", "7"), ("ESZ4", 40, "1", "12"), ("ESZ4", 40, "2", "3"),
        ("ZNZ4", 41, "0", None), ("ZNZ4", 41, "1", "1"),
    ]  # fmt: skip
    assert set(epoch(t["52"])) == {1704205800125}
    # formatted again at each row's scale, the same bytes as on the wire
    again = vecfix.format_fixed(t["270"], scale=[2, 2, 2, 6, 2]).to_list()
    assert again == texts
    assert t["offset"].to_pylist() == [int(msgs.offsets[m]) for m in t["msg"].to_pylist()]


def test_quotes_read_back():
    bid = [108_215, None, 15_501_2]
    msgs = build_s(
        ["EURUSD", "GBPUSD", "USDJPY"],
        ["q1", "q2", "q3"],
        bid,
        [108_225, 127_101, None],
        [1, 2, 3],
        [4, None, 6],
        -5,
        5,
        seq=7,
    )
    t = read_quiet(msgs.buffer)
    same_as_source(t["132"], expected_text(bid, -5, 5))
    assert rows(t, "117", "55", "34", "134", "135") == [
        ("q1", "EURUSD", 7, "1", "4"),
        ("q2", "GBPUSD", 8, "2", None),
        ("q3", "USDJPY", 9, "3", "6"),
    ]
    assert vecfix.format_fixed(t["133"], scale=5).to_list() == expected_text(
        [108_225, 127_101, None], -5, 5
    )


def test_mass_quotes_read_back():
    n = 7
    bid = [5000_250000000 + i * 250000000 for i in range(n)]
    offer = [None if i == 3 else b + 250000000 for i, b in enumerate(bid)]
    msgs = build_i(
        [f"S{i}" for i in range(n)], bid, offer, list(range(1, n + 1)), [1] * n, [2, 4, 1], 3
    )
    t = read_quiet(msgs.buffer)
    assert t.num_rows == n  # one row per quote entry, across messages and set fragments
    same_as_source(t["132"], expected_text(bid, -9, 4))
    same_as_source(t["133"], expected_text(offer, -9, 4))
    assert t["55"].to_pylist() == [f"S{i}" for i in range(n)]
    assert t["302"].to_pylist() == ["1", "1", "2", "2", "2", "2", "3"]
    assert t["304"].to_pylist() == [2, 2, 4, 4, 4, 4, 1]
    assert len(set(t["34"].to_pylist())) == len(msgs)


def test_incremental_read_back():
    prices = [5000_25, None, 4999_75, 1]
    msgs = build_x(
        [0, 2, 1, 0], [0, 1, 0, 2], ["ES", "ES", "NQ", "YM"], prices, [5, None, 2, 9], [3, 1]
    )
    t = read_quiet(msgs.buffer)
    same_as_source(t["270"], expected_text(prices, -2, 2))
    assert rows(t, "msg", "279", "269", "55", "271", "268") == [
        (0, "0", "0", "ES", "5", 3), (0, "2", "1", "ES", None, 3), (0, "1", "0", "NQ", "2", 3),
        (1, "0", "2", "YM", "9", 1),
    ]  # fmt: skip


def column(table, name: str) -> list:
    """A column's values, or all nulls when no message had the tag."""
    if name in table.column_names:
        return table[name].to_pylist()
    return [None] * table.num_rows


@given(st.data())
def test_random_groupings_read_back(data):
    """Entries cut into messages at random (some empty), nulls anywhere: every price and
    size reads back exact, every message its own sequence number."""
    counts = data.draw(st.lists(st.integers(0, 6), min_size=1, max_size=12), label="counts")
    total = sum(counts)
    exponent = data.draw(st.integers(-9, 0), label="exponent")
    scale = data.draw(st.integers(0, 9), label="scale")

    def per_entry(values):
        return data.draw(st.lists(values, min_size=total, max_size=total))

    prices = per_entry(st.none() | st.integers(-(10**15), 10**15))
    sizes = per_entry(st.none() | st.integers(0, 10**6))
    types = per_entry(st.integers(0, 4))
    symbols = [f"SYM{i}" for i in range(len(counts))]
    msgs = build_w(symbols, counts, types, prices, sizes, exponent, scale, seq=100)
    t = read_quiet(msgs.buffer)
    per_row = [m for m, c in enumerate(counts) for _ in range(max(c, 1))]
    assert t["msg"].to_pylist() == per_row
    assert t["34"].to_pylist() == [100 + m for m in per_row]
    assert t["55"].to_pylist() == [symbols[m] for m in per_row]
    entry = [c > 0 for m in per_row for c in [counts[m]]]
    texts = expected_text(prices, exponent, scale)
    got = [v for v, e in zip(column(t, "270"), entry, strict=True) if e]
    assert got == [None if x is None else Decimal(x) for x in texts]
    if "270" in t.column_names:
        again = vecfix.format_fixed(pa.array(got, t["270"].type), scale=scale).to_list()
        assert again == texts
    got = [v for v, e in zip(column(t, "271"), entry, strict=True) if e]
    assert got == [None if s is None else Decimal(s) for s in sizes]
    got = [v for v, e in zip(column(t, "269"), entry, strict=True) if e]
    assert got == [str(x) for x in types]
