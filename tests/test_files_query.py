"""``vecfix format``'s one polars query, format by format: the text of every row against
``tests/reference.py`` (exact integer arithmetic), the other columns unchanged, the CSV
bytes against polars' and pandas' own writers of the same columns, quoting, compressed
outputs, standard output, and row errors met in a later batch.

Parquet inputs are written in row groups of a few rows, so that polars' streaming engine
hands vecfix's expression several batches. Files are small: these tests also run under
``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from reference import reference_fixed

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ipc = pytest.importorskip("pyarrow.ipc")
pacsv = pytest.importorskip("pyarrow.csv")
pl = pytest.importorskip("polars")

from vecfix import NumberFormat  # noqa: E402
from vecfix.files import ColumnSpec, DataError, UsageError, format_batch, format_file  # noqa: E402

INT64_MAX = 2**63 - 1
SYMBOLS = ["ESZ4", "ZN,Z4", "6JZ4", 'CL"Z4', "ESZ4", "YMZ4", "ZNZ4"]  # two need quotes
TICKS = [2, 6, 7, 2, 2, 0, 6]
PX = [5000_250000000, None, 6_700050, -45_125000000, INT64_MAX, 39001_500000000, 110_015625000]
QTY = ["1.005", "-2.5", None, "7", "-0.005", "12345.6789", "0"]
SPECS = [
    ColumnSpec("px", NumberFormat(-9, "decimals", null=INT64_MAX)),
    ColumnSpec("qty", NumberFormat(scale=2), output_name="qty_text"),
]


def table() -> pa.Table:
    return pa.table(
        {
            "symbol": pa.array(SYMBOLS),
            "px": pa.array(PX, pa.int64()),
            "qty": pa.array(QTY, pa.string()),
            "decimals": pa.array(TICKS, pa.int64()),
        }
    )


def want_px() -> list[str | None]:
    return [
        None if c is None or c == INT64_MAX else reference_fixed(c, -9, s)
        for c, s in zip(PX, TICKS, strict=True)
    ]


def qty_ref(text: str | None, scale: int = 2) -> str | None:
    if text is None:
        return None
    whole, _, frac = text.lstrip("-").partition(".")
    sign = -1 if text.startswith("-") else 1
    return reference_fixed(sign * int(whole + frac), -len(frac), scale)


def want() -> dict[str, list]:
    """The output's columns, in order: raw ones as they were, the text from the reference."""
    return {
        "symbol": SYMBOLS,
        "px": want_px(),
        "qty": QTY,
        "qty_text": [qty_ref(q) for q in QTY],
        "decimals": TICKS,
    }


def write(d: Path, fmt: str) -> Path:
    t = table()
    path = d / f"in.{fmt}"
    if fmt == "parquet":
        pq.write_table(t, path, row_group_size=2)  # several batches
    elif fmt == "arrow":
        with ipc.new_file(path, t.schema) as w:
            w.write_table(t, max_chunksize=3)
    else:
        pacsv.write_csv(t, path)
    return path


def read(path: Path, fmt: str) -> dict[str, list]:
    if fmt == "parquet":
        t = pq.read_table(path)
    elif fmt == "arrow":
        t = ipc.open_file(path).read_all()
    else:
        types = {n: pa.string() for n in ("symbol", "px", "qty", "qty_text")}
        opts = pacsv.ConvertOptions(column_types=types, strings_can_be_null=True)
        t = pacsv.read_csv(path, convert_options=opts)
    return {n: t[n].to_pylist() for n in t.column_names}


@pytest.mark.parametrize("src_fmt", ["parquet", "csv", "arrow"])
@pytest.mark.parametrize("dst_fmt", ["parquet", "csv", "arrow"])
def test_every_row_is_the_reference_and_the_rest_passes_through(tmp_path, src_fmt, dst_fmt):
    src = write(tmp_path, src_fmt)
    out = tmp_path / f"out.{dst_fmt}"
    assert format_file(src, out, SPECS).rows == len(PX)
    got = read(out, dst_fmt)
    expected = want()
    # (a CSV's other columns are read as text, its scale column as integers)
    assert list(got) == list(expected)
    assert got == expected


def test_csv_bytes_are_polars_and_pandas_own(tmp_path):
    """The CSV is the file polars' and pandas' writers make of the same columns (the text
    of the reference, the raw columns as they are): a field is quoted only where it must
    be."""
    pd = pytest.importorskip("pandas")
    src = write(tmp_path, "parquet")
    out = tmp_path / "out.csv"
    format_file(src, out, SPECS)
    frame = pl.DataFrame(want(), schema_overrides={"decimals": pl.Int64})
    buf = io.BytesIO()
    frame.write_csv(buf)
    assert out.read_bytes() == buf.getvalue()
    pandas_text = pd.DataFrame(want()).astype({"decimals": "int64"}).to_csv(index=False)
    assert out.read_bytes() == pandas_text.encode()
    assert b'"ZN,Z4"' in out.read_bytes() and b'"CL""Z4"' in out.read_bytes()


@pytest.mark.parametrize(
    ("quoting", "pyarrow_style"),
    [("non_numeric", "needed"), ("needed", "needed"), ("always", None), ("all_valid", None)],
)
def test_csv_quoting_styles(tmp_path, quoting, pyarrow_style):
    src = write(tmp_path, "parquet")
    out = tmp_path / "out.csv"
    format_file(src, out, SPECS, csv_quoting=quoting)
    data = out.read_bytes()
    if pyarrow_style is not None:  # every text field quoted, numbers bare: pyarrow's bytes
        t = pa.table({k: pa.array(v, pa.int64() if k == "decimals" else pa.string())
                      for k, v in want().items()})  # fmt: skip
        sink = pa.BufferOutputStream()
        pacsv.write_csv(t, sink, pacsv.WriteOptions(quoting_style=pyarrow_style))
        lines = sink.getvalue().to_pybytes().splitlines()  # (polars 1 quotes no header)
        assert (
            data.splitlines()[1:] == lines[1:]
            and data.replace(b'"', b"")
            == b"\n".join([lines[0].replace(b'"', b""), *lines[1:]]).replace(b'"', b"") + b"\n"
        )
    else:  # every field quoted
        assert data.splitlines()[1] == b'"ESZ4","5000.25","1.005","1.01","2"'
    back = read(out, "csv")
    assert back["px"] == [v or None for v in want_px()] and back["qty_text"] == want()["qty_text"]


def test_csv_quoting_never_refuses_a_value_that_needs_quotes(tmp_path):
    src = write(tmp_path, "parquet")
    out = tmp_path / "out.csv"
    with pytest.raises(
        DataError, match=r"--csv-quoting never: column 'symbol' holds '(ZN,Z4|CL\"Z4)'"
    ):
        format_file(src, out, SPECS, csv_quoting="never")
    assert not out.exists()
    pq.write_table(table().drop_columns(["symbol"]), tmp_path / "plain.parquet")
    format_file(tmp_path / "plain.parquet", out, SPECS, csv_quoting="none")  # pyarrow's name
    assert b'"' not in out.read_bytes() and read(out, "csv")["px"] == want_px()
    with pytest.raises(UsageError, match="csv quoting must be one of necessary"):
        format_file(src, out, SPECS, csv_quoting="minimal")


def test_a_row_error_in_a_later_batch_names_the_file_row_and_leaves_no_file(tmp_path):
    t = table().set_column(2, "qty", pa.array(["1", "2", "3", "4", "5", "x.5", "7"]))
    pq.write_table(t, tmp_path / "in.parquet", row_group_size=2)  # row 5: the third batch
    out = tmp_path / "out.parquet"
    with pytest.raises(DataError, match=r"column 'qty', row 5 \(counting data rows from 0\)"):
        format_file(tmp_path / "in.parquet", out, SPECS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.parquet"]


@pytest.mark.parametrize("suffix", [".csv.gz", ".csv.zst", ".csv.bz2", ".csv.lz4"])
def test_compressed_csv_output(tmp_path, suffix):
    src = write(tmp_path, "parquet")
    format_file(src, tmp_path / "plain.csv", SPECS)
    out = tmp_path / f"out{suffix}"
    format_file(src, out, SPECS)
    data = out.read_bytes()
    if suffix == ".csv.gz":
        text = gzip.decompress(data)
    elif suffix == ".csv.bz2":
        import bz2

        text = bz2.decompress(data)
    else:
        codec = "zstd" if suffix == ".csv.zst" else "lz4"
        text = pa.input_stream(pa.BufferReader(data), compression=codec).read()
    assert text == (tmp_path / "plain.csv").read_bytes()


def test_standard_output(tmp_path, capsysbinary):
    src = write(tmp_path, "parquet")
    format_file(src, "-", SPECS)
    format_file(src, tmp_path / "file.csv", SPECS)
    assert capsysbinary.readouterr().out == (tmp_path / "file.csv").read_bytes()


def test_arrow_ipc_stream_input(tmp_path):
    """An Arrow IPC stream (no footer: polars cannot scan it) is read whole."""
    t = table()
    with ipc.new_stream(tmp_path / "in.arrows", t.schema) as w:
        w.write_table(t)
    out = tmp_path / "out.parquet"
    format_file(tmp_path / "in.arrows", out, SPECS, input_format="arrow")
    assert read(out, "parquet") == want()


def test_per_row_exponents_from_a_column():
    """A NumberFormat's exponent may name a column too (the command line gives one)."""
    m, e = [125, 125, None, 7], [-2, 0, -1, -3]
    t = pl.DataFrame({"m": m, "e": e, "s": [1, 1, 1, 1]})
    out = format_batch(t, [ColumnSpec("m", NumberFormat("e", "s"))])
    assert out["m"].to_list() == [None if c is None else reference_fixed(c, x, 1)
                                  for c, x in zip(m, e, strict=True)]  # fmt: skip
    t = t.with_columns(e=pl.Series([-2, None, 0, 0]))  # a null exponent: a null row
    out = format_batch(t, [ColumnSpec("m", NumberFormat("e", "s"))])
    assert out["m"].to_list() == [reference_fixed(125, -2, 1), None, None, reference_fixed(7, 0, 1)]


LOADS_BEFORE_THE_FIRST_BATCH = """
import json, sys
from vecfix import NumberFormat, _engine, _tuning
from vecfix.files import ColumnSpec, format_file
formats = []
real = _engine.kernels_for
def kernels_for(rows, spend=True):
    formats.append(real(rows, spend))
    return formats[-1]
_engine.kernels_for = kernels_for
format_file(sys.argv[1], sys.argv[2], [ColumnSpec("px", NumberFormat(-9, 2))], progress=False)
unspent = _engine._state["budget"] == _tuning.KERNEL_LOAD_COST
print(json.dumps({"calls": formats, "budget": unspent}))
"""


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_large_file_loads_the_kernels_before_its_first_batch(tmp_path, suffix):
    """A file whose rows would cost more in plain Python than loading the kernels (its
    Parquet metadata, or a CSV's size over its rows' length) loads them once, before
    polars' first batch: no batch runs in Python first, none of the budget is spent."""
    import json
    import os
    import subprocess
    import sys

    import numpy as np

    import vecfix

    vecfix.warmup()
    n = 400_000  # 2.4 s of plain-Python work
    frame = pl.DataFrame({"px": np.arange(n, dtype=np.int64) * 987_654_321})
    src = tmp_path / f"in{suffix}"
    frame.write_parquet(src) if suffix == ".parquet" else frame.write_csv(src)
    assert src.stat().st_size > 1 << 20  # (smaller files are not counted)
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root, "POLARS_IDEAL_MORSEL_SIZE": "10000"}  # (batches)
    env["VECFIX_ENGINE"] = "auto"  # as users run it (the suite's default is "kernels")
    run = subprocess.run(
        [sys.executable, "-c", LOADS_BEFORE_THE_FIRST_BATCH, str(src), str(tmp_path / "o.csv")],
        env=env, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    got = json.loads(run.stdout)
    assert got["calls"] and all(got["calls"]), got  # the kernels from the first batch on
    assert got["budget"], got
    out = pl.read_csv(tmp_path / "o.csv", infer_schema=False)["px"].to_list()
    assert out[-1] == reference_fixed((n - 1) * 987_654_321, -9, 2)
