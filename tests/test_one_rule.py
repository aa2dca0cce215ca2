"""One rule everywhere (issue 16): the same input gets the same answer, or the same error,
through every entry point.

:data:`CASES` is a table of inputs; :data:`RUNNERS` the entry points, each a function
``(case) -> list of str or None``. To pin a new entry point (the CLI, ``vecfix.fix``), add
one runner; to pin a new input, add one case. Expected texts come from the independent
reference (:func:`reference.reference_fixed`) or are worked out by hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import reference_fixed

import vecfix
from vecfix import RowError, RowTooLongError

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")

NOJIT = bool(numba.config.DISABLE_JIT)
INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class Raises:
    """The error a case must raise: its type, a pattern of its message, and for a
    :class:`~vecfix.RowError` the row (counted from the start of the input)."""

    type: type[BaseException]
    match: str
    row: int | None = None


@dataclass(frozen=True)
class Case:
    id: str
    values: Any  # made by a function, so that every runner gets a fresh column
    exponent: int | None
    scale: int
    expected: list[str | None] | Raises
    null: int | None = None


def ref(coefs: list[int | None], e: int, s: int) -> list[str | None]:
    return [None if c is None else reference_fixed(c, e, s) for c in coefs]


CASES = [
    # what is printed
    Case("int64", lambda: np.array([125, -5, 0]), -2, 1, ref([125, -5, 0], -2, 1)),
    Case("python ints", lambda: [125, 2**70, -5], -2, 1, ref([125, 2**70, -5], -2, 1)),
    Case(
        "Int64 with nulls",
        lambda: pd.Series([125, None, -5], dtype="Int64"),
        -2,
        1,
        ref([125, None, -5], -2, 1),
    ),
    Case(
        "sentinel", lambda: [125, INT64_MAX, 7], -2, 1, ref([125, None, 7], -2, 1), null=INT64_MAX
    ),
    Case(
        "Decimal", lambda: [Decimal("1.25"), None, Decimal("-0.05")], None, 1, ["1.3", None, "-0.1"]
    ),
    Case("text", lambda: ["1.25", "-0.05", "2e3"], None, 1, ["1.3", "-0.1", "2000.0"]),
    Case(
        "arrow decimal",
        lambda: pa.array([Decimal("1.25"), None], pa.decimal128(9, 2)),
        None,
        1,
        ["1.3", None],
    ),
    Case("masked", lambda: np.ma.masked_array([125, 999], mask=[0, 1]), -2, 1, ["1.3", None]),
    Case("empty", lambda: [], None, 2, []),
    Case("all null", lambda: [None, None], None, 2, [None, None]),
    # what is refused, with one message
    Case(
        "ints without an exponent",
        lambda: np.array([125, 7]),
        None,
        1,
        Raises(TypeError, r"exponent is required for integer coefficients"),
    ),
    Case(
        "Decimal with an exponent",
        lambda: [Decimal("1.5")],
        -2,
        1,
        Raises(TypeError, r"carry their own exponent"),
    ),
    Case(
        "sentinel on Arrow decimals",
        lambda: pa.array([Decimal("1.5")], pa.decimal128(9, 1)),
        None,
        1,
        Raises(TypeError, r"null= marks sentinel integer coefficients"),
        null=15,
    ),
    Case(
        "sentinel on text",
        lambda: ["1.5"],
        None,
        1,
        Raises(TypeError, r"null= marks sentinel integer coefficients"),
        null=15,
    ),
    Case(
        "floats",
        lambda: [1.005, 2.675],
        None,
        2,
        Raises(TypeError, r"Floats cannot hold decimal prices exactly"),
    ),
    Case(
        "floats with an exponent",
        lambda: np.array([1.005]),
        -2,
        2,
        Raises(TypeError, r"Floats cannot hold decimal prices exactly"),
    ),
    Case(
        "text that is not decimal",
        lambda: ["1.5", "2", "1,5"],
        None,
        1,
        Raises(ValueError, r"row 2: '1,5' is not decimal text", row=2),
    ),
    Case(
        "a row too long",
        lambda: [1, 2, 3],
        0,
        70_000,
        Raises(RowTooLongError, r"row 0 .*MAX_ROW_LENGTH", row=0),
    ),
]


def _run_format_fixed(case: Case) -> list[str | None]:
    return vecfix.format_fixed(case.values(), case.exponent, case.scale, null=case.null).to_list()


def _run_iter_format(case: Case) -> list[str | None]:
    chunks = vecfix.iter_format(
        case.values(), case.exponent, case.scale, null=case.null, chunksize=2
    )
    return [text for chunk in chunks for text in chunk.to_list()]


def _as_pandas(values: Any) -> Any:
    if isinstance(values, pd.Series):
        return values
    if isinstance(values, pa.Array):
        return pd.Series(pd.arrays.ArrowExtensionArray(values))
    if isinstance(values, np.ma.MaskedArray):
        return pd.Series(pd.arrays.IntegerArray(values.data, np.ma.getmaskarray(values)))
    if isinstance(values, list) and any(isinstance(v, int) and v > INT64_MAX for v in values):
        return pd.Series(values, dtype=object)
    if isinstance(values, list) and not values:
        return pd.Series(values, dtype=object)
    return pd.Series(values)


def _run_dask(case: Case) -> list[str | None]:
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    import vecfix.dask as vd

    frame = pd.DataFrame({"x": _as_pandas(case.values())})
    spec = {"scale": case.scale, "exponent": case.exponent, "null": case.null}
    spec = {k: v for k, v in spec.items() if v is not None}
    with dask.config.set({"dataframe.convert-string": False}):  # keep object columns
        out = vd.format_columns(dd.from_pandas(frame, npartitions=1), {"x": spec})
        column = out.compute(scheduler="sync")["x"]
    return [None if v is pd.NA else v for v in column.tolist()]


def _run_fix(case: Case) -> list[str | None]:
    """The case's values as the prices of one incremental refresh (35=X), read back as
    each entry's 270= (None where the entry has none). The builder names its arguments
    ``prices`` / ``price.exponent`` (of ``price=vecfix.NumberFormat(...)``): its errors are
    compared with those words put back."""
    import vecfix.fix as fix

    values = case.values()
    n = len(values)
    if n == 0:
        pytest.skip("a FIX group of no entries is refused (tests/test_fix_publish.py)")
    try:
        messages = fix.incremental(
            0, 0, ["X"] * n, values, np.ones(n, dtype=np.int64),
            price=vecfix.NumberFormat(case.exponent, case.scale, case.null),
            header=fix.Header("S", "T"), sending_time="20260101-00:00:00.000",
        )  # fmt: skip
    except Exception as exc:

        def format_fixed_words(text: str) -> str:
            text = text.removeprefix("prices: ").replace("prices row", "coefficients row")
            text = text.replace("price.exponent", "exponent").replace("price.scale", "scale")
            return text.replace("price.null", "null=")

        if isinstance(exc, RowError):
            exc.lead, exc.detail = format_fixed_words(exc.lead), format_fixed_words(exc.detail)
        else:
            exc.args = (format_fixed_words(str(exc)), *exc.args[1:])
        raise
    entries: list[str | None] = []
    for field in messages.to_bytes().split(b"\x01"):
        tag, _, value = field.partition(b"=")
        if tag == b"279":
            entries.append(None)
        elif tag == b"270":
            entries[-1] = value.decode("ascii")
    return entries


class CommandLineError(Exception):
    """``vecfix format`` failed: its error on stderr, in format_fixed's words."""


def _run_cli(case: Case) -> list[str | None]:
    """The case's values as column ``x`` of a Parquet file through ``vecfix format`` (the
    real entry point, in process), read back from the output file. Its errors, on stderr,
    name options (``--exponent``); they are compared with the option words put
    back as format_fixed's arguments, whatever the exception type (a command line has exit
    statuses, not types)."""
    import contextlib
    import io
    import tempfile
    from pathlib import Path

    import pyarrow.parquet as pq

    from vecfix import cli

    values = case.values()
    if isinstance(values, list) and (not values or any(isinstance(v, int) and v > INT64_MAX
                                                       for v in values)):  # fmt: skip
        pytest.skip("a file column has a type: no empty list of no type, no ints past int64")
    column = values if isinstance(values, pa.Array) else pa.array(values)
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp, "in.parquet"), Path(tmp, "out.parquet")
        pq.write_table(pa.table({"x": column}), src)
        argv = ["format", str(src), "-o", str(dst), "--column", "x", "--scale", str(case.scale)]
        argv += [] if case.exponent is None else ["--exponent", str(case.exponent)]
        argv += [] if case.null is None else ["--null", str(case.null)]
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = cli.main([*argv, "-q"])
        if status:
            text = err.getvalue().strip().removeprefix("vecfix format: error: ")
            text = text.removeprefix("column 'x': ").removeprefix("column 'x', ")
            text = text.replace(" (counting data rows from 0)", "").replace(
                "--exponent", "exponent"
            )
            raise CommandLineError(text.replace("--null", "null=").replace("it must", "must"))
        return pq.read_table(dst).column("x").to_pylist()


#: Entry point -> runner. Rows of a dask error count from the partition's start.
RUNNERS: dict[str, Callable[[Case], list[str | None]]] = {
    "format_fixed": _run_format_fixed,
    "iter_format": _run_iter_format,
    "dask": _run_dask,
    "fix": _run_fix,
    "cli": _run_cli,
}


@pytest.mark.parametrize("runner", list(RUNNERS))
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_same_answer_everywhere(case: Case, runner: str) -> None:
    if runner == "dask" and case.id == "all null":
        pytest.skip("a pandas column of None is object-typed: covered by 'empty'")
    run = RUNNERS[runner]
    if isinstance(case.expected, Raises):
        expected_type = CommandLineError if runner == "cli" else case.expected.type
        with pytest.raises(expected_type) as info:
            run(case)
        assert re.search(case.expected.match, str(info.value)), str(info.value)
        if case.expected.row is not None and runner == "cli":  # the row is in the line
            assert re.search(rf"\brow {case.expected.row:,}\b", str(info.value))
        elif case.expected.row is not None:
            assert isinstance(info.value, RowError) and info.value.row == case.expected.row
    else:
        assert run(case) == case.expected


# --------------------------------------------------------------- chunks and row numbers

_TEXTS = st.one_of(
    st.decimals(
        allow_nan=False, allow_infinity=False, places=3, max_value=10**6, min_value=-(10**6)
    ).map(str),
    st.sampled_from(["1,5", "x", "row 1", "1e", "", " 2"]),  # not decimal text
)


@settings(max_examples=15 if NOJIT else 60)
@given(texts=st.lists(_TEXTS, min_size=1, max_size=12), chunksize=st.integers(1, 5))
def test_iter_format_reports_the_row_format_fixed_reports(texts: list[str], chunksize: int) -> None:
    """Whatever the chunking, iter_format gives the rows' text or the same RowError (same
    row, same message) as one format_fixed call over the whole input."""
    try:
        whole = vecfix.format_fixed(texts, scale=2).to_list()
    except RowError as exc:
        with pytest.raises(RowError) as info:
            list(vecfix.iter_format(texts, scale=2, chunksize=chunksize))
        assert (info.value.row, str(info.value)) == (exc.row, str(exc))
    else:
        chunks = vecfix.iter_format(texts, scale=2, chunksize=chunksize)
        assert [t for chunk in chunks for t in chunk.to_list()] == whole


# ------------------------------------------------------------- one value, every container

_INT64 = st.integers(-(2**63) + 1, 2**63 - 1)


def _containers(values: list[int | None]) -> dict[str, Any]:
    mask = [v is None for v in values]
    filled = [0 if v is None else v for v in values]
    return {
        "list": values,
        "masked": np.ma.masked_array(np.array(filled, dtype=np.int64), mask=mask),
        "arrow": pa.array(values, pa.int64()),
        "pandas Int64": pd.Series(values, dtype="Int64"),
        "polars Int64": pl.Series(values, dtype=pl.Int64),
        "DecimalColumn": vecfix.DecimalColumn(np.array(filled), None, ~np.array(mask, bool)),
    }


@pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")  # int64 max drawn as a value
@settings(max_examples=10 if NOJIT else 50)
@given(
    values=st.lists(st.one_of(st.none(), _INT64), max_size=8),
    exponent=st.integers(-20, 5),
    scale=st.integers(-3, 12),
)
def test_every_container_of_the_same_integers_prints_the_same(values, exponent, scale):
    expected = ref(values, exponent, scale)
    for name, column in _containers(values).items():
        got = vecfix.format_fixed(column, exponent, scale).to_list()
        assert got == expected, name


def _exact(v: Decimal) -> tuple[int, int]:
    """A Decimal's coefficient and exponent, from its digits (no context rounding)."""
    sign, digits, exponent = v.as_tuple()
    c = int("".join(map(str, digits)) or "0")
    return (-c if sign else c), int(exponent)


@settings(max_examples=10 if NOJIT else 50)
@given(
    values=st.lists(
        st.one_of(st.none(), st.decimals(-(10**30), 10**30, places=4)),
        max_size=8,
    ),
    scale=st.integers(0, 6),
)
def test_every_container_of_the_same_decimals_prints_the_same(values, scale):
    expected = [None if v is None else reference_fixed(*_exact(v), scale) for v in values]
    containers = {
        "Decimal list": values,
        "text list": [None if v is None else str(v) for v in values],
        "arrow decimal128": pa.array(values, pa.decimal128(38, 4)),
        "pandas ArrowDtype": pd.Series(values, dtype=pd.ArrowDtype(pa.decimal128(38, 4))),
        "polars Decimal": pl.Series(values, dtype=pl.Decimal(38, 4)),
        "arrow string": pa.array([None if v is None else str(v) for v in values], pa.string()),
    }
    for name, column in containers.items():
        assert vecfix.format_fixed(column, scale=scale).to_list() == expected, name


def test_a_new_input_type_is_one_adapter_and_one_table_line(monkeypatch):
    """The table in vecfix.columns: an adapter added in front is used everywhere."""
    from vecfix import columns

    class Cents(list):
        """Prices in cents, a user's own container (slices stay Cents)."""

        def __getitem__(self, key):
            got = super().__getitem__(key)
            return Cents(got) if isinstance(key, slice) else got

    def read_cents(values: Cents, argument: str) -> columns.Column:
        return columns.Column("decimals", np.array(values, dtype=np.int64), -2)

    monkeypatch.setattr(columns, "ADAPTERS", [(columns._is(Cents), read_cents), *columns.ADAPTERS])
    assert vecfix.format_fixed(Cents([125, -5]), scale=1).to_list() == ["1.3", "-0.1"]
    chunks = vecfix.iter_format(Cents([125, -5, 7]), scale=1, chunksize=2)
    assert [c.to_list() for c in chunks] == [["1.3", "-0.1"], ["0.1"]]
