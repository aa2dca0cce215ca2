"""vecfix: format prices and quantities in bulk, byte for byte as FIX engines write them.

>>> import numpy as np, vecfix
>>> vecfix.format_fixed(np.array([5000_250000000, -4_000000]), -9, 4).to_list()
['5000.2500', '-0.0040']
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from . import fix
from ._chunks import iter_format, write_formatted
from ._fallback import MAX_ROW_LENGTH, RowTooLongError, string_fixed
from ._format import format_fixed
from ._result import Formatted
from ._warmup import warmup
from .columns import DecimalColumn, RowError, decimal_column, parse_decimal_text

try:
    __version__ = version("vecfix")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = [
    "MAX_ROW_LENGTH",
    "DecimalColumn",
    "Formatted",
    "RowError",
    "RowTooLongError",
    "__version__",
    "decimal_column",
    "fix",
    "format_fixed",
    "iter_format",
    "parse_decimal_text",
    "string_fixed",
    "warmup",
    "write_formatted",
]
