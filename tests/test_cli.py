"""The command line, through its real entry point (``python -m vecfix`` in a subprocess).

Every command of this file runs once, all of them concurrently (a fresh interpreter costs a
second or two, mostly importing Numba), in the module fixture ``runs``; each test then
checks one command's exit status, messages and output files. Expected text comes from
``tests/reference.py`` (exact integer arithmetic) and from the inputs, never from vecfix.
A few in-process tests cover what a subprocess cannot see (the progress bar, argument
grouping).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from reference import reference_fixed

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ipc = pytest.importorskip("pyarrow.ipc")
pl = pytest.importorskip("polars")

from vecfix import NumberFormat  # noqa: E402
from vecfix._sample import PRICENULL9, sample_snapshot  # noqa: E402
from vecfix.cli import build_parser, main  # noqa: E402
from vecfix.files import ColumnSpec, DataError, format_file  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
N = 2_500  # rows of the file inputs: several batches (row groups, record batches)
DEMO_ROWS, DEMO_INSTRUMENTS = 3_000, 25
TICKS = {f"S{i}": i % 7 for i in range(17)}  # symbol -> decimals of the per-row scale runs


def cli_env() -> dict[str, str]:
    """The subprocess imports this checkout's vecfix, whatever is installed."""
    path = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + path if path else ""))


def spec(name: str, scale: int, exponent: int | None = None) -> ColumnSpec:
    return ColumnSpec(name, NumberFormat(exponent, scale))


def run_vecfix(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vecfix", *args],
        cwd=cwd,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


# --------------------------------------------------------------------------- inputs


def input_rows() -> dict[str, list]:
    """Columns of the file inputs: PRICE9 ints with a null and a sentinel, decimal text
    with ties, Arrow-style decimals, and a pass-through float and string column."""
    rng = np.random.default_rng(5)
    px = (
        (5000 + rng.integers(-50, 50, N)) * 250_000_000 + rng.integers(0, 4, N) * 5_000_000
    ).tolist()
    px[7], px[11] = None, PRICENULL9
    text = [f"{int(c) / 1000:.3f}" for c in rng.integers(-99_999, 99_999, N)]
    text[3], text[4], text[5], text[6] = "2.675", "-0.125", "1e-3", None
    qty = [Decimal(int(q)).scaleb(-4) for q in rng.integers(0, 10**8, N)]
    qty[9] = None
    return {
        "symbol": [f"S{i % 17}" for i in range(N)],
        "px_e9": px,
        "px_text": text,
        "qty": qty,
        "ratio": rng.random(N).tolist(),
    }


def input_table() -> pa.Table:
    cols = input_rows()
    return pa.table(
        {
            "symbol": pa.array(cols["symbol"]),
            "px_e9": pa.array(cols["px_e9"], pa.int64()),
            "px_text": pa.array(cols["px_text"], pa.string()),
            "qty": pa.array(cols["qty"], pa.decimal128(12, 4)),
            "ratio": pa.array(cols["ratio"], pa.float64()),
        }
    )


def expected_px(scale: int, sentinel_is_null: bool = True) -> list[str | None]:
    out = []
    for c in input_rows()["px_e9"]:
        if c is None or (sentinel_is_null and c == PRICENULL9):
            out.append(None)
        else:
            out.append(reference_fixed(c, -9, scale))
    return out


def expected_text(scale: int) -> list[str | None]:
    out = []
    for t in input_rows()["px_text"]:
        if t is None:
            out.append(None)
        else:
            d = Decimal(t)
            sign, digits, exp = d.as_tuple()
            coef = int("".join(map(str, digits))) * (-1 if sign else 1)
            out.append(reference_fixed(coef, exp, scale))
    return out


def expected_qty(scale: int) -> list[str | None]:
    return [
        None if q is None else reference_fixed(int(q.scaleb(4)), -4, scale)
        for q in input_rows()["qty"]
    ]


def write_inputs(d: Path) -> None:
    t = input_table()
    pq.write_table(t, d / "in.parquet", row_group_size=1000)
    with ipc.new_file(d / "in.arrow", t.schema) as w:
        w.write_table(t, max_chunksize=700)
    # CSV: prices as text and integers; the float column too (it passes through).
    rows = input_rows()
    with open(d / "in.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["symbol", "px_e9", "px_text"])
        for s, c, t in zip(rows["symbol"], rows["px_e9"], rows["px_text"], strict=True):
            w.writerow([s, "" if c is None else c, "" if t is None else t])
    # Per-row scales: a decimals column, and symbol -> decimals maps (CSV and JSON).
    with open(d / "in_scales.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["symbol", "px_e9", "decimals"])
        for s, c in zip(rows["symbol"], rows["px_e9"], strict=True):
            w.writerow([s, "" if c is None else c, TICKS[s]])
    (d / "ticks.csv").write_text(
        "symbol,decimals\n" + "".join(f"{k},{v}\n" for k, v in TICKS.items())
    )
    (d / "ticks.json").write_text(json.dumps(TICKS))
    (d / "beyond.csv").write_text("px\n5\n10000000000000000000\n")  # an ITCH u64 price
    (d / "ticks_no_s3.json").write_text(json.dumps({k: v for k, v in TICKS.items() if k != "S3"}))
    bad = (d / "in.csv").read_text().splitlines()
    bad[2001] = bad[2001].rsplit(",", 1)[0] + ",12.5.5"  # data row 2000: not a decimal
    (d / "bad.csv").write_text("\n".join(bad) + "\n")


# --------------------------------------------------------------------------- the runs

DEMO_OUT = ["--fix", "demo.fix", "--csv", "demo.csv", "--parquet", "demo.parquet"]
PX_E9 = ["--column", "px_e9", "--exponent", "-9"]
PX = [*PX_E9, "--scale", "2", "--null", str(PRICENULL9)]
TO_X = ["format", "in.parquet", "-o", "x.csv"]  # (the commands that fail: no x.csv)
COMMANDS: dict[str, list[str]] = {
    "demo": ["demo", "--rows", str(DEMO_ROWS), "--instruments", str(DEMO_INSTRUMENTS), *DEMO_OUT],
    "parquet": [
        "format", "in.parquet", "-o", "out.parquet", *PX,
        "--column", "px_text", "--scale", "1", "--column", "qty", "--scale", "2",
    ],
    "csv_to_parquet": [
        "format", "in.csv", "-o", "csv_out.parquet", *PX, "--column", "px_text", "--scale", "2",
    ],
    "parquet_to_csv": [
        "format", "in.parquet", "-o", "pq_out.csv", "--csv-quoting", "none", "--scale", "3",
        "--column", "px_text", "--column", "qty", "--quiet",
    ],
    "arrow_to_csv_gz": [
        "format", "in.arrow", "-o", "arrow_out.csv.gz", *PX,
    ],
    "parquet_to_arrow": [
        "format", "in.parquet", "-o", "renamed.bin", "--output-format", "arrow",
        "--column", "qty", "--scale", "-2",
    ],
    "scale_column": [
        "format", "in_scales.csv", "-o", "sc.parquet", *PX_E9, "--null", str(PRICENULL9),
        "--scale-column", "decimals", "--as", "price",
    ],
    "scales_by_csv": [
        "format", "in.parquet", "-o", "sb.csv", *PX_E9, "--null", str(PRICENULL9),
        "--scales-by", "symbol=ticks.csv", "--csv-quoting", "none",
    ],
    "scales_by_json": [
        "format", "in.parquet", "-o", "sb.arrow", *PX_E9, "--null", str(PRICENULL9),
        "--scales-by", "symbol=ticks.json", "--as", "px_e9",
    ],
    "sentinel_warning": ["format", "in.parquet", "-o", "sent.parquet", *PX_E9, "--scale", "2"],
    # errors
    "scales_by_missing_symbol": [*TO_X, *PX_E9, "--scales-by", "symbol=ticks_no_s3.json"],
    "scales_by_no_file": [*TO_X, *PX_E9, "--scales-by", "symbol=nope.json"],
    "scales_by_no_equals": [*TO_X, *PX_E9, "--scales-by", "symbol"],
    "scale_and_scale_column": [
        "format", "in_scales.csv", "-o", "x.csv", *PX_E9, "--scale", "2",
        "--scale-column", "decimals",
    ],
    "as_before_column": ["format", "in.parquet", "-o", "x.csv", "--as", "p", "--column", "qty"],
    "missing_file": ["format", "nope.parquet", "-o", "x.csv", "--column", "px_e9", "--scale", "2"],
    "unknown_column": ["format", "in.parquet", "-o", "x.csv", "--column", "px_e8", "--scale", "2"],
    "int_without_exponent": ["format", "in.parquet", "-o", "x.csv", "--column", "px_e9",
                             "--scale", "2"],
    "bad_scale": ["format", "in.parquet", "-o", "x.csv", "--column", "px_e9", "--scale", "two"],
    "scale_out_of_range": ["format", "in.parquet", "-o", "x.csv", "--column", "qty",
                           "--scale", "2147483648"],
    "no_scale": ["format", "in.parquet", "-o", "x.csv", "--column", "qty"],
    "float_column": ["format", "in.parquet", "-o", "x.csv", "--column", "ratio", "--scale", "2"],
    "decimal_with_exponent": ["format", "in.parquet", "-o", "x.csv", "--column", "qty",
                              "--scale", "2", "--exponent", "-2"],
    "unknown_extension": ["format", "in.parquet", "-o", "x.txt", "--column", "qty", "--scale", "2"],
    "bad_text_mid_stream": ["format", "bad.csv", "-o", "bad_out.csv", "--column", "px_text",
                            "--scale", "2"],
    "text_with_exponent": ["format", "in.csv", "-o", "x.csv", "--column", "px_text",
                           "--exponent", "-3", "--scale", "2"],
    "no_command": [],
    "as_empty": ["format", "in.parquet", "-o", "x.csv", "--column", "qty", "--scale", "2",
                 "--as", ""],
    "int_beyond_int64_in_csv": ["format", "beyond.csv", "-o", "x.csv", "--column", "px",
                                "--exponent", "-8", "--scale", "4"],
    # issue 33: argparse left an unknown option to the top-level parser (usage of vecfix)
    "unknown_option": ["format", "in.parquet", "-o", "x.csv", "--columns", "qty"],
    "gone_option": ["format", "in.parquet", "-o", "x.csv", "--column", "qty", "--scale", "2",
                    "--batch-size", "300"],
}  # fmt: skip


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, dict[str, subprocess.CompletedProcess]]:
    d = tmp_path_factory.mktemp("cli")
    write_inputs(d)
    with ThreadPoolExecutor(4) as pool:
        futures = {k: pool.submit(run_vecfix, args, d) for k, args in COMMANDS.items()}
        return d, {k: f.result() for k, f in futures.items()}


def ok(runs, name: str) -> tuple[Path, subprocess.CompletedProcess]:
    d, results = runs
    r = results[name]
    assert r.returncode == 0, f"{name}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert "Traceback" not in r.stderr
    return d, r


# --------------------------------------------------------------------------- demo


def test_demo_prints_summary_and_matches_decimal(runs):
    _, r = ok(runs, "demo")
    assert f"{DEMO_ROWS:,} book entries" in r.stdout
    assert f"{DEMO_INSTRUMENTS} instruments" in r.stdout
    assert "ns/value" in r.stdout and "speed-up" in r.stdout
    assert "same text" in r.stdout and "DIFFER" not in r.stdout
    assert "PRICENULL9" in r.stdout  # a null price is shown, not printed as a price


def test_demo_table_files_hold_exact_prices(runs):
    d, _ = ok(runs, "demo")
    snap = sample_snapshot(DEMO_ROWS, DEMO_INSTRUMENTS)
    want = [
        None if c == PRICENULL9 else reference_fixed(c, -9, s)
        for c, s in zip(snap.price_e9.tolist(), snap.scales.tolist(), strict=True)
    ]
    t = pq.read_table(d / "demo.parquet")
    assert t.column_names == ["symbol", "side", "price_e9", "price", "size"]
    assert t["price"].to_pylist() == want
    raw = t["price_e9"].to_pylist()
    assert raw == [None if c == PRICENULL9 else c for c in snap.price_e9.tolist()]
    assert t["size"].to_pylist() == [str(s) for s in snap.size.tolist()]
    assert t["symbol"].to_pylist() == [snap.symbols[i] for i in snap.instrument.tolist()]
    with open(d / "demo.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["price"] or None for r in rows] == want
    # one CSV writer (vecfix format's, polars'): quotes only where a field needs them
    assert (d / "demo.csv").read_bytes() == pl.from_arrow(t).write_csv().encode()
    assert (d / "demo.csv").read_bytes().startswith(b"symbol,side,price_e9,price,size\nES")


def test_demo_fix_output_parses_with_simplefix(runs):
    simplefix = pytest.importorskip("simplefix")
    d, r = ok(runs, "demo")
    snap = sample_snapshot(DEMO_ROWS, DEMO_INSTRUMENTS)
    data = (d / "demo.fix").read_bytes()
    assert f"{DEMO_INSTRUMENTS} FIX 4.4 35=W messages ({len(data):,} bytes)" in r.stdout
    parser = simplefix.FixParser()
    parser.append_buffer(data)
    start, pos = 0, 0
    for i, symbol in enumerate(snap.symbols):
        msg = parser.get_message()
        assert msg is not None, f"message {i} missing"
        end = data.index(b"\x0110=", pos) + 8  # this message's last byte (after 10=NNN|)
        raw, pos = data[pos:end], end
        assert raw.startswith(b"8=FIX.4.4\x01")
        body_start = raw.index(b"\x01", raw.index(b"\x019=") + 1) + 1
        assert int(msg.get(9)) == len(raw) - 7 - body_start
        assert int(msg.get(10)) == sum(raw[:-7]) % 256
        assert msg.get(35) == b"W" and msg.get(55) == symbol.encode()
        assert int(msg.get(34)) == i + 1
        k = int(snap.entry_counts[i])
        assert int(msg.get(268)) == k
        rows = range(start, start + k)
        start += k
        types = [msg.get(269, n) for n in range(1, k + 1)]
        assert types == [str(snap.entry_types[j]).encode() for j in rows]
        valid = [j for j in rows if snap.price_e9[j] != PRICENULL9]
        prices = [msg.get(270, n) for n in range(1, len(valid) + 1)]
        assert msg.get(270, len(valid) + 1) is None  # a null price writes no 270
        want = [reference_fixed(int(snap.price_e9[j]), -9, int(snap.scales[j])) for j in valid]
        assert prices == [w.encode() for w in want]
        assert [msg.get(271, n) for n in range(1, k + 1)] == [
            str(snap.size[j]).encode() for j in rows
        ]
    assert parser.get_message() is None and pos == len(data)


def test_sample_snapshot_is_deterministic_and_on_tick():
    a, b = sample_snapshot(5000, 40), sample_snapshot(5000, 40)
    assert a.symbols == b.symbols and np.array_equal(a.price_e9, b.price_e9)
    assert int(a.entry_counts.sum()) == len(a) == 5000 and a.entry_counts.min() >= 1
    ok_px = a.price_valid
    assert 0 < (~ok_px).sum() < 50  # a few nulls
    tick = a.tick_e9[a.instrument]
    assert np.all(a.price_e9[ok_px] % tick[ok_px] == 0)
    assert (a.price_e9[ok_px] < 0).any()  # calendar spreads
    assert not np.array_equal(sample_snapshot(5000, 40, seed=1).price_e9, a.price_e9)


# --------------------------------------------------------------------------- format


def test_parquet_streamed_over_batches(runs):
    d, r = ok(runs, "parquet")
    summary = r.stderr.splitlines()[-1]  # (after "compiling kernels" on a cold cache)
    assert summary.startswith(f"vecfix format: {N:,} rows, formatted px_e9, px_text, qty,")
    t = pq.read_table(d / "out.parquet")
    src = input_table()
    assert t.schema.names == src.schema.names
    # text: string from pyarrow's writer, large_string from polars' (one Parquet type)
    kinds = {t.schema.field(n).type for n in ("px_e9", "px_text", "qty")}
    assert kinds in ({pa.string()}, {pa.large_string()})
    assert t["px_e9"].to_pylist() == expected_px(2)
    assert t["px_text"].to_pylist() == expected_text(1)
    assert t["qty"].to_pylist() == expected_qty(2)
    assert t["symbol"].cast(pa.string()).equals(src["symbol"]) and t["ratio"].equals(src["ratio"])


def test_csv_to_parquet_reads_prices_as_text_or_integers(runs):
    d, _ = ok(runs, "csv_to_parquet")
    t = pq.read_table(d / "csv_out.parquet")
    assert t["px_e9"].to_pylist() == expected_px(2)
    assert t["px_text"].to_pylist() == expected_text(2)
    assert t["px_text"][3].as_py() == "2.68" and t["px_text"][4].as_py() == "-0.13"
    assert t["symbol"].to_pylist() == input_rows()["symbol"]


def test_parquet_to_csv_round_trip(runs):
    d, r = ok(runs, "parquet_to_csv")
    assert r.stderr == ""  # --quiet
    text = (d / "pq_out.csv").read_text()
    assert all('"' not in line for line in text.splitlines()[1:])  # --csv-quoting none
    with open(d / "pq_out.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == N
    assert [x["px_text"] or None for x in rows] == expected_text(3)
    assert [x["qty"] or None for x in rows] == expected_qty(3)
    assert [x["symbol"] for x in rows] == input_rows()["symbol"]
    assert [int(x["px_e9"]) if x["px_e9"] else None for x in rows] == input_rows()["px_e9"]


def test_arrow_to_compressed_csv(runs):
    d, _ = ok(runs, "arrow_to_csv_gz")
    with gzip.open(d / "arrow_out.csv.gz", "rt", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [x["px_e9"] or None for x in rows] == expected_px(2)


def test_output_format_override_and_negative_scale(runs):
    d, _ = ok(runs, "parquet_to_arrow")
    with ipc.open_file(d / "renamed.bin") as reader:
        t = reader.read_all()
    assert t["qty"].to_pylist() == expected_qty(-2)


ERRORS = {
    # name: (exit status, words the message must contain)
    "missing_file": (2, ["nope.parquet", "does not exist"]),
    "unknown_column": (1, ["no column 'px_e8'", "did you mean 'px_e9'", "qty"]),
    "int_without_exponent": (1, ["'px_e9'", "integer coefficients", "--exponent"]),
    "bad_scale": (2, ["--scale", "'two'"]),
    "scale_out_of_range": (2, ["--scale", "2147483648"]),
    "no_scale": (2, ["'qty'", "--scale"]),
    "float_column": (1, ["'ratio'", "Float64", "float"]),
    "decimal_with_exponent": (1, ["'qty'", "Decimal(precision=12, scale=4)", "own exponent"]),
    "unknown_extension": (2, ["x.txt", "--output-format"]),
    "bad_text_mid_stream": (1, ["'px_text'", "row 2,000", "12.5.5", "not decimal text"]),
    "text_with_exponent": (1, ["int64", "leave out --exponent"]),
    "no_command": (2, ["usage: vecfix"]),
    "scales_by_missing_symbol": (1, ["'px_e9'", "row 3 ", "'S3'", "'symbol'", "--scale"]),
    "scales_by_no_file": (2, ["nope.json", "scale map"]),
    "scales_by_no_equals": (2, ["--scales-by", "SYMBOL_COLUMN=FILE", "'symbol'"]),
    "scale_and_scale_column": (2, ["'px_e9'", "--scale", "--scale-column", "not both"]),
    "as_before_column": (2, ["--as", "after its --column"]),
    # (it wrote a second column named 'qty', which readers refuse)
    "as_empty": (2, ["'qty'", "(--as) must be a non-empty str", "''"]),
    # (it advised leaving out --exponent, which would print the value 10**8 times too big)
    "int_beyond_int64_in_csv": (
        1,
        ["'px'", "10000000000000000000", "beyond it", "uint64", "format_fixed"],
    ),
    "unknown_option": (
        2,
        [
            "vecfix format: error: unrecognized arguments: --columns qty",
            "did you mean --column?",
            "usage: vecfix format INPUT -o OUTPUT",
        ],
    ),
    "gone_option": (2, ["vecfix format: error: --batch-size is gone", "polars"]),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_one_clear_line(runs, name):
    """What is wrong on one line of at most 200 characters, first; details (and the
    command's usage line) indented below it; no traceback, no usage block."""
    d, results = runs
    r = results[name]
    status, words = ERRORS[name]
    assert r.returncode == status, f"{name}: exit {r.returncode}\n{r.stderr}"
    assert "Traceback" not in r.stderr
    for w in words:
        assert w in r.stderr, f"{name}: {w!r} not in {r.stderr!r}"
    if name != "no_command":  # (then the usage lists the commands)
        first, *details = [line for line in r.stderr.splitlines() if ": warning: " not in line]
        assert first.startswith("vecfix format: error: "), r.stderr  # (not a usage block)
        assert len(first) <= 200, first
        assert all(line.startswith("  ") and line.strip() for line in details), r.stderr
        assert not any(": error: " in line for line in details), r.stderr  # (one error)
    assert not (d / "x.csv").exists() and not (d / "x.txt").exists()


def test_an_integer_beyond_int64_is_not_told_to_drop_its_exponent(runs):
    """Read without --exponent it would be a count of units: 10**8 times too big here."""
    r = runs[1]["int_beyond_int64_in_csv"]
    assert "leave out --exponent" not in r.stderr and r.stderr.count(": error: ") == 1


def expected_by_symbol() -> list[str | None]:
    rows = input_rows()
    return [
        None if c is None or c == PRICENULL9 else reference_fixed(c, -9, TICKS[s])
        for c, s in zip(rows["px_e9"], rows["symbol"], strict=True)
    ]


def test_per_row_scales_from_a_column_kept_beside_the_raw_one(runs):
    d, _ = ok(runs, "scale_column")
    t = pq.read_table(d / "sc.parquet")
    assert t.column_names == ["symbol", "px_e9", "price", "decimals"]
    assert t["price"].to_pylist() == expected_by_symbol()
    raw = input_rows()["px_e9"]
    assert t["px_e9"].to_pylist() == raw  # read as int64 (it has an exponent), kept as is


def test_per_row_scales_from_a_symbol_map_csv_and_json(runs):
    d, _ = ok(runs, "scales_by_csv")
    with open(d / "sb.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [x["px_e9"] or None for x in rows] == expected_by_symbol()
    d, _ = ok(runs, "scales_by_json")
    with ipc.open_file(d / "sb.arrow") as reader:
        t = reader.read_all()
    assert t["px_e9"].to_pylist() == expected_by_symbol()  # --as its own name: replaced


def test_sentinel_without_null_warns_once(runs):
    d, r = ok(runs, "sentinel_warning")
    warnings = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1, r.stderr
    w = warnings[0]
    assert w.startswith("vecfix format: warning: column 'px_e9'")
    assert f"holds {PRICENULL9}" in w and "row 11 " in w and f"--null {PRICENULL9}" in w
    assert f"{N:,} rows, formatted px_e9," in r.stderr
    text = pq.read_table(d / "sent.parquet")["px_e9"].to_pylist()
    assert text[11] == reference_fixed(PRICENULL9, -9, 2)  # printed, as the user asked


def test_runs_with_null_given_do_not_warn(runs):
    for name in ("parquet", "csv_to_parquet", "scale_column"):
        assert "warning" not in ok(runs, name)[1].stderr


def test_stdin_to_stdout(tmp_path):
    data = b"symbol,px\nESZ4,5000.125\nZNZ4,-0.005\nS,\n6J,0.0067005\n"
    r = subprocess.run(
        [sys.executable, "-m", "vecfix", "format", "-", "-o", "-", "--column", "px", "--scale",
         "2", "--csv-quoting", "none"],
        input=data, env=cli_env(), capture_output=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"symbol,px\nESZ4,5000.13\nZNZ4,-0.01\nS,\n6J,0.01\n"
    assert b"4 rows, formatted px, wrote standard output" in r.stderr
    # Parquet in from stdin, Arrow IPC out to stdout.
    pq.write_table(input_table(), tmp_path / "in.parquet")
    r = subprocess.run(
        [sys.executable, "-m", "vecfix", "format", "-", "--input-format", "parquet", "-o", "-",
         "--output-format", "arrow", "-q", *PX],
        input=(tmp_path / "in.parquet").read_bytes(), env=cli_env(), capture_output=True,
        timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stderr == b""
    t = ipc.open_file(pa.BufferReader(r.stdout)).read_all()
    assert t["px_e9"].to_pylist() == expected_px(2)


def test_reader_of_stdout_going_away_ends_quietly(tmp_path):
    note = "x" * 200  # a pass-through column: far more output than a pipe buffers
    lines = "".join(f"{note},{i}.125\n" for i in range(3000))
    (tmp_path / "in.csv").write_text("note,px\n" + lines)
    cmd = [sys.executable, "-m", "vecfix", "format", "in.csv", "-o", "-", "--column", "px",
           "--scale", "2"]  # fmt: skip
    with subprocess.Popen(
        cmd, cwd=tmp_path, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as p:
        assert p.stdout.readline() == b"note,px\n"
        p.stdout.close()  # as `| head -1` does
        err = p.stderr.read().decode()
        assert p.wait(timeout=300) == 141
    assert "Traceback" not in err and "error" not in err


def test_demo_writes_its_files_when_the_reader_of_stdout_goes_away(tmp_path):
    """``vecfix demo --csv ... --fix ... | head``: the files asked for are written whole
    even though stdout's reader has gone before the demo prints; it ends quietly, 141."""
    cmd = [sys.executable, "-m", "vecfix", "demo", "--rows", str(DEMO_ROWS), "--instruments",
           str(DEMO_INSTRUMENTS), "--sample", "50", "--csv", "book.csv", "--fix",
           "book.fix"]  # fmt: skip
    with subprocess.Popen(
        cmd, cwd=tmp_path, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as p:
        p.stdout.close()  # as `| head -0` would: every write to stdout fails
        err = p.stderr.read().decode()
        assert p.wait(timeout=300) == 141
    assert "Traceback" not in err and "error" not in err
    with open(tmp_path / "book.csv", newline="") as f:
        assert sum(1 for _ in csv.reader(f)) == DEMO_ROWS + 1  # the header and every row
    assert (tmp_path / "book.fix").read_bytes().endswith(b"\x01")  # its last message whole


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_named_pipe_and_stdout_link_as_output(tmp_path):
    pq.write_table(input_table(), tmp_path / "in.parquet")
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    r = run_vecfix(
        ["format", "in.parquet", "-o", "out.csv", *PX, "--csv-quoting", "none"], tmp_path
    )
    reader.join(60)
    assert r.returncode == 0, r.stderr
    assert fifo.is_fifo()  # written through, not replaced by a regular file
    rows = list(csv.DictReader(io.StringIO(got[0].decode())))
    assert [x["px_e9"] or None for x in rows] == expected_px(2)
    # A link to this process's stdout (as /dev/stdout is): written through, never replaced.
    link = tmp_path / "stdout.csv"
    link.symlink_to("/proc/self/fd/1")
    r = run_vecfix(["format", "in.parquet", "-o", str(link), *PX, "-q"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [x["px_e9"] or None for x in rows] == expected_px(2)


@pytest.mark.skipif(
    os.environ.get("VECFIX_SLOW_TESTS", "") in ("", "0"),
    reason="set VECFIX_SLOW_TESTS=1 (compiles the kernels in a fresh cache)",
)
def test_cold_compile_is_announced(tmp_path):
    pq.write_table(input_table().slice(0, 50), tmp_path / "in.parquet")
    cache = tmp_path / "cache"
    env = dict(cli_env(), NUMBA_CACHE_DIR=str(cache), VECFIX_ENGINE="auto")
    env.pop("NUMBA_DISABLE_JIT", None)
    args = ["format", "in.parquet", "-o", "o.csv", *PX]
    cmd = [sys.executable, "-m", "vecfix", *args]
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("vecfix: first run on this machine"), r.stderr
    rows = list(csv.DictReader((tmp_path / "o.csv").open()))
    assert [x["px_e9"] or None for x in rows] == expected_px(2)[:50]
    deadline = time.monotonic() + 900  # the background compile leaves the cache filled
    from vecfix._engine import _held

    while any(map(_held, cache.glob("vecfix-*/compiling.lock"))) and time.monotonic() < deadline:
        time.sleep(1)
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert "first run" not in r.stderr  # the second run finds the kernels compiled


def test_failed_stream_leaves_no_output(runs):
    d, results = runs
    assert results["bad_text_mid_stream"].returncode == 1
    assert not (d / "bad_out.csv").exists()
    assert not [p.name for p in d.iterdir() if p.name.startswith(".bad_out.csv.")]


def test_console_script_version():
    script = Path(sys.executable).with_name("vecfix")
    if not script.exists():
        pytest.skip("the vecfix console script is not installed next to this Python")
    r = subprocess.run([script, "--version"], env=cli_env(), capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("vecfix ")


def test_version_is_the_installed_packages():
    from importlib.metadata import version

    import vecfix

    assert vecfix.__version__ == version("vecfix")  # pyproject.toml reads it from vecfix/


# --------------------------------------------------------------------------- in process


def test_options_attach_to_the_column_before_them():
    args = build_parser().parse_args(
        "format a.csv -o b.csv --scale 2 --exponent -9 --column bid --column ask --scale 3"
        " --column qty --scale 0 --exponent 0 --null -1".split()
    )
    assert args.column_defaults == {"scale": 2, "exponent": -9}
    assert args.column_specs == [
        {"name": "bid"},
        {"name": "ask", "scale": 3},
        {"name": "qty", "scale": 0, "exponent": 0, "null": [-1]},
    ]


def test_progress_line_on_a_terminal_only(tmp_path, capsys, monkeypatch):
    """The progress line (rows done of the total) shows when stderr is a terminal and not
    with --quiet; the summary line is one line at the end."""
    pq.write_table(input_table(), tmp_path / "in.parquet", row_group_size=1000)
    argv = ["format", str(tmp_path / "in.parquet"), "-o", str(tmp_path / "o.csv"),
            "--column", "qty", "--scale", "1"]  # fmt: skip
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(argv) == 0
    err = capsys.readouterr().err
    progress, _, summary = err.rpartition("\r\x1b[K")
    assert progress.startswith("\rvecfix format: in.parquet: ") and f"of {N:,} rows (" in progress
    assert summary.startswith(f"vecfix format: {N:,} rows, formatted qty, wrote ")
    assert summary.count("\n") == 1 and summary.endswith(" s\n")
    assert main([*argv, "-q"]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert main(argv) == 0
    assert capsys.readouterr().err.count("\n") == 1 and "\r" not in capsys.readouterr().err


def test_format_file_errors_in_process(tmp_path):
    pq.write_table(input_table(), tmp_path / "in.parquet")
    with pytest.raises(DataError, match=r"no column 'nope'\nIts columns are: "):
        format_file(tmp_path / "in.parquet", tmp_path / "o.csv", [spec("nope", 1)])
    with pytest.raises(ValueError, match="overwrite the input"):
        format_file(tmp_path / "in.parquet", tmp_path / "in.parquet", [spec("qty", 1)])
    assert (
        main(["format", str(tmp_path / "none.csv"), "-o", "o.csv", "--column", "a", "--scale", "1"])
        == 2
    )


def test_csv_with_prices_that_look_like_floats_is_read_exactly(tmp_path):
    src = tmp_path / "in.csv"
    src.write_bytes(b"sym,px\nA,0.125\nB,2.675\nC,1.005\nD,\n")
    format_file(src, tmp_path / "out.arrow", [spec("px", 2)])
    with ipc.open_file(tmp_path / "out.arrow") as r:
        assert r.read_all()["px"].to_pylist() == ["0.13", "2.68", "1.01", None]
    buf = io.StringIO((tmp_path / "in.csv").read_text())
    assert len(list(csv.reader(buf))) == 5


def test_csv_other_columns_keep_their_text_unless_inferred(tmp_path):
    src = tmp_path / "in.csv"
    src.write_bytes(b"sym,px,last,qty\nA,0.125,4916.2500,007\nB,2.675,1.10,12\n")
    format_file(src, tmp_path / "text.parquet", [spec("px", 2)])
    t = pq.read_table(tmp_path / "text.parquet")
    assert t["last"].to_pylist() == ["4916.2500", "1.10"] and t["qty"].to_pylist() == ["007", "12"]
    format_file(src, tmp_path / "typed.parquet", [spec("px", 2)], csv_infer_types=True)
    t = pq.read_table(tmp_path / "typed.parquet")
    assert t["qty"].to_pylist() == [7, 12] and t["px"].to_pylist() == ["0.13", "2.68"]


def test_uint64_null_sentinel_on_a_uint64_column(tmp_path):
    """--null takes a uint64 sentinel (2**64 - 1) for a uint64 column, as format_fixed's
    null= does; past uint64 it is refused with the bounds."""
    coef = [15, 2**64 - 1, 2**63 + 5]
    pq.write_table(pa.table({"px": pa.array(coef, pa.uint64())}), tmp_path / "u.parquet")
    out = tmp_path / "u.parquet.out.parquet"
    argv = ["format", str(tmp_path / "u.parquet"), "-o", str(out), "-q",
            "--column", "px", "--exponent", "-1", "--scale", "1"]  # fmt: skip
    assert main([*argv, "--null", str(2**64 - 1)]) == 0
    want = [reference_fixed(coef[0], -1, 1), None, reference_fixed(coef[2], -1, 1)]
    assert pq.read_table(out)["px"].to_pylist() == want
    assert NumberFormat(-1, 1, null=(2**64 - 1,)).null == 2**64 - 1
    with pytest.raises(SystemExit):
        main([*argv, "--null", str(2**64)])


def test_csv_null_texts_are_text_unless_listed(tmp_path, capsys):
    """A CSV input's "NA" or "NULL" cell is text by default (a ticker "NA" is kept); with
    --csv-null it is null, in every column."""
    src, out = tmp_path / "na.csv", tmp_path / "o.csv"
    src.write_text("sym,px\nNA,1.005\nNULL,\nES,2.5\n")
    argv = ["format", str(src), "-o", str(out), "-q", "--column", "px", "--scale", "2"]
    assert main(argv) == 0
    assert out.read_text().splitlines() == ["sym,px", "NA,1.01", "NULL,", "ES,2.50"]
    assert main([*argv, "--csv-null", "NA", "--csv-null", "NULL"]) == 0
    assert out.read_text().splitlines() == ["sym,px", ",1.01", ",", "ES,2.50"]
    src.write_text("sym,px\nES,NA\n")  # as a price, "NA" is not a number: refused, with its row
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "column 'px', row 0" in err and "'NA' is not decimal text" in err
    assert "Traceback" not in err


def test_csv_output_refuses_a_column_csv_cannot_hold(tmp_path, capsys):
    """A kept column of a type CSV has no text for (a list): one line naming it, no file."""
    pq.write_table(pa.table({"px": ["1.005"], "lst": [[1, 2]]}), tmp_path / "l.parquet")
    out = tmp_path / "l.csv"
    assert main(["format", str(tmp_path / "l.parquet"), "-o", str(out), "--column", "px",
                 "--scale", "2"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "column 'lst' (List(Int64))" in err and "Parquet" in err
    assert "Traceback" not in err
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["l.parquet"]


def test_a_column_given_twice_is_named_whatever_its_options(tmp_path, capsys):
    """A column given twice is refused as such (exit 2) even when one of its specs has an
    --exponent: the CSV reader read it as text for the other spec, and the first spec's
    check had said 'leave out --exponent' (exit 1), an option the user needed."""
    src = tmp_path / "b.csv"
    src.write_text("sym,px\nES,5000250000000\n")
    out = tmp_path / "o.csv"
    argv = ["format", str(src), "-o", str(out), "--quiet", "--column", "px", "--scale", "2"]
    assert main([*argv, "--exponent", "-9", "--column", "px", "--scale", "3"]) == 2
    err = capsys.readouterr().err
    assert "column 'px' is given twice" in err and "--exponent" not in err
    assert not out.exists()
