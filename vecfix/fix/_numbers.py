"""Prices and sizes for the FIX builders: each kind of column takes one
:class:`vecfix.NumberFormat` (``price=``, ``size=``), or none.

What a column needs follows from what it holds, by these rules (the builders' docstrings
point here):

* **Integer coefficients.** A price needs ``price=vecfix.NumberFormat(exponent, scale)``
  (``NumberFormat(-9, 2)`` for CME PRICE9 printed with 2 decimals); leaving it out is one
  error that names every missing part. A size needs nothing when it counts whole units:
  without ``size=`` (or without its exponent) a size column of integers is read with
  exponent 0, and a column of exponent 0 is printed at scale 0 unless a scale is given
  (``271=7``). A size of another exponent (``NumberFormat(-8, ...)``) needs its scale.
* **Decimals** (``Decimal`` objects, decimal text, Arrow, pandas or polars decimal
  types) carry their own exponent: a format gives them at most a scale, and no ``null``
  (their own nulls mark missing values). Without a scale they are printed as they are
  written, every digit kept: each value with its own decimal places (``"1.50"`` stays
  ``1.50``, ``"2"`` stays ``2``, ``"1e-3"`` is ``0.001``), an Arrow ``decimal128(p, s)``
  column with ``s`` decimals. Give a scale to print them all alike (rounded half away
  from zero, as shopspring/decimal's ``StringFixed``).
* **Already formatted** columns (:class:`vecfix.Formatted`) take no format.

Exponents and scales may vary by row: a ``NumberFormat`` holding arrays of one value a
row (the builders take columns, not column names).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _format
from .._limits import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from .._number_format import NumberFormat
from .._result import Formatted
from ..columns import ColumnLike, kind_of, read_column, rules
from ..columns.rules import RowError, is_int, is_masked, show_value
from ._columns import check_aligned, check_bytes, check_rows, has_formatted_shape, valid_mask

WHOLE = NumberFormat(0, 0)
"""Whole numbers: exponent 0, scale 0."""
_NONE = NumberFormat()

Given = tuple[str, str, Any, Any]
"""A builder's price or size column: its name, its role (``"price"`` or ``"size"``), its
values and its ``*_valid`` mask (``prices``' is ``price_valid``, ``bid_px``'s
``bid_px_valid``)."""


_QUOTE = (("bid_px", "price"), ("offer_px", "price"), ("bid_size", "size"), ("offer_size", "size"))
#: A quote's value columns, in the order of the builders' arguments.
QUOTE_NAMES = tuple(name for name, _ in _QUOTE)


def quote_columns(
    values: tuple[Any, ...], valids: tuple[Any, ...] = (None,) * 4
) -> tuple[Given, ...]:
    """A quote's ``bid_px``, ``offer_px``, ``bid_size`` and ``offer_size`` as :data:`Given`."""
    return tuple(
        (name, role, v, ok) for (name, role), v, ok in zip(_QUOTE, values, valids, strict=True)
    )


def example_of(role: str) -> str:
    """A format for messages: PRICE9 for prices, units of 1e-8 for sizes."""
    if role == "size":
        return "NumberFormat(-8, 8) for units of 1e-8; whole numbers need none"
    return "NumberFormat(-9, 2) for CME PRICE9 with 2 decimals"


def _valid_name(name: str) -> str:
    return f"{name.removesuffix('s')}_valid"


def check_formats(
    price: object, size: object, given: tuple[Given, ...], others: dict[str, object]
) -> tuple[NumberFormat | None, NumberFormat | None]:
    """A builder's ``price=`` and ``size=``, checked before anything is read: a
    :class:`NumberFormat` or ``None``, with values rather than column names, used by a
    column ``given`` that is not already formatted; and the pandas indexes of the columns
    ``given``, their masks, ``others`` (the builder's other columns of the same rows) and
    the formats' per-row values, aligned."""
    columns = {**others, **{name: v for name, _, v, _ in given}}
    columns |= {_valid_name(name): valid for name, _, _, valid in given}
    for role, fmt in (("price", price), ("size", size)):
        if fmt is None:
            continue
        if not isinstance(fmt, NumberFormat):
            raise TypeError(
                f"{role} must be a vecfix.NumberFormat, got {type(fmt).__name__}"
                f" {show_value(fmt)}: e.g. {role}=vecfix.{example_of(role)}"
            )
        for part in ("exponent", "scale"):
            value = getattr(fmt, part)
            if isinstance(value, str):
                raise TypeError(
                    f"{role}.{part} = {show_value(value)} names a column, but the FIX builders"
                    " take columns, not names\nPass the values themselves (one a row)"
                )
            if value is not None and not is_int(value):
                columns[f"{role}.{part}"] = value
        names = [name for name, r, v, _ in given if r == role]
        if all(has_formatted_shape(columns[name]) for name in names):
            verb = "is" if len(names) == 1 else "are"
            raise TypeError(
                f"{' and '.join(names)} {verb} already formatted (vecfix.Formatted):"
                f" leave {role}= out"
            )
    check_aligned(columns)
    return price, size  # type: ignore[return-value]


def plain_layout(price: object, size: object) -> np.ndarray | None:
    """The layout rows of :func:`vecfix._kernels.fix.quote_frames` (exponent, scale, null
    sentinel, whether there is one) for a quote's bid and offer prices and sizes, when
    ``price`` and ``size`` are of the per-tick call: a ``NumberFormat`` of an int
    exponent and scale and at most one null sentinel (for sizes also none: whole
    numbers); None otherwise (the general path applies the rules above)."""
    found = _LAYOUTS.get((id(price), id(size)))
    if found is not None and found[0] is price and found[1] is size:
        return found[2]
    px, sz = _plain_format(price), (0, 0, 0, 0) if size is None else _plain_format(size)
    if px is None or sz is None:
        return None
    layout = np.array((px, px, sz, sz), dtype=np.int64)
    layout.flags.writeable = False
    if len(_LAYOUTS) >= 256:  # bounded
        _LAYOUTS.clear()
    _LAYOUTS[id(price), id(size)] = (price, size, layout)  # (holding them: ids stay theirs)
    return layout


#: :func:`plain_layout`'s layouts, by the formats' identities (NumberFormat is frozen): a
#: pair of formats is checked and its layout built once.
_LAYOUTS: dict[tuple[int, int], tuple[object, object, np.ndarray]] = {}
_INT64 = np.dtype(np.int64)


def _plain_format(fmt: object) -> tuple[int, int, int, int] | None:
    if type(fmt) is not NumberFormat:
        return None
    e, s, null = fmt.exponent, fmt.scale, fmt.null
    if type(e) is not int or type(s) is not int:
        return None
    if not (INT32_MIN <= e <= INT32_MAX and INT32_MIN <= s <= INT32_MAX):
        return None
    if null is None:
        return e, s, 0, 0
    if type(null) is int and INT64_MIN <= null <= INT64_MAX:
        return e, s, null, 1
    return None


def plain_coefficients(columns: tuple[object, ...], n: int) -> list[np.ndarray] | None:
    """The integer columns of a per-tick call, ``n`` values each, as C-contiguous int64
    arrays: an integer NumPy array (as it is when it is one), a list or tuple of ``int``
    within int64; None for anything else."""
    out = []
    for values in columns:
        if type(values) is np.ndarray and values.dtype is _INT64 and values.shape == (n,):
            out.append(values)  # (C-contiguous, or the kernel refuses it: the general path)
        elif type(values) is np.ndarray:
            kind, size = values.dtype.kind, values.dtype.itemsize
            if values.shape != (n,) or not (kind == "i" or (kind == "u" and size < 8)):
                return None
            out.append(np.ascontiguousarray(values, dtype=np.int64))
        elif type(values) is list or type(values) is tuple:
            if len(values) != n or not all(type(v) is int for v in values):
                return None
            try:
                out.append(np.array(values, dtype=np.int64))
            except OverflowError:  # beyond int64: the general path's decimals
                return None
        else:
            return None
    return out


def warn_sentinel(names: list[str], stacklevel: int = 4) -> None:
    """The builders' one :class:`vecfix.SentinelWarning` a call (in the words of
    :func:`vecfix.columns.rules.sentinel_text`) for integer prices or sizes equal to
    ``2**63 - 1`` printed as numbers, their format giving no null sentinel, naming the
    columns (``stacklevel``: the builder's caller, by default from a function the builder
    calls)."""
    advice = "give its format null=2**63 - 1, e.g. vecfix.NumberFormat(-9, 2, null=2**63 - 1)"
    where = names[0] if len(names) == 1 else f"each of {' and '.join(names)}"
    text = rules.sentinel_text(INT64_MAX, where, advice)
    warnings.warn(text, rules.SentinelWarning, stacklevel=stacklevel)


def holds_sentinel(values: object, valid: ColumnLike = None) -> bool:
    """Whether an integer column (a NumPy array, a list or tuple, a pandas or polars
    integer column) holds ``2**63 - 1`` in a row ``valid`` (checked already) keeps."""
    column: Any = values
    if type(column) is list or type(column) is tuple:
        hits = np.array([type(v) is int and v == INT64_MAX for v in column], dtype=np.bool_)
    else:
        if type(column).__module__.partition(".")[0] == "polars" and hasattr(column, "to_numpy"):
            column = column.to_numpy()
        dtype = getattr(column, "dtype", None)
        if not (isinstance(dtype, np.dtype) and dtype.kind in "iu" and dtype.itemsize == 8):
            return False
        hits = (
            np.ma.filled(column == INT64_MAX, False)
            if is_masked(column)
            else np.asarray(column) == INT64_MAX
        )
    mask = None if valid is None else np.asarray(valid, dtype=np.bool_)
    if mask is not None and hits.shape == mask.shape:
        hits &= mask
    return bool(hits.any())


def read_numbers(
    price: NumberFormat | None,
    size: NumberFormat | None,
    given: tuple[Given, ...],
    n: int,
    what: str,
) -> list[Formatted]:
    """The columns ``given`` formatted (:func:`number_column`), ``n`` rows each."""
    cols, sentinels = [], []
    for name, role, values, valid in given:
        fmt = price if role == "price" else size
        col = number_column(name, role, values, fmt, valid=valid, valid_name=_valid_name(name))
        check_rows(name, col, n, what)
        cols.append(col)
        if (fmt is None or fmt.null is None) and holds_sentinel(values, valid):
            sentinels.append(name)
    if sentinels:
        warn_sentinel(sentinels)
    return cols


def formatted_column(
    name: str, values: Any, valid: ColumnLike = None, valid_name: str = "valid"
) -> Formatted:
    """An already formatted column (a :class:`vecfix.Formatted` or any object with a
    ``matrix`` and ``lengths`` laid out like one), checked; ``valid`` and the column's own
    ``valid`` combined."""
    matrix = np.ascontiguousarray(values.matrix, dtype=np.uint8)
    lengths = np.ascontiguousarray(values.lengths, dtype=np.int32)
    if matrix.ndim != 2 or lengths.shape != matrix.shape[:1]:
        raise ValueError(f"{name}: matrix must be (n, width) and lengths (n,)")
    if lengths.size and (lengths.min() < 0 or lengths.max() > matrix.shape[1]):
        raise ValueError(f"{name}: lengths must lie within 0..width={matrix.shape[1]}")
    mask = None if valid is None else valid_mask(valid_name, valid, lengths.size)
    inner = getattr(values, "valid", None)
    if inner is not None:
        inner = valid_mask(f"{name}.valid", inner, lengths.size)
        mask = inner if mask is None else mask & inner
    col = Formatted(matrix, lengths, mask)
    check_bytes(name, col, identifier=False)
    return col


def number_column(
    name: str,
    role: str,
    values: Formatted | ColumnLike,
    fmt: NumberFormat | None,
    *,
    valid: ColumnLike = None,
    valid_name: str = "valid",
    arg: str | None = None,
) -> Formatted:
    """A price or size column (``role``) formatted by :func:`vecfix.format_fixed` with
    ``fmt`` completed by the rules above, or taken as it is if already formatted.
    ``valid`` is combined with the column's own nulls (what it masks is never read);
    ``arg`` is the keyword that carries ``fmt``, for messages (default: ``role``)."""
    if has_formatted_shape(values):
        return formatted_column(name, values, valid, valid_name)
    try:
        n = len(values)  # type: ignore[arg-type]
    except TypeError:  # a scalar: format_fixed says what is wrong with it
        n = 1
    mask = None if valid is None else valid_mask(valid_name, valid, n)
    if n == 0:  # nothing to format: no format is needed
        return Formatted(np.zeros((0, 0), np.uint8), np.zeros(0, np.int32))
    if is_masked(values):  # hidden values are nulls, never printed
        hidden = np.ma.getmaskarray(values)
        mask = ~hidden if mask is None else mask & ~hidden
        values = values.data
    if mask is not None:
        values = _hide_masked(values, mask)
    arg = role if arg is None else arg
    given = fmt or _NONE
    exponent, scale, null = given.exponent, given.scale, given.null
    try:
        if exponent is None or scale is None:  # what the column holds decides the rest
            kind, read = _kind_of(values)
            shown = values  # (described only for a message)
            source = (lambda: read_column(shown).described()) if read is None else read.source
            exponent, scale = decide(kind, role, arg, fmt, null, source)
            if read is not None:  # hand on what was read: it is not read twice
                values = _plain(read)
            if scale is None:  # decimals, as written
                read = read_column(values) if read is None else read
                values, scale = read.decimal(), as_written(read.exponents)
        out = _format.run(values, exponent, scale, null=null, sentinels=False)
    except RowError as exc:  # keep the row (and the type) for the caller
        same = exc.lead.strip() == exc.argument  # "coefficients row 2: ..."
        lead = f"{name} " if same else f"{name}: {builder_words(exc.lead, arg)}"
        detail = builder_words(exc.detail, arg)
        raise type(exc)(detail, argument=name, row=exc.row, lead=lead) from None
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}: {builder_words(str(exc), arg)}") from None
    if mask is not None:
        out = Formatted(out.matrix, out.lengths, mask if out.valid is None else mask & out.valid)
    return out


def decide(
    kind: rules.Kind,
    role: str,
    arg: str,
    fmt: NumberFormat | None,
    null: Any,
    source: str | Callable[[], str],
) -> tuple[Any, Any]:
    """The exponent and the scale of a column of ``kind`` by the rules of this module:
    ``fmt``'s, completed (a scale of ``None`` for decimals: print them as written), or an
    error (the words of :func:`vecfix.format_fixed`; ``arg`` is the keyword of ``fmt``)."""
    exponent, scale = (None, None) if fmt is None else (fmt.exponent, fmt.scale)
    if kind == "integers":
        if exponent is None and role == "size":
            exponent = 0
        if scale is None and is_int(exponent) and exponent == 0:
            scale = 0
        missing = [part for part, v in (("exponent", exponent), ("scale", scale)) if v is None]
        if missing:
            raise _required(role, arg, fmt, exponent, scale, missing)
    elif kind == "empty":  # no row holds a value: nothing is printed
        exponent, scale = (0 if exponent is None else exponent), (0 if scale is None else scale)
    else:  # decimals, text: they carry their exponent
        rules.needs(kind, exponent, null, source=source)
    return exponent, scale


def _kind_of(values: ColumnLike) -> tuple[rules.Kind, Any]:
    """What ``values`` holds, and the column read if its rows had to be looked at (typed
    columns tell from their type alone)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return "integers", None
    if type(values) is list and all(type(v) is int for v in values):  # (a quote's sizes)
        return "integers", None
    if type(values).__module__.partition(".")[0] in ("pyarrow", "pandas", "polars"):
        kind = kind_of(values)
        if kind != "empty":  # (an object column: its rows decide)
            return kind, None
    read = read_column(values)
    return read.kind, read


def _plain(read: Any) -> ColumnLike:
    """A read column as :func:`vecfix.format_fixed` takes it: its int64 coefficients
    when they are all there is (the common, fast call), else a :class:`DecimalColumn`."""
    coef = read.coefficients
    plain = read.kind == "integers" and read.valid is None and coef.ndim == 1
    if plain and isinstance(coef, np.ndarray) and coef.dtype == np.int64:
        return coef
    return read.decimal()


def as_written(exponents: int | np.ndarray | None) -> int | np.ndarray:
    """Scales that print decimals as written: each value's own decimal places (``-exponent``,
    at least 0); one int when every row has the same."""
    if exponents is None:
        return 0
    if is_int(exponents):
        return max(0, -int(exponents))
    exps = np.asarray(exponents, dtype=np.int64)
    if exps.size and exps.min() == exps.max():
        return max(0, -int(exps[0]))
    return np.maximum(0, -exps)


def _required(
    role: str, arg: str, fmt: NumberFormat | None, exponent: Any, scale: Any, missing: list[str]
) -> TypeError:
    """One error for an integer column whose format lacks parts: every missing part named,
    the call to make, an example."""
    if fmt is None:
        what = f"{arg}= is"
    elif len(missing) > 1:
        what = "an exponent and a scale are"
    else:
        what = f"{arg}.{missing[0]} is"
    shown = [
        part if part in missing else str(value) if is_int(value) else "[...]"  # (one a row)
        for part, value in (("exponent", exponent), ("scale", scale))
    ]
    call = f"{arg}=vecfix.NumberFormat({shown[0]}, {shown[1]})"
    return TypeError(
        f"{what} required for integer coefficients: pass {call}, e.g. {example_of(role)}"
    )


#: format_fixed's argument names where its messages name them ("exponent=None", "scale
#: must", "scale row 2", "exponent of length 3"), not its prose ("their own exponent",
#: "coefficient=1, exponent=3000, scale=2", "Check the exponent and scale")
_ARGUMENT = re.compile(
    r"(?<![\w.])(?:(?<!, )(exponent|scale)(?==)"
    r"|(exponent|scale)(?= (?:is|must|row|of length)\b| \(scalar\)|\.\w))"
)


def builder_words(message: str, arg: str) -> str:
    """format_fixed's message with its argument names as the builder calls them
    (``exponent`` -> ``price.exponent`` for ``arg="price"``)."""
    message = _ARGUMENT.sub(lambda m: f"{arg}.{m.group(1) or m.group(2)}", message)
    return re.sub(r"(?<![\w.])null=(?=\s)", f"{arg}.null", message)


def _hide_masked(values: ColumnLike, mask: np.ndarray) -> ColumnLike:
    """``values`` with the rows where ``mask`` is False made harmless before they are read:
    0 in integer arrays ("0" in text arrays), a null (None) in lists, object arrays and
    text columns of pandas, polars and Arrow, whose hidden rows may hold anything ("N/A",
    "") that the parser would refuse. Typed columns (integers, decimals) are formatted as
    they are, their masked rows left out after."""
    col: Any = values
    if mask.all():
        return col
    if isinstance(col, np.ndarray):  # (floats, bools: refused whatever they hold)
        fill: dict[str, Any] = {"i": 0, "u": 0, "S": b"0", "U": "0", "O": None}
        return np.where(mask, col, fill[col.dtype.kind]) if col.dtype.kind in fill else col
    if isinstance(col, (list, tuple)):
        return [v if ok else None for v, ok in zip(col, mask.tolist(), strict=True)]
    module = type(col).__module__.partition(".")[0]
    if module == "pandas" and getattr(col, "ndim", 0) == 1:
        if col.dtype.kind in "OU" or str(col.dtype).startswith("string"):
            return col.where(mask, None)
    elif module == "polars" and hasattr(col, "scatter"):
        import polars as pl

        if col.dtype in (pl.String, pl.Object):
            return col.clone().scatter(np.flatnonzero(~mask), None)
    elif module == "pyarrow" and hasattr(col, "type"):
        import pyarrow as pa
        import pyarrow.compute as pc

        t = pa.types
        text = (t.is_string, t.is_large_string, t.is_string_view, t.is_binary, t.is_large_binary)
        if any(is_text(col.type) for is_text in text):
            return pc.if_else(pa.array(mask), col, pa.scalar(None, col.type))
    return col
