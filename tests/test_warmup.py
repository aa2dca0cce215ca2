"""``vecfix.warmup()``: its kernel groups, the split over worker processes, and the cold
compile shared with them through Numba's on-disk cache.

The tests that compile every kernel run scripts in fresh interpreters with an empty
``NUMBA_CACHE_DIR`` of their own (each takes 10-20 s on 2 cores); they run when
``VECFIX_SLOW_TESTS=1`` (the CI does this in a step of its own). What a process compiled
and what it loaded is read from Numba's counters (``dispatcher.stats``): a cache hit is a
load from disk, a cache miss a compile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numba
import pytest

from vecfix import _format, _jit, _warmup
from vecfix._warmup import _FRAMING, _GROUPS, order, worker_count

NOJIT = bool(numba.config.DISABLE_JIT)
SLOW = os.environ.get("VECFIX_SLOW_TESTS", "") not in ("", "0")
ROOT = Path(__file__).resolve().parent.parent
slow = pytest.mark.skipif(
    NOJIT or not SLOW, reason="set VECFIX_SLOW_TESTS=1 (compiles every kernel in a fresh cache)"
)

# --- the split: workers take the groups from the front, this process from the back -------


def test_the_order_puts_the_message_builders_first_then_the_longest():
    ordered = order(_GROUPS)
    assert sorted(g.name for g in ordered) == sorted(g.name for g in _GROUPS)
    framed = [g.framed for g in ordered]
    assert framed == sorted(framed, reverse=True)  # every message builder before the rest
    for part in ([g for g in ordered if g.framed], [g for g in ordered if not g.framed]):
        assert [g.seconds for g in part] == sorted((g.seconds for g in part), reverse=True)


def test_a_group_is_claimed_once(tmp_path):
    group = _GROUPS[0]
    assert _warmup.claim(str(tmp_path), group, "worker")
    assert not _warmup.claim(str(tmp_path), group, "here")
    assert _warmup.claims(str(tmp_path)) == {group.name: "worker"}
    assert not _warmup.claim(str(tmp_path / "gone"), _GROUPS[1], "here")  # no folder: no claim


def fake_workers(monkeypatch, takes: int) -> list:
    """``_start`` replaced by an in-process worker that claims the first ``takes`` groups
    it can from the front before this process compiles anything (as if it had compiled
    them into the cache); returns the names it took."""
    taken: list = []

    class Done:
        returncode = 0

        def poll(self):
            return 0

        def wait(self, timeout=None):
            return 0

    def start(share, nice=0, folder=None):
        assert folder is not None  # workers share out the groups through claims
        for g in share:
            if len(taken) < takes and _warmup.claim(folder, g, "worker"):
                taken.append(g.name)
        return Done()

    monkeypatch.setattr(_warmup, "_start", start)
    return taken


def recorded_groups(monkeypatch) -> tuple[list, tuple]:
    """One worker allowed, every group cold, and each group's run replaced by a note of
    its name: the names run here, in order, and the groups."""
    monkeypatch.setenv("VECFIX_WARMUP_WORKERS", "1")
    monkeypatch.setattr(_warmup, "_cold", lambda group: True)
    monkeypatch.setattr(_jit, "CACHE", True)
    ran: list = []
    groups = tuple(g._replace(run=lambda g=g: ran.append(g.name)) for g in _GROUPS)
    monkeypatch.setattr(_warmup, "_GROUPS", groups)
    monkeypatch.setattr(_warmup, "_BY_NAME", {g.name: g for g in groups})
    return ran, groups


@pytest.mark.parametrize("takes", [0, 3, len(_GROUPS)])
def test_workers_and_this_process_share_every_group_once(monkeypatch, takes):
    ran, groups = recorded_groups(monkeypatch)
    taken = fake_workers(monkeypatch, takes)
    assert _warmup.warmup() >= 0
    if NOJIT:  # no workers without the JIT: every group runs here
        assert sorted(ran) == sorted(g.name for g in groups)
        return
    ordered = [g.name for g in order(groups)]
    assert taken == ordered[:takes]  # the workers took from the front
    # this process: the rest from the back, then (loading) what the workers compiled
    assert ran == ordered[takes:][::-1] + ordered[:takes]
    claimed = _warmup.last_claims
    assert sorted(claimed) == sorted(ordered)
    assert {n for n, who in claimed.items() if who == "worker"} == set(taken)


def test_the_named_kernels_exist():
    """Every kernel a group or the format estimate names is a kernel of its module (a
    renamed one would count as cold for ever, and start workers for nothing)."""
    named = [(g.module, k) for g in _GROUPS for k in g.kernels]
    named += [("_kernels.fix", k) for k in _FRAMING]
    named += [("_kernels.fixed", k) for k in _warmup._FORMAT_KERNELS]
    for module, name in named:
        (kernel,) = _warmup._dispatchers(module, [name])
        assert callable(kernel), f"{module}.{name}"
    assert _warmup._dispatchers("_kernels.fixed", ["no_such_kernel"]) == [None]


@pytest.mark.parametrize(
    ("idle", "total", "workers"),
    [
        (1600, 1600, 15),  # an idle machine (16 cores): every core but this process's
        (1200, 1600, 11),  # four cores busy now
        (1150, 1600, 10),  # four and a half: rounded up
        (0, 1600, 0),  # all busy: compile here
    ],
)
def test_worker_count_watches_the_cpu_times(monkeypatch, idle, total, workers):
    """On Linux the idle cores are those of the last moment (``/proc/stat`` over a
    twentieth of a second), not the 1-minute load average, which lags a burst of work by
    a minute."""
    monkeypatch.delenv("VECFIX_WARMUP_WORKERS", raising=False)
    monkeypatch.setattr(_format, "usable_cores", lambda: 16)
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    monkeypatch.setattr(os, "getloadavg", lambda: (16.0, 16.0, 16.0), raising=False)  # unread
    samples = iter([(5000, 90000), (5000 + idle, 90000 + total)])
    monkeypatch.setattr(_warmup, "_cpu_times", lambda: next(samples))
    monkeypatch.setattr(_warmup, "time", FakeClock(own=0.0))
    assert worker_count() == workers


class FakeClock:
    """``time`` for :func:`vecfix._warmup.busy_cores`: ``sleep`` moves the clock, and this
    process spends ``own`` cores of CPU time meanwhile."""

    def __init__(self, own: float) -> None:
        self.now, self.own = 0.0, own

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def perf_counter(self) -> float:
        return self.now

    def process_time(self) -> float:
        return self.now * self.own


@pytest.mark.parametrize(("own", "busy"), [(0.0, 1.0), (1.0, 0.0), (2.0, 0.0)])
def test_busy_cores_leaves_out_this_process(monkeypatch, own, busy):
    """One core of two busy during the sample: another process's (1 busy), or this
    process's own threads (none busy: they are not other work)."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    samples = iter([(0, 0), (100, 200)])  # half of the two cores' time idle
    monkeypatch.setattr(_warmup, "_cpu_times", lambda: next(samples))
    monkeypatch.setattr(_warmup, "time", FakeClock(own=own))
    assert _warmup.busy_cores() == pytest.approx(busy)


def test_a_sample_started_earlier_is_not_slept_through_again(monkeypatch):
    """:func:`warmup` starts the sample, then imports and checks the cache: by the time it
    asks, the twentieth of a second has passed, and nothing more is waited."""
    clock = FakeClock(own=0.5)  # this process busy half the time meanwhile
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    samples = iter([(0, 0), (50, 200)])  # three quarters of the two cores' time busy
    monkeypatch.setattr(_warmup, "_cpu_times", lambda: next(samples))
    monkeypatch.setattr(_warmup, "time", clock)
    sample = _warmup.start_sample()
    clock.now += 0.2  # the imports
    slept = []
    monkeypatch.setattr(clock, "sleep", slept.append)
    assert _warmup.busy_cores(sample) == pytest.approx(1.0)  # 1.5 busy, 0.5 of them ours
    assert slept == []


def test_a_finished_group_is_loaded_without_waiting_for_its_worker(monkeypatch):
    """A worker that has compiled the groups it claimed but has not yet exited (its exit
    takes a tenth of a second or two): this process loads them at once, and the worker is
    stopped."""
    ran, groups = recorded_groups(monkeypatch)
    workers = []

    class Lingering:  # finished its groups, still running
        returncode = None

        def poll(self):
            return self.returncode

        def wait(self, timeout=None):
            raise AssertionError("waited for the worker process to end")

        def kill(self):
            self.returncode = -9
            self.wait = lambda timeout=None: -9

    def start(share, nice=0, folder=None):
        taken = share[:3]
        for g in taken:
            assert _warmup.claim(folder, g, "worker")
            _warmup.finished(folder, g)
        workers.append(Lingering())
        return workers[-1]

    monkeypatch.setattr(_warmup, "_start", start)
    monkeypatch.setattr(_warmup, "WORKER_TIMEOUT", 60.0)
    began = time.monotonic()
    assert _warmup.warmup() >= 0
    assert time.monotonic() - began < 30  # not the time limit
    if NOJIT:
        return
    assert workers and workers[0].returncode == -9  # stopped once its groups were loaded
    taken = [g.name for g in order(groups)[:3]]
    assert sorted(ran) == sorted(g.name for g in groups)
    assert ran[-3:] == taken  # loaded here last, from the cache the worker wrote
    assert {n for n, who in _warmup.last_claims.items() if who == "worker"} == set(taken)


def test_cpu_times_of_this_machine():
    times = _warmup._cpu_times()
    if times is None:
        pytest.skip("no /proc/stat here")
    idle, total = times
    assert 0 <= idle <= total and total > 0


def test_worker_count_reads_the_environment(monkeypatch):
    monkeypatch.setenv("VECFIX_WARMUP_WORKERS", "3")
    assert worker_count() == 3
    monkeypatch.setenv("VECFIX_WARMUP_WORKERS", "0")
    assert worker_count() == 0
    monkeypatch.delenv("VECFIX_WARMUP_WORKERS")
    assert worker_count() >= 0
    monkeypatch.setattr(_format, "usable_cores", lambda: 16)
    monkeypatch.setattr(_warmup, "_cpu_times", lambda: None)  # no /proc/stat: load average
    monkeypatch.setattr(os, "getloadavg", lambda: (0.3, 0.2, 0.1), raising=False)
    assert worker_count() == 15  # an idle machine: every core but this process's
    monkeypatch.setattr(os, "getloadavg", lambda: (3.4, 5.0, 5.0), raising=False)
    assert worker_count() == 12  # three cores busy with other work
    monkeypatch.setattr(os, "getloadavg", lambda: (40.0, 5.0, 5.0), raising=False)
    assert worker_count() == 0  # all busy: compile here, as a worker would only add work
    monkeypatch.setenv("VECFIX_WARMUP_WORKERS", "4")
    assert worker_count() == 4  # the variable overrides the load
    monkeypatch.delenv("VECFIX_WARMUP_WORKERS")

    def no_load_average():
        raise OSError("no load average")

    monkeypatch.setattr(os, "getloadavg", no_load_average, raising=False)
    assert worker_count() == 15
    monkeypatch.setattr(_format, "usable_cores", lambda: 1)
    assert worker_count() == 0
    for bad in ("-1", "two", "1.5"):
        monkeypatch.setenv("VECFIX_WARMUP_WORKERS", bad)
        with pytest.raises(ValueError, match=f"VECFIX_WARMUP_WORKERS .* got {bad!r}"):
            worker_count()


def test_a_worker_past_its_time_is_killed():
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    start = time.monotonic()
    _warmup._wait([sleeper], 0.5)
    assert sleeper.returncode is not None and sleeper.returncode != 0
    assert time.monotonic() - start < 30


def test_warmup_starts_no_worker_when_told_not_to(monkeypatch):
    started = []
    monkeypatch.setenv("VECFIX_WARMUP_WORKERS", "0")
    monkeypatch.setattr(_warmup, "_start", lambda share, **_: started.append(share))
    assert _warmup.warmup() >= 0
    assert _warmup.warmup(everything=False) >= 0
    assert started == []


def test_no_worker_from_a_program_that_is_not_python(monkeypatch):
    monkeypatch.setattr(sys, "executable", "/usr/bin/uwsgi")
    assert _warmup._start(_GROUPS[:1]) is None
    monkeypatch.setattr(sys, "executable", "")
    assert _warmup._start(_GROUPS[:1]) is None


def test_no_worker_from_a_frozen_app(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert _warmup._start(_GROUPS[:1]) is None


def _workers_that_cannot_start(monkeypatch, workers: int) -> tuple[list, list]:
    """``VECFIX_WARMUP_WORKERS=workers``, every group cold, and no worker able to start:
    ``(asked, ran)``, the shares offered to workers and the groups run here, by name."""
    asked: list = []
    ran: list = []

    def cannot(share, nice=0, folder=None):
        asked.append([g.name for g in share])
        return None

    monkeypatch.setenv("VECFIX_WARMUP_WORKERS", str(workers))
    monkeypatch.setattr(_warmup, "_start", cannot)
    monkeypatch.setattr(_warmup, "_cold", lambda group: True)
    monkeypatch.setattr(_jit, "CACHE", True)
    groups = tuple(g._replace(run=lambda g=g: ran.append(g.name) or g.run()) for g in _GROUPS)
    monkeypatch.setattr(_warmup, "_GROUPS", groups)
    monkeypatch.setattr(_warmup, "_BY_NAME", {g.name: g for g in groups})
    return asked, ran


def test_a_worker_that_cannot_start_leaves_its_share_here(monkeypatch):
    asked, ran = _workers_that_cannot_start(monkeypatch, 2)
    assert _warmup.warmup() >= 0
    if not NOJIT:
        assert asked  # a share was offered to a worker
    assert sorted(ran) == sorted(g.name for g in _GROUPS)  # and every group ran here once


def test_no_worker_when_numba_cannot_cache(monkeypatch):
    """No cache directory Numba can use (its kernels then compile with ``cache=False``):
    a worker's compile would be lost, so none starts."""
    started = []
    monkeypatch.setenv("VECFIX_WARMUP_WORKERS", "2")
    monkeypatch.setattr(_jit, "CACHE", True)
    monkeypatch.setattr(_warmup, "_start", lambda share, **_: started.append(share))
    monkeypatch.setattr(_warmup, "_cold", lambda group: True)
    real = _warmup._dispatchers
    uncached = lambda module, names: (  # noqa: E731
        [object() for _ in names] if module == "_kernels.fixed" else real(module, names)
    )
    monkeypatch.setattr(_warmup, "_dispatchers", uncached)
    assert _warmup.warmup() >= 0
    assert started == []


# --- fresh processes -------------------------------------------------------------------------

PRELUDE = textwrap.dedent(
    """
    import importlib, json, os, sys
    from numba.core.registry import CPUDispatcher
    import vecfix
    import vecfix._warmup as w

    MODULES = ("_kernels.fixed", "_kernels.fix", "_kernels.text", "_arrow", "_measure")

    def kernels():
        for m in MODULES:
            module = importlib.import_module("vecfix." + m)
            for name, obj in vars(module).items():
                if isinstance(obj, CPUDispatcher) and obj.__module__ == module.__name__:
                    if obj.targetoptions.get("inline") != "always":
                        yield m + "." + name, obj

    def compiled():
        return {name for name, k in kernels() if k.signatures}

    def stats():
        return {
            "misses": sorted(n for n, k in kernels() if sum(k.stats.cache_misses.values())),
            "hits": sorted(n for n, k in kernels() if sum(k.stats.cache_hits.values())),
        }

    workers = []
    start = w._start
    def spy(share, **kw):
        proc = start(share, **kw)
        workers.append({"groups": [g.name for g in share], "proc": proc})
        return proc
    w._start = spy
    """
)


def run(code: str, env: dict[str, str]) -> dict:
    full = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    full.pop("NUMBA_DISABLE_JIT", None)
    proc = subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full,
        cwd=ROOT,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@slow
def test_each_group_compiles_its_own_kernels_and_the_public_calls_nothing_more():
    """Cache off: each group, run alone in order, compiles only the kernels it names (never
    the format kernels: a worker must not compile them again); then the format kernels and
    the public calls on integers compile nothing but the format kernels, so the groups
    cover every signature the public API uses; and no worker is started."""
    got = run(
        """
        groups = {}
        for g in w._GROUPS:
            before = compiled()
            g.run()
            groups[g.name] = sorted(compiled() - before)
        before = compiled()
        w._public_calls(w._format_calls())
        public = sorted(compiled() - before)
        vecfix.warmup()
        print(json.dumps({"groups": groups, "public": public, "workers": len(workers),
                          "left": sorted(n for n, k in kernels() if not k.signatures)}))
        """,
        {"VECFIX_NUMBA_CACHE": "0", "VECFIX_WARMUP_WORKERS": "2"},
    )
    assert got["workers"] == 0
    for g in _GROUPS:
        named = {f"{g.module}.{k}" for k in g.kernels + (_FRAMING if g.framed else ())}
        # a kernel called only from inside others (a leading "_": _row_length within
        # widest_of_layouts) compiles with its caller, unnamed
        inner = {k for k in got["groups"][g.name] if k.split(".")[1].startswith("_")}
        assert set(got["groups"][g.name]) - inner <= named, g.name
        assert set(got["groups"][g.name]) >= {f"{g.module}.{k}" for k in g.kernels}, g.name
    assert {k.rsplit(".", 1)[0] for k in got["public"]} == {"_kernels.fixed"}
    assert "_kernels.fixed.format_rows" in got["public"]
    # _row_length and _write_row are called only from inside format_rows
    assert not [k for k in got["left"] if not k.split(".")[1].startswith("_")]


@slow
def test_workers_fill_the_cache_and_this_process_loads_their_kernels(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "VECFIX_WARMUP_WORKERS": "2"}
    got = run(
        """
        vecfix.warmup()
        print(json.dumps({**stats(), "claims": w.last_claims, "workers": [
            {"groups": x["groups"], "status": x["proc"].returncode} for x in workers]}))
        """,
        env,
    )
    assert 1 <= len(got["workers"]) <= 2
    assert all(x["status"] == 0 for x in got["workers"])
    by_worker = {name for name, who in got["claims"].items() if who != "here"}
    theirs = {f"{g.module}.{k}" for g in _GROUPS if g.name in by_worker for k in g.kernels}
    assert theirs and theirs <= set(got["hits"])  # loaded from what the workers wrote
    assert not theirs & set(got["misses"])  # not compiled here
    assert "_kernels.fixed.format_rows" in got["misses"]  # this process compiled its own share
    # A fresh process loads everything and starts no worker.
    again = run(
        """
        vecfix.warmup()
        print(json.dumps({**stats(), "workers": len(workers)}))
        """,
        env,
    )
    assert again["misses"] == [] and again["workers"] == 0
    assert set(again["hits"]) >= theirs | {"_kernels.fixed.format_rows"}


@slow
@pytest.mark.parametrize("worker", ["import sys; sys.exit(3)", "import time; time.sleep(600)"])
def test_failed_workers_leave_the_compile_to_this_process(tmp_path, worker):
    """A worker that fails at once, or hangs past the time limit: this process compiles
    their groups itself and every kernel works."""
    got = run(
        f"""
        w._WORKER_CODE = {worker!r}
        w.WORKER_TIMEOUT = 2.0
        vecfix.warmup()
        import numpy as np, vecfix.fix as fix
        msgs = fix.incremental(0, 0, ["X"], [15], [2], price_exponent=-1, price_scale=2,
                               size_exponent=0, size_scale=0, sender="S", target="T",
                               sending_time="20260101-00:00:00.000")
        print(json.dumps({{**stats(), "msg": msgs[0].decode(), "left": sorted(
            n for n, k in kernels() if not k.signatures and not n.split(".")[1].startswith("_")
        ), "status": [x["proc"].returncode for x in workers]}}))
        """,
        {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "VECFIX_WARMUP_WORKERS": "2"},
    )
    assert got["status"] and all(s != 0 for s in got["status"])
    assert got["left"] == []
    assert got["hits"] == []  # nothing on disk to load: everything compiled here
    assert "279=0\x01269=0\x0155=X\x01270=1.50\x01271=2\x01" in got["msg"]


def test_format_only_warmup_offers_the_layouts_group_to_a_worker(monkeypatch):
    """``warmup(everything=False)`` (what ``vecfix demo`` runs) may hand the widest-row
    kernel of per-row exponents to a worker, and nothing else; a worker that cannot start
    leaves it here, where it runs once, and no other group runs."""
    asked, ran = _workers_that_cannot_start(monkeypatch, 1)
    from vecfix import _coldstart

    monkeypatch.setattr(_coldstart, "cached_on_disk", lambda kernel: False)  # all to compile
    assert _warmup.warmup(everything=False) >= 0
    if not NOJIT:
        assert asked == [["layouts"]]
    assert ran == ["layouts"]
