"""fix.read on logs as they are found (issue 40): ``|`` for SOH, a prefix before each
message, FIX 4.2/4.4/5.0 SP2 messages mixed, columns by name, and values too large for
any type. The fixture below is written by hand: each BodyLength and CheckSum counted over
SOH as FIX defines them (the engine's numbers before it logged ``|``)."""

from __future__ import annotations

import random
import re
import warnings
from decimal import Decimal

import numpy as np
import pytest

import vecfix.fix as fix

pa = pytest.importorskip("pyarrow")

# An engine's log: a time and a level before each message, "|" for SOH. A FIX 4.2 fill
# (LastShares 32, Commission 12 ...), a FIX 4.4 fill (LastQty 32, GrossTradeAmt 381,
# TransactTime in microseconds), then a 35=W snapshot of two entries without a prefix.
LOG = (
    b"2024-01-02 14:30:00.125 INFO  : 8=FIX.4.2|9=175|35=8|49=BROKER|56=CLIENT|34=12|"
    b"52=20240102-14:30:00.125|37=O1|17=E1|20=0|39=2|150=2|55=IBM|54=1|38=100|31=187.25|"
    b"32=100|151=0|14=100|6=187.25|12=4.50|60=20240102-14:30:00.120|10=070|\n"
    b"2024-01-02 14:30:01.002 INFO  : 8=FIX.4.4|9=186|35=8|49=BROKER|56=CLIENT|34=13|"
    b"52=20240102-14:30:01.002|37=O2|17=E2|150=F|39=2|55=MSFT|54=2|38=50|31=402.125|32=50|"
    b"151=0|14=50|6=402.125|12=1.25|381=20106.25|60=20240102-14:30:01.000123|10=180|\n"
    b"8=FIX.4.4|9=104|35=W|49=X|56=Y|34=14|52=20240102-14:30:02|55=ESH4|268=2|269=0|"
    b"270=5000.25|271=10|269=1|270=5000.5|271=7|10=151|\n"
)


def quiet(source, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fix.read(source, **kw)


def test_a_pipe_log_with_prefixes():
    t = quiet(LOG)
    assert t.column_names[:4] == ["msg", "offset", "valid", "prefix"]
    assert t["msg"].to_pylist() == [0, 1, 2, 2]
    assert t["valid"].to_pylist() == [True] * 4
    starts = [m.start() for m in re.finditer(b"8=FIX", LOG)]
    assert t["offset"].to_pylist() == [starts[0], starts[1], starts[2], starts[2]]
    assert t["prefix"].to_pylist() == [
        "2024-01-02 14:30:00.125 INFO  :",
        "2024-01-02 14:30:01.002 INFO  :",
        None,
        None,
    ]
    d = Decimal
    assert t["31"].to_pylist() == [d("187.250"), d("402.125"), None, None]
    assert t["12"].to_pylist() == [d("4.50"), d("1.25"), None, None]  # Commission (Amt)
    assert t["381"].to_pylist() == [None, d("20106.25"), None, None]  # GrossTradeAmt
    assert t["270"].to_pylist() == [None, None, d("5000.25"), d("5000.50")]
    assert t["32"].type == pa.decimal128(18, 0) and t["34"].type == pa.int64()
    assert t["60"].type == pa.timestamp("us", tz="UTC")
    assert t["60"][1].value == 1704205801000123
    assert t["55"].to_pylist() == ["IBM", "MSFT", "ESH4", "ESH4"]


def test_the_same_log_over_soh_reads_the_same():
    soh = quiet(LOG.replace(b"|", b"\x01"))
    assert soh.equals(quiet(LOG))
    assert quiet(LOG, delimiter="|").equals(soh)
    assert quiet(LOG.replace(b"|", b"\x01"), delimiter=b"\x01").equals(soh)


def test_checksums_are_counted_as_over_soh():
    """A CheckSum counted over the '|' bytes themselves (not what the engine sent) is
    wrong, as is a BodyLength one off; the other messages are valid."""
    first = LOG.split(b"\n")[0]
    total = sum(first[first.index(b"8=") : first.index(b"10=")]) % 256  # over "|"
    wrong = first.replace(b"10=070", b"10=%03d" % total)
    with pytest.warns(UserWarning, match="1 wrong CheckSum"):
        t = fix.read(wrong + b"\n" + LOG)
    assert t["valid"].to_pylist() == [False, True, True, True, True]
    with pytest.raises(ValueError, match=rf"CheckSum \(10={total:03d}\) .* sum to 070"):
        fix.read(wrong, strict=True)
    with pytest.warns(UserWarning, match="wrong BodyLength"):
        t = fix.read(first.replace(b"9=175", b"9=174"))
    assert t["valid"].to_pylist() == [False]


def test_delimiter_given():
    with pytest.raises(ValueError, match=r"delimiter must be one byte .* got 'ab'"):
        fix.read(LOG, delimiter="ab")
    with pytest.raises(ValueError, match=r"delimiter must be one byte .* got '='"):
        fix.read(LOG, delimiter="=")
    with pytest.warns(UserWarning, match="3 of 3 messages are not valid"):
        assert fix.read(LOG, delimiter="\x01")["valid"].to_pylist() == [False] * 3
    caret = LOG.replace(b"|", b"^")
    assert quiet(caret, delimiter="^").equals(quiet(LOG))


def test_names_from_the_dictionary():
    """names="name": each tag's FIX name in the newest version of the log's messages that
    knows it (32 is LastShares in 4.2, LastQty in 4.4); unknown tags keep their number."""
    extra = message("FIX.4.4", "35=0|5001=abc|").replace(b"\x01", b"|")
    t = quiet(LOG + extra, names="name")
    assert t.column_names == [
        "msg", "offset", "valid", "prefix", "BeginString", "BodyLength", "MsgType",
        "SenderCompID", "TargetCompID", "MsgSeqNum", "SendingTime", "OrderID", "ExecID",
        "ExecTransType", "OrdStatus", "ExecType", "Symbol", "Side", "OrderQty", "LastPx",
        "LastQty", "LeavesQty", "CumQty", "AvgPx", "Commission", "TransactTime", "CheckSum",
        "GrossTradeAmt", "NoMDEntries", "MDEntryType", "MDEntryPx", "MDEntrySize", "5001",
    ]  # fmt: skip
    old = quiet(LOG.split(b"\n")[0], names="name", tags=[32, 12])
    assert old.column_names[-2:] == ["LastShares", "Commission"]
    assert old["Commission"].to_pylist() == [Decimal("4.50")]
    with pytest.raises(ValueError, match='names must be "tag" or "name", got 270'):
        fix.read(LOG, names=270)


def test_tags_by_name():
    t = quiet(LOG, tags=["LastPx", 55, "GrossTradeAmt"])
    assert t.column_names == ["msg", "offset", "valid", "prefix", "31", "55", "381"]
    with pytest.raises(ValueError, match="'LastPrice' is neither a tag number nor the name"):
        fix.read(LOG, tags=["LastPrice"])


def message(begin: str, body: str) -> bytes:
    """A message framed here by FIX's definitions (for the version tests)."""
    payload = body.replace("|", "\x01").encode()
    m = f"8={begin}\x019={len(payload)}\x01".encode() + payload
    return m + b"10=%03d\x01" % (sum(m) % 256)


def test_the_begin_string_picks_the_version():
    """HaltReason (327): a char in FIX 4.4 (HaltReasonChar), an int in 5.0 SP2
    (HaltReasonInt): a log of one version reads it as that version's type; both: text."""
    v44 = message("FIX.4.4", "35=f|327=I|")
    v50 = message("FIXT.1.1", "35=f|1128=9|327=2|")
    assert quiet(v44)["327"].type == pa.string()
    assert quiet(v50)["327"].to_pylist() == [2]
    assert quiet(v50, names="name").column_names[-2:] == ["HaltReasonInt", "CheckSum"]
    both = quiet(v50 + v44)
    assert both["327"].type == pa.string() and both["327"].to_pylist() == ["2", "I"]
    with pytest.warns(UserWarning, match=r"field '327=I' at byte \d+ is not a FIX int"):
        assert fix.read(v50 + v44, types={327: "int64"})["327"].to_pylist() == [2, None]
    # FIX.4.1 reads by 4.2's table (GrossTradeAmt 381 is 4.2's and 4.4's, not 4.1's)
    assert quiet(message("FIX.4.1", "35=8|381=12.5|"))["381"].to_pylist() == [Decimal("12.5")]


@pytest.mark.parametrize(
    "value", ["9" * 5000, "-" + "1" * 4400 + ".5", "0." + "0" * 4999 + "1", "1" + "0" * 76]
)
def test_a_value_too_large_for_any_type_is_a_bad_value(value):
    """A price of any number of digits (Python's int-from-text limit is 4,300): its
    message is not valid, counted in the warning, raised with strict=True; the others
    are read at the scale of theirs."""
    log = (
        message("FIX.4.4", "35=8|31=1.25|")
        + message("FIX.4.4", f"35=8|31={value}|")
        + message("FIX.4.4", "35=8|31=2.5|")
    )
    with pytest.warns(UserWarning, match="1 of 3 messages are not valid.* 1 a value not of"):
        t = fix.read(log)
    assert t["valid"].to_pylist() == [True, False, True]
    assert t["31"].to_pylist() == [Decimal("1.25"), None, Decimal("2.50")]
    with pytest.raises(ValueError, match=r"message 1 at byte \d+ is not valid: field '31=[-\d]"):
        fix.read(log, strict=True)


def test_hostile_logs_lose_no_other_message():
    """A seeded mutation loop: the middle message of three changed (bytes replaced, cut,
    doubled; runs of digits up to 6,000 long put in) never raises, and the first message,
    untouched, reads as it does alone."""
    first = LOG.split(b"\n")[0] + b"\n"
    middle = LOG.split(b"\n")[1] + b"\n"
    last = LOG.split(b"\n")[2] + b"\n"
    alone = quiet(first)
    rng = random.Random(40)
    for _ in range(300):
        m = bytearray(middle)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(m))
            kind = rng.randrange(5)
            if kind == 0:
                m[at] = rng.choice(b"0123456789=|.-\n\x01 8")
            elif kind == 1:
                del m[at : at + rng.randint(1, 30)]
            elif kind == 2:
                m[at:at] = m[at : at + rng.randint(1, 40)]
            else:  # digits into a value (or anywhere)
                m[at:at] = bytes(rng.choice(b"0123456789") for _ in range(rng.randint(1, 6000)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = fix.read(first + bytes(m) + last)
        head = t.filter(pa.compute.equal(t["msg"], 0))  # (decimals maybe at a wider scale)
        assert head.select(alone.column_names).to_pylist() == alone.to_pylist()
        assert t.num_rows >= 2
        assert np.all(np.diff(t["msg"].to_numpy()) >= 0)


def test_the_delimiter_is_found_past_a_long_first_line():
    """'|' is detected after the first 8=FIX even 5,000 bytes in (a log's banner)."""
    t = quiet(b"#" * 5000 + b"\n" + LOG)
    assert t["valid"].to_pylist() == [True] * 4
    assert t["prefix"].to_pylist()[0] == "2024-01-02 14:30:00.125 INFO  :"


def test_a_value_outside_a_given_integer_type_is_a_bad_value():
    """types= an integer type narrower than int64: a value outside it makes its message
    not valid (raised with strict=True), and the log is read."""
    log = b"".join(message("FIX.4.4", f"35=0|34={v}|") for v in (1, 40000, -129, 255, 2**70))
    with pytest.warns(
        UserWarning, match=r"4 of 5 .* field '34=40000' at byte \d+ is not a FIX int8"
    ):
        t = fix.read(log, types={34: pa.int8()})
    assert t["34"].type == pa.int8()
    assert t["34"].to_pylist() == [1, None, None, None, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert fix.read(log, types={34: pa.uint8()})["34"].to_pylist() == [1, None, None, 255, None]
    with pytest.raises(ValueError, match=r"message 1 at byte \d+ is not valid: field '34=40000'"):
        fix.read(log, types={34: pa.int8()}, strict=True)
