"""``iter_format`` and ``write_formatted``: the same text whatever the chunk size and thread
count, for every kind of input, with errors that name the row in the whole input and a
memory peak set by the chunk size. Expected text comes from the integer reference."""

from __future__ import annotations

import decimal
import io
import tracemalloc

import numba
import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN
from reference import reference_fixed

import vecfix
import vecfix._plan
import vecfix._tuning
from vecfix import DecimalColumn, RowTooLongError, _chunks, format_fixed
from vecfix._chunks import iter_format, write_formatted

#: int64 max and min rows (golden vectors, dtype extremes) are formatted here on purpose; the
#: SentinelWarning they raise is tested in tests/test_one_vocabulary.py
pytestmark = pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")

NOJIT = bool(numba.config.DISABLE_JIT)
N = 60 if NOJIT else 2500


def _rows(n: int = N, seed: int = 5) -> tuple[list[int], np.ndarray, np.ndarray, list[str]]:
    """``n`` rows: int64 extremes, a few ints beyond int64, per-row exponents and scales."""
    rng = np.random.default_rng(seed)
    coef = rng.integers(INT64_MIN, INT64_MAX, n, endpoint=True, dtype=np.int64).tolist()
    coef[0], coef[-1] = INT64_MIN, INT64_MAX
    for i in rng.integers(0, n, 5).tolist():
        coef[i] = -(10**25) - i
    exps = rng.integers(-25, 3, n).astype(np.int32)
    scales = rng.integers(-2, 22, n).astype(np.int32)
    want = [
        reference_fixed(c, e, s)
        for c, e, s in zip(coef, exps.tolist(), scales.tolist(), strict=True)
    ]
    return coef, exps, scales, want


def _objects(values: list) -> np.ndarray:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _text(chunks) -> list[str | None]:
    return [text for chunk in chunks for text in chunk.to_list()]


CHUNKSIZES = [1, 7, 1000, N]


@pytest.mark.parametrize("chunksize", CHUNKSIZES)
@pytest.mark.parametrize("threads", [1, 2, None])
def test_chunks_and_threads_give_the_same_text(chunksize, threads, monkeypatch):
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 3)  # so that small chunks split too
    coef, exps, scales, want = _rows()
    chunks = list(iter_format(_objects(coef), exps, scales, chunksize=chunksize, threads=threads))
    assert [len(c) for c in chunks] == [min(chunksize, N - lo) for lo in range(0, N, chunksize)]
    assert _text(chunks) == want
    int64_rows = [i for i, c in enumerate(coef) if INT64_MIN <= c <= INT64_MAX]
    fast = iter_format(
        np.array([coef[i] for i in int64_rows]), -9, 4, chunksize=chunksize, threads=threads
    )
    assert _text(fast) == [reference_fixed(coef[i], -9, 4) for i in int64_rows]


@pytest.mark.parametrize("chunksize", CHUNKSIZES)
def test_fixed_width_chunks_stack_into_the_whole_matrix(chunksize):
    coef, exps, scales, want = _rows()
    width = max(map(len, want)) + 2
    chunks = list(iter_format(_objects(coef), exps, scales, chunksize=chunksize, width=width))
    assert {c.width for c in chunks} == {width}
    matrix = np.concatenate([c.matrix for c in chunks])
    raw = np.array([w.encode() for w in want], dtype=f"S{width}")
    np.testing.assert_array_equal(matrix, raw.view(np.uint8).reshape(N, width))


def test_scalars_and_length_one_columns_broadcast_to_every_chunk():
    exps = np.array([-3, -2, -1, 0, 1], dtype=np.int32)
    want = [reference_fixed(-2675, e, 2) for e in exps.tolist()]
    assert _text(iter_format(-2675, exps, [2], chunksize=2)) == want
    assert _text(iter_format(np.array([-2675]), exps, np.int16(2), chunksize=3)) == want
    assert _text(iter_format(np.int64(7), 0, 1, chunksize=3)) == ["7.0"]
    assert list(iter_format(np.array([], dtype=np.int64), 0, 1)) == []
    assert list(iter_format([], [], 1)) == []


# --- every kind of input --------------------------------------------------------------------

PRICES = [5000_250000000, -4_000000, 12_345678901, 0, INT64_MAX, INT64_MIN, 999_999_999_500]
PRICE_TEXT = [reference_fixed(c, -9, 4) for c in PRICES]


def _memmap(tmp_path, values, dtype, name):
    mm = np.memmap(tmp_path / name, dtype=dtype, mode="w+", shape=(len(values),))
    mm[:] = values
    mm.flush()
    return np.memmap(tmp_path / name, dtype=dtype, mode="r", shape=(len(values),))


class LazyColumn:
    """Anything with ``len()`` and slicing: rows made on demand, never all at once."""

    def __init__(self, values):
        self.values = values
        self.slices = []

    def __len__(self):
        return len(self.values)

    def __getitem__(self, key):
        self.slices.append((key.start, key.stop))
        return np.array(self.values[key], dtype=np.int64)


def test_numpy_list_tuple_range_and_lazy_inputs():
    for values in (np.array(PRICES), PRICES, tuple(PRICES), np.array(PRICES[::-1])[::-1]):
        assert _text(iter_format(values, -9, 4, chunksize=3)) == PRICE_TEXT
    lazy = LazyColumn(PRICES)
    assert _text(iter_format(lazy, -9, 4, chunksize=3)) == PRICE_TEXT
    assert lazy.slices == [(0, 3), (3, 6), (6, 7)]
    assert _text(iter_format(range(-3, 4), 0, 1, chunksize=2)) == [f"{v}.0" for v in range(-3, 4)]


def test_memmaps(tmp_path):
    coef, exps, scales, want = _rows(seed=9)
    small = [i for i, c in enumerate(coef) if INT64_MIN <= c <= INT64_MAX]
    c = _memmap(tmp_path, [coef[i] for i in small], np.int64, "c.bin")
    e = _memmap(tmp_path, exps[small], np.int32, "e.bin")
    s = _memmap(tmp_path, scales[small], np.int32, "s.bin")
    assert _text(iter_format(c, e, s, chunksize=17)) == [want[i] for i in small]
    del c, e, s


def test_iterators_and_generators():
    assert _text(iter_format(iter(PRICES), -9, 4, chunksize=3)) == PRICE_TEXT
    decimals = (decimal.Decimal(f"{c}E-9") for c in PRICES)
    assert _text(iter_format(decimals, scale=4, chunksize=2)) == PRICE_TEXT
    gen = (v for v in [15, 2**63 - 1, -25])
    assert _text(iter_format(gen, -1, 0, chunksize=2, null=2**63 - 1)) == ["2", None, "-3"]


def test_decimals_text_and_decimal_columns():
    text = [f"{c}E-9" for c in PRICES]
    assert _text(iter_format(text, scale=4, chunksize=3)) == PRICE_TEXT
    assert _text(iter_format(np.array(text), scale=4, chunksize=4)) == PRICE_TEXT
    with_nulls = [decimal.Decimal("2.675"), None, decimal.Decimal("-1E-3"), None]
    assert _text(iter_format(with_nulls, scale=2, chunksize=3)) == ["2.68", None, "0.00", None]
    col = DecimalColumn(np.array(PRICES), np.full(len(PRICES), -9, dtype=np.int32), None)
    assert _text(iter_format(col, scale=4, chunksize=3)) == PRICE_TEXT
    valid = np.array([True, False] * 3 + [True])
    col = DecimalColumn(np.array(PRICES), -9, valid)
    want = [t if v else None for t, v in zip(PRICE_TEXT, valid, strict=True)]
    assert _text(iter_format(col, scale=4, chunksize=2)) == want


def test_arrow_pandas_polars_columns():
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    with_null = [*PRICES[:3], None, *PRICES[3:]]
    want = [*PRICE_TEXT[:3], None, *PRICE_TEXT[3:]]
    arrow = pa.array(with_null, pa.int64())
    assert _text(iter_format(arrow, -9, 4, chunksize=3)) == want
    chunked = pa.chunked_array([arrow[:2], arrow[2:5], arrow[5:]])
    assert _text(iter_format(chunked, -9, 4, chunksize=3)) == want
    series = pd.Series(with_null, dtype="Int64", index=range(100, 100 + len(with_null)))
    assert _text(iter_format(series, -9, 4, chunksize=3)) == want  # positions, not labels
    assert _text(iter_format(pl.Series(with_null, dtype=pl.Int64), -9, 4, chunksize=3)) == want
    exps = pd.Series(np.full(len(with_null), -9), index=range(50, 50 + len(with_null)))
    assert _text(iter_format(arrow, exps, 4, chunksize=3)) == want


# --- errors ---------------------------------------------------------------------------------


def test_errors_name_the_row_of_the_whole_input():
    coef = list(range(2500))
    coef[2103] = 2.5
    chunks = iter_format(coef, 0, 0, chunksize=1000)
    assert len(next(chunks)) == 1000 and len(next(chunks)) == 1000
    with pytest.raises(TypeError, match=r"row 2103 holds float 2\.5"):
        next(chunks)
    scales = np.zeros(2500, dtype=np.int32)
    scales[1500] = 2**31 - 1
    with pytest.raises(RowTooLongError, match=r"row 1500 \(coefficient=1500,.*MAX_ROW_LENGTH"):
        list(iter_format(np.arange(2500), 0, scales, chunksize=1000))
    with pytest.raises(
        RowTooLongError, match=r"row 1000 \(coefficient=1000,.*needs 4 bytes but the width is 3"
    ):
        list(iter_format(np.arange(2500), 0, 0, chunksize=1000, width=3))
    exps = [0] * 2500
    exps[1700] = 2**31
    with pytest.raises(ValueError, match=r"exponent must fit in int32.*row 1700 is 2147483648"):
        list(iter_format(np.arange(2500), exps, 0, chunksize=1000))


@pytest.mark.parametrize(
    ("args", "error", "words"),
    [
        (([1, 2, 3], [1, 2], 0), ValueError, "coefficients of length 3, exponent of length 2"),
        ((np.zeros((2, 2), np.int64), 0, 0), ValueError, r"coefficients must be a scalar or 1-D"),
        (([1, 2], np.zeros((2, 1), np.int32), 0), ValueError, r"exponent must be .* 1-D"),
        ((iter([1, 2]), [0, 1], 0), TypeError, "exponent and scale must be scalars"),
        ((object(), 0, 0), TypeError, "coefficients must be a scalar, a sized sliceable"),
        (([1], 0, object()), TypeError, "scale must be a scalar, a sized sliceable"),
    ],
)
def test_inputs_that_cannot_be_chunked_are_refused_at_the_call(args, error, words, tmp_path):
    with pytest.raises(error, match=words):
        iter_format(*args, chunksize=1)
    path = tmp_path / "untouched.txt"
    path.write_bytes(b"keep")
    with pytest.raises(error, match=words):
        write_formatted(path, *args, chunksize=1)
    assert path.read_bytes() == b"keep"


@pytest.mark.parametrize(
    ("coefficients", "error", "words"),
    [
        (np.array([1.5, 2.5]), TypeError, "coefficients must be integers"),
        (["1.5", "abc"], ValueError, "'abc' is not decimal text"),
        ([1, 10**6], ValueError, "MAX_ROW_LENGTH"),  # a row too long in the first chunk
    ],
)
def test_a_refused_chunk_leaves_the_file_as_it_was(coefficients, error, words, tmp_path):
    """Refusals that come with formatting the first chunk (a float column, bad text, a row
    too long) leave an existing file untouched; so does a later chunk's, after the rows
    before it were written (the file is replaced whole, or not at all), and no temporary
    file is left beside it."""
    path = tmp_path / "prices.txt"
    path.write_bytes(b"keep")
    exponent = 0 if not isinstance(coefficients[0], str) else None
    scale = 10**5 if words == "MAX_ROW_LENGTH" else 1
    with pytest.raises(error, match=words):
        write_formatted(path, coefficients, exponent, scale, chunksize=2)
    assert path.read_bytes() == b"keep"
    with pytest.raises(ValueError, match="'abc' is not decimal text"):
        write_formatted(path, ["1.5", "2", "abc"], scale=1, chunksize=2)
    assert path.read_bytes() == b"keep"
    assert [p.name for p in tmp_path.iterdir()] == ["prices.txt"]


@pytest.mark.parametrize(
    ("chunksize", "error"), [(0, ValueError), (-5, ValueError), (1.5, TypeError), (True, TypeError)]
)
def test_bad_chunksize(chunksize, error):
    with pytest.raises(error, match="chunksize must be a positive int"):
        iter_format([1], 0, 0, chunksize=chunksize)


def test_out_is_refused():
    with pytest.raises(TypeError, match="out="):
        iter_format([1], 0, 0, out=np.zeros((1, 4), dtype=np.uint8))
    with pytest.raises(
        TypeError, match=r"iter_format\(\) got an unexpected keyword argument 'widht'"
    ):
        next(iter_format([1], 0, 0, widht=4))  # (a typo: named as the user's call)
    assert [c.to_list() for c in iter_format([1, 2], 0, 0, layout="arrow", chunksize=1)] == [
        ["1"],
        ["2"],
    ]


@pytest.mark.parametrize("name", ["sep", "end", "null_text"])
def test_write_formatted_separators_must_be_bytes(name):
    with pytest.raises(TypeError, match=f"{name} must be bytes, got str"):
        write_formatted(io.BytesIO(), [1], 0, 0, **{name: ","})


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_write_formatted_takes_bytes_like_separators_as_formatted_write_does(kind):
    """sep, end and null_text may be any bytes-like object that Formatted.write takes."""
    args = ([15, None, -25], -1, 0)
    whole, chunked = io.BytesIO(), io.BytesIO()
    format_fixed(*args).write(whole, sep=kind(b", "), end=kind(b";"), null=kind(b"NA"))
    write_formatted(
        chunked, *args, chunksize=1, sep=kind(b", "), end=kind(b";"), null_text=kind(b"NA")
    )
    assert chunked.getvalue() == whole.getvalue() == b"2, NA, -3;"


def test_text_streams_are_refused_before_any_work(monkeypatch):
    """vecfix writes bytes: a text stream (StringIO, sys.stdout) is refused by name, by
    write_formatted before it formats a row, and by Formatted.write."""
    calls = []
    monkeypatch.setattr(_chunks, "iter_format", lambda *a, **k: calls.append(a))
    for stream in (io.StringIO(), io.TextIOWrapper(io.BytesIO())):
        with pytest.raises(TypeError, match=r"file must be a binary file \(vecfix writes bytes\),"
                           r" not the text stream (StringIO|Text)"):  # fmt: skip
            write_formatted(stream, [15, -25], -1, 0)
        with pytest.raises(TypeError, match=r"file must .*writes bytes.*not the text stream"):
            format_fixed([15, -25], -1, 0).write(stream)
    assert calls == []
    sink = io.BytesIO()  # a binary stream: the text
    monkeypatch.undo()
    assert write_formatted(sink, [15, -25], -1, 0) == len(b"2\n-3\n")


def test_write_formatted_separates_chunks_of_null_rows():
    buf = io.BytesIO()
    write_formatted(buf, [None, None, 5, None], 0, 0, chunksize=1, sep=b",", end=b".")
    assert buf.getvalue() == b",,5,."


# --- write_formatted --------------------------------------------------------------------------


@pytest.mark.parametrize("chunksize", [1, 3, 1000])
def test_write_formatted_matches_the_joined_reference(chunksize, tmp_path):
    coef, exps, scales, want = _rows()
    joined = "\n".join(want).encode() + b"\n"
    path = tmp_path / "out.txt"
    written = write_formatted(path, _objects(coef), exps, scales, chunksize=chunksize)
    assert path.read_bytes() == joined and written == len(joined)
    buf = io.BytesIO(b"head:")
    buf.seek(0, io.SEEK_END)
    written = write_formatted(
        buf, [*PRICES[:3], INT64_MAX], -9, 4, chunksize=chunksize, sep=b"|", end=b";",
        null=INT64_MAX, null_text=b"NA",
    )  # fmt: skip
    assert buf.getvalue() == b"head:" + b"|".join(t.encode() for t in PRICE_TEXT[:3]) + b"|NA;"
    assert written == len(buf.getvalue()) - 5


def test_write_formatted_empty_input(tmp_path):
    path = tmp_path / "empty.txt"
    assert write_formatted(path, np.array([], dtype=np.int64), 0, 0) == 0
    assert path.read_bytes() == b""


def test_write_formatted_equals_formatted_write():
    coef, exps, scales, _ = _rows(seed=3)
    whole, chunked = io.BytesIO(), io.BytesIO()
    format_fixed(_objects(coef), exps, scales).write(whole, sep=b",", end=b"")
    write_formatted(chunked, _objects(coef), exps, scales, chunksize=97, sep=b",", end=b"")
    assert chunked.getvalue() == whole.getvalue()


# --- memory -----------------------------------------------------------------------------------


@pytest.mark.skipif(NOJIT, reason="a million rows in plain Python takes minutes")
def test_peak_memory_is_set_by_the_chunk_size():
    """A million rows in chunks of 20,000 trace a small fraction of formatting them at once."""
    px = np.arange(1_000_000, dtype=np.int64) * 1_000_003 - 500_000_000_000
    write_formatted(io.BytesIO(), px[:10], -9, 4)  # compile outside the measurement

    def peak(fn) -> int:
        tracemalloc.start()
        try:
            fn()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    sink = _CountingSink()
    chunked = peak(lambda: write_formatted(sink, px, -9, 4, chunksize=20_000))
    whole = peak(lambda: format_fixed(px, -9, 4).write(_CountingSink()))
    assert sink.size > 8_000_000  # about 9 bytes a row were written
    assert whole > 20_000_000  # the matrix, the lengths and the joined text
    assert chunked < 2_000_000, f"{chunked} bytes traced in chunks, {whole} at once"


class _CountingSink:
    """A binary file that only counts what it is given."""

    def __init__(self):
        self.size = 0

    def write(self, data) -> int:
        self.size += memoryview(data).nbytes
        return memoryview(data).nbytes


@pytest.mark.parametrize("file", [None, 3, b"out.txt"])
def test_a_file_that_is_no_path_nor_stream_is_refused_before_any_work(file):
    """None, a file descriptor or a bytes path is refused by name before a row is formatted
    (write_formatted had formatted the first chunk, then failed with AttributeError
    "'NoneType' object has no attribute 'write'"), by Formatted.write too."""
    for call in (
        lambda: write_formatted(file, [1, 2], 0, 0),
        lambda: format_fixed([1, 2], 0, 0).write(file),
    ):
        with pytest.raises(TypeError, match="file must be a path or a binary file"):
            call()
