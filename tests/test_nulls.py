"""Null rows: from every input, in every output, never printed as a number.

Expected text comes from Python's ``decimal`` (``quantize`` with ROUND_HALF_UP, sign of
zero dropped) computed here, independently of vecfix's own fallback.
"""

from __future__ import annotations

import decimal
import tracemalloc
from decimal import Decimal

import numba
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import vecfix
import vecfix._passes
import vecfix._plan
import vecfix._tuning
from vecfix import MAX_ROW_LENGTH, Formatted, format_fixed

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

INT64_MAX = 2**63 - 1
CTX = decimal.Context(prec=200, rounding=decimal.ROUND_HALF_UP)


def ref(c: int, e: int, s: int) -> str:
    """StringFixed(s) of ``c * 10**e`` with Python's decimal."""
    q = Decimal(c).scaleb(e, CTX).quantize(Decimal(1).scaleb(-s), context=CTX)
    text = format(q, "f")
    return text[1:] if q.is_zero() and text.startswith("-") else text


COEFS = [1234567, -5, 999995, 0, -1250000, 42, 7]  # with exponent -4 and scale 2
EXP, SCALE = -4, 2
PATTERNS = {
    "none": [],
    "start": [0],
    "middle": [3],
    "end": [6],
    "start-middle-end": [0, 3, 6],
    "alternate": [0, 2, 4, 6],
    "all": list(range(7)),
}


def expected(nulls: list[int]) -> list[str | None]:
    return [None if i in nulls else ref(c, EXP, SCALE) for i, c in enumerate(COEFS)]


def with_nulls(values: list, nulls: list[int], null: object = None) -> list:
    return [null if i in nulls else v for i, v in enumerate(values)]


def decimals() -> list[Decimal]:
    return [Decimal(c).scaleb(EXP) for c in COEFS]


def texts() -> list[str]:
    return [format(d, "f") for d in decimals()]


INPUTS = {
    "list of ints": lambda nulls: (with_nulls(COEFS, nulls), EXP),
    "list of Decimal": lambda nulls: (with_nulls(decimals(), nulls), None),
    "list of str": lambda nulls: (with_nulls(texts(), nulls), None),
    "list of bytes": lambda nulls: (with_nulls([t.encode() for t in texts()], nulls), None),
    "arrow int64": lambda nulls: (pa.array(with_nulls(COEFS, nulls), pa.int64()), EXP),
    "arrow int32 sliced": lambda nulls: (
        pa.array([9, *with_nulls(COEFS, nulls)], pa.int32()).slice(1),
        EXP,
    ),
    "arrow decimal128": lambda nulls: (
        pa.array(with_nulls(decimals(), nulls), pa.decimal128(20, 4)),
        None,
    ),
    "arrow decimal64 sliced": lambda nulls: (
        pa.array([Decimal(1), *with_nulls(decimals(), nulls)], pa.decimal64(18, 4)).slice(1),
        None,
    ),
    "arrow decimal256": lambda nulls: (
        pa.array(with_nulls(decimals(), nulls), pa.decimal256(40, 4)),
        None,
    ),
    "arrow string": lambda nulls: (pa.array(with_nulls(texts(), nulls)), None),
    "arrow chunked": lambda nulls: (
        pa.chunked_array(
            [
                pa.array(with_nulls(decimals(), nulls)[:3], pa.decimal128(20, 4)),
                pa.array([], pa.decimal128(20, 4)),
                pa.array(with_nulls(decimals(), nulls)[3:], pa.decimal128(20, 4)),
            ]
        ),
        None,
    ),
    "pandas Int64": lambda nulls: (pd.Series(with_nulls(COEFS, nulls), dtype="Int64"), EXP),
    "pandas ArrowDtype decimal": lambda nulls: (
        pd.Series(with_nulls(decimals(), nulls), dtype=pd.ArrowDtype(pa.decimal128(20, 4))),
        None,
    ),
    "pandas object Decimal NaN": lambda nulls: (
        pd.Series(with_nulls(decimals(), nulls, float("nan")), dtype=object),
        None,
    ),
    "pandas object Decimal NA": lambda nulls: (
        pd.Series(with_nulls(decimals(), nulls, pd.NA), dtype=object),
        None,
    ),
    "pandas string": lambda nulls: (
        pd.Series(with_nulls(texts(), nulls), dtype="string[pyarrow]"),
        None,
    ),
    "polars Int64": lambda nulls: (pl.Series(with_nulls(COEFS, nulls), dtype=pl.Int64), EXP),
    "polars Decimal": lambda nulls: (
        pl.Series(with_nulls(decimals(), nulls), dtype=pl.Decimal(20, 4)),
        None,
    ),
    "polars String": lambda nulls: (pl.Series(with_nulls(texts(), nulls), dtype=pl.String), None),
    "numpy sentinel": lambda nulls: (
        np.array(with_nulls(COEFS, nulls, INT64_MAX), dtype=np.int64),
        EXP,
    ),
}


def check_nulls(out: Formatted, nulls: list[int]) -> None:
    """Every view of ``out`` shows the rows in ``nulls`` as null and the rest as text."""
    want = expected(nulls)
    assert out.to_list() == want
    assert [out[i] for i in range(len(out))] == want
    is_null = np.array([w is None for w in want])
    if nulls:
        assert out.valid is not None and out.valid.tolist() == (~is_null).tolist()
    else:
        assert out.valid is None
    assert out.null_count == len(nulls)
    assert (out.lengths[is_null] == 0).all() and not out.matrix[is_null].any()
    assert out.to_numpy().tolist() == [b"" if w is None else w.encode() for w in want]
    if len(nulls) < len(want):  # null rows do not widen the matrix
        assert out.width == max(len(w) for w in want if w is not None)
    else:  # nothing to print: the width holds at most a zero of the scale
        assert out.width <= SCALE + 2
    arr = out.to_arrow()
    arr.validate(full=True)
    assert arr.to_pylist() == want and arr.null_count == len(nulls)
    assert out.to_pandas().isna().tolist() == is_null.tolist()
    assert out.to_polars().is_null().to_list() == is_null.tolist()
    assert out.to_bytes(b",", null=b"NA") == b",".join(
        b"NA" if w is None else w.encode() for w in want
    )
    assert out.rjust(10, null=b"-").view("S10").ravel().tolist() == [
        (w or "-").rjust(10).encode() for w in want
    ]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("kind", INPUTS)
def test_nulls_from_every_input(kind, pattern):
    nulls = PATTERNS[pattern]
    values, exp = INPUTS[kind](nulls)
    null = INT64_MAX if kind == "numpy sentinel" else None
    check_nulls(format_fixed(values, exp, SCALE, null=null), nulls)


def test_all_null_columns():
    # Nothing to print, so an all-null column needs no exponent even without a type.
    assert format_fixed([None, None], scale=2).to_list() == [None, None]
    out = format_fixed(pa.array([None, None], pa.decimal128(10, 2)), scale=4)
    assert out.to_list() == [None, None] and not out.matrix.any()
    assert out.lengths.tolist() == [0, 0]
    assert out.to_numpy().tolist() == [b"", b""]
    assert out.to_arrow().to_pylist() == [None, None]
    out = format_fixed(pa.array([None, None]), 0, 2)  # Arrow's null type
    assert out.to_list() == [None, None]


ALL_NULL = {
    "list, few rows": lambda: ([None] * 5, -2, 2, None),
    "sentinel, few rows": lambda: (np.full(5, -1, dtype=np.int64), -2, 2, -1),
    "sentinel, a column": lambda: (np.full(3000, INT64_MAX, dtype=np.int64), -9, 4, INT64_MAX),
    "sentinel, per-row scales": lambda: (
        np.full(3000, -1, dtype=np.int64),
        np.full(3000, -9, dtype=np.int32),
        np.arange(3000, dtype=np.int32) % 7,
        -1,
    ),
    "pandas, all NA": lambda: (pd.Series([pd.NA] * 600, dtype="Int64"), 0, 3, None),
}


@pytest.mark.parametrize("case", ALL_NULL)
def test_an_all_null_column_has_no_width_of_its_own(case):
    """No row has text, so no row is measured: the placeholder a null row gets inside the
    kernels (zero) neither widens the matrix nor is named by a width check, as a value
    the user never gave (it was: width 4 for [None] * 5 at scale 2, and ``width=1``
    refused as 'row 0 (coefficient=0 ...) needs 4 bytes')."""
    values, exps, scales, null = ALL_NULL[case]()
    n = len(values)
    plain = format_fixed(values, exps, scales, null=null)
    assert plain.matrix.shape == (n, 0)
    assert plain.to_list() == [None] * n and plain.lengths.tolist() == [0] * n
    assert not plain.valid.any()
    for width in (0, 1, 3):
        got = format_fixed(values, exps, scales, null=null, width=width)
        assert got.matrix.shape == (n, width) and not got.matrix.any()
        assert got.to_list() == [None] * n
    out = np.full((n, 2), 55, dtype=np.uint8)  # stale bytes: zeroed, as null rows are
    got = format_fixed(values, exps, scales, null=null, out=out)
    assert got.matrix is out and not out.any() and got.to_list() == [None] * n
    assert got.to_arrow().null_count == n and got.to_pandas().isna().all()
    with pytest.raises(ValueError, match="width must be between 0"):
        format_fixed(values, exps, scales, null=null, width=-1)


@pytest.mark.parametrize("layout", ["matrix", "arrow", "string_view"])
@pytest.mark.parametrize("n", [5, 3000])
def test_an_all_null_column_in_every_layout(layout, n):
    """Also at a scale no row could print (the placeholder's text would be too long:
    it was named as 'row 0 (coefficient=0 ...)', or an IndexError with the arrow layout)."""
    for scale in (2, MAX_ROW_LENGTH):
        got = format_fixed(np.full(n, -7, dtype=np.int64), -2, scale, null=-7, layout=layout)
        assert got.to_list() == [None] * n
        assert got.to_arrow().null_count == n and got.to_polars().null_count() == n


@pytest.mark.parametrize("n", [20, 3000])  # a few rows (one kernel call), the passes
def test_errors_name_a_row_the_user_gave_never_a_null_one(n):
    """The kernels measure a null row as a placeholder (zero at its layout); the width and
    length checks named it (row 0, the sentinel as its coefficient, a length it never
    has), before the first valid row that fails them."""
    coef = np.full(n, -1, dtype=np.int64)
    coef[n - 3 :] = [123456789, 5, 7]
    got = format_fixed(coef, -9, 4, null=-1)
    want = [None] * (n - 3) + [ref(c, -9, 4) for c in (123456789, 5, 7)]
    assert got.to_list() == want
    assert got.matrix.shape == (n, max(len(t) for t in want[-3:]))
    row = n - 3
    with pytest.raises(ValueError, match=rf"^row {row} \(coefficient=123456789, .* needs 6 bytes"):
        format_fixed(coef, -9, 4, null=-1, width=3)
    for layout in ("matrix", "arrow"):
        with pytest.raises(
            ValueError, match=rf"^row {row} \(coefficient=123456789, .* would print"
        ):
            format_fixed(coef, -9, MAX_ROW_LENGTH, null=-1, layout=layout)
    scales = np.full(n, MAX_ROW_LENGTH, dtype=np.int32)  # per-row scales: nulls at scale 0
    with pytest.raises(ValueError, match=rf"^row {row} \(coefficient=123456789, .* would print"):
        format_fixed(coef, -9, scales, null=-1)


def test_sentinels_compare_exactly_without_float_promotion():
    u = np.array([2**63 - 2, 2**63 - 1, 2**63, 2**64 - 1], dtype=np.uint64)
    assert format_fixed(u, 0, 0, null=INT64_MAX).to_list() == [
        str(2**63 - 2),
        None,
        str(2**63),
        str(2**64 - 1),
    ]
    i = np.array([INT64_MAX - 1, INT64_MAX, -INT64_MAX - 1], dtype=np.int64)
    assert format_fixed(i, 0, 0, null=INT64_MAX).to_list() == [
        str(INT64_MAX - 1),
        None,
        str(-(2**63)),
    ]
    assert format_fixed(i, 0, 0, null=[INT64_MAX, -(2**63)]).to_list() == [
        str(INT64_MAX - 1),
        None,
        None,
    ]
    assert format_fixed(np.array([1, 2], np.uint8), 0, 0, null=-1).valid is None


def test_sentinels_on_other_inputs():
    out = format_fixed([5, 2**70, 7], 0, 0, null=2**70)
    assert out.to_list() == ["5", None, "7"] and out.width == 1  # never reached the fallback
    both = pa.array([INT64_MAX, None, 3])
    assert format_fixed(both, -1, 1, null=INT64_MAX).to_list() == [None, None, "0.3"]


@pytest.mark.parametrize(
    "values",
    [
        pa.array([Decimal("1.5"), Decimal("9.9")], pa.decimal64(5, 1)),
        ["1.5", "2"],
        [Decimal("1.5"), Decimal("2.5")],
    ],
    ids=["arrow-decimal", "text", "Decimal"],
)
def test_sentinels_are_refused_for_values_with_their_own_exponent(values):
    # Issue 15: format_fixed([Decimal("1.5"), Decimal("2.5")], scale=1, null=15) gave
    # [None, '2.5']: the sentinel was compared with the decimal's coefficient. One rule
    # (vecfix.dask's) now: null= applies to integer coefficients only.
    with pytest.raises(TypeError, match=r"null= marks sentinel integer coefficients.*carry"):
        format_fixed(values, scale=1, null=15)


def test_sentinel_argument_is_checked():
    for bad in (1.5, True, "x", [1, 2.0]):
        with pytest.raises(TypeError, match="null must be an int"):
            format_fixed([1], 0, 0, null=bad)


def test_scalar_coefficient_sentinel_broadcasts():
    out = format_fixed(5, [-1, -2], 1, null=5)
    assert out.to_list() == [None, None] and out.valid.shape == (2,)


def test_null_rows_do_not_need_room_in_the_width():
    out = format_fixed([5, None], 0, [1, 40], width=3)
    assert out.to_list() == ["5.0", None] and out.width == 3
    scales = np.array([1, 40], dtype=np.int32)
    out = format_fixed(np.array([5, INT64_MAX]), 0, scales, null=INT64_MAX)
    assert out.width == 3 and out.to_list() == ["5.0", None]
    assert scales.tolist() == [1, 40]  # the caller's array is left alone
    out = format_fixed(pa.array([None, None]), 0, [3, 1_000_000])  # would be too long
    assert out.to_list() == [None, None]


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("where", ["spread", "first part", "all"])
def test_sentinels_do_not_widen_a_large_column(threads, where, monkeypatch):
    """Past the size where the widest row of one layout comes from the column's extremes,
    a null row's sentinel (the longest int64) neither widens the matrix nor prints: the
    width is the longest valid row's (0 where all are null), on one thread and on parts of
    which some hold no null."""
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 7)
    rng = np.random.default_rng(len(where))
    n = 3000
    values = rng.integers(-(10**9), 10**9, n)
    null_rows = {"spread": rng.integers(0, n, 200), "first part": np.arange(300)}.get(
        where, np.arange(n)
    )
    values[null_rows] = INT64_MAX
    out = format_fixed(values, EXP, SCALE, null=INT64_MAX, threads=threads)
    want = [None if v == INT64_MAX else ref(v, EXP, SCALE) for v in values.tolist()]
    assert out.to_list() == want
    assert out.width == max((len(w) for w in want if w is not None), default=0)


@pytest.mark.parametrize("share", [0.0, 0.3, 1.0])
def test_extremes_count_null_rows_as_zero(share):
    """The widest-row pass's extremes with a validity mask equal those of a copy with the
    null rows zeroed."""
    rng = np.random.default_rng(int(share * 10))
    values = rng.integers(10**6, 10**12, 2000)  # all positive: a null's 0 is the minimum
    valid = rng.random(2000) >= share
    zeroed = np.where(valid, values, 0)
    assert vecfix._passes._extremes(100, 1900, values, valid) == (
        int(zeroed[100:1900].min()),
        int(zeroed[100:1900].max()),
    )


def test_null_rows_are_zeroed_in_a_callers_matrix():
    buf = np.full((3, 6), 0xFF, dtype=np.uint8)
    out = format_fixed([12, None, -3], -1, 2, out=buf)
    assert out.matrix is buf and out.to_list() == ["1.20", None, "-0.30"]
    assert not buf[1].any()


def test_slicing_and_indexing_keep_validity():
    out = format_fixed([1, None, 3, None, 5], 0, 0)
    assert out[1:4].to_list() == [None, "3", None]
    assert out[::2].valid is None or out[::2].valid.all()
    assert out[np.array([3, 0])].to_list() == [None, "1"]
    assert out[np.array([True, True, False, False, False])].to_list() == ["1", None]
    assert out[-2] is None and out[-1] == "5"
    assert repr(out) == "Formatted(5 rows, width 1: ['1', None, ...])"


def test_formatted_validity_argument_is_checked():
    m, n = np.zeros((2, 1), np.uint8), np.zeros(2, np.int32)
    assert Formatted(m, n).valid is None
    with pytest.raises(ValueError, match="valid"):
        Formatted(m, n, np.ones(3, bool))
    with pytest.raises(ValueError, match="valid"):
        Formatted(m, n, np.ones(2, np.int8))


def test_null_rows_skip_the_fallback_and_keep_their_garbage_out():
    # Arrow leaves a null slot's storage undefined: here it holds a value beyond int64
    # and one far too long to print. Neither may reach the output or raise.
    storage = (2**100).to_bytes(16, "little") + (5).to_bytes(16, "little")
    bitmap = pa.py_buffer(bytes([0b10]))
    arr = pa.Array.from_buffers(pa.decimal128(38, 2), 2, [bitmap, pa.py_buffer(storage)])
    out = format_fixed(arr, scale=2)
    assert out.to_list() == [None, "0.05"]
    assert out.lengths.tolist() == [0, 4] and out.width == 4


@st.composite
def null_columns(draw):
    """Rows with some nulls, with one or per-row exponents and scales."""
    n = draw(st.integers(1, 40))
    coefs = draw(st.lists(st.integers(-(2**63), 2**63 - 2), min_size=n, max_size=n))
    nulls = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    per_row = st.lists(st.integers(-12, 12), min_size=n, max_size=n)
    exps = draw(st.integers(-12, 12) | per_row)
    scales = draw(st.integers(0, 12) | per_row)
    return coefs, nulls, exps, scales


@given(null_columns(), st.integers(1, 9), st.sampled_from([1, 2, 3]))
@example(([1, 10**15, -7], [False, True, False], -9, [4, 12, 2]), 1, 2)
@example(([INT64_MAX] * 3 + [55], [True] * 3 + [False], [0, 0, 0, -1], 0), 2, 3)
def test_null_rows_block_by_block(column, block, threads):
    """Null rows are zeroed a block at a time; blocks of 1..9 rows over 1..3 threads give
    the text of every valid row, blank null rows and the width of the valid rows."""
    coefs, nulls, exps, scales = column
    values = [INT64_MAX if null else c for c, null in zip(coefs, nulls, strict=True)]
    n = len(values)
    e_row = exps if isinstance(exps, list) else [exps] * n
    s_row = scales if isinstance(scales, list) else [scales] * n
    rows = zip(values, nulls, e_row, s_row, strict=True)
    want = [None if null else ref(c, e, s) for c, null, e, s in rows]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(vecfix._tuning, "NULL_BLOCK", block)
        mp.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 1)
        mp.setattr(vecfix._tuning, "MEASURE_BELOW", 0)  # one layout: the extremes, by block
        out = format_fixed(np.array(values, dtype=np.int64), exps, scales, null=INT64_MAX,
                           threads=threads)  # fmt: skip
    assert out.to_list() == want
    valid = None if out.valid is None else out.valid.tolist()
    assert valid == ([not null for null in nulls] if any(nulls) else None)
    assert not out.matrix[np.array(nulls)].any() and not out.lengths[np.array(nulls)].any()
    texts = [t for t in want if t is not None]
    if texts:
        assert out.width == max(map(len, texts))


def test_a_null_sentinel_beyond_int64_is_not_formatted():
    out = format_fixed(np.array([12, 2**90, -3], dtype=object), -1, 2, null=2**90)
    assert out.to_list() == ["1.20", None, "-0.30"] and out.width == 5


@pytest.mark.skipif(
    numba.config.DISABLE_JIT, reason="a million rows through the plain-Python kernels"
)
def test_null_rows_cost_no_copy_of_the_column():
    """The peak extra memory of a call with null sentinels stays within 10% of what it
    returns (matrix, lengths, validity): the null rows are zeroed a block at a time."""
    rng = np.random.default_rng(7)
    n = 1_000_000
    px = rng.integers(10**13, 10**14, n, dtype=np.int64)
    px[rng.random(n) < 0.01] = INT64_MAX
    scales = rng.integers(0, 9, n).astype(np.int32)
    for args in ((px, -9, 4), (px, -9, scales)):
        format_fixed(*args, null=INT64_MAX)  # compiled before tracing
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            out = format_fixed(*args, null=INT64_MAX)
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
        returned = out.matrix.nbytes + out.lengths.nbytes + out.valid.nbytes
        assert peak <= 1.1 * returned, (peak, returned)


def test_a_row_too_long_is_named_by_its_row_in_a_later_block(monkeypatch):
    monkeypatch.setattr(vecfix._tuning, "NULL_BLOCK", 2)
    exps = [0, 0, 0, 0, 0, 10**6, 0]
    with pytest.raises(ValueError, match=r"row 5 \(coefficient=6, exponent=1000000"):
        format_fixed(np.arange(1, 8), exps, 0, null=3)
