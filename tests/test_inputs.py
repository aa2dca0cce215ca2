"""What ``format_fixed`` accepts and refuses: dtypes, shapes, broadcasting, ``width``,
``out``, over-long rows and unusual memory layouts. Expected text comes from the
integer reference or is written out literally."""

from __future__ import annotations

import decimal
import re
import tracemalloc

import numba
import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN
from reference import reference_fixed

import vecfix
import vecfix._passes
import vecfix._plan
import vecfix._tuning
from vecfix import MAX_ROW_LENGTH, RowTooLongError, format_fixed

#: int64 max and min rows (golden vectors, dtype extremes) are formatted here on purpose; the
#: SentinelWarning they raise is tested in tests/test_one_vocabulary.py
pytestmark = pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1

COEF = [123456789, -5000, 0, 2675, -125, INT64_MAX, INT64_MIN, 95]
EXPS = [-4, -3, 7, -3, -3, -9, -19, -1]
SCALES = [2, 1, 0, 2, 2, 3, -1, 0]


def expected(c, e, s) -> list[str]:
    """Reference text for rows broadcast the NumPy way."""
    c, e, s = np.broadcast_arrays(np.asarray(c, dtype=object), np.asarray(e), np.asarray(s))
    return [
        reference_fixed(x, y, z) for x, y, z in zip(c.ravel(), e.ravel(), s.ravel(), strict=True)
    ]


def as_object(values) -> np.ndarray:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


# --- broadcasting -----------------------------------------------------------------------

SCALAR_FORMS = {
    "int": lambda v: v,
    "numpy scalar": lambda v: np.int32(v),
    "0-d array": lambda v: np.array(v),
    "list of one": lambda v: [v],
    "array of one": lambda v: np.array([v], dtype=np.int64),
}


@pytest.mark.parametrize("form", SCALAR_FORMS)
def test_scalar_exponent_and_scale_broadcast(form):
    wrap = SCALAR_FORMS[form]
    got = format_fixed(np.array(COEF), wrap(-3), wrap(2)).to_list()
    assert got == [reference_fixed(c, -3, 2) for c in COEF]


@pytest.mark.parametrize("form", SCALAR_FORMS)
def test_scalar_coefficient_broadcasts(form):
    got = format_fixed(SCALAR_FORMS[form](-2675), np.array(EXPS), np.array(SCALES)).to_list()
    assert got == [reference_fixed(-2675, e, s) for e, s in zip(EXPS, SCALES, strict=True)]


def test_per_row_everything():
    got = format_fixed(np.array(COEF), np.array(EXPS), np.array(SCALES)).to_list()
    assert got == expected(COEF, EXPS, SCALES)
    assert got == ["12345.68", "-5.0", "0", "2.68", "-0.13", "9223372036.855", "0", "10"]


def test_big_scalar_coefficient_broadcasts():
    big = -(10**30) - 5
    got = format_fixed(big, np.array([0, -1, -30]), 0).to_list()
    assert got == [str(big), "-100000000000000000000000000001", "-1"]
    assert format_fixed([big], [0, -1], [0]).to_list() == got[:2]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (([1, 2, 3], [1, 2], 0), ["coefficients of length 3", "exponent of length 2"]),
        (([1, 2, 3], 0, [1, 2]), ["coefficients of length 3", "scale of length 2"]),
        ((5, [1, 2, 3], [1, 2]), ["exponent of length 3", "scale of length 2"]),
        ((np.arange(4), np.arange(3), np.arange(2)), ["length 4", "length 3", "length 2"]),
    ],
)
def test_mismatched_lengths_name_the_arguments(args, words):
    with pytest.raises(ValueError, match="cannot broadcast") as info:
        format_fixed(*args)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("missing", ["exponent", "scale"])
def test_exponents_and_scales_are_required(missing):
    kwargs = {"exponent": -2, "scale": 2, missing: None}
    with pytest.raises(TypeError, match=f"{missing} is required"):
        format_fixed([1], **kwargs)


# --- coefficient dtypes -----------------------------------------------------------------

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_every_integer_dtype(dtype):
    info = np.iinfo(dtype)
    values = sorted(
        {int(info.min), int(info.min) + 1, 0, 1, 5, 95, int(info.max) - 1, int(info.max)}
    )
    values = [v for v in values if info.min <= v <= info.max]
    coef = np.array(values, dtype=dtype)
    for e, s in [(-2, 1), (0, 0), (3, 2), (-1, -1)]:
        assert format_fixed(coef, e, s).to_list() == [reference_fixed(v, e, s) for v in values]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_dtypes_for_exponents_and_scales(dtype):
    info = np.iinfo(dtype)
    e = np.array([0, 1, min(3, int(info.max))], dtype=dtype)
    s = np.array([2, 0, 1], dtype=dtype)
    got = format_fixed(np.array([-125, 7, 31]), e, s).to_list()
    assert got == expected([-125, 7, 31], e.astype(int), s.astype(int))


def test_uint64_beyond_int64_goes_to_the_fallback(monkeypatch):
    calls = []
    real = vecfix._passes.string_fixed

    def spy(c, e, s):
        calls.append(c)
        return real(c, e, s)

    monkeypatch.setattr(vecfix._passes, "string_fixed", spy)
    values = [0, INT64_MAX, INT64_MAX + 1, 2**64 - 1, 12345, 2**63 + 5 * 10**18]
    coef = np.array(values, dtype=np.uint64)
    got = format_fixed(coef, -19, 2).to_list()
    assert got == [reference_fixed(v, -19, 2) for v in values]
    assert sorted(calls) == sorted(v for v in values if v > INT64_MAX)
    assert all(type(c) is int for c in calls)


def test_int64_stays_off_the_fallback(monkeypatch):
    def refuse(*args):
        raise AssertionError(f"fallback called with {args}")

    monkeypatch.setattr(vecfix._passes, "string_fixed", refuse)
    got = format_fixed(np.array(COEF, dtype=np.int64), np.array(EXPS), np.array(SCALES))
    assert got.to_list() == expected(COEF, EXPS, SCALES)
    got = format_fixed(np.array([INT64_MAX, 0], dtype=np.uint64), -3, 1)
    assert got.to_list() == [reference_fixed(INT64_MAX, -3, 1), "0.0"]


HUGE = [10**40 + 5, -(10**40) - 5, 2**64, -(2**63) - 1, 2**63, 7, -8, 0]


def test_python_int_list_with_huge_ints():
    e, s = [-2, -1, 0, 0, 0, -1, -1, 0], [1, 0, 2, -2, 3, 0, 0, 1]
    assert format_fixed(HUGE, e, s).to_list() == expected(HUGE, e, s)


def test_object_array_with_huge_ints_and_numpy_ints():
    values = [*HUGE, np.int64(-12345), np.uint64(2**64 - 1), np.int8(-128)]
    got = format_fixed(as_object(values), -3, 2).to_list()
    assert got == [reference_fixed(int(v), -3, 2) for v in values]


def test_tuple_of_ints():
    assert format_fixed((1, -2, 3), -1, 1).to_list() == ["0.1", "-0.2", "0.3"]


@pytest.mark.parametrize("values", [[2**63, -1], [2**64 - 1, 1], [-1, 2**63]])
def test_python_list_mixing_uint64_range_and_other_ints(values):
    assert format_fixed(values, 0, 0).to_list() == [str(v) for v in values]


# --- coefficients that are refused ------------------------------------------------------


@pytest.mark.parametrize(
    ("coef", "hint"),
    [
        (np.array([1.5, 2.0]), "exponent"),
        ([1.5, 2.0], "exponent"),
        (np.array([1.0], dtype=np.float32), "exponent"),
        (np.array([True, False]), r"astype\(np.int64\)"),
        (np.array([1 + 2j]), "must be integers"),
        (np.array(["2024-01-01"], dtype="M8[D]"), "pass integer coefficients"),
        (np.array([5], dtype="m8[s]"), "pass integer coefficients"),
        (np.array([1, 2.5], dtype=object), "row 1 holds float"),
        ([10**30, "7"], "row 1 holds str"),
        (2.5, "exponent"),
    ],
)
def test_non_integer_coefficients_are_refused(coef, hint):
    with pytest.raises(TypeError, match="coefficients must be integers") as info:
        format_fixed(coef, -2, 2)
    assert info.match(hint)


@pytest.mark.parametrize(
    "values",
    [
        np.array(["1.5"]),
        np.array([b"1.5"]),
        ["1.5", "2"],
        np.array([decimal.Decimal("1.5")], dtype=object),
    ],
)
def test_values_with_their_own_exponent_refuse_an_explicit_one(values):
    with pytest.raises(TypeError, match="carry their own exponent"):
        format_fixed(values, -2, 2)


@pytest.mark.parametrize("value", [decimal.Decimal("1.25"), "1.25", b"1.25"])
def test_string_fixed_refuses_an_exponent_in_its_own_words(value):
    """string_fixed's message names its own arguments (coefficient, exponent, scale) and
    the value, not format_fixed's (coefficients, exponents, scales)."""
    with pytest.raises(TypeError, match="carries its own exponent") as info:
        vecfix.string_fixed(value, -2, 1)
    message = str(info.value)
    assert f"coefficient {value!r}" in message and "leave out exponent" in message
    assert "exponent=-2" in message and f"string_fixed({value!r}, scale=" in message
    assert not re.search(r"\b(coefficients|exponents|scales)\b", message)


def test_decimal_mixed_with_ints_is_refused_naming_the_row():
    with pytest.raises(TypeError, match=r"mix Decimal values with int: row 0"):
        format_fixed([10**30, decimal.Decimal(1)], scale=2)


@pytest.mark.parametrize(
    "coef",
    [[True, 2], [1, False], (np.True_, 3), True, np.bool_(False), [10**30, True]],
    ids=["list-true", "list-false", "tuple-np-bool", "bool", "np-bool", "big-list-with-bool"],
)
def test_bools_among_coefficients_are_refused(coef):
    with pytest.raises(TypeError, match=r"coefficients must be integers.*bool"):
        format_fixed(coef, 0, 0)


def test_ragged_coefficients_are_refused():
    with pytest.raises(TypeError, match="coefficients could not be read as an array"):
        format_fixed([[1], [2, 3]], 0, 0)


# --- exponents and scales ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["exponent", "scale"])
@pytest.mark.parametrize(
    ("bad", "row", "value"),
    [
        ([0, 2**31], 1, 2**31),
        ([-(2**31) - 1, 0], 0, -(2**31) - 1),
        (np.array([0, 0, 3_000_000_000], dtype=np.uint32), 2, 3_000_000_000),
        (np.array([0, 2**40], dtype=np.int64), 1, 2**40),
        (np.array([0, 2**63], dtype=np.uint64), 1, 2**63),
        (np.array([0, 2**40], dtype=object), 1, 2**40),
    ],
)
def test_out_of_int32_names_argument_and_row(name, bad, row, value):
    args = {"exponent": 0, "scale": 0, name: bad}
    with pytest.raises(ValueError, match=f"{name} must fit in int32") as info:
        format_fixed([1, 2, 3] if np.size(bad) == 3 else 1, **args)
    assert info.match(f"row {row} is {value}")


@pytest.mark.parametrize("name", ["exponent", "scale"])
@pytest.mark.parametrize("bad", [2**31, -(2**31) - 1, np.int64(2**40)])
@pytest.mark.parametrize("coefficients", [np.array([1, 2], dtype=np.int64), [1, 2], 5])
def test_out_of_int32_scalar_names_argument_and_value(name, bad, coefficients):
    args = {"exponent": 0, "scale": 0, name: bad}
    with pytest.raises(ValueError, match=f"{name} must fit in int32 .*, got {int(bad)}"):
        format_fixed(coefficients, **args)


@pytest.mark.parametrize("name", ["exponent", "scale"])
def test_exponent_beyond_int64_is_a_value_error(name):
    args = {"exponent": 0, "scale": 0, name: [0, 2**64]}
    with pytest.raises(ValueError, match=f"{name} must fit in int32.*row 1"):
        format_fixed([1, 2], **args)


def test_int32_extremes_are_accepted():
    got = format_fixed([1, 7, 10**30, 0, -3], [INT32_MIN, INT32_MIN, INT32_MIN, INT32_MAX, 0],
                       [0, 3, 2, 0, INT32_MIN + 1])  # fmt: skip
    assert got.to_list() == ["0", "0.000", "0.00", "0", "0"]


@pytest.mark.parametrize("name", ["exponent", "scale"])
@pytest.mark.parametrize(
    "bad",
    [1.0, np.float64(2), [1.0, 2.0], np.array([1.5, 2.5]), np.array(["1", "2"]), 1 + 0j],
)
def test_non_integer_exponents_and_scales_are_refused(name, bad):
    args = {"exponent": 0, "scale": 0, name: bad}
    with pytest.raises(TypeError, match=f"{name} must be integers"):
        format_fixed([1, 2], **args)


@pytest.mark.parametrize("name", ["exponent", "scale"])
@pytest.mark.parametrize("bad", [True, [True, False], np.array([True, False])])
def test_bool_exponents_and_scales_are_refused(name, bad):
    args = {"exponent": 0, "scale": 0, name: bad}
    with pytest.raises(TypeError, match=f"{name} must be integers"):
        format_fixed([1, 2], **args)


@pytest.mark.parametrize("name", ["exponent", "scale"])
def test_object_array_of_none_exponents_is_a_null_row(name):
    """A None exponent or scale is a null row (issue 39: it raised, where the namespaces
    gave a null row)."""
    args = {"exponent": 0, "scale": 0, name: np.array([None, 1], dtype=object)}
    assert format_fixed([1, 2], **args).to_list() == [None, "2.0" if name == "scale" else "20"]


@pytest.mark.parametrize("name", ["exponent", "scale"])
def test_object_array_of_float_exponents_is_refused(name):
    args = {"exponent": 0, "scale": 0, name: np.array([1.5], dtype=object)}
    with pytest.raises(TypeError, match=f"{name} must be integers"):
        format_fixed([1], **args)


# --- shapes -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["coefficients", "exponent", "scale"])
@pytest.mark.parametrize("shape", [(2, 2), (4, 1), (1, 4), (1, 2, 2)])
def test_two_dimensional_inputs_are_refused(name, shape):
    args = {"coefficients": np.arange(4), "exponent": 0, "scale": 1}
    args[name] = np.zeros(shape, dtype=np.int64)
    with pytest.raises(ValueError, match=rf"{name} must be a scalar or 1-D.*\nPass \.ravel"):
        format_fixed(args["coefficients"], args["exponent"], args["scale"])


@pytest.mark.parametrize(
    "coef",
    [np.array([], dtype=np.int64), np.array([], dtype=np.uint8), np.array([], dtype=object)],
    ids=["int64", "uint8", "object"],
)
def test_empty_input(coef):
    out = format_fixed(coef, -2, 2)
    assert len(out) == 0 and out.width == 0 and out.matrix.shape == (0, 0)
    assert out.to_list() == [] and out.lengths.shape == (0,)
    wide = format_fixed(coef, -2, 2, width=7)
    assert wide.width == 7 and wide.matrix.shape == (0, 7)


def test_empty_exponents_with_scalar_coefficient():
    out = format_fixed(5, np.array([], dtype=np.int32), 0)
    assert len(out) == 0 and out.to_list() == []


def test_empty_list():
    assert format_fixed([], -2, 2).to_list() == []


@pytest.mark.parametrize("coef", [np.int64(-2675), np.array(-2675), -2675, np.uint16(2675)])
def test_zero_d_gives_one_row(coef):
    out = format_fixed(coef, -3, 2)
    assert len(out) == 1 and out.matrix.shape == (1, out.width)
    assert out.to_list() == [reference_fixed(int(coef), -3, 2)]


# --- width ------------------------------------------------------------------------------


def test_wider_width_pads_with_zeros():
    plain = format_fixed(np.array(COEF), np.array(EXPS), np.array(SCALES))
    wide = format_fixed(np.array(COEF), np.array(EXPS), np.array(SCALES), width=plain.width + 9)
    assert wide.width == plain.width + 9
    assert wide.to_list() == plain.to_list()
    np.testing.assert_array_equal(wide.lengths, plain.lengths)
    np.testing.assert_array_equal(wide.matrix[:, : plain.width], plain.matrix)
    assert not wide.matrix[:, plain.width :].any()
    assert wide.to_numpy().tolist() == plain.to_numpy().tolist()


def test_exact_width_is_accepted():
    assert format_fixed([1, 12345], 0, 2, width=8).to_list() == ["1.00", "12345.00"]


def test_too_narrow_width_names_the_first_row_that_does_not_fit():
    with pytest.raises(RowTooLongError) as info:
        format_fixed([1, 12345, 1234567], 0, 2, width=5)
    assert isinstance(info.value, ValueError)
    msg = str(info.value)
    assert "row 1 (coefficient=12345, exponent=0, scale=2) needs 8 bytes" in msg
    assert "width is 5" in msg and "widest row needs 10" in msg


def test_too_narrow_width_for_a_fallback_row():
    with pytest.raises(RowTooLongError, match=r"row 2 \(coefficient=100000000000000000000,"):
        format_fixed([1, 2, 10**20], 0, 0, width=3)


@pytest.mark.parametrize(
    ("width", "error"),
    [(-1, ValueError), (MAX_ROW_LENGTH + 1, ValueError), (True, TypeError), (5.0, TypeError)],
)
def test_bad_width(width, error):
    with pytest.raises(error, match="width"):
        format_fixed([1], 0, 0, width=width)


def test_numpy_integer_width():
    assert format_fixed([1], 0, 1, width=np.int16(6)).width == 6


# --- out --------------------------------------------------------------------------------


def test_out_is_filled_in_place():
    out = np.full((len(COEF), 30), 0xAA, dtype=np.uint8)
    result = format_fixed(np.array(COEF), np.array(EXPS), np.array(SCALES), out=out)
    assert result.matrix is out and np.shares_memory(result.to_numpy(), out)
    want = expected(COEF, EXPS, SCALES)
    assert result.to_list() == want and result.width == 30
    raw = np.array([x.encode() for x in want], dtype="S30")
    np.testing.assert_array_equal(out, raw.view(np.uint8).reshape(out.shape))


def test_out_with_fallback_rows_and_matching_width():
    out = np.full((3, 25), 0xFF, dtype=np.uint8)
    result = format_fixed([10**22 + 5, -7, 2**64], -1, 0, out=out, width=25)
    assert result.matrix is out
    assert result.to_list() == ["1000000000000000000001", "-1", "1844674407370955162"]
    assert not out[0, 22:].any() and not out[1, 2:].any()


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (lambda: np.zeros((2, 8), dtype=np.int8), TypeError, "2-D uint8"),
        (lambda: np.zeros((2, 8), dtype=np.uint16), TypeError, "2-D uint8"),
        (lambda: np.zeros(16, dtype=np.uint8), TypeError, "2-D uint8"),
        (lambda: [[0] * 8] * 2, TypeError, "2-D uint8"),
        (
            lambda: np.zeros((3, 8), dtype=np.uint8),
            ValueError,
            "out has 3 rows but the inputs have 2",
        ),
        (lambda: np.zeros((2, 8), dtype=np.uint8, order="F"), ValueError, "C-contiguous"),
        (lambda: np.zeros((2, 16), dtype=np.uint8)[:, ::2], ValueError, "C-contiguous"),
    ],
    ids=["int8", "uint16", "1-D", "list", "rows", "fortran", "strided"],
)
def test_bad_out(make, error, words):
    with pytest.raises(error, match=words):
        format_fixed([1, 2], 0, 1, out=make())


def test_readonly_out():
    out = np.zeros((2, 8), dtype=np.uint8)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        format_fixed([1, 2], 0, 1, out=out)


def test_out_too_narrow():
    with pytest.raises(RowTooLongError, match=r"row 1 .* needs 7 bytes but the width is 4"):
        format_fixed([1, 1000], 0, 2, out=np.zeros((2, 4), dtype=np.uint8))


def test_out_and_width_disagree():
    with pytest.raises(ValueError, match=r"width=4 disagrees with out.shape\[1\]=8"):
        format_fixed([1], 0, 1, out=np.zeros((1, 8), dtype=np.uint8), width=4)


# --- rows longer than MAX_ROW_LENGTH ----------------------------------------------------


def test_max_row_length_is_exact():
    s = MAX_ROW_LENGTH - 2  # "1." and s zeros: exactly MAX_ROW_LENGTH bytes
    ok = format_fixed([1], 0, s)
    assert ok.width == MAX_ROW_LENGTH and ok[0] == "1." + "0" * s
    assert vecfix.string_fixed(1, 0, s) == ok[0]
    with pytest.raises(RowTooLongError, match=f"would print {MAX_ROW_LENGTH + 1} bytes"):
        format_fixed([1], 0, s + 1)
    with pytest.raises(RowTooLongError):
        vecfix.string_fixed(1, 0, s + 1)


@pytest.mark.parametrize(
    ("coef", "exps", "scales", "row", "needs"),
    [
        ([1], 0, INT32_MAX, 0, INT32_MAX + 2),
        ([7, 8, 9], [0, 10**6, 0], 0, 1, 10**6 + 1),
        ([-1, -2], [0, 10**6], [0, -10], 1, 10**6 + 2),
        ([5, 6], INT32_MAX, INT32_MAX, 0, 2**32),
        ([0, 1], 0, [INT32_MAX, 0], 0, INT32_MAX + 2),
        ([1, 10**30], [0, 10**6], 0, 1, 10**6 + 31),
        ([10**30, 1], 0, [INT32_MAX, 0], 0, None),
    ],
)
def test_too_long_rows_are_refused_cheaply(coef, exps, scales, row, needs):
    tracemalloc.start()
    try:
        with pytest.raises(RowTooLongError, match=f"row {row}\\b") as info:
            format_fixed(coef, exps, scales)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(info.value, ValueError)
    assert "MAX_ROW_LENGTH" in str(info.value)
    if needs is not None:
        assert f"{needs} bytes" in str(info.value)
    assert peak < 50 * 2**20, f"peak {peak} bytes traced"


@pytest.mark.parametrize(("c", "e", "s"), [(1, 0, INT32_MAX), (10**40, 10**6, 0), (3, 10**7, -5)])
def test_string_fixed_too_long(c, e, s):
    with pytest.raises(RowTooLongError, match="MAX_ROW_LENGTH"):
        vecfix.string_fixed(c, e, s)


# --- memory layouts ---------------------------------------------------------------------

BASE_COEF = np.array([INT64_MIN, -2675, -125, 0, 5, 95, 12345678901, INT64_MAX], dtype=np.int64)
BASE_EXPS = np.array([-19, -3, -3, 0, 3, -1, -9, -18], dtype=np.int32)
BASE_SCALES = np.array([0, 2, 2, 1, 2, 0, 4, -1], dtype=np.int32)


def _same_as_contiguous(coef, exps, scales):
    got = format_fixed(coef, exps, scales)
    ref = format_fixed(np.ascontiguousarray(coef).astype(coef.dtype.newbyteorder("=")),
                       np.ascontiguousarray(exps).astype(np.int32),
                       np.ascontiguousarray(scales).astype(np.int32))  # fmt: skip
    np.testing.assert_array_equal(got.matrix, ref.matrix)
    np.testing.assert_array_equal(got.lengths, ref.lengths)
    assert got.to_list() == expected(coef.tolist(), exps.tolist(), scales.tolist())


def test_strided_inputs():
    wide_c = np.repeat(BASE_COEF, 3)
    wide_e = np.repeat(BASE_EXPS, 2)
    wide_s = np.repeat(BASE_SCALES, 5)
    _same_as_contiguous(wide_c[::3], wide_e[::2], wide_s[::5])
    assert not wide_c[::3].flags.c_contiguous


def test_reversed_inputs():
    _same_as_contiguous(BASE_COEF[::-1], BASE_EXPS[::-1], BASE_SCALES[::-1])


def test_column_of_a_2d_array():
    table = np.stack([BASE_COEF, BASE_COEF * 0 + 1])
    fortran = np.asfortranarray(table)
    _same_as_contiguous(fortran[0], BASE_EXPS, BASE_SCALES)


@pytest.mark.parametrize("dtype", [">i8", ">i4", ">u8", ">u2", "<i8"])
def test_byte_orders(dtype):
    info = np.iinfo(np.dtype(dtype))
    values = BASE_COEF.clip(int(info.min), int(info.max)).astype(dtype)
    exps = BASE_EXPS.astype(">i4")
    scales = BASE_SCALES.astype(">i2")
    assert values.dtype.byteorder in "<>=|"
    _same_as_contiguous(values, exps, scales)


def test_uint64_big_endian_beyond_int64():
    values = np.array([2**64 - 1, 3, INT64_MAX + 1], dtype=">u8")
    assert format_fixed(values, -1, 0).to_list() == expected([2**64 - 1, 3, INT64_MAX + 1], -1, 0)


def test_read_only_inputs():
    c, e, s = BASE_COEF.copy(), BASE_EXPS.copy(), BASE_SCALES.copy()
    for arr in (c, e, s):
        arr.flags.writeable = False
    _same_as_contiguous(c, e, s)


def test_memmap_inputs(tmp_path):
    maps = []
    for name, arr in (("c", BASE_COEF), ("e", BASE_EXPS), ("s", BASE_SCALES)):
        mm = np.memmap(tmp_path / f"{name}.bin", dtype=arr.dtype, mode="w+", shape=arr.shape)
        mm[:] = arr
        mm.flush()
        maps.append(np.memmap(tmp_path / f"{name}.bin", dtype=arr.dtype, mode="r", shape=arr.shape))
    _same_as_contiguous(*maps)
    del maps


def test_inputs_are_not_modified():
    c, e, s = BASE_COEF.copy(), BASE_EXPS.copy(), BASE_SCALES.copy()
    obj = as_object([10**30, -5])
    format_fixed(c, e, s)
    format_fixed(obj, [0, -1], 1)
    np.testing.assert_array_equal(c, BASE_COEF)
    np.testing.assert_array_equal(e, BASE_EXPS)
    np.testing.assert_array_equal(s, BASE_SCALES)
    assert obj.tolist() == [10**30, -5]


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no compiled signatures without the JIT")
def test_read_only_and_writeable_inputs_share_one_compiled_kernel():
    """A read-only array (np.load(mmap_mode="r"), Arrow buffers) must not cost a recompile:
    the kernels only ever see read-only inputs, so both kinds share one signature."""
    writeable = np.array([12345, -678], dtype=np.int64)
    read_only = writeable.copy()
    read_only.flags.writeable = False
    exps = np.array([-2, -3], dtype=np.int32)
    assert format_fixed(read_only, exps, 1).to_list() == format_fixed(writeable, exps, 1).to_list()
    # The one-call path for a few rows of one layout: the same rule for its coefficients.
    assert format_fixed(read_only, -2, 1).to_list() == format_fixed(writeable, -2, 1).to_list()
    from vecfix._kernels.fixed import format_rows as kernel

    assert len(kernel.signatures) == 1
    for signature in kernel.signatures:
        coef, exps_type, scales_type = signature[2], signature[4], signature[6]
        assert not (coef.mutable or exps_type.mutable or scales_type.mutable), signature


_PLAIN_ITEMS = [0, 1, -1, 7, INT64_MAX, INT64_MIN, INT64_MAX + 1, INT64_MIN - 1, 10**30]


@pytest.mark.parametrize(
    "values",
    [
        [5],
        [1, -2, 3],
        _PLAIN_ITEMS,  # ints beyond int64: the reader's big values
        [1, None, 3],
        [True, 2],
        [np.int64(5), 6],
        [1, decimal.Decimal("2")],
        [1, "2"],
        [2**63 - 1, 5],
    ],
)
@pytest.mark.parametrize("null", [None, 5, [1, 2**63 - 1]])
@pytest.mark.parametrize(
    ("exponents", "scales", "kwargs"),
    [
        (-2, 1, {}),
        (None, 1, {}),
        (-2, None, {}),
        (-2, 2**40, {}),
        (10**6, 0, {}),
        (-2, np.int32(1), {}),
        (-2, 1, {"width": 2}),
        (-2, 1, {"layout": "arrow"}),
    ],
)
def test_a_list_of_ints_reads_as_the_columns_reader_reads_it(
    values, null, exponents, scales, kwargs, monkeypatch
):
    """A list of Python ints (read without the columns' reader when every item is an int
    within int64: a few of one layout then take the small call) gives the rows,
    validity, text and errors the reader gives."""
    from vecfix import _inputs

    def run():
        try:
            got = vecfix.format_fixed(values, exponents, scales, null=null, **kwargs)
        except (TypeError, ValueError) as exc:
            return type(exc), str(exc)
        return got.matrix.tobytes(), got.lengths.tolist(), got.to_list()

    quick = run()
    monkeypatch.setattr(_inputs, "_int_list", lambda values: None)  # the reader alone
    assert quick == run()
    if len(quick) == 3 and exponents is not None:  # formatted (not refused)
        marks = set(null) if isinstance(null, list) else {null}
        want = [
            None if v is None or v in marks else reference_fixed(int(v), exponents, int(scales))
            for v in values
        ]
        assert quick[2] == want


@pytest.mark.parametrize(
    ("value", "kwargs", "error", "words"),
    [
        (1.5, {"exponent": -9, "scale": 2}, TypeError, "coefficient must be an int, a Decimal"),
        (np.float64(2.5), {"exponent": 0, "scale": 2}, TypeError, "got the float 2.5"),
        ("x", {"scale": 1}, ValueError, "coefficient: 'x' is not decimal text"),
        (b"1.2.3", {"scale": 1}, ValueError, "coefficient: '1.2.3' is not decimal text"),
        (decimal.Decimal("NaN"), {"scale": 1}, ValueError, "coefficient"),
    ],
)
def test_string_fixed_refuses_one_value_in_its_own_words(value, kwargs, error, words):
    """One value refused: string_fixed names its own argument (coefficient), no row (there
    is one value), and its own call in the advice, never format_fixed's plural arguments
    (coefficients)."""
    with pytest.raises(error) as info:
        vecfix.string_fixed(value, **kwargs)
    message = str(info.value)
    assert words in message
    assert "row" not in message
    assert not re.search(r"\b(coefficients|exponents|scales)\b", message)


@pytest.mark.parametrize("argument", ["exponent", "scale"])
@pytest.mark.parametrize(
    "values, row, held",
    [
        ([1, decimal.Decimal(2), 0], 1, "Decimal Decimal('2')"),
        ([decimal.Decimal(1), 2, 0], 0, "Decimal Decimal('1')"),
        (["1", 2, 0], 0, "str '1'"),
        ((1, b"2", 0), 1, "bytes b'2'"),
    ],
)
def test_exponents_and_scales_mixing_ints_name_the_row_that_is_not_one(argument, values, row, held):
    """They take integers only: the row to name is the Decimal or text one (read as a
    column of Decimals or text, the message named an int row and told to pass every row
    as Decimal values)."""
    args = {"exponent": (values, 2), "scale": (1, values)}[argument]
    with pytest.raises(
        TypeError, match=rf"^{argument} must be integers; row {row} holds {re.escape(held)}$"
    ):
        format_fixed(np.arange(3), *args)


@pytest.mark.parametrize("argument", ["exponent", "scale"])
def test_time_typed_exponents_and_scales_are_not_told_about_prices(argument):
    times = np.array([1, 2, 3], dtype="m8[s]")
    args = {"exponent": (times, 2), "scale": (1, times)}[argument]
    with pytest.raises(TypeError, match=f"^{argument} must be integers, got .*timedelta64") as err:
        format_fixed(np.arange(3), *args)
    assert "prices" not in str(err.value) and "coefficients" not in str(err.value)


def test_a_memoryview_of_numbers_is_an_array_and_one_of_bytes_is_text():
    coef = np.array([125, -5, 2**40], dtype=np.int64)
    want = [reference_fixed(int(c), -2, 1) for c in coef]
    assert format_fixed(memoryview(coef), -2, 1).to_list() == want  # was read as text
    assert format_fixed(memoryview(coef.astype(np.int32)[:2]), -2, 1).to_list() == want[:2]
    assert format_fixed(memoryview(b"1.25"), scale=1).to_list() == ["1.3"]
    with pytest.raises(TypeError, match="float64"):
        format_fixed(memoryview(np.array([1.5])), -2, 1)


def test_float_exponents_get_the_cast_of_their_own_library():
    pa = pytest.importorskip("pyarrow")
    for floats, cast in (
        (pa.array([1.0, 2.0]), ".cast(pa.int32())"),
        (pa.chunked_array([[1.0], [2.0]]), ".cast(pa.int32())"),
        (np.array([1.0, 2.0]), ".astype(np.int32)"),
    ):
        with pytest.raises(TypeError, match=re.escape(f"convert whole numbers with {cast}")):
            format_fixed(np.arange(2), floats, 2)
