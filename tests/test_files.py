"""vecfix.files in process: per-row scales (a column, a symbol map joined in), output names,
sentinel warnings, where the input comes from (files, compressed CSV, standard input,
named pipes) and where the output goes (regular files, links, pipes, devices), and lazy
imports.

Expected text comes from ``tests/reference.py`` (exact integer arithmetic), never from vecfix.
Files are small: these tests also run under ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest
from reference import reference_fixed

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pl = pytest.importorskip("polars")

from vecfix import NumberFormat  # noqa: E402
from vecfix.files import (  # noqa: E402
    ColumnSpec,
    DataError,
    SentinelWarning,
    UsageError,
    file_format,
    format_batch,
    format_file,
    read_scale_map,
)

ROOT = Path(__file__).resolve().parent.parent
INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)
SYMBOLS = ["ESZ4", "ZNZ4", "6JZ4", "CLZ4", "ESZ4", "YMZ4"]
TICKS = {"ESZ4": 2, "ZNZ4": 6, "6JZ4": 7, "CLZ4": 2, "YMZ4": 0}
PX = [5000_250000000, 110_015625000, 6_700050, -45_125000000, 4999_995000000, 39001_500000000]


def spec(name: str, scale=None, exponent=None, null=None, **kw) -> ColumnSpec:
    return ColumnSpec(name, NumberFormat(exponent, scale, null), **kw)


def table() -> pa.Table:
    return pa.table(
        {
            "symbol": pa.array(SYMBOLS),
            "px": pa.array(PX, pa.int64()),
            "decimals": pa.array([TICKS[s] for s in SYMBOLS], pa.int8()),
        }
    )


def want_by_symbol(ticks: dict[str, int], default: int | None = None) -> list[str]:
    return [reference_fixed(c, -9, ticks.get(s, default)) for c, s in zip(PX, SYMBOLS, strict=True)]


# --------------------------------------------------------------------------- per-row scales


def test_scale_column_gives_each_row_its_scale():
    out = format_batch(table(), [spec("px", "decimals", -9)])
    assert out["px"].to_pylist() == want_by_symbol(TICKS)
    assert out.column_names == ["symbol", "px", "decimals"]
    assert isinstance(out, pa.Table)
    batch = format_batch(table().to_batches()[0], [spec("px", "decimals", -9)])
    assert isinstance(batch, pa.RecordBatch) and batch.num_rows == len(PX)


def test_scale_map_is_a_join_on_each_rows_symbol():
    s = spec("px", None, -9, scales_by=("symbol", TICKS))
    assert format_batch(table(), [s])["px"].to_pylist() == want_by_symbol(TICKS)
    frame = pl.from_arrow(table())  # a polars frame in, a polars frame out
    assert format_batch(frame, [s])["px"].to_list() == want_by_symbol(TICKS)


def test_scale_map_on_a_dictionary_column():
    t = table()
    t = t.set_column(0, "symbol", t["symbol"].dictionary_encode())
    s = spec("px", None, -9, scales_by=("symbol", TICKS))
    assert format_batch(t, [s])["px"].to_pylist() == want_by_symbol(TICKS)


def test_scale_map_unknown_symbol_names_symbol_and_row_or_uses_default():
    ticks = {k: v for k, v in TICKS.items() if k != "CLZ4"}
    with pytest.raises(DataError, match=r"row 3 .*'CLZ4'.*'symbol'.*\n.*--scale"):
        format_batch(table(), [spec("px", None, -9, scales_by=("symbol", ticks))])
    s = spec("px", 3, -9, scales_by=("symbol", ticks))
    assert format_batch(table(), [s])["px"].to_pylist() == want_by_symbol(ticks, 3)


def test_a_null_in_the_scale_column_is_a_null_row():
    """As the namespaces and the accessor: a null scale is a null row, not an error."""
    scales = [2, 6, None, 2, 2, 0]
    t = table().set_column(2, "decimals", pa.array(scales, pa.int64()))
    out = format_batch(t, [spec("px", "decimals", -9)]).column("px").to_pylist()
    assert out == [None if s is None else reference_fixed(c, -9, s)
                   for c, s in zip(PX, scales, strict=True)]  # fmt: skip
    assert out[2] is None and PX[2] is not None


def test_scale_column_out_of_range_names_the_row():
    t = table().set_column(2, "decimals", pa.array([2, 6, 2, 2**40, 2, 0], pa.int64()))
    with pytest.raises(DataError, match=r"scale column 'decimals': .*int32.*row 3 .*1099511627776"):
        format_batch(t, [spec("px", "decimals", -9)])
    t = table().set_column(2, "decimals", pa.array(["2"] * 6))
    with pytest.raises(DataError, match="scale column 'decimals' is String"):
        format_batch(t, [spec("px", "decimals", -9)])
    with pytest.raises(DataError, match="no column 'decimal'"):
        format_batch(t, [spec("px", "decimal", -9)])


def test_spec_needs_exactly_one_way_to_scale():
    with pytest.raises(UsageError, match="no scale"):
        spec("px", None, -9)
    with pytest.raises(UsageError, match="not both"):
        spec("px", "d", scales_by=("s", {}))
    with pytest.raises(UsageError, match=r"symbol 'X'.*int32"):
        spec("px", scales_by=("s", {"X": 2**31}))
    with pytest.raises(TypeError, match="scale must be an int"):
        spec("px", True)
    with pytest.raises(UsageError, match=r"must be a vecfix\.NumberFormat"):
        ColumnSpec("px", {"scale": 2})  # type: ignore[arg-type]


def test_read_scale_map_csv_and_json(tmp_path):
    (tmp_path / "a.csv").write_text("symbol,decimals\nESZ4,2\n\nZNZ4, 6\n")
    (tmp_path / "b.csv").write_text("ESZ4,2\nZNZ4,6\n")
    (tmp_path / "c.json").write_text(json.dumps({"ESZ4": 2, "ZNZ4": 6}))
    bom = "\ufeff"  # a byte-order mark, as Excel's "CSV UTF-8" writes: not part of a symbol
    (tmp_path / "d.csv").write_text(bom + "ESZ4,2\nZNZ4,6\n", encoding="utf-8")
    (tmp_path / "e.json").write_text(bom + json.dumps({"ESZ4": 2, "ZNZ4": 6}), encoding="utf-8")
    for name in ("a.csv", "b.csv", "c.json", "d.csv", "e.json"):
        assert read_scale_map(tmp_path / name) == {"ESZ4": 2, "ZNZ4": 6}
    refused = {  # file: (its text, what the message says)
        "bad.csv": ("ESZ4,2\nZNZ4,six\n", r"bad.csv'.*line 2.*'six'"),
        "bad.json": ('{"ESZ4": 2.5}', r"'ESZ4'.*2.5"),
        "twice.json": (
            '{"ESZ4": 2, "ZNZ4": 6, "ESZ4": 3}',
            r"twice.json'.*symbol 'ESZ4' is listed twice",
        ),
        "twice.csv": ("ESZ4,2\nESZ4,3\n", r"twice.csv', line 2: symbol 'ESZ4' is listed twice"),
        "list.json": ("[1, 2]", "JSON object"),
    }
    for name, (text, match) in refused.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(UsageError, match=match):
            read_scale_map(tmp_path / name)
    (tmp_path / "same.json").write_text('{"ESZ4": 2, "ESZ4": 2}')  # the same scale: fine
    assert read_scale_map(tmp_path / "same.json") == {"ESZ4": 2}
    with pytest.raises(UsageError, match="cannot read the scale map"):
        read_scale_map(tmp_path / "none.json")


# --------------------------------------------------------------------------- output names


def test_output_name_keeps_the_raw_column_beside_the_text():
    out = format_batch(table(), [spec("px", "decimals", -9, output_name="price")])
    assert out.column_names == ["symbol", "px", "price", "decimals"]
    assert out["px"].to_pylist() == PX
    assert out["price"].to_pylist() == want_by_symbol(TICKS)
    with pytest.raises(DataError, match="already has a column 'symbol'"):
        format_batch(table(), [spec("px", 2, -9, output_name="symbol")])
    with pytest.raises(UsageError, match="would be named 'p'"):
        format_batch(
            table(), [spec("px", 2, -9, output_name="p"), spec("decimals", 0, 0, output_name="p")]
        )


def test_an_empty_output_name_is_refused():
    """It added a second column of the input's name (a file readers then refuse)."""
    for bad in ("", b"px", 3):
        with pytest.raises(UsageError, match=r"name .*must be a non-empty str"):
            spec("px", 2, output_name=bad)
    assert spec("px", 2, output_name="p2").target == "p2"


# --------------------------------------------------------------------------- sentinels


@pytest.mark.parametrize(
    ("sentinel", "kind"), [(INT64_MAX, "int64"), (INT64_MIN, "int64"), (2**64 - 1, "uint64")]
)
def test_sentinel_without_null_warns_with_column_row_and_fix(tmp_path, sentinel, kind):
    px = [*PX[:4], sentinel, PX[5]]
    if kind == "uint64":
        px = [abs(v) for v in px]
    pq.write_table(pa.table({"px": pa.array(px, getattr(pa, kind)())}), tmp_path / "in.parquet")
    said: list[str] = []
    out = tmp_path / "o.parquet"
    format_file(tmp_path / "in.parquet", out, [spec("px", 2, -9)], on_warning=said.append)
    assert len(said) == 1
    assert "'px'" in said[0] and "row 4 " in said[0] and f"--null {sentinel}" in said[0]
    assert pq.read_table(out)["px"][4].as_py() == reference_fixed(sentinel, -9, 2)  # said so
    said.clear()
    format_file(tmp_path / "in.parquet", out, [spec("px", 2, -9, sentinel)], on_warning=said.append)
    assert said == [] and pq.read_table(out)["px"][4].as_py() is None


def test_sentinel_warning_is_a_python_warning_by_default():
    t = pa.table({"px": pa.array([1, INT64_MAX], pa.int64())})
    with pytest.warns(SentinelWarning, match="int64 max"):
        format_batch(t, [spec("px", 0, 0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        format_batch(pa.table({"px": pa.array([1, 2], pa.int64())}), [spec("px", 0, 0)])


# --------------------------------------------------------------------------- destinations


def small_parquet(d: Path) -> Path:
    pq.write_table(table(), d / "in.parquet")
    return d / "in.parquet"


def test_symlink_to_a_regular_file_stays_a_link(tmp_path):
    src = small_parquet(tmp_path)
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    format_file(src, link, [spec("px", 2, -9)])
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "old" not in target.read_text() and "5000.25" in target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.parquet", "link.csv", "real.csv"]


def _read(fmt: str, data: bytes) -> pa.Table:
    if fmt == "parquet":
        return pq.read_table(pa.BufferReader(data))
    if fmt == "arrow":
        import pyarrow.ipc as ipc

        return ipc.open_file(pa.BufferReader(data)).read_all()
    import pyarrow.csv as pacsv

    types = pacsv.ConvertOptions(column_types={"px": pa.string()})
    return pacsv.read_csv(pa.BufferReader(data), convert_options=types)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize("fmt", ["csv", "parquet", "arrow"])
def test_named_pipe_output_is_written_not_replaced(tmp_path, fmt):
    src = small_parquet(tmp_path)
    fifo = tmp_path / f"out.{fmt}"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    format_file(src, fifo, [spec("px", 2, -9)])
    reader.join(30)
    assert fifo.is_fifo()  # still the pipe: not replaced by a regular file
    assert _read(fmt, got[0])["px"].to_pylist() == [reference_fixed(c, -9, 2) for c in PX]


#: A CSV whose header starts with a byte-order mark (as Excel writes) and whose kept text
#: column has leading zeros, which a reader that guessed its type would drop.
BOM_CSV = b"\xef\xbb\xbfzip,px\n007,5000.25\n0012,\n"
BOM_WANT = ["zip,px", "007,5000.25", "0012,"]


def compress(codec: str, data: bytes) -> bytes:
    if codec in ("", "csv"):
        return data
    if codec in ("gz", "gzip"):
        import gzip

        return gzip.compress(data)
    if codec == "bz2":
        import bz2

        return bz2.compress(data)
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, {"zst": "zstd"}.get(codec, codec)) as f:
        f.write(data)
    return sink.getvalue().to_pybytes()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize("codec", ["", "gz", "bz2", "zst", "lz4"])
def test_named_pipe_input_plain_or_compressed(tmp_path, codec):
    """A named pipe of CSV text, plain or compressed (told by its first bytes, not its
    name): copied into a temporary file, read as a file is, and the copy removed."""
    data = compress(codec, BOM_CSV)
    fifo = tmp_path / "in.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(data))
    writer.start()
    out = tmp_path / "o.csv"
    format_file(fifo, out, [spec("px", 2)])
    writer.join(30)
    assert out.read_text().splitlines() == BOM_WANT
    (tmp_path / "f.csv").write_bytes(BOM_CSV)  # the same as from a regular file
    format_file(tmp_path / "f.csv", out, [spec("px", 2)])
    assert out.read_text().splitlines() == BOM_WANT


@pytest.mark.parametrize("codec", ["", "gz", "bz2", "zst"])
def test_standard_input_plain_or_compressed_with_a_byte_order_mark(tmp_path, monkeypatch, codec):
    """Standard input of CSV text (its header's byte-order mark is not part of the first
    name), or of compressed bytes, which its first bytes show (cat f.csv.gz | ...)."""
    import vecfix._files_io

    data = compress(codec, BOM_CSV)
    monkeypatch.setattr(vecfix._files_io, "_stdin", lambda: io.BufferedReader(io.BytesIO(data)))
    out = tmp_path / "o.csv"
    format_file("-", out, [spec("px", 2)])
    assert out.read_text().splitlines() == BOM_WANT


def test_standard_input_header_name_with_a_line_break(tmp_path, monkeypatch):
    """A quoted header name holding a line break, on standard input: the whole name is
    read, so its column stays text as from a file."""
    import vecfix._files_io

    data = b'sym,"note\nline 2",px\nES,007,1.005\n'
    monkeypatch.setattr(vecfix._files_io, "_stdin", lambda: io.BufferedReader(io.BytesIO(data)))
    format_file("-", tmp_path / "piped.parquet", [spec("px", 2)], input_format="csv")
    got = pq.read_table(tmp_path / "piped.parquet")
    assert got.column_names == ["sym", "note\nline 2", "px"]
    assert got.to_pylist() == [{"sym": "ES", "note\nline 2": "007", "px": "1.01"}]


def test_standard_input_of_parquet_and_empty_lines_as_from_a_file(tmp_path, monkeypatch):
    """Parquet on standard input is read as the file would be; a CSV's empty lines before
    the header are skipped and an empty line after it is a row of nulls, as from a file.
    The temporary copy of standard input is removed."""
    import tempfile

    import vecfix._files_io

    before = set(Path(tempfile.gettempdir()).glob("vecfix-input-*"))
    data = b"\n\r\npx,sym\n1005,ES\n\n2500,NQ\n"
    monkeypatch.setattr(vecfix._files_io, "_stdin", lambda: io.BufferedReader(io.BytesIO(data)))
    format_file("-", tmp_path / "piped.parquet", [spec("px", 1, -3)], input_format="csv")
    got = pq.read_table(tmp_path / "piped.parquet")
    assert got.to_pydict() == {"px": ["1.0", None, "2.5"], "sym": ["ES", None, "NQ"]}
    src = tmp_path / "same.csv"
    src.write_bytes(data)
    format_file(src, tmp_path / "file.parquet", [spec("px", 1, -3)])
    assert pq.read_table(tmp_path / "file.parquet").to_pydict() == got.to_pydict()
    parquet = small_parquet(tmp_path).read_bytes()
    monkeypatch.setattr(vecfix._files_io, "_stdin", lambda: io.BufferedReader(io.BytesIO(parquet)))
    format_file("-", tmp_path / "p.csv", [spec("px", 2, -9)], input_format="parquet")
    assert [r["px"] for r in csv.DictReader(open(tmp_path / "p.csv"))] == want_by_symbol({}, 2)
    assert set(Path(tempfile.gettempdir()).glob("vecfix-input-*")) == before


def test_output_that_is_a_directory_or_the_input_is_refused(tmp_path):
    src = small_parquet(tmp_path)
    with pytest.raises(UsageError, match="is a directory"):
        format_file(src, tmp_path, [spec("px", 2, -9)], output_format="csv")
    with pytest.raises(UsageError, match="overwrite the input"):
        format_file(src, src, [spec("px", 2, -9)])
    link = tmp_path / "same.parquet"
    link.symlink_to(src)
    with pytest.raises(UsageError, match="overwrite the input"):
        format_file(src, link, [spec("px", 2, -9)])
    with pytest.raises(UsageError, match="compression"):
        format_file(src, tmp_path / "o.parquet", [spec("px", 2, -9)], compression="xz")
    with pytest.raises(UsageError, match=r"folder .* does not exist"):
        format_file(src, tmp_path / "nope" / "o.csv", [spec("px", 2, -9)])
    with pytest.raises(UsageError, match="does not exist"):
        format_file(tmp_path / "nope.csv", tmp_path / "o.csv", [spec("px", 2, -9)])


@pytest.mark.parametrize(("codec", "stored"), [("none", "UNCOMPRESSED"), ("zstd", "ZSTD"),
                                               (None, "SNAPPY")])  # fmt: skip
def test_compression_metadata_and_empty_files(tmp_path, codec, stored):
    t = table().replace_schema_metadata({"origin": "test feed"})
    pq.write_table(t, tmp_path / "in.parquet")
    out = tmp_path / "o.parquet"
    format_file(tmp_path / "in.parquet", out, [spec("px", 2, -9)], compression=codec)
    meta = pq.ParquetFile(out).metadata
    assert {meta.row_group(0).column(i).compression for i in range(3)} == {stored}
    pq.write_table(t.slice(0, 0), tmp_path / "empty.parquet")  # no rows: the columns alone
    assert format_file(tmp_path / "empty.parquet", out, [spec("px", 2, -9)]).rows == 0
    empty = pq.read_table(out)
    assert empty.num_rows == 0 and empty.column_names == t.column_names
    assert empty.schema.field("px").type in (pa.string(), pa.large_string(), pa.string_view())


def test_stdio_defaults_to_csv():
    assert file_format("-") == "csv" and file_format("-", "parquet") == "parquet"


def test_parquet_output_row_groups_and_statistics(tmp_path, monkeypatch):
    import vecfix._files_io

    monkeypatch.setattr(vecfix._files_io, "ROW_GROUP_SIZE", 4)
    src = small_parquet(tmp_path)  # 6 rows
    format_file(src, tmp_path / "o.parquet", [spec("px", 2, -9)])
    meta = pq.ParquetFile(tmp_path / "o.parquet").metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [4, 2]
    stats = meta.row_group(0).column(0).statistics  # polars decides for all columns at once:
    assert stats is not None and stats.has_min_max  # kept where columns pass through
    pq.write_table(table().select(["px"]), tmp_path / "px.parquet")
    only = tmp_path / "only.parquet"  # every column formatted: no min/max at all
    format_file(tmp_path / "px.parquet", only, [spec("px", 2, -9)])
    assert pq.ParquetFile(only).metadata.row_group(0).column(0).statistics is None
    assert pq.read_table(tmp_path / "o.parquet")["px"].to_pylist() == want_by_symbol({}, 2)


# --------------------------------------------------------------------------- CSV input


def test_csv_text_nulls_and_quoting(tmp_path):
    src = tmp_path / "in.csv"
    src.write_bytes(
        b'sym,px_e9,note,qty\n"ES,Z4",5000250000000,"two\nlines",007\n'
        b"ZN,,NA,\nCL,-45125000000,x,1.50\nNA,,null,NULL\n"
    )
    specs = [spec("px_e9", 2, -9), spec("qty", 1, output_name="qty_text")]
    # By default only empty cells are null: "NA", "null" stay text (a ticker, a note) ...
    format_file(src, tmp_path / "o.parquet", specs[:1])
    t = pq.read_table(tmp_path / "o.parquet")
    assert t.schema.names == ["sym", "px_e9", "note", "qty"]
    assert t["sym"].to_pylist() == ["ES,Z4", "ZN", "CL", "NA"]
    assert t["px_e9"].to_pylist() == ["5000.25", None, "-45.13", None]
    assert t["note"].to_pylist() == ["two\nlines", "NA", "x", "null"]
    assert t["qty"].to_pylist() == ["007", None, "1.50", "NULL"]  # the raw text, kept as text
    # ... and in a formatted column such text is refused with its row and column
    with pytest.raises(DataError, match=r"column 'qty', row 3 .*'NULL' is not decimal text"):
        format_file(src, tmp_path / "o.parquet", specs)
    # csv_nulls lists the texts read as null, in every column
    format_file(src, tmp_path / "o.parquet", specs, csv_nulls=("", "NA", "NULL", "null"))
    t = pq.read_table(tmp_path / "o.parquet")
    assert t.schema.names == ["sym", "px_e9", "note", "qty", "qty_text"]
    assert t["sym"].to_pylist() == ["ES,Z4", "ZN", "CL", None]
    assert t["note"].to_pylist() == ["two\nlines", None, "x", None]
    assert t["qty"].to_pylist() == ["007", None, "1.50", None]
    assert t["qty_text"].to_pylist() == ["7.0", None, "1.5", None]
    (tmp_path / "bad.csv").write_bytes(b"px\n12\n2.675\n")
    with pytest.raises(DataError, match=r"In column 'px'.*2\.675.*\n.*leave out --exponent"):
        format_file(tmp_path / "bad.csv", tmp_path / "o.csv", [spec("px", 2, -3)])


def test_csv_quoted_empty_cells_are_null(tmp_path):
    """A quoted empty cell ("", as a writer quoting every field writes a missing value) is
    null like an unquoted one, in text, decimal-text and integer columns."""
    src = tmp_path / "in.csv"
    src.write_text('"sym","px","n"\n"ES","1.005","15"\n"","",""\n,,\n')
    out = tmp_path / "o.parquet"
    format_file(src, out, [spec("px", 2), spec("n", 1, -1)])
    t = pq.read_table(out)
    assert t["sym"].to_pylist() == ["ES", None, None]
    assert t["px"].to_pylist() == ["1.01", None, None]
    assert t["n"].to_pylist() == ["1.5", None, None]


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_csv_empty_lines_are_null_rows(tmp_path, eol):
    """An empty line is a row of nulls (as a null row of a one-column CSV is written), in
    files of one column and of two, at the end too. Empty lines before the header are
    skipped."""
    one = tmp_path / "one.csv"
    one.write_bytes(eol.join(["", "", "px", "1005", "", "-2", "", ""]).encode())
    format_file(one, tmp_path / "one.parquet", [spec("px", 2, -3)])
    assert pq.read_table(tmp_path / "one.parquet")["px"].to_pylist() == ["1.01", None, "0.00", None]
    two = tmp_path / "two.csv"
    two.write_bytes(eol.join(["px,sym", "1005,ES", "", "2500,NQ", ""]).encode() + eol.encode())
    format_file(two, tmp_path / "two.parquet", [spec("px", 1, -3)])
    t = pq.read_table(tmp_path / "two.parquet")
    assert t["px"].to_pylist() == ["1.0", None, "2.5", None]
    assert t["sym"].to_pylist() == ["ES", None, "NQ", None]


def test_a_one_column_csv_with_nulls_reads_back_row_for_row(tmp_path):
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"px": pa.array([1005, None, -2500, None, 7], pa.int64())}), src)
    format_file(src, tmp_path / "mid.csv", [spec("px", 2, -3)])
    format_file(tmp_path / "mid.csv", tmp_path / "back.parquet", [spec("px", 1)])
    want = [reference_fixed(1005, -3, 1), None, reference_fixed(-2500, -3, 1), None, "0.0"]
    assert pq.read_table(tmp_path / "back.parquet")["px"].to_pylist() == want


def test_csv_integer_cells_that_are_not_integers(tmp_path):
    """An integer column's cell that is no integer names the column and what it is read
    for; "NA" there is such a cell unless csv_nulls lists it."""
    src = tmp_path / "in.csv"
    src.write_text("sym,px,dec\nES,15,2\nNQ,NA,1.5\n")
    out = tmp_path / "o.csv"
    with pytest.raises(DataError, match=r"In column 'px'.*'NA'.*\n.*--exponent.*--csv-null"):
        format_file(src, out, [spec("px", 2, -1)])
    by_row = [spec("px", "dec", -1)]
    with pytest.raises(DataError, match=r"In column 'dec'.*'1\.5'.*\nA --scale-column holds"):
        format_file(src, out, by_row, csv_nulls=("", "NA"))
    src.write_text("sym,px,dec\nES,15,2\nNQ,NA,1\n")
    format_file(src, out, by_row, csv_nulls=("", "NA"))
    assert out.read_text().splitlines() == ["sym,px,dec", "ES,1.50,2", "NQ,,1"]
    with pytest.raises(UsageError, match="csv_nulls must be a sequence of str"):
        format_file(src, out, [spec("px", 2, -1)], csv_nulls="NA")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "o.csv"]


@pytest.mark.parametrize("codec", ["gz", "bz2", "zst", "lz4"])
def test_compressed_csv_input_is_read_whole(tmp_path, codec):
    """A compressed CSV file (gzip and zstd read by polars, bz2 and lz4 decompressed into a
    temporary file first), over several batches, gives every row."""
    rows = 3_000
    px = [(i * 7919) % 10**9 * 1_000 + 500 for i in range(rows)]
    text = "sym,px\n" + "".join(f"S{i % 5},{c}\n" for i, c in enumerate(px))
    src = tmp_path / f"in.csv.{codec}"
    src.write_bytes(compress(codec, text.encode()))
    out = tmp_path / "out.csv"
    assert format_file(src, out, [spec("px", 2, -6)], progress=False).rows == rows
    with open(out, newline="") as f:
        got = [r["px"] for r in csv.DictReader(f)]
    assert got == [reference_fixed(c, -6, 2) for c in px]


def test_column_kinds_follow_format_fixeds_rule(tmp_path):
    """The file formatter takes what format_fixed takes (binary decimal text) and refuses
    what it refuses (bools), with the input layer's message: no second rule of its own."""
    t = pa.table(
        {"px": pa.array([b"1.005", b"-2.5", None], pa.binary()), "flag": [True, False, True]}
    )
    pq.write_table(t, tmp_path / "in.parquet")
    format_file(tmp_path / "in.parquet", tmp_path / "o.parquet", [spec("px", 2)])
    assert pq.read_table(tmp_path / "o.parquet")["px"].to_pylist() == ["1.01", "-2.50", None]
    with pytest.raises(DataError, match=r"column 'flag': .*Boolean"):
        format_file(tmp_path / "in.parquet", tmp_path / "o2.parquet", [spec("flag", 2)])


# --------------------------------------------------------------------------- progress


def test_progress_line_counts_rows_of_the_total(tmp_path, capsys):
    src = small_parquet(tmp_path)
    stats = format_file(src, tmp_path / "o.csv", [spec("px", 2, -9)], progress=True)
    assert stats.rows == len(PX)
    err = capsys.readouterr().err
    assert err.startswith("\rvecfix format: in.parquet: ")  # rows done, of the total
    assert f" of {len(PX):,} rows (" in err and "%)" in err
    assert err.endswith("\r\x1b[K")  # the line is cleared at the end
    format_file(src, tmp_path / "o.csv", [spec("px", 2, -9)], progress=False)
    assert capsys.readouterr().err == ""
    format_file(src, tmp_path / "o.csv", [spec("px", 2, -9)])  # stderr is not a terminal
    assert capsys.readouterr().err == ""


def test_csv_progress_says_rows_and_the_part_of_the_file(tmp_path, capsys):
    (tmp_path / "in.csv").write_text("px\n" + "".join(f"{i}.5\n" for i in range(3000)))
    stats = format_file(tmp_path / "in.csv", tmp_path / "o.csv", [spec("px", 0)], progress=True)
    assert stats.rows == 3000
    err = capsys.readouterr().err
    assert "in.csv: " in err and " rows, about " in err and "% of 0 MB" in err


# --------------------------------------------------------------------------- lazy imports


def test_import_vecfix_loads_no_kernels_fix_pyarrow_or_dask():
    code = (
        "import sys, vecfix, vecfix.cli, vecfix.files\n"
        "heavy = ('numba', 'numpy', 'pyarrow', 'polars', 'dask', 'pandas', 'vecfix.fix',"
        " 'vecfix._format', 'vecfix._kernels')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m in heavy))\n"
        "from vecfix import fix\n"
        "assert vecfix.fix is fix and 'vecfix.fix' in sys.modules\n"
        "assert 'format_fixed' in dir(vecfix) and callable(vecfix.format_fixed)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_unknown_attribute_is_an_attribute_error():
    import vecfix

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        vecfix.nope  # noqa: B018
    import vecfix.cli

    assert vecfix.cli.format_file is format_file  # the old home of the file formatter


def test_a_cold_run_starts_the_compile_and_says_so(monkeypatch, capsys):
    from vecfix import _engine
    from vecfix.cli import _compile_if_cold

    started = []
    monkeypatch.setattr(_engine, "compiling", lambda: started.append(1) or True)
    monkeypatch.setattr(_engine, "cold", lambda: True)
    _compile_if_cold(quiet=False)
    assert "first run on this machine" in capsys.readouterr().err
    _compile_if_cold(quiet=True)
    assert capsys.readouterr().err == "" and len(started) == 2  # quiet: compiles, says nothing
    monkeypatch.setattr(_engine, "cold", lambda: False)
    _compile_if_cold(quiet=False)
    assert capsys.readouterr().err == "" and len(started) == 2


# --------------------------------------------------------------------------- failures at exit

EXIT_AFTER_A_FAILED_BATCH = """
import sys
import polars as pl
import vecfix.polars
ticks = [2] * 1999 + [2**40]  # the last row's scale is beyond int32: its batch fails
frame = pl.DataFrame({"px": list(range(2000)), "tick": ticks})
try:  # small batches: the failing one ends the query while others are in vecfix
    frame.lazy().with_columns(pl.col("px").vecfix.fixed(-2, "tick")).sink_csv(sys.argv[1])
except Exception as exc:
    print(type(exc).__name__)
"""


def test_the_process_ends_normally_after_a_failed_batch(tmp_path):
    """A batch fails while polars still holds others' text (NumPy memory, which takes the
    GIL to drop): the interpreter must exit normally, not abort (it did when a polars
    thread asked for the GIL during finalization)."""
    for _ in range(3):
        r = subprocess.run(
            [sys.executable, "-c", EXIT_AFTER_A_FAILED_BATCH, str(tmp_path / "o.csv")],
            env=dict(os.environ, PYTHONPATH=str(ROOT), POLARS_IDEAL_MORSEL_SIZE="100"),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        assert r.stdout.strip() == "RowError", r.stdout
