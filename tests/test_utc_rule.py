"""FIX's one UTCTimestamp rule (vecfix._utc): what the writers accept, fix.read reads as
valid, and at the moment an independent reference (calendar.timegm, NumPy's ISO parser)
gives, across the rule's edges: the leap second, 0/3/6/9 fraction digits, year 0000."""

from __future__ import annotations

import calendar
import warnings

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import vecfix
import vecfix.fix as fix

pa = pytest.importorskip("pyarrow")

HEAD = fix.Header("S", "T")


def written(stamps: list[str]) -> bytes:
    """One 35=W message a SendingTime, written by vecfix's writer."""
    n = len(stamps)
    msgs = fix.snapshots(
        [f"S{i}" for i in range(n)], np.zeros(n, np.int64), [], np.zeros(0, np.int64), [],
        price=vecfix.NumberFormat(-9, 2), header=HEAD, sending_time=stamps,
    )  # fmt: skip
    return msgs.to_bytes()


def framed(stamp: str) -> bytes:
    """A message holding ``52=stamp``, framed here (BodyLength, CheckSum by FIX 4.4)."""
    body = f"35=0\x0152={stamp}\x01".encode("latin-1")
    msg = b"8=FIX.4.4\x019=%d\x01" % len(body) + body
    return msg + b"10=%03d\x01" % (sum(msg) % 256)


def read_52(log: bytes, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = fix.read(log, tags=[52], **kw)
    return t["52"], t["valid"].to_pylist()


def reference_ns(stamp: str) -> int:
    """Nanoseconds since 1970 of ``YYYYMMDD-HH:MM:SS[.f]`` by calendar.timegm (POSIX: a
    leap second is the next second) and the fraction's digits."""
    date, _, time = stamp.partition("-")
    clock, _, fraction = time.partition(".")
    h, m, s = (int(x) for x in clock.split(":"))
    secs = calendar.timegm((int(date[:4]), int(date[4:6]), int(date[6:]), h, m, s, 0, 0, 0))
    return secs * 10**9 + int((fraction or "0").ljust(9, "0"))


@pytest.mark.parametrize(
    ("stamp", "unit"),
    [
        ("20161231-23:59:60.000", "ms"),  # the leap second FIX allows (snapshots wrote it)
        ("20161231-23:59:60", "s"),
        ("20150630-23:59:60.123456", "us"),
        ("20240229-23:59:59.123456789", "ns"),  # nanoseconds, FIX 5.0 SP2's form
        ("20240229-23:59:59", "s"),
        ("20240229-23:59:59.001", "ms"),
        ("19691231-23:59:59.999999", "us"),
    ],
)
def test_written_then_read_is_the_moment(stamp, unit):
    """The writer accepts it, the reader reads it valid, at the reference's moment (a leap
    second as the next second: 20161231-23:59:60 is 2017-01-01 00:00:00)."""
    col, valid = read_52(written([stamp]))
    assert valid == [True]
    assert col.type == pa.timestamp(unit, tz="UTC")
    assert col[0].value * 10 ** {"s": 9, "ms": 6, "us": 3, "ns": 0}[unit] == reference_ns(stamp)


def test_a_leap_second_reads_as_the_next_second():
    col, valid = read_52(written(["20161231-23:59:60.000", "20170101-00:00:00.000"]))
    assert valid == [True, True]
    assert col[0].value == col[1].value == 1483228800000


def test_year_0000():
    """Year 0000 (a leap year, proleptic Gregorian) is allowed; it reads at s/ms/us and is
    a bad value at ns, which cannot hold it (1677-2262)."""
    col, valid = read_52(written(["00000229-00:00:00", "00000101-00:00:00.000001"]))
    assert valid == [True, True]
    want = np.array(["0000-02-29T00:00:00", "0000-01-01T00:00:00.000001"], "datetime64[us]")
    assert [v.value for v in col] == want.astype(np.int64).tolist()
    col, valid = read_52(framed("00000101-00:00:00"), types={52: pa.timestamp("ns", "UTC")})
    assert valid == [False] and col.to_pylist() == [None]


REFUSED = [
    "20240102-03:04:05.1",  # fractions of 1, 2, 4, 5, 7, 8, 10 and 12 digits
    "20240102-03:04:05.12",
    "20240102-03:04:05.1234",
    "20240102-03:04:05.12345",
    "20240102-03:04:05.1234567",
    "20240102-03:04:05.12345678",
    "20240102-03:04:05.1234567890",
    "20240102-03:04:05.123456789012",
    "20240102-03:04:05.",
    "20240102-03:04:61",
    "20240102-24:00:00",
    "20240102-23:60:00",
    "20230229-12:00:00",
    "19000229-12:00:00",
    "20240431-12:00:00",
    "20241301-12:00:00",
    "20240100-12:00:00",
    "2024010-03:04:05",
    "20240102 03:04:05",
    "20240102-03-04-05",
    "20240102-03:04:05,123",
]


@pytest.mark.parametrize("stamp", REFUSED)
def test_refused_by_both(stamp):
    with pytest.raises(ValueError, match=r"sending_time\[1\] = .* is not a UTC timestamp"):
        written(["20240102-03:04:05", stamp])
    col, valid = read_52(framed(stamp))
    assert valid == [False] and col.to_pylist() == [None]


@st.composite
def stamps(draw: st.DrawFn) -> str:
    """A timestamp near the rule's edges, or one with a byte changed."""
    y = draw(st.integers(1, 9999))
    mo = draw(st.integers(0, 13))
    d = draw(st.sampled_from([0, 1, 28, 29, 30, 31, 32]))
    h = draw(st.sampled_from([0, 23, 24]))
    mi = draw(st.sampled_from([0, 59, 60]))
    s = draw(st.sampled_from([0, 59, 60, 61]))
    nd = draw(st.integers(0, 10))
    text = f"{y:04d}{mo:02d}{d:02d}-{h:02d}:{mi:02d}:{s:02d}"
    if nd:
        text += "." + "".join(draw(st.lists(st.sampled_from("0159"), min_size=nd, max_size=nd)))
    if draw(st.integers(0, 5)) == 0:
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + draw(st.sampled_from(["x", "-", ":", ".", " "])) + text[at + 1 :]
    return text


@given(stamp=stamps())
@example(stamp="99991231-23:59:60.999999")
@example(stamp="00010101-00:00:00")
def test_writer_and_reader_agree(stamp):
    """Any text: the writer accepts it exactly when the reader reads it valid, and then
    at the reference's moment (read at ns or at us where ns cannot hold the year)."""
    try:
        log = written([stamp])
    except ValueError:
        col, valid = read_52(framed(stamp))
        assert valid == [False]
        return
    ns = 1677 < int(stamp[:4]) < 2262
    unit = "ns" if ns else "us"
    col, valid = read_52(log, types={52: pa.timestamp(unit, "UTC")})
    fraction = stamp.partition(".")[2]
    if len(fraction) == 9 and not ns:  # nanoseconds at us: more digits than the unit
        assert valid == [False]
        return
    assert valid == [True]
    assert col[0].value * (1 if ns else 1000) == reference_ns(stamp)


def test_a_long_column_is_checked_by_the_same_rule_compiled():
    """Past 64 values the writer checks by the compiled rule: the same verdicts, the row
    named; and the reader's kernel compiles that same function."""
    from vecfix import _utc
    from vecfix._kernels import utc

    assert getattr(utc._fields, "py_func", utc._fields) is _utc.utc_fields
    good = [f"20240102-03:04:{s % 61:02d}.{s:03d}" for s in range(100)]
    assert fix.sending_time(good).to_list() == good
    for bad in [*REFUSED[:3], "20230229-12:00:00"]:
        with pytest.raises(ValueError, match=rf"sending_time\[80\] = '{bad}' is not"):
            fix.sending_time([*good[:80], bad, *good[81:]])
