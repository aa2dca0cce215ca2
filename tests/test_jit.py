"""``vecfix._jit.kernel(vectorize=False)``: a kernel compiled without LLVM's loop
vectorizer, and only that kernel (the kernel whose typing compiles it keeps its own); every
compile with the garbage collector paused."""

from __future__ import annotations

import gc

import numba
import numpy as np
import pytest

from vecfix import _jit

NOJIT = bool(numba.config.DISABLE_JIT)
pytestmark = pytest.mark.skipif(NOJIT, reason="NUMBA_DISABLE_JIT compiles nothing")
vectorizing = pytest.mark.skipif(not _jit._LOOP_VECTORIZE, reason="NUMBA_LOOP_VECTORIZE=0")


def _sum(values):
    total = np.uint64(0)
    for i in range(values.shape[0]):
        total += np.uint64(values[i])
    return total


_CALLEE = None  # the kernel _caller calls, set before it compiles


def _caller(values):
    total = np.uint64(0)
    for i in range(values.shape[0]):  # the caller's own loop
        total += np.uint64(values[i])
    return total + _CALLEE(values) * np.uint64(2)


def _fresh(fn, vectorize=True):
    """``kernel(fn, vectorize=...)`` without the on-disk cache (the test reads the IR)."""
    dispatcher = numba.njit(**{**_jit._OPTIONS, "cache": False})(fn)
    _jit._compile_hooks(dispatcher, vectorize and _jit._LOOP_VECTORIZE)
    return dispatcher


def _vectorized(dispatcher) -> bool:
    """Whether LLVM vectorized a loop of the compiled code (its ``vector.body`` block)."""
    (ir,) = dispatcher.inspect_llvm().values()
    return "vector.body" in ir


@vectorizing
def test_vectorize_false_compiles_the_loop_scalar_and_restores_the_setting():
    data = np.arange(1000, dtype=np.uint8)
    want = int(data.astype(np.uint64).sum())
    on, off = _fresh(_sum), _fresh(_sum, vectorize=False)
    assert on(data) == off(data) == want
    assert _vectorized(on)
    assert not _vectorized(off)
    assert numba.config.LOOP_VECTORIZE == _jit._LOOP_VECTORIZE


@vectorizing
def test_a_scalar_kernel_compiled_within_another_leaves_the_caller_its_vectorizer():
    global _CALLEE
    _CALLEE = callee = _fresh(_sum, vectorize=False)
    caller = _fresh(_caller)
    data = np.arange(777, dtype=np.uint8)
    assert caller(data) == 3 * int(data.astype(np.uint64).sum())
    assert not _vectorized(callee)  # compiled during the caller's typing, scalar
    assert _vectorized(caller)
    assert numba.config.LOOP_VECTORIZE == _jit._LOOP_VECTORIZE


def test_the_setting_is_restored_when_the_compile_fails():
    def bad(values):
        return values.no_such_attribute

    broken = _fresh(bad, vectorize=False)
    with pytest.raises(numba.core.errors.TypingError):
        broken(np.zeros(3))
    assert numba.config.LOOP_VECTORIZE == _jit._LOOP_VECTORIZE


def test_the_decorator_takes_the_option_with_or_without_parentheses(monkeypatch):
    monkeypatch.setitem(_jit._OPTIONS, "cache", False)
    plain, scalar = _jit.kernel(_sum), _jit.kernel(vectorize=False)(_sum)
    data = np.arange(10, dtype=np.uint8)
    assert plain(data) == scalar(data) == 45


def test_kernels_compile_without_a_cfunc_wrapper_yet_run_from_python():
    """No C-callable wrapper (compile time spent on code vecfix never calls); the
    dispatcher and the Python entry point ``_format._entry_point`` takes still work."""
    dispatcher = numba.njit(**{**_jit._OPTIONS, "cache": False})(_sum)
    data = np.arange(10, dtype=np.uint8)
    assert dispatcher(data) == 45
    (ir,) = dispatcher.inspect_llvm().values()
    defined = [line for line in ir.splitlines() if line.startswith("define")]
    assert defined and not any("@cfunc." in line for line in defined)
    (compiled,) = dispatcher.overloads.values()
    assert compiled.entry_point(data) == 45


def test_sources_that_cannot_be_read_compile_in_memory(monkeypatch):
    """The cache key needs the package's sources (the digest): when they cannot be read,
    the kernel runs uncached, with one warning, rather than fail its import or risk
    loading code of other sources."""

    def unreadable(dispatcher):
        raise PermissionError("denied")

    monkeypatch.setattr(_jit, "cache_digest", unreadable)
    monkeypatch.setattr(_jit, "_WARNED", set())
    with pytest.warns(RuntimeWarning, match="could not be keyed"):
        dispatcher = _jit._njit(_sum, **{**_jit._OPTIONS, "cache": True})
    assert int(dispatcher(np.arange(5))) == 10
    assert dispatcher.stats.cache_path is None  # no on-disk cache: nothing loaded or saved


def _spied(fn, seen):
    """``_fresh(fn)`` whose compiles record in ``seen`` whether the collector ran."""
    dispatcher = numba.njit(**{**_jit._OPTIONS, "cache": False})(fn)
    compile_ = dispatcher._compiler.compile

    def spy(args, return_type):
        seen.append(gc.isenabled())
        return compile_(args, return_type)

    dispatcher._compiler.compile = spy
    _jit._compile_hooks(dispatcher, _jit._LOOP_VECTORIZE)
    return dispatcher


def test_a_compile_runs_with_the_garbage_collector_paused_and_turns_it_back_on():
    global _CALLEE
    seen: list[bool] = []
    _CALLEE = _spied(_sum, seen)
    caller = _spied(_caller, seen)
    data = np.arange(50, dtype=np.uint8)
    assert gc.isenabled()
    assert caller(data) == 3 * int(data.astype(np.uint64).sum())
    assert seen == [False, False]  # the caller's compile, then the callee's within it
    assert gc.isenabled()


def test_the_collector_is_back_on_when_a_compile_fails():
    def bad(values):
        return values.no_such_attribute

    seen: list[bool] = []
    broken = _spied(bad, seen)
    with pytest.raises(numba.core.errors.TypingError):
        broken(np.zeros(3))
    assert seen == [False] and gc.isenabled()


def test_a_collector_switched_off_by_the_program_stays_off():
    seen: list[bool] = []
    dispatcher = _spied(_sum, seen)
    gc.disable()
    try:
        assert dispatcher(np.arange(4, dtype=np.uint8)) == 6
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert seen == [False]


def test_gc_paused_nests():
    with _jit.gc_paused():
        with _jit.gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves it to the outer one
    assert gc.isenabled()


def test_a_cache_load_runs_with_the_collector_paused(tmp_path, monkeypatch):
    from numba.core import caching

    seen: list[bool] = []
    load = caching.Cache.load_overload

    def spy(self, sig, target_context):
        seen.append(gc.isenabled())
        return load(self, sig, target_context)

    monkeypatch.setattr(caching.Cache, "load_overload", spy)
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    first = _jit._njit(_sum, **{**_jit._OPTIONS, "cache": True})
    assert first(np.arange(4, dtype=np.uint8)) == 6  # a miss: compiled and saved
    again = _jit._njit(_sum, **{**_jit._OPTIONS, "cache": True})
    assert again(np.arange(5, dtype=np.uint8)) == 10  # loaded
    assert again.stats.cache_hits
    assert seen == [False, False] and gc.isenabled()
