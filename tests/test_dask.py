"""vecfix.dask on a real ``distributed.LocalCluster`` (2 worker processes, loopback only).

Truths: every formatted row is checked against ``reference_fixed`` (exact integer
arithmetic, shares no code with vecfix) and against the single-process
``vecfix.format_fixed`` on the whole column; FIX files are parsed back with simplefix and
compared with messages built here from the inputs, with BodyLength and CheckSum recomputed
from the bytes. Everything that waits on the cluster is bounded by :data:`TIMEOUT`.
"""

from __future__ import annotations

import decimal
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from reference import reference_fixed

import vecfix
import vecfix.fix as fix

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
simplefix = pytest.importorskip("simplefix")
vd = pytest.importorskip("vecfix.dask")

# dask's Parquet reader calls pandas APIs that pandas 3.1 deprecates; not vecfix's concern
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame")

TIMEOUT = 60  # seconds, for anything that waits on the cluster
PARTS = 5  # files of the Parquet dataset
ROWS = 1_200  # rows per file
PRICENULL9 = 2**63 - 1
SYMBOLS = ["ESZ4", "NQZ4", "CLF5", "GCG5", "ZNH5", "6EZ4"]
HEADER = {"sender": "VECFIX", "target": "CLIENT", "sending_time": "20240102-03:04:05.678"}
SOH = b"\x01"


# ---------------------------------------------------------------------------------------
# Cluster and data
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster():
    """Two single-threaded worker processes (with nannies), all on 127.0.0.1."""
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        worker_dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # its HTTP endpoint, loopback
        silence_logs=50,
        timeout=TIMEOUT,
    ) as c:
        yield c


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster, timeout=TIMEOUT, set_as_default=False) as c:
        c.wait_for_workers(2, timeout=TIMEOUT)
        yield c


def test_cluster_is_loopback_only(cluster, client):
    addresses = [cluster.scheduler_address, *client.scheduler_info()["workers"]]
    assert len(addresses) == 3
    for address in addresses:
        assert re.fullmatch(r"tcp://127\.0\.0\.1:\d+", address), address
    # the workers import this checkout's vecfix (vecfix.dask exists only here)
    files = client.run(lambda: __import__("vecfix.dask").dask.__file__)
    assert set(files.values()) == {vd.__file__}


def test_import_vecfix_does_not_import_dask_and_missing_dask_is_explained():
    code = (
        "import sys, vecfix\n"
        "assert not any(m == 'dask' or m.startswith('dask.') for m in sys.modules), 'dask'\n"
        "sys.modules['dask'] = None\n"
        "try:\n"
        "    import vecfix.dask\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(vecfix.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'vecfix[dask]'" in done.stdout


def _frame(rows: int, seed: int, start: int) -> pd.DataFrame:
    """Ticks with nulls everywhere a column allows them, on an increasing index."""
    rng = np.random.default_rng(seed)
    px = rng.integers(-(10**14), 10**14, size=rows, dtype=np.int64)
    px[rng.random(rows) < 0.02] = PRICENULL9  # CME "no price" sentinel
    px[:4] = [PRICENULL9, 5_000_000, -5_000_000, 123_456_789_012_345]  # ties, large
    px_null = rng.random(rows) < 0.05
    qty = rng.integers(0, 10_000, size=rows, dtype=np.int64)
    qty_null = rng.random(rows) < 0.03
    dec_units = rng.integers(-(10**9), 10**9, size=rows)  # 4-decimal values
    dec_null = rng.random(rows) < 0.04
    dec = (dec_units, dec_null)
    dpx = pa.array(
        [None if n else decimal.Decimal(int(u)).scaleb(-4) for u, n in zip(*dec, strict=True)],
        type=pa.decimal128(18, 4),
    )
    df = pd.DataFrame(
        {
            "sym": pd.array(rng.choice(SYMBOLS, size=rows), dtype="string[pyarrow]"),
            "typ": pd.array(rng.choice(["0", "1", "2"], size=rows), dtype="string[pyarrow]"),
            "px": pd.array(px, dtype="Int64", copy=True),
            "qty": pd.array(qty, dtype="Int64", copy=True),
            "dpx": pd.Series(dpx, dtype=pd.ArrowDtype(dpx.type)),
        },
        index=pd.Index(np.arange(start, start + rows, dtype=np.int64), name="seq"),
    )
    df.loc[px_null, "px"] = pd.NA
    df.loc[qty_null, "qty"] = pd.NA
    return df


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A Parquet dataset of :data:`PARTS` files and the same rows as one pandas frame."""
    root = tmp_path_factory.mktemp("ticks")
    frames = []
    for k in range(PARTS):
        df = _frame(ROWS, seed=100 + k, start=k * ROWS)
        pq.write_table(pa.Table.from_pandas(df), root / f"part.{k}.parquet")
        frames.append(df)
    return root, frames


def _read(root: Path) -> dd.DataFrame:
    return dd.read_parquet(root, index="seq", calculate_divisions=True)


def _ref(values, exponent, scale, null=None) -> list[str | None]:
    """Expected text per row from the independent reference; None for nulls/sentinels."""
    out = []
    for v in values:
        if v is None or v is pd.NA or v == null:
            out.append(None)
        elif isinstance(v, decimal.Decimal):
            sign, digits, exp = v.as_tuple()
            coef = int("".join(map(str, digits))) * (-1 if sign else 1)
            out.append(reference_fixed(coef, exp, scale))
        else:
            out.append(reference_fixed(int(v), exponent, scale))
    return out


def _texts(series: pd.Series) -> list[str | None]:
    return [None if v is pd.NA else v for v in series.tolist()]


COLUMNS = {
    "px": {"exponent": -9, "scale": 4, "null": PRICENULL9},
    "qty": {"exponent": 0, "scale": -2},
    "dpx": {"scale": 2},
}


# ---------------------------------------------------------------------------------------
# format_columns
# ---------------------------------------------------------------------------------------


def test_format_columns_on_cluster_equals_single_process_row_for_row(client, dataset):
    root, frames = dataset
    ddf = _read(root)
    assert ddf.npartitions == PARTS and ddf.known_divisions
    out = vd.format_columns(ddf, COLUMNS, suffix="_s")
    assert out.npartitions == ddf.npartitions
    assert out.divisions == ddf.divisions
    assert list(out.columns) == [*ddf.columns, "px_s", "qty_s", "dpx_s"]
    assert all(out.dtypes[c] == vd.STRING_DTYPE for c in ("px_s", "qty_s", "dpx_s"))
    result = client.compute(out).result(timeout=TIMEOUT)
    lengths = client.compute(out.map_partitions(len)).result(timeout=TIMEOUT)

    full = pd.concat(frames)
    assert lengths.tolist() == [ROWS] * PARTS
    pd.testing.assert_index_equal(result.index, full.index)
    pd.testing.assert_frame_equal(result[list(ddf.columns)], full, check_dtype=False)
    assert (result.dtypes == out.dtypes).all()  # meta told the truth
    for name, spec in COLUMNS.items():
        got = _texts(result[name + "_s"])
        single = vecfix.format_fixed(
            full[name], spec.get("exponent"), spec["scale"], null=spec.get("null")
        ).to_list()
        assert got == single, name
        expected = _ref(full[name].tolist(), spec.get("exponent"), spec["scale"], spec.get("null"))
        assert got == expected, name
        assert got.count(None) == full[name].isna().sum() + (full[name] == PRICENULL9).sum()
    assert result["px_s"].isna().sum() > 0 and result["qty_s"].isna().sum() > 0


@pytest.mark.parametrize("convert_string", [True, False])
def test_format_columns_replaces_in_place_text_and_object_columns(convert_string):
    """Dask turns object columns into text by default (``dataframe.convert-string``):
    Decimal objects then arrive as decimal text; without it they stay objects, and an object
    column with an exponent is read as Python ints of any size."""
    df = pd.DataFrame(
        {
            "a": np.array([15, -25, 35], dtype=np.int32),
            "b": ["x", "y", "z"],
            "t": pd.array(["1.005", None, "-0.004"], dtype="string[pyarrow]"),
            "o": np.array([decimal.Decimal("2.5"), None, decimal.Decimal("-1.25")], dtype=object),
            "i": np.array([10**20 + 5, 7, None], dtype=object),
        },
        index=pd.Index([30, 10, 20], name="k"),
    )
    spec = {"a": {"exponent": -1, "scale": 0}, "t": {"scale": 2}, "o": {"scale": 1}}
    with dask.config.set({"dataframe.convert-string": convert_string}):
        ddf = dd.from_pandas(df, npartitions=2, sort=False)
        if convert_string:
            assert isinstance(ddf.dtypes["o"], pd.StringDtype)
            assert isinstance(ddf.dtypes["i"], pd.StringDtype)
            spec["i"] = {"scale": 0}  # now the text "100000000000000000005"
        else:
            assert not isinstance(ddf.dtypes["o"], pd.StringDtype)
            spec["i"] = {"exponent": -1, "scale": 0}
        out = vd.format_columns(ddf, spec)
        assert list(out.columns) == list(df.columns)
        got = out.compute(scheduler="sync")
    assert got.index.tolist() == [30, 10, 20]
    assert _texts(got["a"]) == ["2", "-3", "4"]  # half away from zero
    assert got["b"].tolist() == ["x", "y", "z"]
    assert _texts(got["t"]) == ["1.01", None, "0.00"]  # no negative zero
    assert _texts(got["o"]) == ["2.5", None, "-1.3"]
    big = "100000000000000000005" if convert_string else "10000000000000000001"
    assert _texts(got["i"]) == [big, "7" if convert_string else "1", None]
    assert (got.dtypes[["a", "t", "o", "i"]] == vd.STRING_DTYPE).all()
    assert (out.dtypes[["a", "t", "o", "i"]] == vd.STRING_DTYPE).all()


@pytest.mark.parametrize(
    ("columns", "error", "match"),
    [
        ({"nope": {"scale": 2}}, KeyError, r"'nope' is not a column"),
        (
            {"px": {"scale": 2}},
            TypeError,
            r"exponent is required for integer coefficients \(the column 'px'",
        ),
        (
            {"dpx": {"scale": 2, "exponent": -4}},
            TypeError,
            r"coefficients are the column 'dpx' .*carry their own exponent",
        ),
        ({"f": {"scale": 2, "exponent": 0}}, TypeError, r"'f' has dtype float64"),
        ({"px": {"exponent": -9}}, TypeError, r"columns\['px'\] needs a 'scale'"),
        ({"px": {"exponent": -9, "scale": 2, "nul": 1}}, TypeError, r"unknown keys \['nul'\]"),
        ({"px": {"exponent": -9, "scale": 2.0}}, TypeError, r"scale of column 'px' must be"),
        (
            {"dpx": {"scale": 2, "null": 0}},
            TypeError,
            r"null= marks sentinel integer .*the column 'dpx'",
        ),
        ({}, TypeError, r"non-empty dict"),
    ],
)
def test_format_columns_refuses_bad_specs(columns, error, match):
    df = pd.DataFrame({"px": [1], "f": [1.5]}).assign(
        dpx=pd.Series([decimal.Decimal("1.5")], dtype=pd.ArrowDtype(pa.decimal128(5, 1)))
    )
    with pytest.raises(error, match=match):
        vd.format_columns(dd.from_pandas(df, npartitions=1), columns)


def test_format_columns_takes_number_formats_and_per_row_scales():
    """A NumberFormat per column (the format the polars namespace and vecfix format take);
    a per-row scale names a column of the frame, and a row whose scale is missing is
    <NA>."""
    px = [5000_250000000, None, -4_000000, PRICENULL9, 12_345678901, 7]
    tick = [2, 6, None, 3, 0, 9]
    df = pd.DataFrame(
        {"px": pd.array(px, dtype="Int64"), "tick": pd.array(tick, dtype="Int64")},
        index=[5, 6, 7, 8, 9, 10],
    )
    ddf = dd.from_pandas(df, npartitions=3, sort=False)
    fmt = vecfix.NumberFormat(-9, "tick", null=PRICENULL9)
    got = vd.format_columns(ddf, {"px": fmt}, suffix="_text").compute(scheduler="sync")
    want = [
        None if c in (None, PRICENULL9) or s is None else reference_fixed(c, -9, s)
        for c, s in zip(px, tick, strict=True)
    ]
    assert _texts(got["px_text"]) == want and got.index.tolist() == [5, 6, 7, 8, 9, 10]
    with pytest.raises(TypeError, match=r"columns\['px'\] needs a scale"):
        vd.format_columns(ddf, {"px": vecfix.NumberFormat(-9)})
    with pytest.raises(KeyError, match=r"scale 'nope' is not a column"):
        vd.format_columns(ddf, {"px": vecfix.NumberFormat(-9, "nope")})


def test_partitions_go_through_the_per_batch_function(monkeypatch):
    """Each partition is formatted by vecfix._batch.format_values, the function the polars
    namespace runs on each batch of a query (and so vecfix format)."""
    import vecfix._batch
    import vecfix.polars

    assert vd.format_values is vecfix._batch.format_values is vecfix.polars.format_values
    calls: list[int] = []
    real = vecfix._batch.format_values

    def spy(values, fmt, **kw):
        calls.append(len(values))
        return real(values, fmt, **kw)

    monkeypatch.setattr(vd, "format_values", spy)
    df = pd.DataFrame({"px": pd.array(range(10), dtype="Int64")})
    ddf = dd.from_pandas(df, npartitions=3)
    out = vd.format_columns(ddf, {"px": vecfix.NumberFormat(-1, 1)}).compute(scheduler="sync")
    sizes = ddf.map_partitions(len).compute(scheduler="sync").tolist()
    assert len(sizes) == 3 and sorted(calls) == sorted(sizes)
    assert _texts(out["px"]) == [reference_fixed(c, -1, 1) for c in range(10)]


# ---------------------------------------------------------------------------------------
# format_parquet
# ---------------------------------------------------------------------------------------


def _check_parquet_output(out: Path, frames: list[pd.DataFrame], suffix: str) -> None:
    files = sorted(out.glob("*.parquet"))
    assert len(files) == PARTS  # one output file per input partition
    for path, df in zip(files, frames, strict=True):  # file k holds partition k, in order
        got = pd.read_parquet(path)
        pd.testing.assert_index_equal(got.index, df.index)
        for name, spec in COLUMNS.items():
            expected = _ref(
                df[name].tolist(), spec.get("exponent"), spec["scale"], spec.get("null")
            )
            assert _texts(got[name + suffix]) == expected, (path.name, name)


def test_format_parquet_on_a_scheduler_address(cluster, client, dataset, tmp_path):
    root, frames = dataset
    out = tmp_path / "out"
    n = vd.format_parquet(
        root, out, COLUMNS, scheduler=cluster.scheduler_address,
        read_kwargs={"index": "seq", "calculate_divisions": True},
    )  # fmt: skip
    assert n == PARTS
    _check_parquet_output(out, frames, suffix="")
    back = dd.read_parquet(out, index="seq", calculate_divisions=True)
    assert back.divisions == _read(root).divisions


def test_format_parquet_keeps_an_integer_column_with_nulls(client, tmp_path):
    """An int64 price column with nulls is read pyarrow-backed (NumPy's backend made it
    float64, which format_fixed refuses): nulls stay null, the rest is formatted."""
    root = tmp_path / "in"
    root.mkdir()
    parts = [[5000_250000000, None, -4_000000], [None, 7]]
    for k, px in enumerate(parts):
        table = pa.table(
            {"px": pa.array(px, pa.int64()), "sym": [f"s{k}{i}" for i in range(len(px))]}
        )
        pq.write_table(table, root / f"part.{k}.parquet")
    out = tmp_path / "out"
    assert vd.format_parquet(root, out, {"px": {"exponent": -9, "scale": 4}}, scheduler=client) == 2
    got = pq.read_table(out)
    assert got["px"].to_pylist() == _ref([v for px in parts for v in px], -9, 4)
    assert got["sym"].to_pylist() == ["s00", "s01", "s02", "s10", "s11"]


def test_format_parquet_starts_and_closes_a_local_cluster(dataset, tmp_path):
    root, frames = dataset
    before = set(distributed.Client._instances)
    n = vd.format_parquet(  # one worker process: starting the cluster is the slow part
        root, tmp_path / "out", COLUMNS, suffix="_s", n_workers=1, read_kwargs={"index": "seq"}
    )
    assert n == PARTS
    _check_parquet_output(tmp_path / "out", frames, suffix="_s")
    open_clients = {c for c in distributed.Client._instances if c.status != "closed"}
    assert open_clients <= before  # the call closed what it opened


def test_cli_format_dask_on_a_scheduler_address(cluster, dataset, tmp_path):
    root, frames = dataset
    out = tmp_path / "cli-out"
    command = [sys.executable, "-m", "vecfix", "format", str(root), "-o", str(out)]
    for name, spec in COLUMNS.items():
        command += ["--column", name, "--scale", str(spec["scale"])]
        if "exponent" in spec:
            command += ["--exponent", str(spec["exponent"])]
        if "null" in spec:
            command += ["--null", str(spec["null"])]
    command += ["--dask", cluster.scheduler_address, "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    files = sorted(out.glob("*.parquet"))
    assert len(files) == PARTS
    for path, df in zip(files, frames, strict=True):
        got = pd.read_parquet(path)
        for name, spec in COLUMNS.items():
            expected = _ref(
                df[name].tolist(), spec.get("exponent"), spec["scale"], spec.get("null")
            )
            assert _texts(got[name]) == expected, (path.name, name)


def test_cli_format_dask_refuses_non_parquet(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text("px\n1\n")
    command = [sys.executable, "-m", "vecfix", "format", str(src), "-o", str(tmp_path / "o.csv")]
    command += ["--column", "px", "--exponent", "0", "--scale", "1", "--dask"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "--dask reads and writes Parquet datasets" in done.stderr
    assert "Traceback" not in done.stderr


def test_cli_format_dask_row_error_is_one_line(tmp_path):
    """A bad row met on a worker of the local cluster: stderr is the one error line, with
    none of the workers' logs ("Compute Failed", a traceback) around it."""
    src = tmp_path / "ds"
    src.mkdir()
    pq.write_table(pa.table({"px": ["1.5", "2.5"]}), src / "a.parquet")
    pq.write_table(pa.table({"px": ["1.5", "x.5"]}), src / "b.parquet")
    command = [sys.executable, "-m", "vecfix", "format", str(src), "-o", str(tmp_path / "o")]
    command += ["--column", "px", "--scale", "1", "--dask"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("vecfix format: error: partition 1,") and "'x.5'" in lines[0]


def test_format_parquet_checks_specs_before_starting_anything(dataset, tmp_path):
    root, _ = dataset
    with pytest.raises(
        TypeError, match="exponent is required for integer coefficients \\(the column 'px'"
    ):
        vd.format_parquet(root, tmp_path / "out", {"px": {"scale": 4}}, scheduler=object())
    with pytest.raises(TypeError, match="scheduler must be None, an address"):
        vd.format_parquet(root, tmp_path / "out", COLUMNS, scheduler=object())
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------
# write_fix_snapshots
# ---------------------------------------------------------------------------------------


def fix_args(seq: int = 1) -> dict:
    """The columns, formats and a fresh header (numbering from ``seq``) of the FIX tests."""
    return {
        "symbol": "sym",
        "entry_type": "typ",
        "price": "px",
        "size": "qty",
        "price_format": vecfix.NumberFormat(-9, 4, null=PRICENULL9),  # sizes: whole numbers
        "header": fix.Header(HEADER["sender"], HEADER["target"], next_seq=seq),
        "sending_time": HEADER["sending_time"],
    }


def _check_frame(msg: bytes) -> None:
    """Recompute BodyLength (9) and CheckSum (10) from the raw bytes, per the FIX spec."""
    first_soh = msg.index(SOH)
    body_start = msg.index(SOH, first_soh + 1) + 1
    trailer = msg.rindex(SOH + b"10=") + 1
    assert msg.endswith(SOH) and len(msg) - trailer == 7
    assert int(msg[first_soh + 3 : body_start - 1]) == trailer - body_start
    assert msg[trailer + 3 : trailer + 6] == b"%03d" % (sum(msg[:trailer]) % 256)


def _parse_file(path: Path) -> list[list[tuple[int, bytes]]]:
    """Every message of a file, framing checked, as (tag, value) pairs after 8 and 9."""
    data = path.read_bytes()
    parser = simplefix.FixParser()
    parser.append_buffer(data)
    out, ends = [], [m.end() for m in re.finditer(rb"\x0110=\d{3}\x01", data)]
    start = 0
    for end in ends:
        _check_frame(data[start:end])
        start = end
        msg = parser.get_message()
        assert msg is not None
        pairs = list(msg)
        assert pairs[0] == (8, b"FIX.4.4") and pairs[1][0] == 9 and pairs[-1][0] == 10
        out.append(pairs[2:-1])
    assert start == len(data) and parser.get_message() is None
    return out


def _expected_messages(frames: list[pd.DataFrame], seq: int = 1) -> list[list[list]]:
    """Per partition: one 35=W per symbol (first-appearance order), entries in row order."""
    out = []
    for df in frames:
        groups: dict[str, list] = {}
        for sym, typ, px, qty in zip(df["sym"], df["typ"], df["px"], df["qty"], strict=True):
            entry = [(269, typ.encode())]
            if px is not pd.NA and px != PRICENULL9:
                entry.append((270, reference_fixed(int(px), -9, 4).encode()))
            if qty is not pd.NA:
                entry.append((271, str(int(qty)).encode()))
            groups.setdefault(sym, []).extend(entry)
        msgs = []
        for sym, entries in groups.items():
            head = [(35, b"W"), (49, b"VECFIX"), (56, b"CLIENT"), (34, str(seq).encode())]
            head += [(52, HEADER["sending_time"].encode()), (55, sym.encode())]
            count = sum(1 for tag, _ in entries if tag == 269)
            msgs.append([*head, (268, str(count).encode()), *entries])
            seq += 1
        out.append(msgs)
    return out


def test_write_fix_snapshots_one_file_per_partition(client, dataset, tmp_path):
    root, frames = dataset
    stale = tmp_path / ".part-00003.fix.0123456789abcdef0123456789abcdef.tmp"
    stale.write_bytes(b"left by an attempt that died mid-write")
    args = fix_args()
    parts = vd.write_fix_snapshots(_read(root), tmp_path, scheduler=client, **args)

    expected = _expected_messages(frames)
    assert [Path(p.path).name for p in parts] == [f"part-{k:05d}.fix" for k in range(PARTS)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [p.path.split("/")[-1] for p in parts]
    first = 1
    for part, msgs in zip(parts, expected, strict=True):
        assert _parse_file(Path(part.path)) == msgs
        assert part.messages == len(msgs) and part.entries == ROWS and part.first_seq == first
        assert part.nbytes == os.path.getsize(part.path)
        first += len(msgs)
    assert args["header"].next_seq == first  # the header moved on past the files

    with pytest.raises(FileExistsError, match="already holds 5 part-"):
        vd.write_fix_snapshots(_read(root), tmp_path, scheduler=client, **args)
    assert args["header"].next_seq == first  # no number taken by a call that raised
    again = vd.write_fix_snapshots(
        _read(root).partitions[:2], tmp_path, scheduler=client, overwrite=True,
        **{**fix_args(7), "sending_time": "20240102-03:04:05"},
    )  # fmt: skip
    assert len(again) == 2 and len(list(tmp_path.iterdir())) == 2
    assert again[0].first_seq == 7 and again[1].first_seq == 7 + again[0].messages


def test_write_fix_snapshots_decimal_prices_empty_partitions_and_errors(tmp_path):
    df = pd.DataFrame(
        {
            "sym": ["A", "B", "A", "C"],
            "typ": [0, 1, 2, 0],
            "px": pd.Series(
                [decimal.Decimal("1.005"), None, decimal.Decimal("-2.5"), decimal.Decimal("3")],
                dtype=pd.ArrowDtype(pa.decimal128(10, 3)),
            ),
            "qty": pd.Series(["0.5", "1", None, "2.25"], dtype="string[pyarrow]"),
        }
    )
    ddf = dd.from_pandas(df, npartitions=2, sort=False)
    ddf = ddf[ddf["sym"] != "B"]  # partition 1 keeps "A", "C"; nothing is empty yet
    ddf = dd.concat([ddf, ddf[ddf["sym"] == "Z"]])  # add an empty partition
    args = {
        "symbol": "sym",
        "entry_type": "typ",
        "price": "px",
        "size": "qty",
        "header": fix.Header("VECFIX", "CLIENT"),
        "sending_time": HEADER["sending_time"],
    }
    scales = {"price_format": vecfix.NumberFormat(scale=2),
              "size_format": vecfix.NumberFormat(scale=1)}  # fmt: skip
    parts = vd.write_fix_snapshots(ddf, tmp_path, **scales, **args, scheduler="sync")
    assert [(p.messages, p.entries) for p in parts] == [(1, 1), (2, 2), (0, 0), (0, 0)]
    assert [p.first_seq for p in parts] == [1, 2, 4, 4]
    msgs = [m for p in parts for m in _parse_file(Path(p.path))]
    assert [(m[3][1], m[5][1], m[6:]) for m in msgs] == [
        (b"1", b"A", [(268, b"1"), (269, b"0"), (270, b"1.01"), (271, b"0.5")]),
        (b"2", b"A", [(268, b"1"), (269, b"2"), (270, b"-2.50")]),
        (b"3", b"C", [(268, b"1"), (269, b"0"), (270, b"3.00"), (271, b"2.3")]),
    ]
    assert Path(parts[2].path).read_bytes() == b""

    bad = dd.from_pandas(df.assign(sym=["A", None, "A", "C"]), npartitions=2, sort=False)
    with pytest.raises(ValueError, match=r"partition 0: column 'sym' is null at index 1"):
        vd.write_fix_snapshots(bad, tmp_path / "b", **scales, **args, scheduler="sync")
    with pytest.raises(
        TypeError, match=r"price: coefficients are the column 'px' .*carry their own"
    ):
        vd.write_fix_snapshots(ddf, tmp_path / "c", price_format=vecfix.NumberFormat(-2, 2), **args)
    with pytest.raises(KeyError, match=r"size='nope' is not a column"):
        vd.write_fix_snapshots(ddf, tmp_path / "c", **{**args, "size": "nope"})
    with pytest.raises(ValueError, match="sending_time"):
        vd.write_fix_snapshots(ddf, tmp_path / "c", **{**args, "sending_time": "x"})
    with pytest.raises(TypeError, match=r"header must be a vecfix\.fix\.Header, got dict"):
        vd.write_fix_snapshots(ddf, tmp_path / "c", **{**args, "header": {"sender": "S"}})
    assert not (tmp_path / "c").exists() or not list((tmp_path / "c").iterdir())


def test_write_fix_snapshots_formats_header_and_signature(tmp_path):
    """Integer sizes need no format; an integer price without one is refused before any
    file or number is taken; a format may name columns of per-row scales; a row that
    cannot be printed names its partition and index label; at most 14 parameters."""
    import inspect

    df = pd.DataFrame(
        {"sym": ["A", "B", "A"], "typ": [0, 1, 2], "px": [5012_25, 18001_5, 1],
         "dp": [2, 1, 0], "qty": [3, None, 2]},
        index=[20, 21, 22],
    ).astype({"qty": "Int64"})  # fmt: skip
    ddf = dd.from_pandas(df, npartitions=1)
    args = {"symbol": "sym", "entry_type": "typ", "price": "px", "size": "qty",
            "sending_time": HEADER["sending_time"]}  # fmt: skip
    head = fix.Header("S", "T", next_seq=3)
    with pytest.raises(TypeError) as info:
        vd.write_fix_snapshots(ddf, tmp_path / "a", header=head, **args, scheduler="sync")
    first = str(info.value).splitlines()[0]
    assert first.startswith("price: price_format= is required for integer coefficients: pass")
    assert "NumberFormat(-9, 2) for CME PRICE9" in first and len(first) <= 200
    assert head.next_seq == 3 and not (tmp_path / "a").exists()

    per_row = vecfix.NumberFormat(-2, "dp")  # each row's scale from the column "dp"
    parts = vd.write_fix_snapshots(ddf, tmp_path / "b", price_format=per_row, header=head,
                                   **args, scheduler="sync")  # fmt: skip
    msgs = _parse_file(Path(parts[0].path))
    assert [m[6:] for m in msgs] == [
        [(268, b"2"), (269, b"0"), (270, b"5012.25"), (271, b"3"),
         (269, b"2"), (270, b"0"), (271, b"2")],
        [(268, b"1"), (269, b"1"), (270, b"1800.2")],  # 1800.15 at 1 decimal: half up
    ]  # fmt: skip
    assert [int(dict(m)[34]) for m in msgs] == [3, 4] and head.next_seq == 5

    with pytest.raises(KeyError, match=r"price_format='nope' is not a column"):
        vd.write_fix_snapshots(ddf, tmp_path / "c", price_format=vecfix.NumberFormat(-2, "nope"),
                               header=head, **args)  # fmt: skip
    too_long = dd.from_pandas(df.assign(dp=[2, 1, 70_000]), npartitions=1)
    with pytest.raises(vecfix.RowTooLongError) as info:
        vd.write_fix_snapshots(too_long, tmp_path / "d", price_format=per_row, header=head,
                               **args, scheduler="sync")  # fmt: skip
    assert str(info.value).startswith("partition 0, index 22, column 'px'")
    assert info.value.row == 2  # counted in the partition, as the rows came in
    assert head.next_seq == 7  # (its two numbers were taken when the files were planned)
    assert len(inspect.signature(vd.write_fix_snapshots).parameters) <= 14


def test_worker_killed_mid_job_loses_and_duplicates_nothing(cluster, client, dataset, tmp_path):
    """SIGKILL one worker process while partitions are being written; Dask reruns its
    tasks on the other (and the restarted) worker. Every message must appear exactly once."""
    root, frames = dataset
    pieces, size = 4, ROWS // 4  # 20 partitions of 300 rows, each task slowed to ~0.2 s
    divisions = [*range(0, PARTS * ROWS, size), PARTS * ROWS - 1]
    ddf = _read(root).repartition(divisions=divisions)
    assert ddf.npartitions == PARTS * pieces

    def slow(part):
        time.sleep(0.2)
        return part

    ddf = ddf.map_partitions(slow, meta=ddf._meta)
    job = vd.write_fix_snapshots(ddf, tmp_path, compute=False, scheduler=client, **fix_args())
    pids_before = client.run(os.getpid)
    future = client.compute(job)
    deadline = time.monotonic() + TIMEOUT
    while not list(tmp_path.glob("part-*.fix")):  # the job is under way
        assert time.monotonic() < deadline and not future.done()
        time.sleep(0.02)
    busy = [w for w, keys in client.processing().items() if keys]
    assert busy and not future.done()
    victim = pids_before[busy[0]]
    os.kill(victim, signal.SIGKILL)
    written_at_kill = len(list(tmp_path.glob("part-*.fix")))
    assert written_at_kill < ddf.npartitions

    parts = future.result(timeout=TIMEOUT)
    rescheduled = [  # tasks that were running or queued on the victim when it died
        t.key for t in cluster.scheduler.transition_log
        if t.start == "processing" and t.stimulus_id.startswith("handle-worker-cleanup")
    ]  # fmt: skip
    assert rescheduled
    client.wait_for_workers(2, timeout=TIMEOUT)  # the nanny restarted the victim
    assert victim not in client.run(os.getpid).values()

    assert [Path(p.path).name for p in parts] == [f"part-{k:05d}.fix" for k in range(20)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"part-{k:05d}.fix" for k in range(20)]
    # the same rows in 20 partitions: 4 pieces of each original file, in order
    small = [df.iloc[i * size : (i + 1) * size] for df in frames for i in range(pieces)]
    expected = _expected_messages(small)
    got = [_parse_file(Path(p.path)) for p in parts]
    assert got == expected
    seqs = [int(dict(m)[34]) for msgs in got for m in msgs]
    assert seqs == list(range(1, len(seqs) + 1))  # each message once, no gap
    entries = sum(int(dict(m)[268]) for msgs in got for m in msgs)
    assert entries == PARTS * ROWS


def test_a_row_error_names_the_partition_and_the_index_label():
    frame = pd.DataFrame({"px": ["1.5", "2", "3", "1,5"]}, index=[10, 11, 12, 13])
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(frame, npartitions=2, sort=False)
        out = vd.format_columns(ddf, {"px": {"scale": 1}})
        with pytest.raises(vecfix.RowError) as info:
            out.compute(scheduler="sync")
    error = info.value
    assert (error.argument, error.row) == ("coefficients", 1)  # counted in its partition
    assert str(error).startswith("partition 1, index 13, column 'px', row 1: '1,5'")


def test_format_parquet_replaces_a_local_output_whole_or_not_at_all(client, tmp_path):
    """The output folder is written beside itself and put in place at the end: a part file
    of an earlier, longer run does not linger; a run that fails in its last partition (a
    text that is no decimal) leaves the old folder as it was, and nothing beside it."""
    root = tmp_path / "in"
    root.mkdir()
    for k, texts in enumerate((["1.5", "2"], ["3", "4.125"])):
        pq.write_table(pa.table({"t": texts}), root / f"part.{k}.parquet")
    out = tmp_path / "out"
    out.mkdir()
    (out / "part.999.parquet").write_bytes(b"an earlier run's")
    n = vd.format_parquet(root, out, {"t": {"scale": 2}}, scheduler=client)
    assert sorted(p.name for p in out.iterdir()) == [f"part.{i}.parquet" for i in range(n)]
    assert pd.read_parquet(out)["t"].tolist() == ["1.50", "2.00", "3.00", "4.13"]
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    pq.write_table(pa.table({"t": ["3", "4,125"]}), root / "part.1.parquet")
    with pytest.raises(ValueError, match="'4,125' is not decimal text"):
        vd.format_parquet(root, out, {"t": {"scale": 2}}, scheduler=client)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out"]
