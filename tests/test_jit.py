"""``vecfix._jit``: kernels with the signatures they name and no other, cached where vecfix
says without touching the user's own Numba settings, no C-callable wrapper."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from vecfix import _engine, _jit

NOJIT = bool(numba.config.DISABLE_JIT)
pytestmark = pytest.mark.skipif(NOJIT, reason="NUMBA_DISABLE_JIT compiles nothing")


def _sum(values):
    total = np.int64(0)
    for i in range(values.shape[0]):
        total += np.int64(values[i])
    return total


SIGNATURE = "i64[]r"


def test_a_kernel_compiles_its_signatures_when_defined_and_no_other():
    kernel = _jit.kernel(SIGNATURE)(_sum)
    assert len(kernel.signatures) == 1  # compiled as it was defined
    writeable = np.arange(10, dtype=np.int64)
    read_only = writeable.copy()
    read_only.flags.writeable = False
    assert kernel(writeable) == kernel(read_only) == 45  # converted to the read-only one
    assert len(kernel.signatures) == 1
    with pytest.raises(TypeError, match="No matching definition"):
        kernel(writeable[::2])  # not C-contiguous: refused, never compiled by surprise


def test_a_kernel_without_signatures_compiles_when_first_called():
    part = _jit.kernel(_sum)
    assert part.signatures == []
    assert part(np.arange(4, dtype=np.int64)) == 6 and len(part.signatures) == 1


def test_the_users_cache_dir_is_left_as_it_was(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "mine"))
    kernel = _jit.kernel(SIGNATURE)(_sum)
    assert numba.config.CACHE_DIR == str(tmp_path / "mine")
    where = _engine.cache_dir()
    if where is not None:  # vecfix's kernels cache in vecfix's folder
        assert kernel.stats.cache_path.startswith(str(where))


def test_no_cache_dir_compiles_in_memory(monkeypatch):
    monkeypatch.setattr(_jit, "cache_dir", lambda: None)
    kernel = _jit.kernel(SIGNATURE)(_sum)
    assert kernel.stats.cache_path is None
    assert kernel(np.arange(5, dtype=np.int64)) == 10


def test_kernels_compile_without_a_cfunc_wrapper():
    """No C-callable wrapper: compile time spent on code vecfix never calls."""
    kernel = numba.njit(**{**_jit.OPTIONS, "cache": False})(_sum)
    assert kernel(np.arange(10, dtype=np.int64)) == 45
    (ir,) = kernel.inspect_llvm().values()
    defined = [line for line in ir.splitlines() if line.startswith("define")]
    assert defined and not any("@cfunc." in line for line in defined)


def test_target_has_reads_the_features_numba_compiles_for(monkeypatch):
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("x86 features")
    monkeypatch.setattr(numba.config, "CPU_FEATURES", "+avx2,-avx512dq")
    assert _jit.target_has("avx2") and not _jit.target_has("avx512dq")
    monkeypatch.setattr(numba.config, "CPU_FEATURES", "")  # NUMBA_CPU_NAME=generic
    assert not _jit.target_has("avx2")
