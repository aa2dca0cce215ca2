"""Arrow string arrays built from the byte matrix (vecfix._arrow): every layout, every row.

The expected text is the golden vectors' (Go's StringFixed), never vecfix's own output:
the matrices are built from the expected strings with NumPy, and the end-to-end test
formats the golden rows and compares with the file.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import reference_fixed

import vecfix
import vecfix._plan
import vecfix._tuning
from vecfix._arrow import arrow_strings

pa = pytest.importorskip("pyarrow")

JIT = not numba.config.DISABLE_JIT
LAYOUTS = [
    pytest.param({"view": True}, id="string_view"),
    pytest.param({}, id="string"),
    pytest.param({"large": True}, id="large_string"),
]


def matrix_of(texts: list[str], width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The left-aligned, zero-padded byte matrix and lengths of ``texts`` (NumPy only)."""
    raw = np.array([t.encode("ascii") for t in texts], dtype=bytes)
    width = max(raw.dtype.itemsize, 1) if width is None else width
    matrix = np.zeros((len(texts), width), dtype=np.uint8)
    lengths = np.char.str_len(raw).astype(np.int32) if len(texts) else np.zeros(0, np.int32)
    for i, t in enumerate(raw.tolist()):
        matrix[i, : len(t)] = np.frombuffer(t, dtype=np.uint8)
    return matrix, lengths


def arrow_type(layout: dict) -> object:
    if layout.get("view"):
        return pa.string_view()
    return pa.large_string() if layout.get("large") else pa.string()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_golden_text_round_trips(golden, layout):
    """Every golden row of every file (a sample without the JIT) through each layout."""
    for vectors in golden.values():
        texts = vectors.expected if JIT else vectors.expected[::97]
        matrix, lengths = matrix_of(texts)
        arr = arrow_strings(matrix, lengths, None, **layout)
        assert arr.type == arrow_type(layout)
        arr.validate(full=True)
        assert arr.to_pylist() == texts, vectors.name


@pytest.mark.parametrize("layout", LAYOUTS)
def test_format_fixed_golden_rows_to_arrow(golden, layout):
    """The whole path: golden int64 rows formatted, then each Arrow layout."""
    vectors = golden["prices"]
    step = 1 if JIT else 401
    coef = np.array(vectors.coef[::step], dtype=np.int64)
    out = vecfix.format_fixed(coef, vectors.exp_array()[::step], vectors.scale_array()[::step])
    arr = arrow_strings(out.matrix, out.lengths, out.valid, **layout)
    assert arr.to_pylist() == vectors.expected[::step]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_nulls_and_a_sliced_matrix(layout):
    texts = ["1.25", "-0.0040", "123456789012.5", "7", "99999999999999.99", "0"]
    matrix, lengths = matrix_of(texts, width=20)
    valid = np.array([True, False, True, True, False, True])
    matrix[~valid] = 0
    lengths[~valid] = 0
    want = [t if v else None for t, v in zip(texts, valid.tolist(), strict=True)]
    arr = arrow_strings(matrix, lengths, valid, **layout)
    arr.validate(full=True)
    assert arr.null_count == 2 and arr.to_pylist() == want
    # rows 1..4 of a bigger matrix, and every other column dropped: not contiguous
    part = arrow_strings(matrix[1:5], lengths[1:5], valid[1:5], **layout)
    assert part.to_pylist() == want[1:5]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_no_slack_after_the_last_row(layout):
    """The last rows sit at the very end of their buffer: no read past it (exact width)."""
    texts = ["12345678901234567", "1", "123456789012", "1234567890123"]
    for width in (13, 17):
        kept = [t for t in texts if len(t) <= width]
        matrix, lengths = matrix_of(kept, width=width)
        assert arrow_strings(matrix.copy(), lengths, None, **layout).to_pylist() == kept


def test_string_becomes_large_past_the_offset_limit():
    texts = ["1.00", "22.00", "333.00"]
    matrix, lengths = matrix_of(texts)
    arr = arrow_strings(matrix, lengths, None, offset_limit=10)
    assert arr.type == pa.large_string() and arr.to_pylist() == texts
    with pytest.raises(ValueError, match="pass large=True"):
        arrow_strings(matrix, lengths, None, large=False, offset_limit=10)


def test_string_view_splits_its_data_buffers_at_the_offset_limit():
    texts = [f"{i}.123456789012345" for i in range(50)]  # every row longer than 12 bytes
    matrix, lengths = matrix_of(texts)
    arr = arrow_strings(matrix, lengths, None, view=True, offset_limit=3 * matrix.shape[1])
    assert len(arr.buffers()) > 3  # validity, views and more than one data buffer
    arr.validate(full=True)
    assert arr.to_pylist() == texts


def test_view_refuses_large():
    matrix, lengths = matrix_of(["1"])
    with pytest.raises(ValueError, match="large="):
        arrow_strings(matrix, lengths, None, view=True, large=True)


def test_empty_and_all_null():
    for layout in ({"view": True}, {}):
        matrix = np.zeros((0, 0), dtype=np.uint8)
        assert arrow_strings(matrix, np.zeros(0, np.int32), None, **layout).to_pylist() == []
        matrix = np.zeros((3, 0), dtype=np.uint8)
        valid = np.zeros(3, dtype=bool)
        got = arrow_strings(matrix, np.zeros(3, np.int32), valid, **layout).to_pylist()
        assert got == [None, None, None]


@given(st.lists(st.from_regex(r"-?[0-9]{1,30}(\.[0-9]{1,20})?", fullmatch=True), max_size=40),
       st.integers(0, 8))  # fmt: skip
def test_any_rows_any_width(texts, extra):
    """Property: any decimal texts in a matrix of any spare width, every layout."""
    matrix, lengths = matrix_of(texts, width=max((len(t) for t in texts), default=0) + extra)
    for layout in ({"view": True}, {}, {"large": True}):
        assert arrow_strings(matrix, lengths, None, **layout).to_pylist() == texts


def test_polars_takes_the_views():
    pl = pytest.importorskip("polars")
    texts = ["1.25", "-12345678901234.5678", "0.0001"]
    matrix, lengths = matrix_of(texts)
    s = pl.from_arrow(arrow_strings(matrix, lengths, None, view=True))
    assert s.dtype == pl.String and s.to_list() == texts


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("width", [1, 2, 3, 5])
def test_narrow_rows_do_not_show_their_neighbours(layout, width):
    """Rows narrower than a record's 4- or 8-byte word: the next row's bytes stay out."""
    texts = ["1", "-7", "0.5", "12345", "9", "-12"] * 3
    kept = [t for t in texts if len(t) <= width]
    matrix, lengths = matrix_of(kept, width=width)
    arr = arrow_strings(matrix, lengths, None, **layout)
    arr.validate(full=True)
    assert arr.to_pylist() == kept


@pytest.mark.parametrize("valid", [None, [True, False, True, True]])
def test_arrow_layout_result_hands_its_buffers_over_without_lengths(valid):
    """``len()`` and ``to_arrow()`` of a result in Arrow's layout read its offsets; the
    per-row lengths (a pass over every row) are made only when asked for."""
    coef = np.ma.masked_array([125, -6, 7, 10**12], mask=None if valid is None else
                              ~np.array(valid))  # fmt: skip
    want = [reference_fixed(c, -2, 1) for c in coef.data.tolist()]
    if valid is not None:
        want = [t if v else None for t, v in zip(want, valid, strict=True)]
    out = vecfix.format_fixed(coef, -2, 1, layout="arrow")
    assert len(out) == 4
    assert out.to_arrow().to_pylist() == want
    assert out._lengths is None  # not made
    assert out.lengths.tolist() == [len(t or "") for t in want]
    assert len(out) == 4


# --- by parts, on threads: the threads of the call that made the result -------------------


@pytest.fixture
def small_parts(monkeypatch):
    """A thread for every 7 rows, so that small inputs are cut into parts."""

    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 7)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("threads", [2, 3, 5])
@pytest.mark.parametrize("extra", [0, 1, 9])
def test_parts_write_what_one_call_writes(small_parts, layout, threads, extra):
    """Rows of every length around a store's 8 bytes, and of more than 12 (a record's
    buffer and offset), cut into parts at any row: each part's text lands where it ends
    up, and no part's 8-byte stores reach into the next part's (which another thread
    writes meanwhile), nor past the buffer."""
    rng = np.random.default_rng(threads * 10 + extra)
    texts = [reference_fixed(int(c), -int(s), int(s)) for c, s in zip(
        rng.integers(-(10**15), 10**15, size=97), rng.integers(0, 9, size=97), strict=True
    )]  # fmt: skip
    matrix, lengths = matrix_of(texts, width=max(map(len, texts)) + extra)
    valid = rng.random(97) < 0.9
    want = [t if ok else None for t, ok in zip(texts, valid, strict=True)]
    for nulls in (None, valid):
        arr = arrow_strings(matrix, lengths, nulls, threads=threads, **layout)
        arr.validate(full=True)
        assert arr.type == arrow_type(layout)
        assert arr.to_pylist() == (texts if nulls is None else want)
        one = arrow_strings(matrix, lengths, nulls, threads=1, **layout)
        assert arr.equals(one)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_parts_without_slack_after_the_last_row(small_parts, layout):
    texts = ["1.25", "-12345678901234.5678", "0.0001", "7"] * 9
    matrix, lengths = matrix_of(texts)
    assert arrow_strings(matrix.copy(), lengths, None, threads=4, **layout).to_pylist() == texts


@pytest.mark.parametrize("threads", [1, None])
def test_conversions_use_the_threads_of_the_call(small_parts, monkeypatch, threads):
    """``format_fixed(..., threads=1)`` (what vecfix.dask calls) keeps its result's
    conversions on one thread; the default lets a large one use the cores. (A result of
    fewer rows than a thread takes is converted on one thread whatever it holds.)"""
    import vecfix._arrow as arrow

    seen = []
    real = arrow.arrow_strings
    monkeypatch.setattr(
        arrow, "arrow_strings", lambda *a, **kw: seen.append(kw["threads"]) or real(*a, **kw)
    )
    coef = np.arange(-300, 300, dtype=np.int64) * 12345  # past the few-rows paths
    out = vecfix.format_fixed(coef, -3, 2, threads=threads)
    want = [reference_fixed(int(c), -3, 2) for c in coef]
    assert out.to_arrow().to_pylist() == want
    assert out[5:50].to_arrow(view=True).to_pylist() == want[5:50]
    assert out.to_polars().to_list() == want
    assert seen and all(t == threads for t in seen)
