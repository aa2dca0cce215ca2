"""vecfix's SQL functions in DuckDB (``vecfix.duckdb.register``) beside DuckDB's own exact path.

Group ``duckdb-10M``: 10M CME PRICE9 mantissas (the 1M rows of ``price9`` ten times over;
20,000 in the smoke run) printed at scale 4, from a DuckDB table built before the timer
with two columns of the same values: ``px BIGINT`` (the mantissas) and
``d DECIMAL(18, 9)`` (the prices). Each query's result is fetched as an Arrow table:

- ``vecfix_fixed(px, -9, 4)`` (the baseline) and ``vecfix_fixed_decimal(d, 4)``;
- DuckDB's fastest exact path, ``CAST(ROUND(d, 4) AS VARCHAR)`` on the DECIMAL column
  (DuckDB rounds decimals half away from zero), and the same from the integers,
  ``CAST(ROUND(px::DECIMAL(18, 0) * 0.000000001::DECIMAL(10, 9), 4) AS VARCHAR)``;

each at DuckDB's default threads and at one (``SET threads``). Every query's text is
compared with ``vecfix.format_fixed``'s on every row ("same text").

DuckDB hands a Python function a vector of 2,048 rows at a time and converts its
arguments and result through Arrow; that conversion alone (a function returning a
prepared string array) costs about as much as DuckDB's whole exact path, so the
functions are for exactness where SQL has no exact way (and for one text everywhere),
not for speed. Run::

    python -m pytest benchmarks/test_bench_duckdb.py --benchmark-enable --benchmark-json=duckdb.json
"""

from __future__ import annotations

import numpy as np
import pytest

import vecfix

GROUP = "duckdb-10M"
EXPONENT, SCALE = -9, 4
#: How many times the ``price9`` rows are repeated (1M rows: 10M).
REPEAT = 10

#: label -> the query, over the table ``t(px BIGINT, d DECIMAL(18, 9))``.
QUERIES = {
    "vecfix_fixed(px, -9, 4)": "SELECT vecfix_fixed(px, -9, 4) FROM t",
    "vecfix_fixed_decimal(d, 4)": "SELECT vecfix_fixed_decimal(d, 4) FROM t",
    "DuckDB CAST(ROUND(d, 4) AS VARCHAR)": "SELECT CAST(ROUND(d, 4) AS VARCHAR) FROM t",
    "DuckDB CAST(ROUND(px::DECIMAL(18, 0) * 0.000000001::DECIMAL(10, 9), 4) AS VARCHAR)": (
        "SELECT CAST(ROUND(px::DECIMAL(18, 0) * 0.000000001::DECIMAL(10, 9), 4) AS VARCHAR) FROM t"
    ),
}


@pytest.fixture(scope="module")
def rows(price9: np.ndarray) -> np.ndarray:
    return np.tile(price9, REPEAT)


@pytest.fixture(scope="module")
def expected(rows: np.ndarray) -> object:
    """vecfix's text for the rows, as an Arrow string array (compared without Python
    strings: 10M of them would take longer than the queries)."""
    pytest.importorskip("pyarrow")
    return vecfix.format_fixed(rows, EXPONENT, SCALE).to_arrow()


@pytest.fixture(scope="module")
def connection(rows: np.ndarray):
    duckdb = pytest.importorskip("duckdb")
    import pyarrow as pa

    import vecfix.duckdb

    vecfix.warmup()  # the kernels loaded before any timer
    con = duckdb.connect()
    vecfix.duckdb.register(con)
    con.register("mantissas", pa.table({"px": rows}))
    con.execute(
        "CREATE TABLE t AS SELECT px, CAST(px AS DECIMAL(18, 0)) * 0.000000001::DECIMAL(10, 9)"
        " AS d FROM mantissas"
    )
    con.unregister("mantissas")
    assert con.sql("SELECT typeof(d) FROM t LIMIT 1").fetchall() == [("DECIMAL(18,9)",)]
    yield con
    con.close()


@pytest.mark.parametrize("threads", [None, 1], ids=["default-threads", "1-thread"])
@pytest.mark.parametrize("label", list(QUERIES))
@pytest.mark.benchmark(group=GROUP)
def test_duckdb_query(benchmark, connection, expected, label: str, threads: int | None) -> None:
    import pyarrow as pa
    import pyarrow.compute as pc

    connection.execute("RESET threads" if threads is None else f"SET threads = {threads}")
    used = connection.sql("SELECT current_setting('threads')").fetchall()[0][0]
    query = QUERIES[label]
    result = benchmark(lambda: connection.sql(query).to_arrow_table())
    got = result.column(0).cast(pa.string())
    same = got.equals(pa.chunked_array([expected]))
    mismatches = 0 if same else int(pc.sum(pc.not_equal(got, expected)).as_py())
    benchmark.extra_info.update(
        rows=len(expected),
        label=f"{label}, {used} thread(s)",
        same_text=same,
        mismatches=mismatches,
        baseline=label.startswith("vecfix_fixed(") and threads is None,
    )
    assert same  # every query prints vecfix's text
