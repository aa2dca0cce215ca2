"""vecfix.files in process: per-row scales, output names, sentinel warnings, where the output
goes (regular files, links, pipes, devices), and lazy imports.

Expected text comes from ``tests/reference.py`` (exact integer arithmetic), never from vecfix.
Files are small: these tests also run under ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import csv
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
    out = format_batch(table(), [ColumnSpec("px", exponent=-9, scale_column="decimals")])
    assert out["px"].to_pylist() == want_by_symbol(TICKS)
    assert out.column_names == ["symbol", "px", "decimals"]


def test_scale_map_looks_up_each_rows_symbol():
    spec = ColumnSpec("px", exponent=-9, scales_by=("symbol", TICKS))
    assert format_batch(table(), [spec])["px"].to_pylist() == want_by_symbol(TICKS)


def test_scale_map_on_a_dictionary_column():
    t = table()
    t = t.set_column(0, "symbol", t["symbol"].dictionary_encode())
    spec = ColumnSpec("px", exponent=-9, scales_by=("symbol", TICKS))
    assert format_batch(t, [spec])["px"].to_pylist() == want_by_symbol(TICKS)


def test_scale_map_unknown_symbol_names_symbol_and_row_or_uses_default():
    ticks = {k: v for k, v in TICKS.items() if k != "CLZ4"}
    with pytest.raises(DataError, match=r"row 3 .*'CLZ4'.*'symbol'.*--scale"):
        format_batch(table(), [ColumnSpec("px", exponent=-9, scales_by=("symbol", ticks))])
    spec = ColumnSpec("px", scale=3, exponent=-9, scales_by=("symbol", ticks))
    assert format_batch(table(), [spec])["px"].to_pylist() == want_by_symbol(ticks, 3)


def test_scale_column_null_or_out_of_range_names_the_row():
    t = table().set_column(2, "decimals", pa.array([2, 6, None, 2, 2, 0], pa.int64()))
    with pytest.raises(DataError, match=r"scale column 'decimals', row 2 .*null"):
        format_batch(t, [ColumnSpec("px", exponent=-9, scale_column="decimals")])
    t = table().set_column(2, "decimals", pa.array([2, 6, 2, 2**40, 2, 0], pa.int64()))
    with pytest.raises(DataError, match=r"scale column 'decimals', row 3 .*1099511627776"):
        format_batch(t, [ColumnSpec("px", exponent=-9, scale_column="decimals")])
    t = table().set_column(2, "decimals", pa.array(["2"] * 6))
    with pytest.raises(DataError, match="scale column 'decimals' is string"):
        format_batch(t, [ColumnSpec("px", exponent=-9, scale_column="decimals")])
    with pytest.raises(DataError, match="no column 'decimal'"):
        format_batch(t, [ColumnSpec("px", exponent=-9, scale_column="decimal")])


def test_spec_needs_exactly_one_way_to_scale():
    with pytest.raises(UsageError, match="no scale"):
        ColumnSpec("px", exponent=-9)
    with pytest.raises(UsageError, match="not both"):
        ColumnSpec("px", scale=2, scale_column="d")
    with pytest.raises(UsageError, match="not both"):
        ColumnSpec("px", scale_column="d", scales_by=("s", {}))
    with pytest.raises(UsageError, match="symbol 'X'"):
        ColumnSpec("px", scales_by=("s", {"X": 2**31}))
    with pytest.raises(UsageError, match="scale must be an int"):
        ColumnSpec("px", scale=True)


def test_read_scale_map_csv_and_json(tmp_path):
    (tmp_path / "a.csv").write_text("symbol,decimals\nESZ4,2\n\nZNZ4, 6\n")
    (tmp_path / "b.csv").write_text("ESZ4,2\nZNZ4,6\n")
    (tmp_path / "c.json").write_text(json.dumps({"ESZ4": 2, "ZNZ4": 6}))
    bom = "\ufeff"  # a byte-order mark, as Excel's "CSV UTF-8" writes: not part of a symbol
    (tmp_path / "d.csv").write_text(bom + "ESZ4,2\nZNZ4,6\n", encoding="utf-8")
    (tmp_path / "e.json").write_text(bom + json.dumps({"ESZ4": 2, "ZNZ4": 6}), encoding="utf-8")
    for name in ("a.csv", "b.csv", "c.json", "d.csv", "e.json"):
        assert read_scale_map(tmp_path / name) == {"ESZ4": 2, "ZNZ4": 6}
    (tmp_path / "bad.csv").write_text("ESZ4,2\nZNZ4,six\n")
    with pytest.raises(UsageError, match=r"bad.csv'.*line 2.*'six'"):
        read_scale_map(tmp_path / "bad.csv")
    (tmp_path / "bad.json").write_text('{"ESZ4": 2.5}')
    with pytest.raises(UsageError, match=r"'ESZ4' has 2.5"):
        read_scale_map(tmp_path / "bad.json")
    (tmp_path / "twice.json").write_text('{"ESZ4": 2, "ZNZ4": 6, "ESZ4": 3}')
    with pytest.raises(UsageError, match=r"twice.json'.*symbol 'ESZ4' is listed twice"):
        read_scale_map(tmp_path / "twice.json")
    (tmp_path / "same.json").write_text('{"ESZ4": 2, "ESZ4": 2}')  # the same scale: fine
    assert read_scale_map(tmp_path / "same.json") == {"ESZ4": 2}
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(UsageError, match="JSON object"):
        read_scale_map(tmp_path / "list.json")
    with pytest.raises(UsageError, match="cannot read the scale map"):
        read_scale_map(tmp_path / "none.json")


# --------------------------------------------------------------------------- output names


def test_output_name_keeps_the_raw_column_beside_the_text():
    spec = ColumnSpec("px", exponent=-9, scale_column="decimals", output_name="price")
    out = format_batch(table(), [spec])
    assert out.column_names == ["symbol", "px", "price", "decimals"]
    assert out["px"].to_pylist() == PX
    assert out["price"].to_pylist() == want_by_symbol(TICKS)
    with pytest.raises(DataError, match="already has a column 'symbol'"):
        format_batch(table(), [ColumnSpec("px", 2, -9, output_name="symbol")])
    with pytest.raises(UsageError, match="would be named 'p'"):
        format_batch(
            table(),
            [
                ColumnSpec("px", 2, -9, output_name="p"),
                ColumnSpec("decimals", 0, 0, output_name="p"),
            ],
        )


# --------------------------------------------------------------------------- sentinels


@pytest.mark.parametrize(
    ("sentinel", "kind"), [(INT64_MAX, "int64"), (INT64_MIN, "int64"), (2**64 - 1, "uint64")]
)
def test_sentinel_without_null_warns_with_column_row_and_fix(tmp_path, sentinel, kind):
    px = [*PX[:4], sentinel, PX[5]]
    if kind == "uint64":
        px = [abs(v) for v in px]
    column = pa.array(px, getattr(pa, kind)())
    pq.write_table(pa.table({"px": column}), tmp_path / "in.parquet")
    said: list[str] = []
    format_file(
        tmp_path / "in.parquet", tmp_path / "o.parquet", [ColumnSpec("px", 2, -9)],
        on_warning=said.append,
    )  # fmt: skip
    assert len(said) == 1
    assert "'px'" in said[0] and "row 4" in said[0] and f"--null {sentinel}" in said[0]
    text = pq.read_table(tmp_path / "o.parquet")["px"].to_pylist()
    assert text[4] == reference_fixed(sentinel, -9, 2)  # printed, as asked, but said so
    said.clear()
    format_file(
        tmp_path / "in.parquet", tmp_path / "o.parquet", [ColumnSpec("px", 2, -9, (sentinel,))],
        on_warning=said.append,
    )  # fmt: skip
    assert said == [] and pq.read_table(tmp_path / "o.parquet")["px"][4].as_py() is None


def test_sentinel_warning_is_a_python_warning_by_default():
    t = pa.table({"px": pa.array([1, INT64_MAX], pa.int64())})
    with pytest.warns(SentinelWarning, match="int64 max"):
        format_batch(t, [ColumnSpec("px", 0, 0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        format_batch(pa.table({"px": pa.array([1, 2], pa.int64())}), [ColumnSpec("px", 0, 0)])


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
    format_file(src, link, [ColumnSpec("px", 2, -9)])
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "old" not in target.read_text() and "5000.25" in target.read_text()
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize("fmt", ["csv", "parquet", "arrow"])
def test_named_pipe_output_is_written_not_replaced(tmp_path, fmt):
    src = small_parquet(tmp_path)
    fifo = tmp_path / f"out.{fmt}"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    format_file(src, fifo, [ColumnSpec("px", 2, -9)])
    reader.join(30)
    assert fifo.is_fifo()  # still the pipe: not replaced by a regular file
    t = _read(fmt, got[0])
    assert t["px"].to_pylist() == [reference_fixed(c, -9, 2) for c in PX]


#: A CSV whose header starts with a byte-order mark (as Excel writes) and whose kept text
#: column has leading zeros, which a reader that guessed its type would drop.
BOM_CSV = b"\xef\xbb\xbfzip,px\n007,5000.25\n0012,\n"
BOM_WANT = ['"zip","px"', '"007","5000.25"', '"0012",']


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize("codec", ["", ".gz", ".bz2"])
def test_named_pipe_input_plain_or_compressed(tmp_path, codec):
    """A named pipe of CSV text, plain or gzip or bz2 (told by its first bytes): read
    through the decoder, so that its header names the columns (kept as text) as a file's
    does."""
    import bz2
    import gzip

    data = {"": bytes, ".gz": gzip.compress, ".bz2": bz2.compress}[codec](BOM_CSV)
    fifo = tmp_path / f"in.csv{codec}"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(data))
    writer.start()
    out = tmp_path / "o.csv"
    format_file(fifo, out, [ColumnSpec("px", scale=2)])
    writer.join(30)
    assert out.read_text().splitlines() == BOM_WANT
    (tmp_path / "f.csv").write_bytes(BOM_CSV)  # the same as from a regular file
    format_file(tmp_path / "f.csv", out, [ColumnSpec("px", scale=2)])
    assert out.read_text().splitlines() == BOM_WANT


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_named_pipe_of_another_codec_is_refused(tmp_path):
    """A pipe's codec is told by its first bytes (not its name): zstd is refused."""
    fifo = tmp_path / "in.csv"
    os.mkfifo(fifo)
    zstd = b"\x28\xb5\x2f\xfd" + bytes(20)  # a zstd frame's magic number
    writer = threading.Thread(target=lambda: fifo.write_bytes(zstd))
    writer.start()
    with pytest.raises(UsageError, match=r"'.*in.csv' is zstd-compressed: decompress it"):
        format_file(fifo, tmp_path / "o.csv", [ColumnSpec("px", scale=2)])
    writer.join(30)


@pytest.mark.parametrize("codec", ["", "gzip", "bz2"])
def test_standard_input_plain_or_compressed_with_a_byte_order_mark(tmp_path, monkeypatch, codec):
    """Standard input of CSV text (its header's byte-order mark is not part of the first
    name), or of gzip or bz2 bytes, which its first bytes show (cat f.csv.gz | ...)."""
    import bz2
    import gzip
    import io

    import vecfix.files

    data = {"": bytes, "gzip": gzip.compress, "bz2": bz2.compress}[codec](BOM_CSV)
    monkeypatch.setattr(vecfix.files, "_stdin", lambda: io.BufferedReader(io.BytesIO(data)))
    out = tmp_path / "o.csv"
    format_file("-", out, [ColumnSpec("px", scale=2)])
    assert out.read_text().splitlines() == BOM_WANT


def test_standard_input_header_name_with_a_line_break(tmp_path, monkeypatch):
    """A quoted header name holding a line break, on standard input: the whole name is
    read (every line of the header record), so its column stays text as from a file."""
    import io

    import vecfix.files

    data = b'sym,"note\nline 2",px\nES,007,1.005\n'
    monkeypatch.setattr(vecfix.files, "_stdin", lambda: io.BufferedReader(io.BytesIO(data)))
    format_file("-", tmp_path / "piped.parquet", [ColumnSpec("px", scale=2)], input_format="csv")
    got = pq.read_table(tmp_path / "piped.parquet")
    assert got.column_names == ["sym", "note\nline 2", "px"]
    assert got.to_pylist() == [{"sym": "ES", "note\nline 2": "007", "px": "1.01"}]


def test_standard_input_empty_lines_as_from_a_file(tmp_path, monkeypatch):
    """On standard input too, empty lines before the header are skipped and an empty line
    after it is a row of nulls, as from a file (of any size)."""
    import io

    import vecfix.files

    data = b"\n\r\npx,sym\n1005,ES\n\n2500,NQ\n"
    monkeypatch.setattr(vecfix.files, "_stdin", lambda: io.BufferedReader(io.BytesIO(data)))
    format_file("-", tmp_path / "piped.parquet", [ColumnSpec("px", 1, -3)], input_format="csv")
    got = pq.read_table(tmp_path / "piped.parquet")
    assert got.to_pydict() == {"px": ["1.0", None, "2.5"], "sym": ["ES", None, "NQ"]}
    src = tmp_path / "same.csv"
    src.write_bytes(data)
    format_file(src, tmp_path / "file.parquet", [ColumnSpec("px", 1, -3)])
    assert pq.read_table(tmp_path / "file.parquet").to_pydict() == got.to_pydict()


def test_standard_input_of_another_codec_is_refused(tmp_path, monkeypatch):
    import io

    import vecfix.files

    zstd = b"\x28\xb5\x2f\xfd" + bytes(20)  # a zstd frame's magic number
    monkeypatch.setattr(vecfix.files, "_stdin", lambda: io.BufferedReader(io.BytesIO(zstd)))
    with pytest.raises(UsageError, match=r"standard input is zstd-compressed: decompress it"):
        format_file("-", tmp_path / "o.csv", [ColumnSpec("px", scale=2)])


def _read(fmt: str, data: bytes) -> pa.Table:
    if fmt == "parquet":
        return pq.read_table(pa.BufferReader(data))
    if fmt == "arrow":
        import pyarrow.ipc as ipc

        return ipc.open_file(pa.BufferReader(data)).read_all()
    import pyarrow.csv as pacsv

    return pacsv.read_csv(
        pa.BufferReader(data),
        convert_options=pacsv.ConvertOptions(column_types={"px": pa.string()}),
    )


def test_output_that_is_a_directory_or_the_input_is_refused(tmp_path):
    src = small_parquet(tmp_path)
    with pytest.raises(UsageError, match="is a directory"):
        format_file(src, tmp_path, [ColumnSpec("px", 2, -9)], output_format="csv")
    with pytest.raises(UsageError, match="overwrite the input"):
        format_file(src, src, [ColumnSpec("px", 2, -9)])
    link = tmp_path / "same.parquet"
    link.symlink_to(src)
    with pytest.raises(UsageError, match="overwrite the input"):
        format_file(src, link, [ColumnSpec("px", 2, -9)])
    with pytest.raises(UsageError, match="compression"):
        format_file(src, tmp_path / "o.parquet", [ColumnSpec("px", 2, -9)], compression="xz")


def test_compression_choice_is_used(tmp_path):
    src = small_parquet(tmp_path)
    for codec, stored in (("none", "UNCOMPRESSED"), ("zstd", "ZSTD"), (None, "SNAPPY")):
        format_file(src, tmp_path / "o.parquet", [ColumnSpec("px", 2, -9)], compression=codec)
        meta = pq.ParquetFile(tmp_path / "o.parquet").metadata
        assert meta.row_group(0).column(1).compression == stored


def test_stdio_defaults_to_csv():
    assert file_format("-") == "csv" and file_format("-", "parquet") == "parquet"


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


def test_cold_compile_line_comes_before_the_work(monkeypatch, capsys):
    from vecfix import _engine
    from vecfix.cli import _say_if_cold

    monkeypatch.setattr(_engine, "_state", {**_engine._state, "mode": "auto"})
    monkeypatch.setattr(_engine, "ready", lambda name="fixed": False)
    _say_if_cold(quiet=False)
    assert "first run on this machine" in capsys.readouterr().err
    _say_if_cold(quiet=True)
    monkeypatch.setattr(_engine, "ready", lambda name="fixed": True)
    _say_if_cold(quiet=False)
    assert capsys.readouterr().err == ""


def test_csv_progress_counts_rows(tmp_path, capsys):
    pytest.importorskip("tqdm")
    (tmp_path / "in.csv").write_text("px\n" + "".join(f"{i}.5\n" for i in range(3000)))
    stats = format_file(
        tmp_path / "in.csv", tmp_path / "o.csv", [ColumnSpec("px", 0)], batch_size=1000,
        progress=True,
    )  # fmt: skip
    assert (stats.rows, stats.batches) == (3000, 3)
    err = capsys.readouterr().err
    assert "rows/s" in err and "B/s" not in err  # rows, not bytes
    assert "%" not in err  # no guessed total to jump through


def test_row_errors_are_counted_from_the_start_of_the_file():
    from vecfix.files import _row_error

    class Legacy(ValueError):
        row = 3

    class WithDetail(ValueError):  # the shape of vecfix.RowError: detail after "row N"
        row, detail = 3, ": '1,5' is not decimal text"

    spec = ColumnSpec("px", 2)
    for exc in (Legacy("texts row 3: '1,5' is not decimal text"), WithDetail("ignored")):
        text = str(_row_error(spec, exc, first_row=1000))
        assert (
            text == "column 'px', row 1,003 (counting data rows from 0): '1,5' is not decimal text"
        )
    assert str(_row_error(spec, ValueError("bad"), first_row=0)) == "column 'px': bad"


@pytest.mark.parametrize("engine", ["pyarrow", "polars"])
def test_parquet_output_row_groups_and_statistics(tmp_path, monkeypatch, engine):
    import vecfix.files

    if engine == "polars":
        pytest.importorskip("polars")
    monkeypatch.setattr(vecfix.files, "ROW_GROUP_SIZE", 4)  # batches gathered into groups
    src = small_parquet(tmp_path)  # 6 rows
    spec = ColumnSpec("px", 2, -9)
    format_file(src, tmp_path / "o.parquet", [spec], batch_size=1, engine=engine)
    meta = pq.ParquetFile(tmp_path / "o.parquet").metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [4, 2]
    names = [meta.schema.column(i).name for i in range(meta.num_columns)]
    stats = {n: meta.row_group(0).column(i).statistics for i, n in enumerate(names)}
    assert stats["symbol"].has_min_max and stats["decimals"].has_min_max
    if engine == "pyarrow":
        assert stats["px"] is None  # text min/max would sort "10" before "9": not written
    else:  # polars decides for every column at once: kept for the columns passed through
        assert stats["px"].has_min_max
        only = tmp_path / "only.parquet"  # every column formatted: no min/max at all
        pq.write_table(table().select(["px"]), tmp_path / "px.parquet")
        format_file(tmp_path / "px.parquet", only, [spec], engine=engine)
        assert pq.ParquetFile(only).metadata.row_group(0).column(0).statistics is None
    assert pq.read_table(tmp_path / "o.parquet")["px"].to_pylist() == [
        reference_fixed(c, -9, 2) for c in PX
    ]


@pytest.mark.parametrize("reader", ["polars", "pyarrow"])
def test_csv_readers_agree_on_text_nulls_and_quoting(tmp_path, monkeypatch, reader):
    import vecfix.files

    if reader == "polars":
        pytest.importorskip("polars")
        monkeypatch.setattr(vecfix.files, "POLARS_CSV_BYTES", 0)  # small files too
        polars_reader = vecfix.files._polars_csv_reader
        used: list[bool] = []

        def spy(*args):
            got = polars_reader(*args)
            used.append(got is not None)  # None would mean: fell back to pyarrow
            return got

        monkeypatch.setattr(vecfix.files, "_polars_csv_reader", spy)
    else:
        monkeypatch.setattr(vecfix.files, "_polars_csv_reader", lambda *a: None)
    src = tmp_path / "in.csv"
    src.write_bytes(
        b'sym,px_e9,note,qty\n"ES,Z4",5000250000000,"two\nlines",007\n'
        b"ZN,,NA,\nCL,-45125000000,x,1.50\nNA,,null,NULL\n"
    )
    specs = [ColumnSpec("px_e9", 2, -9), ColumnSpec("qty", 1, output_name="qty_text")]
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
    # text: string from pyarrow's writer, large_string from polars' (one Parquet type)
    assert {t.schema.field(n).type for n in ("sym", "note")} <= {pa.string(), pa.large_string()}
    (tmp_path / "bad.csv").write_bytes(b"px\n12\n2.675\n")
    with pytest.raises(DataError, match=r"In column 'px'.*2\.675.*leave out --exponent"):
        format_file(tmp_path / "bad.csv", tmp_path / "o.csv", [ColumnSpec("px", 2, -3)])
    if reader == "polars":
        assert used and all(used)  # the polars reader did the reading


@pytest.fixture(params=["polars", "pyarrow"])
def csv_reader(request, monkeypatch) -> str:
    """Which reader parses the test's CSV, whatever its size: polars' or pyarrow's."""
    import vecfix.files

    if request.param == "polars":
        pytest.importorskip("polars")
        monkeypatch.setattr(vecfix.files, "POLARS_CSV_BYTES", 0)
    else:
        monkeypatch.setattr(vecfix.files, "_polars_csv_reader", lambda *a: None)
    return request.param


def test_csv_quoted_empty_cells_are_null_in_both_readers(tmp_path, csv_reader):
    """A quoted empty cell ("", as a writer quoting every field writes a missing value) is
    null like an unquoted one, in text, decimal-text and integer columns, whichever reader
    (polars' reads it as an empty string by itself)."""
    src = tmp_path / "in.csv"
    src.write_text('"sym","px","n"\n"ES","1.005","15"\n"","",""\n,,\n')
    out = tmp_path / "o.parquet"
    format_file(src, out, [ColumnSpec("px", 2), ColumnSpec("n", 1, -1)])
    t = pq.read_table(out)
    assert t["sym"].to_pylist() == ["ES", None, None]
    assert t["px"].to_pylist() == ["1.01", None, None]
    assert t["n"].to_pylist() == ["1.5", None, None]


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_csv_empty_lines_are_null_rows_in_both_readers(tmp_path, csv_reader, eol):
    """An empty line is a row of nulls (as vecfix writes a null row of a one-column CSV),
    in files of one column and of two, at the end too, whichever reader: the rows do not
    depend on the file's size. Empty lines before the header are skipped."""
    one = tmp_path / "one.csv"
    one.write_bytes(eol.join(["", "", "px", "1005", "", "-2", "", ""]).encode())
    format_file(one, tmp_path / "one.parquet", [ColumnSpec("px", 2, -3)])
    assert pq.read_table(tmp_path / "one.parquet")["px"].to_pylist() == ["1.01", None, "0.00", None]
    two = tmp_path / "two.csv"
    two.write_bytes(eol.join(["px,sym", "1005,ES", "", "2500,NQ", ""]).encode() + eol.encode())
    format_file(two, tmp_path / "two.parquet", [ColumnSpec("px", 1, -3)])
    t = pq.read_table(tmp_path / "two.parquet")
    assert t["px"].to_pylist() == ["1.0", None, "2.5", None]
    assert t["sym"].to_pylist() == ["ES", None, "NQ", None]


def test_a_one_column_csv_with_nulls_reads_back_row_for_row(tmp_path, csv_reader):
    """vecfix's own one-column CSV output (a null row is an empty line) read back by
    ``vecfix format``: every row where it was."""
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"px": pa.array([1005, None, -2500, None, 7], pa.int64())}), src)
    format_file(src, tmp_path / "mid.csv", [ColumnSpec("px", 2, -3)])
    format_file(tmp_path / "mid.csv", tmp_path / "back.parquet", [ColumnSpec("px", 1)])
    want = [reference_fixed(1005, -3, 1), None, reference_fixed(-2500, -3, 1), None, "0.0"]
    assert pq.read_table(tmp_path / "back.parquet")["px"].to_pylist() == want


def test_csv_integer_cells_that_are_not_integers(tmp_path, csv_reader):
    """An integer column's cell that is no integer names the column and what it is read
    for; "NA" there is such a cell unless csv_nulls lists it."""
    src = tmp_path / "in.csv"
    src.write_text("sym,px,dec\nES,15,2\nNQ,NA,1.5\n")
    out = tmp_path / "o.csv"
    with pytest.raises(DataError, match=r"In column 'px'.*'NA'.*--exponent.*--csv-null"):
        format_file(src, out, [ColumnSpec("px", 2, -1)])
    by_row = [ColumnSpec("px", None, -1, scale_column="dec")]
    with pytest.raises(DataError, match=r"In column 'dec'.*'1\.5'.*A --scale-column holds"):
        format_file(src, out, by_row, csv_nulls=("", "NA"))
    src.write_text("sym,px,dec\nES,15,2\nNQ,NA,1\n")
    format_file(src, out, by_row, csv_nulls=("", "NA"))
    assert out.read_text().splitlines() == ['"sym","px","dec"', '"ES","1.50",2', '"NQ",,1']
    with pytest.raises(UsageError, match="csv_nulls must be a sequence of str"):
        format_file(src, out, [ColumnSpec("px", 2, -1)], csv_nulls="NA")


def test_column_kinds_follow_format_fixeds_rule(tmp_path):
    """The file formatter takes what format_fixed takes (binary decimal text) and refuses
    what it refuses (bools), with the input layer's message: no second rule of its own."""
    t = pa.table(
        {"px": pa.array([b"1.005", b"-2.5", None], pa.binary()), "flag": [True, False, True]}
    )
    pq.write_table(t, tmp_path / "in.parquet")
    format_file(tmp_path / "in.parquet", tmp_path / "o.parquet", [ColumnSpec("px", 2)])
    assert pq.read_table(tmp_path / "o.parquet")["px"].to_pylist() == ["1.01", "-2.50", None]
    with pytest.raises(
        DataError, match=r"column 'flag': cannot format an Arrow array of type bool"
    ):
        format_file(tmp_path / "in.parquet", tmp_path / "o2.parquet", [ColumnSpec("flag", 2)])


# --------------------------------------------------------------------------- read-ahead threads

BAD_CSV = b"sym,px\n" + b"".join(b"S%d,%d.5\n" % (i % 7, i) for i in range(2_000))

EXIT_WHILE_READING = """
import io, sys, time
import vecfix.files as files

class Slow(io.RawIOBase):  # standard input whose every read takes a while
    def __init__(self, data):
        self.data = io.BytesIO(data)
    def readable(self):
        return True
    def readline(self, size=-1):
        return self.data.readline(size)
    def readinto(self, b):
        time.sleep(0.2)
        return self.data.readinto(b)

files._stdin = lambda: Slow(sys.stdin.buffer.read())
spec = files.ColumnSpec("px", scale=2, exponent=-3)
try:
    files.format_file("-", sys.argv[1], [spec], batch_size=64, progress=False)
except files.DataError as exc:
    print(exc)
"""


def test_no_read_ahead_thread_is_left_in_python_at_exit(tmp_path):
    """An error in the first block, then the interpreter exits while pyarrow's read-ahead
    thread is still inside a slow read of standard input: the process must end normally
    (it aborted when that thread entered Python during the interpreter's exit)."""
    r = subprocess.run(
        [sys.executable, "-c", EXIT_WHILE_READING, str(tmp_path / "out.csv")],
        input=BAD_CSV,
        capture_output=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=120,
    )
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    assert b"conversion error to int64" in r.stdout
    assert not (tmp_path / "out.csv").exists()


def test_regular_csv_files_are_read_without_python_in_pyarrows_threads(tmp_path, monkeypatch):
    """pyarrow reads a regular file on threads Python did not start: through its own file
    stream, never through a Python file object (such a thread may enter Python while the
    interpreter exits, which aborts the process)."""
    import builtins

    import vecfix.files as files

    readers: list[threading.Thread] = []

    class Watched:
        def __init__(self, f):
            self._f = f

        def __getattr__(self, name):
            return getattr(self._f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._f.close()

        def read(self, *a):
            readers.append(threading.current_thread())
            return self._f.read(*a)

        def readinto(self, b):
            readers.append(threading.current_thread())
            return self._f.readinto(b)

    def watched_open(path, mode="r", *a, **k):
        f = builtins.open(path, mode, *a, **k)
        return Watched(f) if "b" in mode and "r" in mode else f

    monkeypatch.setattr(files, "open", watched_open, raising=False)
    src = tmp_path / "in.csv"
    src.write_bytes(BAD_CSV.replace(b".5", b"5"))
    for bad in (False, True):
        if bad:
            src.write_bytes(BAD_CSV)
        try:
            format_file(src, tmp_path / "out.csv", [ColumnSpec("px", 2, -3)], batch_size=64)
        except DataError:
            assert bad
    foreign = [t for t in readers if isinstance(t, threading._DummyThread)]
    assert not foreign, f"{len(foreign)} reads of {src.name} on pyarrow's threads"


@pytest.mark.parametrize("codec", ["gzip", "bz2", "zstd"])
def test_compressed_csv_input_is_read_whole(tmp_path, codec):
    """A compressed CSV input (read through pyarrow's own decompressing stream), over
    several blocks and batches, gives every row."""
    rows = 3_000
    px = [(i * 7919) % 10**9 * 1_000 + 500 for i in range(rows)]
    text = "sym,px\n" + "".join(f"S{i % 5},{c}\n" for i, c in enumerate(px))
    ext = {"gzip": "gz", "bz2": "bz2", "zstd": "zst"}[codec]
    src = tmp_path / f"in.csv.{ext}"
    with pa.output_stream(str(src), compression=codec) as f:
        f.write(text.encode())
    out = tmp_path / "out.csv"
    stats = format_file(src, out, [ColumnSpec("px", 2, -6)], batch_size=100, progress=False)
    assert stats.rows == rows
    with open(out, newline="") as f:
        got = [r["px"] for r in csv.DictReader(f)]
    assert got == [reference_fixed(c, -6, 2) for c in px]


def test_an_empty_output_name_is_refused():
    """It added a second column of the input's name (a file readers then refuse)."""
    for bad in ("", b"px", 3):
        with pytest.raises(UsageError, match=r"name .*must be a non-empty str"):
            ColumnSpec("px", 2, output_name=bad)
    assert ColumnSpec("px", 2, output_name="p2").target == "p2"
