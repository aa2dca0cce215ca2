"""A ``vecfix`` accessor on pandas Series (``series.vecfix.fixed(...)``), registered on
import (``import vecfix`` imports this module as soon as pandas is imported, in either
order)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ._batch import format_values
from ._number_format import NumberFormat, number_format

__all__ = ["VecfixAccessor"]


@pd.api.extensions.register_series_accessor("vecfix")
class VecfixAccessor:
    """``series.vecfix``: vecfix on a pandas Series."""

    def __init__(self, series: pd.Series) -> None:
        self._series = series

    def fixed(
        self,
        exponent: int | Any | NumberFormat | None = None,
        scale: int | Any | None = None,
        *,
        null: int | Sequence[int] | None = None,
        format: NumberFormat | None = None,
        threads: int | None = None,
    ) -> pd.Series:
        """The Series formatted as :func:`vecfix.format_fixed` does: ``string[pyarrow]``
        with the same index and name (nulls are ``<NA>``).

        Parameters
        ----------
        exponent, scale : int or per-row values
            As :class:`vecfix.NumberFormat` takes them (no exponent for decimals), per row
            as a Series of the same index (a row missing either is ``<NA>``). A
            ``NumberFormat`` in ``exponent``'s place says exponent, scale and null at once.
        null : int or sequence of int, optional
            Sentinel coefficients meaning "no value" (integer columns only).
        format : NumberFormat, optional
            The column's format, in place of ``exponent``, ``scale`` and ``null``.
        threads : int or None, default None
            As for :func:`vecfix.format_fixed` (a large Series uses every core).

        A row whose exponent or scale is ``<NA>`` is ``<NA>``, as the Series' own nulls
        are. An integer Series holding int64 max or min (the usual null sentinels) with no
        ``null`` gives one :class:`~vecfix.SentinelWarning` a call.

        Examples
        --------
        >>> import pandas as pd, vecfix
        >>> s = pd.Series([125, None, -5], dtype="Int64", name="px", index=[10, 20, 30])
        >>> out = s.vecfix.fixed(-2, 1)
        >>> out.tolist(), out.name, out.index.tolist()
        (['1.3', <NA>, '-0.1'], 'px', [10, 20, 30])
        >>> from vecfix import NumberFormat
        >>> s.vecfix.fixed(NumberFormat(-2, 2)).tolist()
        ['1.25', <NA>, '-0.05']
        """
        fmt = number_format("fixed", format, exponent, scale, null)
        s, per_row = self._series, fmt._series_values((str,), "a Series of the same index")
        out = format_values(s, fmt, column=s.name, layout="arrow", threads=threads, **per_row)
        return out.to_pandas(name=s.name, index=s.index)
