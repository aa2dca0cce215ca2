"""The cold tier (``vecfix._coldstart``): while a worker process compiles the block kernel,
``format_fixed`` runs through the scalar ``vecfix._cold_kernels.format_rows_cold``.

Its output must be byte for byte what the block kernel writes: the golden vectors and the
decimal reference through ``format_fixed`` with the tier forced on (the fixture
:func:`cold` makes every kernel call take it, and fails any call of a kernel the tier
leaves out), and the kernel itself against the block kernel in every mode of their
shared contract. Then the policy: when the tier starts its worker, how long it lasts, and
when it is not taken, with the worker start replaced by a spy. The tests that compile in
a fresh process with an empty cache run with ``VECFIX_SLOW_TESTS=1``.
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numba
import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN, any_rows, general_rows, packing_case, read_only
from hypothesis import given
from reference import reference_fixed

import vecfix
from vecfix import _cold_kernels, _coldstart, _format, _jit, _warmup
from vecfix._kernels import fixed as _kernels
from vecfix._kernels.fixed import FILL, MEASURE, PACK, PACK_AT
from vecfix._tuning import MEASURE_BELOW

NOJIT = bool(numba.config.DISABLE_JIT)
SLOW = os.environ.get("VECFIX_SLOW_TESTS", "") not in ("", "0")
ROOT = Path(__file__).resolve().parent.parent
NO_LIMIT = 2**31 - 1


def _texts(coef, exps, scales) -> list[str]:
    e = np.broadcast_to(exps, np.shape(coef)).tolist()
    s = np.broadcast_to(scales, np.shape(coef)).tolist()
    return [reference_fixed(*row) for row in zip(np.asarray(coef).tolist(), e, s, strict=True)]


@pytest.fixture
def cold(monkeypatch):
    """Every kernel call of ``format_fixed`` through the cold tier; returns the row counts
    of the cold kernel's calls. The kernels the tier does without (the block kernel, the
    extremes and widest-row kernels, the text-size count) fail if called."""
    calls: list[int] = []
    real = _cold_kernels.format_rows_cold

    def counted(start, stop, *args):
        calls.append(stop - start)
        return real(start, stop, *args)

    def left_out(*args, **kwargs):
        raise AssertionError("the cold tier ran a kernel it does not compile")

    monkeypatch.setattr(_format, "_kernel", None)
    monkeypatch.setattr(_format, "_small_entry", None)
    monkeypatch.setattr(_coldstart, "cold_tier", lambda choose, rows: True)
    monkeypatch.setattr(_cold_kernels, "format_rows_cold", counted)
    for name in ("format_rows", "extremes", "widest_of_layouts"):
        monkeypatch.setattr(_kernels, name, left_out)
    monkeypatch.setattr(_format, "_text_size", left_out)
    return calls


# --- the same bytes through the cold tier ---------------------------------------------------


@pytest.mark.golden_full
@pytest.mark.parametrize("name", ["grid", "big", "prices"])
def test_golden_vectors_through_the_cold_tier(golden, name, cold):
    """Every golden row (beyond int64: the decimal fallback) through format_fixed, per-row
    exponents and scales, matrix and Arrow layouts."""
    vec = golden[name]
    for layout in ("matrix", "arrow"):
        got = vecfix.format_fixed(vec.coef, vec.exp_array(), vec.scale_array(), layout=layout)
        bad = [(r, g) for r, g in zip(vec.rows(), got.to_list(), strict=True) if g != r[3]]
        assert bad[:5] == [], layout
    assert cold


@pytest.mark.parametrize("name", ["grid", "big", "prices"])
def test_golden_sample_through_the_cold_tier(golden, name, cold):
    """A sample of each golden file (what runs under NUMBA_DISABLE_JIT too), per-row, and
    grouped by layout (one exponent and scale a call: the column call's path)."""
    rows = list(golden[name].rows())
    rows = random.Random(name).sample(rows, min(len(rows), 600 if NOJIT else 6000))
    c, e, s, want = (list(col) for col in zip(*rows, strict=True))
    assert vecfix.format_fixed(c, np.array(e), np.array(s)).to_list() == want
    by_layout: dict[tuple[int, int], list[tuple[int, str]]] = {}
    for ci, ei, si, wi in rows:
        if INT64_MIN <= ci <= INT64_MAX:
            by_layout.setdefault((ei, si), []).append((ci, wi))
    for (ei, si), group in by_layout.items():
        if len(group) > 32:  # up to 32 rows of a layout take format_few, not the tier
            coef = np.array([ci for ci, _ in group], dtype=np.int64)
            assert vecfix.format_fixed(coef, ei, si).to_list() == [w for _, w in group]
    assert cold


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("layout", ["matrix", "arrow"])
def test_columns_nulls_and_threads_through_the_cold_tier(cold, threads, layout, monkeypatch):
    """A column of one layout (the first call of issue 14's target), per-row scales, and
    null rows, over several threads: the reference's text; no kernel but the cold one."""
    monkeypatch.setattr(_format, "MIN_ROWS_PER_THREAD", 50)
    rng = np.random.default_rng(threads)
    n = MEASURE_BELOW + 88 if NOJIT else 20_000  # (fewer rows with nulls: one kernel call)
    coef = rng.integers(-(10**13), 10**13, n, dtype=np.int64)
    coef[::7] = (coef[::7] // 10) * 10 + 5  # ties
    got = vecfix.format_fixed(coef, -9, 4, threads=threads, layout=layout)
    assert got.to_list() == _texts(coef, -9, 4)
    scales = rng.integers(-2, 12, n).astype(np.int32)
    null = int(coef[3])
    got = vecfix.format_fixed(coef, -9, scales, threads=threads, null=null, layout=layout)
    want = _texts(coef, -9, scales)
    assert got.to_list() == [None if c == null else w for c, w in zip(coef, want, strict=True)]
    assert len(cold) >= 2 * threads


def test_a_few_rows_through_the_cold_tier(cold):
    """33-511 rows of one layout (one kernel call that measures, then fills)."""
    coef = np.arange(-200, 200, dtype=np.int64) * 98_765_431
    assert vecfix.format_fixed(coef, -7, 3).to_list() == _texts(coef, -7, 3)
    assert cold == [400]


def test_width_and_too_long_rows_through_the_cold_tier(cold):
    coef = np.arange(100, dtype=np.int64) * 1_000_003 - 50_000_000
    got = vecfix.format_fixed(coef, -3, 2, width=20)
    assert got.width == 20 and got.to_list() == _texts(coef, -3, 2)
    exps = np.zeros(100, dtype=np.int32)
    exps[57] = 70_000  # past MAX_ROW_LENGTH
    with pytest.raises(ValueError, match="row 57"):
        vecfix.format_fixed(coef, exps, 2)


@given(any_rows(60))
def test_property_through_the_cold_tier(rows):
    """Any int64 rows, per-row layouts, against the reference (the tier forced on here:
    Hypothesis runs each example without function-scoped fixtures)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(_format, "_kernel", None)
        monkeypatch.setattr(_coldstart, "cold_tier", lambda choose, rows: True)
        monkeypatch.setattr(_kernels, "widest_of_layouts", None)  # would fail if called
        c, e, s = (list(col) for col in zip(*rows, strict=True))
        got = vecfix.format_fixed(c, np.array(e, dtype=np.int32), np.array(s, dtype=np.int32))
        assert got.to_list() == [reference_fixed(*row) for row in rows]


DEMO = ["demo", "--rows", "300" if NOJIT else "3000", "--instruments", "12", "--sample", "300"]


def test_demo_says_when_the_cold_tier_timed_it(cold, capsys):
    from vecfix.cli import main

    assert main(DEMO) == 0
    out = capsys.readouterr().out
    assert "same text" in out and "first run: a scalar kernel did this" in out
    assert cold


def test_demo_says_nothing_of_the_tier_when_it_did_not_run(capsys, monkeypatch):
    from vecfix.cli import main

    monkeypatch.setattr(_coldstart, "cold_tier", lambda choose, rows: False)
    assert main(DEMO) == 0
    out = capsys.readouterr().out
    assert "same text" in out and "first run" not in out


# --- the cold kernel against the block kernel, mode by mode ---------------------------------


def _run(cold_kernel: bool, start, stop, coef, exps, scales, buf, width, lengths, limit, mode):
    estep, sstep = int(exps.size > 1), int(scales.size > 1)
    args = (start, stop, coef, 1, exps, estep, scales, sstep, buf, width, lengths, limit, mode)
    if cold_kernel:
        result = _cold_kernels.format_rows_cold(*args)
    else:
        result = _kernels.format_rows(*args, *_kernels.scratch())
    return tuple(int(x) for x in result)


N = 90 if NOJIT else 3000


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("layout", ["per-row", "one exponent", "one layout"])
def test_cold_kernel_agrees_with_the_block_kernel(seed, layout):
    """Same result, lengths and matrix bytes in every mode: measuring with and without a
    limit, writing at the widest width and wider, no slack, the automatic width, a range
    of rows inside a column, no rows; and the text matches the reference."""
    coef, exps, scales = general_rows(seed, N)
    if layout != "per-row":
        exps = read_only(np.array([-9], dtype=np.int32))
    if layout == "one layout":
        scales = read_only(np.array([seed + 2], dtype=np.int32))
    want = _texts(coef, exps, scales)
    widest = max(map(len, want))
    cases = [
        (0, N, 0, 0, NO_LIMIT, MEASURE),
        (0, N, 0, 0, 21, MEASURE),  # rows beyond the limit: length 0, the first named
        (0, N, 0, 0, 9, MEASURE),
        (0, N, N * widest + 8, widest, NO_LIMIT, FILL),
        (0, N, N * widest, widest, NO_LIMIT, FILL),  # no slack after the matrix
        (0, N, N * (widest + 13) + 8, widest + 13, NO_LIMIT, FILL),
        (0, N, N * 64 + 8, -1, 64, FILL),  # the automatic width
        (N // 3, N - 5, N * widest + 8, widest, NO_LIMIT, FILL),
        (N // 3, N // 3, N * widest + 8, widest, NO_LIMIT, FILL),
    ]
    for start, stop, size, width, limit, mode in cases:
        case = (start, stop, size, width, limit, mode)
        got = []
        for cold_kernel in (False, True):
            buf = np.full(size, 0xEE, dtype=np.uint8)
            lengths = np.full(N, -7, dtype=np.int32)
            result = _run(cold_kernel, start, stop, coef, exps, scales, buf, width, lengths,
                          limit, mode)  # fmt: skip
            got.append((result, buf, lengths))
        (result, buf, lengths), (result2, buf2, lengths2) = got
        assert result == result2, case
        np.testing.assert_array_equal(lengths, lengths2, err_msg=str(case))
        used = width if width >= 0 else result[0]
        end = 0 if mode == MEASURE else stop * used
        np.testing.assert_array_equal(buf[:end], buf2[:end], err_msg=str(case))
        assert (buf2[: start * used] == 0xEE).all(), case  # nothing before the rows
        assert (buf2[end:] == 0xEE).all(), case  # nor after them: no spill at all
        if mode == FILL:
            rows = buf2[start * used : stop * used].reshape(-1, used)
            text = [bytes(r[:n]).decode() for r, n in zip(rows, lengths2[start:stop], strict=True)]
            assert text == want[start:stop], case
        if limit < NO_LIMIT:
            too_long = [i for i, t in enumerate(want) if len(t) > limit]
            assert result2[1] == (too_long[0] if too_long else -1), case


@pytest.mark.parametrize("layout", ["per-row", "one layout"])
def test_cold_kernel_packs_arrow_layout(layout):
    """``PACK`` (back to back from ``start * width``) and ``PACK_AT`` (at the ends given)
    as the block kernel packs them, for a range of rows inside a column."""
    coef, exps, scales, want, width, ends = packing_case(7, N, layout, _texts)
    for start, stop in ((0, N), (N // 3, N - 5)):
        text = "".join(want[start:stop]).encode()
        for mode in (PACK, PACK_AT):
            got = []
            for cold_kernel in (False, True):
                buf = np.full(N * width + 8, 0xEE, dtype=np.uint8)
                lengths = ends.copy() if mode == PACK_AT else np.full(N, -7, dtype=np.int32)
                result = _run(cold_kernel, start, stop, coef, exps, scales, buf, width, lengths,
                              NO_LIMIT, mode)  # fmt: skip
                got.append((result, buf, lengths))
            (result, buf, lengths), (result2, buf2, lengths2) = got
            at = start * width if mode == PACK else (int(ends[start - 1]) if start else 0)
            assert result == result2 == (max(map(len, want[start:stop])), -1)
            np.testing.assert_array_equal(lengths[start:stop], lengths2[start:stop])
            assert bytes(buf2[at : at + len(text)]) == text == bytes(buf[at : at + len(text)])
            assert (buf2[at + len(text) :] == 0xEE).all()  # byte-exact: nothing after


# --- the policy -----------------------------------------------------------------------------


class _Cache:
    _cache_file = object()


class _ColdKernel:
    """A kernel with no code in this process and an on-disk cache (said to be empty)."""

    def __init__(self) -> None:
        self.overloads: dict = {}
        self._cache = _Cache()


class _Worker:
    """A stand-in for the worker's ``Popen``: running until ``done`` is set, or a wait of
    more than no time ends it (one of no time runs out)."""

    def __init__(self, status: int = 0) -> None:
        self.done, self.status, self.killed = False, status, False
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.done and self.returncode is None:
            self.returncode = self.status
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self.done:
            if timeout is not None and timeout <= 0:
                raise subprocess.TimeoutExpired("worker", timeout)
            self.done = True
        return self.poll()  # type: ignore[return-value]

    def kill(self) -> None:
        self.killed = self.done = True
        self.status = -9


@pytest.fixture
def tier(monkeypatch):
    """A fresh tier state, on, with the cache on, the kernel cold on disk, and the worker
    start replaced by a spy; returns the list of ``(groups, nice)`` started and the
    workers handed out."""
    started: list = []
    workers: list[_Worker] = []

    def start(groups, nice=0):
        started.append(([g.name for g in groups], nice))
        worker = _Worker()
        workers.append(worker)
        return worker

    monkeypatch.setattr(_coldstart, "ENABLED", True)
    monkeypatch.setattr(_coldstart, "_worker", None)
    monkeypatch.setattr(_coldstart, "_settled", False)
    monkeypatch.setattr(_coldstart, "cached_on_disk", lambda kernel: False)
    monkeypatch.setattr(_jit, "CACHE", True)
    monkeypatch.setattr(numba.config, "DISABLE_JIT", False)
    monkeypatch.delenv("VECFIX_WARMUP_WORKERS", raising=False)
    monkeypatch.setattr(_warmup, "_start", start)
    return started, workers


def test_the_tier_lasts_while_its_worker_compiles(tier):
    """One worker; the kernel is chosen once (the choice costs 0.3 ms: not per call)."""
    started, workers = tier
    chosen: list[_ColdKernel] = []

    def choose():
        chosen.append(_ColdKernel())
        return chosen[-1]

    assert _coldstart.cold_tier(choose, 100_000)
    assert started == [(["format", "layouts"], _coldstart.WORKER_NICE)]
    assert _coldstart.compiling_in_background()
    for _ in range(3):
        assert _coldstart.cold_tier(choose, 100_000)  # the same worker, still compiling
    workers[0].done = True
    assert not _coldstart.cold_tier(choose, 100_000)  # done: the block kernel from now on
    assert not _coldstart.compiling_in_background()
    assert not _coldstart.cold_tier(choose, 10)
    assert len(started) == 1 and not workers[0].killed
    assert len(chosen) == 1


def test_a_failed_worker_ends_the_tier(tier):
    started, workers = tier
    assert _coldstart.cold_tier(_ColdKernel, 1000)
    workers[0].done, workers[0].status = True, 3
    assert not _coldstart.cold_tier(_ColdKernel, 1000)  # compiled here from now on
    assert len(started) == 1


def test_a_worker_past_its_time_is_killed_and_ends_the_tier(tier, monkeypatch):
    _, workers = tier
    assert _coldstart.cold_tier(_ColdKernel, 1000)
    monkeypatch.setattr(_warmup, "WORKER_TIMEOUT", -1.0)
    assert not _coldstart.cold_tier(_ColdKernel, 1000)
    assert workers[0].killed


def test_a_large_call_waits_for_the_worker(tier, monkeypatch):
    """Past COLD_TIER_ROWS a call waits for a running worker, and starts none itself."""
    from vecfix import _tuning

    started, workers = tier
    monkeypatch.setattr(_tuning, "COLD_TIER_ROWS", 1000)
    assert _coldstart.cold_tier(_ColdKernel, 1000)
    assert not _coldstart.cold_tier(_ColdKernel, 1001)
    assert workers[0].done and not workers[0].killed  # waited for, not killed
    assert len(started) == 1


@pytest.mark.parametrize(
    "why",
    ["off", "large", "no cache", "jit off", "no workers", "compiled here", "on disk", "no start"],
)
def test_when_the_tier_is_not_taken(tier, monkeypatch, why):
    """Each reason: no worker starts, the call compiles here, and the tier is over."""
    from vecfix import _tuning

    started, _ = tier
    kernel = _ColdKernel()
    rows = 1000
    if why == "off":
        monkeypatch.setattr(_coldstart, "ENABLED", False)
    elif why == "large":
        rows = _tuning.COLD_TIER_ROWS + 1
    elif why == "no cache":
        monkeypatch.setattr(_jit, "CACHE", False)
    elif why == "jit off":
        monkeypatch.setattr(numba.config, "DISABLE_JIT", True)
    elif why == "no workers":
        monkeypatch.setenv("VECFIX_WARMUP_WORKERS", "0")
    elif why == "compiled here":
        kernel.overloads = {("int64",): object()}
    elif why == "on disk":
        monkeypatch.setattr(_coldstart, "cached_on_disk", lambda kernel: True)
    else:
        monkeypatch.setattr(_warmup, "_start", lambda groups, nice=0: started.append(1))
    assert not _coldstart.cold_tier(lambda: kernel, rows)
    assert started == ([1] if why == "no start" else [])
    monkeypatch.setattr(_coldstart, "ENABLED", True)
    monkeypatch.setattr(_jit, "CACHE", True)
    assert not _coldstart.cold_tier(_ColdKernel, 10)  # decided once a process


def test_a_kernel_without_an_on_disk_cache_takes_no_tier(tier):
    started, _ = tier

    class Uncached:
        def __init__(self) -> None:
            self.overloads: dict = {}

    assert not _coldstart.cold_tier(Uncached, 10)
    assert started == []


def test_settle_waits_for_the_worker(tier):
    started, workers = tier
    assert _coldstart.cold_tier(_ColdKernel, 10)
    _coldstart.settle()
    assert len(started) == 1 and workers[0].done and not workers[0].killed
    assert not _coldstart.cold_tier(_ColdKernel, 10)


def test_warmup_ends_the_tier(tier, monkeypatch):
    started, workers = tier
    assert _coldstart.cold_tier(_ColdKernel, 10)
    monkeypatch.setenv("VECFIX_WARMUP_WORKERS", "0")  # no warm-up workers of its own
    vecfix.warmup(everything=False)
    assert workers[0].done and not _coldstart.compiling_in_background()
    assert len(started) == 1


def test_format_fixed_switches_to_the_block_kernel_when_the_tier_ends(monkeypatch):
    """The calls run the cold kernel while the tier says so, then the block kernel, which
    ``_format`` keeps from then on (no more asking)."""
    answers = [True, True, False]
    asked: list[int] = []

    def tier(choose, rows):
        asked.append(rows)
        return answers.pop(0)

    calls: list[int] = []
    real = _cold_kernels.format_rows_cold
    monkeypatch.setattr(
        _cold_kernels,
        "format_rows_cold",
        lambda start, stop, *a: calls.append(stop - start) or real(start, stop, *a),
    )
    monkeypatch.setattr(_format, "_kernel", None)
    monkeypatch.setattr(_format, "_small_entry", None)
    monkeypatch.setattr(_coldstart, "cold_tier", tier)
    coef = np.arange(1000, dtype=np.int64) * 12_345 - 6_000_000
    want = _texts(coef, -4, 2)
    assert vecfix.format_fixed(coef, -4, 2, threads=1).to_list() == want  # extremes, rows
    assert calls == [1000] and _format._kernel is None
    assert vecfix.format_fixed(coef, -4, 2, threads=1).to_list() == want
    assert calls == [1000] and _format._kernel is _format._chosen()
    assert vecfix.format_fixed(coef, -4, 2, threads=1).to_list() == want
    assert asked == [1000, 1000, 1000] and calls == [1000]


def test_a_worker_compiles_the_block_kernel_never_the_cold_one(monkeypatch):
    monkeypatch.setattr(_coldstart, "ENABLED", True)
    monkeypatch.setattr(_jit, "CACHE", True)
    try:
        assert _warmup._worker(["nice=0"]) == 0
        assert not gc.isenabled()  # a worker compiles and ends: it never collects
    finally:
        gc.enable()
    assert _coldstart.ENABLED is False


def test_the_tier_groups_name_kernels_that_exist():
    for group in _warmup._TIER_GROUPS:
        for kernel in _warmup._dispatchers(group.module, group.kernels):
            assert callable(kernel), (group.name, kernel)
    assert _warmup._TIER_GROUPS[0].name == "format"
    assert "format_rows" in _warmup._TIER_GROUPS[0].kernels


# --- fresh processes, empty cache -----------------------------------------------------------

slow = pytest.mark.skipif(
    NOJIT or not SLOW, reason="set VECFIX_SLOW_TESTS=1 (compiles in fresh processes)"
)

FIRST_CALLS = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import vecfix
    from vecfix import _coldstart, _format
    from vecfix._kernels import fixed as _kernels
    px = (np.arange(100_000, dtype=np.int64) - 50_000) * 1_234_567
    first = vecfix.format_fixed(px, -9, 4)
    cold = _format._kernel is None
    background = _coldstart.compiling_in_background()
    compiled_here = sum(_kernels.format_rows.stats.cache_misses.values())
    _coldstart.settle()  # wait for the worker
    second = vecfix.format_fixed(px, -9, 4)
    print(json.dumps({
        "cold": cold, "background": background, "compiled_here": compiled_here,
        "same": first.matrix.tobytes() == second.matrix.tobytes(),
        "lengths": (first.lengths == second.lengths).all().item(),
        "head": first.to_list()[:2],
        "misses": sum(_kernels.format_rows.stats.cache_misses.values()),
        "hits": sum(_kernels.format_rows.stats.cache_hits.values()),
    }))
    """
)


def _fresh(args: list[str], cache: Path, **env: str) -> subprocess.CompletedProcess:
    """``python *args`` with ``NUMBA_CACHE_DIR=cache``; waits for the worker processes it
    leaves behind too (they run in its session), so that they are done on return."""
    full = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(cache))
    full.pop("NUMBA_DISABLE_JIT", None)
    full.pop("VECFIX_WARMUP_WORKERS", None)
    full.update(env)
    proc = subprocess.Popen(
        [sys.executable, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full,
        start_new_session=True,
    )
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)  # a process of its session still runs
        except ProcessLookupError:
            break
        time.sleep(0.1)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@slow
def test_first_call_on_an_empty_cache_runs_cold_then_loads_the_block_kernel(tmp_path):
    got = json.loads(_fresh(["-c", FIRST_CALLS], tmp_path).stdout.splitlines()[-1])
    assert got["cold"] and got["background"] and got["compiled_here"] == 0
    assert got["head"] == ["-61.7284", "-61.7271"]
    assert got["same"] and got["lengths"]
    assert got["misses"] == 0 and got["hits"] >= 1  # loaded what the worker wrote
    # with no worker allowed: compiled here, as without the tier
    none = _fresh(["-c", FIRST_CALLS], tmp_path / "none", VECFIX_WARMUP_WORKERS="0")
    got = json.loads(none.stdout.splitlines()[-1])
    assert not got["cold"] and got["compiled_here"] >= 1 and got["same"]


@slow
def test_demo_on_an_empty_cache_runs_the_cold_tier_and_leaves_the_cache_warm(tmp_path):
    args = ["-m", "vecfix", "demo", "--rows", "20000", "--instruments", "20"]
    first = _fresh(args, tmp_path)  # returns once the worker it started is done too
    assert first.stderr.startswith("vecfix: compiling kernels, first run only")
    assert "same text" in first.stdout and "first run: a scalar kernel" in first.stdout
    again = _fresh(args, tmp_path)
    assert "same text" in again.stdout and "first run" not in again.stdout
    assert "compiling" not in again.stderr
