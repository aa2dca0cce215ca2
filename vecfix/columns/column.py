"""The records the input layer hands on: :class:`Column` and :class:`DecimalColumn`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .rules import Kind


class DecimalColumn(NamedTuple):
    """A column of decimal values as integer coefficients and exponents.

    Attributes
    ----------
    coefficients : numpy.ndarray
        ``(n,)`` integers (int64, or the source's integer dtype without a copy), or Python
        ints (object) when some are beyond int64. Null rows hold 0.
    exponents : int or numpy.ndarray or None
        The power of ten of each: an int when the same for every row (Arrow decimals), an
        ``(n,)`` int32 array (text, ``Decimal``), or ``None`` for plain integers.
    valid : numpy.ndarray or None
        ``(n,)`` bool, ``True`` where a value is present; ``None`` when no row is null.

    Examples
    --------
    >>> from decimal import Decimal
    >>> from vecfix import decimal_column
    >>> col = decimal_column([Decimal("1.50"), None, Decimal("-2E+3")])
    >>> col.coefficients.tolist(), col.exponents.tolist(), col.valid.tolist()
    ([150, 0, -2], [-2, 0, 3], [True, False, True])
    """

    coefficients: np.ndarray
    exponents: int | np.ndarray | None
    valid: np.ndarray | None


class Identity(NamedTuple):
    """A column's name and (pandas) index, which outputs keep."""

    name: Any = None
    index: Any = None

    @classmethod
    def of(cls, values: Any) -> Identity | None:
        """A pandas Series' name and index, a polars Series' name; else None."""
        module, kind = type(values).__module__.partition(".")[0], type(values).__name__
        if module == "pandas" and kind == "Series":
            return cls(values.name, values.index)
        if module == "polars" and kind == "Series":
            return cls(values.name)
        return None


@dataclass(frozen=True)
class Column:
    """One input column as vecfix reads it, whatever held it.

    ``kind`` says what the rows hold (see :mod:`vecfix.columns.rules`); ``coefficients``,
    ``exponents`` and ``valid`` are as in :class:`DecimalColumn` (integer coefficients of
    any integer dtype taken over without a copy, or Python ints beyond int64; scalars stay
    0-d; null rows hold 0); ``source`` says what the column is, for messages, or is a
    function that writes it (read it with :meth:`described`); ``identity`` is the input's
    name and index, for outputs that can carry them.
    """

    kind: Kind
    coefficients: np.ndarray
    exponents: int | np.ndarray | None = None
    valid: np.ndarray | None = None
    source: str | Callable[[], str] = "integers"
    identity: Identity | None = None

    def __len__(self) -> int:
        return int(self.coefficients.size)

    def described(self) -> str:
        """What the column is, for a message."""
        return self.source if isinstance(self.source, str) else self.source()

    def decimal(self) -> DecimalColumn:
        """The column as a :class:`DecimalColumn`."""
        return DecimalColumn(self.coefficients, self.exponents, self.valid)
