"""The FIX builders' signatures (issue 32, item 3): ``header=`` (a ``fix.Header``) and one
:class:`vecfix.NumberFormat` per kind of column (``price=``, ``size=``).

Expected text is written by hand or comes from ``ref_fixed`` (a :mod:`decimal` reference);
every message is parsed back and its frame recomputed (``fix_checks.pairs_of``).
"""

from __future__ import annotations

import inspect
from decimal import Decimal

import numpy as np
import pytest

import vecfix
import vecfix.fix as fix
from vecfix import NumberFormat

simplefix = pytest.importorskip("simplefix")
pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

from fix_checks import pairs_of, ref_fixed  # noqa: E402

WHEN = "20240102-14:30:00.000"
PRICE9 = NumberFormat(-9, 2)
PRICENULL9 = 2**63 - 1
BUILDERS = ("snapshots", "quotes", "mass_quotes", "incremental")
PRICE_TAGS = {"snapshots": (270,), "incremental": (270,), "quotes": (132, 133),
              "mass_quotes": (132, 133)}  # fmt: skip
SIZE_TAGS = {"snapshots": (271,), "incremental": (271,), "quotes": (134, 135),
             "mass_quotes": (134, 135)}  # fmt: skip


def build(builder, px, sz, **kw):
    """``builder``'s messages for one row per price and size (``px`` as bid and offer)."""
    n = len(px)
    kw = {"header": fix.Header("S", "T"), "sending_time": WHEN, **kw}
    if builder == "snapshots":
        return fix.snapshots(["A"], [n], 0, px, sz, **kw)
    if builder == "quotes":
        return fix.quotes(["A"] * n, px, px, sz, sz, quote_ids=[f"q{i}" for i in range(n)], **kw)
    if builder == "mass_quotes":
        return fix.mass_quotes(["A"] * n, px, px, sz, sz, **kw)
    return fix.incremental(0, 0, ["A"] * n, px, sz, **kw)


def values(msgs, tag):
    return [v for m in msgs for t, v in pairs_of(m) if t == tag]


# ---------------------------------------------------------------------------------------
# Signatures
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("builder", [*BUILDERS, "fields"])
def test_at_most_14_parameters_and_the_header_in_one_object(builder):
    params = inspect.signature(getattr(fix, builder)).parameters
    assert len(params) <= 14, list(params)
    gone = {"sender", "target", "seq_start", "begin_string", "null", "set_counts"}
    gone |= {f"{k}_{p}" for k in ("price", "size") for p in ("exponent", "scale")}
    assert not gone & set(params)
    if builder != "fields":
        header = params["header"]
        assert header.kind is inspect.Parameter.KEYWORD_ONLY
        assert header.default is inspect.Parameter.empty  # required
        assert params["price"].default is None and params["size"].default is None


# ---------------------------------------------------------------------------------------
# Whole-number sizes need nothing
# ---------------------------------------------------------------------------------------

SIZE_SOURCES = {
    "list": lambda v: list(v),
    "numpy int64": lambda v: np.array(v, dtype=np.int64),
    "numpy uint8": lambda v: np.array(v, dtype=np.uint8),
    "pandas Int64": lambda v: pd.Series(v, dtype="Int64"),
    "arrow int32": lambda v: pa.array(v, pa.int32()),
    "polars UInt16": lambda v: pl.Series(v, dtype=pl.UInt16),
}


@pytest.mark.parametrize("builder", BUILDERS)
@pytest.mark.parametrize("source", sorted(SIZE_SOURCES))
def test_integer_sizes_without_a_format_are_whole_numbers(builder, source):
    """Issue 33: a size column of integers asked for size_scale, then size_exponent."""
    msgs = build(builder, [5000_250000000, 1_000000000, 7], SIZE_SOURCES[source]([7, 0, 250]),
                 price=PRICE9)  # fmt: skip
    for tag in SIZE_TAGS[builder]:
        assert values(msgs, tag) == [b"7", b"0", b"250"]
    for tag in PRICE_TAGS[builder]:
        assert values(msgs, tag) == [b"5000.25", b"1.00", b"0.00"]


def test_integer_sizes_with_part_of_a_format():
    sizes = [7, 12]
    msgs = build("snapshots", [1, 2], sizes, price=PRICE9, size=NumberFormat(scale=2))
    assert values(msgs, 271) == [b"7.00", b"12.00"]  # exponent 0: whole numbers
    msgs = build("snapshots", [1, 2], sizes, price=PRICE9, size=NumberFormat(-1, 1))
    assert values(msgs, 271) == [b"0.7", b"1.2"]
    msgs = build("snapshots", [1, 2], sizes, price=PRICE9, size=NumberFormat(0))
    assert values(msgs, 271) == [b"7", b"12"]
    head = fix.Header("S", "T")
    with pytest.raises(TypeError) as info:  # another exponent: the scale is not obvious
        fix.snapshots(["A"], [2], 0, [1, 2], sizes, price=PRICE9, size=NumberFormat(-8),
                      header=head, sending_time=WHEN)  # fmt: skip
    assert str(info.value).startswith(
        "sizes: size.scale is required for integer coefficients:"
        " pass size=vecfix.NumberFormat(-8, scale), e.g. NumberFormat(-8, 8)"
    )
    assert head.next_seq == 1


# ---------------------------------------------------------------------------------------
# An integer price without its format: one error, every missing part named
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("builder", BUILDERS)
@pytest.mark.parametrize(
    ("price", "says"),
    [
        (None, "price= is required for integer coefficients: pass"
               " price=vecfix.NumberFormat(exponent, scale), e.g."
               " NumberFormat(-9, 2) for CME PRICE9 with 2 decimals"),
        (NumberFormat(), "an exponent and a scale are required for integer"
                         " coefficients: pass price=vecfix.NumberFormat(exponent, scale)"),
        (NumberFormat(scale=2), "price.exponent is required for integer coefficients: pass"
                                " price=vecfix.NumberFormat(exponent, 2), e.g."),
        (NumberFormat(-9), "price.scale is required for integer coefficients: pass"
                           " price=vecfix.NumberFormat(-9, scale), e.g."),
        (NumberFormat([-9, -9], None, null=5), "price.scale is required for integer"
                                               " coefficients: pass price=vecfix.NumberFormat("
                                               "[...], scale)"),
    ],
)  # fmt: skip
def test_an_integer_price_without_its_format_is_one_error(builder, price, says):
    head = fix.Header("S", "T", next_seq=9)
    with pytest.raises(TypeError) as info:
        build(builder, [5000_250000000, 7], [1, 2], price=price, header=head)
    first = str(info.value).splitlines()[0]
    name = "prices" if builder in ("snapshots", "incremental") else "bid_px"
    assert first.startswith(f"{name}: {says}"), first
    assert len(first) <= 200
    assert head.next_seq == 9  # nothing taken


def test_price_of_exponent_0_needs_no_scale():
    msgs = build("snapshots", [5, 12], [1, 2], price=NumberFormat(0))
    assert values(msgs, 270) == [b"5", b"12"]


def test_a_format_that_is_not_a_number_format_or_names_a_column():
    with pytest.raises(TypeError, match=r"price must be a vecfix.NumberFormat, got tuple"):
        build("quotes", [1], [1], price=(-9, 2))
    with pytest.raises(TypeError, match=r"size must be a vecfix.NumberFormat, got int 0"):
        build("snapshots", [1], [1], price=PRICE9, size=0)
    with pytest.raises(TypeError, match=r"price.scale = 'tick' names a column, but the FIX"):
        build("incremental", [1], [1], price=NumberFormat(-9, "tick"))


# ---------------------------------------------------------------------------------------
# Null sentinels, per-row exponents and scales
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("builder", BUILDERS)
def test_null_sentinels_in_a_number_format(builder):
    undef = -(2**63)
    px = np.array([5000_250000000, PRICENULL9, undef, 1], dtype=np.int64)
    sz = np.array([7, 8, 9, 0], dtype=np.int64)
    price_rows = [b"5000.25", b"0.00"]
    sizes = [b"7", b"8", b"9"]  # (the last row's size is the sentinel 0)
    if builder in ("quotes", "mass_quotes"):  # a quote needs a price: no null prices
        px, sz, sizes = px[[0, 3]], sz[[0, 3]], [b"7"]
    msgs = build(builder, px, sz, price=NumberFormat(-9, 2, null=[PRICENULL9, undef]),
                 size=NumberFormat(null=0))  # fmt: skip
    for tag in PRICE_TAGS[builder]:
        assert values(msgs, tag) == price_rows
    for tag in SIZE_TAGS[builder]:
        assert values(msgs, tag) == sizes
    assert b"9223372036" not in msgs.to_bytes()


def test_per_row_exponents_and_scales():
    px = [5000_250000000, 110_015625000, 1999, 15]
    exps, scales = [-9, -9, -3, 0], [2, 6, 3, -1]
    msgs = build("snapshots", px, [1] * 4, price=NumberFormat(np.array(exps), np.array(scales)))
    want = [ref_fixed(c, e, s).encode() for c, e, s in zip(px, exps, scales, strict=True)]
    assert values(msgs, 270) == want == [b"5000.25", b"110.015625", b"1.999", b"20"]
    frame = pd.DataFrame({"px": px, "dp": scales}, index=[4, 5, 6, 7])
    msgs = fix.incremental(
        0, 0, ["A"] * 4, frame.px, [1] * 4, price=NumberFormat(exps, frame.dp),
        header=fix.Header("S", "T"), sending_time=WHEN,
    )  # fmt: skip
    assert values(msgs, 270) == want
    with pytest.raises(ValueError, match=r"price.scale is a pandas Series whose index is not"):
        fix.incremental(
            0, 0, ["A"] * 3, frame.px.iloc[1:], [1] * 3, price=NumberFormat(-9, frame.dp.iloc[:3]),
            header=fix.Header("S", "T"), sending_time=WHEN,
        )  # fmt: skip
    with pytest.raises(ValueError, match=r"prices: .*price.scale"):
        build("snapshots", px, [1] * 4, price=NumberFormat(-9, [2, 2]))


# ---------------------------------------------------------------------------------------
# Decimals: as written, or at a scale; no exponent, no sentinel
# ---------------------------------------------------------------------------------------

WRITTEN = ["1.50", "2", "1e-3", "-0.0", "1E+3", None, "-2.675"]
AS_WRITTEN = [b"1.50", b"2", b"0.001", b"0.0", b"1000", b"-2.675"]
DECIMAL_SOURCES = {
    "Decimal": lambda: [None if v is None else Decimal(v) for v in WRITTEN],
    "list of str": lambda: list(WRITTEN),
    "pandas string": lambda: pd.Series(WRITTEN, dtype="string[pyarrow]"),
    "arrow string": lambda: pa.array(WRITTEN),
    "polars String": lambda: pl.Series(WRITTEN),
}


@pytest.mark.parametrize("source", sorted(DECIMAL_SOURCES))
def test_decimals_print_as_written_without_a_scale(source):
    msgs = build("snapshots", DECIMAL_SOURCES[source](), DECIMAL_SOURCES[source]())
    assert values(msgs, 270) == AS_WRITTEN and values(msgs, 271) == AS_WRITTEN
    msgs = build("snapshots", DECIMAL_SOURCES[source](), [1] * len(WRITTEN),
                 price=NumberFormat(scale=2))  # fmt: skip
    assert values(msgs, 270) == [b"1.50", b"2.00", b"0.00", b"0.00", b"1000.00", b"-2.68"]


def test_decimal_types_print_at_their_scale():
    arrow = pa.array([Decimal("1.5"), None, Decimal("-2.25")], pa.decimal128(9, 3))
    for px in (arrow, pd.Series(arrow, dtype=pd.ArrowDtype(arrow.type)), pl.from_arrow(arrow)):
        msgs = build("snapshots", px, [1, 2, 3])
        assert values(msgs, 270) == [b"1.500", b"-2.250"]
        msgs = build("snapshots", px, [1, 2, 3], price=NumberFormat(scale=1))
        assert values(msgs, 270) == [b"1.5", b"-2.3"]


def test_decimals_take_no_exponent_and_no_sentinel():
    with pytest.raises(TypeError, match=r"prices: .*carry their own exponent; leave price.exp"):
        build("snapshots", [Decimal("1.5")], [1], price=NumberFormat(-2, 2))
    with pytest.raises(TypeError, match=r"prices: .*carry their own exponent; leave price.exp"):
        build("snapshots", [Decimal("1.5")], [1], price=NumberFormat(-2))
    with pytest.raises(TypeError, match=r"sizes: size.null marks sentinel integer coeff"):
        build("snapshots", [1], ["1.5"], price=PRICE9, size=NumberFormat(null=0))


# ---------------------------------------------------------------------------------------
# Formatted columns take no format
# ---------------------------------------------------------------------------------------


def test_formatted_columns_take_no_format():
    px = vecfix.format_fixed([5000_25, 4999_75], -2, 2)
    sz = vecfix.format_fixed([3, 4], 0, 0)
    msgs = build("quotes", px, sz)
    assert values(msgs, 132) == [b"5000.25", b"4999.75"] and values(msgs, 135) == [b"3", b"4"]
    with pytest.raises(TypeError, match=r"^bid_px and offer_px are already formatted .*price="):
        build("quotes", px, sz, price=PRICE9)
    with pytest.raises(TypeError, match=r"^sizes is already formatted \(vecfix.Formatted\)"):
        build("snapshots", px, sz, size=NumberFormat(0, 0))
    # a format given for one formatted column and one not: used by the one it formats
    msgs = fix.quotes(["A", "B"], px, [5000_500000000, None], sz, sz, quote_ids=["a", "b"],
                      price=PRICE9, header=fix.Header("S", "T"), sending_time=WHEN)  # fmt: skip
    assert values(msgs, 133) == [b"5000.50"]


# ---------------------------------------------------------------------------------------
# The header
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("builder", BUILDERS)
def test_the_header_is_required_and_must_be_a_header(builder):
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'header'"):
        ids = {"quote_ids": ["q"]} if builder == "quotes" else {}
        getattr(fix, builder)(["A"], [1], [1], [1], [1], sending_time=WHEN, **ids)
    for wrong, says in (
        (None, r"^header is required: pass header=vecfix\.fix\.Header\(sender, target\)"),
        ("S", r"^header must be a vecfix\.fix\.Header, got str: pass header="),
        ({"sender": "S", "target": "T"}, r"^header must be a vecfix\.fix\.Header, got dict"),
    ):
        with pytest.raises(TypeError, match=says):
            build(builder, [1], [1], price=PRICE9, header=wrong)
    for old in ({"sender": "S", "target": "T"}, {"seq_start": 3}, {"begin_string": "FIX.4.2"}):
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            build(builder, [1], [1], price=PRICE9, **old)
