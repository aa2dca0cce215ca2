"""The per-tick calls of the FIX builders (issue 38): a few quotes, snapshots or updates
checked, numbered and written by one kernel call; a refused batch taking nothing in any
builder; the int64 null sentinel printed as a number warned about once a call.

Every message is parsed back by simplefix, BodyLength and CheckSum recomputed from the
raw bytes (``fix_checks``), every value compared with ``ref_fixed`` (a :mod:`decimal`
reference) or with hand-written text.
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
from test_fix_publish import QUOTE_ORDER, WHEN, header_of  # noqa: E402

# ---------------------------------------------------------------------------------------
# The per-tick call: fix.quotes of a few quotes in one kernel call (issue 38)
# ---------------------------------------------------------------------------------------

INT64_MAX = 2**63 - 1
PX = vecfix.NumberFormat(-9, 2)


def sent(msgs, first_seq=1, msg_type=b"S"):
    """Each message's fields after its header, its type, sequence number and time checked:
    a list a message."""
    out = []
    for i, m in enumerate(msgs):
        pairs = pairs_of(m)
        seq, k = header_of(pairs, msg_type)
        assert seq == first_seq + i and pairs[4] == (52, WHEN.encode())
        out.append(pairs[k:])
    return out


def quote_fields(qid, sym, values, layouts):
    """What a Quote of these values carries after its header (``None``: no field)."""
    fields = [(117, qid.encode()), (55, sym.encode())]
    for tag, v, (e, s) in zip(QUOTE_ORDER, values, layouts, strict=True):
        if v is not None:
            fields.append((tag, ref_fixed(v, e, s).encode()))
    return fields


@pytest.fixture
def general_path_refused(monkeypatch):
    """Fail any call that leaves the per-tick path: the general path reads its numbers
    through read_numbers and frames through frame, neither of which it may reach."""
    import vecfix.fix._builders as builders
    import vecfix.fix._publish as publish

    def refused(*args, **kwargs):
        raise AssertionError("the general path was taken")

    for module in (builders, publish):
        monkeypatch.setattr(module, "read_numbers", refused)
        monkeypatch.setattr(module, "frame", refused)


@pytest.mark.parametrize(
    "texts", [list, tuple, lambda v: np.array(v, dtype="S"), lambda v: np.array(v, dtype="U")]
)
@pytest.mark.parametrize("numbers", [list, lambda v: np.array(v), lambda v: np.array(v, np.int32)])
def test_per_tick_quotes_take_one_path(general_path_refused, texts, numbers):
    syms, ids = ["EURUSD", "ES"], ["q1", "Q-22"]
    values = [[1_082_150_000, -5], [1_082_250_000, 5_000], [7, 0], [1, 12]]
    msgs = fix.quotes(
        texts(syms), *map(numbers, values), quote_ids=texts(ids), price=PX,
        header=fix.Header("S", "T", next_seq=9), sending_time=WHEN,
    )  # fmt: skip
    got = sent(msgs, 9)
    assert got[0][2:] == [(132, b"1.08"), (133, b"1.08"), (134, b"7"), (135, b"1")]
    assert got[1] == [(117, b"Q-22"), (55, b"ES"), (132, b"0.00"), (133, b"0.00"),
                      (134, b"0"), (135, b"12")]  # fmt: skip


def test_per_tick_quotes_one_sided_by_the_null_sentinel(general_path_refused):
    price = vecfix.NumberFormat(-4, 4, null=INT64_MAX)
    size = vecfix.NumberFormat(-2, 1, null=-1)
    msgs = fix.quotes(
        ["A", "B"], [12_3456, INT64_MAX], [INT64_MAX, 7], [-1, 250], [99, -1],
        quote_ids=["x", "y"], price=price, size=size, header=fix.Header("S", "T"),
        sending_time=WHEN,
    )  # fmt: skip
    assert sent(msgs) == [
        [(117, b"x"), (55, b"A"), (132, b"12.3456"), (135, b"1.0")],
        [(117, b"y"), (55, b"B"), (133, b"0.0007"), (134, b"2.5")],
    ]


def test_per_tick_quotes_sending_time_as_datetime_or_now(general_path_refused):
    import datetime as dt
    import re

    when = dt.datetime(2024, 1, 2, 14, 30, 0, 123456, tzinfo=dt.timezone.utc)
    args = (["A"], [1], [2], [3], [4])
    head = fix.Header("S", "T", precision="us")
    msg = fix.quotes(*args, quote_ids=["q"], price=PX, header=head, sending_time=when)[0]
    assert b"\x0152=20240102-14:30:00.123456\x01" in msg
    msg = fix.quotes(*args, quote_ids=["q"], price=PX, header=head)[0]
    assert re.search(rb"\x0152=\d{8}-\d\d:\d\d:\d\d\.\d{6}\x01", msg)


layouts = st.tuples(st.integers(-20, 5), st.integers(-3, 20))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(*[st.integers(-(2**63), INT64_MAX - 1)] * 4, st.booleans(), st.booleans()),
        max_size=12,
    ),
    price=layouts,
    size=layouts,
    first=st.integers(1, 10**12),
)
def test_per_tick_quotes_any_int64_against_the_reference(rows, price, size, first):
    null = INT64_MAX  # a missing bid or offer (never both)
    values = [[r[c] for r in rows] for c in range(4)]
    for i, (*_, no_bid, no_offer) in enumerate(rows):
        if no_bid and not no_offer:
            values[0][i] = null
        elif no_offer and not no_bid:
            values[1][i] = null
    ids, syms = [f"Q{i}" for i in range(len(rows))], [f"S{i % 3}" for i in range(len(rows))]
    msgs = fix.quotes(
        syms, *values, quote_ids=ids, price=vecfix.NumberFormat(*price, null=null),
        size=vecfix.NumberFormat(*size), header=fix.Header("S", "T", next_seq=first),
        sending_time=WHEN,
    )  # fmt: skip
    shown = [[None if c < 2 and v == null else v for v in col] for c, col in enumerate(values)]
    want = [
        quote_fields(ids[i], syms[i], [col[i] for col in shown], (price, price, size, size))
        for i in range(len(rows))
    ]
    assert sent(msgs, first) == want


def test_quotes_past_the_per_tick_size_match_the_same_text():
    from vecfix.fix._builders import PLAIN_QUOTES

    for n in (PLAIN_QUOTES, PLAIN_QUOTES + 1):  # the last per-tick call, the first general
        bid = [(i * 7919) % 10**9 - 5 * 10**8 for i in range(n)]
        msgs = fix.quotes(
            ["ES"] * n, bid, [5] * n, [1] * n, [2] * n, quote_ids=[str(i) for i in range(n)],
            price=PX, header=fix.Header("S", "T"), sending_time=WHEN,
        )  # fmt: skip
        for i in (0, 1, n // 2, n - 1):
            assert sent(msgs[i : i + 1], i + 1)[0] == quote_fields(
                str(i), "ES", [bid[i], 5, 1, 2], ((-9, 2), (-9, 2), (0, 0), (0, 0))
            )


def test_quotes_from_threads_share_one_numbering():
    from concurrent.futures import ThreadPoolExecutor

    head = fix.Header("S", "T", next_seq=9_999_990)  # the sequence numbers gain a digit

    def send(k: int) -> list[int]:
        msgs = fix.quotes(["A"] * k, [1] * k, [2] * k, [3] * k, [4] * k, quote_ids=["q"] * k,
                          price=PX, header=head, sending_time=WHEN)  # fmt: skip
        return [int(pairs_of(m)[3][1]) for m in msgs]

    with ThreadPoolExecutor(4) as pool:
        seqs = [s for part in pool.map(send, [1, 2, 3, 4] * 25) for s in part]
    assert sorted(seqs) == list(range(9_999_990, 9_999_990 + 250))
    assert head.next_seq == 9_999_990 + 250


# ---------------------------------------------------------------------------------------
# A refused batch writes nothing and takes no sequence number: every builder
# ---------------------------------------------------------------------------------------

GOOD_QUOTES = {
    "symbols": ["A", "B"], "bid_px": [1, 2], "offer_px": [3, 4], "bid_size": [5, 6],
    "offer_size": [7, 8], "quote_ids": ["q1", "q2"], "price": PX, "sending_time": WHEN,
}  # fmt: skip
TOO_LONG = vecfix.NumberFormat(0, 70_000)  # 70,002 bytes a price: past MAX_ROW_LENGTH


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [  # each a call the per-tick path recognises, refused by its kernel or its reading
        ({"symbols": ["A", "B=C"]}, ValueError, r"^symbols\[1\] = b'B=C' contains '='"),
        ({"symbols": ["A", ""]}, ValueError, r"^symbols\[1\] = b'' is empty"),
        ({"quote_ids": ["q\x01", "q2"]}, ValueError, r"^quote_ids\[0\] = .* contains SOH"),
        ({"symbols": ["A", "\u00e9"]}, ValueError, r"^symbols\[1\] = '\u00e9' is not ASCII"),
        ({"bid_px": [1, INT64_MAX], "offer_px": [3, INT64_MAX],
          "price": vecfix.NumberFormat(-9, 2, null=INT64_MAX)}, ValueError, "^quote 1 has neither"),
        ({"price": TOO_LONG}, ValueError, r"^bid_px: row 0 \(coefficient=1, .*MAX_ROW_LENGTH"),
        ({"bid_px": [1, 2**64]}, None, None),  # beyond int64: the general path builds it
        ({"sending_time": "20240230-00:00:00"}, ValueError, r"^sending_time\[0\] = "),
        ({"quote_ids": ["q1"]}, ValueError, "^quote_ids has 1 values for 2 symbols"),
        ({"offer_size": [7, 8.5]}, TypeError, r"^offer_size"),
    ],
)  # fmt: skip
def test_a_refused_quote_batch_takes_nothing(change, error, match):
    head = fix.Header("S", "T", next_seq=41)
    if error is None:
        assert len(fix.quotes(**{**GOOD_QUOTES, **change}, header=head)) == 2
        return
    with pytest.raises(error, match=match) as info:
        fix.quotes(**{**GOOD_QUOTES, **change}, header=head)
    assert len(str(info.value).splitlines()[0]) <= 200
    assert head.next_seq == 41  # nothing taken
    assert sent(fix.quotes(**GOOD_QUOTES, header=head), 41)[0][0] == (117, b"q1")


@pytest.mark.parametrize("builder", ["snapshots", "incremental", "mass_quotes"])
@pytest.mark.parametrize("bad", ["symbol", "time", "too_long"])
def test_a_refused_batch_takes_nothing_in_any_builder(builder, bad):
    head = fix.Header("S", "T", next_seq=7)
    syms = ["A", "B=" if bad == "symbol" else "B"]
    args = {"header": head, "price": TOO_LONG if bad == "too_long" else PX,
            "sending_time": "2024" if bad == "time" else WHEN}  # fmt: skip
    call = {
        "snapshots": lambda: fix.snapshots(syms, [1, 1], 0, [1, 2], [3, 4], **args),
        "incremental": lambda: fix.incremental(0, 0, syms, [1, 2], [3, 4], **args),
        "mass_quotes": lambda: fix.mass_quotes(syms, [1, 2], [3, 4], [5, 6], [7, 8], **args),
    }[builder]
    with pytest.raises(ValueError, match=r"^(symbols\[1\]|sending_time|(prices|bid_px): row 0)"):
        call()
    assert head.next_seq == 7


def test_fields_refused_into_a_callers_buffer_writes_nothing():
    buf = np.full(32, 7, dtype=np.uint8)
    with pytest.raises(ValueError, match=r"^column\[1\] = b'' is empty"):
        fix.fields(270, ["1.5", ""], out=buf, offsets=[0, 16])
    assert buf.tolist() == [7] * 32


# ---------------------------------------------------------------------------------------
# 2**63 - 1 printed as a number: one warning a call, naming null= (issue 39, item 3)
# ---------------------------------------------------------------------------------------


def _builders_with(px, price):
    """Each builder with the prices ``px`` (two rows) under ``price``."""
    head = {"header": fix.Header("S", "T"), "sending_time": WHEN, "price": price}
    return {
        "quotes": lambda: fix.quotes(["A", "B"], px, [1, 2], [1, 1], [1, 1],
                                     quote_ids=["a", "b"], **head),
        "quotes, general path": lambda: fix.quotes(["A", "B"], np.array(px), [1, 2], [1, 1],
                                                   [1, 1], quote_ids=["a", "b"],
                                                   bid_px_valid=[True, True], **head),
        "snapshots": lambda: fix.snapshots(["A"], [2], 0, px, [1, 1], **head),
        "incremental": lambda: fix.incremental(0, 0, ["A", "B"], px, [1, 1], **head),
        "mass_quotes": lambda: fix.mass_quotes(["A", "B"], px, [1, 2], [1, 1], [1, 1], **head),
    }  # fmt: skip


@pytest.mark.parametrize("builder", list(_builders_with([1, 2], PX)))
def test_the_int64_sentinel_warns_once_a_call_without_null(builder):
    with pytest.warns(UserWarning, match=r"2\*\*63 - 1.*null=") as caught:
        _builders_with([INT64_MAX, INT64_MAX], PX)[builder]()
    assert len([w for w in caught if issubclass(w.category, UserWarning)]) == 1
    assert caught[0].filename == __file__  # the caller's line, not vecfix's


@pytest.mark.parametrize("builder", list(_builders_with([1, 2], PX)))
def test_the_int64_sentinel_with_null_given_does_not_warn(builder):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        msgs = _builders_with([INT64_MAX, 5], vecfix.NumberFormat(-9, 2, null=INT64_MAX))[builder]()
        _builders_with([1, 5], PX)[builder]()  # no sentinel: no warning either
    assert b"\x01270=9223372036.85" not in msgs.to_bytes()
    assert b"\x01132=9223372036.85" not in msgs.to_bytes()


def test_the_sentinel_warning_names_each_column_once():
    with pytest.warns(UserWarning) as caught:
        fix.quotes(["A"], [INT64_MAX], [1], [INT64_MAX], [1], quote_ids=["q"], price=PX,
                   header=fix.Header("S", "T"), sending_time=WHEN)  # fmt: skip
    assert len(caught) == 1
    text = str(caught[0].message)
    assert text.startswith("each of bid_px and bid_size holds 9223372036854775807")
    assert caught[0].filename == __file__  # the caller's line, not vecfix's


def test_per_tick_quotes_of_strided_arrays_take_the_general_path():
    bid = np.repeat(np.array([12_345, -5], dtype=np.int64), 2)[::2]  # not contiguous
    msgs = fix.quotes(["A", "B"], bid, bid, [1, 2], [3, 4], quote_ids=["a", "b"],
                      price=vecfix.NumberFormat(-3, 2), header=fix.Header("S", "T"),
                      sending_time=WHEN)  # fmt: skip
    assert [q[2:4] for q in sent(msgs)] == [
        [(132, b"12.35"), (133, b"12.35")],
        [(132, b"-0.01"), (133, b"-0.01")],
    ]


# ---------------------------------------------------------------------------------------
# The per-tick call of fix.snapshots: one kernel call
# ---------------------------------------------------------------------------------------


def test_per_tick_snapshots_take_one_path(general_path_refused):
    msgs = fix.snapshots(
        ["ESZ4", "NQZ4", "YM"], [2, 0, 1], ["0", "1", 2], np.array([5000_250000000, -5, 7]),
        [7, INT64_MAX, 0], price=PX, size=vecfix.NumberFormat(0, 0, null=INT64_MAX),
        header=fix.Header("S", "T", next_seq=99), sending_time=WHEN,
    )  # fmt: skip
    assert sent(msgs, 99, b"W") == [
        [(55, b"ESZ4"), (268, b"2"), (269, b"0"), (270, b"5000.25"), (271, b"7"),
         (269, b"1"), (270, b"0.00")],
        [(55, b"NQZ4"), (268, b"0")],
        [(55, b"YM"), (268, b"1"), (269, b"2"), (270, b"0.00"), (271, b"0")],
    ]  # fmt: skip


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    counts=st.lists(st.integers(0, 4), max_size=6),
    data=st.data(),
    price=layouts,
    size=layouts,
    first=st.integers(1, 10**12),
)
def test_per_tick_snapshots_any_int64_against_the_reference(counts, data, price, size, first):
    total = sum(counts)
    entry = st.integers(-(2**63), INT64_MAX - 1)
    px, sz = (data.draw(st.lists(entry, min_size=total, max_size=total)) for _ in range(2))
    types = data.draw(st.lists(st.integers(0, 9), min_size=total, max_size=total))
    syms = [f"S{i}" for i in range(len(counts))]
    msgs = fix.snapshots(
        syms, counts, types, px, sz, price=vecfix.NumberFormat(*price),
        size=vecfix.NumberFormat(*size), header=fix.Header("S", "T", next_seq=first),
        sending_time=WHEN,
    )  # fmt: skip
    want, e = [], 0
    for sym, k in zip(syms, counts, strict=True):
        fields = [(55, sym.encode()), (268, str(k).encode())]
        for j in range(e, e + k):
            fields += [(269, str(types[j]).encode()), (270, ref_fixed(px[j], *price).encode()),
                       (271, ref_fixed(sz[j], *size).encode())]  # fmt: skip
        want.append(fields)
        e += k
    assert sent(msgs, first, b"W") == want


def test_per_tick_incremental_takes_one_path(general_path_refused):
    msgs = fix.incremental(
        [0, 1, 2], "1", ["ESZ4", "ESZ4", "NQ"], [5000_250000000, -5, INT64_MAX], [7, 3, 0],
        entry_counts=[2, 1], max_entries=1, md_req_id="r-1",
        price=vecfix.NumberFormat(-9, 2, null=INT64_MAX), header=fix.Header("S", "T"),
        sending_time=WHEN,
    )  # fmt: skip
    assert sent(msgs, 1, b"X") == [
        [(262, b"r-1"), (268, b"1"), (279, b"0"), (269, b"1"), (55, b"ESZ4"),
         (270, b"5000.25"), (271, b"7")],
        [(262, b"r-1"), (268, b"1"), (279, b"1"), (269, b"1"), (55, b"ESZ4"),
         (270, b"0.00"), (271, b"3")],
        [(262, b"r-1"), (268, b"1"), (279, b"2"), (269, b"1"), (55, b"NQ"), (271, b"0")],
    ]  # fmt: skip


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    counts=st.lists(st.integers(1, 4), max_size=5),
    data=st.data(),
    price=layouts,
    first=st.integers(1, 10**12),
)
def test_per_tick_incremental_any_int64_against_the_reference(counts, data, price, first):
    n = sum(counts)
    entry = st.integers(-(2**63), INT64_MAX - 1)
    px, sz = (data.draw(st.lists(entry, min_size=n, max_size=n)) for _ in range(2))
    acts = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    syms = [f"S{i % 4}" for i in range(n)]
    msgs = fix.incremental(
        acts, 0, syms, px, sz, entry_counts=counts if counts else None,
        price=vecfix.NumberFormat(*price), size=vecfix.NumberFormat(-2, 1),
        header=fix.Header("S", "T", next_seq=first), sending_time=WHEN,
    )  # fmt: skip
    want, e = [], 0
    for k in counts:
        fields = [(268, str(k).encode())]
        for j in range(e, e + k):
            fields += [(279, str(acts[j]).encode()), (269, b"0"), (55, syms[j].encode()),
                       (270, ref_fixed(px[j], *price).encode()),
                       (271, ref_fixed(sz[j], -2, 1).encode())]  # fmt: skip
        want.append(fields)
        e += k
    assert sent(msgs, first, b"X") == want


# ---------------------------------------------------------------------------------------
# The per-tick call of fix.mass_quotes: one kernel call
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("texts", [list, lambda v: np.array(v, dtype="S")])
def test_per_tick_mass_quotes_take_one_path(general_path_refused, texts):
    msgs = fix.mass_quotes(
        texts(["ESZ4", "ESH5", "NQZ4"]), np.array([5000_250000000, -5, INT64_MAX]),
        [1, 2, 3], [10, 5, 0], [12, 5, 3], quote_set_ids=texts(["ES", "ES", "NQ"]),
        max_entries=1, response_level=2, quote_ids="MQ-",
        price=vecfix.NumberFormat(-9, 2, null=INT64_MAX), header=fix.Header("S", "T", next_seq=9),
        sending_time=WHEN,
    )  # fmt: skip
    entry = [(132, b"5000.25"), (133, b"0.00"), (134, b"10"), (135, b"12")]
    assert sent(msgs, 9, b"i") == [
        [(117, b"MQ-9"), (301, b"2"), (296, b"1"), (302, b"ES"), (304, b"2"), (893, b"N"),
         (295, b"1"), (299, b"1"), (55, b"ESZ4"), *entry],
        [(117, b"MQ-10"), (301, b"2"), (296, b"1"), (302, b"ES"), (304, b"2"), (893, b"Y"),
         (295, b"1"), (299, b"2"), (55, b"ESH5"), (132, b"0.00"), (133, b"0.00"),
         (134, b"5"), (135, b"5")],
        [(117, b"MQ-11"), (301, b"2"), (296, b"1"), (302, b"NQ"), (304, b"1"), (295, b"1"),
         (299, b"1"), (55, b"NQZ4"), (133, b"0.00"), (134, b"0"), (135, b"3")],
    ]  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sets=st.lists(st.integers(1, 5), max_size=5),
    named=st.booleans(),
    data=st.data(),
    price=layouts,
    size=layouts,
    limit=st.integers(1, 7),
    first=st.integers(1, 10**12),
)
def test_per_tick_mass_quotes_any_int64_as_the_general_path(
    sets, named, data, price, size, limit, first
):
    from unittest import mock

    import vecfix.fix._publish as publish

    n, null = sum(sets), INT64_MAX  # a missing bid or offer (never both)
    entry = st.integers(-(2**63), INT64_MAX - 1)
    values = [data.draw(st.lists(entry, min_size=n, max_size=n)) for _ in range(4)]
    for i, side in enumerate(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))):
        if side < 2:
            values[side][i] = null
    syms = [f"S{i % 3}" for i in range(n)]
    labels = data.draw(st.lists(st.integers(0, 3), min_size=len(sets), max_size=len(sets)))
    ids = [f"set-{s}" for s, k in zip(labels, sets, strict=True) for _ in range(k)]

    def build(first_seq):
        try:
            return fix.mass_quotes(
                syms, *values, quote_set_ids=ids if named else None, max_entries=limit,
                price=vecfix.NumberFormat(*price, null=null), size=vecfix.NumberFormat(*size),
                header=fix.Header("S", "T", next_seq=first_seq), sending_time=WHEN,
            )  # fmt: skip
        except ValueError as exc:  # a set ID that comes back: both paths say so
            assert "comes back after another set" in str(exc)
            return str(exc)

    msgs = build(first)
    with mock.patch.object(publish, "_plain_mass_quotes", lambda *args: None):
        general = build(first)
    if isinstance(msgs, str):
        assert msgs == general
        return
    assert msgs.to_bytes() == general.to_bytes()
    got = [(tag, v) for m in sent(msgs, first, b"i") for tag, v in m if tag in QUOTE_ORDER]
    want = [
        (tag, ref_fixed(v, *(price if c < 2 else size)).encode())
        for i in range(n)
        for c, (tag, v) in enumerate(zip(QUOTE_ORDER, [col[i] for col in values], strict=True))
        if not (c < 2 and v == null)
    ]
    assert got == want


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"quote_set_ids": ["A", "B", "A"]}, r"^quote_set_ids\[2\] = 'A' comes back"),
        ({"quote_set_ids": ["A", "B=", "B="]}, r"^quote_set_ids\[1\] = b'B=' contains '='"),
        ({"bid_px": [1, INT64_MAX, 3], "offer_px": [1, INT64_MAX, 3]}, "^quote entry 1 has"),
        ({"quote_ids": "Q="}, "^quote_ids = .* contains '='"),
        ({"max_entries": 0}, "^max_entries must be >= 1"),
    ],
)  # fmt: skip
def test_a_refused_mass_quote_batch_takes_nothing(change, match):
    head = fix.Header("S", "T", next_seq=41)
    call = {"symbols": ["A", "B", "C"], "bid_px": [1, 2, 3], "offer_px": [4, 5, 6],
            "bid_size": [7, 8, 9], "offer_size": [1, 1, 1], "sending_time": WHEN,
            "price": vecfix.NumberFormat(-9, 2, null=INT64_MAX), "header": head}  # fmt: skip
    with pytest.raises(ValueError, match=match):
        fix.mass_quotes(**{**call, **change})
    assert head.next_seq == 41
    assert len(fix.mass_quotes(**call)) == 1 and head.next_seq == 42


def test_per_tick_mass_quotes_numbered_sets_take_one_path(general_path_refused):
    msgs = fix.mass_quotes(["A", "B", "C"], [1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 1, 1],
                           max_entries=2, price=PX, header=fix.Header("S", "T"),
                           sending_time=WHEN)  # fmt: skip
    got = sent(msgs, 1, b"i")
    assert [m[:6] for m in got] == [
        [(117, b"1"), (296, b"1"), (302, b"1"), (304, b"2"), (295, b"2"), (299, b"1")],
        [(117, b"2"), (296, b"1"), (302, b"2"), (304, b"1"), (295, b"1"), (299, b"1")],
    ]
    assert got[0][10:12] == [(135, b"1"), (299, b"2")]


def test_mass_quote_set_ids_that_come_back_even_when_every_hash_is_equal(monkeypatch):
    from vecfix._kernels import fixtick

    monkeypatch.setattr(fixtick, "_HASH_MOD", 1)  # every pair of sets compared byte by byte
    ids = [b"ES", b"NQ", b"ESX", b"YM", b"NQ"]
    data = np.frombuffer(b"".join(ids), np.uint8)
    lengths = np.array([len(i) for i in ids], np.int32)
    at, starts = np.cumsum([0, *lengths[:-1]]), np.arange(len(ids) + 1)
    comes_back = getattr(fixtick._comes_back, "py_func", fixtick._comes_back)  # (no JIT: itself)
    assert comes_back(data, lengths, starts, at, 5)
    assert not comes_back(data, lengths, starts, at, 4)
