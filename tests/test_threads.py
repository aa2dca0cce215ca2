"""vecfix._threads.run_split: parts in row order, every part finished before it returns."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

import vecfix._passes
import vecfix._plan
import vecfix._tuning
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


# ------------------------------------------------ format_fixed's default: the cores, for big inputs


@pytest.fixture
def thread_counts(monkeypatch):
    """The thread counts format_fixed hands to run_split, on a 4-core machine where a
    thread takes at least 8 rows (so that small arrays count as large)."""
    seen: list[int] = []
    real = vecfix._passes.run_split

    def spy(kernel, n, threads, *args):
        seen.append(threads)
        return real(kernel, n, threads, *args)

    monkeypatch.setattr(vecfix._passes, "run_split", spy)
    monkeypatch.setattr(vecfix._plan, "usable_cores", lambda: 4)
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 8)
    return seen


def reference_texts(coef, exponent, scale):
    from reference import reference_fixed

    return [reference_fixed(int(c), exponent, scale) for c in coef]


@pytest.mark.parametrize("exponents", [-2, "per row"])
def test_a_large_input_uses_every_core_by_default(thread_counts, exponents):
    import numpy as np

    import vecfix

    px = np.arange(-6000, 6000, 7, dtype=np.int64) * 1_000_003  # over MEASURE_BELOW rows
    exps = -2 if exponents == -2 else np.full(px.size, -2, dtype=np.int32) - (px % 2)
    out = vecfix.format_fixed(px, exps, 1)
    assert max(thread_counts) == 4
    e = [-2] * px.size if exponents == -2 else exps.tolist()
    assert out.to_list() == [reference_texts([c], x, 1)[0] for c, x in zip(px, e, strict=True)]


def test_threads_1_and_small_inputs_stay_on_the_calling_thread(thread_counts):
    import numpy as np

    import vecfix

    px = np.arange(1000, dtype=np.int64)
    vecfix.format_fixed(px, -2, 1, threads=1)
    vecfix.format_fixed(px[:15], -2, 1)  # under two threads' worth of rows
    assert set(thread_counts) <= {1}


def test_dask_workers_format_on_one_thread(monkeypatch):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("dask")
    import vecfix
    import vecfix._format
    import vecfix.dask as vd

    calls = []
    real = vecfix._format.run

    def spy(values, exponent, scale, width=None, out=None, threads=None, *rest):
        calls.append(threads)
        return real(values, exponent, scale, width, out, threads, *rest)

    import dask.dataframe as dd

    # (format_fixed's general path: what the per-batch function, _batch.format_values, calls)
    monkeypatch.setattr(vecfix._format, "run", spy)
    ddf = dd.from_pandas(pd.DataFrame({"x": [125, -5]}), npartitions=1)
    vd.format_columns(ddf, {"x": vecfix.NumberFormat(-2, 1)}).compute(scheduler="sync")
    assert calls == [1]
