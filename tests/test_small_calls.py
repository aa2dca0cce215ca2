"""The small call (a few int64 rows of one exponent and scale, no options): the text, the
errors and the compiled signatures are those of the general path, whatever the column's
flags (writeable, read-only, not aligned) and whichever thread calls.

Up to ``FEW_ROWS`` rows the call runs one scalar pass (``vecfix._kernels.rows.format_few``);
beyond, the block kernel's passes, which measure the rows of a call below
``MEASURE_BELOW`` in one pass before they fill. Each test runs on both sizes: "few" and
"block" columns. The last section checks a few rows with per-row layouts, options and
nulls against the reference and against the passes at sizes that skip the measuring pass.
"""

from __future__ import annotations

import threading

import numba
import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN
from hypothesis import example, given
from hypothesis import strategies as st
from reference import reference_fixed

import vecfix
import vecfix._tuning
from vecfix import _format
from vecfix._kernels import fixed as _kernels
from vecfix._kernels import rows as row_kernels
from vecfix._tuning import FEW_ROWS, MEASURE_BELOW

NOJIT = bool(numba.config.DISABLE_JIT)
ROWS = [5000_250000000, -4_000050000, 12_345678901, 99_999950000, 1, 0, -31_250000, 10**17]


def _unaligned(values: list[int]) -> np.ndarray:
    """An int64 column at an odd address (a field of a packed record, say)."""
    raw = np.zeros(8 * len(values) + 1, dtype=np.uint8)
    column = np.frombuffer(raw.data, dtype=np.int64, count=len(values), offset=1)
    column.flags.writeable = True  # the buffer is ours
    column[:] = values
    assert not column.flags.aligned
    return column


def _read_only(values: list[int]) -> np.ndarray:
    column = np.array(values, dtype=np.int64)
    column.flags.writeable = False
    return column


KINDS = {
    "writeable": lambda v: np.array(v, dtype=np.int64),
    "read-only": _read_only,
    "unaligned": _unaligned,
}


def _sized(values: list[int], size: str) -> list[int]:
    """``values`` as they are ("few": up to FEW_ROWS rows), or repeated past FEW_ROWS
    ("block": the block kernel's small call)."""
    assert len(values) <= FEW_ROWS < MEASURE_BELOW // 4
    return values if size == "few" else values * (FEW_ROWS // len(values) + 1)


SIZES = ["few", "block"]


@pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")  # (int64 max and min rows)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize(
    ("exponent", "scale"),
    [(-9, 4), (-9, 0), (0, 2), (3, -2), (-2, 7), (-25, 3), (5, 10), (-19, 0), (-20, 1)],
)
def test_small_call_prints_the_reference_text(kind, exponent, scale, size):
    coef = KINDS[kind](_sized([*ROWS, INT64_MIN, INT64_MAX, -1], size))
    got = vecfix.format_fixed(coef, exponent, scale)
    want = [reference_fixed(c, exponent, scale) for c in coef.tolist()]
    assert got.to_list() == want
    assert got.width == max(map(len, want))
    assert got.lengths.tolist() == list(map(len, want))
    assert got.valid is None and got.matrix.flags.c_contiguous


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", list(KINDS))
def test_small_call_keeps_one_compiled_signature(kind, size):
    """Every small call, whatever its column's flags, runs the one compiled signature of
    ``format_few`` or ``format_rows`` (a second one would cost a cold compile); and calls
    after the first run the same code as the first."""
    rows = _sized(ROWS, size)
    first = vecfix.format_fixed(KINDS[kind](rows), -9, 4).to_list()
    again = [vecfix.format_fixed(KINDS[kind](rows), -9, 4).to_list() for _ in range(3)]
    assert again == [first] * 3 == [[reference_fixed(c, -9, 4) for c in rows]] * 3
    if not NOJIT:  # the signatures named by the kernels, and no other
        assert len(_kernels.format_rows.signatures) == 1
        assert len(row_kernels.format_few.signatures) == 1


def test_few_rows_run_the_scalar_pass(monkeypatch):
    """Up to FEW_ROWS rows (and only then) the call runs ``format_few``, the same text."""
    vecfix.format_fixed(np.array(ROWS), -3, 2)  # the first call finds the compiled code
    calls = []
    (entry,) = _format._FEW_KERNEL

    def spy(*args):
        calls.append(len(args[0]))
        return entry(*args)

    monkeypatch.setattr(_format, "_FEW_KERNEL", [spy])
    for n in (1, FEW_ROWS, FEW_ROWS + 1):
        coef = np.arange(n, dtype=np.int64) * 7919 - 40_000
        got = vecfix.format_fixed(coef, -3, 2).to_list()
        assert got == [reference_fixed(c, -3, 2) for c in coef.tolist()]
    assert calls == [1, FEW_ROWS]


@pytest.mark.parametrize("n", [0, 1, 2, FEW_ROWS, FEW_ROWS + 1, MEASURE_BELOW - 1, MEASURE_BELOW])
def test_small_call_sizes_up_to_the_general_path(n):
    rng = np.random.default_rng(n)
    coef = rng.integers(-(10**15), 10**15, n, dtype=np.int64)
    got = vecfix.format_fixed(coef, -9, 4)
    want = [reference_fixed(c, -9, 4) for c in coef.tolist()]
    assert got.to_list() == want
    assert got.matrix.shape == (n, max(map(len, want), default=0))


def test_small_call_results_are_independent():
    """Each call gets arrays of its own: a later call does not change an earlier result."""
    coef = np.array(ROWS, dtype=np.int64)
    first = vecfix.format_fixed(coef, -9, 4)
    vecfix.format_fixed(-coef, -9, 2)
    assert first.to_list() == [reference_fixed(c, -9, 4) for c in ROWS]
    assert not np.shares_memory(first.matrix, vecfix.format_fixed(coef, -9, 4).matrix)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    ("exponent", "scale", "error"),
    [(2**31, 4, "exponent must"), (-9, -(2**31) - 1, "scale must"), (-9, 2**40, "scale must")],
)
def test_small_call_refuses_what_the_general_path_refuses(exponent, scale, error, size):
    coef = np.array(_sized(ROWS, size), dtype=np.int64)
    with pytest.raises(ValueError, match=error) as small:
        vecfix.format_fixed(coef, exponent, scale)
    with pytest.raises(ValueError) as general:  # the same through the general path
        vecfix.format_fixed(coef.tolist(), exponent, scale)
    assert str(small.value) == str(general.value)


def test_small_call_with_long_rows_measures_first():
    """A layout whose rows may be longer than the small call's buffer takes the general
    path: the text is the same, and a row over the limit is refused with its row."""
    coef = np.array([1, -(10**18), 7], dtype=np.int64)
    got = vecfix.format_fixed(coef, 40, 2)
    assert got.to_list() == [reference_fixed(c, 40, 2) for c in coef.tolist()]
    with pytest.raises(ValueError, match="row 1"):
        vecfix.format_fixed(np.array([0, 5]), 10**6, 0)


def test_small_calls_from_many_threads():
    """Threads share the compiled code but not its staging arrays: every thread's text is
    its own rows'."""
    errors: list[str] = []
    barrier = threading.Barrier(4)

    def work(t: int) -> None:
        coef = np.array(ROWS, dtype=np.int64) * (t + 1) // 3
        want = [reference_fixed(c, -9, t) for c in coef.tolist()]
        barrier.wait(timeout=60)
        for _ in range(200 if not NOJIT else 5):
            got = vecfix.format_fixed(coef, -9, t).to_list()
            if got != want:
                errors.append(f"thread {t}: {got} != {want}")
                return

    pool = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert errors == []


# --- the scalar pass against the general path, on a spread of inputs ---------------------

SPECIAL = [0, 1, -1, 4, 5, -5, 9, 10, 49, 50, -50, 99, INT64_MAX, INT64_MIN, INT64_MIN + 1]


@st.composite
def _shaped(draw) -> int:
    """Ties (``k * 10**j + 5 * 10**(j-1)``, maybe off by one) and trailing nines, in int64."""
    j = draw(st.integers(1, 18))
    k = draw(st.integers(0, 10 ** (18 - j)))
    v = (
        k * 10**j
        + draw(st.sampled_from([5 * 10 ** (j - 1), 10**j - 1]))
        + draw(st.sampled_from([0, 0, -1, 1]))
    )
    v = -v if draw(st.booleans()) else v
    return max(INT64_MIN, min(INT64_MAX, v))


INT64 = st.one_of(
    st.integers(INT64_MIN, INT64_MAX),
    st.integers(-(10**7), 10**7),
    st.sampled_from(SPECIAL),
    _shaped(),
)


def _texts(result: vecfix.Formatted) -> tuple[bytes, tuple[int, ...], list[int]]:
    return result.matrix.tobytes(), result.matrix.shape, result.lengths.tolist()


@pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")  # (int64 max and min rows)
@given(
    coef=st.lists(INT64, max_size=FEW_ROWS + 3),
    exponent=st.integers(-30, 22),
    scale=st.integers(-12, 22),
)
@example(coef=[INT64_MIN, INT64_MAX, 0], exponent=-19, scale=0)
@example(coef=[INT64_MIN, -5 * 10**18, 5 * 10**18 - 1], exponent=-19, scale=0)
@example(coef=[INT64_MIN, 1], exponent=-20, scale=1)
@example(coef=[-1, 0, 1], exponent=0, scale=-12)
@example(coef=[-(10**18), 99], exponent=22, scale=-3)
def test_few_rows_print_the_general_paths_bytes(coef, exponent, scale):
    """The small call's matrix, width and lengths are byte for byte those of the general
    path (the same values as a list) and of the block kernel's small call, and its text
    the reference's."""
    column = np.array(coef, dtype=np.int64)
    got = vecfix.format_fixed(column, exponent, scale)
    assert got.to_list() == [reference_fixed(c, exponent, scale) for c in coef]
    assert _texts(got) == _texts(vecfix.format_fixed(coef, exponent, scale))  # general path
    saved = vecfix._tuning.FEW_ROWS
    vecfix._tuning.FEW_ROWS = -1  # the block kernel for every size
    try:
        block = vecfix.format_fixed(column, exponent, scale)
    finally:
        vecfix._tuning.FEW_ROWS = saved
    assert _texts(got) == _texts(block)
    assert got.valid is None and got.identity is None


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((-9, 2**31), {}),
        ((-(2**31) - 1, 2), {}),
        ((10**6, 0), {}),  # rows too long
        ((True, 2), {}),
        ((-9, 4.0), {}),
        ((-9, None), {}),
        ((-9, 4), {"threads": 0}),
        ((-9, 4), {"threads": 1.5}),
        ((-9, 4), {"width": 3}),
        ((-9, 4), {"width": -1}),
        ((-9, 4), {"layout": "rows"}),
        ((-9, 4), {"layout": "arrow", "width": 12}),
        ((-9, 4), {"out": np.zeros((2, 12), dtype=np.uint8)}),
    ],
)
def test_bad_calls_of_few_rows_raise_the_general_paths_errors(args, kwargs):
    """A call that looks like the small one but is refused: the same error, word for word,
    as the same values given as a list (the general path)."""
    coef = np.array(ROWS, dtype=np.int64)
    with pytest.raises((TypeError, ValueError)) as small:
        vecfix.format_fixed(coef, *args, **kwargs)
    with pytest.raises(type(small.value)) as general:
        vecfix.format_fixed(coef.tolist(), *args, **kwargs)
    assert str(small.value) == str(general.value)


# --- a few rows of per-row layouts, or with options: two direct kernel calls ---------------


def _layout_rows(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` coefficients with an exponent and a scale a row (int32 columns)."""
    rng = np.random.default_rng(seed)
    coef = rng.integers(-(10**15), 10**15, n, dtype=np.int64)
    exps = rng.integers(-12, 3, n).astype(np.int32)
    scales = rng.integers(-2, 10, n).astype(np.int32)
    return coef, exps, scales


def _reference_rows(coef, exps, scales) -> list[str]:
    return [
        reference_fixed(c, e, s)
        for c, e, s in zip(coef.tolist(), exps.tolist(), scales.tolist(), strict=True)
    ]


@pytest.mark.parametrize("n", [1, 2, 8, MEASURE_BELOW - 1, MEASURE_BELOW])
def test_per_row_layouts_in_a_few_rows_print_the_reference(n):
    """Per-row int32 columns (read as they are), int64 columns and lists (read by the
    columns' rules) give the reference's text in the same matrix, below and at the size
    where the passes take over."""
    coef, exps, scales = _layout_rows(n, seed=n)
    want = _reference_rows(coef, exps, scales)
    got = vecfix.format_fixed(coef, exps, scales)
    assert got.to_list() == want
    assert got.matrix.shape == (n, max(map(len, want)))
    for e, s in [(exps.astype(np.int64), scales.astype(np.int64)), (exps.tolist(), scales)]:
        assert _texts(vecfix.format_fixed(coef, e, s)) == _texts(got)


def _through_the_passes(*args, **kwargs) -> vecfix.Formatted:
    """``format_fixed(*args, **kwargs)`` by the passes (their null blocks) at any size."""
    saved = vecfix._tuning.MEASURE_BELOW
    vecfix._tuning.MEASURE_BELOW = 0
    try:
        return vecfix.format_fixed(*args, **kwargs)
    finally:
        vecfix._tuning.MEASURE_BELOW = saved


_LAYOUT = st.integers(-12, 12)


@pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")  # (int64 max and min rows)
@given(
    data=st.lists(
        st.tuples(st.one_of(st.none(), INT64), _LAYOUT, st.integers(-2, 12)),
        min_size=1,
        max_size=40,
    ),
    per_row=st.sampled_from(["neither", "exponents", "scales", "both"]),
    sentinel=st.booleans(),
)
@example(data=[(None, 5, 12)], per_row="neither", sentinel=False)  # only a null row
@example(data=[(None, -12, 12), (7, 3, -2)], per_row="both", sentinel=True)
@example(data=[(10**18, 12, -2), (None, 12, 12)], per_row="scales", sentinel=False)
def test_a_few_rows_with_nulls_print_the_passes_bytes(data, per_row, sentinel):
    """A few rows with nulls (``None`` in a list, or a sentinel) give the bytes, width,
    lengths and validity that the passes' null blocks give (a null row is a placeholder
    zero, blanked), and the reference's text."""
    coef = [c for c, _, _ in data]
    exps = [e for _, e, _ in data] if per_row in ("exponents", "both") else -9
    scales = [s for _, _, s in data] if per_row in ("scales", "both") else 4
    kwargs: dict = {}
    if sentinel and data:
        missing = 0 if all(c is None for c in coef) else next(c for c in coef if c is not None)
        coef = [missing if c is None else c for c in coef]
        kwargs["null"] = missing
    got = vecfix.format_fixed(coef, exps, scales, **kwargs)
    passes = _through_the_passes(coef, exps, scales, **kwargs)
    assert _texts(got) == _texts(passes)
    assert (got.valid is None) == (passes.valid is None)
    if got.valid is not None:
        assert got.valid.tolist() == passes.valid.tolist()
    n = len(coef)
    layouts = [
        (
            exps[i] if isinstance(exps, list) else exps,
            scales[i] if isinstance(scales, list) else scales,
        )
        for i in range(n)
    ]
    missing = kwargs.get("null")
    want = [
        None if c is None or c == missing else reference_fixed(c, e, s)
        for c, (e, s) in zip(coef, layouts, strict=True)
    ]
    assert got.to_list() == want


def test_a_few_rows_with_nulls_take_width_and_out():
    """Null rows of a few rows are blanked in a given ``out`` too (zero bytes, length 0),
    and ``width=`` pads every row."""
    coef = [5000_250000000, None, -4_000050000, None]
    want = [
        reference_fixed(5000_250000000, -9, 4),
        None,
        reference_fixed(-4_000050000, -9, 4),
        None,
    ]
    out = np.full((4, 14), 0xFF, dtype=np.uint8)
    into = vecfix.format_fixed(coef, -9, 4, out=out)
    assert into.matrix is out and into.to_list() == want
    assert not out[[1, 3]].any() and into.lengths[[1, 3]].tolist() == [0, 0]
    wide = vecfix.format_fixed(coef, -9, 4, width=20)
    assert wide.matrix.shape == (4, 20) and wide.to_list() == want
    assert _texts(wide) == _texts(_through_the_passes(coef, -9, 4, width=20))


@pytest.mark.parametrize("n", [3, MEASURE_BELOW - 1])
def test_a_few_rows_take_width_and_out(n):
    coef, exps, scales = _layout_rows(n, seed=7)
    want = _reference_rows(coef, exps, scales)
    widest = max(map(len, want))
    wide = vecfix.format_fixed(coef, exps, scales, width=widest + 5)
    assert wide.to_list() == want and wide.matrix.shape == (n, widest + 5)
    assert not wide.matrix[:, widest:].any()  # zero-padded
    out = np.full((n, widest + 2), 0xFF, dtype=np.uint8)
    into = vecfix.format_fixed(coef, exps, scales, out=out)
    assert into.matrix is out and into.to_list() == want
    assert not out[:, widest:].any()
    uniform = vecfix.format_fixed(coef, -9, 4, width=30)  # one layout, with a width
    assert uniform.to_list() == [reference_fixed(c, -9, 4) for c in coef.tolist()]


def _padded(values: np.ndarray, n: int) -> np.ndarray:
    """``values`` followed by copies of its first row, to ``n`` rows (the passes' size)."""
    return np.concatenate([values, np.repeat(values[:1], n - len(values))])


@pytest.mark.parametrize(
    ("change", "kwargs"),
    [
        ({"exps": (5, 10**6)}, {}),  # a row over MAX_ROW_LENGTH
        ({}, {"width": 9}),  # rows wider than the width
    ],
)
def test_a_few_rows_raise_the_passes_errors(change, kwargs):
    """A few rows refused: the error, word for word, that the passes give for the same rows
    followed by more (the first bad row is the same)."""
    coef, exps, scales = _layout_rows(20, seed=3)
    for name, (row, value) in change.items():
        {"exps": exps}[name][row] = value
    with pytest.raises(ValueError) as few:
        vecfix.format_fixed(coef, exps, scales, **kwargs)
    big = [_padded(a, MEASURE_BELOW) for a in (coef, exps, scales)]
    with pytest.raises(type(few.value)) as passes:
        vecfix.format_fixed(*big, **kwargs)
    assert str(few.value) == str(passes.value)
    assert few.value.row == passes.value.row


@pytest.mark.parametrize(
    "scales",
    [np.array([1, 2], dtype=np.int32), np.array([[1, 2, 3]], dtype=np.int32)],
    ids=["shorter", "2-D"],
)
def test_int32_columns_of_another_shape_raise_the_columns_errors(scales):
    """An int32 column that is not 1-D and as long as the coefficients is read by the
    columns' rules: their error, word for word, as for the same int64 column."""
    coef = np.array([125, -5, 10**12], dtype=np.int64)
    with pytest.raises(ValueError) as fast:
        vecfix.format_fixed(coef, -2, scales)
    with pytest.raises(ValueError) as general:
        vecfix.format_fixed(coef, -2, scales.astype(np.int64))
    assert str(fast.value) == str(general.value)


def test_strided_int32_columns():
    coef = np.array([125, -5, 10**12], dtype=np.int64)
    scales = np.array([2, 9, 2, 9, 0, 9], dtype=np.int32)[::2]
    exps = np.array([-3, 0, -3, 0, 1, 0], dtype=np.int32)[::2]
    got = vecfix.format_fixed(coef, exps, scales)
    want = [reference_fixed(c, -3, 2) for c in (125, -5)] + [reference_fixed(10**12, 1, 0)]
    assert want == _reference_rows(coef, exps, scales)
    assert got.to_list() == want


@pytest.mark.parametrize(
    "null",
    [int(ROWS[1]), [int(ROWS[1]), 0], 12345, np.int64(ROWS[0]), 2**64, [2**63 - 1, ROWS[-1]]],
)
@pytest.mark.parametrize("n", [8, MEASURE_BELOW + 8])
def test_a_sentinel_on_an_int64_array_reads_as_on_a_list(null, n):
    """``null=`` on a native int64 array (read without the columns' rules) marks the rows
    it marks on the same values as a list (read by them): same bytes, same validity."""
    coef = np.array((ROWS * n)[:n], dtype=np.int64)
    got = vecfix.format_fixed(coef, -9, 4, null=null)
    general = vecfix.format_fixed(coef.tolist(), -9, 4, null=null)
    assert _texts(got) == _texts(general)
    assert (got.valid is None) == (general.valid is None)
    if general.valid is not None:
        assert got.valid.tolist() == general.valid.tolist()
    marks = set(null) if isinstance(null, list) else {null}
    assert got.to_list() == [
        None if c in marks else reference_fixed(c, -9, 4) for c in coef.tolist()
    ]


@pytest.mark.parametrize(
    ("null", "scales"),
    [(1.5, 4), ("x", 4), (1.5, 2**40), ([1, 2.5], -(2**40))],
)
def test_bad_sentinels_on_an_int64_array_raise_the_general_paths_errors(null, scales):
    """A bad ``null=`` (and a bad scale too): the error, word for word, of the same values
    as a list (the sentinels are checked first on both paths)."""
    coef = np.array(ROWS, dtype=np.int64)
    with pytest.raises((TypeError, ValueError)) as fast:
        vecfix.format_fixed(coef, -9, scales, null=null)
    with pytest.raises(type(fast.value)) as general:
        vecfix.format_fixed(coef.tolist(), -9, scales, null=null)
    assert str(fast.value) == str(general.value)
