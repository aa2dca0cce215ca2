"""A ``vecfix`` accessor on pandas Series, registered on import.

>>> import pandas as pd
>>> import vecfix.pandas  # registers the accessor
>>> df = pd.DataFrame({"bid_px": [5000_250000000, 12_345678901]}, index=[7, 3])
>>> df["bid"] = df["bid_px"].vecfix.fixed(-9, 2)
>>> df["bid"].tolist(), df["bid"].index.tolist()
(['5000.25', '12.35'], [7, 3])
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ._format import format_fixed

__all__ = ["VecfixAccessor"]


@pd.api.extensions.register_series_accessor("vecfix")
class VecfixAccessor:
    """``series.vecfix``: vecfix on a pandas Series."""

    def __init__(self, series: pd.Series) -> None:
        self._series = series

    def fixed(
        self,
        exponent: int | None = None,
        scale: int | None = None,
        *,
        null: int | Sequence[int] | None = None,
        threads: int | None = None,
    ) -> pd.Series:
        """The Series formatted as :func:`vecfix.format_fixed` does: ``string[pyarrow]``
        with the same index and name (nulls are ``<NA>``).

        Parameters
        ----------
        exponent : int, optional
            The power of ten of integer coefficients (``-9`` for PRICE9); leave it out for
            decimal columns (Arrow decimals, ``Decimal`` objects, decimal text).
        scale : int
            Decimal places to print.
        null : int or sequence of int, optional
            Sentinel coefficients that mean "no value" (integer columns only).
        threads : int or None, default None
            As for :func:`vecfix.format_fixed` (a large Series uses every core).

        Examples
        --------
        >>> import pandas as pd, vecfix.pandas
        >>> s = pd.Series([125, None, -5], dtype="Int64", name="px", index=[10, 20, 30])
        >>> out = s.vecfix.fixed(-2, 1)
        >>> out.tolist(), out.name, out.index.tolist()
        (['1.3', <NA>, '-0.1'], 'px', [10, 20, 30])
        """
        out = format_fixed(
            self._series, exponent, scale, null=null, threads=threads, layout="arrow"
        )
        return out.to_pandas()
