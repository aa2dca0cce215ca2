"""Property tests: ``format_fixed`` and ``string_fixed`` against the integer reference.

Coefficients span the whole int64 range (and Python ints up to ±10**45), exponents
-40..40 and scales -10..30, with targeted strategies for ties, trailing nines and the
int64 extremes. Run more examples with ``HYPOTHESIS_PROFILE=thorough``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN
from hypothesis import example, given
from hypothesis import strategies as st
from reference import reference_fixed

import vecfix

#: Every test here runs with each format_rows kernel format_fixed may choose (conftest).
#: int64 max and min rows (golden vectors, dtype extremes) are formatted here on purpose; the
#: SentinelWarning they raise is tested in tests/test_one_vocabulary.py
pytestmark = [
    pytest.mark.usefixtures("each_engine"),
    pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning"),
]

EXPS = st.integers(-40, 40)
SCALES = st.integers(-10, 30)
BIG = 10**45
SPECIAL = [0, 1, -1, 5, -5, 9, -9, 10, -10, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1]


@st.composite
def tie_shaped(draw, lo: int = INT64_MIN, hi: int = INT64_MAX) -> int:
    """``±(k * 10**j + 5 * 10**(j-1))``, maybe nudged by one, within ``[lo, hi]``."""
    j = draw(st.integers(1, 44))
    k = draw(st.integers(0, 10 ** max(0, 45 - j)))
    v = k * 10**j + 5 * 10 ** (j - 1) + draw(st.sampled_from([0, 0, 0, -1, 1]))
    v = -v if draw(st.booleans()) else v
    return max(lo, min(hi, v))


@st.composite
def nines(draw, lo: int = INT64_MIN, hi: int = INT64_MAX) -> int:
    """``±(k * 10**j - 1)``: trailing nines that carry into a new digit when rounded up."""
    j = draw(st.integers(1, 45))
    k = draw(st.integers(1, 99))
    v = k * 10**j - 1
    v = -v if draw(st.booleans()) else v
    return max(lo, min(hi, v))


def coefficients(lo: int, hi: int) -> st.SearchStrategy[int]:
    """Uniform-ish integers, powers of ten, ties, nines and the special values in range."""
    pow10 = st.builds(
        lambda j, m, neg: (-1 if neg else 1) * m * 10**j,
        st.integers(0, 45),
        st.sampled_from([1, 5, 25, 99]),
        st.booleans(),
    ).filter(lambda v: lo <= v <= hi)
    return st.one_of(
        st.integers(lo, hi),
        st.integers(-(10**6), 10**6).filter(lambda v: lo <= v <= hi),
        st.sampled_from([v for v in SPECIAL if lo <= v <= hi]),
        pow10,
        tie_shaped(lo, hi),
        nines(lo, hi),
    )


INT64 = coefficients(INT64_MIN, INT64_MAX)
ANY_INT = st.one_of(INT64, coefficients(-BIG, BIG))
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def check_invariants(text: str, scale: int) -> None:
    """Plain ASCII digits, no negative zero, exactly ``max(scale, 0)`` decimals."""
    assert text.isascii()
    assert NUMBER.fullmatch(text), text
    assert not any(ch in text for ch in "eE+ ")
    if text.startswith("-"):
        assert text.strip("-0.") != "", f"negative zero {text!r}"
    if scale > 0:
        assert "." in text and len(text.split(".")[1]) == scale, (text, scale)
    else:
        assert "." not in text, (text, scale)
    # no superfluous leading zeros in the integer part
    whole = text.lstrip("-").split(".")[0]
    assert whole == "0" or not whole.startswith("0"), text


def check_column(result: vecfix.Formatted, rows: list[tuple[int, int, int]]) -> None:
    want = [reference_fixed(c, e, s) for c, e, s in rows]
    got = result.to_list()
    assert got == want
    np.testing.assert_array_equal(result.lengths, [len(x) for x in want])
    assert result.width == max(map(len, want), default=0)
    for text, (_, _, s) in zip(got, rows, strict=True):
        check_invariants(text, s)


# --- string_fixed -----------------------------------------------------------------------


@given(ANY_INT, EXPS, SCALES)
@example(INT64_MIN, -19, 0)
@example(INT64_MAX, -19, 0)
@example(INT64_MIN, 40, 30)
@example(-(10**45), -40, -10)
@example(-5, -1, 0)
@example(-4, -1, 0)
def test_string_fixed_matches_reference(c, e, s):
    text = vecfix.string_fixed(c, e, s)
    assert text == reference_fixed(c, e, s)
    check_invariants(text, s)


# --- format_fixed: int64 columns --------------------------------------------------------

ROWS64 = st.lists(st.tuples(INT64, EXPS, SCALES), min_size=1, max_size=25)


@given(ROWS64)
@example([(INT64_MIN, -19, 0), (INT64_MAX, -19, 0), (INT64_MIN, -18, 0), (INT64_MAX, 40, 30)])
@example([(-(10**18) * 5, -19, 0), (5 * 10**18, -19, 0), (-5, -1, 0), (-4, -1, 0)])
@example([(9_999_999_999_999_999_999 // 10, -1, 0), (0, -40, -10), (0, 40, 30)])
def test_format_fixed_int64_rows(rows):
    c, e, s = (list(col) for col in zip(*rows, strict=True))
    result = vecfix.format_fixed(
        np.array(c, dtype=np.int64), np.array(e, dtype=np.int32), np.array(s, dtype=np.int32)
    )
    check_column(result, rows)


@given(st.lists(INT64, min_size=1, max_size=25), EXPS, SCALES)
def test_format_fixed_scalar_broadcast(c, e, s):
    result = vecfix.format_fixed(np.array(c, dtype=np.int64), e, s)
    check_column(result, [(x, e, s) for x in c])


@given(INT64, st.lists(st.tuples(EXPS, SCALES), min_size=1, max_size=25))
def test_format_fixed_scalar_coefficient(c, es):
    """One coefficient broadcast against per-row exponents and scales."""
    e, s = (list(col) for col in zip(*es, strict=True))
    result = vecfix.format_fixed(np.int64(c), np.array(e), np.array(s))
    check_column(result, [(c, x, y) for x, y in es])


@given(st.lists(INT64, min_size=1, max_size=25), st.lists(EXPS, min_size=1, max_size=1), SCALES)
def test_format_fixed_length_one_exponents(c, e, s):
    """A length-1 exponent array broadcasts like a scalar."""
    result = vecfix.format_fixed(np.array(c, dtype=np.int64), np.array(e, dtype=np.int32), [s])
    check_column(result, [(x, e[0], s) for x in c])


# --- ties, aimed at the rounding digit --------------------------------------------------


@st.composite
def tie_rows(draw, lo: int = INT64_MIN, hi: int = INT64_MAX):
    """A row whose rounding position falls exactly on (or next to) a 5."""
    j = draw(st.integers(1, 40))
    s = draw(SCALES)
    e = -j - s  # e + s = -j: j digits are dropped, the first of them is the 5
    limit = max(1, min(hi, -lo) // 10**j)
    k = draw(st.integers(0, min(limit, 10**20)))
    c = k * 10**j + 5 * 10 ** (j - 1) + draw(st.sampled_from([0, 0, -1, 1]))
    c = -c if draw(st.booleans()) else c
    return max(lo, min(hi, c)), e, s


@given(st.lists(tie_rows(), min_size=1, max_size=20))
def test_format_fixed_ties_int64(rows):
    c, e, s = (list(col) for col in zip(*rows, strict=True))
    result = vecfix.format_fixed(np.array(c, dtype=np.int64), np.array(e), np.array(s))
    check_column(result, rows)


def object_array(values: list[int]) -> np.ndarray:
    """A 1-D object array of Python ints.

    Plain lists of such ints are covered in test_inputs.py; here the object array keeps
    the values exactly as drawn.
    """
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


#: Run lengths of one layout: short ones, and ones that cross a power of two.
RUN_LENGTHS = [1, 2, 15, 16, 17, 18, 37, 100]


@st.composite
def layout_runs(draw):
    """Rows in runs of one exponent and scale (a table sorted by instrument); layouts
    outside the block passes included."""
    rows = []
    for _ in range(draw(st.integers(1, 6))):
        e, s = draw(EXPS), draw(SCALES)
        k = draw(st.sampled_from(RUN_LENGTHS))
        rows += [(c, e, s) for c in draw(st.lists(INT64, min_size=k, max_size=k))]
    return rows


@given(layout_runs())
@example([(c, -9, 4) for c in range(-40, 40, 2)] + [(7, -9, 20)] * 20 + [(-7, -9, 21)] * 20)
@example([(INT64_MIN, -9, 2)] * 19 + [(INT64_MAX, -9, 2)] + [(5, -1, 0)] * 16)
@example([(1, -9, 2)] * 18 + [(-(10**15), -9, 2), (10**14, -9, 2), (3, -9, 2), (0, 0, 1)])
@example([(-1, -9, 2)] * 18 + [(10**17, -9, 2), (-(10**14), -9, 2)] + [(0, 0, 1)] * 3)
def test_format_fixed_layout_runs(rows):
    c, e, s = (list(col) for col in zip(*rows, strict=True))
    coef = np.array(c, dtype=np.int64)
    exps, scales = np.array(e, dtype=np.int32), np.array(s, dtype=np.int32)
    check_column(vecfix.format_fixed(coef, exps, scales), rows)


@st.composite
def tie_column(draw):
    """Coefficients of one exponent and scale, most of them on (or next to) a rounding tie,
    the rest any int64: what a call with a scalar exponent and scale sees."""
    j = draw(st.integers(1, 19))
    s = draw(SCALES)
    limit = INT64_MAX // 10**j

    def near_tie(k: int, nudge: int, negative: bool) -> int:
        c = min(k * 10**j + 5 * 10 ** (j - 1) + nudge, INT64_MAX)
        return -c if negative else c

    ties = st.builds(near_tie, st.integers(0, limit), st.sampled_from([0, 0, -1, 1]),
                     st.booleans())  # fmt: skip
    c = draw(st.lists(st.one_of(ties, INT64), min_size=1, max_size=40))
    return c, -j - s, s


@given(tie_column())
def test_format_fixed_ties_one_layout(column):
    """Small calls with a scalar exponent and scale take one kernel call (measure and
    write together); its rows must round like the reference's."""
    c, e, s = column
    check_column(vecfix.format_fixed(np.array(c, dtype=np.int64), e, s), [(x, e, s) for x in c])


@given(st.lists(tie_rows(-BIG, BIG), min_size=1, max_size=20))
def test_format_fixed_ties_any_size(rows):
    c, e, s = (list(col) for col in zip(*rows, strict=True))
    check_column(vecfix.format_fixed(object_array(c), e, s), rows)


@given(tie_rows(-BIG, BIG))
def test_string_fixed_ties(row):
    c, e, s = row
    assert vecfix.string_fixed(c, e, s) == reference_fixed(c, e, s)


# --- beyond int64 -----------------------------------------------------------------------


@given(st.lists(st.tuples(ANY_INT, EXPS, SCALES), min_size=1, max_size=25))
def test_format_fixed_mixed_python_ints(rows):
    """Python ints of any size in one column: int64 rows and fallback rows interleaved."""
    c, e, s = (list(col) for col in zip(*rows, strict=True))
    check_column(vecfix.format_fixed(object_array(c), e, s), rows)
    check_column(vecfix.format_fixed(object_array(c), np.array(e), np.array(s)), rows)
    if not any(INT64_MAX < v < 2**64 for v in c):  # a plain list, where NumPy reads it right
        check_column(vecfix.format_fixed(c, e, s), rows)


@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=25), EXPS, SCALES)
def test_format_fixed_uint64(c, e, s):
    result = vecfix.format_fixed(np.array(c, dtype=np.uint64), e, s)
    check_column(result, [(x, e, s) for x in c])


@given(coefficients(-BIG, BIG).filter(lambda v: not INT64_MIN <= v <= INT64_MAX), EXPS, SCALES)
def test_format_fixed_big_scalar_broadcast(c, e, s):
    result = vecfix.format_fixed(c, np.array([e, e - 1, e + 1]), s)
    check_column(result, [(c, e, s), (c, e - 1, s), (c, e + 1, s)])


@st.composite
def runs_of_one_magnitude(draw) -> list[int]:
    """A column made of runs of values with the same number of digits, signs mixed.

    The block passes strip a different number of leading zeros row to row; these columns
    change the digit count at random places, near rounding edges too.
    """
    column: list[int] = []
    for _ in range(draw(st.integers(1, 6))):
        digits = draw(st.integers(1, 19))
        lo, hi = 10 ** (digits - 1), min(10**digits - 1, INT64_MAX)
        near_tie = st.integers(-2, 2).map(
            lambda d, lo=lo, hi=hi: min(5 * lo + d, hi) if lo > 1 else 5
        )
        value = st.one_of(st.integers(lo, hi), near_tie)
        run = draw(st.lists(value, min_size=1, max_size=40))
        column += [-v if draw(st.booleans()) else v for v in run]
    return column


@given(runs_of_one_magnitude(), st.integers(-20, 5), st.integers(-3, 9), st.integers(0, 30))
def test_format_fixed_runs_of_one_magnitude(c, e, s, extra_width):
    expected = [reference_fixed(v, e, s) for v in c]
    for width in (None, max(map(len, expected)) + extra_width):
        out = vecfix.format_fixed(np.array(c, dtype=np.int64), e, s, width=width)
        assert out.to_list() == expected
        assert out.lengths.tolist() == [len(t) for t in expected]
        for row, text in zip(out.matrix, expected, strict=True):
            assert not row[len(text) :].any()  # zero padding, no spill left behind
