"""``vecfix read-fix LOG... -o OUT``: FIX logs into Parquet, CSV or Arrow IPC, written as
``vecfix format`` writes them, with its errors and exit statuses."""

from __future__ import annotations

import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from vecfix.cli import main

pa = pytest.importorskip("pyarrow")
pytest.importorskip("polars")
import pyarrow.feather  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from test_fix_read_logs import LOG, message  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "engine.log"
    path.write_bytes(LOG)
    return path


def test_parquet(log, tmp_path, capsys):
    out = tmp_path / "fills.parquet"
    assert main(["read-fix", str(log), "-o", str(out)]) == 0
    t = pq.read_table(out)
    assert t.column_names[:4] == ["msg", "offset", "valid", "prefix"]
    assert t["prefix"].to_pylist()[:2] == [
        "2024-01-02 14:30:00.125 INFO  :",
        "2024-01-02 14:30:01.002 INFO  :",
    ]
    assert t["12"].to_pylist() == [Decimal("4.50"), Decimal("1.25"), None, None]
    assert t["60"].type == pa.timestamp("us", tz="UTC")
    err = capsys.readouterr().err
    assert f"vecfix read-fix: 4 rows from 3 messages (0 not valid), wrote {out} in" in err


def test_csv_from_stdin_to_stdout_by_the_entry_point():
    """``-`` for both, through ``python -m vecfix``: CSV, as vecfix format writes it."""
    r = subprocess.run(
        [sys.executable, "-m", "vecfix", "read-fix", "-", "-o", "-", "--names", "--tags",
         "Symbol,LastPx,Commission,MDEntryPx", "-q"],
        input=LOG, capture_output=True, cwd=ROOT, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stderr == b""
    lines = r.stdout.decode().splitlines()
    assert lines[0] == "msg,offset,valid,prefix,Symbol,LastPx,Commission,MDEntryPx"
    assert lines[1].endswith(",true,2024-01-02 14:30:00.125 INFO  :,IBM,187.250,4.50,")
    assert lines[2].endswith(",true,2024-01-02 14:30:01.002 INFO  :,MSFT,402.125,1.25,")
    assert lines[3].endswith(",true,,ESH4,,,5000.25")
    assert lines[4].endswith(",true,,ESH4,,,5000.50")


def test_arrow_ipc_by_name(log, tmp_path):
    out = tmp_path / "fills.arrow"
    assert main(["read-fix", str(log), "-o", str(out), "--names", "--tags", "32,LastPx", "-q"]) == 0
    t = pyarrow.feather.read_table(out)
    assert t.column_names == ["msg", "offset", "valid", "prefix", "LastQty", "LastPx"]


def test_several_logs(tmp_path):
    """A column ``log``; a tag's scales joined (1.5 and 1.125: three decimals), and a tag
    typed differently by the logs' versions (327: text in 4.4, int in 5.0 SP2) as text."""
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    a.write_bytes(message("FIX.4.4", "35=8|31=1.5|327=I|") + b"\n")
    b.write_bytes(message("FIXT.1.1", "35=8|31=1.125|327=2|") + b"\n")
    out = tmp_path / "both.parquet"
    assert main(["read-fix", str(a), str(b), "-o", str(out), "-q"]) == 0
    t = pq.read_table(out)
    assert t["log"].to_pylist() == [str(a), str(b)]
    assert t["31"].to_pylist() == [Decimal("1.500"), Decimal("1.125")]
    assert t["327"].to_pylist() == ["I", "2"]


def test_not_valid_messages_warn_and_strict_stops(log, tmp_path, capsys):
    bad = tmp_path / "bad.log"
    bad.write_bytes(LOG.replace(b"10=180", b"10=181"))
    out = tmp_path / "out.csv"
    assert main(["read-fix", str(bad), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"vecfix read-fix: warning: {bad}: 1 of 3 messages are not valid" in err
    assert "(1 not valid)" in err
    out.unlink()
    assert main(["read-fix", str(log), str(bad), "-o", str(out), "--strict"]) == 1
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    at = LOG.index(b"8=FIX.4.4")  # the second message's first byte
    assert first.startswith(f"vecfix read-fix: error: {bad}: message 1 at byte {at} is not valid")
    assert "CheckSum (10=181)" in first and len(first) <= 200
    assert "(without --strict, vecfix read-fix keeps such messages" in err
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["missing.log", "-o", "x.csv"], "input 'missing.log' does not exist"),
        (["engine.log", "-o", "x.txt"], "cannot tell the format of 'x.txt' from its extension"),
        (["engine.log", "-o", "engine.log", "--output-format", "csv"], "the output would"),
        (["engine.log", "-o", "x.csv", "--tags", "55,LastPrice"], "--tags: 'LastPrice' is neit"),
        (["-", "-", "-o", "x.csv"], "standard input (-) can be read once"),
        (["engine.log", "-o", "nodir/x.csv"], "the output's folder 'nodir' does not exist"),
    ],
)
def test_usage_errors(log, args, said, capsys, monkeypatch):
    monkeypatch.chdir(log.parent)
    assert main(["read-fix", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"vecfix read-fix: error: {said}"), err
    assert log.read_bytes() == LOG


def test_progress_on_a_terminal(log, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["read-fix", str(log), "-o", str(tmp_path / "x.csv")]) == 0
    err = capsys.readouterr().err
    assert f"\rvecfix read-fix: reading {log} (1 of 1)\x1b[K" in err


def test_wide_decimals_are_written_as_text(tmp_path):
    """Values of 39 to 76 digits (decimal256, which polars cannot hold) as exact text."""
    path = tmp_path / "wide.log"
    wide = "1" * 50 + ".25"
    path.write_bytes(message("FIX.4.4", f"35=8|31={wide}|") + message("FIX.4.4", "35=8|31=2|"))
    out = tmp_path / "wide.parquet"
    assert main(["read-fix", str(path), "-o", str(out), "-q"]) == 0
    assert pq.read_table(out)["31"].to_pylist() == [wide, "2.00"]
