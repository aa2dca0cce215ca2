"""Take prices in as they are held: Arrow, pandas, polars, ``Decimal`` and decimal text.

Everything here turns a foreign column into a :class:`DecimalColumn`: integer
coefficients, the exponents when the data carries them, and a validity mask for nulls.
:func:`vecfix.format_fixed` calls :func:`resolve` on its first argument, so each of these
inputs can be passed to it directly.

pyarrow, pandas and polars are optional: they are imported only when an object of theirs
is passed in (and by the output methods of :class:`~vecfix.Formatted` that return them).
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from . import _parse_kernels as _pk
from ._inputs import _as_array
from ._jit import readonly

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_NO_VALID = np.empty(0, dtype=np.uint8)
_NO_OFFSETS = np.zeros(1, dtype=np.int64)


class DecimalColumn(NamedTuple):
    """A column of decimal values as integer coefficients and exponents.

    Attributes
    ----------
    coefficients : numpy.ndarray
        ``(n,)`` int64, or object (Python ints) when some coefficient is beyond int64, or
        any other integer dtype taken over from the source without a copy. Null rows hold 0.
    exponents : int or numpy.ndarray or None
        The power of ten of each coefficient: an int when it is the same for every row
        (Arrow decimals), an ``(n,)`` int32 array when it varies (text, ``Decimal``), or
        ``None`` for plain integers, whose exponent the caller must give.
    valid : numpy.ndarray or None
        ``(n,)`` bool, ``True`` where a value is present; ``None`` when no row is null.

    Examples
    --------
    >>> from decimal import Decimal
    >>> from vecfix._interop import decimal_column
    >>> col = decimal_column([Decimal("1.50"), None, Decimal("-2E+3")])
    >>> col.coefficients.tolist(), col.exponents.tolist(), col.valid.tolist()
    ([150, 0, -2], [-2, 0, 3], [True, False, True])
    """

    coefficients: np.ndarray
    exponents: int | np.ndarray | None
    valid: np.ndarray | None


# --------------------------------------------------------------------------- public


def decimal_column(values: object) -> DecimalColumn:
    """Read a column of decimal values into coefficients, exponents and a validity mask.

    Accepted, each with its nulls (``None`` in sequences, Arrow, pandas and polars nulls):

    * ``decimal.Decimal`` sequences (lists, tuples, object arrays), read exactly; NaN and
      infinities are refused with the row index;
    * decimal text: NumPy ``S``/``U`` arrays, sequences of ``str``/``bytes``, Arrow
      ``string``/``large_string``/``string_view`` arrays (see :func:`parse_decimal_text`);
    * pyarrow ``decimal32``/``decimal64``/``decimal128``/``decimal256`` arrays and chunked
      arrays: coefficient from the storage, exponent ``-scale``;
    * pyarrow, pandas and polars integer columns (``exponents`` then stays ``None``);
    * pandas ``Series``/``Index`` (int, nullable ``Int64``, ``ArrowDtype``, ``string``,
      object of ``Decimal`` or ``str``) and polars ``Series`` (``Decimal``, integers,
      ``String``).

    Plain int64 storage (NumPy, pandas, polars and Arrow int64 without nulls, Arrow
    ``decimal64``) is taken without a copy.

    Parameters
    ----------
    values : array_like or pyarrow.Array or pandas.Series or polars.Series
        The column.

    Returns
    -------
    DecimalColumn

    Raises
    ------
    TypeError
        If the column holds something other than integers, decimals or decimal text
        (floats, mixed types), or is a whole table rather than one column.
    ValueError
        If a ``Decimal`` is NaN or infinite, or a text row is not decimal text; the
        message gives the row and its value.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from decimal import Decimal
    >>> from vecfix._interop import decimal_column
    >>> col = decimal_column(pa.array([Decimal("1.25"), None], pa.decimal128(9, 2)))
    >>> col.coefficients.tolist(), col.exponents, col.valid.tolist()
    ([125, 0], -2, [True, False])
    """
    col = _convert(values)
    if col is None:
        arr = _as_array("values", values)
        if arr.dtype.kind not in "iuO":
            from ._inputs import _kind_error

            raise _kind_error("values", arr)
        col = DecimalColumn(arr.reshape(-1), None, None)
    return col


def parse_decimal_text(texts: object) -> DecimalColumn:
    """Parse decimal text into int64 coefficients and int32 exponents, in one pass.

    The text of each row is ``[+-]digits[.digits][e[+-]digits]`` (``"0.00100000"``,
    ``"-12.5"``, ``"+7"``, ``".5"``, ``"5."``, ``"1e-3"``, ``"2.5E+4"``), ASCII, with no
    surrounding whitespace, no thousands separators, and no NaN or infinity. The
    coefficient is every digit written (the point removed) and the exponent the written
    exponent minus the digits after the point, as :class:`decimal.Decimal` reads it:
    ``"0.00100000"`` is ``100000 × 10**-8``. Coefficients beyond int64 are read exactly
    (the result's coefficients are then Python ints).

    Parameters
    ----------
    texts : array_like of str or bytes, or pyarrow string array
        NumPy ``S`` or ``U`` arrays (any byte order, any strides), sequences of ``str`` or
        ``bytes`` (``None`` is null), pyarrow ``string``, ``large_string``, ``string_view``
        arrays or chunked arrays (nulls kept), pandas or polars string Series.

    Returns
    -------
    DecimalColumn
        Null rows have coefficient 0 and exponent 0.

    Raises
    ------
    ValueError
        If a row is not decimal text, or its exponent is outside int32; the message gives
        the row and the text.
    TypeError
        If ``texts`` is not text.

    Examples
    --------
    >>> import numpy as np
    >>> from vecfix._interop import parse_decimal_text
    >>> col = parse_decimal_text(np.array([b"0.00100000", b"-12.5", b"1e-3"]))
    >>> col.coefficients.tolist(), col.exponents.tolist()
    ([100000, -125, 1], [-8, -1, -3])
    >>> parse_decimal_text(["1.5", "1,5"])
    Traceback (most recent call last):
    ...
    ValueError: texts row 1: '1,5' is not decimal text (expected e.g. '-12.5', '0.001' or '1e-3')
    """
    if isinstance(texts, (str, bytes)):
        texts = [texts]
    col = _convert(texts, text_only=True)
    if col is None:
        raise TypeError(
            f"texts must be decimal text (str or bytes sequences, NumPy S/U arrays, Arrow"
            f" string arrays), got {type(texts).__name__}"
        )
    return col


# ----------------------------------------------------------------- format_fixed glue


def resolve(
    coefficients: object, exponents: object, scales: object, null: object
) -> tuple[object, object, object, np.ndarray | None]:
    """What :func:`vecfix.format_fixed` formats: ``(coefficients, exponents, scales, valid)``.

    Plain NumPy integers and lists pass through untouched (``valid`` is ``None``, also when
    no row is null). Nothing is copied for the null rows: :func:`vecfix.format_fixed`
    formats them as placeholder zeros, a block of rows at a time, and blanks them
    afterwards.
    """
    col = _convert(coefficients)
    if col is None:
        if null is None:
            return coefficients, exponents, scales, None
        col = DecimalColumn(_as_array("coefficients", coefficients), None, None)
    if col.exponents is not None:
        if exponents is not None:
            raise TypeError(
                f"coefficients are {_describe(coefficients)}, which carry their own exponent;"
                " leave exponents=None (pass the number of decimals as scales=...)"
            )
        exponents = col.exponents
    coef, valid = col.coefficients, col.valid
    if null is not None:
        hit = _sentinel_rows(coef, _sentinels(null))
        if hit is not None:
            valid = np.logical_not(hit, out=hit) if valid is None else valid & ~hit
    if valid is None or valid.all():
        return coef, exponents, scales, None
    if exponents is None and not valid.any():
        exponents = 0  # all null: nothing is printed, so no exponent is needed
    return coef, exponents, scales, valid


# --------------------------------------------------------------------------- dispatch


def _convert(values: object, text_only: bool = False) -> DecimalColumn | None:
    """A :class:`DecimalColumn` for data-carrying inputs; ``None`` for plain integers."""
    if isinstance(values, DecimalColumn):
        return values
    module = type(values).__module__.partition(".")[0]
    if module == "pyarrow":
        return _from_arrow(values, text_only)
    if module == "pandas":
        return _from_pandas(values, text_only)
    if module == "polars":
        return _from_polars(values, text_only)
    if isinstance(values, np.ndarray):
        if values.dtype.kind in "SU":
            _check_1d(values)
            return _parse_numpy(values)
        if values.dtype.kind == "O":
            _check_1d(values)
            return _from_objects(values.reshape(-1).tolist(), text_only)
        return None
    if isinstance(values, (decimal.Decimal, str, bytes)):
        return _from_objects([values], text_only)
    if isinstance(values, (list, tuple)):
        return _from_objects(values, text_only)
    return None


def _check_1d(arr: np.ndarray) -> None:
    if arr.ndim > 1:
        raise ValueError(
            f"coefficients must be a scalar or 1-D, got shape {arr.shape}; pass .ravel() to"
            " format every element in row-major order"
        )


def _describe(values: object) -> str:
    """What kind of exponent-carrying data ``values`` is, for error messages."""
    if isinstance(values, DecimalColumn):
        return "a DecimalColumn"
    if isinstance(values, np.ndarray) and values.dtype.kind in "SU":
        return "decimal text"
    if isinstance(values, (list, tuple, np.ndarray)):
        kinds = {type(v).__name__ for v in values if v is not None}
        return f"{' and '.join(sorted(kinds))} values"
    return f"a {type(values).__module__.partition('.')[0]} {type(values).__name__} of decimals"


# ------------------------------------------------------------ Python object sequences


def _from_objects(seq: Sequence, text_only: bool = False) -> DecimalColumn | None:
    """Sequences of ``Decimal``, ``str``, ``bytes`` or ints, ``None`` marking nulls."""
    if len(seq) and isinstance(seq[0], str):
        try:  # all str: one pass over the objects (join refuses anything else)
            return _parse_strings(seq, False, "\n".join(seq))
        except TypeError:
            pass
    kinds = set(map(type, seq))
    has_null = type(None) in kinds
    kinds.discard(type(None))
    if (kinds and kinds <= {str, np.str_}) or (text_only and not kinds):
        return _parse_strings(seq, has_null)
    if kinds and kinds <= {bytes, np.bytes_}:
        return _parse_bytes(seq, has_null)
    if any(issubclass(k, decimal.Decimal) for k in kinds):
        if not all(issubclass(k, decimal.Decimal) for k in kinds):
            _check_types(seq, decimal.Decimal, "Decimal")
        return _from_decimals(seq, has_null)
    if text_only:
        _raise_mixed(seq, (str, bytes), "texts", "text (str or bytes)")
    if not has_null:
        return None  # plain integers: format_fixed validates them
    valid = np.array([v is not None for v in seq], dtype=bool)
    filled = [0 if v is None else v for v in seq]
    return DecimalColumn(_as_array("coefficients", filled), None, valid)


def _raise_mixed(seq: Sequence, types: tuple, name: str, what: str) -> None:
    for i, v in enumerate(seq):
        if v is not None and not isinstance(v, types):
            raise TypeError(f"{name} must all be {what} or None; row {i} holds {v!r}")
    raise AssertionError("unreachable")  # pragma: no cover


def _valid_of(seq: Sequence, has_null: bool) -> np.ndarray | None:
    return np.array([v is not None for v in seq], dtype=bool) if has_null else None


def _from_decimals(seq: Sequence, has_null: bool) -> DecimalColumn:
    """``Decimal`` values, read exactly through their text (``str`` is exact)."""
    texts = ["" if v is None else str(v) for v in seq]
    valid = _valid_of(seq, has_null)
    try:
        return _parse_joined("\n".join(texts).encode("ascii"), texts, valid, "coefficients")
    except ValueError as exc:
        row = getattr(exc, "row", None)
        if row is None or seq[row].is_finite():
            raise
        raise ValueError(
            f"coefficients row {row} is Decimal({str(seq[row])!r}): NaN and infinities have"
            " no fixed-point text; drop them or mark them null (None)"
        ) from None


def _check_types(seq: Sequence, cls: type, what: str) -> None:
    for i, v in enumerate(seq):
        if v is not None and not isinstance(v, cls):
            raise TypeError(
                f"coefficients mix {what} values with {type(v).__name__}: row {i} holds"
                f" {v!r}; pass every row as {what} (or None for a null)"
            )


def _parse_strings(seq: Sequence, has_null: bool, joined: str | None = None) -> DecimalColumn:
    texts = ["" if v is None else v for v in seq] if has_null else seq
    if joined is None:
        joined = "\n".join(texts)
    try:
        data = joined.encode("ascii")
    except UnicodeEncodeError as exc:
        ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1)
        row = int(np.searchsorted(ends, exc.start, side="right"))
        raise _text_error(row, texts[row], _pk.INVALID, "texts") from None
    return _parse_joined(data, texts, _valid_of(seq, has_null), "texts")


def _parse_bytes(seq: Sequence, has_null: bool) -> DecimalColumn:
    texts = [b"" if v is None else v for v in seq] if has_null else seq
    return _parse_joined(b"\n".join(texts), texts, _valid_of(seq, has_null), "texts")


def _parse_joined(
    data: bytes, texts: Sequence, valid: np.ndarray | None, name: str
) -> DecimalColumn:
    """Parse rows joined by one ``\\n`` each in ``data`` (``texts`` are the rows)."""
    n = len(texts)
    arr = np.frombuffer(data, dtype=np.uint8)
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0] = 0
    seps = np.flatnonzero(arr == 10)
    if n and seps.size == n - 1:  # row i ends where separator i is
        offsets[1:n] = seps + 1
        offsets[n] = arr.size + 1
    else:  # a row holds a newline itself (it is not decimal text): go by the lengths
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=n)
        np.cumsum(lengths + 1, out=offsets[1:])
    return _parse(arr, offsets, 0, 1, n, valid, name)


# -------------------------------------------------------------------- text parsing


def _parse_numpy(arr: np.ndarray) -> DecimalColumn:
    """NumPy ``S``/``U`` arrays: fixed-width rows, parsed in place where possible."""
    flat = arr.reshape(-1)
    n = flat.shape[0]
    if arr.dtype.kind == "S":
        flat = np.ascontiguousarray(flat)
        width = flat.dtype.itemsize
        data = flat.view(np.uint8) if width else np.zeros(0, dtype=np.uint8)
    else:
        flat = np.ascontiguousarray(flat, dtype=flat.dtype.newbyteorder("="))
        width = flat.dtype.itemsize // 4
        codes = flat.view(np.uint32).reshape(n, width)
        wide = codes > 127
        if wide.any():
            row = int(np.flatnonzero(wide.any(axis=1))[0])
            raise _text_error(row, str(flat[row]), _pk.INVALID, "texts")
        data = codes.astype(np.uint8).reshape(-1)
    if width == 0:  # itemsize 0: every row is empty text
        data = np.zeros(max(n, 1), dtype=np.uint8)
        width = 1
    return _parse(data, _NO_OFFSETS, width, 0, n, None, "texts")


def _parse(
    data: np.ndarray,
    offsets: np.ndarray,
    width: int,
    gap: int,
    n: int,
    valid: np.ndarray | None,
    name: str,
) -> DecimalColumn:
    coef = np.empty(n, dtype=np.int64)
    exps = np.empty(n, dtype=np.int32)
    status = np.empty(n, dtype=np.uint8)
    vmask = _NO_VALID if valid is None else np.ascontiguousarray(valid, dtype=bool).view(np.uint8)
    first, nbig = _pk.parse_decimal(
        readonly(data), readonly(offsets), width, gap, readonly(vmask), coef, exps, status
    )

    def text(i: int) -> bytes:
        if width:
            return data[i * width : (i + 1) * width].tobytes().rstrip(b"\0")
        return data[offsets[i] : offsets[i + 1] - gap].tobytes()

    if first >= 0:
        raise _text_error(first, text(first), int(status[first]), name)
    if nbig:
        big = np.flatnonzero(status == _pk.BIG)
        values = coef.astype(object)
        for i in big.tolist():
            mantissa = text(i).decode("ascii").lower().partition("e")[0].replace(".", "")
            values[i] = int(decimal.Decimal(mantissa))  # exact; no int-from-str digit limit
        coef = values
    return DecimalColumn(coef, exps, valid)


def _text_error(row: int, text: bytes | str, status: int, name: str) -> ValueError:
    if isinstance(text, bytes):
        text = text.decode("ascii", "backslashreplace")
    shown = text if len(text) <= 60 else text[:57] + "..."
    if status == _pk.EXPONENT_RANGE:
        msg = f"{name} row {row}: {shown!r} has an exponent outside int32"
    else:
        msg = (
            f"{name} row {row}: {shown!r} is not decimal text"
            " (expected e.g. '-12.5', '0.001' or '1e-3')"
        )
    exc = ValueError(msg)
    exc.row = row  # lets the Decimal path reword NaN / Infinity
    return exc


# ---------------------------------------------------------------------------- Arrow


def _from_arrow(values: object, text_only: bool = False) -> DecimalColumn:
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        parts = [_from_arrow_array(c, text_only) for c in values.chunks]
        if not parts:
            parts = [_from_arrow_array(pa.array([], type=values.type), text_only)]
        return _concat(parts)
    if isinstance(values, pa.Array):
        return _from_arrow_array(values, text_only)
    raise TypeError(
        f"cannot format a {type(values).__name__}: pass one column (a pyarrow Array or"
        " ChunkedArray, e.g. table['price'])"
    )


def _arrow_valid(arr: object) -> np.ndarray | None:
    if arr.null_count == 0:
        return None
    return arr.is_valid().to_numpy(zero_copy_only=False)


def _from_arrow_array(arr: object, text_only: bool) -> DecimalColumn:
    import pyarrow as pa

    t = arr.type
    if pa.types.is_dictionary(t):
        return _from_arrow_array(arr.dictionary_decode(), text_only)
    if pa.types.is_string_view(t) if hasattr(pa.types, "is_string_view") else False:
        arr, t = arr.cast(pa.large_string()), pa.large_string()
    if pa.types.is_binary_view(t) if hasattr(pa.types, "is_binary_view") else False:
        arr, t = arr.cast(pa.large_binary()), pa.large_binary()
    n = len(arr)
    valid = _arrow_valid(arr)
    if t in (pa.string(), pa.binary(), pa.large_string(), pa.large_binary()):
        wide = t in (pa.large_string(), pa.large_binary())
        bufs = arr.buffers()
        offsets = np.frombuffer(bufs[1], dtype=np.int64 if wide else np.int32)
        offsets = offsets[arr.offset : arr.offset + n + 1].astype(np.int64)
        data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else _NO_VALID
        return _parse(data, offsets, 0, 0, n, valid, "texts")
    if text_only:
        raise TypeError(f"texts must be an Arrow string array, got type {t}")
    if pa.types.is_decimal(t):
        return DecimalColumn(_arrow_decimal_coefficients(arr, valid), -t.scale, valid)
    if pa.types.is_integer(t):
        filled = arr if valid is None else arr.fill_null(0)
        return DecimalColumn(filled.to_numpy(zero_copy_only=False), None, valid)
    if pa.types.is_null(t):
        return DecimalColumn(np.zeros(n, dtype=np.int64), None, np.zeros(n, dtype=bool))
    hint = " (floats cannot hold prices exactly: use decimal128)" if pa.types.is_floating(t) else ""
    raise TypeError(
        f"cannot format an Arrow array of type {t}: pass decimals, integers or decimal text" + hint
    )


def _arrow_decimal_coefficients(arr: object, valid: np.ndarray | None) -> np.ndarray:
    """The coefficients in a decimal array's storage (little-endian two's complement)."""
    t = arr.type
    n, width = len(arr), t.byte_width
    buf = arr.buffers()[1]
    if width <= 8:
        raw = np.frombuffer(buf, dtype=f"<i{width}", count=arr.offset + n)[arr.offset :]
        return raw
    limbs = width // 8
    words = np.frombuffer(buf, dtype="<u8", count=(arr.offset + n) * limbs)
    words = words.reshape(-1, limbs)[arr.offset :]
    lo = words[:, 0].view(np.int64)
    sign = (lo >> 63).view(np.uint64)
    fits = np.ones(n, dtype=bool)
    for j in range(1, limbs):
        fits &= words[:, j] == sign
    if valid is not None:
        fits |= ~valid  # the storage of a null slot is undefined
    if fits.all():
        return lo
    values = lo.astype(object)
    for i in np.flatnonzero(~fits).tolist():
        v = sum(int(w) << (64 * j) for j, w in enumerate(words[i].tolist()))
        values[i] = v - (1 << (64 * limbs)) if v >> (64 * limbs - 1) else v
    return values


def _concat(parts: list[DecimalColumn]) -> DecimalColumn:
    if len(parts) == 1:
        return parts[0]
    coef = np.concatenate([p.coefficients for p in parts])
    exps = [p.exponents for p in parts]
    if all(e is None for e in exps):
        exponent = None
    elif all(isinstance(e, int) for e in exps) and len(set(exps)) == 1:
        exponent = exps[0]
    else:
        exponent = np.concatenate(
            [
                np.broadcast_to(np.asarray(p.exponents, dtype=np.int32), (len(p.coefficients),))
                for p in parts
            ]
        )
    if all(p.valid is None for p in parts):
        valid = None
    else:
        valid = np.concatenate(
            [np.ones(len(p.coefficients), bool) if p.valid is None else p.valid for p in parts]
        )
    return DecimalColumn(coef, exponent, valid)


# --------------------------------------------------------------------------- pandas


def _from_pandas(values: object, text_only: bool) -> DecimalColumn | None:
    import pandas as pd

    if isinstance(values, pd.DataFrame):
        raise TypeError("cannot format a DataFrame: pass one column, e.g. df['price']")
    if not isinstance(values, (pd.Series, pd.Index)):
        return _from_objects(np.asarray(values, dtype=object).tolist(), text_only)
    dtype = values.dtype
    if isinstance(dtype, np.dtype):
        if dtype.kind in "iu":
            if text_only:
                raise TypeError(f"texts must be text, got a pandas column of dtype {dtype}")
            return DecimalColumn(values.to_numpy(), None, None)
        if dtype.kind == "O":
            objs = values.to_numpy(dtype=object)
            missing = np.asarray(values.isna(), dtype=bool)
            if missing.any():
                objs = objs.copy()
                objs[missing] = None
            col = _from_objects(objs.tolist(), text_only)
            return col if col is not None else DecimalColumn(_as_array("values", objs), None, None)
        return None  # floats, datetimes...: format_fixed names the dtype
    if hasattr(values.array, "__arrow_array__"):  # ArrowDtype, string[pyarrow], Int64...
        import pyarrow as pa

        return _from_arrow(pa.array(values.array), text_only)
    objs = values.to_numpy(dtype=object, na_value=None)
    return _from_objects(objs.tolist(), text_only)


# --------------------------------------------------------------------------- polars


def _from_polars(values: object, text_only: bool) -> DecimalColumn:
    import polars as pl

    if not isinstance(values, pl.Series):
        raise TypeError(
            f"cannot format a polars {type(values).__name__}: pass one column, e.g."
            " df['price'] or df.get_column('price')"
        )
    if values.dtype == pl.Object:
        return _from_objects(values.to_list(), text_only)
    return _from_arrow(values.to_arrow(), text_only)


# ------------------------------------------------------------------------ sentinels


def _sentinels(null: object) -> list[int]:
    items = null if isinstance(null, (list, tuple, np.ndarray)) else [null]
    out = []
    for v in np.asarray(items, dtype=object).reshape(-1).tolist():
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(
                f"null must be an int or a sequence of ints (e.g. null=2**63 - 1), got {v!r}"
            )
        out.append(int(v))
    return out


def _sentinel_rows(coef: np.ndarray, sentinels: list[int]) -> np.ndarray | None:
    """Rows whose coefficient equals one of ``sentinels`` (``None`` when there are none)."""
    coef = np.asarray(coef)
    hit = None
    for s in sentinels:
        if coef.dtype.kind in "iu":
            info = np.iinfo(coef.dtype)
            if not info.min <= s <= info.max:
                continue
            eq = coef == coef.dtype.type(s)  # same dtype: no float promotion
        else:
            eq = np.array([v == s for v in coef.reshape(-1).tolist()], dtype=bool).reshape(
                coef.shape
            )
        hit = eq if hit is None else hit | eq
    if hit is None or not hit.any():
        return None
    return np.asarray(hit)  # an array also for one row (a 0-d comparison gives a scalar)
