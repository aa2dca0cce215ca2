"""One batch of one named column, formatted by its :class:`~vecfix.NumberFormat`.

:func:`format_values` is the per-batch function of everything that formats *named* columns:
the polars namespace (each batch of a lazy query), the pandas accessor, ``vecfix format``
(through the polars namespace) and :mod:`vecfix.dask` (each partition). It is
:func:`vecfix.format_fixed` with the column's format, two decisions stated once (what a
null per-row exponent or scale means; how an error names the column and the arguments)
and nothing else.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import numpy as np

from ._number_format import NumberFormat
from .columns.rules import RowError, is_int, show_value

__all__ = ["format_values", "in_words", "number_format"]

#: format_fixed's argument names -> NumberFormat's (the namespaces' keywords)
_WORDS = {"exponents": "exponent", "scales": "scale"}
_WORD = re.compile(r"\b(exponents|scales)\b")


def number_format(owner: str, format: Any, exponent: Any, scale: Any, null: Any) -> NumberFormat:
    """The one format a namespace method was given: a :class:`NumberFormat` (``format=``,
    or positionally in ``exponent``'s place) or the keywords, never both (as
    ``pyarrow.compute`` takes options).

    >>> number_format("fixed", None, -9, 2, None)
    NumberFormat(exponent=-9, scale=2, null=None)
    >>> number_format("fixed", None, NumberFormat(-9, 2), 3, None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: fixed: give a NumberFormat or exponent=/scale=/null=, not both (got ... scale=3)
    """
    if isinstance(exponent, NumberFormat):
        if format is not None:
            raise TypeError(f"{owner}: give one NumberFormat, not two")
        format, exponent = exponent, None
    if format is None:
        return NumberFormat(exponent, scale, null)
    if not isinstance(format, NumberFormat):
        raise TypeError(
            f"{owner}: format must be a vecfix.NumberFormat, got {type(format).__name__}"
        )
    given = [f"{k}={show_value(v, 40)}" for k, v in (("exponent", exponent), ("scale", scale),
             ("null", null)) if v is not None]  # fmt: skip
    if given:
        raise TypeError(
            f"{owner}: give a NumberFormat or exponent=/scale=/null=, not both"
            f" (got the format and {', '.join(given)})"
        )
    return format


def format_values(
    values: Any,
    fmt: NumberFormat,
    *,
    exponents: Any = None,
    scales: Any = None,
    column: Any = None,
    layout: Literal["matrix", "arrow", "string_view"] = "arrow",
    threads: int | None = 1,
    null_layouts: Literal["null", "raise"] = "null",
) -> Any:
    """``values`` formatted by ``fmt``: a :class:`vecfix.Formatted`.

    Parameters
    ----------
    values
        The batch of the column (anything :func:`vecfix.format_fixed` takes).
    fmt : NumberFormat
        The column's format. Where its ``exponent`` or ``scale`` is per row (a column's
        name, an expression), the caller reads this batch's values and passes them as
        ``exponents`` / ``scales``.
    column
        The column's name, for messages (``None`` or ``""``: not named).
    layout, threads
        As for :func:`vecfix.format_fixed`.
    null_layouts : {"null", "raise"}
        A row whose per-row exponent or scale is null: null (``"null"``, as polars and
        pandas propagate nulls), or refused naming the row (``"raise"``).

    Raises
    ------
    TypeError, ValueError
        As :func:`vecfix.format_fixed`, in the words of ``fmt`` (``exponent``, ``scale``),
        naming ``column``; a :class:`vecfix.RowError` keeps its row (counted in the batch).

    Examples
    --------
    >>> from vecfix import NumberFormat
    >>> fmt = NumberFormat(-2, scale="tick")  # each row's scale, read by the caller
    >>> format_values([125, 7], fmt, scales=[1, None], column="px").to_list()
    ['1.3', None]
    >>> format_values([125], NumberFormat(-2), column="px")
    Traceback (most recent call last):
    ...
    TypeError: column 'px': scale is required: the decimal places to print (e.g. scale=2)
    """
    from . import format_fixed

    exponent = exponents if fmt.exponent is not None and not is_int(fmt.exponent) else fmt.exponent
    scale = scales if fmt.scale is not None and not is_int(fmt.scale) else fmt.scale
    try:
        if scale is None:
            raise TypeError("scale is required: the decimal places to print (e.g. scale=2)")
        if null_layouts == "null":
            values, exponent, scale = _null_where_layout_is(values, exponent, scale)
        return format_fixed(values, exponent, scale, null=fmt.null, threads=threads, layout=layout)
    except (TypeError, ValueError) as exc:
        raise in_words(exc, column) from None


def in_words(exc: Exception, column: Any = None) -> Exception:
    """``exc`` (from :func:`vecfix.format_fixed`) in :class:`NumberFormat`'s words
    (``exponent``, ``scale``), naming ``column``; the same type, and a
    :class:`~vecfix.RowError` keeps its row.

    >>> from vecfix import RowError
    >>> print(in_words(RowError(": 'x' is not decimal text", argument="coefficients",
    ...                         row=3, lead="coefficients "), "px"))
    column 'px', row 3: 'x' is not decimal text
    >>> print(in_words(TypeError("scales is required"), "px"))
    column 'px': scales is required
    """
    named = f"column {show_value(column)}" if column not in (None, "") else ""
    if isinstance(exc, RowError) and exc.row is not None:
        argument = _WORDS.get(exc.argument or "", exc.argument)
        lead = _WORD.sub(lambda m: _WORDS[m.group(1)], exc.lead)
        if exc.argument == "coefficients":
            lead = lead.removeprefix("coefficients ")
            lead = f"{named}, {lead}" if named else lead
        elif named:
            lead = f"{named}: {lead}"
        detail = _WORD.sub(lambda m: _WORDS[m.group(1)], exc.detail)
        return type(exc)(detail, argument=argument, row=exc.row, lead=lead)
    text = str(exc)
    if not text.startswith("scales is required"):  # (format_fixed's own: say it as it is)
        text = _WORD.sub(lambda m: _WORDS[m.group(1)], text)
    text = f"{named}: {text}" if named else text
    if isinstance(exc, RowError):
        return type(exc)(text, argument=exc.argument)
    try:
        return type(exc)(text)
    except TypeError:  # an exception class that wants other arguments: its base
        return (TypeError if isinstance(exc, TypeError) else ValueError)(text)


def _has_nulls(values: Any) -> bool:
    module = type(values).__module__.partition(".")[0]
    if module == "polars":
        return bool(values.null_count())
    if module == "pandas":
        return bool(values.hasnans)
    if module == "pyarrow":
        return bool(values.null_count)
    if isinstance(values, np.ma.MaskedArray):
        return bool(np.ma.is_masked(values))
    return isinstance(values, (list, tuple)) and any(v is None for v in values)


def _null_where_layout_is(values: Any, exponent: Any, scale: Any) -> tuple[Any, Any, Any]:
    """Rows whose per-row exponent or scale is null made null (their layout read as 0),
    through the input layer's :class:`~vecfix.DecimalColumn`; the inputs as they are when
    no layout has a null."""
    layouts = {"exponents": exponent, "scales": scale}
    nullable = {k: v for k, v in layouts.items() if v is not None and _has_nulls(v)}
    if not nullable:
        return values, exponent, scale
    from .columns import DecimalColumn, read_column

    read = {k: read_column(v, k) for k, v in nullable.items()}
    present = np.logical_and.reduce([c.valid for c in read.values() if c.valid is not None])
    col = read_column(values)
    valid = present if col.valid is None else col.valid & present
    masked = DecimalColumn(col.coefficients, col.exponents, valid)
    exponent = read["exponents"].coefficients if "exponents" in read else exponent
    scale = read["scales"].coefficients if "scales" in read else scale
    return masked, exponent, scale
