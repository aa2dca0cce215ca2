"""Threads and processes: the same bytes from 8 Python threads at once and from any
``threads=`` count, and a Numba cache that survives concurrent first calls, an unusable
cache directory and corrupt cache files, and never serves code of other sources.

The process tests run small scripts in fresh interpreters with their own
``NUMBA_CACHE_DIR`` (one of them makes its first calls from 8 threads at once), on the
compiled kernels. They load :mod:`vecfix._kernels.rows` (its kernels compile in a few
seconds) and call its ``_row_length``; the same tests with a whole ``format_fixed`` call
(whose ``format_rows`` kernel takes several seconds more to compile cold) run when
``VECFIX_SLOW_TESTS=1`` (the CI does this in a step of its own).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numba
import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN
from reference import reference_fixed

import vecfix._passes
import vecfix._plan
import vecfix._tuning
from vecfix import format_fixed

NOJIT = bool(numba.config.DISABLE_JIT)
SLOW = os.environ.get("VECFIX_SLOW_TESTS", "") not in ("", "0")
ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
ROWS = 50 if NOJIT else 20_000


def _batch(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    coef = rng.integers(INT64_MIN, INT64_MAX, n, endpoint=True, dtype=np.int64)
    exps = rng.integers(-22, 4, n).astype(np.int32)
    scales = rng.integers(-3, 21, n).astype(np.int32)
    want = [
        reference_fixed(c, e, s)
        for c, e, s in zip(coef.tolist(), exps.tolist(), scales.tolist(), strict=True)
    ]
    return coef, exps, scales, want


# --- threads in one process ------------------------------------------------------------------


def test_eight_threads_at_once_get_the_single_thread_bytes(monkeypatch):
    """8 Python threads format 8 different arrays at the same moment, three rounds."""
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 1000)  # some calls split further
    batches = [_batch(seed, ROWS + 17 * seed) for seed in range(8)]
    single = []
    for coef, exps, scales, want in batches:
        result = format_fixed(coef, exps, scales)
        assert result.to_list() == want
        single.append((result.matrix.copy(), result.lengths.copy(), result.to_bytes()))
    barrier = threading.Barrier(8)
    failures: list[str] = []

    def work(k: int) -> None:
        coef, exps, scales, _ = batches[k]
        try:
            for round_ in range(3):
                barrier.wait(timeout=60)
                got = format_fixed(coef, exps, scales, threads=1 + (k + round_) % 3)
                matrix, lengths, text = single[k]
                if not (
                    np.array_equal(got.matrix, matrix)
                    and np.array_equal(got.lengths, lengths)
                    and got.to_bytes() == text
                ):
                    failures.append(f"thread {k} round {round_}: bytes differ")
        except Exception as exc:  # report it in the main thread
            failures.append(f"thread {k}: {type(exc).__name__}: {exc}")
            barrier.abort()

    workers = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
    assert not any(w.is_alive() for w in workers)
    assert failures == []


@pytest.mark.parametrize("n", [1, 2, 7, 64, 40 if NOJIT else 1001])
def test_any_thread_count_gives_the_same_bytes(n, monkeypatch):
    """Rows split over 1..9 threads (and every core), at every width and with ``out=``."""
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 1)
    coef, exps, scales, want = _batch(n, n)
    raw = np.array([w.encode() for w in want])
    for threads in [*range(1, 10), None]:
        got = format_fixed(coef, exps, scales, threads=threads)
        assert got.to_list() == want, threads
        np.testing.assert_array_equal(got.to_numpy(), raw)
        wide = format_fixed(coef, -9, 4, threads=threads, width=30)
        assert wide.to_list() == [reference_fixed(c, -9, 4) for c in coef.tolist()]
        out = np.full((n, raw.itemsize), 0xAA, dtype=np.uint8)
        format_fixed(coef, exps, scales, threads=threads, out=out)
        np.testing.assert_array_equal(out, raw.view(np.uint8).reshape(out.shape))


@pytest.mark.skipif(NOJIT, reason="plain Python functions have no GIL option")
def test_every_kernel_releases_the_gil():
    from vecfix._kernels import fix as _fix_kernels
    from vecfix._kernels import fixed as _kernels
    from vecfix._kernels import text as _text_kernels

    dispatchers = [
        obj
        for module in (_kernels, _text_kernels, _fix_kernels)
        for obj in vars(module).values()
        if numba.extending.is_jitted(obj)
    ]
    assert len(dispatchers) >= 5
    assert all(d.targetoptions.get("nogil") for d in dispatchers), [
        d.py_func.__name__ for d in dispatchers if not d.targetoptions.get("nogil")
    ]


# --- the Numba cache, in fresh processes -----------------------------------------------------

SCRIPT = textwrap.dedent(
    """
    import json, os, sys, warnings
    warnings.simplefilter("always")
    sys.path.insert(0, os.environ["VECFIX_TEST_DIR"])
    import numpy as np
    from reference import reference_fixed
    import vecfix
    from vecfix import _engine
    k = _engine.import_kernels("rows")

    mode, order, home = sys.argv[1], sys.argv[2], sys.argv[3]
    assert vecfix.__file__.startswith(home), (vecfix.__file__, home)
    if os.environ.get("VECFIX_TEST_BREAK_CACHE"):  # the cache directory vanishes now
        import shutil
        path = os.environ["NUMBA_CACHE_DIR"]
        shutil.rmtree(path)
        open(path, "w").close()
    rng = np.random.default_rng(len(order))
    coef = rng.integers(-2**63, 2**63 - 1, 500, endpoint=True, dtype=np.int64)
    e, s = -7, 3
    want = [reference_fixed(c, e, s) for c in coef.tolist()]
    def check(kind):
        if kind == "w":  # a writeable int64 array
            c = coef.copy()
        elif kind == "r":  # a read-only one: another signature
            c = coef.copy()
            c.flags.writeable = False
        else:  # "i": int32 coefficients, yet another signature (_row_length only)
            c = coef.astype(np.int32)
        if mode == "format":
            got = vecfix.format_fixed(c, e, s).to_list()
            ok = got == want
        else:
            lengths = [k._row_length(v, e, s) for v in c]
            expect = [len(reference_fixed(v, e, s)) for v in c.tolist()]
            ok = lengths == expect
        assert ok, kind

    threads = int(os.environ.get("VECFIX_TEST_THREADS", "0"))
    if threads:  # first calls from several threads at the same moment
        import threading
        barrier, errors = threading.Barrier(threads), []
        def work(t):
            try:
                barrier.wait(timeout=120)
                for kind in order[t % len(order):] + order[:t % len(order)]:
                    check(kind)
            except BaseException as exc:
                errors.append(repr(exc))
        pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        assert not errors, errors
    else:
        for kind in order:
            check(kind)
    if mode == "measure":
        stats = k.format_few.stats  # compiled as the module is imported
    else:
        from vecfix._kernels import fixed
        stats = fixed.format_rows.stats
    print(json.dumps({"hits": sum(stats.cache_hits.values()),
                      "misses": sum(stats.cache_misses.values()),
                      "cache": stats.cache_path}))
    """
)


def _start(mode: str, order: str, env: dict, home: Path = ROOT) -> subprocess.Popen:
    full = {
        **os.environ,
        "VECFIX_NUMBA_CACHE": "1",
        "VECFIX_ENGINE": "kernels",  # no background compile: these processes race to
        "VECFIX_TEST_DIR": str(TESTS),
        "PYTHONPATH": str(home),
        **env,
    }
    full.pop("NUMBA_DISABLE_JIT", None)
    return subprocess.Popen(
        [sys.executable, "-c", SCRIPT, mode, order, str(home)],
        env=full,
        cwd=str(home),  # sys.path[0] of "python -c" is the working directory
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[dict, str]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{out}\n{err}"
    assert "Traceback" not in err, err
    return json.loads(out.strip().splitlines()[-1]), err


def _run(mode: str, order: str, env: dict, home: Path = ROOT) -> tuple[dict, str]:
    return _finish(_start(mode, order, env, home))


def _concurrent_first_calls(tmp_path: Path, mode: str, orders: list[str]) -> None:
    """``orders`` processes and one with 8 threads make their first calls at once."""
    cache = tmp_path / "numba-cache"  # not created yet: the processes race to make it
    env = {"NUMBA_CACHE_DIR": str(cache)}
    procs = [_start(mode, order, env) for order in orders]
    procs.append(_start(mode, orders[0], {**env, "VECFIX_TEST_THREADS": "8"}))
    for proc in procs:
        _finish(proc)
    stats, err = _run(mode, "wr", env)  # a fifth process reads what the four left
    assert "RuntimeWarning" not in err, err
    assert stats["misses"] == 0 and stats["hits"] >= 1, stats  # loaded, not compiled


@pytest.mark.skipif(NOJIT, reason="NUMBA_DISABLE_JIT compiles nothing")
def test_concurrent_first_calls_share_one_cache_directory(tmp_path):
    _concurrent_first_calls(tmp_path, "measure", ["wr", "rw", "wr", "rw"])


@pytest.mark.skipif(NOJIT or not SLOW, reason="set VECFIX_SLOW_TESTS=1 (compiles 5 times)")
def test_concurrent_first_calls_of_format_fixed(tmp_path):
    _concurrent_first_calls(tmp_path, "format", ["w", "r", "w", "r"])


def _package_without_cache_dirs(tmp_path: Path) -> tuple[Path, dict]:
    """A copy of vecfix where no cache directory can be made, and the env that says so.

    ``chmod`` does not stop root (the CI runs as root), so every cache location is put
    under a regular file: creating a directory there fails for everyone.
    """
    home = tmp_path / "pkg"
    shutil.copytree(ROOT / "vecfix", home / "vecfix", ignore=shutil.ignore_patterns("__pycache__"))
    for package in (home / "vecfix", home / "vecfix" / "_kernels"):  # the in-tree caches:
        (package / "__pycache__").write_bytes(b"")  # files
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"")
    env = {
        "NUMBA_CACHE_DIR": str(blocker / "numba"),
        "XDG_CACHE_HOME": str(blocker / "xdg"),
        "HOME": str(blocker / "home"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return home, env


@pytest.mark.skipif(NOJIT, reason="NUMBA_DISABLE_JIT compiles nothing")
def test_no_usable_cache_directory_compiles_in_memory(tmp_path):
    home, env = _package_without_cache_dirs(tmp_path)
    stats, err = _run("measure", "wi", env, home)
    assert "RuntimeWarning: vecfix: no directory to cache compiled kernels in" in err
    assert err.count("RuntimeWarning") == 1, err  # said once, not once per kernel
    assert stats["cache"] is None and stats["hits"] == 0  # compiled with no cache at all


@pytest.mark.skipif(NOJIT or not SLOW, reason="set VECFIX_SLOW_TESTS=1 (compiles format_rows)")
def test_no_usable_cache_directory_format_fixed(tmp_path):
    home, env = _package_without_cache_dirs(tmp_path)
    _, err = _run("format", "w", env, home)
    assert "no directory to cache compiled kernels" in err


@pytest.mark.skipif(NOJIT, reason="NUMBA_DISABLE_JIT compiles nothing")
def test_truncated_cache_files_are_recompiled(tmp_path):
    cache = tmp_path / "cache"
    env = {"NUMBA_CACHE_DIR": str(cache)}
    _run("measure", "w", env)
    files = [p for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert files
    for p in files:  # an interrupted write: every index and data file cut in half
        p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
    stats, err = _run("measure", "w", env)
    assert "could not be read" in err and err.count("RuntimeWarning") == 1, err
    assert stats["hits"] == 0  # compiled in memory


def test_any_change_to_the_sources_caches_apart(tmp_path):
    """Numba stamps a cached kernel with its own file only: a kernel whose inlined helper
    lives in another module would keep its old code when only that module changed. The
    kernels cache under a folder named after a digest of all of vecfix's sources: a
    changed helper (here, a comment added to one) gives another folder."""
    home = tmp_path / "pkg"
    shutil.copytree(ROOT / "vecfix", home / "vecfix", ignore=shutil.ignore_patterns("__pycache__"))
    code = "from vecfix import _engine; print(_engine.cache_dir())"
    env = {**os.environ, "PYTHONPATH": str(home), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_DISABLE_JIT", None)

    def folder() -> str:
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, cwd=str(home), check=True)  # fmt: skip
        return done.stdout.strip()

    before = folder()
    assert before == folder()  # the same sources, the same folder
    helper = home / "vecfix" / "_scalar.py"  # text_length, inlined into every kernel
    helper.write_text(helper.read_text() + "\n# changed\n")
    assert folder() != before
