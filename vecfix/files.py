"""Format columns of CSV, Parquet and Arrow IPC files: the library behind ``vecfix format``.

:func:`format_file` is one polars lazy query: scan the input, ``with_columns`` of vecfix's
expression (:meth:`vecfix.polars.VecfixExpr.fixed`) for each :class:`ColumnSpec`, sink the
output; polars' streaming engine runs it batch by batch, in bounded memory.
:func:`format_batch` runs the same query on a table in memory.

Where polars cannot stream the input (standard input, a named pipe, a CSV compressed with
bz2 or lz4), it is first copied, decompressed, into a temporary file (``TMPDIR``). A
regular output file is written beside itself and renamed at the end, so an error leaves no
half-written file; standard output (``"-"``), a named pipe or a device is written directly.
Only the standard library is imported with this module.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from . import _engine
from . import _files_io as fio
from ._files_io import (
    COMPRESSIONS,
    FORMATS,
    STDIO,
    DataError,
    UsageError,
    file_format,
    read_scale_map,
)
from ._limits import INT64_MAX, INT64_MIN, UINT64_MAX

if TYPE_CHECKING:
    from ._number_format import NumberFormat

__all__ = [
    "COMPRESSIONS",
    "CSV_NULLS",
    "CSV_QUOTING",
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

CSV_QUOTING = ("necessary", "non_numeric", "always", "never")
"""CSV output's quoting (polars' names): a field in quotes only where it must be (the
default, as polars, pandas and DuckDB write), every text field, every field, none. The
names pyarrow used are taken too: ``needed`` is ``non_numeric``, ``all_valid``
``always`` and ``none`` ``never``."""

_QUOTING_ALIASES = {"needed": "non_numeric", "all_valid": "always", "none": "never"}

CSV_NULLS = ("",)
"""The cells of a CSV input read as null by default: empty ones (quoted or not). Text such
as ``NA`` stays text (a ticker, a note) unless ``csv_nulls`` lists it."""

ROW_GROUP_SIZE = 1 << 20
"""Rows per Parquet row group :func:`format_file` writes."""

_SENTINELS = {INT64_MAX: "int64 max", INT64_MIN: "int64 min", UINT64_MAX: "uint64 max"}
_ROW = "row {:,} (counting data rows from 0)"


class SentinelWarning(UserWarning):
    """An integer column holds int64 max or min, or a uint64 column uint64 max (the usual
    null sentinels), and no ``null`` was given for it: those rows are printed as numbers."""


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a file to format: its :class:`~vecfix.NumberFormat`, and where its
    text goes.

    Attributes
    ----------
    name : str
        The column.
    format : NumberFormat
        Its exponent, scale and null sentinels. ``scale`` may name a column holding each
        row's scale (``--scale-column``); with ``scales_by``, an int ``scale`` is the
        scale of the symbols the map does not list.
    output_name : str, optional
        Write the text as a new column of this name right after the raw column, which is
        kept. By default the text replaces the raw column.
    scales_by : tuple of (str, mapping of str to int), optional
        ``(symbol_column, {symbol: scale})``: each row's scale looked up by its symbol
        (:func:`read_scale_map`).

    Examples
    --------
    >>> from vecfix import NumberFormat
    >>> from vecfix.files import ColumnSpec
    >>> ColumnSpec("px", NumberFormat(-9), "price", scales_by=("symbol", {"ESZ4": 2})).target
    'price'
    """

    name: str
    format: NumberFormat
    output_name: str | None = None
    scales_by: tuple[str, Mapping[str, int]] | None = None

    def __post_init__(self) -> None:
        from ._number_format import NumberFormat
        from .columns.rules import is_int, show_value

        owner = f"column {show_value(self.name)}"
        if not isinstance(self.name, str) or not self.name:
            raise UsageError(f"a column name must be a non-empty str, got {show_value(self.name)}")
        if not isinstance(self.format, NumberFormat):
            raise UsageError(
                f"{owner}: format must be a vecfix.NumberFormat, got {show_value(self.format)}"
            )
        if self.output_name is not None and (
            not isinstance(self.output_name, str) or not self.output_name
        ):
            raise UsageError(
                f"{owner}: the formatted column's name (--as) must be a non-empty str,"
                f" got {show_value(self.output_name)}"
            )
        scale = self.format.scale
        if self.scales_by is not None:
            by, table = self.scales_by
            if not isinstance(by, str) or not isinstance(table, Mapping):
                raise UsageError(f"{owner}: scales_by must be (symbol column, {{symbol: scale}})")
            if scale is not None and not is_int(scale):
                raise UsageError(f"{owner}: give --scale-column or --scales-by, not both")
            for symbol, v in table.items():
                fio.check_scale(v, f"{owner}, scale of symbol {symbol!r}")
        elif scale is None:
            raise UsageError(
                f"{owner} has no scale (the decimal places to print): give --scale,"
                " --scale-column or --scales-by"
            )

    @property
    def target(self) -> str:
        """The name of the formatted column in the output."""
        return self.output_name or self.name


class FormatStats(NamedTuple):
    """What :func:`format_file` did: the rows written and the seconds it took."""

    rows: int
    seconds: float


def format_file(
    input: str | os.PathLike,
    output: str | os.PathLike,
    columns: Sequence[ColumnSpec],
    *,
    input_format: str | None = None,
    output_format: str | None = None,
    csv_quoting: str = "necessary",
    csv_infer_types: bool = False,
    csv_nulls: Sequence[str] = CSV_NULLS,
    compression: str | None = None,
    progress: bool | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> FormatStats:
    """Format columns of a CSV, Parquet or Arrow IPC file into a new file, as one polars
    lazy query streamed in batches: memory stays bounded whatever the file's size.

    Parameters
    ----------
    input, output : str or path
        The files; ``"-"`` is standard input / output. Formats come from the extensions
        (``.csv``, ``.parquet``/``.pq``, ``.arrow``/``.feather``/``.ipc``; ``.csv.gz``,
        ``.csv.zst``, ``.csv.bz2``, ``.csv.lz4`` are compressed CSV) unless
        ``input_format`` / ``output_format`` say; ``"-"`` is CSV by default.
    columns : sequence of ColumnSpec
        The columns to format. In a CSV input they are read as text (as int64 when they
        have an exponent), never as floats; the other columns stay text unless
        ``csv_infer_types``.
    input_format, output_format : {"csv", "parquet", "arrow"}, optional
        Override the extension.
    csv_quoting : {"necessary", "non_numeric", "always", "never"}, default "necessary"
        CSV output's quoting (:data:`CSV_QUOTING`); ``"never"`` refuses a text value that
        needs quotes (the file would not read back).
    csv_infer_types : bool, default False
        CSV input: let polars infer the types of the columns that are not formatted.
    csv_nulls : sequence of str, default ("",)
        CSV input: the cell texts read as null, in every column.
    compression : {"snappy", "zstd", "lz4", "gzip", "brotli", "none"}, optional
        Parquet output's codec (default ``"snappy"``).
    progress : bool, optional
        A progress line on stderr; default: when stderr is a terminal.
    on_warning : callable, optional
        Called with the text of each warning (an integer column holding int64 max or min,
        or uint64 max, and no ``null`` for it); by default a :class:`SentinelWarning`.

    Returns
    -------
    FormatStats

    Raises
    ------
    UsageError
        If the input does not exist, a format is unknown or an option is out of range.
    DataError
        If a column is missing or cannot be formatted (naming the column and the row of
        the file), or the input cannot be read.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from vecfix import NumberFormat
    >>> from vecfix.files import ColumnSpec, format_file
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "in.csv").write_text("sym,px\\nES,5000.125\\n\\"Z,N\\",-0.005\\n")
    >>> format_file(d / "in.csv", d / "out.csv", [ColumnSpec("px", NumberFormat(scale=2))]).rows
    2
    >>> print((d / "out.csv").read_text(), end="")
    sym,px
    ES,5000.13
    "Z,N",-0.01
    """
    from .columns.rules import show_value

    start = time.perf_counter()
    in_fmt = file_format(input, input_format, role="input")
    out_fmt = file_format(output, output_format, role="output")
    quoting = _QUOTING_ALIASES.get(csv_quoting, csv_quoting)
    if quoting not in CSV_QUOTING:
        raise UsageError(
            f"csv quoting must be one of {', '.join(CSV_QUOTING)}, got {show_value(csv_quoting)}"
        )
    if isinstance(csv_nulls, (str, bytes)) or not all(isinstance(t, str) for t in csv_nulls):
        raise UsageError(f"csv_nulls must be a sequence of str, got {show_value(csv_nulls)}")
    if compression is not None and compression not in COMPRESSIONS:
        raise UsageError(
            f"unknown compression {show_value(compression)}: choose from {', '.join(COMPRESSIONS)}"
        )
    fio.check_specs(columns)
    pl = fio.polars()
    dst = fio.Destination(output, input, out_fmt)
    with fio.Source(input, in_fmt) as src:
        lf = fio.scan(pl, src, in_fmt, columns, csv_infer_types, list(csv_nulls))
        schema = fio.check_schema(pl, lf, columns, src.shown, in_fmt)
        show = sys.stderr.isatty() if progress is None else progress
        job = _Job(pl, lf, schema, columns, fio.Progress(pl, src, in_fmt, lf, show))
        rows = job.progress.expected()
        if rows:  # the engine decides once, for every batch: a large file loads the kernels
            _engine.kernels_for(rows * len(columns), spend=False)  # before its first one
        query = job.query
        if out_fmt == "csv":
            checks = fio.check_csv_columns(pl, schema, {s.name for s in columns}, quoting)
            query = query.with_columns(checks) if checks else query
        try:
            with dst:
                job.run(lambda: dst.sink(query, quoting, compression, job.passes_through))
        except UsageError:
            raise
        except DataError as exc:  # (raised in a batch: polars added where)
            raise DataError(str(exc).split("\n\nThis error occurred")[0]) from None
        except (TypeError, ValueError) as exc:
            raise job.first_error(exc) from None
        except pl.exceptions.PolarsError as exc:
            scale_columns = [s.format.scale for s in columns if isinstance(s.format.scale, str)]
            raise fio.polars_error(exc, src.shown, in_fmt, scale_columns) from None
        finally:
            job.progress.close()
        job.warn_sentinels(on_warning)
    return FormatStats(job.progress.rows, time.perf_counter() - start)


def format_batch(data: Any, columns: Sequence[ColumnSpec]) -> Any:
    """Format ``columns`` of a table in memory: the query of :func:`format_file` on a
    polars ``DataFrame`` or a pyarrow ``Table`` or ``RecordBatch`` (returned as the same
    kind); other columns pass through.

    Examples
    --------
    >>> import polars as pl
    >>> from vecfix import NumberFormat
    >>> from vecfix.files import ColumnSpec, format_batch
    >>> t = pl.DataFrame({"sym": ["ESZ4", "ZNZ4"], "px": [5000_250000000, 110_015625000]})
    >>> format_batch(t, [ColumnSpec("px", NumberFormat(-9, 4))]).rows()
    [('ESZ4', '5000.2500'), ('ZNZ4', '110.0156')]
    >>> spec = ColumnSpec("px", NumberFormat(-9), "price", ("sym", {"ESZ4": 2, "ZNZ4": 6}))
    >>> format_batch(t, [spec])["price"].to_list()
    ['5000.25', '110.015625']
    """
    pl = fio.polars()
    arrow = type(data).__module__.partition(".")[0] == "pyarrow"
    frame = pl.from_arrow(data) if arrow else data
    if not isinstance(frame, pl.DataFrame):
        raise TypeError(f"format_batch takes a table, got {type(data).__name__}")
    fio.check_specs(columns)
    fio.check_schema(pl, frame.lazy(), columns, "the data")
    job = _Job(pl, frame.lazy(), frame.schema, columns, None)
    try:
        out = job.run(job.query.collect)
    except (TypeError, ValueError) as exc:
        raise job.first_error(exc) from None
    job.warn_sentinels(None)
    if not arrow:
        return out
    table = out.rechunk().to_arrow()
    return table.to_batches()[0] if type(data).__name__ == "RecordBatch" else table


class _Job:
    """The lazy query of one file job, what its batches saw, and its messages."""

    def __init__(
        self, pl: Any, lf: Any, schema: Any, columns: Sequence[ColumnSpec], progress: Any
    ) -> None:
        from ._number_format import NumberFormat
        from .polars import fixed_expr

        self.pl, self.lf, self.columns, self.progress = pl, lf, list(columns), progress
        self.sentinels: dict[str, int] = {}
        self.formats: dict[str, NumberFormat] = {}
        for spec in columns:
            fmt = spec.format
            if spec.scales_by is not None:  # each row's scale looked up by its symbol
                by, table = spec.scales_by
                scale = pl.col(by).cast(pl.String).replace_strict(
                    list(table), list(table.values()), default=fmt.scale, return_dtype=pl.Int32
                )  # fmt: skip
                fmt = NumberFormat(fmt.exponent, scale, fmt.null)
            self.formats[spec.name] = fmt
        exprs = [
            fixed_expr(pl.col(s.name), self.formats[s.name], null_layouts="raise",
                       watch=self._watch(s, schema[s.name], first=i == 0)).alias(s.target)
            for i, s in enumerate(columns)
        ]  # fmt: skip
        by_name = {s.name: s for s in columns}
        order: list[str] = []
        for name in schema.names():
            found = by_name.get(name)
            order += [name] if found is None or found.target == name else [name, found.target]
        self.query = lf.with_columns(exprs).select(order)
        self.passes_through = len(order) > len(columns)

    def run(self, query: Callable[[], Any]) -> Any:
        """``query()``; should it fail, polars' threads are given a moment at exit to drop
        the batches vecfix formatted (see :class:`vecfix.polars._InFlight`)."""
        from .polars import _IN_FLIGHT

        try:
            return query()
        except BaseException:
            _IN_FLIGHT.failure()
            raise

    def _watch(self, spec: ColumnSpec, dtype: Any, first: bool) -> Callable[[Any], None]:
        pl = self.pl
        check = spec.format.null is None and dtype in (pl.Int64, pl.UInt64)

        def watch(values: Any) -> None:
            if first and self.progress is not None:
                self.progress.add(len(values))
            if check and spec.name not in self.sentinels and len(values):
                for v in (values.max(), values.min()):
                    if v in _SENTINELS and (v != INT64_MAX or dtype == pl.Int64):
                        self.sentinels.setdefault(spec.name, v)

        return watch

    def warn_sentinels(self, on_warning: Callable[[str], None] | None) -> None:
        """A warning for each column that held a usual null sentinel, naming its first row."""
        pl = self.pl
        for name, v in self.sentinels.items():
            rows = self.lf.with_row_index("__vecfix_row").filter(pl.col(name) == v)
            first = rows.select("__vecfix_row").head(1).collect().item()
            text = (
                f"column {name!r} holds {v} ({_SENTINELS[v]}, the usual null sentinel, e.g."
                f" CME PRICENULL9), first at {_ROW.format(first)}; it is printed as a"
                f" number. If it means no value, pass --null {v} (NumberFormat(..., null={v})"
                " in Python)"
            )
            if on_warning is None:
                warnings.warn(text, SentinelWarning, stacklevel=3)
            else:
                on_warning(text)

    def first_error(self, failed: Exception) -> DataError:
        """The error of the first row (in the file's order) that cannot be formatted, with
        its column and its row in the file: each column checked again in a streaming query
        that numbers the rows and keeps every batch's error; ``failed`` (what the job
        raised, from whichever batch ended first) when none is found."""
        from ._batch import format_values
        from .columns.rules import is_int

        pl, found, row = self.pl, [], "__vecfix_row"

        def checked(spec: ColumnSpec) -> Any:
            fmt = self.formats[spec.name]
            parts = {"exponents": fmt.exponent, "scales": fmt.scale}
            layouts = {k: pl.col(v) if isinstance(v, str) else v
                       for k, v in parts.items() if v is not None and not is_int(v)}  # fmt: skip
            symbol = [pl.col(spec.scales_by[0]).alias("symbol")] if spec.scales_by else []
            fields = [pl.col(spec.name), pl.col(row), *symbol]
            fields += [v.alias(k) for k, v in layouts.items()]

            def check(batch: Any) -> Any:
                df = batch.struct.unnest()
                try:
                    format_values(df[spec.name], fmt, column=spec.name, null_layouts="raise",
                                  **{k: df[k] for k in layouts})  # fmt: skip
                except (TypeError, ValueError) as exc:
                    at = getattr(exc, "row", None)
                    first = int(df[row][at or 0]) if len(df) else 0
                    name = df["symbol"][at] if symbol and at is not None else None
                    found.append((first, spec.name, exc, name))
                return pl.repeat(True, len(df), eager=True)

            return pl.struct(fields).map_batches(check, pl.Boolean, is_elementwise=True).all()

        checks = [checked(s).alias(s.name) for s in self.columns]
        self.run(lambda: self.lf.with_row_index(row).select(checks).collect(engine="streaming"))
        if not found:
            return DataError(str(failed).split("\n\nThis error occurred")[0])
        at, name, exc, symbol = min(found, key=lambda f: f[0])
        return _file_error(next(s for s in self.columns if s.name == name), exc, at, symbol)


def _file_error(spec: ColumnSpec, exc: Exception, row: int, symbol: Any) -> DataError:
    """A row error of a batch as :class:`DataError`, with ``row``, its row in the file."""
    from .columns.rules import RowError, show_value

    if not isinstance(exc, RowError) or exc.row is None:
        return DataError(str(exc))
    at = _ROW.format(row)
    if spec.scales_by is not None and exc.argument == "scale":  # a symbol not in the map
        return DataError(
            f"column {spec.name!r}, {at}: symbol {show_value(symbol)} (column"
            f" {spec.scales_by[0]!r}) is not in the scale map\nAdd it, or give --scale as the"
            " scale of symbols the map does not list"
        )
    part = getattr(spec.format, exc.argument or "", None)
    if isinstance(part, str):  # --scale-column
        lead = exc.lead.removeprefix(f"column {spec.name!r}: ")
        return DataError(f"{exc.argument} column {part!r}: {lead}{at}{exc.detail}")
    return DataError(f"{exc.lead}{at}{exc.detail}")
