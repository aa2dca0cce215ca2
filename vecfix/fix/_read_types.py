"""What each tag's column holds when :func:`vecfix.fix.read` builds it: FIX 4.4's data types.

Prices and quantities (``Price``, ``PriceOffset``, ``Qty``, ``Amt``, ``float``,
``Percentage``) become Arrow decimals, integers (``int``, ``SeqNum``, ``NumInGroup``,
``Length``, ``TagNum``, ``DayOfMonth``) ``int64``, ``UTCTimestamp`` fields timestamps;
every other tag (``String``, ``char``, ``Boolean``, dates, times, currencies ...) stays
text. ``types=`` overrides a tag with a name or an Arrow type (:func:`spec_of`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._limits import INT32_MAX
from ..columns.rules import show_value

STRING, INT, DECIMAL, TIMESTAMP = "string", "int64", "decimal", "timestamp"
KINDS = (STRING, INT, DECIMAL, TIMESTAMP)

_DECIMAL_TAGS = (
    # Price
    6, 31, 44, 99, 132, 133, 140, 153, 188, 190, 194, 202, 260, 270, 316, 332, 333, 366,
    426, 566, 612, 631, 637, 640, 645, 646, 651, 662, 669, 681, 684, 697, 730, 734, 799,
    810, 839, 845, 860, 882, 883,
    # PriceOffset
    189, 191, 195, 211, 218, 389, 641, 642, 643,
    # Qty
    14, 32, 38, 53, 80, 84, 110, 111, 134, 135, 151, 152, 192, 210, 271, 387, 424, 425,
    # Amt
    118, 119, 137, 154, 159, 381,
    # float and Percentage
    155, 223, 231, 236,
)  # fmt: skip

_INT_TAGS = (
    # Length
    9, 90, 93, 95, 212, 348, 350, 352, 354, 356, 358, 360, 362, 364, 445, 618, 621,
    # SeqNum
    7, 16, 34, 36, 45, 369, 789,
    # NumInGroup
    73, 78, 124, 136, 146, 215, 232, 267, 268, 295, 296, 382, 384, 386, 398, 420, 453, 454,
    457, 518, 539, 555, 576, 580, 604, 627, 683, 711, 735, 753, 768, 802, 864, 870,
    # int, TagNum, DayOfMonth
    68, 83, 102, 103, 108, 157, 205, 264, 265, 290, 297, 298, 300, 301, 304, 346, 368, 371,
    373, 380, 452, 460,
)  # fmt: skip

_TIMESTAMP_TAGS = (42, 52, 60, 62, 122, 126, 168, 483, 769, 779)

FIX44: dict[int, str] = {
    **dict.fromkeys(_DECIMAL_TAGS, DECIMAL),
    **dict.fromkeys(_INT_TAGS, INT),
    **dict.fromkeys(_TIMESTAMP_TAGS, TIMESTAMP),
}
"""Tag -> kind for the tags that are not text in FIX 4.4."""


@dataclass(frozen=True)
class Spec:
    """How one column is read: its kind, and the Arrow type asked for (None: decided by
    the values, e.g. the widest scale seen)."""

    kind: str
    arrow: Any = None


def check_tag(value: object, name: str) -> int:
    """A tag given as an int or as its digits (``270`` or ``"270"``)."""
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: a tag must be an int (or its digits), got {show_value(value)}")
    if not 1 <= value <= INT32_MAX:
        raise ValueError(f"{name}: a tag must be between 1 and {INT32_MAX}, got {value}")
    return value


def check_tags(tags: Iterable[int | str] | None) -> list[int] | None:
    """``tags=``: the tags to read, in order, each once."""
    if tags is None:
        return None
    if isinstance(tags, (str, bytes, int)):
        raise TypeError(f"tags must be a sequence of tags, e.g. [55, 270], got {show_value(tags)}")
    out = [check_tag(t, "tags") for t in tags]
    if len(set(out)) != len(out):
        twice = next(t for t in out if out.count(t) > 1)
        raise ValueError(f"tags: {twice} is given twice")
    return out


def spec_of(tag: int, value: object) -> Spec:
    """``types[tag]``: a kind's name or an Arrow type."""
    import pyarrow as pa

    if isinstance(value, str):
        if value not in KINDS:
            raise ValueError(
                f"types[{tag}] = {show_value(value)}: expected one of {', '.join(map(repr, KINDS))}"
                " or an Arrow type"
            )
        return Spec(value)
    if isinstance(value, pa.DataType):
        t = pa.types
        if t.is_string(value) or t.is_large_string(value):
            return Spec(STRING, value)
        if t.is_integer(value):
            return Spec(INT, value)
        if t.is_decimal128(value) or t.is_decimal256(value):
            return Spec(DECIMAL, value)
        if t.is_timestamp(value):
            return Spec(TIMESTAMP, value)
        hint = (
            " (read it as a decimal and cast: floats are not exact)" if t.is_floating(value) else ""
        )
        raise TypeError(
            f"types[{tag}] = {value}: read can make string, integer, decimal128/256 and"
            f" timestamp columns{hint}"
        )
    raise TypeError(
        f"types[{tag}] must be a name ({', '.join(KINDS)}) or a pyarrow DataType,"
        f" got {type(value).__name__} {show_value(value)}"
    )


def check_types(types: Mapping[Any, Any] | None) -> dict[int, Spec]:
    """``types=``: tag -> :class:`Spec`."""
    if types is None:
        return {}
    if not isinstance(types, Mapping):
        raise TypeError(f"types must be a mapping of tag to type, got {type(types).__name__}")
    out: dict[int, Spec] = {}
    for key, value in types.items():
        tag = check_tag(key, "types")
        if tag in out:
            raise ValueError(f"types: tag {tag} is given twice")
        out[tag] = spec_of(tag, value)
    return out


def spec_for(tag: int, given: dict[int, Spec]) -> Spec:
    """The spec of ``tag``'s column: ``types=``'s, else FIX 4.4's."""
    return given.get(tag) or Spec(FIX44.get(tag, STRING))
