"""Format columns of CSV, Parquet and Arrow IPC files: the library behind ``vecfix format``.

:func:`format_file` streams a file through :func:`vecfix.format_fixed` in record batches
(or a whole pyarrow table through :func:`format_batch`); :class:`ColumnSpec` says how to
format each column. Reading, formatting and writing overlap: while one batch is written
(pyarrow's writers release the GIL), the next is read and formatted. A Parquet output is
written by polars' streaming writer, which encodes columns in parallel, when polars is
installed (``engine="auto"``); by pyarrow's otherwise. A CSV output whose every column is a
formatted one is written by vecfix's own kernel (:mod:`vecfix._csv`), byte for byte as
pyarrow's CSV writer would; any other CSV output by pyarrow's writer.

``"-"`` as the input or output path means standard input or output. An output that is not a
regular file (a named pipe, ``/dev/stdout``, a terminal) is written to directly; a regular
file is written to a temporary file beside it and renamed over it at the end, so an error
leaves no half-written file.

Only the standard library is imported with this module: pyarrow, polars and vecfix's
kernels are imported when a function needs them.
"""

from __future__ import annotations

import contextlib
import csv
import difflib
import io
import json
import operator
import os
import re
import stat
import sys
import time
import warnings
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

from ._limits import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, UINT64_MAX

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "FORMATS",
    "STDIO",
    "ColumnSpec",
    "DataError",
    "FormatStats",
    "SentinelWarning",
    "UsageError",
    "file_format",
    "format_batch",
    "format_file",
    "read_scale_map",
]

DEFAULT_BATCH_SIZE = 262_144
"""Rows per record batch that :func:`format_file` reads, formats and writes at a time."""

FORMATS = ("csv", "parquet", "arrow")
"""The file formats :func:`format_file` reads and writes."""

STDIO = "-"
"""The path that means standard input (as the input) or standard output (as the output)."""

COMPRESSIONS = ("snappy", "zstd", "lz4", "gzip", "brotli", "none")
"""Parquet compression codecs :func:`format_file` accepts (``"none"``: uncompressed)."""

_EXTENSIONS = {
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arrow": "arrow",
    ".feather": "arrow",
    ".ipc": "arrow",
}
_COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4"}
_INT32 = (INT32_MIN, INT32_MAX)
_INT64 = (INT64_MIN, INT64_MAX)
#: A null sentinel fits an int64 or a uint64 column (format_fixed's null= takes either)
_SENTINEL_RANGE = (INT64_MIN, UINT64_MAX)
_SENTINELS = {_INT64[1]: "int64 max", _INT64[0]: "int64 min"}
_UINT64_SENTINELS = {UINT64_MAX: "uint64 max"}


class UsageError(ValueError):
    """The command (or call) is wrong whatever the data: exit status 2."""

    exit_code = 2


class DataError(ValueError):
    """The command does not fit the data (columns, types, values): exit status 1."""

    exit_code = 1


class SentinelWarning(UserWarning):
    """An integer column holds int64 max or min, or a uint64 column uint64 max (the usual
    null sentinels), and no ``null`` was given for it: those rows are printed as numbers."""


def _check_int(owner: str, what: str, v: object, lo: int = _INT32[0], hi: int = _INT32[1]) -> None:
    from .columns.rules import is_int  # the one int-not-bool rule (it loads NumPy)

    if not is_int(v):
        raise UsageError(f"{owner}: {what} must be an int, got {v!r}")
    if not lo <= operator.index(v) <= hi:  # type: ignore[arg-type]
        bounds = "int32" if (lo, hi) == _INT32 else f"{lo}..{hi}"
        raise UsageError(f"{owner}: {what} {v} is outside {bounds}")


@dataclass(frozen=True)
class ColumnSpec:
    """How to format one column of a file.

    Attributes
    ----------
    name : str
        The column.
    scale : int, optional
        Decimal places to print (negative rounds to a multiple of ``10**-scale``). Required
        unless ``scale_column`` or ``scales_by`` gives each row its own; with ``scales_by``
        it is the scale of the symbols the map does not list.
    exponent : int, optional
        The power of ten of an integer column (``-9`` for CME PRICE9 mantissas). Leave it
        ``None`` for decimal columns (Arrow decimals, decimal text), which carry their own.
    null : tuple of int
        Sentinel coefficients that mean "no value" (e.g. ``2**63 - 1``, CME PRICENULL9),
        from int64 min to uint64 max (``2**64 - 1`` for a uint64 column).
    scale_column : str, optional
        An integer column holding each row's scale.
    scales_by : tuple of (str, mapping of str to int), optional
        ``(symbol_column, {symbol: scale})``: each row's scale looked up by its symbol
        (see :func:`read_scale_map`).
    output_name : str, optional
        Write the formatted text as a new column of this name, placed right after the raw
        column, which is kept. By default the text replaces the raw column.

    Examples
    --------
    >>> from vecfix.files import ColumnSpec
    >>> ColumnSpec("price_e9", scale=2, exponent=-9)
    ColumnSpec(name='price_e9', scale=2, exponent=-9, null=())
    >>> ColumnSpec("px", exponent=-9, scales_by=("symbol", {"ESZ4": 2}), output_name="price")
    ColumnSpec(name='px', scale=None, exponent=-9, null=(), scales_by=('symbol', {'ESZ4': 2}), output_name='price')
    """  # noqa: E501

    name: str
    scale: int | None = None
    exponent: int | None = None
    null: tuple[int, ...] = ()
    scale_column: str | None = field(default=None, repr=False)
    scales_by: tuple[str, Mapping[str, int]] | None = field(default=None, repr=False)
    output_name: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        owner = f"column {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise UsageError(f"a column name must be a non-empty str, got {self.name!r}")
        if self.scale is not None:
            _check_int(owner, "scale", self.scale)
        if self.exponent is not None:
            _check_int(owner, "exponent", self.exponent)
        for v in self.null:
            _check_int(owner, "null", v, *_SENTINEL_RANGE)
        if self.output_name is not None and (
            not isinstance(self.output_name, str) or not self.output_name
        ):
            raise UsageError(
                f"{owner}: the formatted column's name (--as) must be a non-empty str,"
                f" got {self.output_name!r}"
            )
        if self.scale_column is not None and self.scales_by is not None:
            raise UsageError(f"{owner}: give a scale column or a scale map, not both")
        if self.scale_column is not None and self.scale is not None:
            raise UsageError(f"{owner}: give --scale or --scale-column, not both")
        if self.scale is None and self.scale_column is None and self.scales_by is None:
            raise UsageError(
                f"{owner} has no scale (the decimal places to print): give --scale, "
                "--scale-column or --scales-by"
            )
        if self.scales_by is not None:
            by, table = self.scales_by
            if not isinstance(by, str) or not isinstance(table, Mapping):
                raise UsageError(f"{owner}: scales_by must be (symbol column, {{symbol: scale}})")
            for symbol, v in table.items():
                _check_int(f"{owner}, scale of symbol {symbol!r}", "scale", v)

    def __repr__(self) -> str:
        extra = "".join(
            f", {k}={getattr(self, k)!r}"
            for k in ("scale_column", "scales_by", "output_name")
            if getattr(self, k) is not None
        )
        return (
            f"ColumnSpec(name={self.name!r}, scale={self.scale!r}, exponent={self.exponent!r},"
            f" null={self.null!r}{extra})"
        )

    @property
    def target(self) -> str:
        """The name of the formatted column in the output."""
        return self.output_name or self.name

    @property
    def reads(self) -> tuple[str, ...]:
        """Columns this spec reads besides its own (a scale column or a symbol column)."""
        if self.scale_column is not None:
            return (self.scale_column,)
        if self.scales_by is not None:
            return (self.scales_by[0],)
        return ()


class FormatStats(NamedTuple):
    """What :func:`format_file` did: rows and batches written, and the seconds it took."""

    rows: int
    batches: int
    seconds: float


def read_scale_map(path: str | os.PathLike) -> dict[str, int]:
    """Read a symbol → decimals map from a JSON object or a two-column CSV file.

    JSON: ``{"ESZ4": 2, "ZNZ4": 6}``. CSV: one ``symbol,decimals`` pair a line, with or
    without a header line.

    Raises
    ------
    UsageError
        If the file cannot be read, or an entry is not a symbol and an int (the message
        names the file and the line or key).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "ticks.csv"
    >>> _ = p.write_text("symbol,decimals\\nESZ4,2\\nZNZ4,6\\n")
    >>> read_scale_map(p)
    {'ESZ4': 2, 'ZNZ4': 6}
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # (a byte-order mark, as Excel writes)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the scale map {os.fspath(path)!r}: {exc}") from None
    where = f"scale map {os.fspath(path)!r}"
    out: dict[str, int] = {}
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        twice: list[str] = []

        def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
            seen: dict[str, Any] = {}
            for k, v in items:  # a symbol twice with two scales: refused, as in a CSV map
                if k in seen and seen[k] != v:
                    twice.append(k)
                seen[k] = v
            return seen

        try:
            data = json.loads(text, object_pairs_hook=pairs)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{where} is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise UsageError(f"{where} must hold a JSON object {{symbol: decimals}}")
        if twice:
            raise UsageError(f"{where}: symbol {twice[0]!r} is listed twice")
        for k, v in data.items():
            if isinstance(v, bool) or not isinstance(v, int):
                raise UsageError(f"{where}: symbol {k!r} has {v!r}, not an integer scale")
            _check_int(f"{where}, symbol {k!r}", "scale", v)
            out[k] = v
        return out
    for line, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row or not "".join(row).strip():
            continue
        if len(row) != 2:
            raise UsageError(f"{where}, line {line}: expected symbol,decimals, got {row!r}")
        symbol, value = row[0].strip(), row[1].strip()
        try:
            scale = int(value)
        except ValueError:
            if line == 1 and not out:  # a header line
                continue
            raise UsageError(
                f"{where}, line {line}: the scale of {symbol!r} is {value!r}, not an integer"
            ) from None
        _check_int(f"{where}, line {line}", "scale", scale)
        if symbol in out and out[symbol] != scale:
            raise UsageError(f"{where}, line {line}: symbol {symbol!r} is listed twice")
        out[symbol] = scale
    return out


# ---------------------------------------------------------------------------------------
# one batch
# ---------------------------------------------------------------------------------------


def format_batch(batch: Any, columns: Sequence[ColumnSpec], *, threads: int = 1) -> Any:
    """Format ``columns`` of a pyarrow ``RecordBatch`` or ``Table``; other columns pass through.

    Each formatted column is replaced, in place and under its own name (or added after it
    as ``output_name``), by a ``string`` column of :func:`vecfix.format_fixed`'s text
    (nulls stay null).

    Parameters
    ----------
    batch : pyarrow.RecordBatch or pyarrow.Table
        The data.
    columns : sequence of ColumnSpec
        The columns to format and how.
    threads : int, default 1
        Passed to :func:`vecfix.format_fixed`.

    Returns
    -------
    pyarrow.RecordBatch or pyarrow.Table
        The same kind as ``batch``.

    Raises
    ------
    DataError
        If a column is missing, has a type that cannot be formatted (floats, an integer
        column without an exponent, a decimal column given one) or a value that cannot be
        formatted (the message names the column and the row).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from vecfix.files import ColumnSpec, format_batch
    >>> t = pa.table({"sym": ["ESZ4", "ZNZ4"], "px": [5000_250000000, 110_015625000]})
    >>> format_batch(t, [ColumnSpec("px", scale=4, exponent=-9)]).to_pydict()
    {'sym': ['ESZ4', 'ZNZ4'], 'px': ['5000.2500', '110.0156']}
    >>> spec = ColumnSpec("px", exponent=-9, scales_by=("sym", {"ESZ4": 2, "ZNZ4": 6}),
    ...                   output_name="price")
    >>> format_batch(t, [spec]).to_pydict()["price"]
    ['5000.25', '110.015625']
    """
    import pyarrow as pa

    plan = _Plan(pa, batch.schema, columns, where="the data")
    return plan.format(batch, threads, first_row=0, warn=_warn)


class _Plan:
    """What to do with each batch of one schema: checked once, applied to every batch."""

    def __init__(self, pa: Any, schema: Any, columns: Sequence[ColumnSpec], where: str) -> None:
        _check_schema(pa, schema, columns, where)
        self.pa = pa
        self.columns = list(columns)
        self.index = {c.name: schema.get_field_index(c.name) for c in columns}
        self.keys: dict[str, tuple[Any, Any, str]] = {}
        for c in columns:
            if c.scales_by is not None:
                import numpy as np

                by, table = c.scales_by
                keys = pa.array(list(table), pa.string())
                values = np.fromiter(table.values(), dtype=np.int32, count=len(table))
                self.keys[c.name] = (keys, values, by)
        # The output: each formatted column in place, or added after its raw column.
        fields: list[Any] = []
        self.sources: list[int | ColumnSpec] = []  # a column of the input, or a formatted one
        for i, f in enumerate(schema):
            spec = next((c for c in columns if c.name == f.name), None)
            if spec is None or spec.output_name not in (None, f.name):
                fields.append(f)
                self.sources.append(i)
            if spec is not None:
                fields.append(pa.field(spec.target, pa.string()))
                self.sources.append(spec)
        self.schema = pa.schema(fields, metadata=schema.metadata)
        self.targets = {c.name: c.target for c in columns}
        self.sentinel_checked: set[str] = set()

    def format(
        self,
        batch: Any,
        threads: int,
        first_row: int,
        warn: Callable[[str], None] | None = None,
        pl: Any = None,
    ) -> Any:
        """The formatted batch: a pyarrow batch (or table) of :attr:`schema`, or with
        ``pl`` (the polars module) a polars ``DataFrame`` of the same columns, its text
        columns built from vecfix's ``string_view`` records without a copy."""
        pa = self.pa
        # the layout its consumer takes without a copy: polars' string_view records, or
        # Arrow's string for pyarrow's writers
        layout = "string_view" if pl is not None else "arrow"
        done = self._formatted(batch, threads, first_row, warn, layout)
        if pl is not None:
            done = {name: out.to_polars(self.targets[name]) for name, out in done.items()}
            passed = [s for s in self.sources if isinstance(s, int)]
            if passed:
                frame = pl.from_arrow(batch.select(passed))
                series = [frame.to_series(passed.index(s)) if isinstance(s, int)
                          else done[s.name] for s in self.sources]  # fmt: skip
            else:
                series = [done[s.name] for s in self.sources]  # type: ignore[union-attr]
            return pl.DataFrame(series)
        arrays = [
            batch.column(s) if isinstance(s, int) else _arrow_text(pa, done[s.name], batch)
            for s in self.sources
        ]
        if isinstance(batch, pa.Table):
            return pa.Table.from_arrays(arrays, schema=self.schema)
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    @property
    def text_only(self) -> bool:
        """Whether every column of the output is a formatted one (no column passes through)."""
        return all(isinstance(s, ColumnSpec) for s in self.sources)

    def texts(
        self, batch: Any, threads: int, first_row: int, warn: Callable[[str], None] | None = None
    ) -> list[Any]:
        """The output's columns as vecfix :class:`~vecfix.Formatted` results, in order
        (for a plan whose output is :attr:`text_only`)."""
        done = self._formatted(batch, threads, first_row, warn)
        return [done[s.name] for s in self.sources if isinstance(s, ColumnSpec)]

    def _formatted(
        self,
        batch: Any,
        threads: int,
        first_row: int,
        warn: Callable[[str], None] | None,
        layout: str = "matrix",
    ) -> dict[str, Any]:
        """Each formatted column's :class:`~vecfix.Formatted` text, by input column name,
        in ``layout`` (as :func:`~vecfix.format_fixed` takes it)."""
        done = {}
        for spec in self.columns:
            arr = batch.column(self.index[spec.name])
            if warn is not None and not spec.null and spec.name not in self.sentinel_checked:
                self._check_sentinels(arr, spec, first_row, warn)
            scales = self._scales(batch, spec, first_row)
            done[spec.name] = _format_column(self.pa, arr, spec, scales, threads, first_row, layout)
        return done

    def _scales(self, batch: Any, spec: ColumnSpec, first_row: int) -> Any:
        """The scales of this batch's rows: an int, or an int32 array."""
        pa = self.pa
        if spec.scale_column is not None:
            import pyarrow.compute as pc

            name = spec.scale_column
            arr = _combined(pa, batch.column(batch.schema.get_field_index(name)))
            if arr.null_count:
                row = _first_true(pc, arr.is_null())
                raise DataError(
                    f"scale column {name!r}, row {first_row + row:,} (counting data rows"
                    f" from 0): the scale is null; every row of --scale-column needs one"
                )
            try:
                return pc.cast(arr, pa.int32()).to_numpy()
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                bad = pc.or_(pc.less(arr, _INT32[0]), pc.greater(arr, _INT32[1]))
                row = _first_true(pc, bad)
                raise DataError(
                    f"scale column {name!r}, row {first_row + row:,} (counting data rows"
                    f" from 0): scale {arr[row].as_py()} is outside int32"
                ) from None
        if spec.scales_by is not None:
            import numpy as np
            import pyarrow.compute as pc

            keys, values, by = self.keys[spec.name]
            symbols = _combined(pa, batch.column(batch.schema.get_field_index(by)))
            if pa.types.is_dictionary(symbols.type):
                symbols = symbols.dictionary_decode()
            if not _is_text(pa, symbols.type):
                symbols = pc.cast(symbols, pa.string())
            found = pc.index_in(symbols, value_set=keys)
            if found.null_count:
                if spec.scale is None:
                    row = _first_true(pc, found.is_null())
                    raise DataError(
                        f"column {spec.name!r}, row {first_row + row:,} (counting data rows"
                        f" from 0): symbol {symbols[row].as_py()!r} (column {by!r}) is not in"
                        " the scale map; add it, or give --scale as the scale of symbols the"
                        " map does not list"
                    )
                found = pc.fill_null(found, len(values))
                values = np.append(values, np.int32(spec.scale))
            return values[found.to_numpy()]
        return spec.scale

    def _check_sentinels(
        self, arr: Any, spec: ColumnSpec, first_row: int, warn: Callable[[str], None]
    ) -> None:
        pa = self.pa
        if pa.types.is_int64(arr.type):
            sentinels = _SENTINELS
        elif pa.types.is_uint64(arr.type):
            sentinels = _UINT64_SENTINELS
        else:
            return
        if len(arr) == 0:
            return
        import pyarrow.compute as pc

        lo_hi = pc.min_max(arr)
        for v in (lo_hi["max"].as_py(), lo_hi["min"].as_py()):
            if v in sentinels:
                self.sentinel_checked.add(spec.name)
                row = first_row + _first_true(pc, pc.equal(arr, pa.scalar(v, arr.type)))
                warn(
                    f"column {spec.name!r} holds {v} ({sentinels[v]}, the usual null sentinel,"
                    f" e.g. CME PRICENULL9), first at row {row:,} (counting data rows from 0);"
                    f" it is printed as a number. If it means no value, pass --null {v}"
                    f" (ColumnSpec(..., null={v}) in Python)"
                )
                return


def _combined(pa: Any, arr: Any) -> Any:
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def _first_true(pc: Any, mask: Any) -> int:
    return int(pc.index(mask, True).as_py())


def _format_column(
    pa: Any,
    arr: Any,
    spec: ColumnSpec,
    scales: Any,
    threads: int,
    first_row: int,
    layout: Any = "matrix",
) -> Any:
    """vecfix's :class:`~vecfix.Formatted` text of one column of a batch, in ``layout``
    (see :func:`~vecfix.format_fixed`)."""
    from ._format import format_fixed

    if spec.exponent is not None and _is_text(pa, arr.type):
        import pyarrow.compute as pc

        try:
            arr = pc.cast(arr, pa.int64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise DataError(
                f"column {spec.name!r} was given --exponent, so it must hold integers: {exc}."
                " Leave out --exponent to read it as decimal text"
            ) from None
    try:
        nulls = list(spec.null) or None
        out = format_fixed(arr, spec.exponent, scales, threads=threads, null=nulls, layout=layout)
    except (TypeError, ValueError) as exc:
        raise _row_error(spec, exc, first_row) from None
    return out


def _arrow_text(pa: Any, out: Any, batch: Any) -> Any:
    """A formatted column as pyarrow ``string`` (chunked in a table)."""
    result = out.to_arrow(large=False)
    if isinstance(batch, pa.Table):
        result = pa.chunked_array([result], pa.string())
    return result


def _row_error(spec: ColumnSpec, exc: Exception, first_row: int) -> DataError:
    """A :class:`DataError` naming the column and the row of the file (not of the batch)."""
    row = getattr(exc, "row", None)
    message = str(exc)
    if isinstance(row, int):
        detail = getattr(exc, "detail", None)  # vecfix.RowError: the text after "row N"
        if isinstance(detail, str):  # its own grammar, with the file's row number
            lead = getattr(exc, "lead", "")
            lead = "" if lead.strip() in ("", getattr(exc, "argument", "")) else lead
            file_row = f"row {first_row + row:,} (counting data rows from 0)"
            where = f"column {spec.name!r}: {lead}" if lead else f"column {spec.name!r}, "
            return DataError(f"{where}{file_row}{detail}")
        else:
            head, sep, rest = message.partition(": ")
            if sep and head.endswith(f"row {row}"):  # "texts row 3: ...": said again below
                message = rest
        where = f", row {first_row + row:,} (counting data rows from 0)"
    else:
        where = f" (in the rows from {first_row:,} on)" if first_row else ""
    return DataError(f"column {spec.name!r}{where}: {message}")


def _is_text(pa: Any, t: Any) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view"


def _missing(pa: Any, schema: Any, name: str, where: str) -> DataError | None:
    if schema.get_field_index(name) >= 0:
        return None
    if name in schema.names:
        return DataError(f"{where} has more than one column named {name!r}")
    close = difflib.get_close_matches(name, schema.names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else "."
    return DataError(
        f"{where} has no column {name!r}{hint} Its columns are: {', '.join(schema.names)}"
    )


def _check_kind(spec: ColumnSpec, value_type: Any, shown: Any) -> None:
    """The input layer's rule for a column of ``value_type`` (what ``format_fixed`` would
    decide for its data: an exponent for integers and none for decimals, ``--null`` on
    integers only, floats refused), in the command line's words."""
    from .columns import kind_of
    from .columns.rules import needs

    where = f"column {spec.name!r}: "
    try:
        kind = kind_of(value_type)
        needs(kind, spec.exponent, list(spec.null) or None, source=str(shown), where=where)
    except TypeError as exc:
        raise DataError(_option_words(str(exc), where)) from None


#: format_fixed's argument words -> the command line's options, for the rule's messages.
_OPTION_WORDS = (
    ("leave exponents=None (pass the number of decimals as scales=...)", "leave out --exponent"),
    ("exponents is required", "--exponent is required"),
    ("exponents=-9", "--exponent -9"),
    ("then scales= only", "then --scale only"),
    ("null= marks", "--null marks"),
    ("coefficients must be integers", "it must hold integers"),
)


def _option_words(message: str, where: str) -> str:
    message = message.removeprefix(where)
    for api, option in _OPTION_WORDS:
        message = message.replace(api, option)
    return where + message


def _check_schema(pa: Any, schema: Any, columns: Sequence[ColumnSpec], where: str) -> None:
    """Every column present, once, with a type that fits its spec; else :class:`DataError`."""
    seen: set[str] = set()
    targets: set[str] = set()
    for spec in columns:  # first: a column given twice is read by one spec's rules only
        if spec.name in seen:
            raise UsageError(f"column {spec.name!r} is given twice")
        seen.add(spec.name)
        if spec.target in targets:
            raise UsageError(f"two formatted columns would be named {spec.target!r}")
        targets.add(spec.target)
    for spec in columns:
        error = _missing(pa, schema, spec.name, where)
        if error is not None:
            raise error
        if spec.output_name not in (None, spec.name) and spec.output_name in schema.names:
            raise DataError(
                f"column {spec.name!r}: {where} already has a column {spec.output_name!r};"
                " choose another name for the formatted column"
            )
        for other in spec.reads:
            error = _missing(pa, schema, other, where)
            if error is not None:
                raise error
        if spec.scale_column is not None:
            t = schema.field(spec.scale_column).type
            if not pa.types.is_integer(t):
                raise DataError(
                    f"scale column {spec.scale_column!r} is {t}: it must hold integers"
                    " (the decimal places of each row)"
                )
        t = schema.field(spec.name).type
        value_type = t.value_type if pa.types.is_dictionary(t) else t
        _check_kind(spec, value_type, t)


# ---------------------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------------------


def file_format(path: str | os.PathLike, given: str | None = None, *, role: str = "input") -> str:
    """The format of ``path``: ``given`` if set, else inferred from its extension.

    Standard input and output (``"-"``) are CSV unless ``given`` says otherwise.

    Examples
    --------
    >>> from vecfix.files import file_format
    >>> file_format("snap.parquet"), file_format("ticks.csv.gz"), file_format("x.feather")
    ('parquet', 'csv', 'arrow')
    >>> file_format("x.dat", "csv"), file_format("-")
    ('csv', 'csv')
    """
    if given is not None:
        if given not in FORMATS:
            raise UsageError(f"unknown {role} format {given!r}: choose from {', '.join(FORMATS)}")
        return given
    if os.fspath(path) == STDIO:
        return "csv"
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED:
        suffixes = suffixes[:-1]
    fmt = _EXTENSIONS.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        flag = "--input-format" if role == "input" else "--output-format"
        raise UsageError(
            f"cannot tell the format of {os.fspath(path)!r} from its extension; pass"
            f" {flag} {'|'.join(FORMATS)}"
        )
    return fmt


def _compression(path: str | os.PathLike) -> str | None:
    if os.fspath(path) == STDIO:
        return None
    return _COMPRESSED.get(Path(path).suffix.lower())


class _Reader(NamedTuple):
    schema: Any
    batches: Iterator[Any]
    total: int | None  # rows in all, None if unknown before the end
    close: Callable[[], None]


class _Prefixed(io.RawIOBase):
    """A read-only stream: ``head`` (bytes already read), then the rest of ``rest``;
    closing it closes the streams of ``owned`` (``rest``, the file under its decoder)."""

    def __init__(self, head: bytes, rest: IO[bytes], owned: tuple[IO[bytes], ...]) -> None:
        self._head = memoryview(head)
        self._rest = rest
        self._owned = owned

    def close(self) -> None:
        if not self.closed:
            for stream in self._owned:
                stream.close()
        super().close()

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self._head.nbytes:
            n = min(len(b), self._head.nbytes)
            b[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(b))
        b[: len(data)] = data
        return len(data)


class _ForeignReads:
    """A stream that pyarrow's read-ahead thread reads through ``pyarrow.PythonFile``, and
    that can be closed while that thread still reads.

    pyarrow's streaming CSV reader reads its input on a thread of its own (one Python did
    not start), also ahead of what is asked and after an error. Such a thread that enters
    Python once the interpreter has begun to exit aborts the process ("terminate called
    without an active exception"). :meth:`close` makes later reads return end-of-file and
    waits (at most :attr:`GRACE` seconds) until no read is under way and the reader has
    been given an end-of-file, after which it reads no more. Regular files are read by
    pyarrow's own file streams instead, which never enter Python.
    """

    GRACE = 0.5
    """Seconds :meth:`close` waits for the read-ahead to stop (after an error only: a
    stream read to its end has stopped already)."""

    def __init__(self, raw: IO[bytes], close_raw: bool) -> None:
        import threading

        self._raw = raw
        self._close_raw = close_raw
        self._changed = threading.Condition()
        self._busy = 0
        self._ended = False
        self.closed = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def read(self, n: int = -1) -> bytes:
        with self._changed:
            if self.closed:
                self._ended = True
                self._changed.notify_all()
                return b""
            self._busy += 1
        data = b""
        try:
            data = self._raw.read(n)
            return data
        finally:
            with self._changed:
                self._busy -= 1
                self._ended = self._ended or not data
                self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            if self.closed:
                return
            self.closed = True
            stopped = self._changed.wait_for(lambda: self._ended and not self._busy, self.GRACE)
            idle = not self._busy
        # A read still blocked on a pipe holds the buffered reader's lock: leave it open.
        if self._close_raw and (stopped or idle):
            self._raw.close()


def _stdin() -> IO[bytes]:
    return sys.stdin.buffer


#: The first bytes of gzip, bz2, zstd and lz4 (frame) streams.
_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bz2",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"\x04\x22\x4d\x18": "lz4",
}


def _decoded(pipe: IO[bytes], src: str | Path) -> IO[bytes]:
    """A stream of CSV text from ``pipe`` (standard input or a named pipe): a gzip or bz2
    stream its first bytes show (``cat f.csv.gz | vecfix format - ...``) read through
    Python's decoder; another codec refused. Streams that cannot peek are taken as text."""
    peek = getattr(pipe, "peek", None)
    head = peek(4)[:4] if peek is not None else b""
    codec = next((c for magic, c in _MAGIC.items() if head.startswith(magic)), None)
    if codec == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=pipe, mode="rb")  # type: ignore[return-value]
    if codec == "bz2":
        import bz2

        return bz2.BZ2File(pipe, mode="rb")
    if codec is not None:
        shown = "standard input" if src == STDIO else repr(os.fspath(src))
        raise UsageError(
            f"{shown} is {codec}-compressed: decompress it into the pipe"
            " (e.g. zstdcat f.csv.zst | vecfix format - ...), or give the file itself"
        )
    return pipe


def _csv_header(pipe: IO[bytes]) -> tuple[bytes, list[str]]:
    """The header record of a CSV stream: its bytes, read from ``pipe`` (every line of it: a
    quoted name may hold a line break; empty lines before it skipped, as polars skips
    them), and the column names as pyarrow reads them (a byte-order mark is not part of
    them)."""
    lines: list[bytes] = []

    def decoded() -> Iterator[str]:  # the csv module asks for as many lines as the record has
        while line := pipe.readline():  # (text: a compressed stream is read decoded)
            if not lines and line.lstrip(b"\xef\xbb\xbf") in (b"\n", b"\r\n"):
                continue  # an empty line before the header
            lines.append(line)
            yield line.decode("utf-8-sig" if len(lines) == 1 else "utf-8", "replace")

    names = next(csv.reader(decoded()), [])
    return b"".join(lines), names


def _blank_lines_before_header(pa: Any, src: str | Path) -> int:
    """How many empty lines a CSV file has before its header (``ReadOptions.skip_rows``
    for pyarrow's reader, which reads empty lines as rows, as polars' does)."""
    with pa.input_stream(os.fspath(src), compression=_compression(src)) as head:
        start = head.read(1 << 16)
    lines = start.removeprefix(b"\xef\xbb\xbf").split(b"\n")
    count = 0
    for line in lines[:-1]:  # (the last piece may be cut)
        if line not in (b"", b"\r"):
            break
        count += 1
    return count


CSV_NULLS = ("",)
"""The cells of a CSV input that :func:`format_file` reads as null by default: empty ones.
Text such as ``NA`` or ``NULL`` stays text (a ticker, a note) unless ``csv_nulls`` lists
it; in a formatted column it is then refused with its row, as not a number."""


def _open_reader(
    pa: Any,
    src: str | Path,
    fmt: str,
    columns: Sequence[ColumnSpec],
    batch_size: int,
    csv_infer_types: bool = False,
    csv_nulls: Sequence[str] = CSV_NULLS,
) -> _Reader:
    # Standard input or a named pipe can be read only once, from the start.
    stdin = src == STDIO or not Path(src).is_file()

    def read_all() -> bytes:
        if src == STDIO:
            return _stdin().read()
        with open(src, "rb") as f:
            return f.read()

    if fmt == "parquet":
        import pyarrow.parquet as pq

        source = pa.BufferReader(read_all()) if stdin else src
        f = pq.ParquetFile(source, memory_map=False, buffer_size=1 << 20)
        return _Reader(
            f.schema_arrow,
            f.iter_batches(batch_size=batch_size, use_threads=False),
            f.metadata.num_rows,
            f.close,
        )
    if fmt == "arrow":
        import pyarrow.ipc as ipc

        def open_source() -> Any:
            return pa.BufferReader(data) if stdin else pa.memory_map(str(src))

        data = read_all() if stdin else None
        source = open_source()
        try:
            file_reader = ipc.open_file(source)
        except pa.ArrowInvalid:
            stream = ipc.open_stream(open_source())
            return _Reader(stream.schema, iter(stream), None, stream.close)
        batches = (file_reader.get_batch(i) for i in range(file_reader.num_record_batches))
        return _Reader(file_reader.schema, batches, file_reader.count_rows(), source.close)
    if (
        not stdin
        and not csv_infer_types
        and not _compression(src)
        and Path(src).stat().st_size >= POLARS_CSV_BYTES
    ):
        fast = _polars_csv_reader(pa, Path(src), columns, batch_size, csv_nulls)
        if fast is not None:
            return fast
    import pyarrow.csv as pacsv

    # Blocks of at most 4 MiB: larger ones cost more in page faults than they save (16 MiB:
    # 1.1 s of system time on a 600 MB file, 4 MiB: 0.2 s). A row must fit in one block.
    block = max(min(batch_size * 64, 1 << 22), 1 << 12)
    # An empty line is a row of nulls, as polars' reader (files of 8 MiB and more) reads it
    # and as vecfix writes a null row of a one-column CSV; empty lines before the header
    # are skipped, as polars skips them.
    parse_options = pacsv.ParseOptions(ignore_empty_lines=False)
    skip = 0 if stdin else _blank_lines_before_header(pa, src)
    read_options = pacsv.ReadOptions(block_size=block, skip_rows=skip)
    # pyarrow's reader reads ahead on a thread of its own: a regular file through pyarrow's
    # own stream (that thread never enters Python), a pipe through _ForeignReads.
    foreign: _ForeignReads | None = None
    if stdin:
        raw = _stdin() if src == STDIO else open(src, "rb")
        try:
            pipe = _decoded(raw, src)
        except UsageError:
            if src != STDIO:
                raw.close()
            raise
        header, names = _csv_header(pipe)
        prefixed = _Prefixed(header, pipe, owned=() if src == STDIO else (pipe, raw))
        foreign = _ForeignReads(io.BufferedReader(prefixed, buffer_size=1 << 20), close_raw=True)
    else:
        names = None
    try:
        if foreign is not None:
            stream = pa.PythonFile(foreign, mode="r")
        else:
            stream = pa.input_stream(os.fspath(src), compression=_compression(src))
        if names is None and not csv_infer_types:
            peek = pacsv.ReadOptions(block_size=1 << 16, skip_rows=skip)  # the header alone
            try:
                head = pa.input_stream(os.fspath(src), compression=_compression(src))
                names = pacsv.open_csv(
                    head, read_options=peek, parse_options=parse_options
                ).schema.names
            except pa.ArrowInvalid:  # a header line longer than the peek
                head = pa.input_stream(os.fspath(src), compression=_compression(src))
                names = pacsv.open_csv(
                    head, read_options=read_options, parse_options=parse_options
                ).schema.names
        # Formatted columns given an exponent are read as int64, the others as text, so that
        # a price is never parsed as a float; scale columns as integers. The other columns
        # stay text too unless asked to infer their types.
        types = {} if csv_infer_types else dict.fromkeys(names or (), pa.string())
        for c in columns:
            types[c.name] = pa.int64() if c.exponent is not None else pa.string()
            if c.scale_column is not None:
                types[c.scale_column] = pa.int64()
        options = pacsv.ConvertOptions(
            column_types=types, null_values=list(csv_nulls), strings_can_be_null=True
        )
        try:
            reader = pacsv.open_csv(
                stream, read_options=read_options, parse_options=parse_options,
                convert_options=options,
            )  # fmt: skip
        except pa.ArrowInvalid as exc:  # in the first block: name the column as later ones do
            raise pa.ArrowInvalid(_name_csv_column(str(exc), names or ())) from None
    except BaseException:
        if foreign is not None:
            foreign.close()
        raise
    # A native stream is closed when the reader lets it go (closing it under the reader's
    # read-ahead thread would race with it).
    return _Reader(reader.schema, iter(reader), None, foreign.close if foreign else _nothing)


def _nothing() -> None:
    pass


POLARS_CSV_BYTES = 1 << 23
"""CSV files of at least this size (8 MiB) are parsed by polars when it is installed: below
it, importing polars costs more than its parallel parser saves."""


def _polars_csv_reader(
    pa: Any,
    src: Path,
    columns: Sequence[ColumnSpec],
    batch_size: int,
    csv_nulls: Sequence[str] = CSV_NULLS,
) -> _Reader | None:
    """A CSV file read by polars' parallel parser (about half the CPU time of pyarrow's
    streaming reader), when polars is installed; the same columns, types and nulls."""
    try:
        import polars as pl
    except ImportError:
        return None
    ints = {c.name for c in columns if c.exponent is not None}
    ints |= {c.scale_column for c in columns if c.scale_column is not None}
    # polars reads empty cells as null without a list (empty_string_is_null)
    nulls = list(csv_nulls) if set(csv_nulls) - {""} else None

    def scan(null_values: list[str] | None, skip: int = 0) -> Any:
        lf = pl.scan_csv(
            src,
            infer_schema=False,  # every column text, as the pyarrow path keeps them
            schema_overrides=dict.fromkeys(ints, pl.Int64),
            null_values=null_values,
            empty_string_is_null="" in csv_nulls,
            skip_rows_after_header=skip,
        )
        if "" in csv_nulls:  # a quoted empty cell ("") is null too, as pyarrow reads it
            lf = lf.with_columns(pl.col(pl.String).replace("", None))
        return lf

    try:
        names = scan(nulls).collect_schema().names()
    except Exception:  # polars cannot take this file: pyarrow's reader will say why
        return None
    if len(set(names)) != len(names) or not ints <= set(names):
        return None  # duplicate or missing names: pyarrow's reader gives the messages
    schema = pa.schema([pa.field(n, pa.int64() if n in ints else pa.string()) for n in names])
    # Matching every cell against null strings (csv_nulls beyond the empty cell) costs
    # polars 40% more time. When every column is read as integers, a null string can only
    # be a cell that fails to parse (empty cells are null either way): read without the
    # list, and on a failure go on with it from the first row not yet given out.
    fast = set(names) <= ints or nulls is None

    def batches() -> Iterator[Any]:
        done = 0
        quick = fast
        lf = scan(None if quick else nulls)
        while True:
            try:
                for df in lf.collect_batches(chunk_size=batch_size):
                    # One batch per chunk_size rows: polars parses in chunks of a few
                    # thousand rows, and a batch each would multiply the per-batch work.
                    t = df.rechunk().to_arrow()  # int64 zero-copy; text as large_string
                    for b in t.to_batches():
                        yield b.cast(schema)
                    done += df.height
                return
            except pl.exceptions.PolarsError as exc:
                if quick and nulls is not None:
                    quick = False
                    lf = scan(nulls, skip=done)
                    continue
                raise pa.ArrowInvalid(_polars_reason(str(exc))) from None

    return _Reader(schema, batches(), None, lambda: None)


def _polars_reason(text: str) -> str:
    """The first line of a polars error, in the words of :func:`_read_error` for an integer
    column that holds something else (so that the hints about the options follow).

    >>> _polars_reason("could not parse `NA` as dtype `i64` at column 'px' (column number 2)")
    "In column 'px': CSV conversion error to int64: invalid value 'NA'"
    """
    first = text.strip().splitlines()[0] if text.strip() else text
    cell = re.search(r"could not parse `(.*)` as dtype `i64` at column '(.*)' \(column", first)
    if cell is not None:
        value, name = cell.groups()
        return f"In column {name!r}: CSV conversion error to int64: invalid value {value!r}"
    if "i64" in first or "Int64" in first:
        return f"{first} (conversion error to int64)"
    return first


def _rebatch(batches: Iterator[Any], size: int) -> Iterator[Any]:
    """Batches of at most ``size`` rows (zero-copy slices of larger ones)."""
    for b in batches:
        if b.num_rows <= size:
            yield b
        else:
            for start in range(0, b.num_rows, size):
                yield b.slice(start, size)


class _Counting(io.RawIOBase):
    """A write-only stream over ``f`` that counts bytes, so that ``tell()`` works on pipes
    (Parquet and Arrow IPC writers ask for their position)."""

    def __init__(self, f: IO[bytes]) -> None:
        self._f = f
        self._n = 0

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        view = memoryview(b).cast("B")
        done = 0
        while done < view.nbytes:  # a pipe may take part of a write
            n = self._f.write(view[done:])
            done += view.nbytes - done if n is None else n
        self._n += done
        return done

    def tell(self) -> int:
        return self._n

    def flush(self) -> None:
        self._f.flush()


class _Destination:
    """Where the output goes: a temporary file renamed over a regular file at the end, or
    straight into standard output, a named pipe or a device (never replaced or truncated).
    """

    def __init__(self, output: str | Path, src: str | Path) -> None:
        self.shown = os.fspath(output)
        self.stdout = self.shown == STDIO
        self.direct: IO[bytes] | None = None
        self.final: Path | None = None
        self.tmp: Path | None = None
        if self.stdout:
            return
        path = Path(output)
        try:
            st = path.stat()  # follows links: what a write would reach
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise UsageError(f"cannot use the output {self.shown!r}: {exc.strerror}") from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise UsageError(f"the output {self.shown!r} is a directory; name a file in it")
        if st is not None and src != STDIO and os.path.exists(src) and os.path.samefile(src, path):
            raise UsageError("the output would overwrite the input: choose another output file")
        if st is not None and not stat.S_ISREG(st.st_mode):
            return  # a pipe, a device, a socket: written to directly in open()
        if _is_std_stream_link(path):
            return  # /dev/stdout, /proc/self/fd/1 ...: the caller's open file, keep it
        final = path.resolve()  # a link to a regular file stays a link: replace its target
        if not final.parent.is_dir():
            raise UsageError(f"the output's folder {os.fspath(path.parent)!r} does not exist")
        self.final = final
        self.tmp = final.with_name(f".{final.name}.{os.getpid()}.partial")

    def open(self) -> Any:
        """A file object for pyarrow's writers (position counted where it cannot be asked)."""
        if self.stdout:
            sys.stdout.flush()
            return _Counting(sys.stdout.buffer)
        if self.tmp is None:
            try:
                # "ab" never truncates: a device or a pipe has nothing to truncate, and a
                # regular file reached through /dev/stdout is the shell's to truncate or not.
                self.direct = open(self.shown, "ab", buffering=0)
            except OSError as exc:
                raise UsageError(f"cannot write {self.shown!r}: {exc.strerror}") from None
            return _Counting(self.direct)
        return str(self.tmp)

    def commit(self) -> None:
        if self.tmp is not None and self.final is not None:
            os.replace(self.tmp, self.final)
        self.close()

    def close(self) -> None:
        if self.tmp is not None:
            self.tmp.unlink(missing_ok=True)
        if self.direct is not None:
            self.direct.close()
            self.direct = None
        if self.stdout:
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.buffer.flush()


def _is_std_stream_link(path: Path) -> bool:
    """Whether ``path`` names one of the process's open files (``/dev/stdout``,
    ``/dev/fd/1``, ``/proc/self/fd/1``): writing there must not replace what it points to."""
    text = os.path.abspath(path)
    return text in ("/dev/stdout", "/dev/stderr") or text.startswith(
        ("/dev/fd/", "/proc/self/fd/", f"/proc/{os.getpid()}/fd/")
    )


ROW_GROUP_SIZE = 1 << 20
"""Rows per Parquet row group that :func:`format_file` writes (pyarrow's default for a table).

Batches are gathered up to this size: a row group per batch would restart the column
encoders (dictionary attempt, statistics) every ``batch_size`` rows, which cost 2-3x the
write time of a 20M-row file."""


_NATIVE_CSV = True
_CSV_WRITE = 1 << 20
"""Bytes per write of vecfix's CSV lines: a batch's 7 MB in one ``write`` took 1.5-3x the
system time of 1 MB writes (20M rows, 522 MB, Linux page cache)."""
"""Whether a CSV output whose every column is a formatted one is written by vecfix's
kernel (:mod:`vecfix._csv`: the same bytes as pyarrow's writer, without turning the text
into Arrow strings first). Tests set it to False to compare with pyarrow's writer."""


class _Writer:
    def __init__(
        self,
        pa: Any,
        sink: Any,
        fmt: str,
        schema: Any,
        csv_quoting: str,
        compression: str | None,
        parquet_compression: str | None,
        formatted: frozenset[str] = frozenset(),
        native_csv: bool = False,
    ) -> None:
        self.sink: Any = None
        self.gather: list[Any] | None = None  # Parquet: batches of the next row group
        self.gathered = 0
        self.schema = schema
        self.quoted: bool | None = None  # a CSV of formatted columns only: vecfix writes it
        if fmt == "parquet":
            import pyarrow.parquet as pq

            codec = parquet_compression or "snappy"
            # No min/max statistics for the formatted columns: text sorts "10.00" before
            # "9.00", so a reader cannot prune on them, and they cost a quarter of the write.
            stats = [f.name for f in schema if f.name not in formatted]
            self.writer = pq.ParquetWriter(
                sink, schema, compression=codec, write_statistics=stats or False
            )
            self.gather = []
        elif fmt == "arrow":
            import pyarrow.ipc as ipc

            if isinstance(sink, str):
                self.sink = pa.OSFile(sink, "wb")
            else:
                self.sink = pa.PythonFile(sink, mode="w")
            self.writer = ipc.new_file(self.sink, schema)
        else:
            import pyarrow.csv as pacsv

            if isinstance(sink, str):
                self.sink = pa.output_stream(sink, compression=compression)
            else:
                self.sink = pa.PythonFile(sink, mode="w")
                if compression:
                    self.sink = pa.CompressedOutputStream(self.sink, compression)
            options = pacsv.WriteOptions(quoting_style=csv_quoting)
            if native_csv:
                # pyarrow's header line (its quoting of the names), then vecfix's lines
                header = pa.BufferOutputStream()
                pacsv.CSVWriter(header, schema, write_options=options).close()
                self.sink.write(header.getvalue())
                self.quoted = csv_quoting != "none"
                self.keep: dict[str, Any] = {}  # csv_lines' buffers, reused batch after batch
                self.writer = None
            else:
                self.writer = _csv_writer(pa, self.sink, schema, options)

    def write(self, batch: Any) -> None:
        """Write a batch: a pyarrow batch of :attr:`schema`, or for a CSV of formatted
        columns only (``native_csv``) the list of their :class:`~vecfix.Formatted`."""
        if self.quoted is not None:
            from ._csv import csv_lines

            lines = csv_lines(batch, self.quoted, self.keep)
            for start in range(0, lines.size, _CSV_WRITE):
                self.sink.write(lines[start : start + _CSV_WRITE])
            return
        if self.gather is None:
            self.writer.write_batch(batch)
            return
        self.gather.append(batch)
        self.gathered += batch.num_rows
        if self.gathered >= ROW_GROUP_SIZE:
            self.flush()

    def flush(self) -> None:
        if self.gather:
            import pyarrow as pa

            table = pa.Table.from_batches(self.gather, schema=self.schema)
            self.gather, self.gathered = [], 0
            self.writer.write_table(table, row_group_size=ROW_GROUP_SIZE)

    def close(self) -> None:
        try:
            self.flush()
            if self.writer is not None:
                self.writer.close()
        finally:
            if self.sink is not None:
                self.sink.close()


def _csv_writer(pa: Any, sink: Any, schema: Any, options: Any) -> Any:
    """pyarrow's CSV writer for ``schema``; :class:`UsageError` naming the first column
    whose type it cannot write (a list, a struct ...)."""
    import pyarrow.csv as pacsv

    try:
        return pacsv.CSVWriter(sink, schema, write_options=options)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        for f in schema:
            try:
                pacsv.CSVWriter(pa.BufferOutputStream(), pa.schema([f]), write_options=options)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise UsageError(
                    f"a CSV file cannot hold column {f.name!r} ({f.type}): write Parquet or"
                    " Arrow IPC (-o NAME.parquet / NAME.arrow), or leave the column out of the"
                    " input"
                ) from None
        raise UsageError(f"cannot write CSV: {exc}") from None


def _warn(message: str) -> None:
    warnings.warn(message, SentinelWarning, stacklevel=3)


def format_file(
    input: str | os.PathLike,
    output: str | os.PathLike,
    columns: Sequence[ColumnSpec],
    *,
    input_format: str | None = None,
    output_format: str | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    threads: int = 1,
    csv_quoting: str = "needed",
    csv_infer_types: bool = False,
    csv_nulls: Sequence[str] = CSV_NULLS,
    compression: str | None = None,
    progress: bool | None = None,
    on_warning: Callable[[str], None] | None = None,
    engine: str = "auto",
) -> FormatStats:
    """Format columns of a CSV, Parquet or Arrow IPC file into a new file, batch by batch.

    The input is read in record batches of at most ``batch_size`` rows, each batch's
    ``columns`` are formatted (:func:`format_batch`) and it is written out while the next
    is read and formatted, so memory stays bounded whatever the file's size. Other columns
    pass through. A regular output file is written to a temporary file beside it and
    renamed over it at the end: an error leaves no half-written file. Standard output, a
    named pipe or a device is written to directly, never replaced.

    Parameters
    ----------
    input, output : str or path
        The files; ``"-"`` is standard input / output. Formats come from the extensions
        (``.csv``, ``.parquet``/``.pq``, ``.arrow``/``.feather``/``.ipc``; ``.csv.gz``,
        ``.csv.bz2``, ``.csv.zst`` are compressed CSV) unless ``input_format`` /
        ``output_format`` say; ``"-"`` is CSV by default.
    columns : sequence of ColumnSpec
        The columns to format. In a CSV input they are read as text (or as int64 when they
        have an exponent), never as floats.
    input_format, output_format : {"csv", "parquet", "arrow"}, optional
        Override the extension.
    batch_size : int, default DEFAULT_BATCH_SIZE
        Rows per batch.
    threads : int, default 1
        Passed to :func:`vecfix.format_fixed`.
    csv_quoting : {"needed", "none", "all_valid"}, default "needed"
        pyarrow's CSV quoting style: ``"needed"`` quotes every text value, formatted
        prices included; ``"none"`` writes them bare (and fails on a text value holding a
        comma, quote or line break).
    csv_infer_types : bool, default False
        CSV input: let pyarrow infer the types of the columns that are not formatted (from
        the first block). By default they are kept as text, exactly as in the file.
    csv_nulls : sequence of str, default ("",)
        CSV input: the cell texts read as null, in every column (:data:`CSV_NULLS`: empty
        cells only). A file that writes missing values as ``NA`` or ``NULL`` needs them
        here (``("", "NA")``); by default they stay text, and in a formatted column such a
        cell is refused with its row.
    compression : {"snappy", "zstd", "lz4", "gzip", "brotli", "none"}, optional
        Parquet output's codec (default ``"snappy"``, pyarrow's).
    progress : bool, optional
        Show a progress bar in rows (tqdm) on stderr. Default: when stderr is a terminal.
    on_warning : callable, optional
        Called with the text of each warning (an integer column holding int64 max or min,
        or uint64 max, and no ``null`` for it); by default a :class:`SentinelWarning` is
        issued.
    engine : {"auto", "polars", "pyarrow"}, default "auto"
        The Parquet writer. ``"auto"``: polars' (which encodes columns in parallel: 1.5-2x
        less time than pyarrow's on two idle cores) when polars is installed, this
        process may use two cores or more, and the output is a regular file whose columns
        polars keeps as they are; else pyarrow's. ``"polars"`` raises
        :class:`UsageError` where polars cannot write the job. Both write the same text,
        codec, row groups and schema metadata. polars stores text as ``large_string`` in
        the file's Arrow schema (pyarrow as ``string``) and writes min/max statistics for
        every column or, when all columns are formatted, for none (pyarrow's writer skips
        the text columns only). A CSV output whose every column is a formatted one is
        written by vecfix (:mod:`vecfix._csv`: pyarrow's bytes, without making Arrow
        strings first); other CSV outputs and Arrow IPC outputs by pyarrow.

    Returns
    -------
    FormatStats

    Raises
    ------
    UsageError
        If the input does not exist, a format is unknown or an argument is out of range.
    DataError
        If a column is missing or cannot be formatted, or the input cannot be read.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from vecfix.files import ColumnSpec, format_file
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "in.csv").write_text("sym,px\\nESZ4,5000.125\\nZNZ4,-0.005\\n")
    >>> format_file(d / "in.csv", d / "out.csv", [ColumnSpec("px", scale=2)]).rows
    2
    >>> print((d / "out.csv").read_text(), end="")
    "sym","px"
    "ESZ4","5000.13"
    "ZNZ4","-0.01"
    """
    in_fmt = file_format(input, input_format, role="input")
    out_fmt = file_format(output, output_format, role="output")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise UsageError(f"batch size must be a positive int, got {batch_size!r}")
    if csv_quoting not in ("needed", "none", "all_valid"):
        raise UsageError(f"csv quoting must be needed, none or all_valid, got {csv_quoting!r}")
    if isinstance(csv_nulls, (str, bytes)) or not all(isinstance(t, str) for t in csv_nulls):
        raise UsageError(f"csv_nulls must be a sequence of str, got {csv_nulls!r}")
    csv_nulls = tuple(csv_nulls)
    if compression is not None and compression not in COMPRESSIONS:
        raise UsageError(
            f"unknown compression {compression!r}: choose from {', '.join(COMPRESSIONS)}"
        )
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}: choose from {', '.join(ENGINES)}")
    if not columns:
        raise UsageError("no columns to format: give at least one --column")
    src: str | Path = STDIO if os.fspath(input) == STDIO else Path(input)
    if src != STDIO and not Path(src).is_file():
        what = "is a directory, not a file" if Path(src).is_dir() else "does not exist"
        if Path(src).exists() and not Path(src).is_dir():
            what = ""  # a named pipe or a device: read it as a stream
        if what:
            raise UsageError(f"input file {os.fspath(src)!r} {what}")
    dst = _Destination(os.fspath(output), src)
    if progress is None:
        progress = sys.stderr.isatty()
    warn = on_warning or _warn

    import pyarrow as pa

    start = time.perf_counter()
    shown = "standard input" if src == STDIO else repr(os.fspath(src))
    try:
        reader = _open_reader(pa, src, in_fmt, columns, batch_size, csv_infer_types, csv_nulls)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
        raise _read_error(shown, in_fmt, exc, columns=columns) from None
    bar = None
    # A thread reads (and decodes) the next batch while this one is formatted; pyarrow's
    # readers and vecfix's kernels release the GIL.
    reading = ThreadPoolExecutor(1, thread_name_prefix="vecfix-reader")
    try:
        plan = _Plan(pa, reader.schema, columns, where=shown)
        pl = _polars_writer(engine, out_fmt, dst, plan)
        bar = _progress_bar(reader, "stdin" if src == STDIO else Path(src).name, progress)
        names = reader.schema.names
        batches_in = _read_ahead(
            pa, reading, _rebatch(reader.batches, batch_size),
            lambda exc: _read_error(shown, in_fmt, exc, names, columns),
        )  # fmt: skip
        with contextlib.closing(batches_in):
            if pl is not None:
                rows, batches = _write_polars(
                    pl, plan, batches_in, dst, compression, threads, warn, bar
                )
            else:
                writer = _Writer(
                    pa, dst.open(), out_fmt, plan.schema, csv_quoting, _compression(output),
                    compression, frozenset(c.target for c in columns),
                    native_csv=_NATIVE_CSV and out_fmt == "csv" and plan.text_only,
                )  # fmt: skip
                rows, batches = _write_pyarrow(
                    pa, plan, batches_in, writer, dst, threads, warn, bar
                )
        dst.commit()
    finally:
        reading.shutdown()
        if bar is not None:
            bar.close()
        dst.close()
        reader.close()
    return FormatStats(rows, batches, time.perf_counter() - start)


ENGINES = ("auto", "polars", "pyarrow")
"""The Parquet writers :func:`format_file` can use (``engine=``): ``"auto"`` is polars'
where it can write the job, else pyarrow's."""


def _read_ahead(
    pa: Any,
    pool: ThreadPoolExecutor,
    batches: Iterator[Any],
    error: Callable[[Exception], DataError],
) -> Generator[Any, None, None]:
    """The batches, each read in ``pool`` while the one before is formatted and written
    (:func:`_one_ahead`); a reader's error becomes ``error(exc)``."""
    try:
        yield from _one_ahead(pool, batches)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
        raise error(exc) from None


def _write_pyarrow(
    pa: Any,
    plan: _Plan,
    batches: Iterator[Any],
    writer: _Writer,
    dst: _Destination,
    threads: int,
    warn: Callable[[str], None],
    bar: Any,
) -> tuple[int, int]:
    """Format and write every batch with pyarrow's writer; a thread writes one batch while
    the next is formatted (pyarrow's writers release the GIL). Returns (rows, batches)."""
    rows = count = 0
    writing = ThreadPoolExecutor(1, thread_name_prefix="vecfix-writer")
    pending: Future | None = None
    open_writer: _Writer | None = writer
    try:
        for batch in batches:
            if writer.quoted is not None:  # vecfix writes the CSV: keep the Formatted results
                out = plan.texts(batch, threads, first_row=rows, warn=warn)
            else:
                out = plan.format(batch, threads, first_row=rows, warn=warn)
            if pending is not None:
                _finish_write(pa, pending, dst)
            pending = writing.submit(writer.write, out)  # written while the next is formatted
            rows += batch.num_rows
            count += 1
            if bar is not None:
                bar.update(batch.num_rows)
        if pending is not None:
            p, pending = pending, None
            _finish_write(pa, p, dst)
        open_writer = None
        writer.close()
    finally:
        if pending is not None:
            with contextlib.suppress(Exception):  # already failing: report the first
                pending.result()
        writing.shutdown()
        if open_writer is not None:
            with contextlib.suppress(Exception):
                open_writer.close()
    return rows, count


def _polars_writer(engine: str, out_fmt: str, dst: _Destination, plan: _Plan) -> Any:
    """The polars module when its Parquet writer is to write this job, else None.

    polars encodes and compresses a row group's columns in parallel (pyarrow's writer
    uses one thread): a Parquet output takes 1.5-2x less time on two idle cores (20M rows
    x 2 price columns, snappy), for about a tenth more CPU time, so ``"auto"`` keeps
    pyarrow's writer where this process may use one core only. It is used for a Parquet
    output to a regular file when polars is installed and holds every column of the
    output as it is (no type or nullability changed); ``engine="polars"`` raises
    :class:`UsageError` saying why it cannot, ``"auto"`` falls back to pyarrow.
    """
    if engine == "pyarrow":
        return None
    why = None
    pl: Any = None
    if out_fmt != "parquet":
        why = f"it writes Parquet, not {out_fmt}"
    elif dst.tmp is None:
        why = "it writes regular files, not standard output, a pipe or a device"
    else:
        try:
            import polars
            from polars.io.plugins import register_io_source  # noqa: F401
        except ImportError:
            why = "polars is not installed (pip install polars)"
        else:
            pl = polars
            why = _polars_cannot_keep(pl, plan)
    if why is None and engine == "auto":
        from ._plan import usable_cores

        if usable_cores() < 2:  # polars' writer spends more CPU time than pyarrow's
            return None
    if why is None:
        return pl
    if engine == "polars":
        raise UsageError(f"the polars writer cannot write {dst.shown!r}: {why}")
    return None


def _text_kind(pa: Any, t: Any) -> Any:
    if _is_text(pa, t) and not pa.types.is_dictionary(t):
        return "text"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or str(t) == "binary_view":
        return "binary"
    return t


def _polars_cannot_keep(pl: Any, plan: _Plan) -> str | None:
    """Why polars would change a column of the output (its type or nullability); None
    when it keeps them all (text is one Parquet type whatever its Arrow layout)."""
    try:
        back = _polars_arrow_schema(pl, plan)
    except Exception as exc:  # a type polars does not have
        return f"polars cannot hold the columns ({str(exc).splitlines()[0]})"
    for f, g in zip(plan.schema, back, strict=True):
        if not f.nullable or _text_kind(plan.pa, f.type) != _text_kind(plan.pa, g.type):
            return f"polars would write column {f.name!r} ({f.type}) as {g.type}"
    return None


def _polars_arrow_schema(pl: Any, plan: _Plan) -> Any:
    """The Arrow schema polars writes for the output: the output's, with polars' own text
    and binary layouts (``large_string``, ``large_binary``), metadata kept."""
    pa = plan.pa
    back = pl.from_arrow(plan.schema.empty_table()).to_arrow().schema
    kinds = {"text": pa.large_string(), "binary": pa.large_binary()}
    fields = [
        f.with_type(kinds.get(_text_kind(pa, g.type), g.type))
        for f, g in zip(plan.schema, back, strict=True)
    ]
    return pa.schema(fields, metadata=plan.schema.metadata)


def _write_polars(
    pl: Any,
    plan: _Plan,
    batches: Iterator[Any],
    dst: _Destination,
    compression: str | None,
    threads: int,
    warn: Callable[[str], None],
    bar: Any,
) -> tuple[int, int]:
    """Format the batches a row group at a time into polars ``DataFrame`` s and let polars'
    streaming Parquet sink write them. A thread formats the next row group's frame while
    polars' threads encode this one (vecfix's kernels release the GIL). Returns (rows,
    batches).

    The writer is most of the job: on 20M rows x 2 random PRICE9 columns it spends about
    2.4 CPU-s with snappy and 0.7 uncompressed, where reading, formatting and handing the
    text over take about 0.6 (snappy shrinks these pages 0.71x; on repeating prices the
    writer's dictionary pages make it cheap)."""
    from polars.io.plugins import register_io_source

    done = [0, 0]  # rows, batches
    failed: list[BaseException] = []

    def frames() -> Iterator[Any]:
        # A row group's batches formatted together, one call per column: polars' writer
        # gets one chunk per column (not one per batch, which cost it more CPU time) and
        # vecfix makes a quarter of the calls (5M rows x 2 columns, Parquet -> Parquet:
        # 0.83 against 0.91 CPU-s with snappy, 0.37 against 0.44 uncompressed; best of 5).
        gathered: list[Any] = []
        rows = 0
        for batch in batches:
            gathered.append(batch)
            rows += batch.num_rows
            if bar is not None:
                bar.update(batch.num_rows)
            if rows >= ROW_GROUP_SIZE:
                yield group(gathered)
                gathered, rows = [], 0
        if gathered:
            yield group(gathered)

    def group(gathered: list[Any]) -> Any:
        pa = plan.pa
        table = gathered[0]
        if len(gathered) > 1:  # one chunk a column: one kernel call, one chunk for the writer
            table = pa.Table.from_batches(gathered).combine_chunks()
        frame = plan.format(table, threads, done[0], warn=warn, pl=pl)
        done[0] += table.num_rows
        done[1] += len(gathered)
        return frame

    formatting = ThreadPoolExecutor(1, thread_name_prefix="vecfix-format")
    ahead = _one_ahead(formatting, frames())

    def source(*_: Any) -> Iterator[Any]:  # with_columns, predicate, n_rows, batch_size
        try:
            yield from ahead
        except Exception as exc:  # polars would wrap it: keep it to raise it as it is
            failed.append(exc)
            raise

    schema = pl.from_arrow(plan.schema.empty_table()).schema
    codec: Any = compression or "snappy"
    # Min/max of the text columns cannot prune anything ("10.00" sorts before "9.00") and
    # cost a tenth of the write; polars decides for all columns at once, so they are
    # written when other columns pass through (whose statistics readers do use).
    passthrough = any(isinstance(s, int) for s in plan.sources)
    try:
        register_io_source(source, schema=schema).sink_parquet(
            dst.open(),
            compression="uncompressed" if codec == "none" else codec,
            statistics=passthrough,
            row_group_size=ROW_GROUP_SIZE,
            arrow_schema=_polars_arrow_schema(pl, plan),  # the input's schema metadata too
        )
    except Exception as exc:
        if failed:
            raise failed[0] from None
        if isinstance(exc, BrokenPipeError):
            raise
        raise UsageError(f"cannot write {dst.shown!r}: {str(exc).splitlines()[0]}") from None
    finally:
        ahead.close()
        formatting.shutdown()
    if failed:
        raise failed[0]
    return done[0], done[1]


def _one_ahead(pool: ThreadPoolExecutor, items: Iterator[Any]) -> Generator[Any, None, None]:
    """The items of ``items``, each computed in ``pool`` while the one before is used."""
    ahead: Future | None = pool.submit(next, items, None)
    try:
        while ahead is not None:
            item = ahead.result()
            if item is None:
                ahead = None
                return
            ahead = pool.submit(next, items, None)
            yield item
    finally:
        if ahead is not None:
            with contextlib.suppress(Exception):  # already failing: report the first
                ahead.result()


def _finish_write(pa: Any, pending: Future, dst: _Destination) -> None:
    try:
        pending.result()
    except pa.ArrowInvalid as exc:
        raise DataError(f"cannot write {dst.shown!r}: {exc}") from None
    except BrokenPipeError:
        raise  # the reader of a pipe went away (``| head``): the caller decides
    except OSError as exc:
        raise UsageError(f"cannot write {dst.shown!r}: {exc}") from None


def _read_error(
    shown: str,
    fmt: str,
    exc: Exception,
    names: Sequence[str] = (),
    columns: Sequence[ColumnSpec] = (),
) -> DataError:
    """A reader's error as :class:`DataError`, naming the input; for a CSV cell that is not
    an integer, its column and what the column is read for."""
    text = _name_csv_column(str(exc), names)
    if "conversion error to int64" not in text:
        return DataError(f"cannot read {shown} as {fmt}: {text}")
    at = re.search(r"In column '([^']*)'", text)
    nulls = "; a missing value written as text (NA, NULL) is read as null with --csv-null"
    if at is not None and at.group(1) in {c.scale_column for c in columns}:
        hint = ". A --scale-column holds each row's number of decimals, as integers" + nulls
    elif re.search(r"invalid value '[-+]?\d+'", text):  # an integer, beyond int64
        hint = (
            ". Columns given --exponent are read from CSV as int64: an integer beyond it is"
            " not read there (leaving out --exponent would read it as a number of units,"
            " not of 10**exponent); write the column to Parquet or Arrow as uint64 or as a"
            " decimal, or format it with vecfix.format_fixed, which takes Python ints"
        )
    else:
        hint = (
            ". Columns given --exponent are read as integers; leave out --exponent to read"
            " decimal text such as 5000.25"
        ) + nulls
    return DataError(f"cannot read {shown} as {fmt}: {text}{hint}")


def _name_csv_column(text: str, names: Sequence[str]) -> str:
    """pyarrow's ``In CSV column #k`` (counted from 0) as ``In column 'name'``."""
    at = re.search(r"In CSV column #(\d+)", text)
    if at is None or int(at.group(1)) >= len(names):
        return text
    return text.replace(at.group(0), f"In column {names[int(at.group(1))]!r}")


def _progress_bar(reader: _Reader, name: str, show: bool) -> Any:
    if not show:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # the progress bar is optional: pip install tqdm
        return None
    return tqdm(
        total=reader.total,
        unit="rows",
        unit_scale=True,
        desc=name,
        file=sys.stderr,
        leave=False,
        dynamic_ncols=True,
    )
