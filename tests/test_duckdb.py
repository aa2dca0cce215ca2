"""``vecfix.duckdb.register``: the SQL functions, through DuckDB, against the golden
vectors (Go's shopspring/decimal), hand-written text and the independent reference.

The inputs reach DuckDB as Arrow tables built here from the vectors' (coefficient,
exponent) pairs (integers, ``f"{c}e{e}"`` text, ``Decimal(f"{c}e{e}")`` decimals), never
by vecfix; every query orders by a row id, so DuckDB's threads cannot reorder rows.
"""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from decimal import Decimal

import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN, Vectors
from reference import reference_fixed

duckdb = pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")

import vecfix.duckdb  # noqa: E402  (after the skips: the module needs neither to import)

# The golden vectors hold int64 max, which warns as a usual null sentinel; not the point here.
pytestmark = pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")


@pytest.fixture
def con():
    connection = duckdb.connect()
    vecfix.duckdb.register(connection)
    yield connection
    connection.close()


def column(con, query: str) -> list:
    """The first column of ``query``'s rows."""
    return [row[0] for row in con.sql(query).fetchall()]


def first_differences(got: list, want: list, limit: int = 5) -> list:
    assert len(got) == len(want)
    return [(i, g, w) for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w][:limit]


# ---------------------------------------------------------------------- golden vectors


@pytest.mark.golden_full
@pytest.mark.parametrize("name", ["grid", "prices"])  # (big's coefficients exceed BIGINT)
def test_integers_match_the_golden_vectors(con, golden: dict[str, Vectors], name: str):
    v = golden[name]
    rows = [r for r in v.rows() if INT64_MIN <= r[0] <= INT64_MAX]
    assert len(rows) > len(v) // 2
    c, e, s, want = zip(*rows, strict=True)
    con.register("g", pa.table({"i": np.arange(len(rows)), "c": c, "e": e, "s": s}))
    got = column(con, "SELECT vecfix_fixed(c, e, s) FROM g ORDER BY i")
    assert first_differences(got, list(want)) == []


@pytest.mark.golden_full
@pytest.mark.parametrize("name", ["grid", "big", "prices"])
def test_decimal_text_matches_the_golden_vectors(con, golden: dict[str, Vectors], name: str):
    """Every row, any size, as VARCHAR ``'<coefficient>e<exponent>'``."""
    v = golden[name]
    text = [f"{c}e{e}" for c, e in zip(v.coef, v.exp, strict=True)]
    con.register("g", pa.table({"i": np.arange(len(v)), "t": text, "s": v.scale}))
    got = column(con, "SELECT vecfix_fixed_decimal(t, s) FROM g ORDER BY i")
    assert first_differences(got, v.expected) == []


@pytest.mark.golden_full
@pytest.mark.parametrize("name", ["grid", "big", "prices"])
def test_decimals_match_the_golden_vectors(con, golden: dict[str, Vectors], name: str):
    """The rows a DECIMAL(38, k) holds, one table per exponent (DuckDB's DECIMAL scale)."""
    by_exponent = defaultdict(list)
    for c, e, s, want in golden[name].rows():
        if -38 <= e <= 0 and abs(c) < 10**38:
            by_exponent[e].append((Decimal(f"{c}e{e}"), s, want))
    assert sum(map(len, by_exponent.values())) > 1000
    for e, rows in sorted(by_exponent.items()):
        values, scales, want = zip(*rows, strict=True)
        table = pa.table(
            {
                "i": np.arange(len(rows)),
                "d": pa.array(values, pa.decimal128(38, -e)),
                "s": pa.array(scales, pa.int32()),
            }
        )
        con.register("g", table)
        assert con.sql("SELECT typeof(d) FROM g LIMIT 1").fetchall()[0] == (f"DECIMAL(38,{-e})",)
        got = column(con, "SELECT vecfix_fixed_decimal(d, s) FROM g ORDER BY i")
        assert first_differences(got, list(want)) == [], e


# -------------------------------------------------------------------- rows, hand-written


def test_the_spec_rules_in_sql(con):
    got = con.sql(
        "SELECT vecfix_fixed(125, -3, 2), vecfix_fixed(-125, -3, 2), vecfix_fixed(-4, -3, 2),"
        " vecfix_fixed(1, -8, 8), vecfix_fixed(-150, 0, -2), vecfix_fixed(5, 3, 2),"
        " vecfix_fixed(9223372036854775807, -9, 2)"
    ).fetchall()[0]
    assert got == ("0.13", "-0.13", "0.00", "0.00000001", "-200", "5000.00", "9223372036.85")


def test_decimals_of_every_width_and_text(con):
    got = con.sql(
        "SELECT vecfix_fixed_decimal(1.005::DECIMAL(4, 3), 2),"
        " vecfix_fixed_decimal(2.675::DECIMAL(18, 9), 2),"
        " vecfix_fixed_decimal(-0.125::DECIMAL(38, 30), 2),"
        " vecfix_fixed_decimal(-0.004::DECIMAL(9, 3), 2),"
        " vecfix_fixed_decimal(12345678901234567890123456789.5::DECIMAL(38, 1), 0),"
        " vecfix_fixed_decimal('1e-3', 4), vecfix_fixed_decimal('-2.675', 2),"
        " vecfix_fixed_decimal('0.00000001', 8)"
    ).fetchall()[0]
    assert got == (
        "1.01", "2.68", "-0.13", "0.00", "12345678901234567890123456790", "0.0010", "-2.68",
        "0.00000001",
    )  # fmt: skip


def test_integer_types_narrower_than_bigint_are_cast(con):
    got = con.sql(
        "SELECT vecfix_fixed(125::TINYINT, -1::SMALLINT, 0::UTINYINT),"
        " vecfix_fixed(-5::INTEGER, -3::TINYINT, 2::INTEGER)"
    ).fetchall()[0]
    assert got == ("13", "-0.01")


def test_many_vectors_with_a_scale_per_row(con):
    """5,000 rows (three DuckDB vectors), each with its own exponent and scale, some
    NULL: the reference's text, in order."""
    rng = np.random.default_rng(41)
    n = 5000
    c = rng.integers(-(10**15), 10**15, n)
    e = rng.integers(-12, 3, n)
    s = rng.integers(-2, 9, n)
    null_c, null_e, null_s = (rng.random(n) < 0.03 for _ in range(3))
    table = pa.table(
        {
            "i": np.arange(n),
            "c": pa.array(c, mask=null_c),
            "e": pa.array(e, mask=null_e),
            "s": pa.array(s.astype(np.int32), mask=null_s),
        }
    )
    con.register("g", table)
    got = column(con, "SELECT vecfix_fixed(c, e, s) FROM g ORDER BY i")
    want = [
        None if nc or ne or ns else reference_fixed(int(ci), int(ei), int(si))
        for ci, ei, si, nc, ne, ns in zip(c, e, s, null_c, null_e, null_s, strict=True)
    ]
    assert first_differences(got, want) == []
    assert got.count(None) == int((null_c | null_e | null_s).sum())


# ------------------------------------------------------------------------------- NULL


@pytest.mark.parametrize(
    "call",
    [
        "vecfix_fixed(NULL, -9, 2)",
        "vecfix_fixed(5, NULL, 2)",
        "vecfix_fixed(5, -9, NULL)",
        "vecfix_fixed_decimal(NULL, 2)",
        "vecfix_fixed_decimal(1.5, NULL)",
        "vecfix_fixed_decimal(NULL::VARCHAR, 2)",
        "vecfix_fixed_decimal(NULL::DECIMAL(18, 9), 2)",
    ],
)
def test_null_in_null_out(con, call):
    assert con.sql(f"SELECT {call}").fetchall()[0] == (None,)


def test_null_rows_among_values(con):
    got = column(
        con,
        "SELECT vecfix_fixed(c, e, s) FROM (VALUES (0, 125, -3, 2), (1, NULL, -3, 2),"
        " (2, 125, NULL, 2), (3, 125, -3, NULL), (4, -6, -2, 1)) t(i, c, e, s) ORDER BY i",
    )
    assert got == ["0.13", None, None, None, "-0.1"]
    got = column(
        con,
        "SELECT vecfix_fixed_decimal(d, s) FROM (VALUES (0, '2.675', 2), (1, NULL, 2),"
        " (2, '1.005', NULL), (3, '-0.125', 2)) t(i, d, s) ORDER BY i",
    )
    assert got == ["2.68", None, None, "-0.13"]


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("query", "names"),
    [
        (
            "SELECT vecfix_fixed_decimal(t, 2) FROM (VALUES ('1.5'), ('1,5')) v(t)",
            ["vecfix_fixed_decimal(value='1,5', scale=2)", "not decimal text"],
        ),
        (
            "SELECT vecfix_fixed(c, -3, s) FROM (VALUES (125, 2), (7, 100000)) v(c, s)",
            ["vecfix_fixed", "coefficient=7", "scale=100000", "MAX_ROW_LENGTH"],
        ),
        (
            "SELECT vecfix_fixed(c, e, 2) FROM (VALUES (125, -3), (7, 1099511627776)) v(c, e)",
            ["vecfix_fixed(coefficient=7, exponent=1099511627776, scale=2)", "int32"],
        ),
        (
            "SELECT vecfix_fixed_decimal(1.5::DOUBLE, 2)",
            ["vecfix_fixed_decimal: value is double, not DECIMAL or VARCHAR"],
        ),
        (
            "SELECT vecfix_fixed_decimal(15::INTEGER, 2)",
            ["value is int32", "for integers, vecfix_fixed(coefficient, exponent, scale)"],
        ),
    ],
)
def test_errors_are_sql_errors_naming_the_value(con, query, names):
    with pytest.raises(duckdb.Error) as caught:
        con.sql(query).fetchall()
    text = str(caught.value)
    assert all(name in text for name in names), text
    ours = text[text.index("vecfix_fixed") :]  # after DuckDB's own prefix
    assert len(ours.splitlines()[0]) <= 200, ours


def test_floats_are_refused_by_the_binder(con):
    with pytest.raises(duckdb.BinderException, match=r"vecfix_fixed\(BIGINT, BIGINT, BIGINT\)"):
        con.sql("SELECT vecfix_fixed(1.5::DOUBLE, -1, 2)").fetchall()


# ------------------------------------------------------------------------ registration


def test_a_prefix_names_the_functions():
    connection = duckdb.connect()
    vecfix.duckdb.register(connection, prefix="fix_")
    got = connection.sql("SELECT fix_fixed(125, -3, 2), fix_fixed_decimal('0.125', 2)").fetchall()
    assert got == [("0.13", "0.13")]
    with pytest.raises(duckdb.CatalogException):
        connection.sql("SELECT vecfix_fixed(125, -3, 2)").fetchall()


def test_importing_the_module_imports_no_duckdb():
    code = "import sys, vecfix.duckdb; print('duckdb' in sys.modules, 'pyarrow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_without_pyarrow_register_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed
    with pytest.raises(ImportError, match=r"needs pyarrow.*vecfix\[duckdb\]"):
        vecfix.duckdb.register(duckdb.connect())


def test_a_vector_in_several_chunks_or_none():
    """DuckDB hands over one chunk a vector; several (or no rows) are read the same way."""
    c = pa.chunked_array([[125, None], [-6]], pa.int64())
    e = pa.chunked_array([[-3], [-3, -2]], pa.int64())
    s = pa.chunked_array([[2, 2, 1]], pa.int64())
    got = vecfix.duckdb._format_rows("vecfix_fixed", c, e, s)
    assert got.to_pylist() == ["0.13", None, "-0.1"]
    empty = pa.chunked_array([], pa.int64())
    assert vecfix.duckdb._format_rows("vecfix_fixed", empty, empty, empty).to_pylist() == []
