"""Where vecfix meets users' data (issue 15): each test is the snippet that went wrong.

Every expected text is worked out by hand (or by :func:`reference.reference_fixed`), never
taken from vecfix.
"""

from __future__ import annotations

import pickle
import sys
from decimal import Decimal

import numpy as np
import pytest
from reference import reference_fixed

import vecfix
from vecfix import RowError, RowTooLongError, format_fixed, iter_format, string_fixed

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

PRICES = [5000_250000000, 12_345678901, -4_000000, 7_000000000]
TEXTS = ["5000.25", "12.35", "0.00", "7.00"]  # PRICES * 1e-9 to 2 decimals, by hand


# --------------------------------------------------------------------- identity kept


def test_to_pandas_keeps_a_filtered_frames_index_and_name():
    df = pd.DataFrame({"bid_px": PRICES, "sym": list("abcd")})
    sub = df[df["bid_px"] > 0].copy()  # rows 0, 1 and 3
    sub["bid"] = vecfix.format_fixed(sub["bid_px"], -9, 2).to_pandas()
    assert sub["bid"].tolist() == ["5000.25", "12.35", "7.00"]
    out = vecfix.format_fixed(sub["bid_px"], -9, 2).to_pandas()
    assert out.index.tolist() == [0, 1, 3] and out.name == "bid_px"


def test_an_explicit_index_or_name_still_wins():
    s = pd.Series(PRICES[:2], index=[10, 20], name="bid_px")
    out = format_fixed(s, -9, 2).to_pandas(name="bid", index=pd.RangeIndex(2))
    assert out.index.tolist() == [0, 1] and out.name == "bid"
    assert out.tolist() == TEXTS[:2]


def test_per_row_scales_of_another_index_are_refused():
    """A scale Series whose index is not the coefficients' would pair rows by position:
    refused, naming the argument; the same index, or a NumPy array, pairs them as given."""
    import vecfix.pandas  # noqa: F401  (the accessor)

    df = pd.DataFrame({"px": PRICES, "dec": [2, 0, 1, 3]}, index=[40, 30, 20, 10])
    want = [reference_fixed(c, -9, s) for c, s in zip(PRICES, [2, 0, 1, 3], strict=True)]
    assert format_fixed(df["px"], -9, df["dec"]).to_list() == want
    assert df["px"].vecfix.fixed(-9, df["dec"]).tolist() == want  # the accessor
    shuffled = df["dec"].sort_index()  # the same labels in another order
    with pytest.raises(ValueError, match=r"scale is a pandas Series whose index.*\n.*reindex"):
        format_fixed(df["px"], -9, shuffled)
    with pytest.raises(ValueError, match=r"exponent is a pandas Series whose index"):
        format_fixed(df["px"], pd.Series([-9] * 4), 2)
    aligned = shuffled.reindex(df.index)
    assert format_fixed(df["px"], -9, aligned).to_list() == want
    assert format_fixed(df["px"], -9, df["dec"].to_numpy()).to_list() == want
    assert format_fixed(df["px"].to_numpy(), -9, shuffled).to_list() == [
        reference_fixed(c, -9, s) for c, s in zip(PRICES, [3, 1, 0, 2], strict=True)
    ]  # NumPy coefficients have no labels: by position, as given


def test_pandas_na_in_a_list_is_a_null_as_none_is():
    """A list built from pandas values may hold ``pd.NA``: a null row, like ``None``, for
    integers, decimal text and Decimals; in a list of scales it is a null scale: a null
    row (issue 39: it was refused)."""
    assert format_fixed([125, pd.NA, -5], -2, 1).to_list() == ["1.3", None, "-0.1"]
    assert format_fixed(["2.675", pd.NA], scale=2).to_list() == ["2.68", None]
    assert format_fixed([Decimal("2.675"), pd.NA, None], scale=2).to_list() == ["2.68", None, None]
    assert format_fixed(np.array([125, pd.NA], dtype=object), -2, 1).to_list() == ["1.3", None]
    assert format_fixed([pd.NA, pd.NA], -2, 1).to_list() == [None, None]
    assert format_fixed([125, 5], -2, [1, pd.NA]).to_list() == ["1.3", None]


def test_a_decimal_column_is_checked_as_arrays_are():
    """A DecimalColumn built by hand: float coefficients are refused (not truncated), and
    its valid must be bool, one row per coefficient (not broadcast from one row)."""
    col = vecfix.DecimalColumn(np.array([125, -5]), -2, np.array([True, False]))
    assert format_fixed(col, scale=1).to_list() == ["1.3", None]
    with pytest.raises(TypeError, match="coefficients must be integers, got a DecimalColumn"):
        format_fixed(vecfix.DecimalColumn(np.array([1.5, 5.0]), -2, None), scale=1)
    listed = vecfix.DecimalColumn([125, 5], -2, [True, False])  # lists: arrays of them
    assert format_fixed(listed, scale=1).to_list() == ["1.3", None]
    for valid in (np.array([False]), np.array([True, False, True]), np.array([1, 0])):
        with pytest.raises(ValueError, match="valid must be None or a bool array of one row"):
            format_fixed(vecfix.DecimalColumn(np.array([125, 5]), -2, valid), scale=1)


@pytest.mark.parametrize(
    "row, why",
    [
        (5.7, "float 5.7"),
        (np.float64(2.5), "float"),
        (Decimal("1.25"), "Decimal values"),
        (True, "bool"),
        ("5", "row 1 holds str '5'"),
        ("5.7", "row 1 holds str '5.7'"),
    ],
)
def test_a_decimal_column_of_python_objects_is_checked_row_by_row(row, why):
    """Object coefficients (Python ints, how a DecimalColumn holds ints beyond int64) are
    checked as an object array's are: a float, a Decimal, a bool or text among them is
    refused naming it (they went through int(): 5.7 printed as 0.05, Decimal("1.25") at
    exponent 0 as 1.00)."""
    col = vecfix.DecimalColumn(np.array([7, row], dtype=object), -2, None)
    with pytest.raises(TypeError, match=why):
        format_fixed(col, scale=2)


def test_a_decimal_column_of_python_ints_with_none_rows():
    big = 2**70
    col = vecfix.DecimalColumn(np.array([big, None, -3], dtype=object), -2, None)
    want = [reference_fixed(big, -2, 2), None, reference_fixed(-3, -2, 2)]
    assert format_fixed(col, scale=2).to_list() == want  # None: a null row, as anywhere
    masked = vecfix.DecimalColumn(
        np.array([big, 4, None], dtype=object), -2, np.array([1, 0, 1], bool)
    )
    assert format_fixed(masked, scale=2).to_list() == [reference_fixed(big, -2, 2), None, None]
    nulls = vecfix.DecimalColumn(np.array([None, None], dtype=object), -2, None)
    assert format_fixed(nulls, scale=2).to_list() == [None, None]


def test_identity_follows_slices_and_chunks():
    s = pd.Series(PRICES, index=[40, 30, 20, 10], name="px")
    out = format_fixed(s, -9, 2)
    assert out[1:3].to_pandas().index.tolist() == [30, 20]
    chunks = [c.to_pandas() for c in iter_format(s, -9, 2, chunksize=3)]
    assert [c.index.tolist() for c in chunks] == [[40, 30, 20], [10]]
    assert pd.concat(chunks).tolist() == TEXTS


def test_to_polars_keeps_the_series_name():
    df = pl.DataFrame({"bid_px": PRICES})
    df = df.with_columns(vecfix.format_fixed(df["bid_px"], -9, 2).to_polars())
    assert df.columns == ["bid_px"]  # replaced, not a new column ''
    assert df["bid_px"].to_list() == TEXTS
    assert format_fixed(df["bid_px"].cast(pl.String), scale=1).to_polars("x").name == "x"


def test_arrow_field_carries_the_name():
    out = format_fixed(pl.Series("ask", [125]), -2, 1)
    assert out.to_arrow_field().name == "ask"
    table = pa.Table.from_arrays([out.to_arrow()], schema=pa.schema([out.to_arrow_field()]))
    assert table.column("ask").to_pylist() == ["1.3"]


def test_plain_inputs_have_no_identity():
    out = format_fixed(np.array([125, -5]), -2, 1)
    assert out.to_pandas().index.tolist() == [0, 1] and out.to_pandas().name is None
    assert out.to_polars().name == ""


# ---------------------------------------------------------------------------- nulls


def test_masked_rows_are_null():
    out = format_fixed(np.ma.masked_array([125, 999, -5], mask=[0, 1, 0]), -2, 1)
    assert out.to_list() == ["1.3", None, "-0.1"]


def test_masked_text_and_decimal_rows_are_never_read():
    text = np.ma.masked_array(np.array(["1.25", "n/a"]), mask=[0, 1])
    assert format_fixed(text, scale=1).to_list() == ["1.3", None]
    chunks = iter_format(np.ma.masked_array([1, 2, 3], mask=[1, 0, 1]), 0, 0, chunksize=2)
    assert [c.to_list() for c in chunks] == [[None, "2"], [None]]


def test_sentinel_on_decimals_is_refused():
    with pytest.raises(TypeError, match="null= marks sentinel integer coefficients"):
        format_fixed([Decimal("1.5"), Decimal("2.5")], scale=1, null=15)


# ------------------------------------------------------------------- advice that fits


@pytest.mark.parametrize(
    "floats",
    [
        [1.005, 2.675],
        np.array([1.005, 2.675]),
        pd.Series([1.005, 2.675]),
        pd.Series([1.005, None], dtype="Float64"),
        pl.Series([1.005, 2.675]),
        pa.array([1.005, 2.675]),
    ],
    ids=["list", "numpy", "pandas", "pandas-Float64", "polars", "arrow"],
)
def test_floats_get_advice_about_floats(floats):
    with pytest.raises(TypeError) as info:
        format_fixed(floats, scale=2)
    message = str(info.value)
    assert "Floats cannot hold decimal prices exactly" in message
    assert "Decimal(repr(x))" in message
    assert "exponent is required" not in message


def test_ints_that_became_floats_for_their_nulls_are_told_so():
    px = pd.DataFrame({"px": [125, 130]}).reindex([0, 1, 2])["px"]  # float64: 125.0, 130.0, NaN
    with pytest.raises(TypeError, match=r"whole numbers and NaN\n.*astype\('Int64'\)"):
        format_fixed(px, -2, 1)
    assert format_fixed(px.astype("Int64"), -2, 1).to_list() == ["1.3", "1.3", None]


@pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")  # (int64 max: a value, then a null)
def test_a_categorical_of_ints_with_a_missing_row_is_formatted():
    """pandas makes int categories floats to hold a missing row in to_numpy(na_value=None):
    the categories are taken by their codes instead, ints as ints, the missing row null."""
    s = pd.Series(pd.Categorical([125, 2**63 - 1, None, 125]), index=[9, 8, 7, 6], name="px")
    want = [reference_fixed(c, -2, 1) for c in (125, 2**63 - 1)]
    out = format_fixed(s, -2, 1)
    assert out.to_list() == [want[0], want[1], None, want[0]]
    assert out.to_pandas().index.tolist() == [9, 8, 7, 6]
    assert format_fixed(s, -2, 1, null=2**63 - 1).to_list() == [want[0], None, None, want[0]]
    text = pd.Series(pd.Categorical(["1.25", None, "-5"]))
    assert format_fixed(text, scale=1).to_list() == ["1.3", None, "-5.0"]
    with pytest.raises(TypeError, match=r"row 0 holds float 1\.5"):  # float categories: refused
        format_fixed(pd.Series(pd.Categorical([1.5, None])), -2, 1)


def test_mixed_text_and_ints_name_the_odd_row():
    with pytest.raises(TypeError, match=r"mix decimal text with int: row 1 holds 2\nPass") as e:
        format_fixed(["1.5", 2], scale=1)
    assert (e.value.argument, e.value.row) == ("coefficients", 1)


@pytest.mark.parametrize(
    "exponents",
    [
        [None, -2],
        np.array([-2, None], dtype=object),
        pd.Series([-2, None], dtype="Int64"),
        pl.Series([-2, None]),
    ],
)
def test_exponents_with_nulls_are_null_rows(exponents):
    """A null exponent is a null row, as in the namespaces (issue 39: it was refused)."""
    want = [None, "0.02"] if next(iter(exponents)) is None else ["0.01", None]
    assert format_fixed([1, 2], exponents, 2).to_list() == want


def test_float_exponents_with_a_nan_say_so():
    """Floats are refused as exponents; a NaN among them is named as a null (pandas' null
    of a float column)."""
    with pytest.raises(TypeError, match=r"exponent must be integers; row \d is null") as e:
        format_fixed([1, 2], pd.Series([-2, None]), 2)
    assert "Floats" not in str(e.value) and e.value.argument == "exponent"
    assert "keep the exponent integers with their nulls (.astype('Int64'))" in str(e.value)


def test_a_null_where_every_row_needs_one_names_the_whole_word():
    from vecfix.columns.rules import null_in

    for argument in ("exponent", "scale"):  # (the plural's last letter was cut once)
        assert f"Every row needs its {argument} (" in str(null_in(argument, 3))


def test_float_exponents_are_not_told_about_prices():
    with pytest.raises(TypeError, match="Exponents count powers of ten") as e:
        format_fixed([1, 2], np.array([-2.0, -1.5]), 2)
    assert "prices" not in str(e.value)


@pytest.mark.parametrize("empty", [[], (), np.array([], dtype=object), pa.array([], pa.null())])
def test_an_empty_column_needs_only_scales(empty):
    out = format_fixed(empty, scale=2)
    assert len(out) == 0 and out.to_list() == []
    assert list(iter_format(empty, scale=2)) == []


# --------------------------------------------------------------- leaks and oddities


def test_a_coefficient_over_4300_digits_is_printed():
    big = 10**5000 + 1
    assert big.bit_length() > 4300 * 3  # beyond Python's int -> str limit
    assert format_fixed([big, 7], 0, 0).to_list() == ["1" + "0" * 4999 + "1", "7"]
    assert format_fixed([big], -5000, 2).to_list() == ["1.00"]
    assert string_fixed(-big, -4999, 1) == "-10.0"
    assert format_fixed([Decimal(big).scaleb(-4998)], scale=1).to_list() == ["100.0"]


def test_a_row_too_long_for_any_int_is_reported_without_printing_it():
    big = 10**70_000
    with pytest.raises(RowTooLongError, match="an integer of 70001 digits"):
        format_fixed([big], 0, 0)


def test_polars_int128_is_formatted():
    s = pl.Series("q", [10**30, None, -5], dtype=pl.Int128)
    expected = [reference_fixed(10**30, -2, 1), None, reference_fixed(-5, -2, 1)]
    assert format_fixed(s, -2, 1).to_list() == expected == ["1" + "0" * 28 + ".0", None, "-0.1"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (bytearray(b"1.5"), ["1.50"]),
        ([bytearray(b"1.5"), b"-2"], ["1.50", "-2.00"]),
        (memoryview(b"0.125"), ["0.13"]),
    ],
)
def test_bytes_like_values_are_decimal_text(value, expected):
    assert format_fixed(value, scale=2).to_list() == expected


def test_iter_format_leaves_the_users_text_alone():
    with pytest.raises(RowError) as info:
        list(iter_format(["1", "2", "3", "row 1"], scale=0, chunksize=2))
    assert info.value.row == 3
    assert str(info.value).startswith("coefficients row 3: 'row 1' is not decimal text")


@pytest.mark.parametrize(
    "values",
    [
        pl.Series([1, 2], dtype=pl.Date),
        pl.Series([[1], [2]]),
        pl.DataFrame({"a": [1]}),
        pa.array([1, 2], pa.timestamp("s")),
        pa.array([{"a": 1}]),
        pa.table({"a": [1]}),
        pd.Series([Decimal(1), 1.5], dtype=object),
        pd.Series(pd.Categorical(["1.5", "x"])),
        pd.Series(pd.to_datetime(["2024-01-01"])),
        pd.DataFrame({"a": [1]}),
    ],
    ids=lambda v: type(v).__name__,
)
def test_no_third_party_exception_leaks(values):
    with pytest.raises((TypeError, ValueError)) as info:
        format_fixed(values, 0, 2)
    assert type(info.value).__module__.partition(".")[0] in ("builtins", "vecfix")


# ----------------------------------------------------------------------- string_fixed


@pytest.mark.parametrize(
    ("value", "scale", "expected"),
    [(Decimal("2.675"), 2, "2.68"), ("-0.125", 2, "-0.13"), (b"1e3", 1, "1000.0")],
)
def test_string_fixed_takes_decimals_and_text(value, scale, expected):
    assert string_fixed(value, scale=scale) == expected
    assert format_fixed([value], scale=scale).to_list() == [expected]


def test_string_fixed_keeps_the_rules():
    with pytest.raises(TypeError, match="carries its own exponent"):
        string_fixed(Decimal("1.5"), -2, 2)
    with pytest.raises(TypeError, match="exponent is required"):
        string_fixed(15, scale=2)
    with pytest.raises(TypeError, match="\nA float cannot hold a decimal price exactly"):
        string_fixed(1.5, 0, 2)


# ------------------------------------------------------------------- errors as data


def test_row_errors_carry_the_argument_and_the_row():
    with pytest.raises(RowError) as info:
        format_fixed([1, 2, 3], [0, 0, 2**31], 0)
    assert (info.value.argument, info.value.row) == ("exponent", 2)
    with pytest.raises(RowTooLongError) as too_long:
        format_fixed([1, 2], 0, [1, 70_000])
    assert isinstance(too_long.value, RowError) and too_long.value.row == 1


def test_iter_format_shifts_the_row_of_every_kind_of_row_error():
    cases = [
        (["1", "2", "3", "x"], None, 0, ValueError),  # text
        ([1, 2, 3, 4.5], 0, 0, TypeError),  # a float among ints
        ([1, 2, 3, 4], [0, 0, 0, 2**31], 0, ValueError),  # exponent outside int32
        ([1, 2, 3, 4], 0, [0, 0, 0, 70_000], RowTooLongError),
    ]
    for coef, exps, scales, kind in cases:
        with pytest.raises(kind) as info:
            list(iter_format(coef, exps, scales, chunksize=3))
        assert isinstance(info.value, RowError) and info.value.row == 3
        assert "row 3" in str(info.value) and "row 0" not in str(info.value)


def test_row_errors_pickle_with_their_fields():
    error = RowError(": 'x' is not decimal text", argument="coefficients", row=5, lead="c ")
    back = pickle.loads(pickle.dumps(error.shifted(10)))
    assert (type(back), back.row, back.argument, str(back)) == (
        RowError,
        15,
        "coefficients",
        "c row 15: 'x' is not decimal text",
    )
    too_long = pickle.loads(pickle.dumps(RowTooLongError(" too long", row=1, argument="scales")))
    assert isinstance(too_long, RowTooLongError) and str(too_long) == "row 1 too long"


def test_row_too_long_error_without_a_row_is_its_message():
    assert str(RowTooLongError("plain")) == "plain" and RowTooLongError("plain").row is None


# ----------------------------------------------------------------------- namespaces


def test_polars_expression_namespace():
    import vecfix.polars  # noqa: F401

    df = pl.DataFrame({"bid_px": PRICES, "sym": list("abcd")})
    out = df.with_columns(pl.col("bid_px").vecfix.fixed(exponent=-9, scale=2))
    assert out.columns == ["bid_px", "sym"] and out["bid_px"].to_list() == TEXTS
    named = df.select(pl.col("bid_px").vecfix.fixed(-9, 2).alias("bid"))
    assert named["bid"].dtype == pl.String and named["bid"].to_list() == TEXTS
    assert df["bid_px"].vecfix.fixed(-9, 2).name == "bid_px"


@pytest.mark.parametrize("name", ["exponent", "scale"])
def test_the_polars_namespace_says_which_argument_is_not_a_column(name):
    """A per-row exponent or scale is a column's name or an expression; anything else
    (values, which a lazy query's batches could not line up with) is refused naming the
    argument. (An expression failed inside the query, naming neither.)"""
    import vecfix.polars  # noqa: F401

    args = {"exponent": -9, "scale": 2, name: [1, 2]}
    with pytest.raises(TypeError, match=f"^{name} must be an int, a column name or a polars"):
        pl.col("bid_px").vecfix.fixed(**args)


def test_pandas_series_accessor():
    import vecfix.pandas  # noqa: F401

    df = pd.DataFrame({"bid_px": PRICES}, index=[9, 8, 7, 6])
    sub = df[df["bid_px"] > 0].copy()
    sub["bid"] = sub["bid_px"].vecfix.fixed(-9, 2)
    assert sub["bid"].tolist() == ["5000.25", "12.35", "7.00"]
    out = df["bid_px"].vecfix.fixed(-9, 2)
    assert out.name == "bid_px" and out.index.tolist() == [9, 8, 7, 6]


def test_namespaces_are_registered_only_on_import():
    assert "vecfix.pandas" not in sys.modules or hasattr(pd.Series([1]), "vecfix")


def test_coefficients_left_as_none_are_refused():
    """``None`` as the whole argument is a forgotten argument, not one null row (as it was
    read); ``[None]`` is a null row."""
    for call in (
        lambda: format_fixed(None, -2, 2),
        lambda: format_fixed(None, -2, 2, layout="arrow"),
        lambda: list(iter_format(None, -2, 2)),
    ):
        with pytest.raises(TypeError, match=r"^coefficients is None: pass the values"):
            call()
    assert format_fixed([None], -2, 2).to_list() == [None]
