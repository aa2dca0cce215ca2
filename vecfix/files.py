"""Format columns of CSV, Parquet and Arrow IPC files: the library behind ``vecfix format``.

:func:`format_file` is one polars lazy query: scan the input, ``with_columns`` of vecfix's
expression (:meth:`vecfix.polars.VecfixExpr.fixed`) for each :class:`ColumnSpec`, sink the
output; polars' streaming engine runs it batch by batch, in bounded memory.
:func:`format_batch` runs the same query on a table in memory.

Where polars cannot stream the input (standard input, a named pipe, a CSV compressed with
bz2 or lz4), it is first copied, decompressed, into a temporary file (``TMPDIR``). A
regular output file is replaced whole at the end (:func:`vecfix._io.atomic_path`), so an
error leaves the old file as it was; standard output (``"-"``), a named pipe or a device is
written directly. A row that cannot be formatted stops the job, named by its row in the
file (found by the batch that held it), or is written as null (``bad_rows="null"``).
Only the standard library is imported with this module.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from . import _engine
from . import _files_io as fio
from ._files_io import (
    COMPRESSIONS,
    FORMATS,
    STDIO,
    ColumnSpec,
    DataError,
    UsageError,
    file_format,
    read_scale_map,
)
from ._limits import INT64_MAX, INT64_MIN, UINT64_MAX

if TYPE_CHECKING:
    from ._number_format import NumberFormat

__all__ = [
    "BAD_ROWS",
    "COMPRESSIONS",
    "CSV_NULLS",
    "CSV_QUOTING",
    "FORMATS",
    "STDIO",
    "BadRowWarning",
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

BAD_ROWS = ("error", "null")
"""What a row that cannot be formatted does: stop the job with an error naming it (the
default), or be written as null, counted and named in one warning at the end."""

#: rows named in the warning of ``bad_rows="null"``; rows formatted per call after a bad one
BAD_ROWS_SHOWN, _AFTER_A_BAD_ROW = 5, 1024
_ROW_INDEX = "__vecfix_row"

_SENTINELS = {INT64_MAX: "int64 max", INT64_MIN: "int64 min", UINT64_MAX: "uint64 max"}
_ROW = "row {:,} (counting data rows from 0)"


class SentinelWarning(UserWarning):
    """An integer column holds int64 max or min, or a uint64 column uint64 max (the usual
    null sentinels), and no ``null`` was given for it: those rows are printed as numbers."""


class BadRowWarning(UserWarning):
    """``bad_rows="null"`` wrote rows that cannot be formatted as null: how many, and the
    first few (row, column, value)."""


ColumnSpec.__module__ = __name__  # (defined in the I/O module: shown where users find it)


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
    bad_rows: str = "error",
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
        ``input_format`` / ``output_format`` say; ``"-"`` is CSV by default. An existing
        output file is replaced whole when the job succeeds, and left as it was otherwise.
    columns : sequence of ColumnSpec
        The columns to format. In a CSV input they are read as text (as int64 when they
        have an exponent), never as floats; the other columns stay text unless
        ``csv_infer_types``. A row whose ``--scale-column`` (or exponent column) is null
        is null, as polars and pandas propagate nulls.
    input_format, output_format : {"csv", "parquet", "arrow"}, optional
        Override the extension.
    csv_quoting : {"necessary", "non_numeric", "always", "never"}, default "necessary"
        CSV output's quoting (:data:`CSV_QUOTING`); ``"never"`` refuses a text value that
        needs quotes, or an empty one (the file would not read back).
    csv_infer_types : bool, default False
        CSV input: let polars infer the types of the columns that are not formatted.
    csv_nulls : sequence of str, default ("",)
        CSV input: the cell texts read as null, in every column.
    compression : {"snappy", "zstd", "lz4", "gzip", "brotli", "none"}, optional
        Parquet output's codec (default ``"snappy"``).
    bad_rows : {"error", "null"}, default "error"
        A row that cannot be formatted (text that is no decimal, a scale out of range, a
        symbol not in the scale map): stop with a :class:`DataError` naming its row in
        the file, or write that field as null and carry on; the rows nulled are counted
        and the first few named (row, column, value) in one warning at the end
        (:class:`BadRowWarning`, or ``on_warning``). Nothing else in the file changes.
    progress : bool, optional
        A progress line on stderr; default: when stderr is a terminal.
    on_warning : callable, optional
        Called with the text of each warning (an integer column holding int64 max or min,
        or uint64 max, and no ``null`` for it; the rows ``bad_rows="null"`` nulled); by
        default a :class:`SentinelWarning` / :class:`BadRowWarning`.

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
    >>> _ = (d / "in.csv").write_text("sym,px\\nES,5000.125\\n\\"Z,N\\",-0.005\\nNQ,1.5x\\n")
    >>> spec = ColumnSpec("px", NumberFormat(scale=2))
    >>> format_file(d / "in.csv", d / "out.csv", [spec], bad_rows="null", on_warning=print).rows
    1 row that cannot be formatted written as null (--bad-rows null): 1 in column 'px'
      column 'px', row 2 (counting data rows from 0): '1.5x' is not decimal text ...
    3
    >>> print((d / "out.csv").read_text(), end="")
    sym,px
    ES,5000.13
    "Z,N",-0.01
    NQ,
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
        job = _Job(pl, lf, schema, columns, fio.Progress(pl, src, in_fmt, lf, show), bad_rows)
        rows = job.progress.expected()
        if rows:  # the engine decides once, for every batch: a large file loads the kernels
            _engine.kernels_for(rows * len(columns), spend=False)  # before its first one
        try:
            with dst:
                job.run(lambda: dst.sink(job.query, quoting, compression, job.passes_through,
                                         {s.target for s in columns}, job.failed))  # fmt: skip
        except pl.exceptions.PolarsError as exc:  # (polars' own: the input, a CSV cell)
            scale_columns = [s.format.scale for s in columns if isinstance(s.format.scale, str)]
            raise fio.polars_error(exc, src.shown, in_fmt, scale_columns) from None
        finally:
            job.progress.close()
    job.warn(on_warning)
    return FormatStats(job.progress.rows, time.perf_counter() - start)


def format_batch(data: Any, columns: Sequence[ColumnSpec], *, bad_rows: str = "error") -> Any:
    """Format ``columns`` of a table in memory: the query of :func:`format_file` on a
    polars ``DataFrame`` or a pyarrow ``Table`` or ``RecordBatch`` (returned as the same
    kind); other columns pass through. ``bad_rows`` as for :func:`format_file`.

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
    job = _Job(pl, frame.lazy(), frame.schema, columns, None, bad_rows)
    out = job.run(job.query.collect)
    job.warn(None)
    if not arrow:
        return out
    table = out.rechunk().to_arrow()
    return table.to_batches()[0] if type(data).__name__ == "RecordBatch" else table


class _Job:
    """The lazy query of one file job, and what its batches saw: the rows done, the first
    row of each null sentinel, the rows that could not be formatted (each batch numbers
    its rows by their place in the file, a row index carried beside the values)."""

    def __init__(
        self,
        pl: Any,
        lf: Any,
        schema: Any,
        columns: Sequence[ColumnSpec],
        progress: Any,
        bad_rows: str = "error",
    ) -> None:
        from .columns.rules import show_value

        if bad_rows not in BAD_ROWS:
            raise UsageError(f"bad_rows must be error or null, got {show_value(bad_rows)}")
        self.pl, self.columns, self.progress, self.bad_rows = pl, list(columns), progress, bad_rows
        self.sentinels: dict[str, tuple[int, int]] = {}  # column -> (first row, value)
        self.failures: list[tuple[int, Exception]] = []  # (row, vecfix's error) of batches
        self.nulled: dict[str, int] = {}  # column -> rows nulled
        self.first_nulled: list[tuple[int, str]] = []  # (row, why) of the first few
        self._lock = threading.Lock()
        exprs = [self._expr(s, schema[s.name], first=i == 0) for i, s in enumerate(columns)]
        by_name = {s.name: s for s in columns}
        order: list[str] = []
        for name in schema.names():
            found = by_name.get(name)
            order += [name] if found is None or found.target == name else [name, found.target]
        self.query = lf.with_row_index(_ROW_INDEX).with_columns(exprs).select(order)
        self.passes_through = len(order) > len(columns)

    def run(self, query: Callable[[], Any]) -> Any:
        """``query()``; should it fail where a batch failed, the error that batch kept
        aside (vecfix's own, with its row in the file; the first row's of several) rather
        than polars' report of it. polars' threads are given a moment at exit to drop the
        batches vecfix formatted (see :class:`vecfix.polars._InFlight`)."""
        from .polars import _IN_FLIGHT

        try:
            return query()
        except BaseException:
            _IN_FLIGHT.failure()
            with self._lock:
                kept = min(self.failures, key=lambda f: f[0], default=None)
            if kept is not None:
                raise kept[1] from None
            raise

    def failed(self, row: int | None, error: Exception) -> None:
        """Keep aside the error a batch is about to raise (``row``: its row in the file)."""
        with self._lock:
            self.failures.append((-1 if row is None else row, error))

    def _expr(self, spec: ColumnSpec, dtype: Any, first: bool) -> Any:
        """The column formatted, batch by batch (:meth:`_format`), with the row index and
        each row's exponent, scale or symbol beside its values in one struct."""
        from ._number_format import NumberFormat
        from .columns.rules import is_int
        from .polars import _IN_FLIGHT

        pl, fmt = self.pl, spec.format
        fields = {spec.name: pl.col(spec.name), _ROW_INDEX: pl.col(_ROW_INDEX)}
        for part in ("exponent", "scale"):
            value = getattr(fmt, part)
            if value is not None and not is_int(value):
                fields[part] = pl.col(value) if isinstance(value, str) else value
        null_layouts = "null"  # a null exponent or scale: a null row, as polars propagates
        if spec.scales_by is not None:  # each row's scale looked up by its symbol
            by, table = spec.scales_by
            fields["symbol"] = pl.col(by).cast(pl.String)
            fields["scale"] = fields["symbol"].replace_strict(
                list(table), list(table.values()), default=fmt.scale, return_dtype=pl.Int32
            )
            fmt = NumberFormat(fmt.exponent, by, fmt.null)  # (a name: the scale is per row)
            null_layouts = "raise"  # a symbol the map does not list is a bad row
        watch = self._watch(spec, dtype, first)
        layouts = [k for k in fields if k in ("exponent", "scale")]

        def run(batch: Any) -> Any:
            with _IN_FLIGHT:
                df = batch.struct.unnest()
                watch(df[spec.name], df[_ROW_INDEX])
                return self._format(spec, fmt, df, layouts, null_layouts)

        struct = pl.struct([e.alias(k) for k, e in fields.items()])
        return struct.map_batches(run, pl.String, is_elementwise=True).alias(spec.target)

    def _format(
        self, spec: ColumnSpec, fmt: NumberFormat, df: Any, layouts: list[str], null_layouts: str
    ) -> Any:
        """One batch's column formatted; a row that cannot be: the job's error, kept aside
        (:meth:`failed`) and raised, or (``bad_rows="null"``) a null, counted, and the rows
        after it formatted :data:`_AFTER_A_BAD_ROW` at a time."""
        from ._batch import format_values
        from .columns.rules import RowError

        pl, pieces = self.pl, []

        def part(lo: int, hi: int) -> Any:
            d = df.slice(lo, hi - lo)
            return format_values(d[spec.name], fmt, column=spec.name, layout="string_view",
                                 null_layouts=null_layouts, sentinels=False,  # type: ignore[arg-type]
                                 **{k: d[k] for k in layouts}).to_polars(spec.target)  # fmt: skip

        def rows(lo: int, hi: int, step: int) -> None:
            while lo < hi:
                end = min(hi, lo + step)
                try:
                    pieces.append(part(lo, end))
                    lo = end
                except (TypeError, ValueError) as exc:
                    at = getattr(exc, "row", None)
                    bad = None if at is None else lo + at
                    row = None if bad is None else int(df[_ROW_INDEX][bad])
                    symbol = df["symbol"][bad] if bad is not None and "symbol" in df else None
                    error = _file_error(spec, exc, row, symbol)
                    if (
                        bad is None
                        or row is None
                        or not isinstance(exc, RowError)
                        or (self.bad_rows == "error")
                    ):
                        self.failed(row, error)
                        raise error from None
                    rows(lo, bad, _AFTER_A_BAD_ROW)  # (the rows before it may hold one too)
                    pieces.append(pl.Series(spec.target, [None], pl.String))
                    self._null(spec.name, row, str(error))
                    lo, step = bad + 1, _AFTER_A_BAD_ROW

        if not len(df):
            return part(0, 0)
        rows(0, len(df), len(df))
        return pieces[0] if len(pieces) == 1 else pl.concat(pieces)

    def _null(self, column: str, row: int, why: str) -> None:
        with self._lock:
            self.nulled[column] = self.nulled.get(column, 0) + 1
            self.first_nulled = sorted([*self.first_nulled, (row, why)])[:BAD_ROWS_SHOWN]

    def _watch(self, spec: ColumnSpec, dtype: Any, first: bool) -> Callable[[Any, Any], None]:
        pl = self.pl
        check = spec.format.null is None and dtype in (pl.Int64, pl.UInt64)

        def watch(values: Any, rows: Any) -> None:
            if first and self.progress is not None:
                self.progress.add(len(values))
            if not check or not len(values):
                return
            for v in (values.max(), values.min()):
                if v in _SENTINELS and (v != INT64_MAX or dtype == pl.Int64):
                    row = int(rows.filter(values == v)[0])
                    with self._lock:
                        if row < self.sentinels.get(spec.name, (row + 1, 0))[0]:
                            self.sentinels[spec.name] = (row, v)

        return watch

    def warn(self, on_warning: Callable[[str], None] | None) -> None:
        """A warning for each column that held a usual null sentinel, naming its first row;
        one for the rows ``bad_rows="null"`` nulled, naming the first few."""
        for name, (first, v) in self.sentinels.items():
            text = (
                f"column {name!r} holds {v} ({_SENTINELS[v]}, the usual null sentinel, e.g."
                f" CME PRICENULL9), first at {_ROW.format(first)}; it is printed as a"
                f" number. If it means no value, pass --null {v} (NumberFormat(..., null={v})"
                " in Python)"
            )
            _say(text, SentinelWarning, on_warning)
        if self.nulled:
            total = sum(self.nulled.values())
            counts = ", ".join(f"{n:,} in column {c!r}" for c, n in self.nulled.items())
            lines = [
                f"{total:,} row{'s' * (total != 1)} that cannot be formatted written as null"
                f" (--bad-rows null): {counts}",
                *(f"  {why.splitlines()[0]}" for _, why in self.first_nulled),
            ]
            if total > len(self.first_nulled):
                lines.append(f"  (the first {len(self.first_nulled)} shown)")
            _say("\n".join(lines), BadRowWarning, on_warning)


def _say(text: str, category: type[Warning], on_warning: Callable[[str], None] | None) -> None:
    if on_warning is None:
        warnings.warn(text, category, stacklevel=4)
    else:
        on_warning(text)


def _file_error(spec: ColumnSpec, exc: Exception, row: int | None, symbol: Any) -> DataError:
    """A batch's error as :class:`DataError`, its row counted in the file (``row``)."""
    from .columns.rules import RowError, show_value

    if not isinstance(exc, RowError) or exc.row is None or row is None:
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
