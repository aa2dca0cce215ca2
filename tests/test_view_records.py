"""Text the kernels write straight into Arrow ``string_view`` records
(``format_fixed(..., layout="string_view")``: what the polars namespace and the file path's
polars writer take), with no byte matrix and no conversion pass.

The expected text is the golden vectors' and the independent reference's; the records are
checked as Arrow reads them (``validate(full=True)``), byte by byte against the layout
built here from the expected text, and every method of the result against the same.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import reference_fixed

import vecfix
import vecfix._plan
import vecfix._tuning
from vecfix._passes import VIEW_INLINE

pa = pytest.importorskip("pyarrow")

JIT = not numba.config.DISABLE_JIT
NULL = 2**63 - 1


def views(*args, **kwargs) -> vecfix.Formatted:
    """``format_fixed(..., layout="string_view")``."""
    return vecfix.format_fixed(*args, layout="string_view", **kwargs)


def records_of(texts: list[str | None]) -> np.ndarray:
    """Arrow's ``string_view`` records of ``texts`` (every one at most 12 bytes), built
    from the spec: the length as int32, the bytes, zeros; a null all zeros."""
    out = np.zeros((len(texts), 16), dtype=np.uint8)
    for i, t in enumerate(texts):
        if t is not None:
            raw = t.encode("ascii")
            out[i, :4] = np.frombuffer(np.int32(len(raw)).tobytes(), dtype=np.uint8)
            out[i, 4 : 4 + len(raw)] = np.frombuffer(raw, dtype=np.uint8)
    return out


def check(out: vecfix.Formatted, want: list[str | None], name: str = "px") -> None:
    """Every way out of ``out`` gives ``want``; the records are Arrow's, byte for byte."""
    assert out._records is not None  # written as records, no matrix
    np.testing.assert_array_equal(out._records.view(np.uint8).reshape(-1, 16), records_of(want))
    view = out.to_arrow(view=True)
    view.validate(full=True)
    assert view.type == pa.string_view() and view.to_pylist() == want
    assert view.null_count == sum(t is None for t in want)
    series = out.to_polars(name)
    assert series.to_list() == want and series.name == name and str(series.dtype) == "String"
    assert out.to_list() == want
    assert out.to_arrow().to_pylist() == want
    assert [out[i] for i in range(len(want))] == want
    texts = [t or "" for t in want]
    assert out.lengths.tolist() == [len(t) for t in texts]
    width = max(map(len, texts), default=0)
    assert out.width == width
    wanted = np.array([t.encode() for t in texts], dtype=f"S{max(width, 1)}")
    np.testing.assert_array_equal(
        out.matrix, wanted.view(np.uint8).reshape(-1, max(width, 1))[:, :width]
    )
    assert out.matrix.flags.c_contiguous
    assert out[1:-1:2].to_list() == want[1:-1:2]


def golden_short(golden) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The golden ``prices`` rows (int64 coefficients) whose text fits a record."""
    v = golden["prices"]
    keep = [i for i, t in enumerate(v.expected) if len(t) <= VIEW_INLINE]
    keep = [i for i in keep if -(2**63) <= int(v.coef[i]) < 2**63]
    keep = keep if JIT else keep[::37]
    coef = np.array([int(v.coef[i]) for i in keep], dtype=np.int64)
    exps = np.array([v.exp[i] for i in keep], dtype=np.int32)
    scales = np.array([v.scale[i] for i in keep], dtype=np.int32)
    return coef, exps, scales, [v.expected[i] for i in keep]


@pytest.mark.parametrize("threads", [1, 3])
def test_golden_prices_of_varying_layouts(golden, monkeypatch, threads):
    """Per-row exponents and scales (the widest row measured from the layouts), cut into
    parts on threads at any row."""
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 97)
    coef, exps, scales, want = golden_short(golden)
    assert len(want) > 600
    check(views(coef, exps, scales, threads=threads), want)


@pytest.mark.parametrize("scale", [0, 2, 4, 7])
def test_one_layout_with_nulls(monkeypatch, scale):
    """One exponent and scale (the widest row from the extremes) and null sentinels, in
    the blocks the null rows are handled by (small here)."""
    monkeypatch.setattr(vecfix._tuning, "NULL_BLOCK", 64)
    rng = np.random.default_rng(scale)
    top = min(10 ** (18 - scale), 10**18)  # a sign, the digits and the point: 12 bytes
    coef = rng.integers(-top, top, size=1000, dtype=np.int64)
    coef[rng.random(1000) < 0.2] = NULL
    coef[:3] = [NULL, 5, NULL]  # a null first, beside a short row
    want = [None if c == NULL else reference_fixed(int(c), -9, scale) for c in coef]
    assert max(len(t) for t in want if t) <= VIEW_INLINE
    check(views(coef, -9, scale, null=NULL), want)


def test_twelve_bytes_fit_and_thirteen_take_the_matrix():
    """The longest row a record holds (12 bytes) and one more: that call's result is the
    byte matrix, as format_fixed makes it, and converts the same."""
    fits = np.array([-(10**10) + 1] * 600 + [5] * 600, dtype=np.int64)  # "-9999999.999"
    want = [reference_fixed(int(c), -3, 3) for c in fits]
    assert max(map(len, want)) == 12
    check(views(fits, -3, 3), want)
    wide = fits * 10
    out = views(wide, -3, 3)
    want = [reference_fixed(int(c), -3, 3) for c in wide]
    assert out._records is None and max(map(len, want)) == 13
    assert out.to_polars().to_list() == want and out.to_list() == want


def test_what_stays_on_the_matrix():
    """Values beyond int64 and a few rows of varying layouts: format_fixed's result."""
    big = views([2**70, 1] * 400, -2, 1)
    assert big._records is None
    assert big.to_list() == [reference_fixed(c, -2, 1) for c in [2**70, 1] * 400]
    few = views([1, 2, 3], [-1, -2, -3], 1)
    assert few._records is None and few.to_list() == ["0.1", "0.0", "0.0"]


def test_errors_are_format_fixed_s():
    """The inputs are read and checked as format_fixed reads them."""
    with pytest.raises(TypeError, match="coefficients"):
        views(np.array([1.5, 2.0]), -2, 1)
    with pytest.raises(ValueError, match="broadcast"):
        views(np.arange(4), np.zeros(3, dtype=np.int32), 1)


def test_the_polars_namespace_takes_the_records():
    pl = pytest.importorskip("polars")
    import vecfix.polars  # noqa: F401

    px = [5000_250000000, None, -4_000000, 12_345678901] * 300
    got = pl.DataFrame({"bid_px": px}).with_columns(
        pl.col("bid_px").vecfix.fixed(exponent=-9, scale=4)
    )
    want = [None if c is None else reference_fixed(c, -9, 4) for c in px]
    assert got["bid_px"].to_list() == want and got["bid_px"].dtype == pl.String


@settings(max_examples=60 if JIT else 15, deadline=None)
@given(
    st.lists(st.integers(-(10**12), 10**12), min_size=512, max_size=900),
    st.integers(-12, 2),
    st.integers(0, 9),
)
def test_any_rows(coefs, exponent, scale):
    """Any int64 column of one layout: the records path where every row fits, the
    matrix's otherwise; always the reference's text."""
    want = [reference_fixed(c, exponent, scale) for c in coefs]
    out = views(np.array(coefs, dtype=np.int64), exponent, scale, threads=1)
    assert (out._records is not None) == (max(map(len, want)) <= VIEW_INLINE)
    assert out.to_polars().to_list() == want
    assert out.to_list() == want


def test_the_public_layout():
    """``format_fixed(..., layout="string_view")``: the same records; rows too long for a
    record are laid out as a matrix, with the same text out of every method."""
    px = np.array([5000_250000000, NULL, -4_000000, 12_345678901] * 200, dtype=np.int64)
    want = [None if c == NULL else reference_fixed(int(c), -9, 4) for c in px]
    check(vecfix.format_fixed(px, -9, 4, layout="string_view", null=NULL), want)
    wide = np.where(px == NULL, NULL, px * 10_000)  # 13 bytes: more than a record holds
    long = vecfix.format_fixed(wide, -9, 4, layout="string_view", null=NULL)
    assert long._records is None
    want = [None if c == NULL else reference_fixed(int(c), -9, 4) for c in wide]
    assert long.to_polars().to_list() == want and max(len(t) for t in want if t) == 13


@pytest.mark.parametrize("large", [None, False, True])
def test_string_arrays_from_the_records(large):
    """``to_arrow()`` of a records result, before any matrix is made (pyarrow's cast packs
    the records): Arrow's ``string`` (or ``large_string``), nulls kept."""
    px = np.array([125, NULL, -6, 10**11] * 150, dtype=np.int64)
    want = [None if c == NULL else reference_fixed(int(c), -2, 1) for c in px]
    out = vecfix.format_fixed(px, -2, 1, layout="string_view", null=NULL)
    arr = out.to_arrow(large=large)
    assert out._matrix is None  # no matrix made for it
    arr.validate(full=True)
    assert arr.type == (pa.large_string() if large else pa.string())
    assert arr.to_pylist() == want
    assert out.to_pandas().tolist()[:4] == [want[0], pd_na(), want[2], want[3]]


def pd_na():
    pd = pytest.importorskip("pandas")
    return pd.NA
