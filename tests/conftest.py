"""Shared test set-up: Hypothesis profiles and the golden vectors.

Hypothesis profiles
-------------------
``default``
    Modest example counts, so the property tests run in seconds.
``thorough``
    Many more examples; select it with ``HYPOTHESIS_PROFILE=thorough python -m pytest``.

Golden vectors
--------------
``tests/data/{grid,big,prices}.tsv.gz`` were produced by Go's shopspring/decimal
``StringFixed`` (see the header of each file: ``coef exp scale expected``). They are read
once per session by the :func:`golden` fixture.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# The suite runs every call on the compiled kernels unless told otherwise
# (``VECFIX_ENGINE=python python -m pytest`` runs it in plain Python): the choice a
# process makes by itself (vecfix._engine) depends on the work it did before, which in a
# test session is the tests before. tests/test_engine.py tests that choice, and the
# ``each_engine`` fixture runs a module through both engines.
os.environ.setdefault("VECFIX_ENGINE", "kernels")

from vecfix import _engine

settings.register_profile(
    "default",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=3000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def any_rows(max_size: int) -> st.SearchStrategy[list[tuple[int, int, int]]]:
    """Hypothesis: 1 to ``max_size`` rows ``(c, e, s)`` of any int64 coefficient (often
    within 16 digits), per-row exponents -24..18 and scales -3..17."""
    row = st.tuples(
        st.integers(INT64_MIN, INT64_MAX) | st.integers(-(10**16), 10**16),
        st.integers(-24, 18),
        st.integers(-3, 17),
    )
    return st.lists(row, min_size=1, max_size=max_size)


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only C-contiguous copy or view of ``array`` (as ``format_fixed`` hands its
    inputs to the kernels: one signature)."""
    array = np.ascontiguousarray(array)
    array.flags.writeable = False
    return array


def general_rows(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` read-only rows ``(coef, exps, scales)``: prices every kernel takes fast, mixed
    with rows for the general path (any int64, exponents beyond the fast layouts, negative
    and long scales), zeros and ties."""
    rng = np.random.default_rng(seed)
    coef = rng.integers(-(10**15), 10**15, n, dtype=np.int64)
    exps = rng.integers(-12, 3, n).astype(np.int32)
    scales = rng.integers(0, 9, n).astype(np.int32)
    general = rng.random(n) < 0.2
    coef[general] = rng.integers(INT64_MIN, INT64_MAX, int(general.sum()), dtype=np.int64)
    exps[general] = rng.integers(-25, 20, int(general.sum()))
    scales[general] = rng.integers(-3, 18, int(general.sum()))
    coef[rng.random(n) < 0.05] = 0
    ties = rng.random(n) < 0.1
    coef[ties] = (coef[ties] // 10) * 10 + 5
    return read_only(coef), read_only(exps), read_only(scales)


def packing_case(seed: int, n: int, layout: str, texts: Callable[..., list[str]]) -> tuple:
    """``(coef, exps, scales, want, width, ends)`` for the Arrow-layout kernel tests:
    :func:`general_rows` (or their coefficients under one layout, exponent -9 and scale 4,
    for ``layout="one layout"``), the expected ``texts(coef, exps, scales)``, the widest
    row and each row's end in the packed text."""
    coef, exps, scales = general_rows(seed, n)
    if layout == "one layout":
        exps = read_only(np.array([-9], dtype=np.int32))
        scales = read_only(np.array([4], dtype=np.int32))
    want = texts(coef, exps, scales)
    ends = np.cumsum([len(t) for t in want]).astype(np.int32)
    return coef, exps, scales, want, max(map(len, want)), ends


DATA = Path(__file__).parent / "data"
VECTOR_FILES = ("grid", "big", "prices")
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class Vectors:
    """One golden vector file, column by column (coefficients as Python ints)."""

    name: str
    coef: list[int]
    exp: list[int]
    scale: list[int]
    expected: list[str]

    def __len__(self) -> int:
        return len(self.coef)

    def rows(self):
        """``(coef, exp, scale, expected)`` tuples."""
        return zip(self.coef, self.exp, self.scale, self.expected, strict=True)

    def fits_int64(self) -> bool:
        """Whether every coefficient fits in int64."""
        return all(INT64_MIN <= c <= INT64_MAX for c in self.coef)

    def exp_array(self) -> np.ndarray:
        return np.array(self.exp, dtype=np.int32)

    def scale_array(self) -> np.ndarray:
        return np.array(self.scale, dtype=np.int32)


def load_vectors(name: str) -> Vectors:
    """Read ``tests/data/{name}.tsv.gz``."""
    with gzip.open(DATA / f"{name}.tsv.gz", "rt", encoding="ascii", newline="\n") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        assert header == ["coef", "exp", "scale", "expected"], header
        coef, exp, scale, expected = [], [], [], []
        for line in fh:
            c, e, s, x = line.rstrip("\n").split("\t")
            coef.append(int(c))
            exp.append(int(e))
            scale.append(int(s))
            expected.append(x)
    assert coef, f"{name} is empty"
    return Vectors(name, coef, exp, scale, expected)


@pytest.fixture(scope="session")
def golden() -> dict[str, Vectors]:
    """Every golden vector file, by name (``grid``, ``big``, ``prices``)."""
    return {name: load_vectors(name) for name in VECTOR_FILES}


@pytest.fixture(scope="module", params=["kernels", "python"])
def each_engine(request):
    """Run a module's tests once with each engine ``format_fixed`` may choose
    (``vecfix._engine``): the compiled kernels, and plain Python. Module-scoped, so
    Hypothesis tests may use it."""
    with _engine.forced(request.param):
        yield request.param
