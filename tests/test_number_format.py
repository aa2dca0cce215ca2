"""NumberFormat: one record of how a column is printed, checked when it is made."""

import numpy as np
import pytest

from vecfix import NumberFormat


def test_fields_in_the_order_format_fixed_takes_them():
    fmt = NumberFormat(-9, 2, null=2**63 - 1)
    assert (fmt.exponent, fmt.scale, fmt.null) == (-9, 2, 2**63 - 1)
    assert NumberFormat(scale=2).exponent is None


def test_numpy_ints_become_python_ints():
    fmt = NumberFormat(np.int64(-9), np.int32(4))
    assert type(fmt.exponent) is int and type(fmt.scale) is int


def test_several_sentinels_kept_as_a_tuple():
    assert NumberFormat(-9, 2, null=[1, 2]).null == (1, 2)
    assert NumberFormat(-9, 2, null=[7]).null == 7


@pytest.mark.parametrize("bad", [True, 1.5, np.float64(2.0), np.bool_(False)])
@pytest.mark.parametrize("name", ["exponent", "scale"])
def test_bools_and_floats_refused_naming_the_field(name, bad):
    with pytest.raises(TypeError, match=f"NumberFormat: {name} must be an int"):
        NumberFormat(**{name: bad})


@pytest.mark.parametrize("name", ["exponent", "scale"])
def test_outside_int32_refused(name):
    with pytest.raises(ValueError, match=f"{name} must fit in int32"):
        NumberFormat(**{name: 2**31})


def test_empty_column_name_refused():
    with pytest.raises(TypeError, match="names no column"):
        NumberFormat(-9, "")


def test_null_must_be_ints():
    with pytest.raises(TypeError, match="null must be an int"):
        NumberFormat(-9, 2, null="NA")


def test_per_row():
    assert not NumberFormat(-9, 2).per_row
    assert NumberFormat(-9, "tick").per_row
    assert NumberFormat(np.array([-9, -4]), 2).per_row
