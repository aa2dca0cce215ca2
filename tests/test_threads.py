"""vecfix._threads.run_split: parts in row order, every part finished before it returns."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from vecfix._threads import run_split


def ranges(lo: int, hi: int) -> tuple[int, int, str]:
    return lo, hi, threading.current_thread().name


@pytest.mark.parametrize(("n", "threads"), [(0, 3), (1, 4), (10, 1), (10, 3), (1000, 7)])
def test_parts_cover_the_rows_in_order(n, threads):
    parts = run_split(ranges, n, threads)
    bounds = [(lo, hi) for lo, hi, _ in parts]
    assert bounds[0][0] == 0 and bounds[-1][1] == n
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
    assert len(parts) == (threads if n >= 2 else 1)
    assert parts[0][2] == threading.current_thread().name  # the caller takes the first part


def test_the_other_parts_run_on_the_pool():
    names = {name for _, _, name in run_split(ranges, 100, 3)[1:]}
    assert names and all(name.startswith("vecfix") for name in names)


def test_an_error_in_the_first_part_waits_for_the_others():
    finished = []

    def kernel(lo: int, hi: int) -> None:
        if lo == 0:
            raise ValueError("first part fails")
        time.sleep(0.05)
        finished.append(lo)

    with pytest.raises(ValueError, match="first part fails"):
        run_split(kernel, 30, 3)
    assert sorted(finished) == [10, 20]


def test_an_error_in_another_part_is_raised():
    def kernel(lo: int, hi: int) -> int:
        if lo:
            raise ArithmeticError(f"part at {lo}")
        return lo

    with pytest.raises(ArithmeticError, match="part at"):
        run_split(kernel, 20, 2)


def test_many_callers_at_once():
    results = []

    def call() -> None:
        results.append(run_split(lambda lo, hi: hi - lo, 1000, 4))

    callers = [threading.Thread(target=call) for _ in range(8)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    assert results == [[250, 250, 250, 250]] * 8
