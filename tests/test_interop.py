"""Inputs from Arrow, pandas, polars, ``Decimal`` and decimal text; outputs to each of them.

Expected text comes from the golden vectors (tests/data/*.tsv.gz, written by Go's
shopspring/decimal) or, where a test builds its own values, from Python's ``decimal``
quantize in the test. Input columns are built from the vectors' (coefficient, exponent)
pairs by hand (text by string surgery, Arrow storage by two's complement limbs), never by
vecfix.
"""

from __future__ import annotations

import decimal
import gzip
import io
import re
import sys
from collections import defaultdict
from decimal import Decimal
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from vecfix import DecimalColumn, RowError, decimal_column, format_fixed, parse_decimal_text

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

DATA = Path(__file__).parent / "data"
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


# ------------------------------------------------------------------------- helpers


@cache
def vectors(name: str, step: int = 1) -> tuple[tuple[int, int, int, str], ...]:
    """Rows ``(coef, exp, scale, expected)`` of a golden file, every ``step``-th one."""
    with gzip.open(DATA / f"{name}.tsv.gz", "rt") as f:
        next(f)
        rows = []
        for k, line in enumerate(f):
            if k % step == 0:
                c, e, s, x = line.rstrip("\n").split("\t")
                rows.append((int(c), int(e), int(s), x))
    return tuple(rows)


def golden(step_grid: int = 17) -> list[tuple[int, int, int, str]]:
    """A mix of every golden file: samples of the prices, the grid and big coefficients."""
    return [*vectors("prices", 8), *vectors("grid", step_grid), *vectors("big", 8)]


def plain_text(c: int, e: int) -> str:
    """``c * 10**e`` as positional text, built by string surgery (no decimal module)."""
    sign, digits = ("-" if c < 0 else ""), str(abs(c))
    if e >= 0:
        return sign + digits + "0" * e
    digits = digits.rjust(-e + 1, "0")
    return f"{sign}{digits[:e]}.{digits[e:]}"


def exp_text(c: int, e: int) -> str:
    """``c * 10**e`` in exponent notation, as ``"123e-4"``."""
    return f"{c}e{e}" if e % 2 else f"{c}E+{e}" if e > 0 else f"{c}E{e}"


def as_decimal(c: int, e: int) -> Decimal:
    """The exact Decimal ``c * 10**e`` (tuple constructor: no context rounding)."""
    return Decimal((int(c < 0), tuple(map(int, str(abs(c)))), e))


def limbs(values: list[int], width: int) -> bytes:
    """Little-endian two's complement storage of ``values``, ``width`` bytes each."""
    mod = 1 << (8 * width)
    return b"".join((v % mod).to_bytes(width, "little") for v in values)


def arrow_decimal(coefs, exp, kind="decimal128", precision=None, valid=None):
    """An Arrow decimal array built directly from its storage buffers."""
    width = {"decimal32": 4, "decimal64": 8, "decimal128": 16, "decimal256": 32}[kind]
    precision = precision or {4: 9, 8: 18, 16: 38, 32: 76}[width]
    typ = getattr(pa, kind)(precision, -exp)
    bitmap = None
    if valid is not None:
        bitmap = pa.py_buffer(np.packbits(np.asarray(valid, bool), bitorder="little"))
    coefs = [c if valid is None or valid[i] else 0 for i, c in enumerate(coefs)]
    return pa.Array.from_buffers(typ, len(coefs), [bitmap, pa.py_buffer(limbs(coefs, width))])


def by_exponent(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[r[1]].append(r)
    return groups


def check(out, rows):
    """``out`` (a Formatted) matches the golden ``expected`` column of ``rows``."""
    got = out.to_list()
    want = [r[3] for r in rows]
    bad = [i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
    assert not bad, [(rows[i][:3], got[i], want[i]) for i in bad[:5]]


def scales_of(rows) -> np.ndarray:
    return np.array([r[2] for r in rows], dtype=np.int32)


# ------------------------------------------------------------------ the test helpers


def test_helpers_build_what_they_claim():
    # The builders above must agree with pyarrow and decimal, or every test below is moot.
    assert plain_text(-125, -5) == "-0.00125" and plain_text(5, 3) == "5000"
    assert plain_text(123000123, -6) == "123.000123" and plain_text(0, -2) == "0.00"
    for c, e in [(-125, -5), (5, 3), (2**70, -30), (INT64_MIN, -9)]:
        assert Decimal(plain_text(c, e)) == Decimal(exp_text(c, e)) == as_decimal(c, e)
    arr = arrow_decimal([12345, -(2**100), 7], -3, valid=[1, 1, 0])
    assert arr.to_pylist() == [Decimal("12.345"), as_decimal(-(2**100), -3), None]
    assert arrow_decimal([-5], 2, "decimal64").to_pylist() == [Decimal("-5E+2")]


# ------------------------------------------------------------------------ Decimal


@pytest.mark.golden_full
def test_decimal_sequences_match_golden_vectors():
    rows = golden()
    values = [as_decimal(c, e) for c, e, _, _ in rows]
    check(format_fixed(values, scale=scales_of(rows)), rows)
    check(format_fixed(tuple(values), scale=scales_of(rows)), rows)
    check(format_fixed(np.array(values, dtype=object), scale=scales_of(rows)), rows)


def test_decimal_coefficients_and_exponents_are_exact():
    values = [Decimal("1.500"), Decimal("-0E-7"), Decimal("12E+3"), as_decimal(-(10**30), -2)]
    col = decimal_column(values)
    assert col.coefficients.tolist() == [1500, 0, 12, -(10**30)]
    assert col.exponents.tolist() == [-3, -7, 3, -2]
    assert col.valid is None


@pytest.mark.parametrize("scalar", ["1.50", b"1.50", Decimal("1.50"), None, 150])
def test_decimal_column_of_a_scalar_is_one_row(scalar):
    """A scalar is a column of one row: the coefficients, and the exponents and validity
    where they are arrays, all have shape (1,), as DecimalColumn documents, and agree
    with the same value given in a list."""
    col, listed = decimal_column(scalar), decimal_column([scalar])
    for got, want in zip(col, listed, strict=True):
        if isinstance(want, np.ndarray):
            assert isinstance(got, np.ndarray) and got.shape == want.shape == (1,)
            assert got.tolist() == want.tolist()
        else:
            assert got == want


@pytest.mark.parametrize("bad", ["NaN", "-NaN", "sNaN", "Infinity", "-Infinity"])
def test_decimal_nan_and_infinity_are_refused_with_the_row(bad):
    with pytest.raises(ValueError, match=rf"row 2 is Decimal\('{bad}'\)"):
        format_fixed([Decimal(1), Decimal(2), Decimal(bad)], scale=2)


@pytest.mark.parametrize("bad", ["NaN", "-NaN", "sNaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize(
    "container",
    [
        lambda v: pd.Series(v, dtype=object),
        lambda v: pd.Series(v, dtype=object, index=range(40, 40 - 10 * len(v), -10)),
        lambda v: pd.Index(v, dtype=object),
    ],
    ids=["Series", "Series with an index", "Index"],
)
def test_decimal_nan_in_a_pandas_object_column_is_refused_not_null(bad, container):
    # pandas' isna counts Decimal('NaN') as missing (and signals on sNaN): a NaN value is
    # refused with its row, as in a list, never printed as a null
    with pytest.raises(ValueError, match=rf"row 2 is Decimal\('{bad}'\)"):
        format_fixed(container([Decimal(1), Decimal(2), Decimal(bad)]), scale=2)
    # pandas' own missing markers in an object column stay nulls
    markers = container([Decimal("1.5"), None, float("nan"), pd.NA])
    assert format_fixed(markers, scale=1).to_list() == ["1.5", None, None, None]


def test_decimal_mixed_with_other_types_is_refused():
    with pytest.raises(TypeError, match=r"row 1 holds 5"):
        format_fixed([Decimal(1), 5], scale=2)
    with pytest.raises(
        TypeError, match=r"row 1 holds float 1.5\nFloats cannot hold decimal prices exactly"
    ):
        format_fixed([Decimal(1), 1.5], scale=2)


def test_decimal_exponent_beyond_int32_is_refused():
    with pytest.raises(ValueError, match=r"row 0: '1E\+3000000000' has an exponent outside"):
        format_fixed([Decimal("1E+3000000000")], scale=0)


def test_exponent_carrying_data_refuses_explicit_exponents():
    for values in (
        [Decimal("1.5")],
        ["1.5"],
        np.array([b"1.5"]),
        arrow_decimal([15], -1),
        decimal_column([Decimal("1.5")]),
    ):
        with pytest.raises(TypeError, match="carry their own exponent"):
            format_fixed(values, -1, 2)


def test_plain_integers_still_need_exponents():
    for values in ([1, 2], np.array([1]), pa.array([1, 2]), pd.Series([1]), pl.Series([1])):
        with pytest.raises(TypeError, match="exponent is required"):
            format_fixed(values, scale=2)


# ------------------------------------------------------------------- decimal text


@pytest.mark.golden_full
def test_text_plain_and_exponent_forms_match_golden_vectors():
    rows = golden()
    scales = scales_of(rows)
    plain = [plain_text(c, e) for c, e, _, _ in rows]
    sci = [exp_text(c, e) for c, e, _, _ in rows]
    check(format_fixed(plain, scale=scales), rows)
    check(format_fixed(sci, scale=scales), rows)
    check(format_fixed(np.array(plain, dtype="S"), scale=scales), rows)
    check(format_fixed(np.array(sci, dtype="U"), scale=scales), rows)
    check(format_fixed([t.encode() for t in plain], scale=scales), rows)
    check(format_fixed(pa.array(plain), scale=scales), rows)
    check(format_fixed(pa.array(sci, pa.large_string()), scale=scales), rows)


@pytest.mark.golden_full
def test_text_parses_to_the_exact_value():
    rows = golden(step_grid=97)
    texts = [plain_text(c, e) for c, e, _, _ in rows] + [exp_text(c, e) for c, e, _, _ in rows]
    col = parse_decimal_text(np.array(texts, dtype="S"))
    assert col.coefficients.shape == col.exponents.shape == (len(texts),)
    for t, c, e in zip(texts, col.coefficients.tolist(), col.exponents.tolist(), strict=True):
        assert Decimal(f"{c}e{e}") == Decimal(t), t


@pytest.mark.parametrize(
    ("text", "coef", "exp"),
    [
        ("0.00100000", 100000, -8),
        ("-12.5", -125, -1),
        ("+7", 7, 0),
        (".5", 5, -1),
        ("5.", 5, 0),
        ("-0", 0, 0),
        ("1e-3", 1, -3),
        ("2.5E+4", 25, 3),
        ("000000000000000000000000000001", 1, 0),
        ("9223372036854775807", INT64_MAX, 0),
        ("-9223372036854775808", INT64_MIN, 0),
        ("9223372036854775808", 2**63, 0),
        ("-9223372036854775809", -(2**63) - 1, 0),
        ("100000000000000000000e-20", 10**20, -20),
        (
            "-1234567890123456789012345678901234567890.5",
            -12345678901234567890123456789012345678905,
            -1,
        ),
        ("1e2147483647", 1, 2147483647),
        ("0.1e-2147483647", 1, -2147483648),
    ],
)
def test_text_edge_values(text, coef, exp):
    col = parse_decimal_text([text])
    assert col.exponents.tolist() == [exp]
    assert col.coefficients.tolist() == [coef]
    fits = INT64_MIN <= coef <= INT64_MAX
    assert col.coefficients.dtype == (np.int64 if fits else object)


def test_text_coefficient_longer_than_the_int_str_digit_limit():
    digits = "7" * 5000 + "." + "3" * 10  # Python refuses int("7" * 5000) by default
    col = parse_decimal_text([digits])
    assert col.exponents.tolist() == [-10]
    assert Decimal(col.coefficients[0]).scaleb(-10, decimal.Context(prec=6000)) == Decimal(digits)


BAD_TEXT = [
    "",
    "-",
    "+",
    ".",
    "-.",
    "1.2.3",
    "1e",
    "1e+",
    "e5",
    "1 ",
    " 1",
    "1,5",
    "1_000",
    "--1",
    "+-1",
    "abc",
    "NaN",
    "inf",
    "Infinity",
    "1.5x",
    "1e5.0",
    "0x10",
    "١٢",
    "1\x00",
    "1\n2",
]


@pytest.mark.parametrize("bad", BAD_TEXT)
def test_invalid_text_names_the_row_and_the_text(bad):
    texts = ["1.5", "-2", bad, "3"]
    with pytest.raises(ValueError, match=r"row 2: .* is not decimal text") as info:
        format_fixed(texts, scale=2)
    assert repr(bad) in str(info.value) or bad == "1\x00"


@pytest.mark.parametrize("bad", [b for b in BAD_TEXT if b.isascii() and "\x00" not in b])
def test_invalid_text_in_arrays(bad):
    for arr in (np.array(["1", "2", bad], dtype="S"), pa.array(["1", "2", bad])):
        with pytest.raises(ValueError, match=re.escape(f"row 2: {bad!r} is not decimal text")):
            parse_decimal_text(arr)


def test_non_ascii_text_in_unicode_arrays_is_refused():
    with pytest.raises(ValueError, match=r"row 1: '١' is not decimal text"):
        parse_decimal_text(np.array(["1", "١"]))


def test_text_exponent_outside_int32_is_refused():
    with pytest.raises(ValueError, match=r"row 1: '1e2147483648' has an exponent outside int32"):
        parse_decimal_text(["1", "1e2147483648"])
    with pytest.raises(ValueError, match=r"row 0: '0.1e-2147483648' has an exponent outside"):
        parse_decimal_text(["0.1e-2147483648"])
    with pytest.raises(ValueError, match="exponent outside"):
        parse_decimal_text(["1e99999999999999999999999999"])


def test_parse_refuses_non_text():
    with pytest.raises(TypeError, match="texts must"):
        parse_decimal_text(np.array([1, 2]))
    with pytest.raises(TypeError, match="row 1 holds 2"):
        parse_decimal_text(["1", 2])
    with pytest.raises(TypeError, match="string array"):
        parse_decimal_text(pa.array([1]))


def test_text_in_non_contiguous_and_big_endian_numpy_arrays():
    rows = list(vectors("prices", 50))
    texts = [plain_text(c, e) for c, e, _, _ in rows]
    doubled = np.array([t for t in texts for _ in range(2)], dtype="S")[::2]
    assert not doubled.flags.c_contiguous
    check(format_fixed(doubled, scale=scales_of(rows)), rows)
    big_endian = np.array(texts, dtype=">U32")
    check(format_fixed(big_endian, scale=scales_of(rows)), rows)
    check(format_fixed(np.array(texts, dtype="U")[::-1][::-1], scale=scales_of(rows)), rows)


def test_text_scalar_and_2d_inputs():
    assert format_fixed("1.255", scale=2).to_list() == ["1.26"]
    assert format_fixed(b"-1.255", scale=2).to_list() == ["-1.26"]
    assert format_fixed(np.array("7.5"), scale=0).to_list() == ["8"]
    with pytest.raises(ValueError, match="1-D"):
        format_fixed(np.array([["1"], ["2"]]), scale=0)


def test_empty_text_inputs():
    for empty in ([], np.array([], dtype="S3"), np.array([], dtype="U"), pa.array([], pa.string())):
        col = parse_decimal_text(empty)
        assert col.coefficients.shape == (0,)
    assert format_fixed(pa.array([], pa.string()), scale=2).to_list() == []
    assert format_fixed(np.array([], dtype="S3"), scale=2).to_list() == []


def test_sliced_and_chunked_arrow_text():
    rows = list(vectors("prices", 100))
    texts = [plain_text(c, e) for c, e, _, _ in rows]
    arr = pa.array(["junk", *texts, "junk"]).slice(1, len(texts))
    check(format_fixed(arr, scale=scales_of(rows)), rows)
    k = len(texts) // 3
    chunked = pa.chunked_array(
        [pa.array(texts[:k]), pa.array([], pa.string()), pa.array(texts[k:])]
    )
    check(format_fixed(chunked, scale=scales_of(rows)), rows)
    check(format_fixed(pa.array(texts, pa.string_view()), scale=scales_of(rows)), rows)
    dictionary = pa.array(texts).dictionary_encode()
    check(format_fixed(dictionary, scale=scales_of(rows)), rows)


# ------------------------------------------------------------------ Arrow decimals


@pytest.mark.golden_full
@pytest.mark.parametrize("kind", ["decimal32", "decimal64", "decimal128", "decimal256"])
def test_arrow_decimals_match_golden_vectors(kind):
    limit = {"decimal32": 10**9, "decimal64": 10**18, "decimal128": 10**38}.get(kind)
    rows = [r for r in golden(step_grid=5) if limit is None or abs(r[0]) < limit]
    for exp, group in by_exponent(rows).items():
        arr = arrow_decimal([r[0] for r in group], exp, kind)
        check(format_fixed(arr, scale=scales_of(group)), group)


def test_arrow_int64_decimal_storage_beyond_int64_goes_to_the_fallback():
    rows = [r for r in vectors("big") if abs(r[0]) < 10**38][:2000]
    assert any(abs(r[0]) > INT64_MAX for r in rows)
    for exp, group in by_exponent(rows).items():
        check(
            format_fixed(arrow_decimal([r[0] for r in group], exp), scale=scales_of(group)), group
        )
    edge = [INT64_MAX, INT64_MIN, INT64_MAX + 1, INT64_MIN - 1, 2**64, -(2**64), 2**127 - 1]
    col = decimal_column(arrow_decimal(edge, 0))
    assert col.coefficients.tolist() == edge
    col = decimal_column(arrow_decimal(edge[:2], 0))
    assert col.coefficients.dtype == np.int64


def test_arrow_decimal_negative_scale_and_precision():
    arr = arrow_decimal([125, -5], 2, precision=5)  # decimal128(5, -2)
    assert format_fixed(arr, scale=0).to_list() == ["12500", "-500"]
    typed = pa.array([Decimal("12.5"), Decimal("-0.05")], pa.decimal128(4, 2))
    assert format_fixed(typed, scale=1).to_list() == ["12.5", "-0.1"]


def test_arrow_decimal_sliced_chunked_and_empty():
    rows = list(vectors("prices", 20))
    rows = [r for r in rows if r[1] == -9]
    coefs = [r[0] for r in rows]
    whole = arrow_decimal([1, *coefs, 2], -9)
    check(format_fixed(whole.slice(1, len(coefs)), scale=scales_of(rows)), rows)
    k = len(coefs) // 2
    chunked = pa.chunked_array([arrow_decimal(coefs[:k], -9), arrow_decimal(coefs[k:], -9)])
    check(format_fixed(chunked, scale=scales_of(rows)), rows)
    empty = pa.chunked_array([], pa.decimal128(10, 2))
    assert format_fixed(empty, scale=2).to_list() == []
    assert format_fixed(arrow_decimal([], -2), scale=2).to_list() == []


def test_chunked_text_with_nulls_in_some_chunks():
    chunked = pa.chunked_array([pa.array(["1.5", None]), pa.array(["2.25"]), pa.array([None, "3"])])
    assert format_fixed(chunked, scale=2).to_list() == ["1.50", None, "2.25", None, "3.00"]


def test_arrow_decimal64_is_zero_copy():
    arr = arrow_decimal([1, 2, 3], -2, "decimal64")
    col = decimal_column(arr)
    storage = np.frombuffer(arr.buffers()[1], dtype=np.int64)
    assert np.shares_memory(col.coefficients, storage)
    assert col.exponents == -2


# ------------------------------------------------------------- integer columns


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint32", "uint64"])
def test_arrow_integer_columns_with_implied_exponent(dtype):
    rows = [r for r in vectors("prices", 40) if r[1] == -4 and r[0] >= 0]
    coefs = [r[0] for r in rows if r[0] < np.iinfo(dtype).max]
    rows = [r for r in rows if r[0] < np.iinfo(dtype).max]
    check(format_fixed(pa.array(coefs, getattr(pa, dtype)()), -4, scales_of(rows)), rows)


@pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")  # (uint64 max, a value here)
def test_arrow_int64_is_zero_copy_and_uint64_beyond_int64_is_exact():
    arr = pa.array([5, 6, 7], pa.int64())
    col = decimal_column(arr)
    assert np.shares_memory(col.coefficients, np.frombuffer(arr.buffers()[1], np.int64))
    big = pa.array([2**64 - 1, 2**63], pa.uint64())
    assert format_fixed(big, -2, 2).to_list() == ["184467440737095516.15", "92233720368547758.08"]


def test_pandas_and_polars_integer_columns():
    rows = list(vectors("prices", 200))
    rows = [r for r in rows if r[1] == -9]
    coefs = [r[0] for r in rows]
    s = pd.Series(coefs, dtype=np.int64)
    check(format_fixed(s, -9, scales_of(rows)), rows)
    check(format_fixed(pd.Series(coefs, dtype="Int64"), -9, scales_of(rows)), rows)
    check(
        format_fixed(pd.Series(coefs, dtype=pd.ArrowDtype(pa.int64())), -9, scales_of(rows)), rows
    )
    check(format_fixed(pl.Series(coefs, dtype=pl.Int64), -9, scales_of(rows)), rows)
    assert np.shares_memory(decimal_column(s).coefficients, s.to_numpy())


def test_big_endian_and_strided_integer_numpy_inputs():
    rows = list(vectors("prices", 100))
    coefs = np.array([r[0] for r in rows], dtype=">i8")
    exps = np.array([r[1] for r in rows for _ in range(2)], dtype=">i4")[::2]
    check(format_fixed(coefs, exps, scales_of(rows)), rows)
    strided = np.repeat(coefs.astype(np.int64), 3)[::3]
    check(format_fixed(strided, exps, scales_of(rows)), rows)


# --------------------------------------------------------------- pandas, polars


@pytest.mark.golden_full
def test_pandas_decimal_columns():
    rows = [r for r in golden(step_grid=50) if abs(r[0]) < 10**38]
    for exp, group in by_exponent(rows).items():
        if not -38 <= exp <= 0:
            continue
        values = [as_decimal(r[0], r[1]) for r in group]
        arrow_typed = pd.Series(values, dtype=pd.ArrowDtype(pa.decimal128(38, -exp)))
        check(format_fixed(arrow_typed, scale=scales_of(group)), group)
        check(format_fixed(pd.Series(values, dtype=object), scale=scales_of(group)), group)


def test_pandas_text_columns():
    rows = list(vectors("prices", 100))
    texts = [plain_text(c, e) for c, e, _, _ in rows]
    for dtype in (object, "string[pyarrow]", "string[python]", pd.ArrowDtype(pa.string())):
        check(format_fixed(pd.Series(texts, dtype=dtype), scale=scales_of(rows)), rows)
    check(format_fixed(pd.Index(texts), scale=scales_of(rows)), rows)


def test_polars_decimal_and_text_columns():
    rows = [r for r in golden(step_grid=50) if abs(r[0]) < 10**38 and -38 <= r[1] <= 0]
    for exp, group in by_exponent(rows).items():
        values = [as_decimal(r[0], r[1]) for r in group]
        s = pl.Series(values, dtype=pl.Decimal(38, -exp))
        check(format_fixed(s, scale=scales_of(group)), group)
    rows = list(vectors("prices", 100))
    texts = pl.Series([plain_text(c, e) for c, e, _, _ in rows])
    check(format_fixed(texts, scale=scales_of(rows)), rows)


def test_frames_and_float_columns_are_refused():
    with pytest.raises(TypeError, match="one column"):
        format_fixed(pd.DataFrame({"a": [1]}), -2, 2)
    with pytest.raises(TypeError, match="one column"):
        format_fixed(pl.DataFrame({"a": [1]}), -2, 2)
    with pytest.raises(TypeError, match="one column"):
        format_fixed(pa.table({"a": [1]}), -2, 2)
    with pytest.raises(TypeError, match="float"):
        format_fixed(pd.Series([1.5]), -2, 2)
    with pytest.raises(TypeError, match="float"):
        format_fixed(pa.array([1.5]), -2, 2)
    with pytest.raises(TypeError, match="float"):
        format_fixed(pl.Series([1.5]), -2, 2)


# ------------------------------------------------------------------------- outputs


@pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")  # (golden int64 max and min)
@pytest.mark.golden_full
def test_to_arrow_pandas_polars_match_golden_vectors():
    rows = golden(step_grid=3)
    out = format_fixed([r[0] for r in rows], [r[1] for r in rows], scales_of(rows))
    want = [r[3] for r in rows]
    arr = out.to_arrow()
    assert arr.type == pa.string() and arr.null_count == 0
    arr.validate(full=True)
    assert arr.to_pylist() == want
    large = out.to_arrow(large=True)
    assert large.type == pa.large_string() and large.to_pylist() == want
    s = out.to_pandas(name="px")
    assert isinstance(s.dtype, pd.StringDtype) and s.dtype.storage == "pyarrow"
    assert s.name == "px" and s.tolist() == want
    p = out.to_polars("px")
    assert p.dtype == pl.String and p.name == "px" and p.to_list() == want


def test_to_arrow_of_sliced_and_empty_results():
    rows = list(vectors("prices", 100))
    out = format_fixed([r[0] for r in rows], [r[1] for r in rows], scales_of(rows))
    part = out[5:50:3]
    assert part.to_arrow().to_pylist() == [r[3] for r in rows[5:50:3]]
    empty = format_fixed(np.array([], dtype=np.int64), -2, 2)
    arr = empty.to_arrow()
    arr.validate(full=True)
    assert arr.to_pylist() == [] and arr.type == pa.string()
    assert empty.to_pandas().tolist() == [] and empty.to_polars().to_list() == []
    assert empty.to_bytes() == b"" and empty.rjust(3).shape == (0, 3)


def test_text_round_trips_through_arrow_output_and_back():
    rows = list(vectors("prices", 10))
    out = format_fixed([r[0] for r in rows], [r[1] for r in rows], scales_of(rows))
    again = format_fixed(out.to_arrow(), scale=scales_of(rows))
    check(again, rows)


def test_to_bytes_and_write(tmp_path):
    rows = list(vectors("prices", 100))
    out = format_fixed([r[0] for r in rows], [r[1] for r in rows], scales_of(rows))
    want = [r[3].encode() for r in rows]
    assert out.to_bytes() == b"\n".join(want)
    assert out.to_bytes(b"|", end=b"\r\n") == b"|".join(want) + b"\r\n"
    assert out.to_bytes(sep=b"") == b"".join(want)
    path = tmp_path / "px.txt"
    assert out.write(path) == path.stat().st_size
    assert path.read_bytes() == b"".join(w + b"\n" for w in want)
    buf = io.BytesIO()
    out.write(buf, sep=b",", end=b"")
    assert buf.getvalue() == b",".join(want)
    with pytest.raises(TypeError, match="sep must be bytes"):
        out.to_bytes(",")


def test_rjust_and_ljust():
    values = [Decimal("1.5"), Decimal("-22.75"), Decimal("0.004")]
    out = format_fixed(values, scale=2)
    want = [format(v.quantize(Decimal("0.01"), decimal.ROUND_HALF_UP), "f") for v in values]
    assert out.rjust(8).view("S8").ravel().tolist() == [w.rjust(8).encode() for w in want]
    assert out.ljust(8, b".").tobytes() == "".join(w.ljust(8, ".") for w in want).encode()
    assert out.rjust().tobytes() == "".join(w.rjust(out.width) for w in want).encode()
    with pytest.raises(ValueError, match=r"row 1 \('-22.75'\) needs 6 bytes but the width is 5"):
        out.rjust(5)
    with pytest.raises(ValueError, match="one byte"):
        out.rjust(8, b"ab")
    for width in ("25", 25.0, True):  # not a width (int() took the first two)
        with pytest.raises(TypeError, match=r"width must be an int or None, got "):
            out.ljust(width)
    assert out.rjust(np.int32(8)).tobytes() == out.rjust(8).tobytes()


def test_missing_optional_dependency_is_a_clear_error(monkeypatch):
    out = format_fixed([1], 0, 0)
    for module, method in [
        ("pyarrow", "to_arrow"),
        ("pandas", "to_pandas"),
        ("polars", "to_polars"),
    ]:
        monkeypatch.setitem(sys.modules, module, None)
        with pytest.raises(ImportError, match=f"needs {module}.*pip install"):
            getattr(out, method)()
        monkeypatch.undo()


def test_decimal_column_is_accepted_back():
    col = DecimalColumn(np.array([125, -125]), np.array([-3, -3], dtype=np.int32), None)
    assert format_fixed(col, scale=2).to_list() == ["0.13", "-0.13"]
    ints = DecimalColumn(np.array([125]), None, None)
    assert format_fixed(ints, -1, 0).to_list() == ["13"]


@pytest.mark.parametrize("bad_chunk", [0, 1, 2])
def test_chunked_text_error_names_the_row_in_the_column(bad_chunk):
    """A bad value in a later chunk of a ChunkedArray is named by its row in the whole
    column, not within its chunk."""
    chunks = [["1", "2"], ["3", "4", "5"], ["6"]]
    chunks[bad_chunk][-1] = "x.5"
    row = sum(len(c) for c in chunks[: bad_chunk + 1]) - 1
    with pytest.raises(RowError, match=rf"coefficients row {row}: 'x\.5'") as info:
        format_fixed(pa.chunked_array(chunks), scale=2)
    assert info.value.row == row
