"""``vecfix read-fix LOG... -o OUT``: FIX logs into a Parquet, CSV or Arrow IPC file.

Each log is read by :func:`vecfix.fix.read` (``|`` or SOH, line prefixes kept, every
message checked); the tables are joined and written as ``vecfix format`` writes its
output (the format from the extension, polars' writers, a temporary file renamed over
the output once it is whole): :func:`write`, the one place this command writes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from ._files_io import FORMATS, STDIO, DataError, UsageError, file_format

EPILOG = """\
Each LOG is a file of FIX messages (one a line, or back to back; fields ended by SOH or
"|", found per log; text before 8=FIX on a line kept in a column "prefix"), or - for
standard input. One row per market-data entry (35=W/X), quote (35=i) or other message;
columns msg, offset, valid, prefix, then one per tag, typed by the FIX version of the
messages (4.2, 4.4 or 5.0 SP2). With several logs, a first column "log" names each row's.
Messages that are not valid are kept (valid false) and counted in a warning; --strict
stops at the first instead (exit status 1).

examples:
  vecfix read-fix engine.log -o engine.parquet
  vecfix read-fix day1.log day2.log -o fills.csv --names --tags Symbol,LastPx,LastQty
  zcat fix.log.gz | vecfix read-fix - -o - --strict
"""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``read-fix`` sub-parser (``sub``: the ``vecfix`` parser's sub-parsers)."""
    cmd = sub.add_parser(
        "read-fix",
        help="read FIX logs into a Parquet, CSV or Arrow file",
        description="Read FIX tag=value logs into one table (vecfix.fix.read), written as"
        " vecfix format writes its output.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = cmd.add_argument
    add("logs", nargs="+", metavar="LOG", help="a FIX log, or - for standard input")
    add("-o", "--output", required=True,
        help="output file (.parquet, .csv, .arrow/.feather; format from the extension), or -"
        " for standard output (CSV unless --output-format says)")  # fmt: skip
    add("--output-format", choices=FORMATS, help="override the output's extension")
    add("--tags", metavar="TAG,...",
        help="the tags to read, in this order, by number or FIX name (e.g. 55,LastPx,32);"
        " default: every tag seen")  # fmt: skip
    add("--names", action="store_true", help="name the columns by FIX name (LastPx), not number")
    add("--strict", action="store_true", help="stop at the first message that is not valid")
    add("-q", "--quiet", action="store_true", help="no progress line, no summary line")
    cmd.set_defaults(run=run, subparser=cmd)
    return cmd


def run(args: argparse.Namespace) -> int:
    """Run ``vecfix read-fix``; returns the exit status."""
    import numpy as np

    import vecfix.fix as fix
    from vecfix.fix._read_types import check_tags

    start = time.perf_counter()
    out_fmt = file_format(args.output, args.output_format, role="output")
    try:
        tags = check_tags([t.strip() for t in args.tags.split(",")] if args.tags else None)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"--{exc}") from None
    if args.logs.count(STDIO) > 1:
        raise UsageError("standard input (-) can be read once")
    for log in args.logs:
        if log != STDIO and not Path(log).is_file():
            what = "is a directory, not a file" if Path(log).is_dir() else "does not exist"
            raise UsageError(f"input {log!r} {what}")
        if log != STDIO and args.output != STDIO and os.path.exists(args.output):
            if os.path.samefile(log, args.output):
                raise UsageError("the output would overwrite the input: choose another output file")
    show = not args.quiet and sys.stderr.isatty()
    tables, messages, bad = [], 0, 0
    for k, log in enumerate(args.logs):
        if show:
            line = f"vecfix read-fix: reading {log} ({k + 1} of {len(args.logs)})"
            sys.stderr.write(f"\r{line}\x1b[K")
            sys.stderr.flush()
        source = sys.stdin.buffer.read() if log == STDIO else log
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                table = fix.read(
                    source, tags=tags, strict=args.strict, names="name" if args.names else "tag"
                )
            except (TypeError, ValueError) as exc:  # (--strict's first message not valid)
                text = str(exc).replace("(strict=False ", "(without --strict, vecfix read-fix ")
                raise DataError(f"{'stdin' if log == STDIO else log}: {text}") from None
        for w in caught:
            text = str(w.message).removeprefix("vecfix.fix.read: ")
            print(f"vecfix read-fix: warning: {log}: {text}", file=sys.stderr)
        msg = table.column("msg").to_numpy()
        messages += int(msg[-1]) + 1 if len(msg) else 0
        bad += np.unique(msg[~table.column("valid").to_numpy(zero_copy_only=False)]).size
        tables.append(table)
    if show:
        sys.stderr.write("\r\x1b[K")
    table = _joined(tables, args.logs)
    write(table, args.output, out_fmt, args.logs[0])
    if not args.quiet:
        output = "standard output" if args.output == STDIO else args.output
        print(
            f"vecfix read-fix: {table.num_rows:,} rows from {messages:,} messages"
            f" ({bad:,} not valid), wrote {output} in {time.perf_counter() - start:.2f} s",
            file=sys.stderr,
        )
    return 0


def _joined(tables: list[Any], logs: list[str]) -> Any:
    """One table of the logs' tables (a first column ``log`` when there are several): a
    column's types promoted where they differ (decimal scales, timestamp units), text
    where they cannot be (a tag typed by FIX 4.4 in one log and 5.0 SP2 in another)."""
    import pyarrow as pa

    if len(tables) == 1:
        return _writable(tables[0])
    tables = [
        t.add_column(0, "log", pa.array([log] * t.num_rows, pa.string()))
        for t, log in zip(tables, logs, strict=True)
    ]
    try:
        return _writable(pa.concat_tables(tables, promote_options="permissive"))
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        kinds: dict[str, set[str]] = {}
        for t in tables:
            for f in t.schema:
                kinds.setdefault(f.name, set()).add(_kind(pa, f.type))
        text = {name for name, seen in kinds.items() if len(seen) > 1}
        tables = [
            t.cast(pa.schema([f.with_type(pa.string()) if f.name in text else f for f in t.schema]))
            for t in tables
        ]
        return _writable(pa.concat_tables(tables, promote_options="permissive"))


def _kind(pa: Any, typ: Any) -> str:
    """What Arrow can promote a type within: decimals, timestamps, the rest by type."""
    if pa.types.is_decimal(typ):
        return "decimal"
    return "timestamp" if pa.types.is_timestamp(typ) else str(typ)


def _writable(table: Any) -> Any:
    """``decimal256`` columns (values of 39 to 76 digits) as their exact text: polars,
    which writes every output, holds decimals of 38 digits at most."""
    import pyarrow as pa

    wide = [f.name for f in table.schema if pa.types.is_decimal256(f.type)]
    for name in wide:
        i = table.schema.get_field_index(name)
        table = table.set_column(i, name, table.column(name).cast(pa.string()))
    return table


def write(table: Any, output: str, fmt: str, source: str) -> None:
    """Write ``table`` to ``output`` as ``vecfix format`` writes its output."""
    from . import _files_io as fio

    pl = fio.polars()
    with fio.Destination(output, source, fmt) as dst:
        dst.sink(pl.from_arrow(table).lazy(), "necessary", None, True)
