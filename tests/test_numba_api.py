"""``vecfix.numba``: the row writer called from users' own ``@njit`` code, against the
golden vectors (Go's shopspring/decimal) and the independent reference."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import reference_fixed

numba = pytest.importorskip("numba")

from vecfix.numba import fixed_length, write_fixed  # noqa: E402

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


@numba.njit
def write_all(coef, exps, scales, buf, ends, lengths):
    """Every row back to back through ``write_fixed``, each end in ``ends``, each
    ``fixed_length`` in ``lengths``; return the end (or the failing call's result)."""
    pos = 0
    for i in range(coef.shape[0]):
        lengths[i] = fixed_length(coef[i], exps[i], scales[i])
        pos = write_fixed(buf, pos, coef[i], exps[i], scales[i])
        if pos < 0:
            return pos
        ends[i] = pos
    return pos


def texts(coef: list[int], exps: list[int], scales: list[int]) -> tuple[list[str], list[int]]:
    """The rows' text as ``write_all`` writes it from inside Numba, and the lengths."""
    n = len(coef)
    c = np.array(coef, dtype=np.int64)
    e, s = np.array(exps, dtype=np.int32), np.array(scales, dtype=np.int32)
    ends, lengths = np.zeros(n, np.int64), np.zeros(n, np.int64)
    buf = np.zeros(
        sum(80 + max(x, 0) + max(y, 0) for x, y in zip(exps, scales, strict=True)), np.uint8
    )
    end = write_all(c, e, s, buf, ends, lengths)
    assert end == (ends[-1] if n else 0)
    data = buf.tobytes()
    starts = [0, *ends[:-1].tolist()]
    return [
        data[a:b].decode("ascii") for a, b in zip(starts, ends.tolist(), strict=True)
    ], lengths.tolist()


@pytest.mark.golden_full
@pytest.mark.parametrize("name", ["grid", "prices"])
def test_golden_vectors_from_an_njit_loop(golden, name):
    v = golden[name]
    keep = [i for i, c in enumerate(v.coef) if INT64_MIN <= c <= INT64_MAX]
    assert len(keep) == len(v) or name == "grid"
    got, lengths = texts(
        [v.coef[i] for i in keep], [v.exp[i] for i in keep], [v.scale[i] for i in keep]
    )
    want = [v.expected[i] for i in keep]
    bad = [i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
    assert bad == [], [(v.coef[keep[i]], v.exp[keep[i]], v.scale[keep[i]], got[i]) for i in bad[:5]]
    assert lengths == [len(w) for w in want]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(INT64_MIN, INT64_MAX),
            st.integers(-60, 60) | st.sampled_from([-19, -20, -21, 19, 20]),
            st.integers(-30, 60),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_any_int64_row_matches_the_reference(rows):
    coef, exps, scales = (list(x) for x in zip(*rows, strict=True))
    got, lengths = texts(coef, exps, scales)
    want = [reference_fixed(c, e, s) for c, e, s in rows]
    assert got == want
    assert lengths == [len(w) for w in want]


@numba.njit
def length_of(c, e, s):
    return fixed_length(c, e, s)


@pytest.mark.parametrize(
    ("c", "e", "s", "length"),
    [
        (1, INT32_MIN, 2, 4),  # 0.00
        (INT64_MIN, INT32_MIN, 0, 1),  # 0 (no negative zero)
        (-5, INT32_MIN, INT32_MIN, 1),  # 0
        (5, INT32_MAX, -5, 2**31),  # 5 and 2**31 - 1 zeros
        (-7, 0, INT32_MAX, 2 + 1 + INT32_MAX),  # -7. and the decimals
        (INT64_MAX, INT32_MAX, INT32_MAX, 19 + INT32_MAX + 1 + INT32_MAX),  # digits . decimals
    ],
)
def test_lengths_at_the_edges_of_int32(c, e, s, length):
    # expected lengths worked out by hand from the rules of SPEC.md
    assert length_of(c, e, s) == length


def test_edges_of_int32_written_where_they_are_short():
    got, _ = texts(
        [1, INT64_MIN, -5, INT64_MAX], [INT32_MIN, INT32_MIN, INT32_MIN, -18], [2, 0, INT32_MIN, 0]
    )
    assert got == ["0.00", "0", "0", "9"]


@numba.njit
def write_one(buf, pos, c, e, s):
    return write_fixed(buf, pos, c, e, s)


def test_a_buffer_too_small_writes_nothing():
    buf = np.full(12, 7, dtype=np.uint8)
    # "-5000.25" needs 8 bytes: from 5 it would end at 13
    assert write_one(buf, 5, -5000_250000000, -9, 2) == -13
    assert buf.tolist() == [7] * 12
    assert write_one(buf, 4, -5000_250000000, -9, 2) == 12
    assert buf[4:].tobytes() == b"-5000.25" and buf[:4].tolist() == [7] * 4


def test_a_pos_past_the_end_writes_nothing():
    buf = np.full(8, 7, dtype=np.uint8)
    assert write_one(buf, 20, 1, 0, 0) == -21
    assert write_one(buf[:0], 0, 1, 0, 0) == -1
    assert buf.tolist() == [7] * 8


def test_a_view_writes_within_itself():
    whole = np.full(16, 7, dtype=np.uint8)
    assert write_one(whole[4:8], 0, 125, -3, 2) == 4
    assert whole.tobytes() == bytes([7] * 4) + b"0.13" + bytes([7] * 8)
    assert write_one(whole[4:8], 1, 125, -3, 2) == -5
    assert whole.tobytes() == bytes([7] * 4) + b"0.13" + bytes([7] * 8)


def test_bad_arguments_raise():
    buf = np.zeros(8, dtype=np.uint8)
    with pytest.raises(ValueError, match="pos must be >= 0"):
        write_one(buf, -1, 1, 0, 0)
    with pytest.raises(ValueError, match="within int32"):
        write_one(buf, 0, 1, 2**31, 0)
    with pytest.raises(ValueError, match="within int32"):
        length_of(1, 0, -(2**31) - 1)


def test_the_kernels_and_the_api_share_one_row_writer():
    from vecfix._kernels import fixed, rows

    assert fixed._write_row is rows._write_row and fixed._row_length is rows._row_length
    source = getattr(write_fixed, "py_func", write_fixed)  # (a function under DISABLE_JIT)
    assert "_write_row" in source.__code__.co_names


def test_import_vecfix_does_not_import_numba():
    code = "import sys, vecfix; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
