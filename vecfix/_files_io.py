"""Where ``vecfix format``'s files come from and go to (the polars scan and sink, temporary
copies where polars cannot stream), what is checked before any data is read, the progress
line, and the messages of errors polars raises. :mod:`vecfix.files` builds the query."""

from __future__ import annotations

import contextlib
import csv
import difflib
import io
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._number_format import NumberFormat

FORMATS = ("csv", "parquet", "arrow")
"""The file formats ``vecfix format`` reads and writes."""

STDIO = "-"
"""The path that means standard input (as the input) or standard output (as the output)."""

COMPRESSIONS = ("snappy", "zstd", "lz4", "gzip", "brotli", "none")
"""Parquet output's codecs (``"none"``: uncompressed)."""

ROW_GROUP_SIZE = 1 << 20
"""Rows per Parquet row group :func:`format_file` writes."""

_EXTENSIONS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".arrow": "arrow",
               ".feather": "arrow", ".ipc": "arrow"}  # fmt: skip
_CODECS = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4"}
#: The first bytes of gzip, bz2, zstd and lz4 (frame) streams.
_MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\x28\xb5\x2f\xfd": "zstd",
          b"\x04\x22\x4d\x18": "lz4"}  # fmt: skip
_CHUNK = 1 << 20


class UsageError(ValueError):
    """The command (or call) is wrong whatever the data: exit status 2."""

    exit_code = 2


class DataError(ValueError):
    """The command does not fit the data (columns, types, values): exit status 1."""

    exit_code = 1


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
                check_scale(v, f"{owner}, scale of symbol {symbol!r}")
        elif scale is None:
            raise UsageError(
                f"{owner} has no scale (the decimal places to print): give --scale,"
                " --scale-column or --scales-by"
            )

    @property
    def target(self) -> str:
        """The name of the formatted column in the output."""
        return self.output_name or self.name


def polars() -> Any:
    try:
        import polars as pl

        import vecfix.polars  # noqa: F401  (the namespace)
    except ImportError as exc:
        raise UsageError(f"vecfix format needs polars: pip install 'vecfix[cli]' ({exc})") from None
    return pl


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
    if suffixes and suffixes[-1] in _CODECS:
        suffixes = suffixes[:-1]
    fmt = _EXTENSIONS.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        flag = "--input-format" if role == "input" else "--output-format"
        raise UsageError(
            f"cannot tell the format of {os.fspath(path)!r} from its extension; pass"
            f" {flag} {'|'.join(FORMATS)}"
        )
    return fmt


def check_scale(v: object, where: str) -> int:
    """``v`` as a scale (an int within int32, NumPy's too: the rule of
    :func:`vecfix.columns.rules.as_int32`), else :class:`UsageError` saying ``where``."""
    from .columns.rules import as_int32

    try:
        return as_int32(v, "the scale")
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{where}: {str(exc).splitlines()[0]}") from None


def read_scale_map(path: str | os.PathLike) -> dict[str, int]:
    """Read a symbol → decimals map from a JSON object or a two-column CSV file.

    JSON: ``{"ESZ4": 2, "ZNZ4": 6}``. CSV: one ``symbol,decimals`` pair a line, with or
    without a header line. A symbol listed twice with two scales is refused.

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
    >>> from vecfix.files import read_scale_map
    >>> read_scale_map(p)
    {'ESZ4': 2, 'ZNZ4': 6}
    """
    from .columns.rules import show_value

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # (a byte-order mark, as Excel writes)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the scale map {os.fspath(path)!r}\n{exc}") from None
    where = f"scale map {os.fspath(path)!r}"
    pairs: list[tuple[str, Any, str]] = []  # (symbol, scale, where)
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            data = json.loads(text, object_pairs_hook=lambda items: items)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{where} is not valid JSON\n{exc}") from None
        if not isinstance(data, list) or not all(isinstance(p, tuple) for p in data):
            raise UsageError(f"{where} must hold a JSON object {{symbol: decimals}}")
        pairs = [(k, v, f"{where}, symbol {show_value(k)}") for k, v in data]
    else:
        for line, row in enumerate(csv.reader(io.StringIO(text)), start=1):
            if not row or not "".join(row).strip():
                continue
            if len(row) != 2:
                raise UsageError(
                    f"{where}, line {line}: expected symbol,decimals, got {show_value(row)}"
                )
            symbol, value = row[0].strip(), row[1].strip()
            if not re.fullmatch(r"[-+]?\d+", value):
                if line == 1 and not pairs:  # a header line
                    continue
                raise UsageError(
                    f"{where}, line {line}: the scale of {show_value(symbol)} is"
                    f" {show_value(value)}, not an integer"
                )
            pairs.append((symbol, int(value), f"{where}, line {line}"))
    out: dict[str, int] = {}
    for symbol, scale, at in pairs:
        check_scale(scale, at)
        if out.get(symbol, scale) != scale:
            raise UsageError(f"{at}: symbol {show_value(symbol)} is listed twice")
        out[symbol] = scale
    return out


def _stdin() -> IO[bytes]:
    return sys.stdin.buffer


def _codec(head: bytes) -> str | None:
    """The codec that a stream's first bytes show (gzip, bz2, zstd, lz4), or None."""
    return next((c for magic, c in _MAGIC.items() if head.startswith(magic)), None)


def _codec_of(path: str) -> str | None:
    with open(path, "rb") as f:
        return _codec(f.read(4))


class Source:
    """The input as a path polars can scan: the file itself, or a temporary copy of
    standard input, a named pipe or a bz2/lz4-compressed CSV (decompressed; gzip and zstd
    are left to polars, which reads them)."""

    def __init__(self, input: str | os.PathLike, fmt: str) -> None:
        self.given = self.path = os.fspath(input)
        stdin = self.given == STDIO
        self.shown = "standard input" if stdin else repr(self.given)
        self.copy: Path | None = None
        if not stdin and (Path(self.given).is_dir() or not Path(self.given).exists()):
            what = "is a directory, not a file" if Path(self.given).is_dir() else "does not exist"
            raise UsageError(f"input file {self.given!r} {what}")
        regular = not stdin and Path(self.given).is_file()
        codec = _codec_of(self.given) if regular and fmt == "csv" else None
        if not regular or codec in ("bz2", "lz4"):
            fd, self.path = tempfile.mkstemp(prefix="vecfix-input-")
            raw = _stdin() if stdin else open(self.given, "rb")
            try:
                with os.fdopen(fd, "wb") as out:
                    stream = _decoded(raw, codec, self.shown) if fmt == "csv" else raw
                    shutil.copyfileobj(stream, out, _CHUNK)
            except BaseException:
                os.unlink(self.path)
                raise
            finally:
                if not stdin:
                    raw.close()
            self.copy = Path(self.path)
        # (a gzip or zstd CSV is read by polars: its size says nothing of its rows)
        self.size = None if _codec_of(self.path) else os.path.getsize(self.path)

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.copy is not None:
            self.copy.unlink(missing_ok=True)


def _decoded(raw: IO[bytes], codec: str | None, shown: str) -> IO[bytes]:
    """``raw``, decompressed where it is bz2 or lz4 (which polars does not read)."""
    if codec is None:  # a pipe: its codec from its first bytes
        peek = getattr(raw, "peek", None)
        codec = _codec(peek(4)[:4] if peek is not None else b"")
    if codec not in ("bz2", "lz4"):
        return raw
    return _pyarrow(f"{shown} is {codec}-compressed").CompressedInputStream(raw, codec)


def _pyarrow(what: str) -> Any:
    try:
        import pyarrow as pa
    except ImportError:
        raise UsageError(f"{what}, which needs pyarrow: pip install 'vecfix[cli]'") from None
    return pa


def scan(
    pl: Any, src: Source, fmt: str, columns: Sequence[ColumnSpec], infer: bool, nulls: list[str]
) -> Any:
    """The polars ``LazyFrame`` of the input. A CSV's formatted columns are read as text, or
    as int64 where an exponent says they hold integers (and the columns of per-row
    layouts); its other columns as text unless ``infer``; ``nulls`` are read as null."""
    if fmt == "parquet":
        return pl.scan_parquet(src.path)
    if fmt == "arrow":
        try:
            lf = pl.scan_ipc(src.path)
            lf.collect_schema()
            return lf
        except pl.exceptions.PolarsError:  # an Arrow IPC stream: read whole (no footer)
            return pl.read_ipc_stream(src.path).lazy()
    ints = {s.name for s in columns if s.format.exponent is not None}
    ints |= {p for s in columns for p in (s.format.exponent, s.format.scale) if isinstance(p, str)}
    read = ints | {s.name for s in columns}
    names = pl.scan_csv(src.path, infer_schema=False, n_rows=0).collect_schema().names()
    overrides = {n: pl.Int64 if n in ints else pl.String for n in names if n in read}
    return pl.scan_csv(
        src.path, infer_schema=infer, schema_overrides=overrides, null_values=nulls or None
    )


class Destination:
    """Where the output goes: a regular file is replaced whole when the ``with`` block ends
    without an error (:func:`vecfix._io.atomic_path`: a temporary file beside it, renamed
    over it), and left as it was otherwise; standard output, a named pipe or a device is
    written directly. A CSV is compressed by polars (gzip, zstd) or by pyarrow's stream
    (bz2, lz4)."""

    def __init__(self, output: str | os.PathLike, input: str | os.PathLike, fmt: str) -> None:
        self.fmt, self.shown = fmt, os.fspath(output)
        self.regular = False
        self.tmp: str | None = None
        self._stack = contextlib.ExitStack()
        self.codec = None if self.shown == STDIO else _CODECS.get(Path(self.shown).suffix.lower())
        if self.shown == STDIO:
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
        source = os.fspath(input)
        if st is not None and source != STDIO and os.path.exists(source):
            if os.path.samefile(source, path):
                raise UsageError("the output would overwrite the input: choose another output file")
        if st is not None and not stat.S_ISREG(st.st_mode):
            return  # a pipe, a device, a socket: written to directly
        text = os.path.abspath(path)  # /dev/stdout, /proc/self/fd/1: the caller's open file
        if text in ("/dev/stdout", "/dev/stderr") or text.startswith(
            ("/dev/fd/", "/proc/self/fd/", f"/proc/{os.getpid()}/fd/")
        ):
            return
        if not path.resolve().parent.is_dir():
            raise UsageError(f"the output's folder {os.fspath(path.parent)!r} does not exist")
        self.regular = True

    def _open(self, stack: contextlib.ExitStack) -> Any:
        """The path or the file object polars writes to, closed (flushed) by ``stack``."""
        if self.shown == STDIO:
            sys.stdout.flush()
            stack.callback(sys.stdout.buffer.flush)
            return sys.stdout.buffer
        target: Any = self.tmp
        if self.tmp is None:  # a pipe or a device: "ab" never truncates
            try:
                target = stack.enter_context(open(self.shown, "ab", buffering=0))
            except OSError as exc:
                raise UsageError(f"cannot write {self.shown!r}: {exc.strerror}") from None
        if self.fmt == "csv" and self.codec is not None:  # (polars < 1.37 writes no codec)
            pa = _pyarrow(f"writing {self.codec}")
            target = stack.enter_context(pa.CompressedOutputStream(target, self.codec))
        return target

    def sink(
        self,
        query: Any,
        quoting: str = "necessary",
        compression: str | None = None,
        statistics: bool = True,
        plain: Set[str] = frozenset(),
        failed: Callable[[int | None, Exception], None] = lambda row, error: None,
    ) -> None:
        """Run ``query`` into the output: a CSV through polars' writer with ``quoting``
        (:func:`csv_query`; ``plain``: the columns that never need quotes)."""
        import polars as pl

        if self.fmt == "csv":
            query, quoting = csv_query(pl, query, quoting, plain, failed)
        try:
            with contextlib.ExitStack() as stack:
                target = self._open(stack)
                if self.fmt == "csv":
                    query.sink_csv(target, quote_style=quoting)
                elif self.fmt == "parquet":
                    codec = compression or "snappy"
                    query.sink_parquet(
                        target,
                        compression="uncompressed" if codec == "none" else codec,
                        statistics=statistics,  # (text min/max: "10.00" sorts before "9.00")
                        row_group_size=ROW_GROUP_SIZE,
                    )
                else:
                    query.sink_ipc(target)
        except OSError as exc:  # (polars' own, or a Python file object's)
            if isinstance(exc, BrokenPipeError) or "Broken pipe" in str(exc):
                raise BrokenPipeError(str(exc)) from None  # the reader went away: | head
            raise UsageError(f"cannot write {self.shown!r}: {exc}") from None

    def __enter__(self) -> Destination:
        if self.regular:
            from ._io import atomic_path

            self.tmp = self._stack.enter_context(atomic_path(self.shown))
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.__exit__(*exc)


#: A CSV field needs quotes when it holds one of these, or is empty (polars' rule, and
#: RFC 4180's): ``tests/test_files_csv.py`` holds it to polars' own writer.
_QUOTED = (",", '"', "\r", "\n")
_NEEDS_QUOTES = r'[,"\r\n]'


def csv_query(
    pl: Any,
    query: Any,
    quoting: str,
    plain: Set[str],
    failed: Callable[[int | None, Exception], None],
) -> tuple[Any, str]:
    """The CSV output's query and the quoting its writer is given, the file's bytes those
    of polars' writer with ``quoting``.

    Refuses a column CSV has no text for (a list, a struct). ``plain`` are the columns
    that never need quotes (vecfix's text: digits, a point, a minus). ``"necessary"``:
    polars' writer looks for characters to quote in every text value, the formatted ones
    too, which costs more than formatting them; so the other text columns are quoted in
    the query, where needed (one vectorised pass), and the writer is told ``"never"``
    (unless a column's name needs quotes). ``"never"``: a check that no text value would
    need quotes, nor is empty (else the file would not read back), its error kept aside
    by ``failed``.
    """
    schema = query.collect_schema()
    for name, dtype in schema.items():
        if dtype.is_nested() or dtype == pl.Object:
            raise UsageError(
                f"a CSV file cannot hold column {name!r} ({dtype})\nWrite Parquet or Arrow IPC"
                " (-o NAME.parquet / NAME.arrow), or leave the column out of the input"
            )
    texts = (pl.String, pl.Categorical, pl.Enum)
    text = [n for n, t in schema.items() if n not in plain and any(t == k for k in texts)]
    header = [n for n in schema.names() if re.search(_NEEDS_QUOTES, n) or not n]
    if quoting == "necessary" and not header:
        exprs = [_quoted(pl, pl.col(n).cast(pl.String)).alias(n) for n in text]
        return (query.with_columns(exprs) if exprs else query), "never"
    if quoting != "never":
        return query, quoting
    if header:
        raise UsageError(f"--csv-quoting never: the column name {header[0]!r} needs quotes")

    def check(values: Any) -> Any:
        texts = values.cast(pl.String)
        bad = texts.str.contains(_NEEDS_QUOTES) | (texts.str.len_bytes() == 0)
        if bad.any():
            from .columns.rules import show_value

            value = texts.filter(bad)[0]
            error = DataError(
                f"--csv-quoting never: column {values.name!r} holds {show_value(value)}, which"
                " needs quotes\nChoose another --csv-quoting"
            )
            failed(None, error)
            raise error
        return values

    checks = [pl.col(n).map_batches(check, return_dtype=schema[n], is_elementwise=True)
              for n in text]  # fmt: skip
    return (query.with_columns(checks) if checks else query), quoting


def _quoted(pl: Any, col: Any) -> Any:
    """``col``'s text as a CSV field: in quotes, its quotes doubled, where it needs them."""
    quoted = pl.concat_str([pl.lit('"'), col.str.replace_all('"', '""', literal=True), pl.lit('"')])
    needs = col.str.contains_any(list(_QUOTED)) | (col.str.len_bytes() == 0)  # (2x a regex)
    return pl.when(needs).then(quoted).otherwise(col)


class Progress:
    """Rows done, fed by the formatting expression's batch calls, of the rows in all
    (Parquet and Arrow metadata) or of a CSV's bytes (rows times their mean length in the
    first MiB): a line on stderr, updated at most four times a second. Also how many rows
    a file over a MiB holds (:meth:`expected`), shown or not."""

    def __init__(self, pl: Any, src: Source, fmt: str, lf: Any, show: bool) -> None:
        self.rows, self.show, self.size, self._last, self._said = 0, show, src.size, 0.0, False
        self.total: int | None = None
        self.per_row: float | None = None
        self._lock = threading.Lock()
        self.name = "stdin" if src.given == STDIO else Path(src.given).name
        count = show or (src.size or 0) > _CHUNK  # (a small file's rows are not worth it)
        if count and fmt != "csv":
            with contextlib.suppress(Exception):
                self.total = int(lf.select(pl.len()).collect().item())
        elif count and src.size:
            with open(src.path, "rb") as f:
                head = f.read(_CHUNK)
            self.per_row = len(head) / head.count(b"\n") if b"\n" in head else None

    def expected(self) -> int | None:
        """The rows in all, known or estimated; None when not counted."""
        if self.total is not None:
            return self.total
        return int(self.size / self.per_row) if self.per_row and self.size else None

    def add(self, n: int) -> None:
        with self._lock:
            self.rows += n
            now = time.monotonic()
            if not self.show or now - self._last < 0.25:
                return
            self._last, self._said = now, True
            line = f"vecfix format: {self.name}: {self.rows:,}"
            if self.total:
                line += f" of {self.total:,} rows ({min(100, 100 * self.rows // self.total)}%)"
            elif self.per_row and self.size:
                part = min(99, int(100 * self.rows * self.per_row / self.size))
                line += f" rows, about {part}% of {self.size / 1e6:,.0f} MB"
            else:
                line += " rows"
            sys.stderr.write(f"\r{line}\x1b[K")
            sys.stderr.flush()

    def close(self) -> None:
        if self._said:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def polars_error(exc: Exception, shown: str, fmt: str, scale_columns: Sequence[str]) -> Exception:
    """An error polars raised, as vecfix's: a CSV cell that is not an integer names its
    column and what the column is read for."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    if "Broken pipe" in text:
        return BrokenPipeError(first)
    cell = re.search(r"could not parse `(.*)` as dtype `i64` at column '(.*)' \(column", first)
    if cell is None:
        return DataError(f"cannot format {shown}\n{first}")
    from .columns.rules import show_value

    value, name = cell.groups()
    nulls = "; a missing value written as text (NA, NULL) is read as null with --csv-null"
    if name in scale_columns:
        hint = "\nA --scale-column holds each row's number of decimals, as integers" + nulls
    elif re.fullmatch(r"[-+]?\d+", value):  # an integer, beyond int64
        hint = (
            "\nColumns given --exponent are read from CSV as int64: an integer beyond it is"
            " not read there (leaving out --exponent would read it as a number of units,"
            " not of 10**exponent); write the column to Parquet or Arrow as uint64 or as a"
            " decimal, or format it with vecfix.format_fixed, which takes Python ints"
        )
    else:
        hint = (
            "\nColumns given --exponent are read as integers; leave out --exponent to read"
            " decimal text such as 5000.25" + nulls
        )
    return DataError(
        f"cannot read {shown} as {fmt}: In column {name!r}: {show_value(value)} is not an"
        f" int64{hint}"
    )


#: the input layer's words (format_fixed's arguments) -> the command line's options
_OPTION_WORDS = (
    ("leave exponent=None\nPass the number of decimals as scale=...", "leave out --exponent"),
    ("exponent is required", "--exponent is required"),
    ("exponent=-9", "--exponent -9"),
    ("then scale= only", "then --scale only"),
    ("null= marks", "--null marks"),
    ("coefficients must be integers", "it must hold integers"),
)


def check_specs(columns: Sequence[ColumnSpec]) -> None:
    if not columns:
        raise UsageError("no columns to format: give at least one --column")
    seen: set[str] = set()
    targets: set[str] = set()
    for spec in columns:
        if not isinstance(spec, ColumnSpec):
            from .columns.rules import show_value

            raise UsageError(f"columns must be ColumnSpec, got {show_value(spec)}")
        if spec.name in seen:
            raise UsageError(f"column {spec.name!r} is given twice")
        if spec.target in targets:
            raise UsageError(f"two formatted columns would be named {spec.target!r}")
        seen.add(spec.name)
        targets.add(spec.target)


def check_schema(pl: Any, lf: Any, columns: Sequence[ColumnSpec], where: str, fmt: str = "") -> Any:
    """The input's schema: every column present, with a type that fits its format; else
    :class:`DataError`."""
    from .columns import kind_of
    from .columns.rules import needs

    try:
        schema = lf.collect_schema()
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise DataError(f"cannot read {where} as {fmt}\n{str(exc).splitlines()[0]}") from None
    names = schema.names()
    for spec in columns:
        reads = [spec.name] + [p for p in (spec.format.exponent, spec.format.scale)
                               if isinstance(p, str)]  # fmt: skip
        for name in reads + ([spec.scales_by[0]] if spec.scales_by is not None else []):
            if name not in names:
                close = difflib.get_close_matches(name, names, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise DataError(
                    f"{where} has no column {name!r}{hint}\nIts columns are: {', '.join(names)}"
                )
        if spec.output_name not in (None, spec.name) and spec.output_name in names:
            raise DataError(
                f"column {spec.name!r}: {where} already has a column {spec.output_name!r};"
                " choose another name for the formatted column"
            )
        for part in ("exponent", "scale"):
            name = getattr(spec.format, part)
            if isinstance(name, str) and not schema[name].is_integer():
                raise DataError(
                    f"{part} column {name!r} is {schema[name]}: it must hold integers (each"
                    f" row's {part})"
                )
        dtype, here = schema[spec.name], f"column {spec.name!r}: "
        try:
            needs(kind_of(dtype), spec.format.exponent, spec.format.null,
                  source=f"of type {dtype}", where=here)  # fmt: skip
        except TypeError as exc:  # (in the command line's words)
            message = str(exc).removeprefix(here)
            for api, option in _OPTION_WORDS:
                message = message.replace(api, option)
            raise DataError(here + message) from None
    return schema
