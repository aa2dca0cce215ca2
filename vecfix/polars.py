"""A ``vecfix`` namespace on polars expressions and Series, registered on import (``import
vecfix`` imports this module as soon as polars is imported, in either order).

The expression is elementwise: polars' streaming engine runs it batch by batch on its own
threads (``scan_parquet(...).with_columns(...).sink_csv(...)`` never holds the whole file),
a per-row exponent or scale (a column's name, or any expression) read from the same batch.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from ._batch import format_values
from ._number_format import NumberFormat, number_format

__all__ = ["VecfixExpr", "VecfixSeries"]

_FIELD = "__vecfix_{}__"  # the struct fields of per-row layouts


class _InFlight:
    """Batches inside vecfix now, on polars' threads, and whether one failed.

    When a batch fails, polars hands the error back while other batches may still be in
    vecfix, and drops the text of those done (taking the GIL) on its threads later: should
    the interpreter exit meanwhile, the process aborts. At exit, :meth:`wait` lets them
    finish (a minute at most), then, after a failure, a moment more.
    """

    GRACE = 0.5
    """Seconds given, after a failed batch, for polars to drop the others' text."""

    def __init__(self) -> None:
        self.count, self.failed, self.changed = 0, False, threading.Condition()

    def __enter__(self) -> None:
        with self.changed:
            self.count += 1

    def __exit__(self, kind: object, *exc: object) -> None:
        with self.changed:
            self.count -= 1
            self.failed = self.failed or kind is not None
            self.changed.notify_all()

    def failure(self) -> None:
        """A query that holds vecfix's batches failed outside them (its sink, say)."""
        with self.changed:
            self.failed = True

    def wait(self, timeout: float = 60.0) -> None:
        with self.changed:
            self.changed.wait_for(lambda: self.count == 0, timeout)
            if self.failed:
                self.changed.wait(self.GRACE)


_IN_FLIGHT = _InFlight()
atexit.register(_IN_FLIGHT.wait)


def fixed_expr(
    expr: pl.Expr,
    fmt: NumberFormat,
    *,
    threads: int | None = 1,
    null_layouts: str = "null",
    watch: Callable[[pl.Series], None] | None = None,
    sentinels: bool = True,
) -> pl.Expr:
    """``expr`` formatted by ``fmt``, as an elementwise ``String`` expression of
    ``expr``'s name: what :meth:`VecfixExpr.fixed` returns. ``watch`` (``vecfix
    format``'s progress and checks) is called with each batch of values first;
    ``sentinels=False``: no warning of a usual null sentinel (``vecfix format`` warns of
    them in its own words)."""
    layouts = {}
    for name, value in fmt._varying().items():
        if isinstance(value, str):
            value = pl.col(value)
        elif not isinstance(value, pl.Expr):
            raise TypeError(
                f"{name} must be an int, a column name or a polars expression, got"
                f" {type(value).__name__}\nFor values, put them in a column of the frame"
            )
        layouts[name] = value.alias(_FIELD.format(name))

    def run(batch: pl.Series) -> pl.Series:
        with _IN_FLIGHT:
            per_row: dict[str, Any] = {}
            if layouts:
                fields = batch.struct.unnest()
                batch = fields.to_series(0)
                per_row = {k: fields[_FIELD.format(k)] for k in layouts}
            if watch is not None:
                watch(batch)
            out = format_values(
                batch, fmt, column=batch.name, layout="string_view", threads=threads,
                null_layouts=null_layouts, sentinels=sentinels, **per_row,  # type: ignore[arg-type]
            )  # fmt: skip
            return out.to_polars(batch.name)

    source = pl.struct(expr, *layouts.values()) if layouts else expr
    return source.map_batches(run, return_dtype=pl.String, is_elementwise=True)


class _Namespace:
    def __init__(self, target: Any) -> None:
        self._target = target


@pl.api.register_expr_namespace("vecfix")
class VecfixExpr(_Namespace):
    """``expr.vecfix``: vecfix on a polars expression."""

    def fixed(
        self,
        exponent: int | str | pl.Expr | NumberFormat | None = None,
        scale: int | str | pl.Expr | None = None,
        *,
        null: int | Sequence[int] | None = None,
        format: NumberFormat | None = None,
        threads: int | None = 1,
    ) -> pl.Expr:
        """The column formatted as :func:`vecfix.format_fixed` does, as a ``String``
        column of the same name (nulls stay null); elementwise, so it streams.

        Parameters
        ----------
        exponent, scale : int, str or polars expression
            As :class:`vecfix.NumberFormat` takes them (no exponent for ``Decimal`` and
            ``String`` columns), per row as a column's name or an expression, read from the
            same batch. A ``NumberFormat`` in ``exponent``'s place says all three at once.
        null : int or sequence of int, optional
            Sentinel coefficients that mean "no value" (integer columns only).
        format : NumberFormat, optional
            The column's format, instead of ``exponent``, ``scale`` and ``null``.
        threads : int or None, default 1
            As for :func:`vecfix.format_fixed`; one, as polars runs batches on its threads.

        A row whose exponent or scale is null is null; nulls in the column stay null.
        An integer column holding int64 max or min (the usual null sentinels) with no
        ``null`` gives one :class:`~vecfix.SentinelWarning` a batch.

        Examples
        --------
        >>> import polars as pl, vecfix
        >>> df = pl.DataFrame({"px": ["1.005", "2.675"]})
        >>> df.select(pl.col("px").vecfix.fixed(scale=2))["px"].to_list()
        ['1.01', '2.68']
        >>> book = pl.DataFrame({"px": [5000_250000000, 110_015625000], "tick": [2, None]})
        >>> book.select(pl.col("px").vecfix.fixed(-9, "tick"))["px"].to_list()
        ['5000.25', None]
        """
        fmt = number_format("fixed", format, exponent, scale, null)
        return fixed_expr(self._target, fmt, threads=threads)


@pl.api.register_series_namespace("vecfix")
class VecfixSeries(_Namespace):
    """``series.vecfix``: vecfix on a polars Series."""

    def fixed(
        self,
        exponent: int | pl.Series | NumberFormat | None = None,
        scale: int | pl.Series | None = None,
        *,
        null: int | Sequence[int] | None = None,
        format: NumberFormat | None = None,
        threads: int | None = 1,
    ) -> pl.Series:
        """The Series formatted, named as it is, as :meth:`VecfixExpr.fixed` does; a per-row
        exponent or scale is a Series (or any values) of the same length.

        Examples
        --------
        >>> import polars as pl, vecfix
        >>> pl.Series("bid", [125, None]).vecfix.fixed(-2, 1).to_list()
        ['1.3', None]
        >>> pl.Series("bid", [125, 125]).vecfix.fixed(-2, pl.Series([0, 2])).to_list()
        ['1', '1.25']
        """
        fmt = number_format("fixed", format, exponent, scale, null)
        s, per_row = self._target, fmt._series_values((str, pl.Expr), "a Series")
        out = format_values(s, fmt, column=s.name, layout="string_view", threads=threads, **per_row)
        return out.to_polars(s.name)
