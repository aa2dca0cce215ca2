"""A ``vecfix`` namespace on polars expressions and Series, registered on import.

>>> import polars as pl
>>> import vecfix.polars  # registers the namespace
>>> df = pl.DataFrame({"bid_px": [5000_250000000, None, -4_000000]})
>>> df.with_columns(pl.col("bid_px").vecfix.fixed(exponent=-9, scale=2))["bid_px"].to_list()
['5000.25', None, '0.00']
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ._format import format_fixed

__all__ = ["VecfixExpr", "VecfixSeries"]


def _fixed(
    series: pl.Series,
    exponent: int | None,
    scale: int | None,
    null: int | Sequence[int] | None,
    threads: int | None,
) -> pl.Series:
    out = format_fixed(series, exponent, scale, null=null, threads=threads, layout="string_view")
    return out.to_polars(series.name)


@pl.api.register_expr_namespace("vecfix")
class VecfixExpr:
    """``expr.vecfix``: vecfix on a polars expression."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def fixed(
        self,
        exponent: int | None = None,
        scale: int | None = None,
        *,
        null: int | Sequence[int] | None = None,
        threads: int | None = 1,
    ) -> pl.Expr:
        """The column formatted as :func:`vecfix.format_fixed` does, as a ``String``
        column of the same name (nulls stay null).

        Parameters
        ----------
        exponent : int, optional
            The power of ten of integer coefficients (``-9`` for PRICE9); leave it out for
            ``Decimal`` and ``String`` (decimal text) columns.
        scale : int
            Decimal places to print.
        null : int or sequence of int, optional
            Sentinel coefficients that mean "no value" (integer columns only).
        threads : int or None, default 1
            As for :func:`vecfix.format_fixed`; one by default, as polars runs batches of
            a query on its own threads.

        Examples
        --------
        >>> import polars as pl, vecfix.polars
        >>> df = pl.DataFrame({"px": ["1.005", "2.675"]})
        >>> df.select(pl.col("px").vecfix.fixed(scale=2))["px"].to_list()
        ['1.01', '2.68']
        """
        for name, value in (("exponent", exponent), ("scale", scale)):
            if isinstance(value, pl.Expr):  # (it failed inside the query, naming the column)
                raise TypeError(
                    f"{name} must be an int, not a polars expression: for one {name} per"
                    " row, pass the columns (Series) to vecfix.format_fixed"
                )
        return self._expr.map_batches(
            lambda s: _fixed(s, exponent, scale, null, threads),
            return_dtype=pl.String,
            is_elementwise=True,
        )


@pl.api.register_series_namespace("vecfix")
class VecfixSeries:
    """``series.vecfix``: vecfix on a polars Series."""

    def __init__(self, series: pl.Series) -> None:
        self._series = series

    def fixed(
        self,
        exponent: int | None = None,
        scale: int | None = None,
        *,
        null: int | Sequence[int] | None = None,
        threads: int | None = 1,
    ) -> pl.Series:
        """The Series formatted, named as it is; see :meth:`VecfixExpr.fixed`.

        Examples
        --------
        >>> import polars as pl, vecfix.polars
        >>> pl.Series("bid", [125, None]).vecfix.fixed(-2, 1).to_list()
        ['1.3', None]
        """
        return _fixed(self._series, exponent, scale, null, threads)
