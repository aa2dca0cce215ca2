"""Trying to break ``format_fixed``: int32 edges, odd ``out=`` buffers, fast and fallback rows
mixed at random, the golden vectors on a sample, and a bounded soak of random batches.

Expected text always comes from the integer reference (``tests/reference.py``) or the Go
golden vectors, never from vecfix itself. The sizes shrink under ``NUMBA_DISABLE_JIT=1``
(the kernels then run as plain Python, about 10,000 times slower). The soak test is
bounded by ``VECFIX_SOAK_BATCHES`` batches (default 200) and ``VECFIX_SOAK_SECONDS``
seconds (default 15), whichever comes first; raise both for a long run.
"""

from __future__ import annotations

import contextlib
import decimal
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
import pytest
from conftest import INT64_MAX, INT64_MIN
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import reference_fixed

import vecfix._passes
import vecfix._plan
import vecfix._tuning
from vecfix import MAX_ROW_LENGTH, RowTooLongError, format_fixed, string_fixed

#: int64 max and min rows (golden vectors, dtype extremes) are formatted here on purpose; the
#: SentinelWarning they raise is tested in tests/test_one_vocabulary.py
pytestmark = pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")

NOJIT = bool(numba.config.DISABLE_JIT)
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def safe_expected(c: int, e: int, s: int) -> str | None:
    """The reference text, or ``None`` when it is longer than ``MAX_ROW_LENGTH``.

    Never builds a huge number: ``10**(e + s)`` for ``e + s`` near 2**32 would take the
    reference forever, so the rounded integer ``M`` is only computed when ``e + s`` is
    small, and the texts that are too long are recognised from ``M`` and the scale.
    """
    d = e + s
    a = abs(c)
    if d < -len(str(a)) - 1:  # 10**-d > 10 * |c|: nothing survives the rounding
        m = 0
    elif d > MAX_ROW_LENGTH:
        if a:
            return None  # more than d digits
        m = 0
    elif d >= 0:
        m = a * 10**d
    else:
        m = (2 * a + 10**-d) // (2 * 10**-d)
    if m == 0:  # zero with s decimals
        if s > MAX_ROW_LENGTH - 2:
            return None
        return "0" if s <= 0 else "0." + "0" * s
    if s > MAX_ROW_LENGTH or -s > MAX_ROW_LENGTH:
        return None  # s decimals, or -s trailing zeros
    with unlimited_int_digits():  # texts up to 65,536 digits: past Python's default 4,300
        text = reference_fixed(c, e, s)
    return text if len(text) <= MAX_ROW_LENGTH else None


@contextlib.contextmanager
def unlimited_int_digits():
    """Lift Python's limit on int-to-str conversion (3.11+) for the duration."""
    get = getattr(sys, "get_int_max_str_digits", None)
    if get is None:
        yield
        return
    old = get()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


# --- int32 edges of exponent and scale ----------------------------------------------------

#: int32 ends and the places where the kernels change method (|e + s| around 19 and 20);
#: the MAX_ROW_LENGTH boundary itself is pinned in test_inputs.py.
EDGES = [INT32_MIN, INT32_MIN + 1, -(10**6), -20, -19, -1, 0, 1, 19, 20, 10**6, INT32_MAX - 1,
         INT32_MAX]  # fmt: skip
EDGE_COEFS = [0, 1, -1, 5, -5, INT64_MAX, INT64_MIN, 10**30, -(10**30) - 5]


@pytest.mark.parametrize("c", EDGE_COEFS)
def test_int32_edges_print_or_raise_the_length_error(c):
    """Every exponent and scale pair at the int32 edges: the right text or RowTooLongError."""
    for e in EDGES:
        for s in EDGES:
            want = safe_expected(c, e, s)
            if want is None:
                with pytest.raises(RowTooLongError, match=r"row 0\b.*MAX_ROW_LENGTH"):
                    format_fixed([c], e, s)
                with pytest.raises(RowTooLongError, match="MAX_ROW_LENGTH"):
                    string_fixed(c, e, s)
            else:
                assert format_fixed([c], e, s).to_list() == [want], (c, e, s)
                assert string_fixed(c, e, s) == want, (c, e, s)


def test_int32_edges_per_row_name_the_first_row_too_long():
    """A column of edge rows: the error names the first row that is too long."""
    rows = [(c, e, s) for c in (0, 7, -(10**30)) for e in EDGES for s in EDGES]
    want = [safe_expected(*row) for row in rows]
    c, e, s = (list(col) for col in zip(*rows, strict=True))
    first = want.index(None)
    with pytest.raises(RowTooLongError, match=rf"row {first} \(coefficient={c[first]},"):
        format_fixed(c, np.array(e, dtype=np.int32), np.array(s, dtype=np.int32))
    ok = [i for i, w in enumerate(want) if w is not None]
    got = format_fixed([c[i] for i in ok], [e[i] for i in ok], [s[i] for i in ok])
    assert got.to_list() == [want[i] for i in ok]


@pytest.mark.parametrize("scale", [INT32_MAX, MAX_ROW_LENGTH - 1, 10**9])
def test_huge_scale_raises_before_allocating(scale):
    """``scale = 2**31 - 1`` (or 10**9) asks for gigabytes per row: refused, not attempted."""
    with pytest.raises(RowTooLongError, match=rf"row 0 .*scale={scale}\).*MAX_ROW_LENGTH"):
        format_fixed(np.array([1, 2], dtype=np.int64), -2, scale)
    with pytest.raises(RowTooLongError):
        format_fixed(np.zeros(600, dtype=np.int64), 0, scale)  # the uniform (unmeasured) path


# --- dtypes the existing input tests do not try -----------------------------------------

ODD_ARRAYS = {
    "datetime": np.array(["2024-01-01", "2024-01-02"], dtype="M8[D]"),
    "timedelta": np.array([1, 2], dtype="m8[s]"),
    "complex": np.array([1 + 0j, 2 + 0j]),
    "float16": np.array([1, 2], dtype=np.float16),
    "object floats": np.array([1.0, 2.0], dtype=object),
    "object str": np.array(["1", "2"], dtype=object),
    "bytes": np.array([b"1", b"2"]),
}


@pytest.mark.parametrize("name", ["exponent", "scale"])
@pytest.mark.parametrize("kind", ODD_ARRAYS)
def test_odd_dtypes_for_exponents_and_scales_are_refused(name, kind):
    args = {"exponent": 0, "scale": 0, name: ODD_ARRAYS[kind]}
    with pytest.raises(TypeError, match=f"{name} must be integers"):
        format_fixed(np.array([1, 2], dtype=np.int64), **args)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, np.bool_(True), [2]])
def test_bad_thread_counts_are_refused(bad):
    error = ValueError if isinstance(bad, int) and not isinstance(bad, bool) else TypeError
    with pytest.raises(error, match=r"threads must be a positive int or None, got"):
        format_fixed(np.arange(5), 0, 0, threads=bad)


# --- out= buffers that invite an overrun --------------------------------------------------


@pytest.mark.parametrize("threads", [1, 3])
def test_out_inside_a_larger_buffer_is_not_overrun(threads, monkeypatch):
    """``out`` as rows 2..n+2 of a bigger matrix: the rows around it keep their bytes.

    The kernels write with 8-byte stores that spill past a row; this checks they never
    spill past the caller's buffer, nor across thread boundaries.
    """
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 1)
    rng = np.random.default_rng(7)
    n = 37
    coef = rng.integers(INT64_MIN, INT64_MAX, n, endpoint=True, dtype=np.int64)
    exps = rng.integers(-25, 5, n).astype(np.int32)
    scales = rng.integers(-3, 22, n).astype(np.int32)
    want = [
        reference_fixed(int(c), int(e), int(s)) for c, e, s in zip(coef, exps, scales, strict=True)
    ]
    for width in (max(map(len, want)), max(map(len, want)) + 3):
        big = np.full((n + 4, width), 0xAA, dtype=np.uint8)
        out = big[2 : n + 2]
        got = format_fixed(coef, exps, scales, out=out, threads=threads)
        assert got.to_list() == want
        assert (big[:2] == 0xAA).all() and (big[n + 2 :] == 0xAA).all()
        lengths = np.array([len(w) for w in want])
        pad = np.arange(width)[None, :] >= lengths[:, None]
        assert not out[pad].any(), "bytes after a row must be zero"


# --- the golden vectors on a sample (the full files run in test_vectors.py) --------------

SAMPLE = 400 if NOJIT else 4000


@pytest.mark.parametrize("name", ["grid", "big", "prices"])
def test_golden_sample_every_input_path(golden, name):
    """Every ``len/SAMPLE``-th golden row through the int64, object, Decimal and text paths."""
    vec = golden[name]
    step = max(1, len(vec) // SAMPLE)
    rows = list(vec.rows())[::step]
    coef, exps, scales, want = (list(col) for col in zip(*rows, strict=True))
    small = [INT64_MIN <= c <= INT64_MAX for c in coef]
    idx = [i for i, ok in enumerate(small) if ok]
    got = format_fixed(
        np.array([coef[i] for i in idx], dtype=np.int64),
        np.array([exps[i] for i in idx], dtype=np.int32),
        np.array([scales[i] for i in idx], dtype=np.int32),
    )
    assert got.to_list() == [want[i] for i in idx]
    obj = np.empty(len(coef), dtype=object)
    obj[:] = coef
    assert format_fixed(obj, exps, scales).to_list() == want
    decimals = [decimal.Decimal(f"{c}E{e}") for c, e in zip(coef, exps, strict=True)]
    assert format_fixed(decimals, scale=scales).to_list() == want
    text = np.array([f"{c}E{e}" for c, e in zip(coef, exps, strict=True)])
    assert format_fixed(text, scale=scales).to_list() == want


# --- fast rows and fallback rows mixed at random positions ---------------------------------

N_MIXED = 40 if NOJIT else 1500


@settings(max_examples=10 if NOJIT else 25)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_big=st.integers(0, 12),
    per_row=st.booleans(),
    threads=st.sampled_from([1, 2, 5]),
)
def test_fast_and_fallback_rows_at_random_positions(seed, n_big, per_row, threads):
    """int64 rows with beyond-int64 rows dropped in at random places (first, last, adjacent)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, N_MIXED))
    values = rng.integers(INT64_MIN, INT64_MAX, n, endpoint=True, dtype=np.int64).tolist()
    for where in rng.integers(0, n, min(n_big, n)).tolist():
        sign = -1 if rng.random() < 0.5 else 1
        values[where] = sign * (INT64_MAX + 1 + int(rng.integers(0, 10**15)) * 10**10)
    if per_row:
        e = rng.integers(-30, 10, n).astype(np.int32)
        s = rng.integers(-5, 25, n).astype(np.int32)
    else:
        e = np.int32(rng.integers(-30, 10))
        s = np.int32(rng.integers(-5, 25))
    eb, sb = np.broadcast_to(e, (n,)).tolist(), np.broadcast_to(s, (n,)).tolist()
    want = [reference_fixed(c, x, y) for c, x, y in zip(values, eb, sb, strict=True)]
    obj = np.empty(n, dtype=object)
    obj[:] = values
    old = vecfix._tuning.MIN_ROWS_PER_THREAD
    vecfix._tuning.MIN_ROWS_PER_THREAD = 1
    try:
        got = format_fixed(obj, e, s, threads=threads)
    finally:
        vecfix._tuning.MIN_ROWS_PER_THREAD = old
    assert got.to_list() == want
    assert got.lengths.tolist() == [len(w) for w in want]


# --- soak: random batches against the reference --------------------------------------------

SOAK_BATCHES = int(os.environ.get("VECFIX_SOAK_BATCHES", "200"))
SOAK_SECONDS = float(os.environ.get("VECFIX_SOAK_SECONDS", "15"))
SOAK_ROWS = 30 if NOJIT else 3000


def _random_coefficients(rng: np.random.Generator, n: int) -> list[int]:
    """A mix of uniform int64, small values, ties, nines, the extremes and a few big ints."""
    pick = rng.integers(0, 6, n)
    uniform = rng.integers(INT64_MIN, INT64_MAX, n, endpoint=True, dtype=np.int64).tolist()
    small = rng.integers(-(10**6), 10**6, n).tolist()
    j = rng.integers(1, 19, n).tolist()
    k = rng.integers(0, 10**6, n).tolist()
    sign = np.where(rng.random(n) < 0.5, -1, 1).tolist()
    out = []
    for i in range(n):
        if pick[i] == 0:
            v = uniform[i]
        elif pick[i] == 1:
            v = small[i]
        elif pick[i] == 2:  # a tie on the rounding digit, maybe nudged
            v = sign[i] * (k[i] * 10 ** j[i] + 5 * 10 ** (j[i] - 1) + int(rng.integers(-1, 2)))
        elif pick[i] == 3:  # trailing nines
            v = sign[i] * (k[i] * 10 ** j[i] - 1)
        elif pick[i] == 4:
            v = [INT64_MIN, INT64_MAX, 0, -1, 1][i % 5]
        else:
            v = uniform[i] if rng.random() < 0.9 else sign[i] * 10 ** int(rng.integers(19, 40))
        out.append(max(-(10**40), min(10**40, v)))
    return out


def _layout(rng: np.random.Generator, arr: np.ndarray) -> np.ndarray:
    """The same values in a random memory layout: as is, reversed, strided or big-endian."""
    choice = int(rng.integers(0, 4))
    if choice == 1:
        arr = np.ascontiguousarray(arr[::-1])[::-1]
    elif choice == 2:
        wide = np.repeat(arr, 3)
        arr = wide[::3]
    elif choice == 3 and arr.dtype.kind in "iu":
        arr = arr.astype(arr.dtype.newbyteorder(">"))
    return arr


def _read_only(*arrays: np.ndarray) -> list[np.ndarray]:
    """Read-only copies: all three inputs at once, as test_inputs.py passes them.

    Numba compiles the kernels afresh for each mix of read-only and writeable arrays
    (about 30 s each, once per cache), so the soak sticks to the mix already compiled.
    """
    out = []
    for arr in arrays:
        arr = arr.copy()
        arr.flags.writeable = False
        out.append(arr)
    return out


def _one_batch(rng: np.random.Generator) -> None:
    n = int(rng.integers(0, SOAK_ROWS))
    coef = _random_coefficients(rng, n)
    per_row = rng.random() < 0.5
    if per_row:
        e = rng.integers(-45, 25, n).astype(np.int32)
        s = rng.integers(-12, 35, n).astype(np.int32)
    else:
        e, s = int(rng.integers(-45, 25)), int(rng.integers(-12, 35))
    eb = np.broadcast_to(e, (n,)).tolist()
    sb = np.broadcast_to(s, (n,)).tolist()
    sentinel = INT64_MAX if rng.random() < 0.3 else None
    want = [
        None if c == sentinel else reference_fixed(c, x, y)
        for c, x, y in zip(coef, eb, sb, strict=True)
    ]
    if all(INT64_MIN <= c <= INT64_MAX for c in coef):
        values = _layout(rng, np.array(coef, dtype=np.int64))
    else:
        values = np.empty(n, dtype=object)
        values[:] = coef
    if per_row:
        e, s = _layout(rng, e), _layout(rng, s)
        if isinstance(values, np.ndarray) and values.dtype != object and rng.random() < 0.2:
            values, e, s = _read_only(values, e, s)
    widest = max((len(w) for w in want if w is not None), default=0)
    width = None if rng.random() < 0.7 else widest + int(rng.integers(0, 9))
    threads = [1, 2, 4, None][int(rng.integers(0, 4))]
    got = format_fixed(values, e, s, width=width, threads=threads, null=sentinel)
    assert got.to_list() == want
    lengths = np.array([0 if w is None else len(w) for w in want], dtype=np.int32)
    np.testing.assert_array_equal(got.lengths, lengths)
    pad = np.arange(got.width)[None, :] >= lengths[:, None]
    assert not got.matrix[pad].any(), "bytes after a row must be zero"
    if width is not None:
        assert got.width == width


def test_soak_random_batches_against_the_reference(monkeypatch):
    """Random batches, bounded in count and time; a failure names the batch's seed."""
    monkeypatch.setattr(vecfix._tuning, "MIN_ROWS_PER_THREAD", 64)  # split even small batches
    deadline = time.monotonic() + SOAK_SECONDS
    done = 0
    for batch in range(SOAK_BATCHES):
        if batch and time.monotonic() > deadline:
            break
        seed = 20_261_129 + batch
        try:
            _one_batch(np.random.default_rng(seed))
        except AssertionError as exc:
            raise AssertionError(f"soak batch {batch} (seed {seed}) failed: {exc}") from exc
        done += 1
    assert done >= 1


@pytest.mark.parametrize(
    ("name", "bad", "words"),
    [
        ("coefficients", [1, 2, 2.5], "row 2 holds float 2.5"),
        ("coefficients", (7, 1 + 2j), r"row 1 holds complex \(1\+2j\)"),
        ("exponent", [0, 0, -1.0], r"row 2 holds float -1\.0"),
        ("scale", (2, "3", 4), "row 1 holds str '3'"),
    ],
)
def test_a_list_with_a_non_integer_names_its_row(name, bad, words):
    args = {"coefficients": [1, 2, 3], "exponent": 0, "scale": 0, name: bad}
    with pytest.raises(TypeError, match=rf"{name} must be integers; {words}"):
        format_fixed(**args)


# --- warmup -------------------------------------------------------------------------------

WARMUP_SCRIPT = """
import importlib, json, pkgutil
from numba.extending import is_jitted
import vecfix

vecfix.warmup()
idle = []
for info in pkgutil.iter_modules(vecfix._kernels.__path__):
    module = importlib.import_module("vecfix._kernels." + info.name)
    for name, obj in vars(module).items():
        if not (is_jitted(obj) and obj.__module__ == module.__name__):
            continue
        inlined = obj.targetoptions.get("inline") == "always"
        called_from_python = not name.startswith("_")  # _place: only from the kernels
        if not inlined and called_from_python and not obj.signatures:
            idle.append(module.__name__ + "." + name)
print(json.dumps(idle))
"""


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing is compiled without the JIT")
def test_warmup_compiles_every_kernel():
    """In a fresh process, ``warmup()`` leaves no kernel for a later call to compile (the
    inlined helpers and the private functions are compiled inside the kernels)."""
    proc = subprocess.run(
        [sys.executable, "-c", WARMUP_SCRIPT],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == []
