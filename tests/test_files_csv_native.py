"""vecfix's own CSV writer (vecfix._csv): a CSV output whose every column is a formatted
one is written by vecfix's kernel, byte for byte as pyarrow's CSVWriter writes it.

The oracle is pyarrow's writer, run on the same input with ``vecfix.files._NATIVE_CSV``
off; one test also checks the bytes against ``tests/reference.py``. Files are small: these
tests also run under ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from reference import reference_fixed

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import vecfix._csv  # noqa: E402
import vecfix.files  # noqa: E402
from vecfix.files import ColumnSpec, format_file  # noqa: E402

QUOTING = ("needed", "none", "all_valid")
SPECS = [ColumnSpec("bid", scale=2, exponent=-9), ColumnSpec("ask", scale=9, exponent=-9)]


def write_input(path: Path, rows: int = 200, seed: int = 7) -> pa.Table:
    """Two PRICE9 columns with nulls; ``ask`` prints up to 21 bytes (several words)."""
    rng = np.random.default_rng(seed)
    bid = rng.integers(-(10**14), 10**14, rows)
    ask = rng.integers(-(2**63), 2**63 - 1, rows, dtype=np.int64)
    ask[rng.random(rows) < 0.3] //= 10 ** rng.integers(0, 18)  # short and long text mixed
    t = pa.table(
        {
            "bid": pa.array(bid, mask=rng.random(rows) < 0.15),
            "ask": pa.array(ask, mask=rng.random(rows) < 0.15),
        }
    )
    pq.write_table(t, path)
    return t


def both_ways(monkeypatch, src: Path, out: Path, specs=SPECS, **kw) -> tuple[bytes, bytes]:
    """The output's bytes written by vecfix's kernel, then by pyarrow's writer."""
    calls = []
    real = vecfix._csv.csv_lines

    def spy(columns, quoted, keep=None):
        calls.append(len(columns[0]) if columns else 0)
        return real(columns, quoted, keep)

    monkeypatch.setattr(vecfix._csv, "csv_lines", spy)
    format_file(src, out, specs, **kw)
    native = out.read_bytes()
    assert calls, "vecfix's CSV writer was not used"
    monkeypatch.setattr(vecfix.files, "_NATIVE_CSV", False)
    calls.clear()
    format_file(src, out, specs, **kw)
    assert not calls
    monkeypatch.setattr(vecfix.files, "_NATIVE_CSV", True)
    return native, out.read_bytes()


@pytest.mark.parametrize("quoting", QUOTING)
def test_same_bytes_as_pyarrow_with_nulls(tmp_path, monkeypatch, quoting):
    write_input(tmp_path / "in.parquet")
    native, arrow = both_ways(
        monkeypatch, tmp_path / "in.parquet", tmp_path / "out.csv", csv_quoting=quoting
    )
    assert native == arrow
    assert b"\n," in native and b",\n" in native  # nulls in both columns were written


def test_text_is_the_reference(tmp_path):
    t = write_input(tmp_path / "in.parquet", rows=30)
    format_file(tmp_path / "in.parquet", tmp_path / "out.csv", SPECS, csv_quoting="needed")
    lines = [b'"bid","ask"']
    for b, a in zip(t["bid"].to_pylist(), t["ask"].to_pylist(), strict=True):
        fields = [
            b"" if v is None else b'"' + reference_fixed(v, -9, s).encode() + b'"'
            for v, s in ((b, 2), (a, 9))
        ]
        lines.append(b",".join(fields))
    assert (tmp_path / "out.csv").read_bytes() == b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("batch_size", [1, 7, 64, 199])
def test_batch_boundaries(tmp_path, monkeypatch, batch_size):
    write_input(tmp_path / "in.parquet", rows=200, seed=batch_size)
    monkeypatch.setattr(vecfix.files, "_CSV_WRITE", 100)  # a batch's lines in several writes
    native, arrow = both_ways(
        monkeypatch, tmp_path / "in.parquet", tmp_path / "out.csv", batch_size=batch_size
    )
    assert native == arrow
    assert native.count(b"\n") == 201


def test_empty_input_writes_the_header(tmp_path, monkeypatch):
    empty = pa.table({"bid": pa.array([], pa.int64()), "ask": pa.array([], pa.int64())})
    pq.write_table(empty, tmp_path / "in.parquet")
    calls = []
    monkeypatch.setattr(vecfix._csv, "csv_lines", lambda *a: calls.append(1))
    format_file(tmp_path / "in.parquet", tmp_path / "out.csv", SPECS)
    assert (tmp_path / "out.csv").read_bytes() == b'"bid","ask"\n'
    monkeypatch.setattr(vecfix.files, "_NATIVE_CSV", False)
    format_file(tmp_path / "in.parquet", tmp_path / "old.csv", SPECS)
    assert (tmp_path / "old.csv").read_bytes() == b'"bid","ask"\n'


def test_header_is_quoted_as_pyarrow_quotes_it(tmp_path, monkeypatch):
    t = pa.table({'a "quoted", name': [1_500000000, None], "b": ["2.25", None]})
    pq.write_table(t, tmp_path / "in.parquet")
    specs = [ColumnSpec('a "quoted", name', scale=2, exponent=-9), ColumnSpec("b", scale=1)]
    for quoting in QUOTING:
        native, arrow = both_ways(
            monkeypatch, tmp_path / "in.parquet", tmp_path / "out.csv", specs, csv_quoting=quoting
        )
        assert native == arrow
        assert native.startswith(b'"a ""quoted"", name","b"\n')


@pytest.mark.parametrize("suffix", [".csv.gz", ".csv.zst"])
def test_compressed_output(tmp_path, monkeypatch, suffix):
    write_input(tmp_path / "in.parquet")
    out = tmp_path / ("out" + suffix)
    native, arrow = both_ways(monkeypatch, tmp_path / "in.parquet", out, batch_size=50)
    if suffix == ".csv.gz":
        native, arrow = gzip.decompress(native), gzip.decompress(arrow)
    else:
        read = pa.input_stream(pa.BufferReader(native), compression="zstd").read()
        assert read == pa.input_stream(pa.BufferReader(arrow), compression="zstd").read()
        native = arrow = read
    assert native == arrow
    assert native.startswith(b'"bid","ask"\n')


def test_stdout(tmp_path, monkeypatch, capsysbinary):
    write_input(tmp_path / "in.parquet", rows=50)
    format_file(tmp_path / "in.parquet", "-", SPECS, batch_size=16)
    native = capsysbinary.readouterr().out
    monkeypatch.setattr(vecfix.files, "_NATIVE_CSV", False)
    format_file(tmp_path / "in.parquet", "-", SPECS, batch_size=16)
    assert native == capsysbinary.readouterr().out
    assert native.count(b"\n") == 51


@pytest.mark.parametrize(
    "specs",
    [
        [ColumnSpec("bid", scale=2, exponent=-9)],  # "ask" passes through
        [*SPECS[:1], ColumnSpec("ask", scale=2, exponent=-9, output_name="ask_text")],
    ],
    ids=["pass-through", "output-name"],
)
def test_pyarrow_writes_when_a_column_is_not_formatted(tmp_path, monkeypatch, specs):
    write_input(tmp_path / "in.parquet", rows=20)
    calls = []
    monkeypatch.setattr(vecfix._csv, "csv_lines", lambda *a: calls.append(1))
    format_file(tmp_path / "in.parquet", tmp_path / "out.csv", specs)
    assert calls == []
    header = (tmp_path / "out.csv").read_bytes().split(b"\n")[0]
    assert header in (b'"bid","ask"', b'"bid","ask","ask_text"')


def test_csv_lines_of_no_rows_and_no_columns():
    one = vecfix.format_fixed(np.array([], dtype=np.int64), -9, 2)
    assert vecfix._csv.csv_lines([one, one], quoted=True).tobytes() == b""
    assert vecfix._csv.csv_lines([], quoted=False).tobytes() == b""
