"""One wide row never makes a call ask for rows x widest bytes (issue 13).

A matrix over ``WIDE_MATRIX_BYTES`` that a few wide rows would make more than
``WIDE_MATRIX_RATIO`` times the text is refused with a RowError that names the widest row
and the ways out; the limit is shrunk here so that small inputs cross it.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference import reference_fixed

import vecfix
import vecfix._plan
import vecfix._tuning
from vecfix import RowError

N = 2000
WIDE_ROW = 1234


@pytest.fixture(autouse=True)
def small_limit(monkeypatch):
    monkeypatch.setattr(vecfix._tuning, "WIDE_MATRIX_BYTES", 1 << 20)  # 1 MiB


def column_with_a_wide_row(exponent: int = 3000) -> tuple[np.ndarray, np.ndarray]:
    coef = np.arange(-N // 2, N // 2, dtype=np.int64) * 7919
    exps = np.full(N, -2, dtype=np.int32)
    exps[WIDE_ROW] = exponent
    return coef, exps


def test_one_wide_row_is_refused_naming_it_and_the_memory():
    coef, exps = column_with_a_wide_row()
    with pytest.raises(RowError) as info:
        vecfix.format_fixed(coef, exps, 2)
    err = info.value
    assert err.row == WIDE_ROW and err.argument == "coefficients"
    wide = len(reference_fixed(int(coef[WIDE_ROW]), 3000, 2))
    assert f"prints {wide:,} bytes" in str(err) and f"width={wide}" in str(err)
    assert "vecfix.string_fixed" in str(err) and "masked array" in str(err)


def test_the_ways_out_give_every_row():
    coef, exps = column_with_a_wide_row()
    want = [reference_fixed(int(c), int(e), 2) for c, e in zip(coef, exps, strict=True)]
    # 1. accept the matrix
    wide = len(want[WIDE_ROW])
    assert vecfix.format_fixed(coef, exps, 2, width=wide).to_list() == want
    # 2. the wide row on its own, the rest masked out of the call
    mask = np.zeros(N, dtype=bool)
    mask[WIDE_ROW] = True
    rest = vecfix.format_fixed(np.ma.masked_array(coef, mask), exps, 2).to_list()
    rest[WIDE_ROW] = vecfix.string_fixed(int(coef[WIDE_ROW]), 3000, 2)
    assert rest == want


def test_string_view_is_offered_the_arrow_layout_not_width():
    """layout="string_view" takes no width=, so its refusal offers layout="arrow" (which
    writes the text without a matrix) where the matrix's offers width=; both give every row."""
    coef, exps = column_with_a_wide_row()
    with pytest.raises(RowError) as info:
        vecfix.format_fixed(coef, exps, 2, layout="string_view")
    err = info.value
    assert err.row == WIDE_ROW and 'layout="arrow"' in str(err) and "width=" not in str(err)
    want = [reference_fixed(int(c), int(e), 2) for c, e in zip(coef, exps, strict=True)]
    assert vecfix.format_fixed(coef, exps, 2, layout="arrow").to_list() == want


def test_a_wide_row_beyond_int64_is_named_too():
    coef = [7] * 300 + [10**30] + [-7] * 300
    exps = [-2] * 300 + [4000] + [-2] * 300
    with pytest.raises(RowError) as info:
        vecfix.format_fixed(coef, exps, 2)
    assert info.value.row == 300


def test_rows_that_are_all_wide_are_the_text_itself():
    coef = np.arange(1, 401, dtype=np.int64)
    out = vecfix.format_fixed(coef, 3000, 2)  # 400 rows of ~3000 bytes: over 1 MiB
    assert out.matrix.nbytes > 1 << 20
    assert out.to_list()[::97] == [reference_fixed(int(c), 3000, 2) for c in coef[::97]]


def test_iter_format_names_the_row_of_the_whole_input():
    coef, exps = column_with_a_wide_row()
    with pytest.raises(RowError) as info:
        list(vecfix.iter_format(coef, exps, 2, chunksize=N // 2 + 100))
    assert info.value.row == WIDE_ROW
