"""vecfix's single input layer: every column users hand in is read here, once.

:func:`read_column` turns any supported container into a :class:`Column`;
:mod:`vecfix.columns.rules` then decides, with one set of messages, what it needs. Adding
an input type is one adapter ``(values, argument) -> Column`` and one line in
:data:`ADAPTERS`. pyarrow, pandas and polars are imported only when their objects come in.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from . import rules
from ._arrow import read_arrow
from ._frames import read_pandas, read_polars
from ._objects import (
    BYTES_TYPES,
    TEXT_TYPES,
    as_array,
    read_array,
    read_masked,
    read_objects,
    read_scalar,
)
from .column import Column, DecimalColumn, Identity
from .rules import Kind, RowError, RowTypeError, SentinelWarning

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd
    import polars as pl
    import pyarrow as pa

#: What ``format_fixed`` and friends accept for a column (coefficients, exponents or
#: scales): scalars, sequences, NumPy arrays, Arrow/pandas/polars columns, or ``None``
#: for an argument left out.
ColumnLike: TypeAlias = (
    "int | np.integer | decimal.Decimal | str | bytes | bytearray | Sequence[Any] | np.ndarray"
    " | DecimalColumn | Column | pa.Array | pa.ChunkedArray | pd.Series | pd.Index | pl.Series"
    " | None"
)

__all__ = [
    "ADAPTERS",
    "Column",
    "ColumnLike",
    "DecimalColumn",
    "Identity",
    "Kind",
    "RowError",
    "RowTypeError",
    "SentinelWarning",
    "decimal_column",
    "kind_of",
    "parse_decimal_text",
    "read_column",
    "rules",
]


def _module_is(name: str) -> Callable[[object], bool]:
    return lambda values: type(values).__module__.partition(".")[0] == name


def _is(*types: type) -> Callable[[object], bool]:
    return lambda values: isinstance(values, types)


def _from_decimal_column(values: DecimalColumn, argument: str) -> Column:
    """A :class:`DecimalColumn`, its parts checked as an array's are (floats refused, not
    truncated; objects row by row) and ``valid`` bool, one row per coefficient."""
    coef, exps, valid = values
    coef = np.asarray(coef)
    rules.check_1d(argument, coef.shape)
    if coef.size == 0:  # (an empty list is a float array)
        coef = coef.astype(np.int64)
    if valid is not None:
        valid = np.asarray(valid)
        if valid.dtype != np.bool_ or valid.shape != coef.shape:
            raise ValueError(
                f"{argument}: a DecimalColumn's valid must be None or a bool array of one row"
                f" per coefficient, shape {coef.shape}; got {valid.dtype} of shape {valid.shape}"
            )
    if coef.dtype.kind == "O":  # Python objects: each row checked as in an object array
        read = read_objects(coef.tolist(), argument)  # (int() truncated floats, Decimals)
        if read.kind not in ("integers", "empty"):  # ("empty": every row None)
            raise rules.kind_error(argument, "O", f"a DecimalColumn of {read.described()}")
        coef = read.coefficients
        if read.valid is not None:  # a None row: a null row, as in any column
            valid = read.valid if valid is None else valid & read.valid
    elif coef.dtype.kind not in "iu":
        source = f"a DecimalColumn of {coef.dtype} coefficients"
        raise rules.kind_error(argument, coef.dtype.kind, source)
    return Column("integers" if exps is None else "decimals", coef, exps, valid, "a DecimalColumn")


def _from_anything(values: object, argument: str) -> Column:
    """Ints and other scalars, ranges, array-likes: whatever NumPy makes of them."""
    arr = as_array(values, argument)
    if arr.ndim == 0 and arr.dtype.kind in "fb":  # a float or a bool, named as it is
        shown = f"{type(values).__name__} {rules.show_value(values)}"
        raise rules.kind_error(argument, arr.dtype.kind, shown)
    return read_array(arr, argument)


def _typed_buffer(values: object) -> bool:
    """A memoryview of numbers (of an int64 array, say): an array, not bytes of text."""
    return isinstance(values, memoryview) and values.format not in ("B", "b", "c")


#: ``(test, adapter)``: the first adapter whose test accepts the input reads it.
ADAPTERS: list[tuple[Callable[[object], bool], Callable[[Any, str], Column]]] = [
    (_is(Column), lambda values, _: values),
    (_is(DecimalColumn), _from_decimal_column),  # before tuples: it is one
    (rules.is_masked, read_masked),  # before arrays: it is one
    (_is(np.ndarray), read_array),
    (_module_is("pyarrow"), read_arrow),
    (_module_is("pandas"), read_pandas),
    (_module_is("polars"), read_polars),
    (_typed_buffer, lambda values, argument: read_array(np.asarray(values), argument)),
    (_is(decimal.Decimal, *TEXT_TYPES, *BYTES_TYPES), read_scalar),
    (_is(list, tuple), read_objects),
    (lambda _: True, _from_anything),
]


def read_column(values: ColumnLike, argument: str = "coefficients") -> Column:
    """Read one column (or scalar) of any supported kind.

    Parameters
    ----------
    values
        NumPy arrays (integers, ``S``/``U`` decimal text, objects; masked arrays, whose
        masked rows are null), Python scalars and sequences (ints of any size,
        ``Decimal``, ``str``, ``bytes``, ``None`` for a null), pyarrow arrays and chunked
        arrays, pandas ``Series``/``Index``, polars ``Series``, a :class:`DecimalColumn`.
    argument : str
        The argument's name, for messages (``"coefficients"``, ``"exponent"``...).

    Returns
    -------
    Column

    Raises
    ------
    TypeError
        Floats (with advice), bools, dates, mixed rows (naming the first odd one), tables.
    ValueError
        Text that is not decimal, NaN or infinite ``Decimal`` values (a :class:`RowError`
        naming the row), arrays of more than one dimension.

    Examples
    --------
    >>> from decimal import Decimal
    >>> from vecfix.columns import read_column
    >>> col = read_column([Decimal("1.50"), None])
    >>> col.kind, col.coefficients.tolist(), col.exponents.tolist(), col.valid.tolist()
    ('decimals', [150, 0], [-2, 0], [True, False])
    """
    for accepts, adapter in ADAPTERS:
        if accepts(values):
            return adapter(values, argument)
    raise AssertionError("unreachable: the last adapter takes anything")  # pragma: no cover


def kind_of(dtype: Any, argument: str = "coefficients") -> Kind:
    """What a column of ``dtype`` holds, by the same rules as its data: for checks made
    before any data is read (a Parquet or CSV schema, a Dask frame's meta).

    Parameters
    ----------
    dtype
        A pyarrow ``DataType``, a NumPy or pandas dtype, a polars data type, or a column
        (only its type is looked at).
    argument : str
        The argument's name, for messages.

    Returns
    -------
    {"integers", "decimals", "text", "empty"}
        ``"empty"`` for types whose rows decide (``object``: ints, ``Decimal`` or text).

    Raises
    ------
    TypeError
        For the types :func:`read_column` refuses (floats, bools, dates...).

    Examples
    --------
    >>> import numpy as np, pyarrow as pa
    >>> from vecfix.columns import kind_of
    >>> kind_of(pa.decimal128(9, 2)), kind_of(np.dtype("int64")), kind_of(pa.string())
    ('decimals', 'integers', 'text')
    """
    return read_column(_empty_of(dtype), argument).kind


def _empty_of(dtype: Any) -> Any:
    """A column of no rows of ``dtype`` (or ``dtype``'s first zero rows if it is one)."""
    if isinstance(dtype, np.dtype):
        return np.empty(0, dtype)
    module = type(dtype).__module__.partition(".")[0]
    if module == "pyarrow":
        import pyarrow as pa

        if isinstance(dtype, pa.DataType):
            return pa.array([], type=dtype)
    if module == "pandas":
        import pandas as pd

        if isinstance(dtype, pd.api.extensions.ExtensionDtype):
            return pd.Series([], dtype=dtype)
        if isinstance(dtype, (pd.Series, pd.Index)):
            return dtype[:0]
    if module == "polars":
        import polars as pl

        return dtype[:0] if isinstance(dtype, pl.Series) else pl.Series([], dtype=dtype)
    return dtype[:0]


def decimal_column(values: ColumnLike) -> DecimalColumn:
    """Read a column of decimal values into coefficients, exponents and a validity mask.

    Accepted, each with its nulls: ``Decimal`` sequences (NaN and infinities refused),
    decimal text (see :func:`parse_decimal_text`), pyarrow decimal arrays (coefficient
    from the storage, exponent ``-scale``), integers (``exponents`` then stays ``None``),
    and pandas and polars columns of these. Plain int64 storage (NumPy, pandas, polars,
    Arrow int64 without nulls, Arrow ``decimal64``) is taken without a copy.

    Parameters
    ----------
    values : array_like or pyarrow.Array or pandas.Series or polars.Series
        The column. A scalar (one ``str``, ``Decimal`` or int) is a column of one row.

    Returns
    -------
    DecimalColumn

    Raises
    ------
    TypeError, ValueError
        As :func:`read_column` does (a float or mixed column, a table; a NaN ``Decimal``
        or a text row that is not decimal text, naming the row and its value).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from decimal import Decimal
    >>> from vecfix import decimal_column
    >>> col = decimal_column(pa.array([Decimal("1.25"), None], pa.decimal128(9, 2)))
    >>> col.coefficients.tolist(), col.exponents, col.valid.tolist()
    ([125, 0], -2, [True, False])
    """
    col = read_column(values, "values")
    coef, exps = col.coefficients, col.exponents
    if coef.ndim == 0:  # a scalar is a column of one row: every field (n,), as documented
        coef = coef.reshape(-1)
        if isinstance(exps, np.ndarray):
            exps = exps.reshape(-1)
    return DecimalColumn(coef, exps, col.valid)


def parse_decimal_text(texts: ColumnLike) -> DecimalColumn:
    """Parse decimal text into int64 coefficients and int32 exponents, in one pass.

    Each row is ``[+-]digits[.digits][e[+-]digits]`` (``"-12.5"``, ``".5"``, ``"1e-3"``),
    ASCII, with no whitespace, thousands separators, NaN or infinity. It is read as
    :class:`decimal.Decimal` reads it: ``"0.00100000"`` is ``100000 × 10**-8``.
    Coefficients beyond int64 are read exactly (as Python ints).

    Parameters
    ----------
    texts : array_like of str or bytes, or pyarrow string array
        NumPy ``S`` or ``U`` arrays, sequences of ``str`` or ``bytes`` (``None`` is null),
        pyarrow string arrays or chunked arrays, pandas or polars string Series.

    Returns
    -------
    DecimalColumn
        Null rows have coefficient 0 and exponent 0.

    Raises
    ------
    ValueError
        A row that is not decimal text, or whose exponent is outside int32 (a
        :class:`RowError` giving the row and the text); ``TypeError`` for what is no text.

    Examples
    --------
    >>> import numpy as np
    >>> from vecfix import parse_decimal_text
    >>> col = parse_decimal_text(np.array([b"0.00100000", b"-12.5", b"1e-3"]))
    >>> col.coefficients.tolist(), col.exponents.tolist()
    ([100000, -125, 1], [-8, -1, -3])
    >>> parse_decimal_text(["1.5", "1,5"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    vecfix.RowError: texts row 1: '1,5' is not decimal text (expected e.g. '-12.5', ...)
    """
    if isinstance(texts, (str, *BYTES_TYPES)):
        texts = [texts]
    if isinstance(texts, (list, tuple)):
        for i, v in enumerate(texts):
            if v is not None and not isinstance(v, (str, *BYTES_TYPES)):
                raise RowTypeError(
                    f" holds {rules.show_value(v)}",
                    argument="texts",
                    row=i,
                    lead="texts must all be text (str or bytes) or None; ",
                )
    try:
        col = read_column(texts, "texts")
    except TypeError:
        col = None
    if col is not None and col.kind == "empty":
        return DecimalColumn(col.coefficients, np.zeros(len(col), np.int32), col.valid)
    if col is None or col.kind != "text":
        raise TypeError(
            f"texts must be decimal text, got {type(texts).__name__}"
            + (f" of {col.described()}" if col is not None else "")
            + "\nPass str or bytes sequences, NumPy S/U arrays or Arrow string arrays"
        )
    return col.decimal()
