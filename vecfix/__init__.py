"""vecfix: format prices and quantities in bulk, byte for byte as FIX engines write them.

>>> import numpy as np, vecfix
>>> vecfix.format_fixed(np.array([5000_250000000, -4_000000]), -9, 4).to_list()
['5000.2500', '-0.0040']

``import vecfix`` is cheap: it imports neither the kernels (Numba), nor :mod:`vecfix.fix`,
pyarrow, pandas, polars or dask. Each public name is imported from its module on first
use. The ``.vecfix`` namespaces of pandas and polars (``series.vecfix.fixed(...)``,
``pl.col(c).vecfix.fixed(...)``) are registered whichever is imported first: at once for a
library imported already, else as the library's own import ends (a finder on
``sys.meta_path`` waits for it), so that ``import vecfix`` imports neither.
"""

from __future__ import annotations

import contextlib
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
    from .columns import (
        DecimalColumn,
        RowError,
        SentinelWarning,
        decimal_column,
        parse_decimal_text,
    )

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
        ".columns": (
            "DecimalColumn",
            "RowError",
            "SentinelWarning",
            "decimal_column",
            "parse_decimal_text",
        ),
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
    "SentinelWarning",
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


#: The libraries vecfix gives a ``.vecfix`` namespace, each by the module of that name.
_NAMESPACES = ("pandas", "polars")


def _register_namespaces() -> None:
    """Register ``.vecfix`` for pandas and polars: now for those imported (fully) already,
    and for the others as their import ends (:class:`_AfterImport`)."""
    waiting = []
    for library in _NAMESPACES:
        if f"{__name__}.{library}" in sys.modules:
            continue
        module = sys.modules.get(library)
        spec = getattr(module, "__spec__", None)
        if module is not None and not getattr(spec, "_initializing", False):
            importlib.import_module(f".{library}", __name__)
        else:
            waiting.append(library)
    if waiting and not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(waiting))


class _AfterImport:
    """A finder on ``sys.meta_path`` that finds nothing itself: when pandas or polars is
    imported, it lets the other finders find it, and has its loader import
    ``vecfix.pandas`` or ``vecfix.polars`` once the library's own import has ended (its
    namespace registered, as ``import vecfix.polars`` would). It leaves ``sys.meta_path``
    when both are done."""

    def __init__(self, libraries: list[str]) -> None:
        self.waiting = set(libraries)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in self.waiting:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = None if finder is self or find is None else find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run = getattr(loader, "exec_module", None)
        if run is None:  # (a loader of the old protocol: left as it is)
            return spec

        def exec_module(module: Any) -> None:
            run(module)
            self.done(fullname)
            with contextlib.suppress(AttributeError):
                del loader.exec_module  # (the loader's own method again)

        try:
            loader.exec_module = exec_module
        except AttributeError:  # a loader that takes no attribute: registered on next use
            return spec
        return spec

    def done(self, library: str) -> None:
        """``library`` is imported: register its namespace (a failure is a warning: the
        library is imported, only its ``.vecfix`` is missing)."""
        self.waiting.discard(library)
        if not self.waiting and self in sys.meta_path:
            sys.meta_path.remove(self)
        try:
            importlib.import_module(f".{library}", __name__)
        except Exception as exc:
            import warnings

            warnings.warn(
                f"vecfix: the .vecfix namespace of {library} could not be registered:"
                f" {type(exc).__name__}: {exc}",
                RuntimeWarning,
                stacklevel=2,
            )


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
