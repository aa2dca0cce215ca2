""":class:`NumberFormat`: how one column of numbers is printed, said once, for everything
that formats *named* columns (the namespaces, ``vecfix format``, :mod:`vecfix.dask`, the
FIX builders)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .columns.rules import check_int32, is_int, sentinels, show_value

__all__ = ["NumberFormat"]


@dataclass(frozen=True)
class NumberFormat:
    """How one column of numbers is printed: its exponent, its scale, its null sentinels.

    Parameters
    ----------
    exponent : int, str or per-row values, optional
        The power of ten of integer coefficients (``-9`` for CME PRICE9). Leave it out
        for values that carry their own exponent (``Decimal``, decimal text, decimals).
        A ``str`` names the column holding each row's exponent (a polars expression too,
        in the polars namespace); the FIX builders take an array of one a row.
    scale : int, str or per-row values, optional
        Decimal places to print, as ``exponent``: one for every row, a column's name, or
        one a row. ``None``: the consumer's default (the FIX builders print integers of
        exponent 0 as whole numbers and decimals as written; elsewhere a scale is required).
    null : int or sequence of int, optional
        Sentinel coefficients that mean "no value" (``2**63 - 1``: CME ``PRICENULL9``);
        rows equal to one are null. Integer columns only (decimals have their own nulls).

    Raises
    ------
    TypeError
        A bool, a float or an empty name as ``exponent`` or ``scale``; a ``null`` not an
        int or a sequence of ints. (``ValueError``: an exponent or scale outside int32.)

    Examples
    --------
    >>> from vecfix import NumberFormat
    >>> PRICE9 = NumberFormat(-9, 2, null=2**63 - 1)
    >>> PRICE9
    NumberFormat(exponent=-9, scale=2, null=9223372036854775807)
    >>> NumberFormat(scale=2).exponent is None  # decimals carry their own exponent
    True
    >>> NumberFormat(-9, scale="tick_decimals").scale  # one scale a row, from a column
    'tick_decimals'
    """

    exponent: Any = None
    scale: Any = None
    null: int | Sequence[int] | None = None

    def __post_init__(self) -> None:
        for name in ("exponent", "scale"):
            value = getattr(self, name)
            if is_int(value):
                check_int32(int(value), name)
                object.__setattr__(self, name, int(value))
            # a scalar that is no int (a bool, a float, a NumPy scalar) names no column
            elif isinstance(value, (int, float)) or getattr(value, "ndim", None) == 0:
                raise TypeError(
                    f"NumberFormat: {name} must be an int, a column name or per-row values,"
                    f" got {type(value).__name__} {value!r}"
                )
            elif isinstance(value, str) and not value:
                raise TypeError(f"NumberFormat: {name} names no column (an empty string)")
        if self.null is not None:
            found = sentinels(self.null)
            object.__setattr__(self, "null", found[0] if len(found) == 1 else tuple(found))

    @property
    def per_row(self) -> bool:
        """Whether the exponent or the scale varies by row (a column name or values)."""
        return bool(self._varying())

    def _varying(self) -> dict[str, Any]:
        """The exponent and scale that vary by row, by name."""
        fields = {"exponent": self.exponent, "scale": self.scale}
        return {k: v for k, v in fields.items() if v is not None and not is_int(v)}

    def _series_values(self, names: tuple[type, ...], values: str) -> dict[str, Any]:
        """A Series' per-row exponent and scale, keyed as ``format_values`` takes them;
        a column's name (of a type in ``names``) is refused: a Series has no other columns."""
        for name, value in self._varying().items():
            if isinstance(value, names):
                raise TypeError(
                    f"fixed: a Series has no other columns: give {name} as an int or as"
                    f" values ({values}), not {show_value(value)}"
                )
        return self._varying()


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
