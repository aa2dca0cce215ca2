"""What vecfix.fix reads: text from every container, nulls, the exponent rule, timestamps.

Expected bytes come from the inputs (Python's own formatting, ``ref_fixed``), never from
vecfix; messages are checked with the independent helpers of ``fix_checks``.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import vecfix
import vecfix.fix as fix
from vecfix._io import write_all

simplefix = pytest.importorskip("simplefix")
pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

from fix_checks import pairs_of, ref_fixed  # noqa: E402

WHEN = "20240102-14:30:00.000"
NUMBERS = {"price": vecfix.NumberFormat(-9, 2)}  # sizes: whole numbers, no format needed
HEAD = {"header": fix.Header("S", "T"), "sending_time": WHEN}
PRICENULL9 = 2**63 - 1
SYMBOLS = ["ESZ4", "NQZ4", "ESZ4", "6EZ4-6EH5"]


# ---------------------------------------------------------------------------------------
# Text columns
# ---------------------------------------------------------------------------------------

TEXT_SOURCES = {
    "list": lambda v: list(v),
    "numpy S": lambda v: np.array(v, dtype="S"),
    "numpy U": lambda v: np.array(v),
    "numpy object": lambda v: np.array(v, dtype=object),
    "arrow string": lambda v: pa.array(v, pa.string()),
    "arrow large_string": lambda v: pa.array(v, pa.large_string()),
    "arrow string_view": lambda v: pa.array(v, pa.string_view()),
    "arrow binary": lambda v: pa.array([s.encode() for s in v], pa.binary()),
    "arrow dictionary": lambda v: pa.array(v).dictionary_encode(),
    "arrow chunked": lambda v: pa.chunked_array([v[:1], v[1:]]),
    "arrow sliced": lambda v: pa.array(["pad", *v])[1:],
    "pandas str": lambda v: pd.Series(v, dtype="str"),
    "pandas object": lambda v: pd.Series(v, dtype=object),
    "pandas categorical": lambda v: pd.Series(v, dtype="category"),
    "polars String": lambda v: pl.Series(v),
    "polars Categorical": lambda v: pl.Series(v, dtype=pl.Categorical),
}


@pytest.mark.parametrize("source", sorted(TEXT_SOURCES))
def test_symbols_from_every_container_give_the_same_messages(source):
    symbols = TEXT_SOURCES[source](SYMBOLS)
    sets = TEXT_SOURCES[source](["ES", "ES", "NQ", "6E-H5"])  # runs of one ID: one set
    msgs = fix.mass_quotes(
        symbols, [1] * 4, [2] * 4, [3] * 4, [4] * 4, quote_set_ids=sets, **NUMBERS, **HEAD
    )
    got = [v for m in msgs for tag, v in pairs_of(m) if tag == 55]
    assert got == [s.encode() for s in SYMBOLS]
    pairs = [p for m in msgs for p in pairs_of(m) if p[0] in (302, 304)]
    assert pairs == [(302, b"ES"), (304, b"2"), (302, b"NQ"), (304, b"1"), (302, b"6E-H5"),
                     (304, b"1")]  # fmt: skip
    out = fix.fields(55, symbols)
    assert out.to_list() == [b"55=" + s.encode() + b"\x01" for s in SYMBOLS]


@pytest.mark.parametrize(
    "source", ["list", "arrow string", "pandas str", "polars String", "arrow dictionary"]
)
def test_text_nulls_are_refused_where_required_and_left_out_in_fields(source):
    values = ["A", None, "C"]
    col = TEXT_SOURCES[source](values)
    assert fix.fields(55, col).to_list() == [b"55=A\x01", b"", b"55=C\x01"]
    with pytest.raises(ValueError, match=r"symbols\[1\] is null"):
        fix.incremental(0, 0, col, [1, 2, 3], [1, 2, 3], **NUMBERS, **HEAD)


@pytest.mark.parametrize("source", ["list", "numpy U", "arrow string", "polars String"])
@pytest.mark.parametrize(
    ("bad", "match"),
    [
        ("B\x01", r"symbols\[1\] = b'B\\x01' contains SOH"),
        ("B=1", r"symbols\[1\] = b'B=1' contains '='"),
        ("", r"symbols\[1\] = b'' is empty"),
        ("B\tC", r"symbols\[1\] = b'B\\tC' contains a byte outside printable ASCII"),
    ],
)
def test_text_is_validated_for_fix_naming_the_row(source, bad, match):
    col = TEXT_SOURCES[source](["A", bad, "C"])
    with pytest.raises(ValueError, match=match):
        fix.incremental(0, 0, col, [1, 2, 3], [1, 2, 3], **NUMBERS, **HEAD)


def test_text_errors():
    with pytest.raises(ValueError, match=r"symbols\[1\] = 'é' is not ASCII"):
        fix.incremental(0, 0, np.array(["a", "é"]), [1, 2], [1, 2], **NUMBERS, **HEAD)
    with pytest.raises(TypeError, match="got dtype float64"):
        fix.incremental(0, 0, np.zeros(2), [1, 2], [1, 2], **NUMBERS, **HEAD)
    with pytest.raises(TypeError, match="got Arrow type double"):
        fix.incremental(0, 0, pa.array([1.5, 2.5]), [1, 2], [1, 2], **NUMBERS, **HEAD)
    with pytest.raises(TypeError, match="got dtype bool"):
        fix.incremental(0, 0, pd.Series([True, False]), [1, 2], [1, 2], **NUMBERS, **HEAD)


def test_integer_ids_from_every_container():
    ids = [7, 10**12, 3]
    want = [b"7", b"1000000000000", b"3"]
    for col in (ids, np.array(ids), pa.array(ids), pd.Series(ids), pl.Series(ids)):
        msgs = fix.mass_quotes(
            ["A"] * 3, [1] * 3, [2] * 3, [3] * 3, [4] * 3, quote_entry_ids=col, **NUMBERS, **HEAD
        )
        assert [v for m in msgs for tag, v in pairs_of(m) if tag == 299] == want


# ---------------------------------------------------------------------------------------
# Null prices and sizes leave their field out, in every message type
# ---------------------------------------------------------------------------------------

PX = [5000_250000000, None, -1_125000000, None]
SZ = [7, 3, None, None]
NULL_SOURCES = {
    "list": lambda v, fill: list(v),
    "pandas Int64": lambda v, fill: pd.Series(v, dtype="Int64"),
    "arrow": lambda v, fill: pa.array(v, pa.int64()),
    "arrow chunked": lambda v, fill: pa.chunked_array([v[:2], v[2:]], pa.int64()),
    "polars": lambda v, fill: pl.Series(v, dtype=pl.Int64),
    "masked array": lambda v, fill: np.ma.masked_array(
        [fill if x is None else x for x in v], mask=[x is None for x in v]
    ),
    "sentinel": lambda v, fill: np.array([PRICENULL9 if x is None else x for x in v]),
}


def _build(kind, px, sz, null):
    args = {"price": vecfix.NumberFormat(-9, 2, null), **HEAD}
    if null is not None:  # (sizes of whole numbers need a format only for their sentinel)
        args["size"] = vecfix.NumberFormat(null=null)
    n = len(PX)
    if kind == "W":
        return fix.snapshots(["A"], [n], 0, px, sz, **args)
    if kind == "S":  # a quote needs one price: the offer is always there
        return fix.quotes(["A"] * n, px, [1] * n, sz, sz, quote_ids=list("abcd"), **args)
    if kind == "i":  # an entry needs one price: the offer is always there
        return fix.mass_quotes(["A"] * n, px, [1] * n, sz, sz, **args)
    return fix.incremental(0, 0, ["A"] * n, px, sz, **args)


@pytest.mark.parametrize("kind", ["W", "S", "i", "X"])
@pytest.mark.parametrize("source", sorted(NULL_SOURCES))
def test_null_prices_and_sizes_leave_their_field_out(kind, source):
    null = PRICENULL9 if source == "sentinel" else None
    px = NULL_SOURCES[source](PX, 10**30 if source != "masked array" else PRICENULL9)
    sz = NULL_SOURCES[source](SZ, PRICENULL9)
    msgs = _build(kind, px, sz, null)
    price_tags, size_tags = (
        {"W": (270,), "X": (270,), "S": (132,), "i": (132,)}[kind],
        ({"W": (271,), "X": (271,), "S": (134, 135), "i": (134, 135)}[kind]),
    )
    data = msgs.to_bytes()
    assert b"9223372037" not in data and b"9223372036" not in data
    for tags, values, exp, scale in ((price_tags, PX, -9, 2), (size_tags, SZ, 0, 0)):
        want = [ref_fixed(v, exp, scale).encode() for v in values if v is not None]
        for tag in tags:
            got = [v for m in msgs for t, v in pairs_of(m) if t == tag]  # no empty value
            assert got == want, (tag, got)


def test_masks_combine_with_container_nulls_and_hide_what_they_mask():
    msgs = fix.snapshots(
        ["A"], [4], 0, pd.Series(PX, dtype="Int64"), np.array([1, 2**62, 3, 4]),
        price_valid=[True, True, False, True], size_valid=[True, False, True, True],
        **NUMBERS, **HEAD,
    )  # fmt: skip
    pairs = pairs_of(msgs[0])
    assert [v for t, v in pairs if t == 270] == [b"5000.25"]
    assert [v for t, v in pairs if t == 271] == [b"1", b"3", b"4"]


TEXT_WITH_JUNK = {  # row 1 is masked, and holds what the parser refuses
    "list of str": lambda: ["1.005", "N/A", "-2.5"],
    "list of Decimal": lambda: [Decimal("1.005"), "junk", Decimal("-2.5")],
    "numpy S": lambda: np.array([b"1.005", b"N/A", b"-2.5"]),
    "numpy U": lambda: np.array(["1.005", "", "-2.5"]),
    "numpy object": lambda: np.array([Decimal("1.005"), "x", Decimal("-2.5")], dtype=object),
    "pandas object": lambda: pd.Series(["1.005", "N/A", "-2.5"], index=[7, 3, 5]),
    "pandas string[pyarrow]": lambda: pd.Series(["1.005", "N/A", "-2.5"], dtype="string[pyarrow]"),
    "arrow string": lambda: pa.array(["1.005", "N/A", "-2.5"]),
    "arrow large_string, chunked": lambda: pa.chunked_array(
        [["1.005"], ["N/A", "-2.5"]], pa.large_string()
    ),
    "polars String": lambda: pl.Series("px", ["1.005", "N/A", "-2.5"]),
}


@pytest.mark.parametrize("kind", TEXT_WITH_JUNK)
def test_a_mask_hides_what_text_rows_hold(kind):
    """A masked row is never read, whatever the container: a text column's hidden row may
    hold "N/A" or "" (it was parsed, or replaced by a 0 that text refuses: '' in a bytes
    array, an int among str). The message leaves it out, as for ints."""
    values = TEXT_WITH_JUNK[kind]()
    args = dict(quote_ids=["a", "b", "c"], price=vecfix.NumberFormat(scale=2))
    msgs = fix.quotes(
        ["X", "X", "X"], values, ["1.5"] * 3, [1, 2, 3], [1, 2, 3],
        bid_px_valid=[True, False, True], **args, **HEAD,
    )  # fmt: skip
    bids = [[v for t, v in pairs_of(m) if t == 132] for m in msgs]
    assert bids == [[ref_fixed(Decimal("1.005"), 0, 2).encode()], [], [b"-2.50"]]
    if isinstance(values, pl.Series):
        assert values.to_list()[1] == "N/A"  # the caller's column is left as it was


# ---------------------------------------------------------------------------------------
# One rule with format_fixed
# ---------------------------------------------------------------------------------------


def test_exponent_is_required_for_integer_prices_as_in_format_fixed():
    with pytest.raises(TypeError, match="exponent is required"):
        vecfix.format_fixed([1, 2], scale=2)
    args = {"price": vecfix.NumberFormat(scale=2)}
    with pytest.raises(TypeError, match=r"prices: price.exponent is required for integer coeff"):
        fix.snapshots(["A"], [2], 0, [1, 2], [3, 4], **args, **HEAD)
    with pytest.raises(TypeError, match=r"price.exponent is required"):
        fix.incremental(0, 0, ["A", "B"], [1, 2], [3, 4], **args, **HEAD)
    # values that carry their own exponent take none, in fix as in format_fixed
    msgs = fix.snapshots(
        ["A"], [2], 0, pa.array(["1.005", None]).cast(pa.decimal128(10, 3)), [3, 4],
        price=vecfix.NumberFormat(scale=2), **HEAD,
    )  # fmt: skip
    assert [v for t, v in pairs_of(msgs[0]) if t == 270] == [b"1.01"]
    with pytest.raises(TypeError, match=r"prices: .* leave price.exponent=None"):
        fix.snapshots(
            ["A"], [2], 0, pa.array(["1.005", "2"]).cast(pa.decimal128(10, 3)), [3, 4],
            **NUMBERS, **HEAD,
        )  # fmt: skip


def test_zero_rows_need_no_exponent_or_scale():
    assert len(fix.snapshots([], [], [], [], [], **HEAD)) == 0
    assert len(fix.incremental(0, 0, [], [], [], **HEAD)) == 0
    assert len(fix.mass_quotes([], [], [], [], [], **HEAD)) == 0


# ---------------------------------------------------------------------------------------
# SendingTime from datetimes
# ---------------------------------------------------------------------------------------

MOMENTS = [
    dt.datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=dt.timezone.utc),
    dt.datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc),
    dt.datetime(2024, 2, 29, 0, 0, 0, 500, tzinfo=dt.timezone.utc),
]


def utc_text(moment: dt.datetime, digits: int) -> bytes:
    """FIX UTCTimestamp the plain way: strftime, fractions truncated."""
    text = moment.astimezone(dt.timezone.utc).strftime("%Y%m%d-%H:%M:%S")
    if digits:
        text += "." + f"{moment.microsecond:06d}"[:digits]
    return text.encode()


DATETIME_SOURCES = {
    "numpy us": lambda v: np.array([m.replace(tzinfo=None) for m in v], "datetime64[us]"),
    "numpy ns": lambda v: np.array([m.replace(tzinfo=None) for m in v], "datetime64[us]").astype(
        "datetime64[ns]"
    ),
    "pandas naive": lambda v: pd.Series([m.replace(tzinfo=None) for m in v]),
    "pandas aware": lambda v: pd.Series(v).dt.tz_convert("Asia/Tokyo"),
    "pandas index": lambda v: pd.DatetimeIndex(v),
    "arrow": lambda v: pa.array(v, pa.timestamp("us", tz="America/Chicago")),
    "polars": lambda v: pl.Series(v).dt.convert_time_zone("Europe/Paris"),
    "python list": lambda v: [m.astimezone(dt.timezone(dt.timedelta(hours=-5))) for m in v],
}


@pytest.mark.parametrize("precision", ["ms", "us", "s"])
@pytest.mark.parametrize("source", sorted(DATETIME_SOURCES))
def test_sending_time_from_datetime_columns(source, precision):
    digits = {"s": 0, "ms": 3, "us": 6}[precision]
    col = DATETIME_SOURCES[source](MOMENTS)
    assert fix.sending_time(col, precision).to_list() == [
        utc_text(m, digits).decode() for m in MOMENTS
    ]
    head = fix.Header("S", "T", precision=precision)
    msgs = fix.snapshots(["A", "B", "C"], [0, 0, 0], [], [], [], header=head, sending_time=col)
    assert [dict(pairs_of(m))[52] for m in msgs] == [utc_text(m, digits) for m in MOMENTS]


def test_sending_time_scalars_and_errors():
    assert fix.sending_time(np.datetime64("2024-01-02T03:04:05.6789", "us")).to_list() == [
        "20240102-03:04:05.678"
    ]
    assert fix.sending_time("20240102-03:04:05.123456").to_list() == ["20240102-03:04:05.123456"]
    with pytest.raises(TypeError, match="is a naive datetime"):
        fix.sending_time(dt.datetime(2024, 1, 2))
    with pytest.raises(TypeError, match="is a date: a FIX timestamp needs a time of day"):
        fix.sending_time(dt.date(2024, 1, 2))
    with pytest.raises(ValueError, match="not a UTC timestamp"):
        fix.sending_time("20240102-03:04:05.1234")
    # dates that exist, and only those: leap years by the Gregorian rule
    days = ["20240229", "20000229", "20241231", "20240430"]
    assert fix.sending_time([f"{d}-12:00:00" for d in days]).to_list() == [
        f"{d}-12:00:00" for d in days
    ]
    for day in ("20240231", "20230229", "19000229", "20241131", "20241300", "20240100"):
        with pytest.raises(ValueError, match=rf"\[1\] = '{day}-12:00:00' is not a UTC"):
            fix.sending_time(["20240102-03:04:05", f"{day}-12:00:00"])
    with pytest.raises(ValueError, match="precision must be one of"):
        fix.sending_time(MOMENTS[0], "ns")
    with pytest.raises(ValueError, match="year 10000 is outside"):
        fix.sending_time(np.array(["10000-01-01"], "datetime64[D]"))
    nat = np.array(["2024-01-02", "NaT"], "datetime64[ms]")
    assert fix.sending_time(nat).to_list() == ["20240102-00:00:00.000", None]
    with pytest.raises(ValueError, match=r"sending_time\[1\] is null"):
        fix.snapshots(["A", "B"], [0, 0], [], [], [], header=fix.Header("S", "T"), sending_time=nat)


#: Values of each field of a timestamp at and past its limits (a month's last days, Feb 29
#: of any year, 23:59:60, fields of one digit, fractions of 1-7 digits).
_FIELD_VALUES = {
    "year": ["0000", "1900", "2000", "2023", "2024", "9999", "202"],
    "month": ["00", "01", "02", "04", "12", "13", "1"],
    "day": ["00", "01", "28", "29", "30", "31", "32", "7"],
    "hour": ["00", "23", "24", "25", "5"],
    "minute": ["00", "59", "60", "5"],
    "second": ["00", "59", "60", "61", "5"],
    "frac": ["", ".1", ".12", ".123", ".1234", ".12345", ".123456", ".1234567", "."],
}


@st.composite
def _stamp_texts(draw: st.DrawFn) -> str:
    """A timestamp as text: well formed, then (mostly) one field set to a value at or past
    its limit, or a byte changed or cut."""
    stamp = {
        "year": f"{draw(st.integers(0, 9999)):04d}",
        "month": f"{draw(st.integers(1, 12)):02d}",
        "day": f"{draw(st.integers(1, 28)):02d}",
        "hour": f"{draw(st.integers(0, 23)):02d}",
        "minute": f"{draw(st.integers(0, 59)):02d}",
        "second": f"{draw(st.integers(0, 59)):02d}",
        "frac": draw(st.sampled_from(["", ".000", ".123456"])),
    }
    for name in draw(st.lists(st.sampled_from(list(_FIELD_VALUES)), max_size=2)):
        stamp[name] = draw(st.sampled_from(_FIELD_VALUES[name]))
    text = "{year}{month}{day}-{hour}:{minute}:{second}{frac}".format(**stamp)
    if draw(st.booleans()):
        text = text.partition("-")[2]  # HH:MM:SS[.fff]
    if draw(st.integers(0, 4)) == 0:  # a byte changed or cut
        at = draw(st.integers(0, len(text)))
        change = draw(st.sampled_from(["", "x", "-", ":", ".", "5", " ", "\u00e9"]))
        text = text[:at] + change + text[at + 1 :]
    return text


def _checked_as_in_a_column(value: str | bytes, time_only: bool) -> None:
    """One timestamp is accepted exactly when the same text in a column is, with the
    same bytes; refused, it raises the column's error for it (as row 0)."""
    from vecfix.fix import _header

    name = "sending_time"
    first = "00:00:00" if time_only else "20240101-00:00:00"
    try:
        column = _header.timestamps(name, [first, value], "ms", time_only=time_only)
    except (TypeError, ValueError) as exc:
        refused = str(exc).replace(f"{name}[1]", f"{name}[0]")
        with pytest.raises(type(exc)) as one:
            _header.timestamps(name, value, "ms", time_only=time_only)
        assert str(one.value) == refused
        return
    one = _header.timestamps(name, value, "ms", time_only=time_only)
    assert one.to_list() == column.to_list()[1:]
    assert one.matrix.tobytes() == column.matrix[1:, : one.matrix.shape[1]].tobytes()
    assert one.lengths.tolist() == column.lengths.tolist()[1:] and one.valid is None


@pytest.mark.parametrize("time_only", [False, True])
@pytest.mark.parametrize(
    ("field", "value"), [(f, v) for f, values in _FIELD_VALUES.items() for v in values]
)
def test_one_timestamp_with_a_field_at_its_limit_is_checked_as_a_column_is(field, value, time_only):
    """Each field of a well-formed timestamp set to each value at or past its limit."""
    stamp = {
        "year": "2024", "month": "02", "day": "29", "hour": "23", "minute": "59",
        "second": "59", "frac": ".000",
    }  # fmt: skip
    if field == "year" and value == "2024":
        stamp["year"] = "2023"
    stamp[field] = value
    text = "{year}{month}{day}-{hour}:{minute}:{second}{frac}".format(**stamp)
    if time_only:
        text = text.partition("-")[2]
    _checked_as_in_a_column(text, time_only)


@pytest.mark.parametrize("year", ["1900", "2000", "2023", "2024"])
def test_one_timestamps_last_days_of_each_month_are_checked_as_in_a_column(year):
    """The last days of every month, and the days after them, in leap years and not."""
    for month in range(1, 13):
        for day in range(28, 33):
            _checked_as_in_a_column(f"{year}{month:02d}{day:02d}-12:00:00", False)


@given(text=_stamp_texts(), time_only=st.booleans(), as_bytes=st.booleans())
@example(text="20240229-23:59:60.123456", time_only=False, as_bytes=False)
@example(text="19000229-12:00:00", time_only=False, as_bytes=False)
@example(text="00000229-12:00:00", time_only=False, as_bytes=True)
@example(text="23:59:59.999", time_only=True, as_bytes=False)
def test_one_timestamp_is_checked_as_a_column_is(text, time_only, as_bytes):
    """Any text: one timestamp (the common SendingTime, checked without the column's
    array passes) is accepted and refused as in a column."""
    _checked_as_in_a_column(text.encode("utf-8") if as_bytes else text, time_only)


@given(
    when=st.datetimes(
        min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30),
        timezones=st.sampled_from([
            dt.timezone.utc,
            dt.timezone(dt.timedelta(hours=5, minutes=30)),
            dt.timezone(-dt.timedelta(hours=23, minutes=59)),
        ]),
    ),
    precision=st.sampled_from(["s", "ms", "us"]),
    time_only=st.booleans(),
)  # fmt: skip
@example(
    when=dt.datetime(9999, 12, 31, 23, 59, 59, 999999, dt.timezone.utc),
    precision="us",
    time_only=False,
)
@example(when=dt.datetime(1, 1, 1, tzinfo=dt.timezone.utc), precision="ms", time_only=False)
@example(
    when=dt.datetime(1970, 1, 1, tzinfo=dt.timezone(dt.timedelta(seconds=1))),
    precision="ms",
    time_only=True,
)
def test_one_datetime_is_written_as_in_a_column(when, precision, time_only):
    """One aware datetime (SendingTime's default: now) is written as the same moment in
    a column of them is, at each precision (floored), the time alone too."""
    from vecfix.fix import _header

    one = _header.timestamps("sending_time", when, precision, time_only=time_only)
    column = _header.timestamps("sending_time", [when, when], precision, time_only=time_only)
    assert _header._one_time(_header._utc_us("t", when, 0), precision, time_only) is not None
    assert one.to_list() == column.to_list()[:1]
    assert one.matrix.tobytes() == column.matrix[:1].tobytes()
    utc = when.astimezone(dt.timezone.utc)  # the moment in UTC, by Python's own rules
    text = f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
    if not time_only:
        text = f"{utc.year:04d}{utc.month:02d}{utc.day:02d}-{text}"
    digits = {"s": 0, "ms": 3, "us": 6}[precision]
    text += f".{utc.microsecond:06d}"[: digits + 1] if digits else ""
    assert one.to_list() == [text]


@given(value=st.text(st.characters(max_codepoint=0x2FF), max_size=6) | st.binary(max_size=6))
@example(value="A=B")
@example(value="")
@example(value="\x7f")
@example(value=" ")
def test_one_identifier_is_checked_as_a_column_is(value):
    """A header value (sender, target, begin string) is accepted exactly when the same
    text in a column of identifiers is, with the same bytes and the same errors (said of
    one value: no row, no hint to mark a row null)."""
    from vecfix.fix import _columns

    try:
        col = _columns.text_column("sender", [value])
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)) as one:
            _columns.identifier("sender", value)
        said = str(exc).replace("sender[0]", "sender").replace(": mark the row null instead", "")
        assert str(one.value) == said
        return
    assert _columns.identifier("sender", value) == col.matrix[0, : col.lengths[0]].tobytes()


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("", "sender = b'' is empty (FIX forbids empty values)"),
        ("é", "sender = 'é' is not ASCII"),
        ("A=B", "sender = b'A=B' contains '='"),
        ("A\x01", "sender = b'A\\x01' contains SOH"),
    ],
)
def test_a_header_value_is_refused_as_one_value(value, says):
    """A header value is one value: its error names it without a row, and without the
    columns' hint to mark a row null."""
    with pytest.raises(ValueError) as info:
        fix.Header(value, "T")
    assert str(info.value).startswith(says)
    assert "[0]" not in str(info.value) and "null" not in str(info.value)


def test_sending_time_defaults_to_now():
    before = dt.datetime.now(dt.timezone.utc)
    msgs = fix.snapshots(["A"], [0], [], [], [], header=fix.Header("S", "T"))
    after = dt.datetime.now(dt.timezone.utc)
    stamp = dict(pairs_of(msgs[0]))[52].decode()
    sent = dt.datetime.strptime(stamp, "%Y%m%d-%H:%M:%S.%f").replace(tzinfo=dt.timezone.utc)
    assert before - dt.timedelta(milliseconds=1) <= sent <= after


# ---------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------


class Trickle(io.RawIOBase):
    """Accepts at most 3 bytes a call; ``None`` (would block) when ``stall`` is set."""

    def __init__(self, stall: bool = False) -> None:
        self.data = bytearray()
        self.stall = stall

    def writable(self) -> bool:
        return True

    def write(self, b) -> int | None:
        if self.stall:
            return None
        self.data += bytes(b[:3])
        return len(b[:3])


def test_write_all_to_paths_and_partial_writers(tmp_path):
    data = np.frombuffer(b"8=FIX.4.4\x019=5\x01", np.uint8)
    sink = Trickle()
    assert write_all(sink, data) == data.size and bytes(sink.data) == data.tobytes()
    assert write_all(tmp_path / "a.fix", data) == data.size
    assert (tmp_path / "a.fix").read_bytes() == data.tobytes()
    assert write_all(io.BytesIO(), b"") == 0
    with pytest.raises(BlockingIOError, match="accepted no bytes"):
        write_all(Trickle(stall=True), data)
    msgs = fix.snapshots(["A"], [0], [], [], [], **HEAD)
    assert msgs.write(str(tmp_path / "m.fix")) == msgs.nbytes
    assert (tmp_path / "m.fix").read_bytes() == msgs.to_bytes()


CODE_SOURCES = {
    "ints": lambda v: list(v),
    "numpy": lambda v: np.array(v),
    "arrow": lambda v: pa.array(v),
    "arrow chunked": lambda v: pa.chunked_array([v[:1], v[1:]]),
    "pandas": lambda v: pd.Series(v),
    "pandas Int64": lambda v: pd.Series(v, dtype="Int64"),
    "polars": lambda v: pl.Series(v),
    "strings": lambda v: [str(x) for x in v],
    "polars strings": lambda v: pl.Series([str(x) for x in v]),
}


@pytest.mark.parametrize("source", sorted(CODE_SOURCES))
def test_codes_from_every_container(source):
    actions = CODE_SOURCES[source]([0, 2, 1])
    msgs = fix.incremental(actions, 1, ["A", "B", "C"], [1, 2, 3], [4, 5, 6], **NUMBERS, **HEAD)
    assert [v for m in msgs for t, v in pairs_of(m) if t == 279] == [b"0", b"2", b"1"]
    with pytest.raises(ValueError, match=r"actions\[1\]"):
        fix.incremental(
            CODE_SOURCES[source]([0, 12, 1]), 1, ["A", "B", "C"], [1, 2, 3], [4, 5, 6],
            **NUMBERS, **HEAD,
        )  # fmt: skip


SAME_RULE = [  # (prices, exponent, scale): what format_fixed refuses, fix refuses alike
    ([1.5, 2.5], -2, 2),
    ([True, False], -2, 2),
    (["1.5", 2], None, 2),
    ([1, 2], [-2, 2**40], 2),
    ([1, 2], -2, [2**40, 2]),
    (np.array([1, 2], dtype=np.float32), -2, 2),
    (pl.Series([1.5, None]), -2, 2),
    ([10**5000, 1], 0, 0),
]


@pytest.mark.parametrize(("prices", "exponent", "scale"), SAME_RULE)
def test_prices_follow_format_fixed_rules(prices, exponent, scale):
    """One rule: the error fix gives is format_fixed's, prefixed by the argument's name."""
    try:
        vecfix.format_fixed(prices, exponent, scale)
    except (TypeError, ValueError) as exc:
        want = exc
    else:  # accepted by format_fixed: accepted by fix, same text
        msgs = fix.snapshots(
            ["A"], [2], 0, prices, [1, 2], price=vecfix.NumberFormat(exponent, scale), **HEAD
        )
        got = [v for t, v in pairs_of(msgs[0]) if t == 270]
        assert got == [t.encode() for t in vecfix.format_fixed(prices, exponent, scale)]
        return
    with pytest.raises(type(want)) as info:
        fix.snapshots(
            ["A"], [2], 0, prices, [1, 2], price=vecfix.NumberFormat(exponent, scale), **HEAD
        )
    # format_fixed's keywords (exponent=-9) and the argument a message opens with, by the
    # builder's name for it; its prose ("an exponent", "their own exponent") as it is
    text = re.sub(r"(?<![\w.])(exponent|scale)(?==)", r"price.\1", str(want))
    text = re.sub(r"^(exponent|scale) ", r"price.\1 ", text)
    assert str(info.value) == f"prices: {text}"


def test_sending_time_keeps_a_columns_name_and_index():
    """Issue 15: a fix helper that returns a column keeps the input's identity."""
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    import vecfix.fix as fix

    when = pd.Series(pd.to_datetime(["2024-01-02 03:04:05.678", None]), index=[7, 3], name="ts")
    out = fix.sending_time(when).to_pandas()
    assert out.index.tolist() == [7, 3] and out.name == "ts"
    assert out.tolist() == ["20240102-03:04:05.678", pd.NA]
    s = fix.sending_time(pl.Series("t52", [dt.datetime(2024, 1, 2, 3, 4, 5)])).to_polars()
    assert s.name == "t52" and s.to_list() == ["20240102-03:04:05.000"]


def _misaligned(builder):
    """``builder``'s call with one pandas column of another frame's rows (an unfiltered
    column beside filtered ones), and with all of them from the filtered frame."""
    df = pd.DataFrame({"sym": ["A", "B", "C"], "px": [1, 2, 3], "sz": [4, 5, 6]})
    sub = df[df.px > 1]
    wrong, right = df.sz.iloc[:2], sub.sz
    kw = {**HEAD, "price": vecfix.NumberFormat(0, 0)}
    calls = {
        "quotes": lambda s: fix.quotes(
            sub.sym, sub.px, sub.px, s, sub.sz, quote_ids=["a", "b"], **kw
        ),
        "mass_quotes": lambda s: fix.mass_quotes(sub.sym, sub.px, sub.px, s, sub.sz, **kw),
        "incremental": lambda s: fix.incremental(0, 0, sub.sym, sub.px, s, **kw),
        "snapshots": lambda s: fix.snapshots(["X"], [2], [0, 1], sub.px, s, **kw),
    }
    return calls[builder], wrong, right


@pytest.mark.parametrize("builder", ["quotes", "mass_quotes", "incremental", "snapshots"])
def test_pandas_columns_of_one_kind_of_row_must_share_an_index(builder):
    """Paired by position, a size column of the unfiltered frame put row A's size in row
    B's entry, in messages framed right (from an edge walk)."""
    call, wrong, right = _misaligned(builder)
    with pytest.raises(
        ValueError, match=r"is a pandas Series whose index is not .*\n.* align it first"
    ):
        call(wrong)
    sizes = [v for m in call(right) for t, v in pairs_of(m) if t in (134, 271)]
    assert sizes == [b"5", b"6"]
    assert len(call(wrong.to_numpy())) > 0  # by position, as asked
