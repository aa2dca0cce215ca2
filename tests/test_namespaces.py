"""The polars namespace (``pl.col(c).vecfix.fixed``, ``series.vecfix.fixed``) and the
pandas accessor: one format per column (the keywords or a NumberFormat, never both), per-row
exponents and scales from a column or an expression, read in the same batch, nulls, the
contexts polars runs an expression in (select, over, group_by, lazy, streaming sinks), and
messages in the namespaces' own words.

Expected text comes from ``tests/reference.py``, never from vecfix.
"""

from __future__ import annotations

import pytest
from reference import reference_fixed

pl = pytest.importorskip("polars")
pd = pytest.importorskip("pandas")
pq = pytest.importorskip("pyarrow.parquet")

import vecfix.pandas  # noqa: E402  (registers the accessor)
import vecfix.polars  # noqa: E402, F401  (registers the namespace)
from vecfix import NumberFormat, RowError  # noqa: E402

PX = [5000_250000000, None, -4_000000, 110_015625000, 12_345678901, -45_125000000]
TICK = [2, 6, 3, None, 0, 9]
EXP = [-9, -9, -9, -9, -8, -9]


def ref(coefs, exps, scales) -> list[str | None]:
    return [
        None if c is None or e is None or s is None else reference_fixed(c, e, s)
        for c, e, s in zip(coefs, exps, scales, strict=True)
    ]


def frame() -> pl.DataFrame:
    return pl.DataFrame(
        {"sym": list("aabbbc"), "px": PX, "tick": TICK, "e": EXP},
        schema_overrides={"tick": pl.Int8, "e": pl.Int32},
    )


# ----------------------------------------------------------------------- per-row layouts


def test_a_column_of_scales_with_nulls_gives_null_rows():
    out = frame().select(pl.col("px").vecfix.fixed(-9, "tick"))
    assert out.columns == ["px"] and out["px"].dtype == pl.String
    assert out["px"].to_list() == ref(PX, [-9] * 6, TICK)  # row 3: scale null -> null


def test_exponents_and_scales_as_expressions():
    out = frame().select(
        pl.col("px").vecfix.fixed(pl.col("e"), pl.col("tick").fill_null(1) + 1).alias("t"),
        pl.col("px").vecfix.fixed("e", 4),
    )
    scales = [(1 if t is None else t) + 1 for t in TICK]
    assert out["t"].to_list() == ref(PX, EXP, scales)
    assert out["px"].to_list() == ref(PX, EXP, [4] * 6)


def test_over_and_group_by_contexts():
    df = frame()
    over = df.with_columns(pl.col("px").vecfix.fixed(-9, "tick").over("sym"))
    assert over["px"].to_list() == ref(PX, [-9] * 6, TICK)
    groups = df.group_by("sym", maintain_order=True).agg(pl.col("px").vecfix.fixed(-9, "tick"))
    want = ref(PX, [-9] * 6, TICK)
    assert groups["px"].to_list() == [want[:2], want[2:5], want[5:]]
    ints = df.group_by("sym", maintain_order=True).agg(pl.col("px").vecfix.fixed(-9, 1))
    want = ref(PX, [-9] * 6, [1] * 6)
    assert ints["px"].to_list() == [want[:2], want[2:5], want[5:]]


def test_lazy_eager_and_streaming_sinks_agree(tmp_path):
    """Many batches (a Parquet file of row groups of 7 rows): each batch's scales are its
    own rows', in every engine and in a streaming sink."""
    n = 300
    px = [None if i % 11 == 0 else (i * 7919 - 50_000) * 10**6 for i in range(n)]
    tick = [None if i % 13 == 0 else i % 10 for i in range(n)]
    df = pl.DataFrame({"px": px, "tick": tick})
    pq.write_table(df.to_arrow(), tmp_path / "in.parquet", row_group_size=7)
    expr = pl.col("px").vecfix.fixed(-9, "tick").alias("text")
    want = ref(px, [-9] * n, tick)
    assert df.select(expr)["text"].to_list() == want
    lazy = pl.scan_parquet(tmp_path / "in.parquet").select(expr, "tick")
    assert lazy.collect()["text"].to_list() == want
    assert lazy.collect(engine="streaming")["text"].to_list() == want
    lazy.sink_parquet(tmp_path / "out.parquet", row_group_size=50)
    back = pq.read_table(tmp_path / "out.parquet")
    assert back["text"].to_pylist() == want and back["tick"].to_pylist() == tick


def test_series_namespace_takes_per_row_series():
    s = pl.Series("bid", PX)
    got = s.vecfix.fixed(pl.Series(EXP), pl.Series(TICK))
    assert got.name == "bid" and got.to_list() == ref(PX, EXP, TICK)
    with pytest.raises(TypeError, match=r"a Series has no other columns: give scale"):
        s.vecfix.fixed(-9, "tick")


# ----------------------------------------------------------------------- one format


def test_a_number_format_or_the_keywords_never_both():
    fmt = NumberFormat(-9, 2, null=-4_000000)
    want = [None if c in (None, -4_000000) else reference_fixed(c, -9, 2) for c in PX]
    df = frame()
    assert df.select(pl.col("px").vecfix.fixed(fmt))["px"].to_list() == want
    assert df.select(pl.col("px").vecfix.fixed(format=fmt))["px"].to_list() == want
    assert df["px"].vecfix.fixed(fmt).to_list() == want
    assert pd.Series(PX, dtype="Int64").vecfix.fixed(format=fmt).tolist() == [
        pd.NA if v is None else v for v in want
    ]
    per_row = NumberFormat(-9, "tick")
    assert df.select(pl.col("px").vecfix.fixed(per_row))["px"].to_list() == ref(PX, [-9] * 6, TICK)
    for call in (
        lambda: pl.col("px").vecfix.fixed(fmt, 3),
        lambda: pl.col("px").vecfix.fixed(format=fmt, null=5),
        lambda: df["px"].vecfix.fixed(fmt, scale=3),
        lambda: pd.Series(PX).vecfix.fixed(format=fmt, exponent=-9),
    ):
        with pytest.raises(TypeError, match=r"give a NumberFormat or exponent=/scale=/null=, not"):
            call()
    with pytest.raises(TypeError, match=r"format must be a vecfix\.NumberFormat, got dict"):
        pl.col("px").vecfix.fixed(format={"scale": 2})


# ----------------------------------------------------------------------- messages


def test_messages_name_the_namespaces_own_arguments():
    """The namespaces' arguments are exponent= and scale=, as format_fixed's, and the
    messages say so (they said "scales is required")."""
    with pytest.raises(TypeError, match=r"^scale is required"):
        pd.Series([1, 2]).vecfix.fixed(-9)
    with pytest.raises(TypeError, match=r"^column 'px': scale is required"):
        pd.Series([1, 2], name="px").vecfix.fixed(-9)
    with pytest.raises(TypeError, match=r"^column 'px': scale is required"):
        pl.DataFrame({"px": [1]}).select(pl.col("px").vecfix.fixed(-9))
    with pytest.raises(TypeError, match=r"exponent is required for integer"):
        pl.Series("px", [1]).vecfix.fixed(scale=2)
    with pytest.raises(
        TypeError, match=r"leave exponent=None\nPass the number of decimals as scale"
    ):
        pl.Series("px", ["1.5"]).vecfix.fixed(-2, 2)
    with pytest.raises(TypeError, match=r"scale must be integers"):
        pl.DataFrame({"px": [1], "t": [1.5]}).select(pl.col("px").vecfix.fixed(0, "t"))
    with pytest.raises(RowError, match=r"^column 'px': scale must fit in int32 .*; row 1 is"):
        pl.Series("px", [1, 2]).vecfix.fixed(0, pl.Series([1, 2**40]))
    with pytest.raises(RowError, match=r"^column 'px', row 1: 'x' is not decimal text") as info:
        pl.Series("px", ["1", "x"]).vecfix.fixed(scale=1)
    assert (info.value.argument, info.value.row) == ("coefficients", 1)
    with pytest.raises(TypeError, match=r"exponent must be an int, a column name or a polars"):
        pl.col("px").vecfix.fixed([1, 2], 2)


def test_pandas_accessor_per_row_scales_with_missing_values():
    s = pd.Series(PX, dtype="Int64", name="px", index=[9, 8, 7, 6, 5, 4])
    ticks = pd.Series(TICK, dtype="Int64", index=s.index)
    out = s.vecfix.fixed(-9, ticks)
    assert out.name == "px" and out.index.tolist() == [9, 8, 7, 6, 5, 4]
    assert [None if v is pd.NA else v for v in out.tolist()] == ref(PX, [-9] * 6, TICK)
    with pytest.raises(TypeError, match=r"a Series has no other columns: give scale"):
        s.vecfix.fixed(-9, "tick")
