"""Issue 39, items 1-4: one vocabulary (``exponent``/``scale``, a ``NumberFormat`` in the
exponent's place, the plural keywords deprecated), a null exponent or scale is a null row,
a usual null sentinel warns once a call, and the namespaces exist after ``import vecfix``
in either import order. Expected text is written by hand."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import vecfix
from vecfix import NumberFormat, SentinelWarning, _engine, format_fixed

PX = np.array([5000_250000000, -4_000050000, 12_345678901], dtype=np.int64)
PX_2 = ["5000.25", "-4.00", "12.35"]
PRICENULL9 = 2**63 - 1

# --- item 1: the words -------------------------------------------------------------------


def test_exponent_and_scale_by_name():
    assert format_fixed(PX, -9, scale=2).to_list() == PX_2
    assert format_fixed(PX, exponent=-9, scale=2).to_list() == PX_2


def test_a_number_format_in_the_exponents_place():
    assert format_fixed(PX, NumberFormat(-9, 2)).to_list() == PX_2
    with_null = np.array([5000_250000000, PRICENULL9])
    fmt = NumberFormat(-9, 2, null=PRICENULL9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # its null= given: no sentinel warning
        assert format_fixed(with_null, fmt).to_list() == ["5000.25", None]
        assert format_fixed([125, 7], NumberFormat(-2, [1, 0])).to_list() == ["1.3", "0"]


@pytest.mark.parametrize("extra", [{"scale": 2}, {"null": 5}, {"scale": 3, "null": 5}])
def test_a_number_format_and_its_keywords_is_refused(extra):
    """One or the other, as the namespaces take it (not a precedence to guess)."""
    with pytest.raises(TypeError, match="give a NumberFormat or exponent=/scale=/null=, not"):
        format_fixed(PX, NumberFormat(-9, 2), **extra)


def test_a_number_format_naming_a_column_is_refused():
    with pytest.raises(TypeError, match="format_fixed has no other columns"):
        format_fixed(PX, NumberFormat(-9, "tick"))


def test_a_number_format_without_a_scale_says_scale():
    with pytest.raises(TypeError, match=r"^scale is required"):
        format_fixed(PX, NumberFormat(-9))


@pytest.mark.parametrize(
    ("old", "new"),
    [({"exponents": -9}, {"exponent": -9}), ({"scales": 2}, {"scale": 2})],
)
def test_the_plural_keywords_warn_and_give_the_same_text(old, new):
    kwargs = {"exponent": -9, "scale": 2, **new}
    kwargs.pop(next(iter(new)))
    with pytest.warns(DeprecationWarning, match=f"{next(iter(old))}= is deprecated"):
        got = format_fixed(PX, **old, **kwargs).to_list()
    assert got == PX_2


@pytest.mark.parametrize("call", ["format_fixed", "iter_format", "write_formatted"])
def test_old_and_new_word_together_is_a_type_error(call):
    def run(**kwargs):
        if call == "format_fixed":
            return format_fixed(PX, **kwargs)
        if call == "iter_format":
            return list(vecfix.iter_format(PX, **kwargs))
        return vecfix.write_formatted(io.BytesIO(), PX, **kwargs)

    with pytest.raises(TypeError, match="give scale= only"):
        run(exponent=-9, scale=2, scales=2)
    with pytest.raises(TypeError, match="give exponent= only"):
        run(exponent=-9, exponents=-9, scale=2)


def test_iter_format_and_write_formatted_take_the_new_words_and_a_format():
    chunks = vecfix.iter_format(PX, NumberFormat(-9, 2), chunksize=2)
    assert [c.to_list() for c in chunks] == [PX_2[:2], PX_2[2:]]
    with pytest.warns(DeprecationWarning, match="iter_format: scales= is deprecated"):
        assert [c.to_list() for c in vecfix.iter_format(PX, -9, scales=2)] == [PX_2]
    f = io.BytesIO()
    with pytest.warns(DeprecationWarning, match="write_formatted: exponents= is deprecated"):
        vecfix.write_formatted(f, PX, exponents=-9, scale=2)
    assert f.getvalue() == b"5000.25\n-4.00\n12.35\n"


# The messages say the keywords too: format_fixed's own, a FIX builder's (price.exponent),
# the command line's (--exponent); the prose ("their own exponent") stays prose.
MESSAGES = {
    "no exponent": (
        lambda: format_fixed([1], scale=2),
        ("exponent is required for integer coefficients", "e.g. exponent=-9 for PRICE9"),
    ),
    "an exponent for text": (
        lambda: format_fixed(["1.5"], -2, 2),
        ("carry their own exponent; leave exponent=None", "decimals as scale=..."),
    ),
    "a scale beyond int32": (
        lambda: format_fixed([1, 2], 0, [1, 2**40]),
        ("scale must fit in int32 (-2147483648..2147483647); row 1 is 1099511627776",),
    ),
    "float prices": (
        lambda: format_fixed([1.5], -2, 2),
        ("mantissas with exponent=-9", "(then scale= only)"),
    ),
    "lengths": (
        lambda: format_fixed([1, 2], [0, 0, 0], 2),
        ("coefficients of length 2, exponent of length 3, scale (scalar)",),
    ),
}


@pytest.mark.parametrize("case", sorted(MESSAGES))
def test_format_fixed_messages_say_exponent_and_scale(case):
    call, words = MESSAGES[case]
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    text = str(info.value)
    assert all(w in text for w in words), text
    assert "exponents" not in text and "scales" not in text, text
    if isinstance(info.value, vecfix.RowError) and info.value.argument != "coefficients":
        assert info.value.argument in ("exponent", "scale")


def _snapshot(prices, price):
    import vecfix.fix as fix

    n = len(prices)
    return fix.snapshots(["A"], [n], ["0", "1"][:n], prices, [7] * n, price=price,
                         header=fix.Header("S", "T"))  # fmt: skip


@pytest.mark.parametrize(
    ("prices", "price", "want"),
    [
        (["1.5"], NumberFormat(-2, 2), "prices: coefficients are decimal text, which carry"
         " their own exponent; leave price.exponent=None\nPass the number of decimals as"
         " price.scale=..."),
        ([1.5], NumberFormat(-2, 2), "mantissas with price.exponent=-9), decimal text or Decimal"
         " values (then price.scale= only)"),
        ([1, 2], NumberFormat(-2, [2, 2**40]), "prices: price.scale must fit in int32"),
        ([125], NumberFormat(10**6, 2), "prices: row 0 (coefficient=125, exponent=1000000,"
         " scale=2) would print 1000006 bytes"),
        ([125], NumberFormat(10**6, 2), "\nCheck the exponent and scale"),
    ],
)  # fmt: skip
def test_a_builders_messages_name_price_exponent_and_keep_the_prose(prices, price, want):
    with pytest.raises((TypeError, ValueError)) as info:
        _snapshot(prices, price)
    assert want in str(info.value)


def test_the_command_line_says_its_options(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    from vecfix import cli

    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"px": [125]}), src)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = cli.main(["format", str(src), "-o", str(tmp_path / "o.csv"), "--column", "px",
                           "--scale", "2", "-q"])  # fmt: skip
    assert status != 0
    assert "--exponent is required" in err.getvalue() and "--exponent -9" in err.getvalue()
    assert "exponent=" not in err.getvalue()


# --- item 2: a null exponent or scale is a null row ---------------------------------------

NULL_SCALES = {
    "list": [2, None, 0],
    "masked": np.ma.masked_array([2, 9, 0], mask=[False, True, False]),
    "pandas": pd.Series([2, pd.NA, 0], dtype="Int64"),
    "polars": pl.Series([2, None, 0]),
    "arrow": pa.array([2, None, 0]),
}


@pytest.mark.parametrize("engine", ["kernels", "python"])
@pytest.mark.parametrize("kind", list(NULL_SCALES))
def test_a_null_scale_is_a_null_row(kind, engine):
    with _engine.forced(engine):
        out = format_fixed([125, 125, 125], -2, NULL_SCALES[kind])
    assert out.to_list() == ["1.25", None, "1"]
    assert out.valid.tolist() == [True, False, True] and out.lengths[1] == 0


@pytest.mark.parametrize("kind", list(NULL_SCALES))
def test_a_null_exponent_is_a_null_row(kind):
    exponents = NULL_SCALES[kind]  # read as exponents: 2, null, 0
    assert format_fixed([125, 125, 125], exponents, 1).to_list() == ["12500.0", None, "125.0"]


def test_every_layout_null_is_every_row_null():
    assert format_fixed([1, 2], -2, [None, None]).to_list() == [None, None]


# --- item 3: a usual null sentinel warns, once a call -------------------------------------


def _sentinels(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return [w for w in seen if issubclass(w.category, SentinelWarning)]


@pytest.mark.parametrize("engine", ["kernels", "python"])
@pytest.mark.parametrize("n", [2, 8, 1000, 100_000])
def test_int64_max_warns_once_naming_null(n, engine):
    coef = np.full(n, 5000_250000000, dtype=np.int64)
    coef[1::2] = PRICENULL9
    with _engine.forced(engine):
        seen = _sentinels(lambda: format_fixed(coef, -9, 2))
    assert len(seen) == 1 and issubclass(seen[0].category, UserWarning)
    text = str(seen[0].message)
    assert "coefficients row 1 holds 9223372036854775807" in text
    assert "null=9223372036854775807" in text
    assert seen[0].filename == __file__  # pointed at the caller's line


def test_int64_min_and_uint64_max_warn_too():
    seen = _sentinels(lambda: format_fixed(np.array([7, -(2**63)]), -9, 2))
    assert len(seen) == 1 and "int64 min" in str(seen[0].message)
    seen = _sentinels(lambda: format_fixed(np.array([7, 2**64 - 1], np.uint64), -9, 2))
    assert len(seen) == 1 and "uint64 max" in str(seen[0].message)


def test_the_sentinel_prints_as_a_number_as_before():
    with pytest.warns(SentinelWarning):
        assert format_fixed(np.array([PRICENULL9]), -9, 2).to_list() == ["9223372036.85"]


@pytest.mark.parametrize("null", [PRICENULL9, 0, [0, 1]])
def test_null_given_no_warning(null):
    assert not _sentinels(lambda: format_fixed(np.array([1, PRICENULL9]), -9, 2, null=null))


def test_a_null_row_holding_the_sentinel_does_not_warn():
    values = pa.array([5, None])  # a null row's slot may hold anything
    assert not _sentinels(lambda: format_fixed(values, -9, 2))
    masked = np.ma.masked_array([5, PRICENULL9], mask=[False, True])
    assert not _sentinels(lambda: format_fixed(masked, -9, 2))


def test_the_namespaces_warn_once_a_call():
    s = pd.Series([1, PRICENULL9, PRICENULL9, 3], name="px")
    seen = _sentinels(lambda: s.vecfix.fixed(-9, 2))
    assert len(seen) == 1 and "null=" in str(seen[0].message)
    assert not _sentinels(lambda: s.vecfix.fixed(-9, 2, null=PRICENULL9))
    p = pl.Series("px", [1, PRICENULL9, PRICENULL9])
    assert len(_sentinels(lambda: p.vecfix.fixed(-9, 2))) == 1
    df = pl.DataFrame({"px": [1, PRICENULL9]})
    assert len(_sentinels(lambda: df.select(pl.col("px").vecfix.fixed(-9, 2)))) == 1


# --- item 4: the namespaces after import vecfix, in either order ---------------------------

ORDERS = {
    "vecfix first": "import vecfix\nimport {lib}",
    "library first": "import {lib}\nimport vecfix",
}
USE = {
    "polars": "import polars as pl\npl.col('px').vecfix\n"
    "assert pl.Series([125]).vecfix.fixed(-2, 1).to_list() == ['1.3']",
    "pandas": "import pandas as pd\n"
    "assert pd.Series([125]).vecfix.fixed(-2, 1).tolist() == ['1.3']",
}


@pytest.mark.parametrize("lib", list(USE))
@pytest.mark.parametrize("order", list(ORDERS))
def test_namespaces_exist_whichever_is_imported_first(lib, order):
    code = ORDERS[order].format(lib=lib) + "\n" + USE[lib]
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_import_vecfix_imports_neither_library():
    code = (
        "import sys, vecfix\n"
        "vecfix.NumberFormat, vecfix.format_fixed\n"
        "print(sorted(m for m in ('pandas', 'polars', 'numba', 'pyarrow') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, timeout=120, capture_output=True, text=True
    )
    assert out.stdout.strip() == "[]"
