"""The ``vecfix`` command line: ``vecfix demo`` and ``vecfix format``.

``vecfix demo`` formats a built-in market-data snapshot and compares it with a per-value
:mod:`decimal` loop; ``vecfix format`` formats columns of a CSV, Parquet or Arrow IPC file
into a new file, streaming it in record batches. Both are also ``python -m vecfix ...``.

The work of ``vecfix format`` is the Python function :func:`format_file` (and
:func:`format_batch` for one batch or table), so it can be called without the command line.

Exit status: 0 on success, 1 when the data does not fit the command (an unknown column, an
integer column without ``--exponent``, text that is not a decimal), 2 when the command line
itself is wrong (a missing input file, a bad scale, an unknown file format).
"""

from __future__ import annotations

import argparse
import decimal
import difflib
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ._sample import PRICE_EXPONENT, PRICENULL9, sample_prices, sample_snapshot

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "ColumnSpec",
    "DataError",
    "FormatStats",
    "UsageError",
    "build_parser",
    "format_batch",
    "format_file",
    "main",
    "sample_prices",
]

DEFAULT_BATCH_SIZE = 262_144
"""Rows per record batch that ``vecfix format`` reads, formats and writes at a time."""

FORMATS = ("csv", "parquet", "arrow")
_EXTENSIONS = {
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arrow": "arrow",
    ".feather": "arrow",
    ".ipc": "arrow",
}
_COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4"}
_INT32 = (-(2**31), 2**31 - 1)


class UsageError(ValueError):
    """The command (or call) is wrong whatever the data: exit status 2."""

    exit_code = 2


class DataError(ValueError):
    """The command does not fit the data (columns, types, values): exit status 1."""

    exit_code = 1


@dataclass(frozen=True)
class ColumnSpec:
    """How to format one column of a file.

    Attributes
    ----------
    name : str
        The column.
    scale : int
        Decimal places to print (negative rounds to a multiple of ``10**-scale``).
    exponent : int, optional
        The power of ten of an integer column (``-9`` for CME PRICE9 mantissas). Leave it
        ``None`` for decimal columns (Arrow decimals, decimal text), which carry their own.
    null : tuple of int
        Sentinel coefficients that mean "no value" (e.g. ``2**63 - 1``, CME PRICENULL9).

    Examples
    --------
    >>> from vecfix.cli import ColumnSpec
    >>> ColumnSpec("price_e9", scale=2, exponent=-9)
    ColumnSpec(name='price_e9', scale=2, exponent=-9, null=())
    """

    name: str
    scale: int
    exponent: int | None = None
    null: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for what in ("scale", "exponent"):
            v = getattr(self, what)
            if v is None and what == "exponent":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise UsageError(f"column {self.name!r}: {what} must be an int, got {v!r}")
            if not _INT32[0] <= v <= _INT32[1]:
                raise UsageError(f"column {self.name!r}: {what} {v} is outside int32")


class FormatStats(NamedTuple):
    """What :func:`format_file` did: rows and batches written, and the seconds it took."""

    rows: int
    batches: int
    seconds: float


# ---------------------------------------------------------------------------------------
# format: one batch
# ---------------------------------------------------------------------------------------


def format_batch(batch: Any, columns: Sequence[ColumnSpec], *, threads: int = 1) -> Any:
    """Format ``columns`` of a pyarrow ``RecordBatch`` or ``Table``; other columns pass through.

    Each formatted column is replaced, in place and under its own name, by a ``string``
    column of :func:`vecfix.format_fixed`'s text (nulls stay null).

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
        formatted.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from vecfix.cli import ColumnSpec, format_batch
    >>> t = pa.table({"sym": ["ESZ4", "ZNZ4"], "px": [5000_250000000, 110_015625000]})
    >>> format_batch(t, [ColumnSpec("px", scale=4, exponent=-9)]).to_pydict()
    {'sym': ['ESZ4', 'ZNZ4'], 'px': ['5000.2500', '110.0156']}
    """
    import pyarrow as pa

    _check_schema(batch.schema, columns, where="the data")
    return _format_batch(pa, batch, columns, threads, first_row=0)


def _format_batch(
    pa: Any, batch: Any, columns: Sequence[ColumnSpec], threads: int, first_row: int
) -> Any:
    arrays = list(batch.columns)
    schema = batch.schema
    for spec in columns:
        i = schema.get_field_index(spec.name)
        arrays[i] = _format_column(pa, arrays[i], spec, threads, first_row)
    out_schema = _output_schema(pa, schema, columns)
    if isinstance(batch, pa.Table):
        return pa.Table.from_arrays(arrays, schema=out_schema)
    return pa.RecordBatch.from_arrays(arrays, schema=out_schema)


def _format_column(pa: Any, arr: Any, spec: ColumnSpec, threads: int, first_row: int) -> Any:
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
        out = format_fixed(
            arr, spec.exponent, spec.scale, threads=threads, null=list(spec.null) or None
        )
    except (TypeError, ValueError) as exc:
        row = getattr(exc, "row", None)
        message = str(exc)
        if row is not None:  # "texts row 3: ..." counts from the batch: count from the file
            message = re.sub(r"^\w+ row \d+: ", "", message)
            where = f", row {first_row + row:,} (counting data rows from 0)"
        else:
            where = f" (in the rows from {first_row:,} on)" if first_row else ""
        raise DataError(f"column {spec.name!r}{where}: {message}") from None
    result = out.to_arrow(large=False)
    if isinstance(arr, pa.ChunkedArray):
        result = pa.chunked_array([result], pa.string())
    return result


def _is_text(pa: Any, t: Any) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view"


def _output_schema(pa: Any, schema: Any, columns: Sequence[ColumnSpec]) -> Any:
    names = {c.name for c in columns}
    fields = [pa.field(f.name, pa.string()) if f.name in names else f for f in schema]
    return pa.schema(fields, metadata=schema.metadata)


def _check_schema(schema: Any, columns: Sequence[ColumnSpec], where: str) -> None:
    """Every column present, once, with a type that fits its spec; else :class:`DataError`."""
    import pyarrow as pa

    seen: set[str] = set()
    for spec in columns:
        if spec.name in seen:
            raise UsageError(f"column {spec.name!r} is given twice")
        seen.add(spec.name)
        if schema.get_field_index(spec.name) < 0:
            if spec.name in schema.names:
                raise DataError(f"{where} has more than one column named {spec.name!r}")
            close = difflib.get_close_matches(spec.name, schema.names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise DataError(
                f"{where} has no column {spec.name!r}{hint} Its columns are:"
                f" {', '.join(schema.names)}"
            )
        t = schema.field(spec.name).type
        value_type = t.value_type if pa.types.is_dictionary(t) else t
        if pa.types.is_integer(value_type) and spec.exponent is None:
            raise DataError(
                f"column {spec.name!r} holds integers ({t}): give its --exponent, the power of"
                " ten of its values (e.g. --exponent -9 for CME PRICE9 mantissas)"
            )
        if pa.types.is_decimal(value_type) and spec.exponent is not None:
            raise DataError(
                f"column {spec.name!r} is {t}, which carries its own exponent: leave out"
                " --exponent for it"
            )
        if pa.types.is_floating(value_type):
            raise DataError(
                f"column {spec.name!r} is {t}: a binary float cannot hold a price exactly, so"
                " vecfix does not format floats. Store prices as integers with an exponent,"
                " as decimals, or as decimal text"
            )
        ok = (
            pa.types.is_integer(value_type)
            or pa.types.is_decimal(value_type)
            or _is_text(pa, value_type)
            or pa.types.is_null(value_type)
        )
        if not ok:
            raise DataError(
                f"column {spec.name!r} is {t}: vecfix formats integers (with --exponent),"
                " decimals and decimal text"
            )


# ---------------------------------------------------------------------------------------
# format: files
# ---------------------------------------------------------------------------------------


def file_format(path: str | os.PathLike, given: str | None = None, *, role: str = "input") -> str:
    """The format of ``path``: ``given`` if set, else inferred from its extension.

    Examples
    --------
    >>> from vecfix.cli import file_format
    >>> file_format("snap.parquet"), file_format("ticks.csv.gz"), file_format("x.feather")
    ('parquet', 'csv', 'arrow')
    >>> file_format("x.dat", "csv")
    'csv'
    """
    if given is not None:
        if given not in FORMATS:
            raise UsageError(f"unknown {role} format {given!r}: choose from {', '.join(FORMATS)}")
        return given
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in _COMPRESSIONS:
        suffixes = suffixes[:-1]
    fmt = _EXTENSIONS.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        flag = "--input-format" if role == "input" else "--output-format"
        raise UsageError(
            f"cannot tell the format of {os.fspath(path)!r} from its extension; pass"
            f" {flag} {'|'.join(FORMATS)}"
        )
    return fmt


def _compression(path: Path) -> str | None:
    return _COMPRESSIONS.get(path.suffix.lower())


class _Reader(NamedTuple):
    schema: Any
    batches: Iterator[Any]
    total: int | None  # progress units in all (rows, or bytes for CSV), None if unknown
    unit: str
    position: Callable[[], int] | None  # progress so far (bytes read), if not rows
    close: Callable[[], None]


def _open_reader(
    pa: Any,
    path: Path,
    fmt: str,
    columns: Sequence[ColumnSpec],
    batch_size: int,
    csv_infer_types: bool = False,
) -> _Reader:
    if fmt == "parquet":
        import pyarrow.parquet as pq

        f = pq.ParquetFile(path, memory_map=False, buffer_size=1 << 20)
        return _Reader(
            f.schema_arrow,
            f.iter_batches(batch_size=batch_size, use_threads=False),
            f.metadata.num_rows,
            "rows",
            None,
            f.close,
        )
    if fmt == "arrow":
        import pyarrow.ipc as ipc

        source = pa.memory_map(str(path))
        try:
            file_reader = ipc.open_file(source)
        except pa.ArrowInvalid:
            stream = ipc.open_stream(pa.memory_map(str(path)))
            return _Reader(stream.schema, iter(stream), None, "rows", None, stream.close)
        batches = (file_reader.get_batch(i) for i in range(file_reader.num_record_batches))
        return _Reader(
            file_reader.schema,
            batches,
            file_reader.count_rows(),
            "rows",
            None,
            source.close,
        )
    import pyarrow.csv as pacsv

    read_options = pacsv.ReadOptions(block_size=max(batch_size * 64, 1 << 12))

    def open_csv(types: dict) -> tuple[Any, Any]:
        raw = open(path, "rb")  # closed by _Reader.close
        stream = pa.PythonFile(raw, mode="r")
        if _compression(path):
            stream = pa.CompressedInputStream(stream, _compression(path))
        options = pacsv.ConvertOptions(column_types=types, strings_can_be_null=True)
        try:
            return raw, pacsv.open_csv(stream, read_options=read_options, convert_options=options)
        except BaseException:
            raw.close()
            raise

    # Formatted columns given an exponent are read as int64, the others as text, so that a
    # price is never parsed as a float. The other columns stay text too (their names come
    # from a first look at the header) unless asked to infer their types.
    types = {}
    if not csv_infer_types:
        raw, first = open_csv({})
        raw.close()
        types = dict.fromkeys(first.schema.names, pa.string())
    types.update({c.name: pa.int64() if c.exponent is not None else pa.string() for c in columns})
    raw, reader = open_csv(types)
    return _Reader(reader.schema, iter(reader), path.stat().st_size, "B", raw.tell, raw.close)


def _rebatch(batches: Iterator[Any], size: int) -> Iterator[Any]:
    """Batches of at most ``size`` rows (zero-copy slices of larger ones)."""
    for b in batches:
        if b.num_rows <= size:
            yield b
        else:
            for start in range(0, b.num_rows, size):
                yield b.slice(start, size)


class _Writer:
    def __init__(
        self, pa: Any, path: Path, fmt: str, schema: Any, csv_quoting: str, compression: str | None
    ) -> None:
        self.sink = None
        if fmt == "parquet":
            import pyarrow.parquet as pq

            self.writer = pq.ParquetWriter(path, schema)
        elif fmt == "arrow":
            import pyarrow.ipc as ipc

            self.sink = pa.OSFile(str(path), "wb")
            self.writer = ipc.new_file(self.sink, schema)
        else:
            import pyarrow.csv as pacsv

            self.sink = pa.output_stream(str(path), compression=compression)
            options = pacsv.WriteOptions(quoting_style=csv_quoting)
            self.writer = pacsv.CSVWriter(self.sink, schema, write_options=options)

    def write(self, batch: Any) -> None:
        self.writer.write_batch(batch)

    def close(self) -> None:
        try:
            self.writer.close()
        finally:
            if self.sink is not None:
                self.sink.close()


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
    progress: bool | None = None,
) -> FormatStats:
    """Format columns of a CSV, Parquet or Arrow IPC file into a new file, batch by batch.

    The input is read in record batches of at most ``batch_size`` rows, each batch's
    ``columns`` are formatted (:func:`format_batch`) and it is written out before the next
    is read, so memory stays bounded whatever the file's size. Other columns pass through.
    The output is written to a temporary file beside ``output`` and renamed over it at the
    end: an error leaves no half-written file.

    Parameters
    ----------
    input, output : str or path
        The files. Formats come from the extensions (``.csv``, ``.parquet``/``.pq``,
        ``.arrow``/``.feather``/``.ipc``; ``.csv.gz``, ``.csv.bz2``, ``.csv.zst`` are
        compressed CSV) unless ``input_format``/``output_format`` say.
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
    progress : bool, optional
        Show a progress bar (tqdm) on stderr. Default: when stderr is a terminal.

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
    >>> from vecfix.cli import ColumnSpec, format_file
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "in.csv").write_text("sym,px\\nESZ4,5000.125\\nZNZ4,-0.005\\n")
    >>> format_file(d / "in.csv", d / "out.csv", [ColumnSpec("px", scale=2)]).rows
    2
    >>> print((d / "out.csv").read_text(), end="")
    "sym","px"
    "ESZ4","5000.13"
    "ZNZ4","-0.01"
    """
    import pyarrow as pa

    src, dst = Path(input), Path(output)
    in_fmt = file_format(src, input_format, role="input")
    out_fmt = file_format(dst, output_format, role="output")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise UsageError(f"batch size must be a positive int, got {batch_size!r}")
    if csv_quoting not in ("needed", "none", "all_valid"):
        raise UsageError(f"csv quoting must be needed, none or all_valid, got {csv_quoting!r}")
    if not columns:
        raise UsageError("no columns to format: give at least one --column")
    if not src.is_file():
        what = "is a directory, not a file" if src.is_dir() else "does not exist"
        raise UsageError(f"input file {os.fspath(src)!r} {what}")
    if not dst.parent.is_dir():
        raise UsageError(f"the output's folder {os.fspath(dst.parent)!r} does not exist")
    if dst.exists() and dst.resolve() == src.resolve():
        raise UsageError("the output would overwrite the input: choose another output file")
    if progress is None:
        progress = sys.stderr.isatty()

    start = time.perf_counter()
    try:
        reader = _open_reader(pa, src, in_fmt, columns, batch_size, csv_infer_types)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
        raise _read_error(src, in_fmt, exc) from None
    rows = batches = 0
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.partial")
    writer = None
    bar = _progress_bar(reader, src, progress)
    try:
        _check_schema(reader.schema, columns, where=repr(os.fspath(src)))
        schema = _output_schema(pa, reader.schema, columns)
        writer = _Writer(pa, tmp, out_fmt, schema, csv_quoting, _compression(dst))
        batch_iter = _rebatch(reader.batches, batch_size)
        while True:
            try:
                batch = next(batch_iter)
            except StopIteration:
                break
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
                raise _read_error(src, in_fmt, exc) from None
            out = _format_batch(pa, batch, columns, threads, first_row=rows)
            try:
                writer.write(out)
            except pa.ArrowInvalid as exc:
                raise DataError(f"cannot write {os.fspath(dst)!r}: {exc}") from None
            rows += batch.num_rows
            batches += 1
            if bar is not None:
                bar.update((reader.position() if reader.position else rows) - bar.n)
        writer.close()
        writer = None
        os.replace(tmp, dst)
    finally:
        if bar is not None:
            bar.close()
        if writer is not None:
            try:
                writer.close()
            except Exception:
                pass  # already failing: the first error is the one to report
        tmp.unlink(missing_ok=True)
        reader.close()
    return FormatStats(rows, batches, time.perf_counter() - start)


def _read_error(src: Path, fmt: str, exc: Exception) -> DataError:
    hint = ""
    if "conversion error to int64" in str(exc):
        hint = (
            ". Columns given --exponent are read as integers; leave out --exponent to read"
            " decimal text such as 5000.25"
        )
    return DataError(f"cannot read {os.fspath(src)!r} as {fmt}: {exc}{hint}")


def _progress_bar(reader: _Reader, src: Path, show: bool) -> Any:
    if not show:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # the progress bar is optional: pip install tqdm
        return None
    return tqdm(
        total=reader.total,
        unit=reader.unit,
        unit_scale=True,
        desc=src.name,
        file=sys.stderr,
        leave=False,
        dynamic_ncols=True,
    )


# ---------------------------------------------------------------------------------------
# demo
# ---------------------------------------------------------------------------------------


def _reference_text(c: int, e: int, s: int) -> str:
    """The per-value :mod:`decimal` way (ROUND_HALF_UP is half away from zero)."""
    q = decimal.Decimal(c).scaleb(e).quantize(decimal.Decimal(1).scaleb(-s), decimal.ROUND_HALF_UP)
    text = format(q, "f")
    return text[1:] if text.startswith("-") and not q else text


def _demo(args: argparse.Namespace) -> int:
    from . import format_fixed, warmup

    ready = warmup(everything=False)  # format_fixed's kernels: the rest compile when used
    snap = sample_snapshot(args.rows, args.instruments)
    n = len(snap)
    scales = snap.scales if args.scale is None else np.int32(args.scale)
    fast = float("inf")
    for _ in range(3):  # the best of three: the machine may be busy with something else
        start = time.perf_counter()
        prices = format_fixed(snap.price_e9, PRICE_EXPONENT, scales, null=PRICENULL9)
        fast = min(fast, (time.perf_counter() - start) / n)

    # The same work, value by value, through decimal, on evenly spaced rows.
    k = min(n, args.sample)
    rows = np.unique(np.linspace(0, n - 1, k).astype(np.int64))
    coef = snap.price_e9[rows].tolist()
    row_scales = np.broadcast_to(scales, (n,))[rows].tolist()
    ctx = decimal.Context(prec=60)
    start = time.perf_counter()
    with decimal.localcontext(ctx):
        slow_text = [
            None if c == PRICENULL9 else _reference_text(c, PRICE_EXPONENT, s)
            for c, s in zip(coef, row_scales, strict=True)
        ]
    slow = (time.perf_counter() - start) / len(rows)
    mismatches = [int(r) for r, t in zip(rows, slow_text, strict=True) if prices[int(r)] != t]
    sizes = format_fixed(snap.size, 0, 0)

    nulls = int(n - snap.price_valid.sum())
    scale_text = "each at its tick's decimals" if args.scale is None else f"at scale {args.scale}"
    print(f"vecfix demo: a market-by-order snapshot, {n:,} book entries over")
    print(f"  {len(snap.symbols)} instruments (CME PRICE9 mantissas on real tick sizes,")
    print(f"  {nulls:,} null prices), formatted {scale_text}")
    print(f"  kernels ready in {ready:.2f} s (compiled, or loaded from Numba's cache)")
    print(f"  vecfix.format_fixed  {fast * 1e9:9.1f} ns/value   on all {n:,} prices (best of 3)")
    print(f"  decimal, per value   {slow * 1e9:9.1f} ns/value   on {len(rows):,} of them")
    same = "same text" if not mismatches else f"{len(mismatches)} rows DIFFER"
    print(f"  speed-up             {slow / fast:9.1f}x          {same}")
    print()
    _print_rows(snap, prices, sizes)
    status = 0
    if mismatches:
        r = mismatches[0]
        print(f"first difference, row {r}: vecfix {prices[r]!r}", file=sys.stderr)
        status = 1
    if args.fix:
        status |= _write_fix(args.fix, snap, prices, sizes, args.fix_type)
    for path, fmt in ((args.csv, "csv"), (args.parquet, "parquet")):
        if path:
            status |= _write_table(path, fmt, snap, prices, sizes)
    return status


def _print_rows(snap: Any, prices: Any, sizes: Any) -> None:
    """The best bid of a few instruments, plus a null price and a spread if there are any."""
    starts = np.concatenate([[0], np.cumsum(snap.entry_counts)[:-1]])
    picks = [int(starts[i]) for i in range(min(6, len(starts)))]
    spread = [i for i, s in enumerate(snap.symbols) if "-" in s]
    if spread:
        picks.append(int(starts[spread[0]]))
    null = np.flatnonzero(~snap.price_valid)
    if null.size:
        picks.append(int(null[0]))
    print(f"  {'symbol':<10} {'side':<5} {'price_e9':>20}  {'price':>14} {'size':>6}")
    for r in picks:
        raw = int(snap.price_e9[r])
        raw_text = "PRICENULL9" if raw == PRICENULL9 else str(raw)
        side = "bid" if snap.entry_types[r] == 0 else "offer"
        text = prices[r] if prices[r] is not None else "(null)"
        sym = snap.symbols[int(snap.instrument[r])]
        print(f"  {sym:<10} {side:<5} {raw_text:>20}  {text:>14} {sizes[r]:>6}")


def _write_fix(path: str, snap: Any, prices: Any, sizes: Any, msg_type: str = "W") -> int:
    """The demo's book as FIX 4.4: snapshots (W), MassQuote (i) or incremental refreshes (X)."""
    from . import fix

    head = fix.Header("VECFIX", "DEMO")
    when = "20241129-14:30:00.000"
    start = time.perf_counter()
    if msg_type == "i":
        msgs = _mass_quotes(fix, head, when, snap, prices, sizes)
    elif msg_type == "X":  # one refresh per instrument: its whole book as new entries
        symbols = np.array(snap.symbols)[snap.instrument]
        msgs = fix.incremental(
            0, snap.entry_types, symbols, prices, sizes, entry_counts=snap.entry_counts,
            header=head, sending_time=when,
        )  # fmt: skip
    else:
        msgs = fix.snapshots(
            snap.symbols, snap.entry_counts, snap.entry_types, prices, sizes, header=head,
            sending_time=when,
        )  # fmt: skip
    built = time.perf_counter() - start
    try:
        msgs.write(path)
    except OSError as exc:
        print(f"vecfix demo: cannot write {path!r}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(
        f"\nwrote {len(msgs):,} FIX 4.4 35={msg_type} messages ({msgs.nbytes:,} bytes) to {path}"
        f" (built in {built * 1e3:.1f} ms)"
    )
    return 0


def _mass_quotes(fix: Any, head: Any, when: str, snap: Any, prices: Any, sizes: Any) -> Any:
    """The k-th bid and the k-th offer of an instrument as one two-sided quote entry; one
    quote set per instrument; entries with no price on either side are left out."""
    from ._result import Formatted

    inst, side = snap.instrument, snap.entry_types
    first = np.concatenate([[0], np.cumsum(snap.entry_counts)[:-1]])
    n_inst = len(snap.symbols)
    n_bids = np.bincount(inst[side == 0], minlength=n_inst)
    n_offers = np.bincount(inst[side == 1], minlength=n_inst)
    per_inst = np.maximum(n_bids, n_offers)
    entry_first = np.concatenate([[0], np.cumsum(per_inst)[:-1]])
    level = np.arange(len(snap)) - first[inst] - np.where(side == 1, n_bids[inst], 0)
    entry = entry_first[inst] + level
    rows = np.full((2, int(per_inst.sum())), -1, dtype=np.int64)  # bid row, offer row
    rows[side, entry] = np.arange(len(snap))
    cols = []
    for r in rows:
        for values in (prices, sizes):
            taken = values[np.maximum(r, 0)]
            ok = (r >= 0) & (np.ones(len(r), bool) if taken.valid is None else taken.valid)
            cols.append(Formatted(taken.matrix, taken.lengths, ok))
    (bid_px, bid_sz, offer_px, offer_sz) = cols
    keep = np.flatnonzero(bid_px.valid | offer_px.valid)
    entry_inst = np.repeat(np.arange(n_inst), per_inst)[keep]
    set_counts = np.bincount(entry_inst, minlength=n_inst)
    return fix.mass_quotes(
        np.array(snap.symbols)[entry_inst], bid_px[keep], offer_px[keep], bid_sz[keep],
        offer_sz[keep], set_counts=set_counts[set_counts > 0], max_entries=100, header=head,
        sending_time=when,
    )  # fmt: skip


def _snapshot_table(snap: Any, prices: Any, sizes: Any) -> Any:
    import pyarrow as pa

    symbols = pa.array(snap.symbols, pa.string()).take(pa.array(snap.instrument))
    side = pa.array(np.array(["bid", "offer"])[snap.entry_types])
    raw = pa.array(snap.price_e9, mask=~snap.price_valid)
    return pa.table(
        {
            "symbol": symbols,
            "side": side,
            "price_e9": raw,
            "price": prices.to_arrow(large=False),
            "size": sizes.to_arrow(large=False),
        }
    )


def _write_table(path: str, fmt: str, snap: Any, prices: Any, sizes: Any) -> int:
    table = _snapshot_table(snap, prices, sizes)
    try:
        if fmt == "csv":
            import pyarrow.csv as pacsv

            pacsv.write_csv(table, path)
        else:
            import pyarrow.parquet as pq

            pq.write_table(table, path)
    except OSError as exc:
        print(f"vecfix demo: cannot write {path!r}: {exc}", file=sys.stderr)
        return 1
    print(f"wrote the formatted table ({table.num_rows:,} rows, {fmt}) to {path}")
    return 0


# ---------------------------------------------------------------------------------------
# the parser
# ---------------------------------------------------------------------------------------


def _int_arg(name: str, lo: int = _INT32[0], hi: int = _INT32[1]) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{name} must be between {lo} and {hi}, got {value}")
        return value

    parse.__name__ = name
    return parse


class _ColumnAction(argparse.Action):
    """``--column NAME`` starts a column; the options after it (until the next) are its own.

    Options given before the first ``--column`` are defaults for every column.
    """

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[override]
        specs = getattr(namespace, "column_specs", None) or []
        if self.dest == "column":
            specs.append({"name": values})
        elif specs:
            if self.dest == "null":
                specs[-1].setdefault("null", []).append(values)
            else:
                specs[-1][self.dest] = values
        else:
            defaults = dict(getattr(namespace, "column_defaults", None) or {})
            if self.dest == "null":
                defaults.setdefault("null", []).append(values)
            else:
                defaults[self.dest] = values
            namespace.column_defaults = defaults
        namespace.column_specs = specs


def _column_specs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[ColumnSpec]:
    defaults = getattr(args, "column_defaults", None) or {}
    specs = []
    for raw in getattr(args, "column_specs", None) or []:
        merged = {**defaults, **raw}
        if "scale" not in merged:
            parser.error(
                f"column {merged['name']!r} has no --scale (the decimal places to print):"
                f" --column {merged['name']} --scale 2"
            )
        specs.append(
            ColumnSpec(
                merged["name"],
                merged["scale"],
                merged.get("exponent"),
                tuple(merged.get("null", ())),
            )
        )
    if not specs:
        parser.error("give at least one --column NAME --scale S [--exponent E]")
    return specs


FORMAT_EPILOG = """\
Each --scale, --exponent and --null applies to the --column before it; given before the
first --column, it applies to every column that does not set its own. Integer columns need
--exponent (the power of ten of their values); decimal columns (Arrow decimals, decimal text
such as a CSV's "5000.25") carry their own and take none.

examples:
  vecfix format snapshot.parquet -o prices.csv --column price_e9 --exponent -9 --scale 2
  vecfix format quotes.csv -o quotes.parquet --scale 5 --column bid --column ask
"""


def build_parser() -> argparse.ArgumentParser:
    """The ``vecfix`` argument parser, with one sub-parser per command (``demo``, ``format``).

    Examples
    --------
    >>> from vecfix.cli import build_parser
    >>> args = build_parser().parse_args(
    ...     ["format", "in.csv", "-o", "out.csv", "--column", "px", "--scale", "2"]
    ... )
    >>> args.command, args.column_specs
    ('format', [{'name': 'px', 'scale': 2}])
    """
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="vecfix",
        description="Format prices and quantities in bulk, exactly as FIX engines print them.",
    )
    parser.add_argument("--version", action="version", version=f"vecfix {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser(
        "demo",
        help="format a built-in market-data snapshot and compare with decimal",
        description="Format a deterministic sample market-data snapshot (no files needed),"
        " time it against a per-value decimal loop, and optionally write it out.",
    )
    demo.add_argument(
        "--rows", type=_int_arg("--rows", 1, 10**9), default=1_000_000, help="book entries"
    )
    demo.add_argument(
        "--instruments", type=_int_arg("--instruments", 1, 432), default=300, help="instruments"
    )
    demo.add_argument(
        "--scale",
        type=_int_arg("--scale", -30, 30),
        default=None,
        help="decimal places for every price (default: each instrument's tick decimals)",
    )
    demo.add_argument(
        "--sample",
        type=_int_arg("--sample", 1, 10**7),
        default=20_000,
        help="rows timed through the decimal loop (default 20,000)",
    )
    demo.add_argument(
        "--fix", metavar="OUT", help="write the book as FIX 4.4 messages (--fix-type)"
    )
    demo.add_argument(
        "--fix-type",
        choices=("W", "i", "X"),
        default="W",
        help="with --fix: W snapshots (one per symbol, the default), i MassQuote (bids and"
        " offers paired into quotes, 100 a message), X one incremental refresh per symbol",
    )
    demo.add_argument("--csv", metavar="OUT", help="write the formatted table as CSV")
    demo.add_argument("--parquet", metavar="OUT", help="write the formatted table as Parquet")
    demo.set_defaults(run=_demo)

    fmt = sub.add_parser(
        "format",
        help="format columns of a CSV, Parquet or Arrow file",
        description="Format columns of a CSV, Parquet or Arrow IPC file into a new file,"
        " streaming it in record batches; formatted columns are written as text.",
        epilog=FORMAT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fmt.add_argument("input", help="input file (.csv[.gz], .parquet, .arrow/.feather)")
    fmt.add_argument("-o", "--output", required=True, help="output file (format from extension)")
    fmt.add_argument("--column", action=_ColumnAction, metavar="COL", help="a column to format")
    fmt.add_argument(
        "--scale", action=_ColumnAction, type=_int_arg("--scale"), metavar="S",
        help="decimal places to print (negative rounds to tens, hundreds...)",
    )  # fmt: skip
    fmt.add_argument(
        "--exponent", action=_ColumnAction, type=_int_arg("--exponent"), metavar="E",
        help="power of ten of an integer column's values (-9 for PRICE9)",
    )  # fmt: skip
    fmt.add_argument(
        "--null", action=_ColumnAction, type=_int_arg("--null", -(2**63), 2**63 - 1),
        metavar="N", help="a sentinel value that means null (e.g. 9223372036854775807)",
    )  # fmt: skip
    fmt.add_argument("--input-format", choices=FORMATS, help="override the input's extension")
    fmt.add_argument("--output-format", choices=FORMATS, help="override the output's extension")
    fmt.add_argument(
        "--batch-size",
        type=_int_arg("--batch-size", 1, 2**31 - 1),
        default=DEFAULT_BATCH_SIZE,
        help=f"rows per batch (default {DEFAULT_BATCH_SIZE:,})",
    )
    fmt.add_argument(
        "--threads", type=_int_arg("--threads", 1, 1024), default=1, help="formatting threads"
    )
    fmt.add_argument(
        "--csv-quoting",
        choices=("needed", "none", "all_valid"),
        default="needed",
        help="CSV output: quote text values (needed, the default), never (none), or all",
    )
    fmt.add_argument(
        "--csv-infer-types",
        action="store_true",
        help="CSV input: infer the types of the other columns (default: keep their text)",
    )
    fmt.add_argument(
        "--dask",
        nargs="?",
        const="local",
        default=None,
        metavar="SCHEDULER_ADDRESS",
        help="run a partitioned Parquet dataset (file or directory) on a Dask cluster: the"
        " scheduler at SCHEDULER_ADDRESS, or a loopback-only local one when none is given"
        " (needs vecfix[dask])",
    )
    fmt.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    fmt.set_defaults(run=_format_command, subparser=fmt)
    return parser


def _format_command(args: argparse.Namespace) -> int:
    specs = _column_specs(args, args.subparser)
    if args.dask is not None:
        return _format_on_dask(args, specs)
    stats = format_file(
        args.input,
        args.output,
        specs,
        input_format=args.input_format,
        output_format=args.output_format,
        batch_size=args.batch_size,
        threads=args.threads,
        csv_quoting=args.csv_quoting,
        csv_infer_types=args.csv_infer_types,
        progress=False if args.quiet else None,
    )
    _report(args, specs, f"{stats.rows:,} rows in {stats.batches:,} batches", stats.seconds)
    return 0


def _report(args: argparse.Namespace, specs: list[ColumnSpec], done: str, seconds: float) -> None:
    """``vecfix format``'s one-line summary on stderr (none with ``--quiet``)."""
    if not args.quiet:
        command = "vecfix format" if args.dask is None else "vecfix format --dask"
        names = ", ".join(s.name for s in specs)
        print(
            f"{command}: {done}, formatted {names}, wrote {args.output} in {seconds:.2f} s",
            file=sys.stderr,
        )


def _format_on_dask(args: argparse.Namespace, specs: list[ColumnSpec]) -> int:
    """``vecfix format --dask``: Parquet dataset in, Parquet dataset out, on a Dask cluster."""
    if not os.path.exists(args.input):
        raise UsageError(f"input {args.input!r} does not exist")
    for path, given in ((args.input, args.input_format), (args.output, args.output_format)):
        is_dataset = os.path.isdir(path) or os.path.splitext(path)[1].lower() in ("", ".parquet")
        if (given or ("parquet" if is_dataset else "")) != "parquet":
            raise UsageError(f"--dask reads and writes Parquet datasets; {path!r} is not one")
    try:
        from . import dask as vdask
    except ImportError as exc:
        raise UsageError(str(exc)) from None
    columns = {
        s.name: {"scale": s.scale}
        | ({} if s.exponent is None else {"exponent": s.exponent})
        | ({"null": list(s.null)} if s.null else {})
        for s in specs
    }
    start = time.perf_counter()
    try:
        partitions = vdask.format_parquet(
            args.input, args.output, columns, scheduler=None if args.dask == "local" else args.dask
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(str(exc)) from None
    _report(args, specs, f"{partitions:,} partitions", time.perf_counter() - start)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 data error, 2 usage error).

    Errors a person can fix (a missing file, an unknown column, a bad option) are printed
    as one line on stderr, without a traceback.

    Examples
    --------
    >>> from vecfix.cli import main
    >>> main(["format", "no-such-file.csv", "-o", "out.csv", "--column", "px", "--scale", "2"])
    2
    """
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (UsageError, DataError) as exc:
        print(f"vecfix {args.command}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"vecfix {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
