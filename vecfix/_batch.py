"""One batch of one named column, formatted by its :class:`~vecfix.NumberFormat`:
:func:`format_values`, the per-batch function of the polars namespace (so of ``vecfix
format``), the pandas accessor and :mod:`vecfix.dask`. It is :func:`vecfix.format_fixed`
with two decisions stated once: what a null per-row exponent or scale means, and how an
error names the column."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ._number_format import NumberFormat
from .columns.rules import RowError, is_int, is_masked, show_value

__all__ = ["format_values"]


def format_values(
    values: Any,
    fmt: NumberFormat,
    *,
    exponent: Any = None,
    scale: Any = None,
    column: Any = None,
    layout: Literal["matrix", "arrow", "string_view"] = "arrow",
    threads: int | None = 1,
    null_layouts: Literal["null", "raise"] = "null",
    sentinels: bool = True,
) -> Any:
    """``values`` formatted by ``fmt`` (a :class:`vecfix.Formatted`). Where ``fmt``'s
    exponent or scale is per row, the caller passes this batch's as ``exponent`` /
    ``scale``; a row whose one is null is null (``null_layouts="null"``, as
    :func:`vecfix.format_fixed` does, and polars and pandas propagate nulls) or refused
    (``"raise"``). Errors name ``column``. ``sentinels=False``: no warning of a usual null
    sentinel (a caller that warns in its own words, ``vecfix format``).

    >>> from vecfix import NumberFormat
    >>> fmt = NumberFormat(-2, scale="tick")  # each row's scale, read by the caller
    >>> format_values([125, 7], fmt, scale=[1, None], column="px").to_list()
    ['1.3', None]
    >>> format_values([125], NumberFormat(-2), column="px")
    Traceback (most recent call last):
    ...
    TypeError: column 'px': scale is required: the decimal places to print (e.g. scale=2)
    """
    from ._format import run

    if fmt.exponent is None or is_int(fmt.exponent):
        exponent = fmt.exponent
    if fmt.scale is None or is_int(fmt.scale):
        scale = fmt.scale
    try:
        if scale is None:
            raise TypeError("scale is required: the decimal places to print (e.g. scale=2)")
        if null_layouts == "raise":
            _refuse_null_layouts(exponent, scale)
        return run(values, exponent, scale, None, None, threads, fmt.null, layout, sentinels)
    except (TypeError, ValueError) as exc:
        raise _naming(exc, column) from None


def _naming(exc: Exception, column: Any = None) -> Exception:
    """``exc`` (from :func:`vecfix.format_fixed`) naming ``column``: the same type; a
    :class:`~vecfix.RowError` keeps its row.

    >>> from vecfix import RowError
    >>> print(_naming(RowError(": 'x' is not decimal text", argument="coefficients",
    ...                          row=3, lead="coefficients "), "px"))
    column 'px', row 3: 'x' is not decimal text
    >>> print(_naming(ValueError("scale must fit in int32"), "px"))
    column 'px': scale must fit in int32
    """
    named = f"column {show_value(column)}" if column not in (None, "") else ""
    if isinstance(exc, RowError) and exc.row is not None:
        lead = exc.lead
        if exc.argument == "coefficients":
            lead = lead.removeprefix("coefficients ")
            lead = f"{named}, {lead}" if named else lead
        elif named:
            lead = f"{named}: {lead}"
        return type(exc)(exc.detail, argument=exc.argument, row=exc.row, lead=lead)
    text = str(exc)
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
    if is_masked(values):
        return bool(np.ma.is_masked(values))
    return isinstance(values, (list, tuple)) and any(v is None for v in values)


def _refuse_null_layouts(exponent: Any, scale: Any) -> None:
    """Refuse a per-row exponent or scale with a null row (naming the first)."""
    from .columns import read_column
    from .columns.rules import null_in

    for name, value in (("exponent", exponent), ("scale", scale)):
        if value is not None and not is_int(value) and _has_nulls(value):
            valid = read_column(value, name).valid
            if valid is not None and not valid.all():
                raise null_in(name, int(np.flatnonzero(~valid)[0]))
