"""The small call (a few int64 rows of one exponent and scale, no options): the text, the
errors and the compiled signatures are those of the general path, whatever the column's
flags (writeable, read-only, not aligned) and whichever thread calls."""

from __future__ import annotations

import threading

import numba
import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN
from reference import reference_fixed

import vecfix
from vecfix import _format
from vecfix._tuning import MEASURE_BELOW

NOJIT = bool(numba.config.DISABLE_JIT)
ROWS = [5000_250000000, -4_000050000, 12_345678901, 99_999950000, 1, 0, -31_250000, 10**17]


def _unaligned(values: list[int]) -> np.ndarray:
    """An int64 column at an odd address (a field of a packed record, say)."""
    raw = np.zeros(8 * len(values) + 1, dtype=np.uint8)
    column = np.frombuffer(raw.data, dtype=np.int64, count=len(values), offset=1)
    column.flags.writeable = True  # the buffer is ours
    column[:] = values
    assert not column.flags.aligned
    return column


def _read_only(values: list[int]) -> np.ndarray:
    column = np.array(values, dtype=np.int64)
    column.flags.writeable = False
    return column


KINDS = {
    "writeable": lambda v: np.array(v, dtype=np.int64),
    "read-only": _read_only,
    "unaligned": _unaligned,
}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize(
    ("exponent", "scale"), [(-9, 4), (-9, 0), (0, 2), (3, -2), (-2, 7), (-25, 3), (5, 10)]
)
def test_small_call_prints_the_reference_text(kind, exponent, scale):
    coef = KINDS[kind]([*ROWS, INT64_MIN, INT64_MAX, -1])
    got = vecfix.format_fixed(coef, exponent, scale)
    want = [reference_fixed(c, exponent, scale) for c in coef.tolist()]
    assert got.to_list() == want
    assert got.width == max(map(len, want))
    assert got.lengths.tolist() == list(map(len, want))
    assert got.valid is None and got.matrix.flags.c_contiguous


@pytest.mark.parametrize("kind", list(KINDS))
def test_small_call_keeps_one_compiled_signature(kind):
    """Every small call, whatever its column's flags, runs the one compiled signature of
    ``format_rows`` (a second one would cost a cold compile); and calls after the first
    run the same code as the first."""
    first = vecfix.format_fixed(KINDS[kind](ROWS), -9, 4).to_list()
    again = [vecfix.format_fixed(KINDS[kind](ROWS), -9, 4).to_list() for _ in range(3)]
    assert again == [first] * 3 == [[reference_fixed(c, -9, 4) for c in ROWS]] * 3
    if not NOJIT:
        kernel = _format._kernel or _format._row_kernel()  # the block or the row kernel
        assert len(kernel.signatures) == 1


@pytest.mark.parametrize("n", [0, 1, 2, MEASURE_BELOW - 1, MEASURE_BELOW])
def test_small_call_sizes_up_to_the_general_path(n):
    rng = np.random.default_rng(n)
    coef = rng.integers(-(10**15), 10**15, n, dtype=np.int64)
    got = vecfix.format_fixed(coef, -9, 4)
    want = [reference_fixed(c, -9, 4) for c in coef.tolist()]
    assert got.to_list() == want
    assert got.matrix.shape == (n, max(map(len, want), default=0))


def test_small_call_results_are_independent():
    """Each call gets arrays of its own: a later call does not change an earlier result."""
    coef = np.array(ROWS, dtype=np.int64)
    first = vecfix.format_fixed(coef, -9, 4)
    vecfix.format_fixed(-coef, -9, 2)
    assert first.to_list() == [reference_fixed(c, -9, 4) for c in ROWS]
    assert not np.shares_memory(first.matrix, vecfix.format_fixed(coef, -9, 4).matrix)


@pytest.mark.parametrize(
    ("exponent", "scale", "error"),
    [(2**31, 4, "exponents"), (-9, -(2**31) - 1, "scales"), (-9, 2**40, "scales")],
)
def test_small_call_refuses_what_the_general_path_refuses(exponent, scale, error):
    coef = np.array(ROWS, dtype=np.int64)
    with pytest.raises(ValueError, match=error) as small:
        vecfix.format_fixed(coef, exponent, scale)
    with pytest.raises(ValueError) as general:  # the same through the general path
        vecfix.format_fixed(coef.tolist(), exponent, scale)
    assert str(small.value) == str(general.value)


def test_small_call_with_long_rows_measures_first():
    """A layout whose rows may be longer than the small call's buffer takes the general
    path: the text is the same, and a row over the limit is refused with its row."""
    coef = np.array([1, -(10**18), 7], dtype=np.int64)
    got = vecfix.format_fixed(coef, 40, 2)
    assert got.to_list() == [reference_fixed(c, 40, 2) for c in coef.tolist()]
    with pytest.raises(ValueError, match="row 1"):
        vecfix.format_fixed(np.array([0, 5]), 10**6, 0)


def test_small_calls_from_many_threads():
    """Threads share the compiled code but not its staging arrays: every thread's text is
    its own rows'."""
    errors: list[str] = []
    barrier = threading.Barrier(4)

    def work(t: int) -> None:
        coef = np.array(ROWS, dtype=np.int64) * (t + 1) // 3
        want = [reference_fixed(c, -9, t) for c in coef.tolist()]
        barrier.wait(timeout=60)
        for _ in range(200 if not NOJIT else 5):
            got = vecfix.format_fixed(coef, -9, t).to_list()
            if got != want:
                errors.append(f"thread {t}: {got} != {want}")
                return

    pool = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert errors == []
