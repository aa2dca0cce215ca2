"""pandas and polars columns: through Arrow or NumPy, keeping their name and index."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np

from . import rules
from ._arrow import read_arrow
from ._objects import read_array, read_objects
from .column import Column, Identity


def read_pandas(values: Any, argument: str) -> Column:
    import pandas as pd

    if isinstance(values, pd.DataFrame):
        raise TypeError(
            f"{argument} must be one column, got a pandas DataFrame\nPass one column, e.g."
            " df['price']"
        )
    if not isinstance(values, (pd.Series, pd.Index)):
        return read_objects(np.asarray(values, dtype=object).tolist(), argument)
    dtype = values.dtype
    kind = "Series" if isinstance(values, pd.Series) else "Index"
    if isinstance(dtype, np.dtype):
        if dtype.kind == "O":
            col = read_objects(_objects_of(values), argument)
        else:
            arr = values.to_numpy()
            if arr.dtype.kind in "iu":  # the common case, without writing a description
                col = Column("integers", arr, source=lambda: f"integers (a pandas {kind})")
            else:
                col = read_array(arr, argument, f"a pandas {kind} of dtype {dtype}")
    elif isinstance(dtype, pd.CategoricalDtype):
        # the categories taken by the codes as they are: to_numpy(na_value=None) would make
        # int categories floats to hold a missing row
        cats, codes = values.array.categories.to_numpy(dtype=object), values.array.codes
        objs = np.full(len(codes), None, dtype=object)
        objs[codes >= 0] = cats[codes[codes >= 0]]
        col = read_objects(objs.tolist(), argument)
    elif hasattr(values.array, "__arrow_array__"):  # ArrowDtype, string[pyarrow], Int64...
        import pyarrow as pa

        col = read_arrow(pa.array(values.array), argument, f"a pandas {kind} of dtype {dtype}")
    else:
        col = read_objects(values.to_numpy(dtype=object, na_value=None).tolist(), argument)
    return _named(col, Identity(values.name, values.index if kind == "Series" else None))


def read_polars(values: Any, argument: str) -> Column:
    import polars as pl

    if not isinstance(values, pl.Series):
        raise TypeError(
            f"{argument} must be one column, got a polars {type(values).__name__}\nPass one"
            " column, e.g. df['price'] or df.get_column('price')"
        )
    dtype = values.dtype
    source = f"a polars {dtype} Series"
    wide = [getattr(pl, name, None) for name in ("Int128", "UInt128")]  # no Arrow type
    if dtype == pl.Object or dtype in wide:
        col = read_objects(values.to_list(), argument)
    elif dtype.is_float():
        raise rules.float_error(argument, source)
    elif dtype.is_integer():  # by polars' own NumPy export: no pyarrow to import
        valid = None if not values.null_count() else values.is_not_null().to_numpy()
        coef = values.to_numpy() if valid is None else values.fill_null(0).to_numpy()
        col = Column("integers", coef, None, valid, f"integers ({source})")
    else:
        col = read_arrow(values.to_arrow(), argument, source)
    return _named(col, Identity(values.name))


def _objects_of(values: Any) -> list:
    """An object Series' or Index' values, pandas' missing markers (None, NaN, pd.NA, NaT)
    as None: not a ``Decimal`` NaN, a value the rows' reader refuses as such."""
    import pandas as pd

    objs = values.to_numpy(dtype=object).tolist()
    try:
        missing = np.flatnonzero(np.array(values.isna(), dtype=bool)).tolist()
    except InvalidOperation:  # isna compares a Decimal('sNaN'), which signals
        missing = [
            i for i, v in enumerate(objs) if not isinstance(v, Decimal) and pd.isna(v) is True
        ]
    for i in missing:
        if not isinstance(objs[i], Decimal):
            objs[i] = None
    return objs


def _named(col: Column, identity: Identity) -> Column:
    return Column(col.kind, col.coefficients, col.exponents, col.valid, col.source, identity)
