"""``format_fixed(..., layout="arrow")``: the kernels write Arrow's ``string`` layout.

Every expectation is the golden vectors' text (Go's StringFixed) or the decimal reference
(tests/reference.py), never vecfix's own matrix output.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import reference_fixed

import vecfix
import vecfix._tuning

#: int64 max and min rows (golden vectors, dtype extremes) are formatted here on purpose; the
#: SentinelWarning they raise is tested in tests/test_one_vocabulary.py
pytestmark = pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")

pa = pytest.importorskip("pyarrow")

JIT = not numba.config.DISABLE_JIT
INT64 = st.integers(-(2**63), 2**63 - 1)


def reference(coef, exps, scales, valid=None) -> list[str | None]:
    coef, exps, scales = np.broadcast_arrays(np.asarray(coef), exps, scales)
    rows = zip(coef.tolist(), exps.tolist(), scales.tolist(), strict=True)
    text = [reference_fixed(c, e, s) for c, e, s in rows]
    if valid is not None:
        text = [t if v else None for t, v in zip(text, valid, strict=True)]
    return text


def check(out: vecfix.Formatted, want: list[str | None]) -> None:
    """Every view of an Arrow-layout result says ``want``."""
    arr = out.to_arrow()
    arr.validate(full=True)
    assert arr.type == pa.string()
    assert arr.to_pylist() == want
    assert out.to_list() == want
    assert len(out) == len(want) and out.null_count == want.count(None)
    lengths = [0 if t is None else len(t) for t in want]
    assert out.lengths.tolist() == lengths and out.lengths.dtype == np.int32
    assert out.width == max(lengths, default=0)
    assert out.to_numpy().tolist() == [(t or "").encode() for t in want]


@pytest.mark.parametrize("name", ["grid", "big", "prices"])
def test_golden_vectors(golden, name):
    """Every golden row (a sample without the JIT), as int64 where they fit."""
    vectors = golden[name]
    step = 1 if JIT else 53
    coef = vectors.coef[::step]
    if vectors.fits_int64():
        coef = np.array(coef, dtype=np.int64)
    out = vecfix.format_fixed(
        coef, vectors.exp_array()[::step], vectors.scale_array()[::step], layout="arrow"
    )
    check(out, vectors.expected[::step])


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("nulls", [False, True])
def test_threads_and_null_blocks(monkeypatch, threads, nulls):
    """Parts of a thread and blocks with nulls write from where their rows would start
    in a matrix; the text is then moved together, whatever the cut."""
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 7)
    monkeypatch.setattr(vecfix._tuning, "NULL_BLOCK", 5)
    rng = np.random.default_rng(7)
    n = 61 if JIT else 23
    coef = rng.integers(-(10**12), 10**12, size=n) // rng.integers(1, 10**9, size=n)
    exps = rng.integers(-12, 3, size=n).astype(np.int32)
    scales = rng.integers(0, 6, size=n).astype(np.int32)
    valid = rng.random(n) > 0.3 if nulls else None
    data = np.ma.masked_array(coef, mask=~valid) if nulls else coef
    out = vecfix.format_fixed(data, exps, scales, threads=threads, layout="arrow")
    check(out, reference(coef, exps, scales, valid))


def test_one_layout_many_rows():
    """The fast path's column: one exponent and scale, a length for every digit count."""
    coef = np.array([(-1) ** i * 10**i for i in range(19)] + [2**63 - 1, -(2**63)])
    coef = np.repeat(coef, 3) + np.tile([0, 1, -1], coef.size)[: coef.size * 3]
    out = vecfix.format_fixed(coef, -9, 4, layout="arrow")
    check(out, reference(coef, -9, 4))


def test_general_path_rows_among_fast_ones():
    """Rows the block passes cannot take (scale past 15, far exponents, huge M) are
    written by the general path at their offset, exactly their length long."""
    coef = np.array([5, -(2**63), 12345, 2**62, -7, 10**18, 3, -1], dtype=np.int64)
    exps = np.array([0, 0, -3, 2, -1, -25, 20, 0], dtype=np.int32)
    scales = np.array([17, 2, 20, 0, 1, 3, 0, 16], dtype=np.int32)
    out = vecfix.format_fixed(coef, exps, scales, layout="arrow")
    check(out, reference(coef, exps, scales))


def test_values_beyond_int64_take_the_matrix_path():
    coef = [2**70, -(2**65) - 1, 5]
    out = vecfix.format_fixed(coef, -3, 2, layout="arrow")
    check(out, reference(np.array(coef, dtype=object), -3, 2))


def test_past_the_int32_offsets_the_matrix_path_packs(monkeypatch):
    """Text that could pass int32 offsets (simulated with a small limit) is laid out as a
    matrix and packed by to_arrow (large_string when it does pass the limit)."""
    monkeypatch.setattr(vecfix._passes, "_PACK_LIMIT", 20)
    coef = np.arange(-5, 5, dtype=np.int64) * 123_456
    out = vecfix.format_fixed(coef, -4, 3, layout="arrow")
    assert out._offsets is None  # a matrix result
    check(out, reference(coef, -4, 3))


def test_to_arrow_shares_the_kernels_buffers():
    coef = np.array([15, -25, 35], dtype=np.int64)
    out = vecfix.format_fixed(coef, -1, 0, layout="arrow")
    arr = out.to_arrow()
    assert arr.buffers()[1].address == out._offsets.ctypes.data
    assert arr.buffers()[2].address == out._data.ctypes.data
    assert arr.to_pylist() == ["2", "-3", "4"]


@pytest.mark.parametrize("layout", ["arrow", "string_view"])
def test_a_row_written_into_the_matrix_shows_in_every_output(layout):
    """Once made, the matrix of an Arrow-layout result is its text (Formatted.matrix): a
    row written into it is what to_list, indexing, to_arrow, to_pandas and to_polars say."""
    coef = np.arange(-1000, 1000, dtype=np.int64) * 7
    out = vecfix.format_fixed(coef, -2, 1, layout=layout)
    assert out._offsets is not None or out._records is not None  # the Arrow layout
    want = reference(coef, -2, 1)
    row = 1500
    assert len(want[row]) >= 3
    out.matrix[row, : len(want[row])] = ord("9")
    want[row] = "9" * len(want[row])
    assert out.to_list() == want and out[row] == want[row]
    assert out.to_arrow().to_pylist() == want == out.to_arrow(view=True).to_pylist()
    pytest.importorskip("pandas")
    assert out.to_pandas().tolist() == want
    pytest.importorskip("polars")
    assert out.to_polars().to_list() == want


def test_the_other_outputs():
    coef = np.array([125, -5, 0, 999], dtype=np.int64)
    want = reference(coef, -2, 1)
    out = vecfix.format_fixed(coef, -2, 1, layout="arrow")
    assert out.to_bytes() == "\n".join(want).encode()
    assert out[1] == want[1] and out[1:3].to_list() == want[1:3]
    assert [bytes(row) for row in out.rjust(6)] == [t.rjust(6).encode() for t in want]
    pd = pytest.importorskip("pandas")
    assert out.to_pandas().tolist() == want
    pl = pytest.importorskip("polars")
    assert out.to_polars().to_list() == want
    assert isinstance(pd, object) and isinstance(pl, object)


def test_large_and_view_from_the_arrow_layout():
    coef = np.array([1, -2, 30], dtype=np.int64)
    want = reference(coef, 0, 2)
    out = vecfix.format_fixed(coef, 0, 2, layout="arrow")
    assert out.to_arrow(large=True).type == pa.large_string()
    assert out.to_arrow(large=True).to_pylist() == want
    assert out.to_arrow(view=True).to_pylist() == want


def test_empty():
    out = vecfix.format_fixed(np.array([], dtype=np.int64), -9, 4, layout="arrow")
    check(out, [])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"layout": "rows"}, 'layout must be "matrix", "arrow" or "string_view"'),
        ({"layout": "string_view", "width": 8}, "leave width and out out"),
        ({"layout": "arrow", "width": 8}, "leave width and out out"),
        ({"layout": "arrow", "out": np.zeros((1, 8), np.uint8)}, "leave width and out out"),
    ],
)
def test_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        vecfix.format_fixed(np.array([1]), 0, 0, **kwargs)


def test_errors_name_the_row_as_the_matrix_path_does():
    coef = np.array([1, 2, 3], dtype=np.int64)
    exps = np.array([0, 70_000, 0], dtype=np.int32)
    with pytest.raises(vecfix.RowTooLongError) as arrow:
        vecfix.format_fixed(coef, exps, 0, layout="arrow")
    with pytest.raises(vecfix.RowTooLongError) as matrix:
        vecfix.format_fixed(coef, exps, 0)
    assert arrow.value.row == matrix.value.row == 1


@given(
    st.lists(st.tuples(INT64, st.integers(-25, 12), st.integers(-3, 18)), max_size=40),
    st.integers(1, 3),
)
def test_any_rows(rows, threads):
    coef = np.array([r[0] for r in rows], dtype=np.int64)
    exps = np.array([r[1] for r in rows], dtype=np.int32)
    scales = np.array([r[2] for r in rows], dtype=np.int32)
    out = vecfix.format_fixed(coef, exps, scales, threads=threads, layout="arrow")
    check(out, reference(coef, exps, scales))


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("nulls", [False, True])
def test_wide_rows_take_the_texts_size(monkeypatch, threads, nulls):
    """Past WIDE_MATRIX_BYTES (shrunk here) with rows wider than the block rows, the rows
    are measured first and the buffer is the text's size, not rows x widest: one row at
    exponent 3,000 among short ones."""
    monkeypatch.setattr(vecfix._tuning, "WIDE_MATRIX_BYTES", 1_000)
    monkeypatch.setattr(vecfix._tuning, "WIDE_MATRIX_BYTES", 1_000)  # .matrix reads it
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 7)
    monkeypatch.setattr(vecfix._tuning, "NULL_BLOCK", 11)
    n = 80
    rng = np.random.default_rng(threads)
    coef = rng.integers(-(10**6), 10**6, size=n)
    exps = np.full(n, -2, dtype=np.int32)
    exps[n // 3] = 3_000
    valid = rng.random(n) > 0.2 if nulls else None
    valid = None if valid is None else valid | (np.arange(n) == n // 3)
    data = np.ma.masked_array(coef, mask=~valid) if nulls else coef
    out = vecfix.format_fixed(data, exps, 2, threads=threads, layout="arrow")
    want = reference(coef, exps, 2, valid)
    assert out._data.size == sum(len(t) for t in want if t is not None) + sum(
        len(reference_fixed(0, int(e), 2)) for e, t in zip(exps, want, strict=True) if t is None
    )  # the text, with a null row's placeholder zero: never rows x widest
    assert out.to_arrow().to_pylist() == want and out.to_list() == want
    assert out[n // 3] == want[n // 3]
    pl = pytest.importorskip("polars")
    assert out.to_polars().to_list() == want and isinstance(pl, object)
    said = r"^Formatted.matrix: row 26 is 3,00\d bytes long.*\n.*to_arrow\(\)"
    with pytest.raises(ValueError, match=said):
        out.matrix  # noqa: B018  (would be rows x widest: refused, with the way out)


def test_wide_rows_matrix_layout_still_refused(monkeypatch):
    monkeypatch.setattr(vecfix._tuning, "WIDE_MATRIX_BYTES", 1_000)
    coef = np.arange(80, dtype=np.int64)
    exps = np.full(80, -2, dtype=np.int32)
    exps[5] = 3_000
    with pytest.raises(vecfix.RowError, match="byte matrix would take"):
        vecfix.format_fixed(coef, exps, 2)


# --- over threads: each part written where it ends up ----------------------------------


@pytest.fixture
def split_only(monkeypatch):
    """Small inputs over threads."""
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 7)


def one_layout_groups(golden, name: str, rows: int | None = None):
    """``(e, s, coef, expected)`` for each layout of a golden file (int64 rows)."""
    groups: dict[tuple[int, int], list[tuple[int, str]]] = {}
    for c, e, s, text in golden[name].rows():
        if -(2**63) <= c < 2**63:
            groups.setdefault((e, s), []).append((c, text))
    for (e, s), found in sorted(groups.items()):
        found = found[:rows]
        yield e, s, np.array([c for c, _ in found], dtype=np.int64), [t for _, t in found]


@pytest.mark.parametrize("threads", [2, 3])
def test_split_golden_vectors_by_layout(golden, split_only, threads):
    """Every layout of the golden files as a column of its own, over 2 and 3 threads
    (the first part's tail written last with 2): the text is Go's, byte for byte."""
    for name in ("grid", "prices"):
        groups = list(one_layout_groups(golden, name, None if JIT else 30))
        for e, s, coef, want in groups if JIT else groups[::40]:
            arr = vecfix.format_fixed(coef, e, s, threads=threads, layout="arrow").to_arrow()
            arr.validate(full=True)
            assert arr.to_pylist() == want, (name, e, s)
            assert arr.buffers()[2].size == sum(map(len, want))  # the text, nothing more


def edge_values() -> list[int]:
    """0, the int64 extremes, each side of every power of ten and of every half (9.99995
    rounds to 10.0000 at scale 4 with exponent -5)."""
    values = {0, 1, -1, 2**63 - 1, -(2**63)}
    for k in range(19):
        for at in (10**k, 5 * 10**k):
            values |= {v for v in (at - 1, at, at + 1, -at + 1, -at, -at - 1) if abs(v) < 2**63}
    return sorted(values)


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize(("e", "s"), [(-9, 4), (-5, 4), (0, 2), (3, 0), (-2, -1), (-25, 2)])
def test_split_edge_values(split_only, threads, e, s):
    rng = np.random.default_rng(threads)
    coef = np.array(edge_values() * (3 if JIT else 1), dtype=np.int64)
    rng.shuffle(coef)
    out = vecfix.format_fixed(coef, e, s, threads=threads, layout="arrow")
    check(out, reference(coef, e, s))


@given(
    st.lists(INT64, min_size=14, max_size=300 if JIT else 60),
    st.integers(-22, 8),
    st.integers(-3, 16),
    st.integers(2, 3),
)
def test_split_any_rows(rows, e, s, threads):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 7)
        coef = np.array(rows, dtype=np.int64)
        out = vecfix.format_fixed(coef, e, s, threads=threads, layout="arrow")
        check(out, reference(coef, e, s))


@pytest.mark.parametrize("threads", [2, 3])
def test_split_sliced_inputs(split_only, threads):
    rng = np.random.default_rng(11)
    base = rng.integers(-(10**14), 10**14, size=400 if JIT else 90)
    for coef in (base[7:-5], base[::3], base[::-1], base.astype(np.int32)[3:]):
        out = vecfix.format_fixed(coef, -9, 4, threads=threads, layout="arrow")
        check(out, reference(coef.astype(np.int64), -9, 4))


@pytest.mark.parametrize("threads", [1, 2])
def test_to_polars_of_the_arrow_layout(monkeypatch, threads):
    """polars gets string_view records made from the Arrow layout: rows short enough to
    sit in their record and longer ones read from the data, with nulls, over threads."""
    pl = pytest.importorskip("polars")
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 7)
    rng = np.random.default_rng(5)
    n = 90
    coef = rng.integers(-(2**63), 2**63 - 1, size=n, dtype=np.int64) >> rng.integers(0, 63, n)
    for valid in (None, rng.random(n) > 0.3):
        data = coef if valid is None else np.ma.masked_array(coef, mask=~valid)
        out = vecfix.format_fixed(data, -4, 3, threads=threads, layout="arrow")
        series = out.to_polars("px")
        assert series.dtype == pl.String and series.name == "px"
        want = reference(coef, -4, 3, valid)
        assert series.to_list() == want
        assert {len(t) for t in want if t} >= {5, 12, 13, 20}  # both kinds of record
