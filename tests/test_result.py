"""The ``Formatted`` result: sequence behaviour, repr and the zero-copy views."""

from __future__ import annotations

import io

import numpy as np
import pytest

import vecfix

TEXTS = ["12345.68", "-5.00", "0.00", "2.68", "-0.13", "100.00"]


@pytest.fixture
def result() -> vecfix.Formatted:
    coef = np.array([123456789, -5000, -4, 2675, -125, 10], dtype=np.int64)
    exps = np.array([-4, -3, -3, -3, -3, 1], dtype=np.int32)
    return vecfix.format_fixed(coef, exps, 2)


def test_len_and_width(result):
    assert len(result) == 6
    assert result.width == 8 == result.matrix.shape[1]
    assert isinstance(result.width, int)


def test_matrix_and_lengths(result):
    assert result.matrix.dtype == np.uint8 and result.matrix.shape == (6, 8)
    assert result.matrix.flags.c_contiguous
    assert result.lengths.dtype == np.int32
    assert result.lengths.tolist() == [len(t) for t in TEXTS]
    for i, t in enumerate(TEXTS):
        assert result.matrix[i].tobytes() == t.encode().ljust(8, b"\0")


def test_indexing(result):
    assert [result[i] for i in range(6)] == TEXTS
    assert result[-1] == "100.00" and result[-6] == "12345.68"
    assert result[np.int64(3)] == "2.68" and result[np.int32(-2)] == "-0.13"
    assert isinstance(result[0], str)


def test_keys_of_other_kinds(result):
    """A 0-d array is its integer; lists and pandas or polars Series are positions or a
    mask; a bool or a tuple is refused (True is not row 1)."""
    assert result[np.array(3)] == TEXTS[3]
    assert result[[0, 5]].to_list() == [TEXTS[0], TEXTS[5]]
    mask = [i % 2 == 0 for i in range(6)]
    want = [t for t, keep in zip(TEXTS, mask, strict=True) if keep]
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    assert result[pd.Series(mask, index=[9, 8, 7, 6, 5, 4])].to_list() == want
    assert result[pl.Series(mask)].to_list() == want
    for empty in ([], pd.Series([], dtype=object), pl.Series([])):  # no rows
        part = result[empty]
        assert len(part) == 0 and part.to_list() == [] and part.to_arrow().to_pylist() == []
    for key in (True, np.True_, (0, 1)):
        with pytest.raises(TypeError, match="indexed by an int, a slice, a bool mask"):
            result[key]


@pytest.mark.parametrize("key", [1.0, np.float64(1), "a", None, np.array([0.0, 1.0]), ["a"]])
def test_keys_that_are_no_positions(result, key):
    """A float, text or None is refused by name, not a RecursionError (its 0-d array was
    taken for its item, which was the same float again) nor NumPy's words."""
    with pytest.raises(TypeError, match="indexed by an int, a slice, a bool mask") as caught:
        result[key]
    assert type(key).__name__ in str(caught.value)


def test_row_out_of_range(result):
    with pytest.raises(IndexError, match=r"row 6 is out of range for a result of 6 rows"):
        result[6]
    with pytest.raises(IndexError, match=r"row -7 is out of range"):
        result[-7]
    assert result[-6] == TEXTS[0]


def test_a_slice_is_a_view(result):
    """A slice shares the result's arrays (as NumPy's do); a mask or index array copies."""
    part = result[1:3]
    assert np.shares_memory(part.matrix, result.matrix)
    assert not np.shares_memory(result[[1, 2]].matrix, result.matrix)


@pytest.mark.parametrize("i", [6, 7, -7, 10**20])
def test_index_out_of_range(result, i):
    with pytest.raises(IndexError):
        result[i]


def test_index_out_of_range_on_empty():
    empty = vecfix.format_fixed(np.array([], dtype=np.int64), 0, 0)
    with pytest.raises(IndexError):
        empty[0]
    with pytest.raises(IndexError):
        empty[-1]


@pytest.mark.parametrize(
    "key",
    [slice(1, 4), slice(None, None, -1), slice(None, None, 2), slice(4, 1), slice(-2, None)],
)
def test_slicing_returns_formatted(result, key):
    part = result[key]
    assert isinstance(part, vecfix.Formatted)
    assert part.to_list() == TEXTS[key]
    assert len(part) == len(TEXTS[key])
    assert part.width == result.width
    assert part.matrix.flags.c_contiguous
    assert part.lengths.tolist() == [len(t) for t in TEXTS[key]]
    assert part.to_numpy().tolist() == [t.encode() for t in TEXTS[key]]


def test_boolean_and_integer_array_keys(result):
    mask = np.array([True, False, True, False, False, True])
    assert result[mask].to_list() == [TEXTS[0], TEXTS[2], TEXTS[5]]
    assert result[np.array([5, 0])].to_list() == [TEXTS[5], TEXTS[0]]


def test_iteration(result):
    assert list(result) == TEXTS
    assert list(iter(result)) == result.to_list()
    assert [t for t in result if t.startswith("-")] == ["-5.00", "-0.13"]


def test_to_list(result):
    texts = result.to_list()
    assert texts == TEXTS and all(type(t) is str for t in texts)


def test_repr(result):
    assert repr(result) == "Formatted(6 rows, width 8: ['12345.68', '-5.00', ...])"
    assert repr(result[:2]) == "Formatted(2 rows, width 8: ['12345.68', '-5.00'])"
    assert repr(result[:1]) == "Formatted(1 rows, width 8: ['12345.68'])"
    assert repr(result[:0]) == "Formatted(0 rows, width 8: [])"


def test_to_numpy_is_a_zero_copy_view(result):
    arr = result.to_numpy()
    assert arr.dtype == np.dtype("S8") and arr.shape == (6,)
    assert np.shares_memory(arr, result.matrix)
    assert arr.tolist() == [t.encode() for t in TEXTS]
    result.matrix[0, 0] = ord("9")  # a view: changes show through
    assert arr[0] == b"92345.68"


def test_to_numpy_with_padding_width():
    wide = vecfix.format_fixed([1, -22], 0, 1, width=10)
    arr = wide.to_numpy()
    assert arr.dtype == np.dtype("S10") and np.shares_memory(arr, wide.matrix)
    assert arr.tolist() == [b"1.0", b"-22.0"]


def test_empty_result():
    empty = vecfix.format_fixed(np.array([], dtype=np.int64), 0, 0)
    assert len(empty) == 0 and empty.width == 0
    assert list(empty) == [] and empty.to_list() == []
    assert empty.to_numpy().shape == (0,)
    assert repr(empty) == "Formatted(0 rows, width 0: [])"


def test_constructor_validates_shapes():
    with pytest.raises(ValueError, match="uint8"):
        vecfix.Formatted(np.zeros((2, 3), dtype=np.int8), np.zeros(2, dtype=np.int32))
    with pytest.raises(ValueError, match="lengths"):
        vecfix.Formatted(np.zeros((2, 3), dtype=np.uint8), np.zeros(3, dtype=np.int32))
    with pytest.raises(ValueError):
        vecfix.Formatted(np.zeros(6, dtype=np.uint8), np.zeros(6, dtype=np.int32))


def test_single_fallback_row_result():
    out = vecfix.format_fixed(10**25 + 5, -1, 0)
    assert len(out) == 1 and out[0] == "1000000000000000000000001"
    assert out.to_numpy().tolist() == [b"1000000000000000000000001"]


class _Trickle(io.RawIOBase):
    """A raw file that takes at most 3 bytes per write, as pipes and sockets may."""

    def __init__(self) -> None:
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        taken = bytes(memoryview(b)[:3])
        self.data += taken
        return len(taken)


def test_write_retries_partial_writes():
    out = vecfix.format_fixed([125, None, -5, 2**70], -2, 1)
    f = _Trickle()
    assert out.write(f, null=b"NA") == len(out.to_bytes(end=b"\n", null=b"NA"))
    assert bytes(f.data) == b"1.3\nNA\n-0.1\n11805916207174113034.2\n"


def test_write_refuses_a_file_that_takes_nothing():
    class Full(_Trickle):
        def write(self, b):
            return None

    with pytest.raises(BlockingIOError):
        vecfix.format_fixed([1], 0, 0).write(Full())
