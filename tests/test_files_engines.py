"""The Parquet writers of ``vecfix format``: polars' (``engine="polars"``, chosen by
``"auto"`` where polars is installed) and pyarrow's (``"pyarrow"``, the fallback).

Both must write the reference text (``tests/reference.py``, exact integer arithmetic),
the same rows, nulls, column order and errors; which writer wrote a file is read from its
``created_by``. Files are small: these tests also run under ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from reference import reference_fixed

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from vecfix.files import ColumnSpec, DataError, UsageError, format_file  # noqa: E402

INT64_MAX = 2**63 - 1
SYMBOLS = ["ESZ4", "ZNZ4", "6JZ4", "CLZ4", "ESZ4", "YMZ4", "ZNZ4"]
TICKS = {"ESZ4": 2, "ZNZ4": 6, "6JZ4": 7, "CLZ4": 2, "YMZ4": 0}
PX = [5000_250000000, None, 6_700050, -45_125000000, INT64_MAX, 39001_500000000, 110_015625000]
QTY = [(1005, -3), (-25, -1), None, (7, 0), (-5, -3), (123456789, -4), (0, 0)]  # (c, e)
ENGINES = ["polars", "pyarrow"]


def qty_text(v: tuple[int, int] | None) -> str | None:
    if v is None:
        return None
    c, e = v
    digits = str(abs(c)).rjust(-e + 1, "0") if e < 0 else str(abs(c)) + "0" * e
    body = f"{digits[:e]}.{digits[e:]}" if e < 0 else digits
    return ("-" if c < 0 else "") + body


def table() -> pa.Table:
    return pa.table(
        {
            "symbol": pa.array(SYMBOLS),
            "px": pa.array(PX, pa.int64()),
            "qty": pa.array([qty_text(v) for v in QTY], pa.string()),
            "decimals": pa.array([TICKS[s] for s in SYMBOLS], pa.int8()),
        }
    )


SPECS = [
    ColumnSpec("px", exponent=-9, scale_column="decimals", null=(INT64_MAX,)),
    ColumnSpec("qty", 2, output_name="qty_text"),
]


def want_px() -> list[str | None]:
    return [
        None if c is None or c == INT64_MAX else reference_fixed(c, -9, TICKS[s])
        for c, s in zip(PX, SYMBOLS, strict=True)
    ]


def want_qty() -> list[str | None]:
    return [None if v is None else reference_fixed(v[0], v[1], 2) for v in QTY]


def writer(path: Path) -> str:
    """Who wrote a Parquet file: "polars" or "pyarrow" (from its created_by)."""
    created_by = pq.ParquetFile(path).metadata.created_by
    if created_by.startswith("Polars"):
        return "polars"
    assert created_by.startswith("parquet-cpp"), created_by
    return "pyarrow"


def source(d: Path, fmt: str, t: pa.Table | None = None) -> Path:
    t = table() if t is None else t
    if fmt == "parquet":
        pq.write_table(t, d / "in.parquet")
        return d / "in.parquet"
    import pyarrow.csv as pacsv

    pacsv.write_csv(t, d / "in.csv")
    return d / "in.csv"


def needs(engine: str) -> None:
    if engine == "polars":
        pytest.importorskip("polars")


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("engine", ENGINES)
def test_each_engine_writes_the_reference_text(tmp_path, engine, fmt):
    needs(engine)
    src = source(tmp_path, fmt)
    out = tmp_path / "out.parquet"
    stats = format_file(src, out, SPECS, batch_size=3, engine=engine)  # 3 batches
    assert (stats.rows, stats.batches) == (len(PX), 3)
    assert writer(out) == engine
    t = pq.read_table(out)
    assert t.column_names == ["symbol", "px", "qty", "qty_text", "decimals"]
    assert t["px"].to_pylist() == want_px()
    assert t["qty_text"].to_pylist() == want_qty()
    assert t["qty"].to_pylist() == [qty_text(v) for v in QTY]  # the raw text, kept
    assert t["symbol"].to_pylist() == SYMBOLS
    decimals = t["decimals"]
    if fmt == "parquet":
        assert decimals.type == pa.int8()
    assert [int(v) for v in decimals.to_pylist()] == [TICKS[s] for s in SYMBOLS]
    assert pq.ParquetFile(out).metadata.num_row_groups == 1  # batches gathered


def test_auto_is_polars_for_parquet_and_pyarrow_without_polars(tmp_path, monkeypatch):
    pytest.importorskip("polars")
    import vecfix._format

    monkeypatch.setattr(vecfix._plan, "usable_cores", lambda: 2)  # as on a 1-core CI box
    src = source(tmp_path, "parquet")
    format_file(src, tmp_path / "auto.parquet", SPECS)
    assert writer(tmp_path / "auto.parquet") == "polars"
    monkeypatch.setitem(sys.modules, "polars", None)  # as if polars were not installed
    format_file(src, tmp_path / "fallback.parquet", SPECS)
    assert writer(tmp_path / "fallback.parquet") == "pyarrow"
    assert pq.read_table(tmp_path / "fallback.parquet")["px"].to_pylist() == want_px()
    with pytest.raises(UsageError, match=r"polars writer .*polars is not installed"):
        format_file(src, tmp_path / "forced.parquet", SPECS, engine="polars")
    assert not (tmp_path / "forced.parquet").exists()


def test_polars_engine_says_why_it_cannot_write_a_job(tmp_path):
    pytest.importorskip("polars")
    src = source(tmp_path, "parquet")
    with pytest.raises(UsageError, match=r"polars writer cannot write .*out\.csv.*Parquet"):
        format_file(src, tmp_path / "out.csv", SPECS, engine="polars")
    # A dictionary column would become polars' Categorical: auto keeps pyarrow's writer.
    t = table()
    t = t.set_column(0, "symbol", t["symbol"].dictionary_encode())
    src = source(tmp_path, "parquet", t)
    with pytest.raises(UsageError, match=r"column 'symbol' \(dictionary"):
        format_file(src, tmp_path / "forced.parquet", SPECS, engine="polars")
    format_file(src, tmp_path / "auto.parquet", SPECS)
    assert writer(tmp_path / "auto.parquet") == "pyarrow"
    back = pq.read_table(tmp_path / "auto.parquet")
    assert pa.types.is_dictionary(back["symbol"].type) and back["px"].to_pylist() == want_px()
    # A column that may not hold nulls would become one that may.
    required = table().schema.set(3, pa.field("decimals", pa.int8(), nullable=False))
    src = source(tmp_path, "parquet", table().cast(required))
    with pytest.raises(UsageError, match=r"column 'decimals'"):
        format_file(src, tmp_path / "forced.parquet", SPECS, engine="polars")
    with pytest.raises(UsageError, match=r"unknown engine 'duckdb'"):
        format_file(src, tmp_path / "x.parquet", SPECS, engine="duckdb")


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_name_the_file_row_of_a_bad_value_and_leave_no_file(tmp_path, engine):
    needs(engine)
    t = table().set_column(2, "qty", pa.array(["1", "2", "3", "4", "5", "x.5", "7"]))
    src = source(tmp_path, "parquet", t)
    out = tmp_path / "out.parquet"
    with pytest.raises(DataError, match=r"column 'qty', row 5 \(counting data rows from 0\)"):
        format_file(src, out, SPECS, batch_size=2, engine=engine)  # row 5: the 3rd batch
    assert list(tmp_path.iterdir()) == [src]  # neither the output nor a partial file


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_warn_of_sentinels(tmp_path, engine):
    needs(engine)
    src = source(tmp_path, "parquet")
    seen: list[str] = []
    specs = [ColumnSpec("px", 2, -9)]
    format_file(
        src, tmp_path / "o.parquet", specs, batch_size=2, engine=engine, on_warning=seen.append
    )
    assert (
        len(seen) == 1 and "first at row 4" in seen[0] and "--null 9223372036854775807" in seen[0]
    )


@pytest.mark.parametrize("codec", ["zstd", "none", None])
@pytest.mark.parametrize("engine", ENGINES)
def test_engines_keep_codec_metadata_and_empty_files(tmp_path, engine, codec):
    needs(engine)
    t = table().replace_schema_metadata({"origin": "test feed"})
    src = source(tmp_path, "parquet", t)
    out = tmp_path / "out.parquet"
    format_file(src, out, SPECS, engine=engine, compression=codec)
    meta = pq.ParquetFile(out).metadata
    want = {"zstd": "ZSTD", "none": "UNCOMPRESSED", None: "SNAPPY"}[codec]
    codecs = {meta.row_group(0).column(i).compression for i in range(meta.num_columns)}
    assert codecs == {want}
    back = pq.read_table(out)
    assert back.schema.metadata[b"origin"] == b"test feed"
    assert back["px"].to_pylist() == want_px()
    src = source(tmp_path, "parquet", t.slice(0, 0))  # no rows: the columns all the same
    assert format_file(src, out, SPECS, engine=engine).rows == 0
    assert writer(out) == engine
    empty = pq.read_table(out)
    assert empty.num_rows == 0 and empty.column_names == back.column_names


@pytest.mark.parametrize("engine", ENGINES)
def test_cli_engine_option(tmp_path, engine, capsys):
    needs(engine)
    from vecfix.cli import main

    src = source(tmp_path, "parquet")
    out = tmp_path / "out.parquet"
    argv = ["format", str(src), "-o", str(out), "--column", "px", "--exponent", "-9",
            "--scale-column", "decimals", "--null", str(INT64_MAX),
            "--engine", engine, "-q"]  # fmt: skip
    assert main(argv) == 0
    assert writer(out) == engine
    assert pq.read_table(out)["px"].to_pylist() == want_px()
    with pytest.raises(SystemExit):
        main([*argv[:-3], "--engine", "nope"])
    assert "invalid choice: 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("engine", ENGINES)
def test_polars_csv_reader_finds_null_strings_in_an_integer_only_file(
    tmp_path, monkeypatch, engine
):
    """Every column read as integers, null strings given (``csv_nulls``): polars parses
    without them (faster) and, at the first cell that fails, goes on with them from the
    first row not yet read."""
    pl = pytest.importorskip("polars")
    import vecfix.files

    monkeypatch.setattr(vecfix.files, "POLARS_CSV_BYTES", 0)  # small files too
    scans: list[object] = []
    scan_csv = pl.scan_csv

    def spy(*args, **kwargs):
        scans.append((kwargs.get("null_values") is not None, kwargs.get("skip_rows_after_header")))
        return scan_csv(*args, **kwargs)

    monkeypatch.setattr(pl, "scan_csv", spy)
    a = [125, -5, 999, 1, 0, 77, -45, None, 3, 12]
    b = [10, 20, None, 40, 50, 60, 70, 80, None, -100]
    cells = {7: "NA", 8: "null"}  # null strings; row 2 of b is an empty cell
    lines = ["a,b"]
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        xs = cells[i] if x is None else str(x)
        ys = "" if i == 2 else cells[i] if y is None else str(y)
        lines.append(f"{xs},{ys}")
    src = tmp_path / "ints.csv"
    src.write_text("\n".join(lines) + "\n")
    specs = [ColumnSpec("a", 1, -2), ColumnSpec("b", 0, -1)]
    out = tmp_path / "out.parquet"
    nulls = ("", "NA", "null")
    stats = format_file(src, out, specs, batch_size=2, engine=engine, csv_nulls=nulls)
    assert stats.rows == 10
    t = pq.read_table(out)
    assert t["a"].to_pylist() == [None if x is None else reference_fixed(x, -2, 1) for x in a]
    assert t["b"].to_pylist() == [None if y is None else reference_fixed(y, -1, 0) for y in b]
    # The header (with the list), the data without it, then with it from a row <= 7.
    assert len(scans) == 3 and scans[:2] == [(True, 0), (False, 0)]
    assert scans[2][0] is True and 0 <= scans[2][1] <= 7
    # A cell that is no integer and no null string: the error of the slow read.
    src.write_text("a,b\n1,2\n3,4\n5,6\nabc,8\n")
    with pytest.raises(DataError, match=r"cannot read .*ints\.csv.*leave out --exponent"):
        format_file(src, out, specs, batch_size=1, engine=engine, csv_nulls=nulls)
    # Without null strings (the default) one scan, and "NA" is a cell that fails.
    scans.clear()
    src.write_text("a,b\n1,2\n,4\nNA,8\n")
    with pytest.raises(DataError, match=r"In column 'a'.*invalid value 'NA'.*--csv-null"):
        format_file(src, out, specs, batch_size=1, engine=engine)
    assert scans == [(False, 0), (False, 0)]  # the header's scan, then the data's


def test_polars_csv_reader_goes_on_from_the_rows_already_read(tmp_path, monkeypatch):
    """A null string far into the file: the batches read before it are kept, the read with
    the null strings starts after them, and no row is lost or read twice."""
    pl = pytest.importorskip("polars")
    import vecfix.files

    monkeypatch.setattr(vecfix.files, "POLARS_CSV_BYTES", 0)
    skips: list[int] = []
    scan_csv = pl.scan_csv

    def spy(*args, **kwargs):
        if kwargs.get("null_values") is not None:
            skips.append(kwargs.get("skip_rows_after_header"))
        return scan_csv(*args, **kwargs)

    monkeypatch.setattr(pl, "scan_csv", spy)
    n = 20_000
    values = [None if i in (n - 10, n - 3) else (i * 7919) % 100_003 - 50_000 for i in range(n)]
    src = tmp_path / "long.csv"
    src.write_text("px\n" + "".join("NA\n" if v is None else f"{v}\n" for v in values))
    out = tmp_path / "out.parquet"
    format_file(src, out, [ColumnSpec("px", 2, -3)], batch_size=500, csv_nulls=("", "NA"))
    # The header, then the rest from a batch boundary before the first null string (12,500
    # here: polars hands its chunks out before it fails; 0 if it failed first).
    assert len(skips) == 2 and skips[0] == 0 and 0 <= skips[1] < n - 10 and skips[1] % 500 == 0
    got = pq.read_table(out)["px"].to_pylist()
    assert got == [None if v is None else reference_fixed(v, -3, 2) for v in values]


def test_auto_keeps_pyarrows_writer_on_one_core(tmp_path, monkeypatch):
    """polars' writer spends more CPU time than pyarrow's: on one core, auto is pyarrow."""
    pytest.importorskip("polars")
    import vecfix._format

    monkeypatch.setattr(vecfix._plan, "usable_cores", lambda: 1)
    src = source(tmp_path, "parquet")
    format_file(src, tmp_path / "auto.parquet", SPECS)
    assert writer(tmp_path / "auto.parquet") == "pyarrow"
    format_file(src, tmp_path / "forced.parquet", SPECS, engine="polars")  # still allowed
    assert writer(tmp_path / "forced.parquet") == "polars"
    assert pq.read_table(tmp_path / "forced.parquet")["px"].to_pylist() == want_px()
