"""Which engine runs a call (vecfix._engine): plain Python for small work, the compiled
kernels once they pay, a background compile the first time on a machine; and what a
fresh process imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numba
import numpy as np
import pytest
from reference import reference_fixed

import vecfix
from vecfix import _engine, _tuning

ROOT = Path(__file__).resolve().parents[1]
NOJIT = bool(numba.config.DISABLE_JIT)
SLOW = os.environ.get("VECFIX_SLOW_TESTS") == "1"


@pytest.fixture
def fresh_state(monkeypatch):
    """A process that has not loaded the kernels, in ``auto`` mode, with its budget whole;
    loading and the cache stubbed: ``calls`` records them."""
    state = {"loaded": False, "budget": _tuning.KERNEL_LOAD_COST, "mode": "auto"}
    monkeypatch.setattr(_engine, "_state", state)
    calls: list[str] = []

    def load():
        calls.append("load")
        state["loaded"] = True

    monkeypatch.setattr(_engine, "load", load)
    monkeypatch.setattr(_engine, "ready", lambda name="fixed": True)
    monkeypatch.setattr(_engine, "compiling", lambda: calls.append("compiling") or True)
    return state, calls


def test_forced_engines():
    with _engine.forced("python"):
        assert not _engine.kernels_for(10**9)
        assert not _engine.loaded()
    with _engine.forced("kernels"):
        assert _engine.kernels_for(1)
    with pytest.raises(ValueError, match="VECFIX_ENGINE must be auto, python or kernels"):
        with _engine.forced("gpu"):
            pass


def test_small_work_runs_in_python_until_it_would_have_paid_for_the_kernels(fresh_state):
    state, calls = fresh_state
    rows = int(_tuning.KERNEL_LOAD_COST / _tuning.PYTHON_ROW_COST) // 4  # a quarter each
    assert [_engine.kernels_for(rows) for _ in range(4)] == [False] * 4
    assert calls == []
    assert _engine.kernels_for(rows)  # the fifth: the budget is spent, the kernels load
    assert calls == ["load"] and state["loaded"]
    assert _engine.kernels_for(1)  # from now on, every call
    assert calls == ["load"]


def test_a_large_first_call_loads_the_kernels_at_once(fresh_state):
    _, calls = fresh_state
    rows = int(_tuning.KERNEL_LOAD_COST / _tuning.PYTHON_ROW_COST) + 1
    assert _engine.kernels_for(rows)
    assert calls == ["load"]


def test_converting_a_result_made_in_python_costs_no_python_work(fresh_state):
    state, calls = fresh_state
    out = vecfix.format_fixed(np.array([125, None, -5], dtype=object), -2, 1)
    left = state["budget"]
    assert out.to_polars().to_list() == ["1.3", None, "-0.1"]  # (NumPy work: no budget)
    assert out.to_arrow().to_pylist() == ["1.3", None, "-0.1"]
    assert out.to_bytes(b",", null=b"-") == b"1.3,-,-0.1"
    assert state["budget"] == left and calls == []


def test_cold_cache_python_while_a_child_compiles(fresh_state, monkeypatch):
    state, calls = fresh_state
    monkeypatch.setattr(_engine, "ready", lambda name="fixed": False)
    state["budget"] = 0.0
    assert not _engine.kernels_for(100_000)  # Python, and a child compiles
    assert calls == ["compiling"]
    monkeypatch.setattr(_engine, "ready", lambda name="fixed": True)  # the child is done
    assert _engine.kernels_for(100_000)
    assert calls == ["compiling", "load"]


def test_cold_cache_call_too_large_for_python_waits_for_the_kernels(fresh_state, monkeypatch):
    _state, calls = fresh_state
    monkeypatch.setattr(_engine, "ready", lambda name="fixed": False)
    rows = int(_tuning.KERNEL_COMPILE_COST / _tuning.PYTHON_ROW_COST) + 1
    assert _engine.kernels_for(rows)
    assert calls == ["load"]


def test_no_cache_to_fill_compiles_here(fresh_state, monkeypatch):
    state, calls = fresh_state
    monkeypatch.setattr(_engine, "ready", lambda name="fixed": False)
    monkeypatch.setattr(_engine, "compiling", lambda: False)
    state["budget"] = 0.0
    assert _engine.kernels_for(1000)
    assert calls == ["load"]


@pytest.mark.parametrize("engine", ["python", "kernels"])
def test_both_engines_print_the_same_text(engine):
    rng = np.random.default_rng(7)
    coef = rng.integers(-(10**15), 10**15, 300)
    exps = rng.integers(-12, 4, 300).astype(np.int32)
    scales = rng.integers(-2, 9, 300).astype(np.int32)
    want = [
        reference_fixed(int(c), int(e), int(s)) for c, e, s in zip(coef, exps, scales, strict=False)
    ]
    with _engine.forced(engine):
        assert vecfix.format_fixed(coef, exps, scales).to_list() == want


def test_gc_paused_restores_the_collector_after_an_error():
    import gc

    with pytest.raises(RuntimeError), _engine.gc_paused():
        assert not gc.isenabled()
        raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with _engine.gc_paused():
            pass
        assert not gc.isenabled()  # off before: left off
    finally:
        gc.enable()


def test_cache_dir_is_named_after_the_sources(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    _engine.cache_dir.cache_clear()
    try:
        where = _engine.cache_dir()
        assert where == tmp_path / f"vecfix-{_engine.sources_digest()[:16]}"
        assert where.is_dir()
    finally:
        _engine.cache_dir.cache_clear()


def test_each_numba_install_has_its_own_cache_dir(monkeypatch):
    """Two environments (or an upgrade) never share a cache: Numba's index holds one
    version, so each would compile in the foreground where the stamp promised a load."""
    import numba

    assert _engine.numba_install().startswith(numba.__file__ + ":")
    digests = []
    for mtime in (1, 2):
        monkeypatch.setattr(_engine, "numba_install", lambda m=mtime: f"{numba.__file__}:{m}")
        _engine.sources_digest.cache_clear()
        digests.append(_engine.sources_digest())
    _engine.sources_digest.cache_clear()
    assert digests[0] != digests[1]


def test_no_writable_cache_dir_warns_once_and_caches_nothing(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")  # a directory cannot be made under a file, even by root
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.setattr(_engine, "_WARNED", set())
    _engine.cache_dir.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="no directory to cache compiled kernels"):
            assert _engine.cache_dir() is None
        _engine.cache_dir.cache_clear()
        assert _engine.cache_dir() is None  # said once
    finally:
        _engine.cache_dir.cache_clear()


# ------------------------------------------------------------------ fresh processes


def _fresh(code: str, env: dict | None = None, timeout: float = 600) -> dict:
    """Run ``code`` in a fresh interpreter (auto engine) and return the JSON it prints."""
    full = {**os.environ, **(env or {})}
    full.pop("VECFIX_ENGINE", None)
    full["PYTHONPATH"] = str(ROOT) + os.pathsep + full.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_vecfix_imports_no_engine():
    got = _fresh(
        """
        import json, sys
        import vecfix
        print(json.dumps(sorted(m for m in ("numba", "pyarrow", "pandas", "polars", "llvmlite")
                                if m in sys.modules)))
        """
    )
    assert got == []


def test_a_small_call_in_a_fresh_process_needs_no_kernel():
    got = _fresh(
        """
        import json, sys
        import numpy as np, vecfix
        out = vecfix.format_fixed(np.arange(100) * 123456789, -9, 4)
        text = vecfix.format_fixed(["1.005", None], scale=2).to_list()
        print(json.dumps({"numba": "numba" in sys.modules, "rows": out.to_list()[:3],
                          "text": text}))
        """
    )
    assert not got["numba"]
    assert got["rows"] == [reference_fixed(i * 123456789, -9, 4) for i in range(3)]
    assert got["text"] == ["1.01", None]


@pytest.mark.skipif(NOJIT, reason="NUMBA_DISABLE_JIT compiles nothing")
def test_a_large_call_in_a_fresh_process_loads_the_kernels():
    vecfix.warmup()  # the cache filled (as the suite's own calls have)
    got = _fresh(
        """
        import json, sys
        import numpy as np, vecfix
        px = np.arange(1_000_000, dtype=np.int64) * 12345
        out = vecfix.format_fixed(px, -9, 4)
        print(json.dumps({"numba": "numba" in sys.modules, "last": out[-1]}))
        """
    )
    assert got == {"numba": True, "last": reference_fixed(999_999 * 12345, -9, 4)}


def test_threads_importing_kernels_at_once_wait_for_one_import():
    """Eight threads ask for the FIX kernels one after another while the first imports
    them (Dask's threads building messages, say): the others wait for it; none gets the
    module half made, without the kernels defined last."""
    vecfix.warmup()
    got = _fresh(
        """
        import json, threading, time
        from vecfix import _engine
        barrier, found, errors = threading.Barrier(8), [], []
        def work(k):
            try:
                barrier.wait()
                time.sleep(0.04 * k)  # (the import takes 0.1-0.3 s)
                found.append(callable(_engine.import_kernels("fix").write_incremental_bodies))
            except Exception as exc:
                errors.append(repr(exc))
        pool = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        print(json.dumps({"errors": errors, "found": found}))
        """
    )
    assert got == {"errors": [], "found": [True] * 8}


@pytest.mark.skipif(NOJIT or not SLOW, reason="set VECFIX_SLOW_TESTS=1 (compiles every kernel)")
def test_cold_cache_one_background_compile_then_the_kernels(tmp_path):
    """The first run on a machine: a call answers in Python at once while one child
    compiles; a second process does not start another; once the child is done, a fresh
    process loads the kernels from the cache, compiling nothing."""
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    first = _fresh(
        """
        import json, time
        start = time.perf_counter()
        import numpy as np, vecfix
        from vecfix import _engine
        out = vecfix.format_fixed(np.arange(100_000) * 987654321, -9, 2)
        took = time.perf_counter() - start
        print(json.dumps({"took": took, "loaded": _engine.loaded(),
                          "compiling": _engine.compiling(), "last": out[-1]}))
        """,
        env,
    )
    assert first["took"] < 3.0 and not first["loaded"] and first["compiling"]
    assert first["last"] == reference_fixed(99_999 * 987654321, -9, 2)
    locks = list(tmp_path.glob("vecfix-*/compiling.lock"))
    assert len(locks) == 1
    pid = int(locks[0].read_text())
    second = _fresh(
        """
        import json
        from vecfix import _engine
        print(json.dumps({"compiling": _engine.compiling()}))
        """,
        env,
    )
    assert second["compiling"]
    assert int(locks[0].read_text()) == pid  # the same child: none started
    deadline = time.monotonic() + 600
    while _engine._held(locks[0]) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert len(list(tmp_path.glob("vecfix-*/ready-*"))) == len(_engine.KERNEL_MODULES)
    third = _fresh(
        """
        import json
        import numpy as np, vecfix
        from vecfix._kernels import fixed, rows
        out = vecfix.format_fixed(np.arange(1_000_000) * 987654321, -9, 2)
        misses = sum(sum(k.stats.cache_misses.values()) for k in (fixed.format_rows,
                                                                 rows.extremes))
        print(json.dumps({"misses": misses, "last": out[-1]}))
        """,
        env,
    )
    assert third == {"misses": 0, "last": reference_fixed(999_999 * 987654321, -9, 2)}


def test_import_vecfix_registers_the_namespaces_of_libraries_already_imported():
    got = _fresh(
        """
        import json
        import pandas as pd, polars as pl
        import vecfix
        print(json.dumps({"pandas": pd.Series([125]).vecfix.fixed(-2, 1).tolist(),
                          "polars": pl.Series([125]).vecfix.fixed(-2, 1).to_list()}))
        """
    )
    assert got == {"pandas": ["1.3"], "polars": ["1.3"]}
    later = _fresh(  # imported after vecfix: registered on vecfix's next public name
        """
        import json
        import vecfix
        import pandas as pd
        vecfix.format_fixed
        print(json.dumps(pd.Series([125]).vecfix.fixed(-2, 1).tolist()))
        """
    )
    assert later == ["1.3"]


# ------------------------------------------------------ the compile lock and the JIT switch

_HOLDER = """
import pathlib, sys, time
import vecfix._engine as e
lock, marker = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
e._lock_path = lambda: lock
def warmup():  # a compile: says it started, then takes its time
    with marker.open("a") as f:
        f.write("compiled\\n")
    time.sleep(float(sys.argv[3]))
e.warmup = warmup
sys.exit(e.child())
"""


def _holder(lock: Path, marker: Path, seconds: float) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock), str(marker), str(seconds)],
                            env=env)  # fmt: skip


def _until(condition, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_the_compile_lock_is_an_os_lock_that_dies_with_its_holder(tmp_path):
    """One compiler at a time, by an OS lock: a second process that finds it held compiles
    nothing; a holder killed outright (no clean-up) blocks nobody; and a lock file left
    behind naming a live process (a pid reused) is no lock."""
    lock, marker = tmp_path / "compiling.lock", tmp_path / "marker"
    lock.write_text(str(os.getpid()))  # left behind; its pid is alive (this process)
    assert not _engine._held(lock)
    first = _holder(lock, marker, 60)
    try:
        assert _until(lambda: marker.exists() and _engine._held(lock))
        second = _holder(lock, marker, 0)
        assert second.wait(30) == 0
        assert marker.read_text() == "compiled\n"  # the second one compiled nothing
        assert _engine._held(lock)
    finally:
        first.kill()  # SIGKILL: no finally block runs in it
        first.wait(30)
    assert not _engine._held(lock)
    third = _holder(lock, marker, 0)
    assert third.wait(30) == 0
    assert marker.read_text() == "compiled\n" * 2


NUMBA_READS = {"0": False, "1": True, "false": False, "no": False, "00": False, "": False,
               " 1 ": True, "-1": True, "true": False, "2": True}  # fmt: skip


@pytest.mark.parametrize(("value", "disabled"), NUMBA_READS.items())
def test_numba_disable_jit_read_as_numba_reads_it(value, disabled, monkeypatch):
    monkeypatch.setenv("NUMBA_DISABLE_JIT", value)
    assert _engine._jit_disabled() is disabled


def test_numba_itself_reads_numba_disable_jit_so():
    """The table above is Numba's own reading (``numba.config.DISABLE_JIT``), asked of
    Numba in a child process for each value."""
    got = _fresh(
        f"""
        import json, os, warnings
        warnings.simplefilter("ignore")
        from numba.core import config
        out = {{}}
        for value in {list(NUMBA_READS)!r}:
            os.environ["NUMBA_DISABLE_JIT"] = value
            config.reload_config()
            out[value] = bool(config.DISABLE_JIT)
        print(json.dumps(out))
        """
    )
    assert got == NUMBA_READS
