"""The file job's CSV bytes and its bad rows: the file is byte for byte what polars' own
writer makes of the same text (quotes only where a field needs them), though the formatted
columns reach the writer unchecked; a row that cannot be formatted is reported from the
batch that found it, with its row in the file, or written as null (``bad_rows="null"``).
Expected text comes from polars' writer, the ``decimal`` reference or is written out here."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import reference_fixed

pl = pytest.importorskip("polars")

from vecfix import NumberFormat  # noqa: E402
from vecfix.cli import main  # noqa: E402
from vecfix.files import (  # noqa: E402
    BadRowWarning,
    ColumnSpec,
    DataError,
    UsageError,
    format_batch,
    format_file,
)

ROOT = Path(__file__).resolve().parents[1]
PX = [5000_250000000, -110_015625000, 6_700050, 0, 4999_995000000]


def _spy(monkeypatch, owner, name, record) -> None:
    """``owner.name`` still called, each call's arguments handed to ``record`` first."""
    real = getattr(owner, name)

    def spied(*args, **kwargs):
        record(*args, **kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, spied)


# ------------------------------------------------------------------------ the CSV bytes

TEXT = st.text(alphabet=[",", '"', "\n", "\r", " ", "a", "Z", "é", "'", ";", "\t"], max_size=6)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    symbols=st.lists(st.none() | TEXT, min_size=len(PX), max_size=len(PX)),
    notes=st.lists(st.none() | TEXT, min_size=len(PX), max_size=len(PX)),
)
def test_csv_bytes_are_polars_writers(tmp_path, symbols, notes):
    """Text columns that need quotes (a comma, a quote, a line break, an empty text), nulls,
    a categorical column: the file is polars' ``write_csv`` of the same text."""
    frame = pl.DataFrame({"sym": symbols, "px": PX, "note": notes})
    frame = frame.with_columns(pl.col("note").cast(pl.Categorical))
    frame.write_parquet(tmp_path / "in.parquet")
    format_file(
        tmp_path / "in.parquet", tmp_path / "out.csv", [ColumnSpec("px", NumberFormat(-9, 2))]
    )
    want = frame.with_columns(px=pl.Series([reference_fixed(c, -9, 2) for c in PX]))
    assert (tmp_path / "out.csv").read_bytes() == want.write_csv().encode()


def test_a_column_name_that_needs_quotes(tmp_path):
    frame = pl.DataFrame({"sym,bol": ["a", ""], "": ['"', None], "px": PX[:2]})
    frame.write_parquet(tmp_path / "in.parquet")
    format_file(
        tmp_path / "in.parquet", tmp_path / "out.csv", [ColumnSpec("px", NumberFormat(-9, 4))]
    )
    want = frame.with_columns(px=pl.Series([reference_fixed(c, -9, 4) for c in PX[:2]]))
    assert (tmp_path / "out.csv").read_bytes() == want.write_csv().encode()
    assert (tmp_path / "out.csv").read_text().startswith('"sym,bol","",px\na,""')


def test_the_writer_does_not_look_into_the_formatted_columns(tmp_path, monkeypatch):
    """The default quoting reaches polars' writer as ``never`` (no check of each value),
    the other text columns quoted in the query where needed; the others as given."""
    seen = []
    _spy(monkeypatch, pl.LazyFrame, "sink_csv", lambda *a, **k: seen.append(k["quote_style"]))
    pl.DataFrame({"sym": ["a,b", "c"], "px": PX[:2]}).write_parquet(tmp_path / "in.parquet")
    for quoting in ("necessary", "always", "non_numeric"):
        format_file(tmp_path / "in.parquet", tmp_path / "o.csv",
                    [ColumnSpec("px", NumberFormat(-9, 2))], csv_quoting=quoting)  # fmt: skip
    assert seen == ["never", "always", "non_numeric"]
    assert (tmp_path / "o.csv").read_text() == '"sym","px"\n"a,b","5000.25"\n"c","-110.02"\n'


@pytest.mark.parametrize("value", ["", "a,b", 'say "hi"', "two\nlines"])
def test_csv_quoting_never_refuses_a_value_that_needs_quotes_or_is_empty(tmp_path, value):
    """An empty text written unquoted reads back as null: refused, as the others are."""
    pl.DataFrame({"sym": ["ok", value], "px": PX[:2]}).write_parquet(tmp_path / "in.parquet")
    with pytest.raises(DataError, match=r"--csv-quoting never: column 'sym' holds") as got:
        format_file(tmp_path / "in.parquet", tmp_path / "o.csv",
                    [ColumnSpec("px", NumberFormat(-9, 2))], csv_quoting="never")  # fmt: skip
    assert "This error occurred" not in str(got.value)
    assert not (tmp_path / "o.csv").exists()


# --------------------------------------------------------------------------- bad rows

ROWS = 250_000
BAD = {  # row: (column, cell): cells that cannot be formatted, in three batches or more
    7: ("px", "1.2.3"),
    140_003: ("bid", "abc"),
    200_000: ("dec", "99999999999"),  # px's scale, beyond int32
    249_999: ("px", "--5"),
}


def _cells(i: int) -> dict[str, str]:
    return {
        "sym": f"S{i % 7}",
        "px": f"{i}.{i % 1000:03d}",
        "bid": f"-{i % 97}.5",
        "dec": str(i % 5),
    }


def _write(path: Path, bad: dict[int, tuple[str, str]]) -> None:
    lines = ["sym,px,bid,dec"]
    for i in range(ROWS):
        cells = _cells(i)
        if i in bad:
            cells[bad[i][0]] = bad[i][1]
        lines.append(",".join(cells.values()))
    path.write_text("\n".join(lines) + "\n")


def _want(nulled: set[tuple[int, str]], rows: int = ROWS) -> str:
    """The output written out: px at its row's scale, bid at 2, nulls where said."""
    lines = ["sym,px,bid,dec"]
    for i in range(rows):
        c = _cells(i)
        dec = BAD[i][1] if BAD.get(i, ("",))[0] == "dec" else c["dec"]
        px = (
            ""
            if (i, "px") in nulled
            else reference_fixed(int(c["px"].replace(".", "")), -3, int(dec))
        )
        bid = "" if (i, "bid") in nulled else reference_fixed(int(c["bid"].replace(".", "")), -1, 2)
        lines.append(f"{c['sym']},{px},{bid},{dec}")
    return "\n".join(lines) + "\n"


SPECS = [ColumnSpec("px", NumberFormat(scale="dec")), ColumnSpec("bid", NumberFormat(scale=2))]


@pytest.fixture(scope="module")
def bad_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bad") / "in.csv"
    _write(path, BAD)
    return path


def test_bad_rows_null_writes_nulls_and_says_how_many_and_where(bad_csv, tmp_path):
    out = tmp_path / "out.csv"
    said: list[str] = []
    stats = format_file(bad_csv, out, SPECS, bad_rows="null", on_warning=said.append)
    assert stats.rows == ROWS
    nulled = {(7, "px"), (140_003, "bid"), (200_000, "px"), (249_999, "px")}
    assert out.read_text() == _want(nulled)
    assert len(said) == 1
    lines = said[0].splitlines()
    assert lines[0] == ("4 rows that cannot be formatted written as null (--bad-rows null):"
                        " 3 in column 'px', 1 in column 'bid'") or lines[0] == (
        "4 rows that cannot be formatted written as null (--bad-rows null):"
        " 1 in column 'bid', 3 in column 'px'")  # fmt: skip
    assert [line.split(":")[0] for line in lines[1:]] == [
        "  column 'px', row 7 (counting data rows from 0)",
        "  column 'bid', row 140,003 (counting data rows from 0)",
        "  scale column 'dec'",
        "  column 'px', row 249,999 (counting data rows from 0)",
    ]
    assert "'1.2.3'" in lines[1] and "'abc'" in lines[2] and "200,000" in lines[3]
    assert "99999999999" in lines[3] and "'--5'" in lines[4]


def test_bad_rows_null_changes_nothing_else(tmp_path):
    """The file is the one a clean input with those fields empty would give."""
    frame = pl.DataFrame(
        {
            "sym": ["a,b", "", None, "q", "r", "s"],
            "px": ["1.5", "2", "3", "x", "5", "6"],
            "bid": ["1", "2", "3", "4", "5", "1x"],
            "dec": [1, 0, 2, 1, 1, 1],
        }
    )
    frame.write_parquet(tmp_path / "bad.parquet")
    clean = frame.with_columns(px=pl.Series(["1.5", "2", "3", None, "5", "6"]),
                               bid=pl.Series(["1", "2", "3", "4", "5", None]))  # fmt: skip
    clean.write_parquet(tmp_path / "clean.parquet")
    for fmt in ("csv", "parquet"):
        with pytest.warns(BadRowWarning, match=r"^2 rows that cannot be formatted"):
            format_file(tmp_path / "bad.parquet", tmp_path / f"a.{fmt}", SPECS, bad_rows="null")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            format_file(tmp_path / "clean.parquet", tmp_path / f"b.{fmt}", SPECS)
        if fmt == "csv":
            assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
        else:
            assert pl.read_parquet(tmp_path / "a.parquet").equals(
                pl.read_parquet(tmp_path / "b.parquet")
            )
    with pytest.warns(BadRowWarning, match=r"^2 rows"):
        got = format_batch(frame, SPECS, bad_rows="null")
    assert got["px"].to_list()[3] is None and got["bid"].to_list()[5] is None


def test_a_bad_row_is_reported_by_the_batch_that_found_it(tmp_path, monkeypatch):
    """One bad cell 140,003 rows in: the error names that row and its value, is vecfix's
    own error object (kept aside by the batch, not rebuilt from polars' message), and the
    query is not run a second time to find the row."""
    import vecfix.files as files

    src, good = tmp_path / "in.csv", tmp_path / "good.csv"
    _write(src, {140_003: ("bid", "abc")})
    _write(good, {})
    kept: list[Exception] = []
    _spy(monkeypatch, files._Job, "failed", lambda self, row, error: kept.append(error))
    runs: list[int] = []
    _spy(monkeypatch, pl.LazyFrame, "collect", lambda *a, **k: runs.append(1))
    format_file(good, tmp_path / "good-out.csv", SPECS)  # (polars < 1.37 sinks by collect)
    clean_runs, runs[:] = len(runs), []
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    with pytest.raises(DataError) as got:
        format_file(src, out, SPECS)
    assert str(got.value) == (
        "column 'bid', row 140,003 (counting data rows from 0): 'abc' is not decimal text"
        + str(got.value).split("'abc' is not decimal text", 1)[1]
    )
    assert "This error occurred" not in str(got.value)
    assert kept and got.value is kept[0]
    assert len(runs) == clean_runs  # (no second query collected to look for the row)
    assert out.read_text() == "old\n"


def test_bad_rows_on_the_command_line(bad_csv, tmp_path, capsys):
    out = tmp_path / "out.csv"
    argv = ["format", str(bad_csv), "-o", str(out), "--column", "px", "--scale-column", "dec",
            "--column", "bid", "--scale", "2", "-q"]  # fmt: skip
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("vecfix format: error: column 'px', row 7 (counting data rows from 0)")
    assert main([*argv, "--bad-rows", "null"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("vecfix format: warning: 4 rows that cannot be formatted written as null")
    assert "  column 'bid', row 140,003" in err
    assert out.read_text() == _want({(7, "px"), (140_003, "bid"), (200_000, "px"), (249_999, "px")})
    with pytest.raises(SystemExit):
        main([*argv, "--bad-rows", "skip"])
    assert "invalid choice: 'skip'" in capsys.readouterr().err


def test_a_null_scale_column_value_is_a_null_field_on_the_command_line(tmp_path, capsys):
    (tmp_path / "in.csv").write_text("sym,px,dec\nES,1.25,1\nNQ,2.5,\nZN,3,0\n")
    argv = ["format", str(tmp_path / "in.csv"), "-o", str(tmp_path / "o.csv"), "--column", "px",
            "--scale-column", "dec", "-q"]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    assert (tmp_path / "o.csv").read_text() == "sym,px,dec\nES,1.3,1\nNQ,,\nZN,3,0\n"


# ------------------------------------------------------------------------ one rule each


def test_a_scale_map_takes_numpy_ints_as_the_rules_do():
    np = pytest.importorskip("numpy")
    spec = ColumnSpec(
        "px", NumberFormat(-9), scales_by=("sym", {"ES": np.int64(2), "ZN": np.int8(4)})
    )
    t = pl.DataFrame({"sym": ["ES", "ZN"], "px": PX[:2]})
    assert format_batch(t, [spec])["px"].to_list() == [
        reference_fixed(PX[0], -9, 2),
        reference_fixed(PX[1], -9, 4),
    ]
    with pytest.raises(UsageError, match=r"symbol 'ES'.*must be an integer"):
        ColumnSpec("px", NumberFormat(-9), scales_by=("sym", {"ES": np.float64(2)}))


@pytest.mark.parametrize("name", ["in.pq", "in.parquet", "dataset"])
def test_dask_takes_the_parquet_names_file_format_knows(tmp_path, monkeypatch, name):
    pytest.importorskip("distributed")
    import vecfix.dask

    (tmp_path / name).write_bytes(b"")
    calls = []
    monkeypatch.setattr(vecfix.dask, "format_parquet", lambda *a, **k: calls.append(a) or 1)
    argv = ["format", str(tmp_path / name), "-o", str(tmp_path / "out.pq"), "--column", "px",
            "--exponent", "-9", "--scale", "2", "--dask", "-q"]  # fmt: skip
    assert main(argv) == 0
    assert len(calls) == 1
    assert main([*argv[:3], str(tmp_path / "out.csv"), *argv[4:]]) == 2
