"""The kernels' view of the input: :class:`Rows`, built from columns read by
:mod:`vecfix.columns` (which decides every rule), checked and broadcast once."""

from __future__ import annotations

import decimal
import functools
from typing import NamedTuple, TypeGuard

import numpy as np

from .columns import Column, ColumnLike, Identity, read_column, rules
from .columns.rules import INT64_MAX, INT64_MIN, is_int

_NATIVE_INT64 = np.dtype(np.int64)
_NATIVE_INT32 = np.dtype(np.int32)
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

    def values(self) -> tuple[list[int], list[int], list[int]]:
        """Every row's coefficient, exponent and scale as lists of Python ints (broadcast
        values repeated; coefficients beyond int64 in their rows)."""
        steps = ((self.coef, self.cstep), (self.exps, self.estep), (self.scales, self.sstep))
        coef, exps, scales = (v.tolist() if step else [int(v[0])] * self.n for v, step in steps)
        for i, v in zip(self.big_rows.tolist(), self.big_values, strict=True):
            coef[i] = v
        return coef, exps, scales


class Inputs(NamedTuple):
    """What :func:`read_inputs` hands :func:`vecfix.format_fixed`: the rows, their
    validity (``None``: no null; else ``(n,)`` bool, contiguous), the coefficients'
    identity (name, index) for the result, and whether they are integers (which may hold
    a null sentinel)."""

    rows: Rows
    valid: np.ndarray | None
    identity: Identity | None
    integers: bool = True


def read_inputs(
    coefficients: ColumnLike,
    exponents: ColumnLike,
    scales: ColumnLike,
    null: rules.NullLike = None,
) -> Inputs:
    """Read, check, coerce and broadcast the arguments of :func:`vecfix.format_fixed`."""
    if _plain_int64(coefficients, exponents, scales):  # taken as they are
        # with a sentinel, checked in the general path's order: the sentinels, then the rest
        valid = None if null is None else _less_sentinels(coefficients, null, None)
        n = coefficients.shape[0]
        exps, scs = _as_int32(exponents, "exponent"), _as_int32(scales, "scale")
        rows = Rows(
            n, coefficients, int(n != 1), exps, int(exps.size != 1), scs, int(scs.size != 1),
            _NO_ROWS, [],
        )  # fmt: skip
        return Inputs(rows, valid, None)
    col = read_column(coefficients, "coefficients")
    if scales is None:
        raise TypeError("scale is required: the number of decimal places to print")
    valid = col.valid
    if null is not None and col.kind in ("integers", "empty"):  # (refused for the others)
        valid = _less_sentinels(col.coefficients, null, valid)
    has_values = col.coefficients.size > 0 and (valid is None or bool(valid.any()))
    rules.needs(col.kind, exponents, null, source=col.source, has_values=has_values)
    if col.exponents is not None:
        exponents = col.exponents
    elif exponents is None:
        exponents = 0  # nothing is printed, so no exponent is needed
    rows, present = _rows(col, exponents, scales)
    if present is not None:  # rows whose exponent or scale is null are null
        valid = present if valid is None else np.logical_and(valid.reshape(-1), present)
    if valid is not None and valid.all():
        valid = None
    elif valid is not None:
        valid = valid.reshape(-1)
        if valid.shape[0] != rows.n:  # one coefficient for many rows
            valid = np.broadcast_to(valid, (rows.n,))
        valid = np.ascontiguousarray(valid)
    return Inputs(rows, valid, col.identity, col.kind == "integers")


def _plain_int64(coefficients: object, exponents: object, scales: object) -> TypeGuard[np.ndarray]:
    """The common calls, recognised in a few microseconds: a native int64 column, and for
    the exponents and the scales an integer each or a native int32 column as long (where
    :func:`read_column` would take 5 us more to come to the same arrays)."""
    return (
        type(coefficients) is np.ndarray
        and coefficients.dtype == _NATIVE_INT64
        and coefficients.ndim == 1
        and _kernel_ready(coefficients)
        and _plain_int32(exponents, coefficients.shape[0])
        and _plain_int32(scales, coefficients.shape[0])
    )


def plain_list(coefficients: list, exponents: object, scales: object) -> ColumnLike:
    """``coefficients``, a list, as the int64 array the columns' reader would make of it
    when it holds Python ints within int64 and the exponents and scales are plain
    (:func:`_plain_int32`), so that the call takes the paths of an int64 array; else the
    list as it is (for the reader, and its rules and messages)."""
    n = len(coefficients)
    if _plain_int32(exponents, n) and _plain_int32(scales, n):
        plain = _int_list(coefficients)
        if plain is not None:
            return plain
    return coefficients


def _int_list(values: list) -> np.ndarray | None:
    """A non-empty list of Python ints within int64 as an int64 array, in a third of the
    reader's time; None for any other list (the reader's rules)."""
    if not values or not all(type(v) is int for v in values):
        return None
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return None


def _plain_int32(value: object, n: int) -> bool:
    """An integer, or a C-contiguous 1-D native int32 array of ``n`` values."""
    if type(value) is np.ndarray:
        return (
            value.dtype == _NATIVE_INT32
            and value.ndim == 1
            and value.shape[0] == n
            and _kernel_ready(value)
        )
    return is_int(value)


def _kernel_ready(array: np.ndarray) -> bool:
    """Whether the kernels take ``array`` as it is: C-contiguous and aligned."""
    flags = array.flags
    return bool(flags.c_contiguous and flags.aligned)


def _as_kernel_input(values: np.ndarray, dtype: type) -> np.ndarray:
    """``values`` as a native, C-contiguous, aligned array of ``dtype`` (a copy only if
    it is not one: an unaligned column, a field of a packed record, say)."""
    return np.require(values, dtype, ["C_CONTIGUOUS", "ALIGNED"])


def _as_int32(value: object, name: str) -> np.ndarray:
    """A value :func:`_plain_int32` accepts, as the kernels take it: an int32 array."""
    return value if type(value) is np.ndarray else _int32_constant(int(value), name)  # type: ignore[call-overload]


@functools.lru_cache(maxsize=4096)
def _int32_constant(value: int, name: str) -> np.ndarray:
    """An exponent or scale, checked, as a read-only 1-element int32 array (shared by
    every call with it)."""
    rules.check_int32(value, name)
    array = np.array((value,), dtype=np.int32)
    array.flags.writeable = False
    return array


def _less_sentinels(
    coef: np.ndarray, null: rules.NullLike, valid: np.ndarray | None
) -> np.ndarray | None:
    """``valid`` less the rows whose coefficient is one of the ``null=`` sentinels."""
    hit = None
    for s in rules.sentinels(null):
        if coef.dtype.kind in "iu":
            info = np.iinfo(coef.dtype)
            if not info.min <= s <= info.max:
                continue
            eq = coef == coef.dtype.type(s)  # same dtype: no float promotion
        else:
            eq = np.array([v == s for v in coef.reshape(-1).tolist()], dtype=bool)
        hit = eq if hit is None else hit | eq
    if hit is None or not hit.any():
        return valid
    hit = np.atleast_1d(np.asarray(hit)).reshape(-1)
    return np.logical_not(hit, out=hit) if valid is None else valid & ~hit


def _rows(col: Column, exponents: ColumnLike, scales: ColumnLike) -> tuple[Rows, np.ndarray | None]:
    """The rows, and where the exponents and scales are present (None: in every row; else
    ``(n,)`` bool, False where one is null: a null row, its exponent and scale read as 0)."""
    coef, big_rows, big_values = coerce_coefficients(col.coefficients)
    lengths: list[int | None] = [None if col.coefficients.ndim == 0 else coef.size]
    columns, masks = [], []
    for name, value in (("exponent", exponents), ("scale", scales)):
        check_same_index(col.identity, value, name)
        column, length, present = _int32_column(value, name)
        columns.append(column)
        lengths.append(length)
        masks.append(present)
    exps, scs = columns
    n = rules.broadcast_length(lengths)
    if big_rows.size and coef.size == 1 and n != 1:
        big_rows, big_values = np.arange(n, dtype=np.intp), big_values * n
    rows = Rows(
        n, coef, int(coef.size != 1), exps, int(exps.size != 1), scs, int(scs.size != 1),
        big_rows, big_values,
    )  # fmt: skip
    found = [np.broadcast_to(m, (n,)) for m in masks if m is not None]
    return rows, (
        None if not found else np.logical_and.reduce(found) if len(found) > 1 else found[0].copy()
    )


def check_same_index(
    identity: Identity | None, value: object, name: str, owner: str = "coefficients"
) -> None:
    """Refuse per-row ``value`` (a pandas Series) whose index is not that of ``owner``
    (``identity``): its rows would be paired with the owner's by position, not by label."""
    if identity is None or identity.index is None:
        return
    other = Identity.of(value)
    if other is None or other.index is None or other.index.equals(identity.index):
        return
    whose = owner + ("'" if owner.endswith("s") else "'s")
    raise ValueError(
        f"{name} is a pandas Series whose index is not the {whose}\nvecfix pairs rows by"
        f" position, so align it first ({name}.reindex({owner}.index)), or pass"
        f" {name}.to_numpy() to pair them by position"
    )


def coerce_coefficients(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Integer coefficients as native int64 (1-D, one element for a scalar), the rows
    beyond int64 (their slot 0) and their values."""
    flat = arr.reshape(-1)
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8:
        big = np.flatnonzero(flat > INT64_MAX)
        coef = flat.astype(np.int64)
        values = [int(v) for v in flat[big]]
        coef[big] = 0
        return coef, big, values
    if arr.dtype.kind in "iu":
        return _as_kernel_input(flat, np.int64), _NO_ROWS, []
    values = [int(v) for v in flat.tolist()]  # Python ints (read_column checked every row)
    big_rows = [i for i, v in enumerate(values) if not INT64_MIN <= v <= INT64_MAX]
    big_values = [values[i] for i in big_rows]
    for i in big_rows:
        values[i] = 0
    return np.array(values, dtype=np.int64), np.array(big_rows, dtype=np.intp), big_values


def _int32_column(value: ColumnLike, name: str) -> tuple[np.ndarray, int | None, np.ndarray | None]:
    """Exponents or scales as native int32 (1-D), their length (``None``: a scalar) and
    where they are present (``None``: every row; a null row's value read as 0)."""
    if is_int(value):
        return _int32_constant(int(value), name), None, None  # type: ignore[arg-type]
    if type(value) is np.ndarray and value.dtype.kind in "iu":  # per-row values: no nulls
        rules.check_1d(name, value.shape)
        col = Column("integers", value)
    else:
        try:
            col = read_column(value, name)
        except rules.RowTypeError:
            if isinstance(value, (list, tuple)):  # ints mixed with a Decimal or text: the
                for i, v in enumerate(value):  # reader named an int as the odd row out
                    if isinstance(v, (decimal.Decimal, str, bytes)):
                        raise rules.row_type_error(name, i, v) from None
            raise
    length = None if col.coefficients.ndim == 0 else col.coefficients.size
    if col.kind == "empty":  # no row, or every row null
        present = None if length == 0 else np.zeros(length or 1, dtype=bool)
        return np.zeros(length or 1, dtype=np.int32), length, present
    if col.kind != "integers":
        raise TypeError(f"{name} must be integers, got {col.described()}")
    arr, present = col.coefficients, None
    if col.valid is not None and not col.valid.all():  # a null row: its value read as 0
        present = np.array(col.valid, dtype=bool).reshape(-1)
        if arr.dtype.kind in "iu":
            arr = np.where(present, arr.reshape(-1), 0)
        else:  # Python ints (a null row's slot holds anything)
            values = zip(arr.reshape(-1).tolist(), present.tolist(), strict=True)
            arr = np.array([v if p else 0 for v, p in values], dtype=object)
    flat = arr.reshape(-1)
    if arr.dtype.kind == "O":
        for i, v in enumerate(flat.tolist()):
            rules.check_int32(int(v), name, i)
        return np.array(flat.tolist(), dtype=np.int32), length, present
    if flat.size and arr.dtype.itemsize >= 4 and arr.dtype != np.int32:  # may not fit int32
        if int(flat.min()) < rules.INT32_MIN or int(flat.max()) > rules.INT32_MAX:
            i = int(np.flatnonzero((flat < rules.INT32_MIN) | (flat > rules.INT32_MAX))[0])
            rules.check_int32(int(flat[i]), name, i)
    return _as_kernel_input(flat, np.int32), length, present
