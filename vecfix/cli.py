"""The ``vecfix`` command line (also ``python -m vecfix``): ``vecfix demo``
(:mod:`vecfix._demo`) and ``vecfix format``, whose work is :mod:`vecfix.files`.

Only the standard library is imported at start-up (``vecfix --help`` is quick). Exit
status: 0 on success, 1 when the data does not fit the command (an unknown column, text
that is not a decimal), 2 when the command line itself is wrong (a missing input file, a
bad scale, an unknown file format).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ._limits import INT32_MAX, INT32_MIN, INT64_MIN, UINT64_MAX
from .files import (  # (format_file and the rest also here, their old home)
    _QUOTING_ALIASES,
    BAD_ROWS,
    COMPRESSIONS,
    CSV_QUOTING,
    FORMATS,
    STDIO,
    ColumnSpec,
    DataError,
    FormatStats,
    UsageError,
    file_format,
    format_batch,
    format_file,
)

__all__ = [
    "ColumnSpec",
    "DataError",
    "FormatStats",
    "UsageError",
    "build_parser",
    "file_format",
    "format_batch",
    "format_file",
    "main",
]


def _int_arg(name: str, lo: int = INT32_MIN, hi: int = INT32_MAX) -> Callable[[str], int]:
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
    Options given before the first ``--column`` are defaults for every column."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        specs = namespace.column_specs = getattr(namespace, "column_specs", None) or []
        if self.dest == "column":
            specs.append({"name": values})
            return
        if specs:
            options = specs[-1]
        elif self.dest == "output_name":
            parser.error(f"{option_string} names one column: give it after its --column")
        else:
            options = namespace.column_defaults = getattr(namespace, "column_defaults", None) or {}
        if self.dest == "null":
            options.setdefault("null", []).append(values)
        else:
            options[self.dest] = values


_SCALE_OPTIONS = ("scale", "scale_column", "scales_by")


def _scales_by_arg(text: str) -> tuple[str, str]:
    column, sep, path = text.partition("=")
    if not sep or not column or not path:
        raise argparse.ArgumentTypeError(
            f"--scales-by takes SYMBOL_COLUMN=FILE (a CSV or JSON symbol -> decimals map),"
            f" got {text!r}"
        )
    return column, path


def _column_specs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[ColumnSpec]:
    """The ``--column`` groups as :class:`ColumnSpec` s: each column's own options, else
    the defaults given before the first ``--column`` (a column's own scale option replaces
    all the defaults' ones)."""
    from ._number_format import NumberFormat
    from .files import read_scale_map

    defaults = getattr(args, "column_defaults", None) or {}
    maps: dict[str, dict[str, int]] = {}
    specs = []
    for raw in getattr(args, "column_specs", None) or []:
        own_scale = any(k in raw for k in _SCALE_OPTIONS)
        merged = {k: v for k, v in defaults.items() if not (own_scale and k in _SCALE_OPTIONS)}
        merged.update(raw)
        if "scale_column" in merged and "scale" in merged:
            parser.error(f"column {merged['name']!r}: give --scale or --scale-column, not both")
        scales_by = None
        if "scales_by" in merged:
            by, path = merged["scales_by"]
            if path not in maps:
                maps[path] = read_scale_map(path)
            scales_by = (by, maps[path])
        scale = merged.get("scale_column", merged.get("scale"))
        fmt = NumberFormat(merged.get("exponent"), scale, merged.get("null"))
        specs.append(ColumnSpec(merged["name"], fmt, merged.get("output_name"), scales_by))
    if not specs:
        parser.error("give at least one --column NAME --scale S [--exponent E]")
    return specs


FORMAT_EPILOG = """\
Each --scale, --scale-column, --scales-by, --exponent and --null applies to the --column
before it; given before the first --column, it applies to every column that does not set its
own. --as names the formatted column of the --column before it (after it only). Integer
columns need --exponent (the power of ten of their values); decimal columns (Arrow decimals,
decimal text such as a CSV's "5000.25") carry their own and take none. "-" as the input or
the output is standard input or output (CSV unless --input-format / --output-format say
otherwise).

The job is one polars lazy query (scan, vecfix's expression, sink) on polars' streaming
engine: memory stays bounded. Standard input, a named pipe and a CSV compressed with bz2 or
lz4 cannot be streamed by polars: they are first copied (decompressed) into a temporary
file ($TMPDIR). An existing output file is replaced only when the job succeeds (written
beside it, flushed to disk, renamed over it). A row that cannot be formatted stops the job,
named by its row in the file; with --bad-rows null it is written as null, and counted on
stderr with the first few. A progress line (rows done of the total) shows on stderr when it
is a terminal; -q turns it and the summary line off.

examples:
  vecfix format snapshot.parquet -o prices.csv --column price_e9 --exponent -9 --scale 2
  vecfix format quotes.csv -o quotes.parquet --scale 5 --column bid --column ask
  vecfix format book.parquet -o - --column px --exponent -9 --scales-by symbol=ticks.json
  cat ticks.csv | vecfix format - -o - --column px --scale-column decimals --as price
"""


_USAGE = {"vecfix format": "vecfix format INPUT -o OUTPUT --column COL --scale S [...]"}


def _error_text(command: str, message: str) -> str:
    """An error as ``vecfix`` prints it: its first line, then the details indented.

    >>> print(_error_text("vecfix format", "no column 'px'\\nIts columns are: bid, ask"))
    vecfix format: error: no column 'px'
      Its columns are: bid, ask
    """
    first, *details = message.split("\n")
    return "\n".join([f"{command}: error: {first}", *(f"  {d}" for d in details if d)])


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors in a command are as vecfix's own (:func:`_error_text`),
    with the command's short usage rather than the usage block."""

    def error(self, message: str) -> NoReturn:
        if " " not in self.prog:  # no command chosen: the usage says what there is
            super().error(message)
        usage = _USAGE.get(self.prog, self.prog)
        text = _error_text(self.prog, f"{message}\nusage: {usage} (see {self.prog} --help)")
        self.exit(2, text + "\n")

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        """As argparse's, but an unknown argument of a command is that command's error."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            import difflib

            command = getattr(parsed, "subparser", self)
            known = [o for a in command._actions for o in a.option_strings]
            close = difflib.get_close_matches(extra[0].partition("=")[0], known, n=1)
            hint = f"; did you mean {close[0]}?" if close and extra[0].startswith("-") else ""
            command.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
        return parsed


class _Gone(argparse.Action):
    """An option ``vecfix format`` had, refused with why it went."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        parser.error(f"{option} is gone: {self.const}")


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

    parser = _Parser(
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
    add = demo.add_argument
    # fmt: off
    add("--rows", type=_int_arg("--rows", 1, 10**9), default=1_000_000, help="book entries")
    add("--instruments", type=_int_arg("--instruments", 1, 432), default=300, help="instruments")
    add("--scale", type=_int_arg("--scale", -30, 30), default=None,
        help="decimal places for every price (default: each instrument's tick decimals)")
    add("--sample", type=_int_arg("--sample", 1, 10**7), default=20_000,
        help="rows timed through the decimal loop (default 20,000)")
    add("--fix", metavar="OUT", help="write the book as FIX 4.4 messages (--fix-type)")
    add("--fix-type", choices=("W", "i", "X"), default="W",
        help="with --fix: W snapshots (one per symbol, the default), i MassQuote (bids and"
        " offers paired into quotes, 100 a message), X one incremental refresh per symbol")
    add("--csv", metavar="OUT", help="write the formatted table as CSV")
    add("--parquet", metavar="OUT", help="write the formatted table as Parquet")
    # fmt: on
    demo.set_defaults(run=_run_demo)

    fmt = sub.add_parser(
        "format",
        help="format columns of a CSV, Parquet or Arrow file",
        description="Format columns of a CSV, Parquet or Arrow IPC file into a new file,"
        " as one polars lazy query streamed in batches; formatted columns are written as"
        " text.",
        epilog=FORMAT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = fmt.add_argument
    # fmt: off
    add("input", help="input file (.csv[.gz], .parquet, .arrow/.feather), or - for stdin")
    add("-o", "--output", required=True,
        help="output file (format from extension), or - for stdout; a named pipe or device"
        " is written to directly")
    add("--column", action=_ColumnAction, metavar="COL", help="a column to format")
    add("--scale", action=_ColumnAction, type=_int_arg("--scale"), metavar="S",
        help="decimal places to print (negative rounds to tens, hundreds...)")
    add("--scale-column", action=_ColumnAction, metavar="COL",
        help="an integer column holding each row's decimal places")
    add("--scales-by", action=_ColumnAction, type=_scales_by_arg, metavar="SYMBOL_COL=FILE",
        help="each row's decimal places looked up by its symbol in a CSV (symbol,decimals) or"
        " JSON ({symbol: decimals}) file; --scale, if given, is the scale of symbols not in it")
    add("--as", action=_ColumnAction, dest="output_name", metavar="NAME",
        help="write the text as a new column NAME after the column, keeping the raw one")
    add("--exponent", action=_ColumnAction, type=_int_arg("--exponent"), metavar="E",
        help="power of ten of an integer column's values (-9 for PRICE9)")
    add("--null", action=_ColumnAction, type=_int_arg("--null", INT64_MIN, UINT64_MAX),
        metavar="N", help="a sentinel value that means null (e.g. 9223372036854775807;"
        " up to 18446744073709551615 for a uint64 column)")
    add("--input-format", choices=FORMATS, help="override the input's extension")
    add("--output-format", choices=FORMATS, help="override the output's extension")
    add("--compression", choices=COMPRESSIONS, default=None,
        help="Parquet output's codec (default snappy; none writes fastest, zstd smallest)")
    for gone, why in (
        ("--engine", "polars writes every format"),
        ("--batch-size", "polars' streaming engine sizes the batches"),
        ("--threads", "polars runs the batches on its threads (POLARS_MAX_THREADS)"),
    ):
        add(gone, action=_Gone, nargs="?", const=why, help=argparse.SUPPRESS)
    add("--csv-quoting", choices=(*CSV_QUOTING, *_QUOTING_ALIASES), default="necessary",
        metavar="{" + ",".join(CSV_QUOTING) + "}",
        help="CSV output: quote a field where it must be (necessary, the default, as polars,"
        " pandas and DuckDB write), every text field (non_numeric), every field (always) or"
        " none (never: refused where a value needs quotes); pyarrow's names needed,"
        " all_valid and none are taken too")
    add("--csv-infer-types", action="store_true",
        help="CSV input: infer the types of the other columns (default: keep their text)")
    add("--csv-null", action="append", default=[], metavar="TEXT",
        help="CSV input: read cells holding TEXT as null, besides empty cells (repeat it for"
        " more, e.g. --csv-null NA --csv-null NULL; by default such text stays text)")
    add("--bad-rows", choices=BAD_ROWS, default="error",
        help="a row that cannot be formatted (text that is no decimal, a scale out of range, a"
        " symbol not in the scale map): stop with an error naming it (error, the default), or"
        " write that field as null and carry on, counting them on stderr (null)")
    add("--dask", nargs="?", const="local", default=None, metavar="SCHEDULER_ADDRESS",
        help="run a partitioned Parquet dataset (file or directory) on a Dask cluster: the"
        " scheduler at SCHEDULER_ADDRESS, or a loopback-only local one when none is given"
        " (needs vecfix[dask])")
    add("-q", "--quiet", action="store_true", help="no progress line, no summary line")
    # fmt: on
    fmt.set_defaults(run=_format_command, subparser=fmt)
    from ._read_fix_cli import add_parser as add_read_fix  # vecfix read-fix

    add_read_fix(sub)
    return parser


def _run_demo(args: argparse.Namespace) -> int:
    from ._demo import demo

    return demo(args)


def _format_command(args: argparse.Namespace) -> int:
    specs = _column_specs(args, args.subparser)
    if args.dask is not None:
        return _format_on_dask(args, specs)
    _compile_if_cold(args.quiet)
    stats = format_file(
        args.input,
        args.output,
        specs,
        input_format=args.input_format,
        output_format=args.output_format,
        csv_quoting=args.csv_quoting,
        csv_infer_types=args.csv_infer_types,
        csv_nulls=("", *args.csv_null),
        compression=args.compression,
        bad_rows=args.bad_rows,
        progress=False if args.quiet else None,
        on_warning=lambda text: print(f"vecfix format: warning: {text}", file=sys.stderr),
    )
    _report(args, specs, f"{stats.rows:,} row{'s' * (stats.rows != 1)}", stats.seconds)
    return 0


def _compile_if_cold(quiet: bool) -> None:
    """The first run on a machine starts the kernels' compile in a background process (once,
    into Numba's cache) and says so; this run formats in plain Python until they are ready."""
    from . import _engine

    if _engine.cold() and _engine.compiling() and not quiet:
        print(
            "vecfix: first run on this machine: the kernels compile into Numba's cache in a"
            " background process (once); small work runs in plain Python meanwhile",
            file=sys.stderr,
            flush=True,
        )


def _report(args: argparse.Namespace, specs: list[ColumnSpec], done: str, seconds: float) -> None:
    """``vecfix format``'s one-line summary on stderr (none with ``--quiet``)."""
    if not args.quiet:
        command = "vecfix format" if args.dask is None else "vecfix format --dask"
        names = ", ".join(s.name for s in specs)
        output = "standard output" if args.output == STDIO else args.output
        text = f"{command}: {done}, formatted {names}, wrote {output} in {seconds:.2f} s"
        print(text, file=sys.stderr)


def _format_on_dask(args: argparse.Namespace, specs: list[ColumnSpec]) -> int:
    """``vecfix format --dask``: Parquet dataset in, Parquet dataset out, on a Dask cluster."""
    for s in specs:
        if s.format.per_row or s.scales_by is not None or s.output_name is not None:
            raise UsageError(
                f"column {s.name!r}: --dask takes one --scale per column (no --scale-column,"
                " --scales-by or --as)"
            )
    if args.bad_rows != "error":
        raise UsageError("--dask stops at a row that cannot be formatted: no --bad-rows null")
    if not os.path.exists(args.input):
        raise UsageError(f"input {args.input!r} does not exist")
    for path, given in ((args.input, args.input_format), (args.output, args.output_format)):
        fmt = given  # a folder (or a name without an extension) is a dataset
        if fmt is None and (os.path.isdir(path) or not os.path.splitext(path)[1]):
            fmt = "parquet"
        with contextlib.suppress(UsageError):  # (the extensions file_format knows)
            fmt = fmt or file_format(path)
        if fmt != "parquet":
            raise UsageError(f"--dask reads and writes Parquet datasets; {path!r} is not one")
    try:
        from . import dask as vdask
    except ImportError as exc:
        raise UsageError(str(exc)) from None
    columns = {s.name: s.format for s in specs}
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
    Errors a person can fix are printed on stderr without a traceback (:func:`_error_text`).

    Examples
    --------
    >>> from vecfix.cli import main
    >>> main(["format", "no-such-file.csv", "-o", "out.csv", "--column", "px", "--scale", "2"])
    2
    """
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
        sys.stdout.flush()  # a reader gone away is met here, not at exit (a second error)
        return status
    except (UsageError, DataError) as exc:
        print(_error_text(f"vecfix {args.command}", str(exc)), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"vecfix {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``vecfix format ... -o - | head``)
        # as https://docs.python.org/3/library/signal.html#note-on-sigpipe advises
        devnull = os.open(os.devnull, os.O_WRONLY)  # no second error when Python flushes
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a shell reports a command killed by it


if __name__ == "__main__":
    sys.exit(main())
