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
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from vecfix import _coldstart

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

# The suite's calls compile format_fixed's kernels in this process, as its tests of the
# kernels and of what compiles expect: no cold tier (vecfix._coldstart), whose worker
# would compile them in the background. tests/test_cold_tier.py turns it on for its own.
_coldstart.ENABLED = False

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


@pytest.fixture(scope="module", params=["block", "rows"])
def each_kernel(request):
    """Run a module's tests once with each ``format_rows`` kernel that ``format_fixed`` may
    choose (``vecfix._format._row_kernel``): the block kernel, and the row-at-a-time one
    a CPU without AVX2 runs. Module-scoped, so Hypothesis tests may use it."""
    from vecfix import _format, _kernels, _row_kernels

    saved = _format._kernel, _format._small_entry
    _format._kernel = {"block": _kernels, "rows": _row_kernels}[request.param].format_rows
    _format._small_entry = None
    yield request.param
    _format._kernel, _format._small_entry = saved
