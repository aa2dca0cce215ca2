"""NumPy arrays (and masked arrays) and Python scalars."""

from __future__ import annotations

import numpy as np

from . import rules
from .column import Column
from .text import parse_numpy


def read_array(arr: np.ndarray, argument: str, source: str | None = None) -> Column:
    """A plain NumPy array: integers as they are, ``S``/``U`` as decimal text, objects row
    by row; floats and the rest refused."""
    from ._objects import read_objects

    rules.check_1d(argument, arr.shape)
    kind = arr.dtype.kind
    if kind in "iu":  # the common case: its description is written only if needed
        return Column("integers", arr, source=lambda: f"integers ({_describe(arr, source)})")
    if kind in "SU":
        return Column("text", *parse_numpy(arr, argument), source="decimal text")
    if kind == "O":
        return read_objects(arr.reshape(-1).tolist(), argument)
    if kind == "f" and argument in ("exponents", "scales"):  # NaN: a null, as pandas has it
        nan = np.flatnonzero(np.isnan(arr.reshape(-1)))
        if nan.size:
            raise rules.null_in(argument, int(nan[0]))
    if kind == "f" and argument == "coefficients" and _nulled_integers(arr):
        raise TypeError(
            f"coefficients must be integers, got {_describe(arr, source)} holding whole"
            " numbers and NaN: integers turned into floats to hold their nulls (pandas does"
            " this to int columns with missing values), which is exact only below 2**53."
            " Keep them integers with their nulls: .astype('Int64') on the column before"
            " the nulls appear, or read it with dtype_backend='pyarrow'"
        )
    raise rules.kind_error(argument, kind, _describe(arr, source))


def _nulled_integers(arr: np.ndarray) -> bool:
    """Floats that are whole numbers and NaN (ints that took NaN for their nulls)."""
    flat = arr.reshape(-1)
    nan = np.isnan(flat)
    values = flat[~nan]
    return bool(nan.any()) and bool(np.all(values == np.floor(values)))


def _describe(arr: np.ndarray, source: str | None) -> str:
    return source or f"an array of dtype {arr.dtype}"


def read_masked(arr: np.ma.MaskedArray, argument: str) -> Column:
    """A masked array: its masked rows are null, whatever their hidden data holds."""
    from ._objects import read_objects

    rules.check_1d(argument, arr.shape)
    mask = np.ma.getmaskarray(arr).reshape(-1)
    data = np.asarray(arr.data)
    if not mask.any():
        return read_array(data, argument)
    if data.dtype.kind in "iu":
        col = read_array(data.reshape(-1), argument, "a masked array")
        return Column("integers", col.coefficients, None, ~mask, col.source)
    # anything else row by row, the hidden values never read
    objs = data.reshape(-1).astype(object)
    objs[mask] = None
    return read_objects(objs.tolist(), argument)
