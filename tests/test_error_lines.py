"""Every error says what is wrong on its first line, in at most 200 characters, in the
words of the call the user made: the argument (``scale`` for the pandas accessor,
``price.exponent`` for a FIX builder, ``--exponent`` for ``vecfix format``), the row and the
value. Why, and what to do, follow on the lines after it (vecfix.columns.rules, Messages).

Each case below makes one error through the public API and names the words its first line
must hold (written here by hand, not taken from the code) and, for some, words that belong
to the details below it. The sample covers every module that raises: the input layer
(format_fixed, string_fixed, decimal_column, parse_decimal_text, iter_format,
write_formatted, NumberFormat, Formatted), the pandas accessor and the polars namespace,
the FIX builders and reader, vecfix.files and the command line, and vecfix.dask.
"""

from __future__ import annotations

import datetime
import decimal
import io
import pickle
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import vecfix
import vecfix._tuning
import vecfix.fix as fix
from vecfix import NumberFormat, RowError
from vecfix.columns.rules import show_value

D = decimal.Decimal
LONG = "7" * 5000  # a user's value far longer than a line


class Case(NamedTuple):
    call: Callable[[], Any]
    first: tuple[str, ...]  # words the first line holds: the argument first
    details: tuple[str, ...] = ()  # words of the lines below it (not of the first)


def header() -> fix.Header:
    return fix.Header("SENDER", "TARGET")


PRICE = NumberFormat(-2, 2)


# ---------------------------------------------------------------------------------------
# The input layer: format_fixed and its options
# ---------------------------------------------------------------------------------------

FORMAT_FIXED = {
    "float array": Case(
        lambda: vecfix.format_fixed(np.array([1.5]), -2, 2),
        ("coefficients", "float64"),
        ("Floats cannot hold decimal prices exactly", "Decimal(repr(x))"),
    ),
    "float row": Case(
        lambda: vecfix.format_fixed([1, 2.5], -2, 2),
        ("coefficients", "row 1", "2.5"),
        ("exponent=-9",),
    ),
    "bool row": Case(
        lambda: vecfix.format_fixed([1, True], -2, 2), ("coefficients", "row 1", "True")
    ),
    "bool array": Case(
        lambda: vecfix.format_fixed(np.array([True]), -2, 2), ("coefficients", "bool"), ("astype",)
    ),
    "datetime array": Case(
        lambda: vecfix.format_fixed(np.array(["2024-01-02"], dtype="M8[D]"), 0, 2),
        ("coefficients", "datetime64"),
    ),
    "text that is not decimal": Case(
        lambda: vecfix.format_fixed(["1.5", "1,5"], scale=2), ("coefficients", "row 1", "'1,5'")
    ),
    "a long text that is not decimal": Case(
        lambda: vecfix.format_fixed(["1.5", LONG + "x"], scale=2),
        ("coefficients", "row 1", "'7777", "not decimal text"),
    ),
    "NaN Decimal": Case(
        lambda: vecfix.format_fixed([D("1"), D("NaN")], scale=2),
        ("coefficients", "row 1", "Decimal('NaN')"),
        ("mark them null",),
    ),
    "object row": Case(
        lambda: vecfix.format_fixed([1, {i: i for i in range(1000)}], 0, 2),
        ("coefficients", "row 1", "dict {0: 0"),
    ),
    "ragged rows": Case(
        lambda: vecfix.format_fixed([[1, 2], [3]], 0, 2), ("coefficients", "array")
    ),
    "a row too long": Case(
        lambda: vecfix.format_fixed([5, 1], [0, 10**6], 2),
        ("row 1", "coefficient=1", "exponent=1000000", "MAX_ROW_LENGTH"),
        ("Check the exponent and scale",),
    ),
    "a huge coefficient too long": Case(
        lambda: vecfix.format_fixed([10**3000], 63_000, 2),
        ("row 0", "coefficient=<an integer of 3001 digits>"),
    ),
    "a row wider than width": Case(
        lambda: vecfix.format_fixed([1, 123456], 0, 2, width=4),
        ("row 1", "coefficient=123456", "width is 4"),
    ),
    "width not an int": Case(lambda: vecfix.format_fixed([1], 0, 2, width="3"), ("width", "'3'")),
    "width negative": Case(lambda: vecfix.format_fixed([1], 0, 2, width=-1), ("width", "-1")),
    "out not uint8": Case(lambda: vecfix.format_fixed([1], 0, 2, out=np.zeros((1, 4))), ("out",)),
    "out of other rows": Case(
        lambda: vecfix.format_fixed([1], 0, 2, out=np.zeros((3, 4), np.uint8)), ("out", "3 rows")
    ),
    "threads zero": Case(lambda: vecfix.format_fixed([1], 0, 2, threads=0), ("threads", "0")),
    "threads a long list": Case(
        lambda: vecfix.format_fixed([1], 0, 2, threads=list(range(10_000))), ("threads", "[0, 1")
    ),
    "layout unknown": Case(
        lambda: vecfix.format_fixed([1], 0, 2, layout="rows"), ("layout", "'rows'")
    ),
    "layout a long text": Case(lambda: vecfix.format_fixed([1], 0, 2, layout=LONG), ("layout",)),
    "layout with width": Case(
        lambda: vecfix.format_fixed([1], 0, 2, width=4, layout="arrow"), ('layout="arrow"', "width")
    ),
    "null not an int": Case(lambda: vecfix.format_fixed([1], 0, 2, null="x"), ("null", "'x'")),
    "null for text": Case(
        lambda: vecfix.format_fixed(["1"], scale=2, null=5),
        ("null=", "decimal text"),
        ("None, NA, null",),
    ),
    "an exponent for text": Case(
        lambda: vecfix.format_fixed(["1.5"], -2, 2),
        ("exponent=None", "decimal text", "own exponent"),
        ("scale=",),
    ),
    "no exponent": Case(
        lambda: vecfix.format_fixed([1], scale=2), ("exponent", "required"), ("PRICE9",)
    ),
    "no scale": Case(lambda: vecfix.format_fixed([1], 0), ("scale", "required")),
    "float exponent row": Case(
        lambda: vecfix.format_fixed([1, 2], [0, 1.5], 2), ("exponent must", "row 1", "1.5")
    ),
    "scale beyond int32": Case(
        lambda: vecfix.format_fixed([1, 2], 0, [1, 2**40]), ("scale must", "row 1", "1099511627776")
    ),
    "lengths that do not broadcast": Case(
        lambda: vecfix.format_fixed([1, 2], [0, 0, 0], 2), ("coefficients", "exponent of length 3")
    ),
    "two dimensions": Case(
        lambda: vecfix.format_fixed(np.ones((2, 2), np.int64), 0, 2),
        ("coefficients", "(2, 2)"),
        ("ravel",),
    ),
    "None": Case(lambda: vecfix.format_fixed(None, 0, 2), ("coefficients is None",)),
}


def _wide_matrix() -> None:
    n = 2000
    exps = np.full(n, -2, dtype=np.int32)
    exps[1234] = 3000
    vecfix.format_fixed(np.arange(n, dtype=np.int64), exps, 2)


def _arrow_layout_matrix() -> None:
    exps = np.full(80, -2, dtype=np.int32)
    exps[26] = 3000
    vecfix.format_fixed(np.arange(80), exps, 2, layout="arrow").matrix  # noqa: B018


WIDE = {  # (with the limits made small: see the fixture below)
    "a few wide rows": Case(
        _wide_matrix,
        ("row 1234", "coefficient=1234", "exponent=3000", "GiB"),
        ("string_fixed", "width="),
    ),
    "the matrix of Arrow's layout": Case(
        _arrow_layout_matrix, ("Formatted.matrix", "row 26", "GiB"), ("to_arrow()",)
    ),
}

# ---------------------------------------------------------------------------------------
# The other calls of the input layer
# ---------------------------------------------------------------------------------------


def _write_formatted_to_text() -> None:
    vecfix.write_formatted(io.StringIO(), [1], 0, 0)


SCALAR_AND_FRIENDS = {
    "string_fixed float": Case(
        lambda: vecfix.string_fixed(1.005, -3, 2),
        ("coefficient", "float 1.005"),
        ("Decimal(repr(x))", "string_fixed(1005, -3, 2)"),
    ),
    "string_fixed text with an exponent": Case(
        lambda: vecfix.string_fixed("1.5", -2, 2),
        ("coefficient", "'1.5'", "exponent=-2"),
        ("string_fixed('1.5', scale=2)",),
    ),
    "string_fixed a long text with an exponent": Case(
        lambda: vecfix.string_fixed(LONG, -2, 2), ("coefficient", "'7777", "exponent=-2")
    ),
    "string_fixed text that is not decimal": Case(
        lambda: vecfix.string_fixed("1,5", scale=2), ("coefficient", "'1,5'")
    ),
    "string_fixed no scale": Case(lambda: vecfix.string_fixed(1, 0), ("scale", "required")),
    "string_fixed no exponent": Case(lambda: vecfix.string_fixed(1, scale=2), ("exponent",)),
    "string_fixed too long": Case(
        lambda: vecfix.string_fixed(1, 10**7, 2), ("coefficient=1", "exponent=10000000")
    ),
    "string_fixed a list": Case(
        lambda: vecfix.string_fixed([1] * 1000, 0, 2), ("coefficient", "list")
    ),
    "decimal_column float": Case(
        lambda: vecfix.decimal_column([1.5]), ("values", "row 0", "1.5"), ("Decimal(repr(x))",)
    ),
    "decimal_column NaN": Case(
        lambda: vecfix.decimal_column([D("1"), D("nan")]), ("values", "row 1", "Decimal('NaN')")
    ),
    "parse_decimal_text not decimal": Case(
        lambda: vecfix.parse_decimal_text(["1", "abc"]), ("texts", "row 1", "'abc'")
    ),
    "parse_decimal_text an int": Case(
        lambda: vecfix.parse_decimal_text(["1", 2]), ("texts", "row 1", "2")
    ),
    "parse_decimal_text integers": Case(
        lambda: vecfix.parse_decimal_text(np.arange(3)), ("texts", "ndarray")
    ),
    "iter_format an unknown keyword": Case(
        lambda: list(vecfix.iter_format([1], 0, 2, widht=3)), ("iter_format()", "'widht'")
    ),
    "iter_format chunksize": Case(
        lambda: list(vecfix.iter_format([1], 0, 2, chunksize=0)), ("chunksize", "0")
    ),
    "iter_format a float in a later chunk": Case(
        lambda: list(vecfix.iter_format([1, 2, 3.5], 0, 2, chunksize=2)),
        ("coefficients", "row 2", "3.5"),
    ),
    "iter_format an iterator with per-row exponents": Case(
        lambda: list(vecfix.iter_format(iter([1, 2]), [0, 1], 2)),
        ("coefficients is an iterator", "exponent"),
    ),
    "write_formatted to a text stream": Case(
        _write_formatted_to_text, ("file", "StringIO"), ('"wb"',)
    ),
    "write_formatted sep as text": Case(
        lambda: vecfix.write_formatted(io.BytesIO(), [1], 0, 0, sep=LONG), ("sep", "str", "'7777")
    ),
    "NumberFormat float exponent": Case(lambda: NumberFormat(1.5, 2), ("exponent", "1.5")),
    "NumberFormat scale beyond int32": Case(
        lambda: NumberFormat(0, 2**40), ("scale", "1099511627776")
    ),
    "NumberFormat null": Case(lambda: NumberFormat(0, 2, null=[1, 1.5]), ("null", "1.5")),
    "NumberFormat empty name": Case(lambda: NumberFormat("", 2), ("exponent",)),
    "Formatted key": Case(
        lambda: vecfix.format_fixed([1], 0, 0)[LONG], ("Formatted is indexed", "str", "'7777")
    ),
    "Formatted.rjust narrow": Case(
        lambda: vecfix.format_fixed([123456], 0, 2).rjust(3), ("row 0", "'123456.00'", "width is 3")
    ),
}

# ---------------------------------------------------------------------------------------
# pandas and polars
# ---------------------------------------------------------------------------------------


def _pandas(make: Callable[[Any], Any]) -> Callable[[], Any]:
    def call() -> Any:
        pd = pytest.importorskip("pandas")
        import vecfix.pandas  # noqa: F401

        return make(pd)

    return call


def _polars(make: Callable[[Any, Any], Any]) -> Callable[[], Any]:
    def call() -> Any:
        pl = pytest.importorskip("polars")
        import vecfix.polars  # noqa: F401

        frame = pl.DataFrame({"px": [1.5], "i": [1], "t": ["1,5"]})
        return make(pl, frame)

    return call


NAMESPACES = {
    "accessor floats": Case(
        _pandas(lambda pd: pd.Series([1.5]).vecfix.fixed(-2, 2)), ("float64",), ("exponent=-9",)
    ),
    "accessor ints that became floats": Case(
        _pandas(lambda pd: pd.Series([1, None]).vecfix.fixed(-2, 2)),
        ("float64", "NaN"),
        (".astype('Int64')",),
    ),
    "accessor no scale": Case(_pandas(lambda pd: pd.Series([1]).vecfix.fixed(-9)), ("scale",)),
    "accessor no exponent": Case(
        _pandas(lambda pd: pd.Series([1]).vecfix.fixed(scale=2)),
        ("exponent", "required"),
        ("exponent=-9",),
    ),
    "accessor a name as scale": Case(
        _pandas(lambda pd: pd.Series([1]).vecfix.fixed(0, "x")), ("fixed", "scale", "'x'")
    ),
    "accessor an exponent of another index": Case(
        _pandas(
            lambda pd: pd.Series([1, 2], index=[0, 1]).vecfix.fixed(
                pd.Series([0, 0], index=[5, 6]), 2
            )
        ),
        ("exponent", "index"),
        ("reindex",),
    ),
    "accessor a format and an exponent": Case(
        _pandas(lambda pd: pd.Series([1]).vecfix.fixed(0, 2, format=PRICE)),
        ("fixed", "exponent=0"),
    ),
    "accessor a row of bad text": Case(
        _pandas(lambda pd: pd.Series(["1", "x"], name="px").vecfix.fixed(scale=2)),
        ("column 'px'", "row 1", "'x'"),
    ),
    "namespace floats": Case(
        _polars(lambda pl, df: df.select(pl.col("px").vecfix.fixed(-2, 2))),
        ("column 'px'", "Float64"),
        ("exponent=-9",),
    ),
    "namespace no scale": Case(
        _polars(lambda pl, df: df.select(pl.col("i").vecfix.fixed(-2))), ("column 'i'", "scale")
    ),
    "namespace no exponent": Case(
        _polars(lambda pl, df: df.select(pl.col("i").vecfix.fixed(scale=2))),
        ("column 'i'", "exponent", "required"),
    ),
    "namespace a row of bad text": Case(
        _polars(lambda pl, df: df.select(pl.col("t").vecfix.fixed(scale=2))),
        ("column 't'", "row 0", "'1,5'"),
    ),
    "namespace values as exponent": Case(
        _polars(lambda pl, df: df.select(pl.col("i").vecfix.fixed([1], 2))), ("exponent", "list")
    ),
    "Series namespace floats": Case(
        _polars(lambda pl, df: df["px"].vecfix.fixed(-2, 2)), ("column 'px'", "Float64")
    ),
    "Series namespace a name as scale": Case(
        _polars(lambda pl, df: df["i"].vecfix.fixed(0, "dp")), ("fixed", "scale", "'dp'")
    ),
}

# ---------------------------------------------------------------------------------------
# FIX: the builders and the reader
# ---------------------------------------------------------------------------------------


def _snapshot(**kw: Any) -> Any:
    args = {"symbols": ["ESZ4"], "entry_counts": [1], "entry_types": ["0"], "prices": [125],
            "sizes": [7], "price": PRICE, "header": header()}  # fmt: skip
    args.update(kw)
    return fix.snapshots(**args)


def _quotes_of_two_indexes() -> Any:
    pd = pytest.importorskip("pandas")
    cols = [pd.Series(v, index=i) for v, i in ((["A"], [0]), ([1], [0]), ([1], [5]))]
    return fix.quotes(*cols, [1], [1], quote_ids=["q"], price=PRICE, header=header())


def _message() -> bytes:
    return _snapshot(sending_time="20240102-03:04:05.678")[0]


FIX = {
    "no header": Case(lambda: _snapshot(header=None), ("header", "required")),
    "a header of another type": Case(lambda: _snapshot(header={"sender": "S"}), ("header", "dict")),
    "no price format": Case(
        lambda: _snapshot(price=None), ("prices", "price=", "NumberFormat(-9, 2)")
    ),
    "a price format that names a column": Case(
        lambda: _snapshot(price=NumberFormat(-2, "tick")), ("price.scale", "'tick'"), ("values",)
    ),
    "a price format of another type": Case(lambda: _snapshot(price=LONG), ("price", "str")),
    "a size format without its scale": Case(
        lambda: _snapshot(size=NumberFormat(-8)), ("sizes", "size.scale", "NumberFormat(-8,")
    ),
    "float prices": Case(
        lambda: _snapshot(prices=[1.5]),
        ("prices", "row 0", "1.5"),
        ("price.exponent=-9",),
    ),
    "text prices with an exponent": Case(
        lambda: _snapshot(prices=["1.5"]), ("prices", "price.exponent", "own exponent")
    ),
    "a symbol holding SOH": Case(
        lambda: _snapshot(symbols=[LONG + "\x01"]), ("symbols[0]", "'7777", "SOH")
    ),
    "entry types of the wrong count": Case(
        lambda: _snapshot(entry_counts=[2], prices=[1, 2], sizes=[1, 2]), ("entry_types", "(1,)")
    ),
    "fields tag": Case(lambda: fix.fields(-1, ["1"]), ("tag", "-1")),
    "fields tag text": Case(lambda: fix.fields(LONG, ["1"]), ("tag", "str", "'7777")),
    "a quote without a price": Case(
        lambda: fix.quotes(
            ["A"], [None], [None], [1], [1], quote_ids=["q"], price=PRICE, header=header()
        ),
        ("quote 0", "bid_px", "offer_px"),
    ),
    "pandas columns of two indexes": Case(
        _quotes_of_two_indexes, ("offer_px", "index"), ("reindex", "to_numpy()")
    ),
    "mass_quotes max_entries": Case(
        lambda: fix.mass_quotes(
            ["A"], [1], [1], [1], [1], max_entries=0, price=PRICE, header=header()
        ),
        ("max_entries", "0"),
    ),
    "mass_quotes a set that comes back": Case(
        lambda: fix.mass_quotes(
            ["A", "B", "C"],
            *[[1] * 3] * 4,
            quote_set_ids=["a", "b", "a"],
            price=PRICE,
            header=header(),
        ),
        ("quote_set_ids[2]", "'a'"),
        ("consecutive",),
    ),
    "incremental position_nos": Case(
        lambda: fix.incremental(
            ["0"], ["0"], ["A"], [1], [1], position_nos=[0], price=PRICE, header=header()
        ),
        ("position_nos[0]", "0"),
    ),
    "sending_time naive": Case(
        lambda: fix.sending_time([datetime.datetime(2024, 1, 2)]),
        ("sending_time[0]", "naive"),
        ("timezone.utc",),
    ),
    "sending_time not a timestamp": Case(
        lambda: fix.sending_time([LONG]), ("sending_time[0]", "'7777", "UTC timestamp")
    ),
    "Header sender": Case(lambda: fix.Header("", "T"), ("sender",)),
    "Header next_seq": Case(lambda: fix.Header("S", "T", next_seq=0), ("next_seq", "0")),
    "Header precision": Case(lambda: fix.Header("S", "T", precision=LONG), ("precision", "'7777")),
    "read strict, a bad CheckSum": Case(
        lambda: fix.read(_message().replace(b"10=", b"10=9"), strict=True),
        ("message 0", "CheckSum"),
        ("strict=False",),
    ),
    "read strict, junk after the messages": Case(
        lambda: fix.read(_message() + b"junk" * 100, strict=True),
        ("the last 400 bytes", "'junk"),
        ("strict=False",),
    ),
    "read tags": Case(lambda: fix.read(b"", tags=[LONG + "x"]), ("tags", "'7777")),
    "read types": Case(lambda: fix.read(b"", types={270: LONG}), ("types[270]", "'7777")),
    "read source": Case(lambda: fix.read(12), ("source", "int")),
}

# ---------------------------------------------------------------------------------------
# vecfix.files and the command line; vecfix.dask
# ---------------------------------------------------------------------------------------


@pytest.fixture
def parquet(tmp_path) -> str:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    names = {f"column_{i:03d}_with_a_long_name": [i] for i in range(60)}
    table = pa.table({"px": [125, 130], "ratio": [0.5, 1.5], "qty": ["1.5", "x"],
                      **{k: v * 2 for k, v in names.items()}})  # fmt: skip
    pq.write_table(table, tmp_path / "in.parquet")
    return str(tmp_path / "in.parquet")


def _format_file(column: str, fmt: NumberFormat, **kw: Any) -> Callable[[str], Any]:
    def call(path: str) -> Any:
        pytest.importorskip("polars")
        from vecfix.files import ColumnSpec, format_file

        return format_file(path, path + ".csv", [ColumnSpec(column, fmt)], **kw)

    return call


FILES = {  # (called with the path of the fixture's Parquet file)
    "an unknown column among many": Case(
        _format_file("pxx", NumberFormat(scale=2)), ("'pxx'", "did you mean 'px'"), ("qty",)
    ),
    "integers without an exponent": Case(
        _format_file("px", NumberFormat(scale=2)), ("column 'px'", "--exponent", "required")
    ),
    "floats": Case(_format_file("ratio", NumberFormat(-2, 2)), ("column 'ratio'", "Float64")),
    "a row of bad text": Case(
        _format_file("qty", NumberFormat(scale=2)), ("column 'qty'", "row 1", "'x'")
    ),
    "csv quoting": Case(
        _format_file("px", NumberFormat(-2, 2), csv_quoting=LONG), ("csv quoting", "'7777")
    ),
}


def _dask(make: Callable[[Any, Any], Any]) -> Callable[[], Any]:
    def call() -> Any:
        pd = pytest.importorskip("pandas")
        dd = pytest.importorskip("dask.dataframe")
        vd = pytest.importorskip("vecfix.dask")
        frame = pd.DataFrame({"px": [125, 130, 135, 140], "ratio": [0.5, 1.5, 2.0, 2.5],
                              "text": ["1.5", "2.5", "3.5", "x.5"],
                              **{f"c{i:03d}_long_column_name": [i] * 4 for i in range(60)}},
                             index=[10, 11, 12, 13])  # fmt: skip
        return make(vd, dd.from_pandas(frame, npartitions=2))

    return call


DASK = {
    "a column that is not there": Case(
        _dask(lambda vd, ddf: vd.format_columns(ddf, {"pxx": PRICE})), ("columns", "'pxx'")
    ),
    "floats": Case(
        _dask(lambda vd, ddf: vd.format_columns(ddf, {"ratio": PRICE})), ("columns['ratio']",)
    ),
    "integers without an exponent": Case(
        _dask(lambda vd, ddf: vd.format_columns(ddf, {"px": NumberFormat(scale=2)})),
        ("columns['px']", "exponent", "required"),
    ),
    "a row of bad text, met in a partition": Case(
        _dask(
            lambda vd, ddf: vd.format_columns(ddf, {"text": NumberFormat(scale=1)}).compute(
                scheduler="sync"
            )
        ),
        ("partition 1", "index 13", "column 'text'", "row 1", "'x.5'"),
    ),
    "FIX snapshots without a price format": Case(
        _dask(
            lambda vd, ddf: vd.write_fix_snapshots(
                ddf,
                "unused",
                symbol="text",
                entry_type="px",
                price="px",
                size="px",
                header=header(),
                sending_time="20240102-03:04:05.678",
                scheduler="sync",
            )
        ),
        ("price", "price_format=", "NumberFormat(-9, 2)"),
    ),
}

ALL = {
    **{f"format_fixed: {k}": v for k, v in FORMAT_FIXED.items()},
    **{f"inputs: {k}": v for k, v in SCALAR_AND_FRIENDS.items()},
    **{f"namespaces: {k}": v for k, v in NAMESPACES.items()},
    **{f"fix: {k}": v for k, v in FIX.items()},
    **{f"dask: {k}": v for k, v in DASK.items()},
}


def message_of(call: Callable[[], Any]) -> str:
    with pytest.raises(Exception) as info:  # (of every kind: each case says which)
        call()
    exc = info.value
    assert not isinstance(exc, (AssertionError, AttributeError, NameError)), exc  # (a slip here)
    return str(exc.args[0]) if isinstance(exc, KeyError) else str(exc)


def check(text: str, case: Case) -> None:
    first, _, rest = text.partition("\n")
    assert len(first) <= 200, f"{len(first)} characters: {first!r}"
    assert first.strip() == first and first, text
    for word in case.first:
        assert word in first, f"{word!r} not in the first line {first!r}"
    for word in case.details:
        assert word in rest and word not in first, f"{word!r} not in the details of {text!r}"


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_first_line_says_what_is_wrong_in_200_characters(name):
    check(message_of(ALL[name].call), ALL[name])


@pytest.mark.parametrize("name", sorted(WIDE))
def test_a_wide_matrix_refused_says_so_in_one_line(name, monkeypatch):
    monkeypatch.setattr(vecfix._tuning, "WIDE_MATRIX_BYTES", 1_000)
    check(message_of(WIDE[name].call), WIDE[name])


@pytest.mark.parametrize("name", sorted(FILES))
def test_vecfix_files_first_line(name, parquet):
    check(message_of(lambda: FILES[name].call(parquet)), FILES[name])


# ---------------------------------------------------------------------------------------
# The command line: the first line, then the details indented
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "status", "first", "details"),
    [
        (["--column", "pxx", "--scale", "2"], 1, ["'pxx'", "did you mean 'px'"], ["qty"]),
        (["--column", "px", "--scale", "2"], 1, ["column 'px'", "--exponent", "required"],
         ["--exponent -9"]),
        (["--column", "qty", "--exponent", "-2", "--scale", "2"], 1,
         ["column 'qty'", "own exponent", "leave out --exponent"], []),
        (["--columns", "px"], 2, ["unrecognized arguments: --columns px", "did you mean --column?"],
         ["usage: vecfix format INPUT -o OUTPUT"]),
        (["--column", "px", "--scale", "two"], 2, ["--scale", "'two'"], ["usage: vecfix format"]),
    ],
)  # fmt: skip
def test_the_command_line_prints_the_first_line_then_the_details(
    argv, status, first, details, parquet, capsys
):
    pytest.importorskip("polars")
    from vecfix.cli import main

    try:
        got = main(["format", parquet, "-o", parquet + ".csv", *argv])
    except SystemExit as exc:  # argparse's errors
        got = exc.code
    assert got == status
    head, *rest = capsys.readouterr().err.splitlines()
    assert head.startswith("vecfix format: error: ") and len(head) <= 200, head
    assert all(line.startswith("  ") and line.strip() for line in rest), rest
    for word in first:
        assert word in head, (word, head)
    for word in details:
        assert any(word in line for line in rest), (word, rest)


# ---------------------------------------------------------------------------------------
# RowError: its fields, with details after the first line
# ---------------------------------------------------------------------------------------


def test_a_row_error_keeps_its_fields_and_its_first_line():
    with pytest.raises(RowError) as info:
        list(vecfix.iter_format([1, 2, 3.5], 0, 2, chunksize=2))
    exc = info.value
    assert isinstance(exc, TypeError) and exc.argument == "coefficients" and exc.row == 2
    first, _, details = str(exc).partition("\n")
    assert first == "coefficients must be integers; row 2 holds float 3.5"
    assert "Floats cannot hold decimal prices exactly" in details
    assert str(exc) == f"{exc.lead}row {exc.row}{exc.detail}"
    back = pickle.loads(pickle.dumps(exc))  # (as dask's workers send it)
    assert type(back) is type(exc) and str(back) == str(exc)
    assert (back.argument, back.row, back.lead, back.detail) == (
        exc.argument, exc.row, exc.lead, exc.detail,
    )  # fmt: skip
    later = exc.shifted(1000)
    assert later.row == 1002 and str(later).partition("\n") == (
        "coefficients must be integers; row 1002 holds float 3.5", "\n", details,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------
# show_value: the user's values on a first line
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["1.5", b"1.5", 7, -(2**63), 1.5, None, D("2.675"), ("a", 1), [1, 2, 3], {"k": 1}],
)
def test_show_value_is_repr_for_short_values(value):
    assert show_value(value) == repr(value)


@pytest.mark.parametrize(
    "value",
    [LONG, LONG.encode(), list(range(10_000)), np.arange(10_000).reshape(100, 100),
     {i: "x" * 100 for i in range(100)}, 10**5000, -(10**50), "a\nb" * 100],
    ids=lambda value: type(value).__name__,
)  # fmt: skip
def test_show_value_is_one_short_line_for_long_values(value):
    text = show_value(value)
    assert len(text) <= 60 and "\n" not in text and ("..." in text or "digits>" in text), text
    assert len(show_value(value, 40)) <= 40
