"""Validation and coercion of user input, done once at the boundary.

Everything the kernels receive is checked here: dtypes, int32 ranges, shapes and
broadcasting. Messages name the argument, and where it matters the row and the value.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ._fallback import INT32_MAX, INT32_MIN

_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min
_NAMES = ("coefficients", "exponents", "scales")
_NATIVE_INT64 = np.dtype(np.int64)
_NO_ROWS = np.empty(0, dtype=np.intp)


class Rows(NamedTuple):
    """Inputs ready for the kernels.

    ``coef``, ``exps`` and ``scales`` are contiguous 1-D arrays of native int64, int32
    and int32, each either ``n`` long (step 1) or a single broadcast value (step 0).
    Coefficients beyond int64 sit in ``big_values``, at the rows ``big_rows``; their slot
    in ``coef`` holds 0 so that the kernels can run over them harmlessly.
    """

    n: int
    coef: np.ndarray
    cstep: int
    exps: np.ndarray
    estep: int
    scales: np.ndarray
    sstep: int
    big_rows: np.ndarray
    big_values: list[int]

    def row(self, i: int) -> tuple[int, int, int]:
        """The ``(coefficient, exponent, scale)`` of row ``i`` as Python ints."""
        where = np.flatnonzero(self.big_rows == i)
        c = self.big_values[where[0]] if where.size else int(self.coef[i * self.cstep])
        return c, int(self.exps[i * self.estep]), int(self.scales[i * self.sstep])


def _kind_error(name: str, arr: np.ndarray, seq: list | tuple | None = None) -> TypeError:
    """The error for a non-integer dtype; for a sequence it names the first non-integer row."""
    hint = {
        "f": " Floats cannot hold decimal prices exactly: pass integer coefficients with an"
        " exponent (e.g. mantissas with exponents=-9), or decimal.Decimal values.",
        "b": " Booleans are not numbers here: convert explicitly with .astype(np.int64).",
        "c": "",
        "M": " Datetimes are not prices: pass integer coefficients.",
        "m": " Timedeltas are not prices: pass integer coefficients.",
    }.get(arr.dtype.kind, "")
    if seq is not None:
        i, v = next((i, v) for i, v in enumerate(seq) if not _is_int(v))
        return TypeError(f"{name} must be integers; row {i} holds {type(v).__name__} {v!r}.{hint}")
    return TypeError(f"{name} must be integers, got an array of dtype {arr.dtype}.{hint}")


def _check_ndim(name: str, arr: np.ndarray) -> None:
    if arr.ndim > 1:
        raise ValueError(
            f"{name} must be a scalar or 1-D, got shape {arr.shape}; pass .ravel() to"
            " format every element in row-major order"
        )


def _is_int(v: object) -> bool:
    """An integer that is not a bool (Python or NumPy)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _from_sequence(name: str, seq: list | tuple) -> np.ndarray:
    """A flat list or tuple as an array, without NumPy's silent guesses.

    NumPy reads ``[True, 2]`` as int64, ``[-1, 2**63]`` as float64 and ``[]`` as float64;
    here bools are refused, all-integer lists stay integers (an object array when they do
    not fit one NumPy dtype) and an empty list is an empty int64 array.
    """
    if not seq:
        return np.empty(0, dtype=np.int64)
    types = set(map(type, seq))
    if bool in types or np.bool_ in types:
        raise TypeError(f"{name} must be integers, got a bool among them")
    arr = np.asarray(seq)
    if arr.dtype.kind in "fO" and arr.ndim == 1 and all(map(_is_int, seq)):
        arr = np.empty(len(seq), dtype=object)
        arr[:] = seq
    return arr


def _as_array(name: str, value: object) -> np.ndarray:
    if isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be integers, got the bool {value!r}")
    else:
        try:
            if isinstance(value, (list, tuple)):
                arr = _from_sequence(name, value)
            else:
                arr = np.asarray(value)
        except (ValueError, TypeError, OverflowError) as exc:  # ragged lists and the like
            raise TypeError(f"{name} could not be read as an array: {exc}") from None
        if isinstance(value, (list, tuple)) and arr.ndim == 1 and arr.dtype.kind not in "iuO":
            raise _kind_error(name, arr, value)  # name the first row that is not an int
    _check_ndim(name, arr)
    return arr


def coerce_coefficients(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Coefficients as native int64 (1-D, at least one element for a scalar).

    Returns ``(coef, big_rows, big_values)`` where the rows listed in ``big_rows`` hold
    integers beyond int64 (their ``coef`` slot is 0).
    """
    kind = arr.dtype.kind
    no_big = np.empty(0, dtype=np.intp)
    if kind == "i":
        return np.ascontiguousarray(arr.reshape(-1), dtype=np.int64), no_big, []
    if kind == "u":
        flat = arr.reshape(-1)
        if arr.dtype.itemsize < 8:
            return np.ascontiguousarray(flat, dtype=np.int64), no_big, []
        big = np.flatnonzero(flat > _INT64_MAX)
        coef = np.ascontiguousarray(flat, dtype=np.uint64).astype(np.int64)
        values = [int(v) for v in flat[big]]
        coef[big] = 0
        return coef, big, values
    if kind == "O":
        return _coerce_objects(arr.reshape(-1))
    raise _kind_error("coefficients", arr)


def _coerce_objects(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]]:
    values = flat.tolist()
    for i, v in enumerate(values):
        if not _is_int(v):
            raise TypeError(
                f"coefficients must be integers; row {i} holds {type(v).__name__} {v!r}."
                " Pass Python or NumPy ints (Decimal values: split them into coefficient and"
                " exponent first)"
            )
    coef = np.zeros(len(values), dtype=np.int64)
    big_rows, big_values = [], []
    for i, v in enumerate(values):
        v = int(v)
        if _INT64_MIN <= v <= _INT64_MAX:
            coef[i] = v
        else:
            big_rows.append(i)
            big_values.append(v)
    return coef, np.array(big_rows, dtype=np.intp), big_values


def coerce_int32(arr: np.ndarray, name: str) -> np.ndarray:
    """Exponents or scales as native int32 (1-D, at least one element for a scalar)."""
    if arr.dtype.kind == "O":
        values = arr.reshape(-1).tolist()
        for i, v in enumerate(values):
            if not _is_int(v):
                raise TypeError(f"{name} must be integers; row {i} holds {type(v).__name__} {v!r}")
            if not INT32_MIN <= v <= INT32_MAX:
                raise ValueError(
                    f"{name} must fit in int32 ({INT32_MIN}..{INT32_MAX}); row {i} is {int(v)}"
                )
        arr = np.array(values, dtype=np.int32).reshape(arr.shape)
    if arr.dtype.kind not in "iu":
        raise _kind_error(name, arr)
    flat = arr.reshape(-1)
    if flat.size and arr.dtype.itemsize >= 4 and arr.dtype != np.int32:  # may not fit int32
        lo, hi = int(flat.min()), int(flat.max())
        if lo < INT32_MIN or hi > INT32_MAX:
            i = int(np.flatnonzero((flat < INT32_MIN) | (flat > INT32_MAX))[0])
            raise ValueError(
                f"{name} must fit in int32 ({INT32_MIN}..{INT32_MAX}); row {i} is {int(flat[i])}"
            )
    return np.ascontiguousarray(flat, dtype=np.int32)


def _int32_scalar(value: object, name: str) -> np.ndarray | None:
    """A plain integer exponent or scale as a 1-element int32 array (the cheap common case)."""
    if not _is_int(value):
        return None
    if not INT32_MIN <= value <= INT32_MAX:
        raise ValueError(f"{name} must fit in int32 ({INT32_MIN}..{INT32_MAX}), got {int(value)}")
    return _int32_constant(int(value))


@functools.lru_cache(maxsize=4096)
def _int32_constant(value: int) -> np.ndarray:
    """A read-only 1-element int32 array, shared by every call with this exponent or scale."""
    array = np.array((value,), dtype=np.int32)
    array.flags.writeable = False
    return array


def _broadcast_length(shapes: list[tuple[int, ...]]) -> int:
    """NumPy's broadcasting for scalars and 1-D arrays: the common length of the inputs."""
    n = 1
    for shape in shapes:
        if shape and shape[0] != 1:
            if n != 1 and shape[0] != n:
                described = ", ".join(
                    f"{name} {'(scalar)' if not s else f'of length {s[0]}'}"
                    for name, s in zip(_NAMES, shapes, strict=True)
                )
                raise ValueError(f"cannot broadcast {described} to one length")
            n = shape[0]
    return n


def prepare(coefficients: object, exponents: object, scales: object) -> Rows:
    """Check, coerce and broadcast the three inputs."""
    if exponents is None:
        raise TypeError("exponents is required for integer coefficients (e.g. -9 for PRICE9)")
    if scales is None:
        raise TypeError("scales is required: the number of decimal places to print")
    if (
        type(coefficients) is np.ndarray
        and coefficients.dtype == _NATIVE_INT64
        and coefficients.ndim == 1
        and coefficients.flags.c_contiguous
        and _is_int(exponents)
        and _is_int(scales)
    ):  # the common call, checked in a few microseconds
        n = coefficients.shape[0]
        exps, scs = _int32_scalar(exponents, "exponents"), _int32_scalar(scales, "scales")
        return Rows(n, coefficients, int(n != 1), exps, 0, scs, 0, _NO_ROWS, [])
    coef_array = _as_array("coefficients", coefficients)
    coef, big_rows, big_values = coerce_coefficients(coef_array)
    shapes = [coef_array.shape]
    columns = []
    for name, value in (("exponents", exponents), ("scales", scales)):
        column = _int32_scalar(value, name)
        if column is None:
            array = _as_array(name, value)
            column = coerce_int32(array, name)
            shapes.append(array.shape)
        else:
            shapes.append(())
        columns.append(column)
    exps, scs = columns
    n = _broadcast_length(shapes)
    if big_rows.size and coef.size == 1 and n != 1:
        big_rows, big_values = np.arange(n, dtype=np.intp), big_values * n
    return Rows(
        n=n,
        coef=coef,
        cstep=int(coef.size != 1),
        exps=exps,
        estep=int(exps.size != 1),
        scales=scs,
        sstep=int(scs.size != 1),
        big_rows=big_rows,
        big_values=big_values,
    )
