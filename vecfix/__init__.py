"""vecfix: format prices and quantities in bulk, byte for byte as FIX engines write them.

>>> import numpy as np, vecfix
>>> vecfix.format_fixed(np.array([5000_250000000, -4_000000]), -9, 4).to_list()
['5000.2500', '-0.0040']

``import vecfix`` is cheap: it imports neither the kernels (Numba), nor :mod:`vecfix.fix`,
pyarrow, pandas, polars or dask. Each public name is imported from its module on first
use. Where pandas or polars is imported already, their ``.vecfix`` namespace is registered
(``series.vecfix.fixed(...)``, ``pl.col(c).vecfix.fixed(...)``); ``import vecfix.pandas``
or ``import vecfix.polars`` registers it whenever they are imported.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"  # (the package's version: pyproject.toml reads it here)

if TYPE_CHECKING:  # what the lazy names are, for type checkers and IDEs
    from . import fix
    from ._chunks import iter_format, write_formatted
    from ._engine import warmup
    from ._format import format_fixed
    from ._number_format import NumberFormat
    from ._result import Formatted
    from ._scalar import MAX_ROW_LENGTH, RowTooLongError, string_fixed
    from .columns import DecimalColumn, RowError, decimal_column, parse_decimal_text

#: Each public name and the module it is imported from on first use.
_LAZY = {
    name: module
    for module, names in {
        "._chunks": ("iter_format", "write_formatted"),
        "._engine": ("warmup",),
        "._format": ("format_fixed",),
        "._number_format": ("NumberFormat",),
        "._result": ("Formatted",),
        "._scalar": ("MAX_ROW_LENGTH", "RowTooLongError", "string_fixed"),
        ".columns": ("DecimalColumn", "RowError", "decimal_column", "parse_decimal_text"),
        ".fix": ("fix",),
    }.items()
    for name in names
}

__all__ = [
    "MAX_ROW_LENGTH",
    "DecimalColumn",
    "Formatted",
    "NumberFormat",
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


def _register_namespaces() -> None:
    """Register ``.vecfix`` for pandas and polars, if this process imported them."""
    for library in ("pandas", "polars"):
        if library in sys.modules and f"{__name__}.{library}" not in sys.modules:
            importlib.import_module(f".{library}", __name__)


def __getattr__(name: str) -> Any:
    """Import a public name from its module the first time it is used (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'vecfix' has no attribute {name!r}")
    module = importlib.import_module(_LAZY[name], __name__)
    value = module if name == "fix" else getattr(module, name)
    globals()[name] = value  # later lookups skip this function
    _register_namespaces()  # (a library imported after vecfix)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


_register_namespaces()
