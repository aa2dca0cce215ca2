"""The FIX writer of :mod:`vecfix.dask`: :func:`write_fix_snapshots` and its helpers.

Imported by :mod:`vecfix.dask` (which checks first that Dask is installed, and is where
users find it); formatting named columns is in that module.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NamedTuple

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from ._arrow import offsets
from ._number_format import NumberFormat
from .columns import RowError, kind_of
from .columns.rules import show_value
from .fix import Header, snapshots
from .fix._header import check_header
from .fix._numbers import builder_words, decide, number_column

_PART_NAME = "part-{:05d}.fix"
#: :func:`vecfix._io.atomic_path`'s temporary files of the part files.
_TMP_RE = re.compile(r"^\.part-\d{5}\.fix\.[0-9a-f]{32}\.tmp$")


class WrittenPart(NamedTuple):
    """One file written by :func:`write_fix_snapshots`."""

    path: str
    """Where the file is."""
    messages: int
    """``35=W`` messages in it (distinct symbols of the partition)."""
    entries: int
    """``268`` entries in it (rows of the partition)."""
    nbytes: int
    """Its size in bytes."""
    first_seq: int
    """MsgSeqNum (``34``) of its first message (the next file's, if it is empty)."""


class _Fields(NamedTuple):
    symbol: str
    entry_type: str
    price: str
    size: str
    price_format: NumberFormat | None
    size_format: NumberFormat | None


def _names(fmt: NumberFormat | None) -> list[str]:
    """The columns ``fmt`` names for its per-row exponents or scales."""
    return [
        v
        for v in (getattr(fmt, "exponent", None), getattr(fmt, "scale", None))
        if isinstance(v, str)
    ]


def _column(meta: pd.DataFrame, name: str, column: str) -> pd.Series:
    if column not in meta.columns:
        raise KeyError(
            f"{name}={show_value(column)} is not a column; the frame has"
            f" {show_value(list(meta.columns), 100)}"
        )
    return meta[column]


def _fix_number(
    arg: str, role: str, column: str, fmt: object, meta: pd.DataFrame
) -> NumberFormat | None:
    """``price_format`` or ``size_format`` checked against the dtypes of ``column`` and of
    the columns it names before any partition is read, by the rules of :mod:`vecfix.fix`
    (decided per partition for ``object`` columns)."""
    if fmt is not None and not isinstance(fmt, NumberFormat):
        raise TypeError(
            f"{arg} must be a vecfix.NumberFormat, got {type(fmt).__name__} {show_value(fmt)}"
        )
    for named in _names(fmt):
        if kind_of(_column(meta, arg, named).dtype) not in ("integers", "empty"):
            raise TypeError(f"{arg}: the column {named!r} of per-row values must hold integers")
    dtype = meta[column].dtype
    try:
        kind = kind_of(dtype)
    except TypeError as exc:
        raise TypeError(f"{role}: column {column!r} has dtype {dtype}: {exc}") from None
    if kind != "empty":
        source = f"the column {column!r} of dtype {dtype}"
        try:
            decide(kind, role, arg, fmt, getattr(fmt, "null", None), source)
        except TypeError as exc:
            raise TypeError(f"{role}: {builder_words(str(exc), arg)}") from None
    return fmt


def _symbol_count(part: pd.DataFrame, symbol: str) -> int:
    return int(part[symbol].nunique(dropna=False))


def _message_counts(ddf: dd.DataFrame, parts: list[Any], symbol: str, kw: dict) -> np.ndarray:
    """Distinct symbols per partition of ``parts``, reading only the symbol column if Dask
    keeps its partitions (it may fuse small Parquet partitions), else the partitions."""
    (cheap,) = dask.compute(
        ddf[[symbol]].map_partitions(
            lambda part: pd.Series([_symbol_count(part, symbol)], dtype=np.int64),
            meta=pd.Series([], dtype=np.int64),
        ),
        **kw,
    )
    if len(cheap) == len(parts):
        return cheap.to_numpy(dtype=np.int64)
    count = dask.delayed(_symbol_count, pure=True)
    return np.array(dask.compute(*[count(p, symbol) for p in parts], **kw), dtype=np.int64)


def _write_part(
    part: pd.DataFrame,
    number: int,
    first_seq: int,
    planned: int,
    out_dir: str,
    fields: _Fields,
    header: tuple[str, str, str, str, str],
) -> WrittenPart:
    """Build one partition's snapshots and write them, replacing the file atomically.
    ``header``: sender, target, begin string, precision, SendingTime."""
    where = f"partition {number}"
    for col in (fields.symbol, fields.entry_type):
        missing = part[col].isna().to_numpy()
        if missing.any():
            label = part.index[int(np.argmax(missing))]
            raise ValueError(f"{where}: column {col!r} is null at index {show_value(label, 40)}")
    codes, symbols = pd.factorize(part[fields.symbol], sort=False)  # first-appearance order
    order = np.argsort(codes, kind="stable")  # rows of one symbol together, in row order
    counts = np.bincount(codes, minlength=len(symbols))
    if len(symbols) != planned:  # pragma: no cover - Dask split the data differently
        raise RuntimeError(
            f"{where} has {len(symbols)} symbols but the numbering pass counted {planned}\n"
            "The partitioning changed between the two passes: persist() the frame first"
        )
    used = [fields.symbol, fields.entry_type, fields.price, fields.size]
    used += [*_names(fields.price_format), *_names(fields.size_format)]
    rows = part[list(dict.fromkeys(used))].iloc[order]
    formatted = []
    for arg, role, column, fmt in (
        ("price_format", "price", fields.price, fields.price_format),
        ("size_format", "size", fields.size, fields.size_format),
    ):
        if fmt is not None and fmt.per_row:  # the columns it names, by their rows
            exponent, scale = (
                rows[v] if isinstance(v, str) else v for v in (fmt.exponent, fmt.scale)
            )
            fmt = NumberFormat(exponent, scale, fmt.null)
        try:
            formatted.append(number_column(f"column {column!r}", role, rows[column], fmt, arg=arg))
        except RowError as exc:  # its row counted in the partition, its index label said
            if exc.row is None:
                raise type(exc)(f"{where}: {exc}") from None
            row = int(order[exc.row])
            label = part.index[row]
            label = label.item() if isinstance(label, np.generic) else label
            lead = f"{where}, index {show_value(label, 40)}, {exc.lead}"
            raise type(exc)(exc.detail, argument=exc.argument, row=row, lead=lead) from None
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{where}: {exc}") from None
    types = rows[fields.entry_type]
    if kind_of(types.dtype) == "integers":
        types = types.to_numpy(dtype=np.int64)
    else:
        types = types.astype(object).to_numpy().astype("U")
    sender, target, begin, precision, when = header
    head = Header(sender, target, begin_string=begin, next_seq=first_seq, precision=precision)
    try:
        msgs = snapshots(
            [str(s) for s in symbols], counts, types, *formatted, header=head, sending_time=when
        )
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where}: {exc}") from None
    final = os.path.join(out_dir, _PART_NAME.format(number))
    msgs.write(final)  # (replaced whole: readers see the old file or the whole new one)
    return WrittenPart(final, len(msgs), int(counts.sum()), int(msgs.nbytes), first_seq)


def _finish(parts: list[WrittenPart], out_dir: str) -> list[WrittenPart]:
    """Remove temporary files left by attempts that died mid-write."""
    for entry in os.scandir(out_dir):
        if _TMP_RE.match(entry.name):
            Path(entry.path).unlink(missing_ok=True)
    return list(parts)


def write_fix_snapshots(
    ddf: dd.DataFrame,
    out_dir: str | os.PathLike[str],
    *,
    symbol: str,
    entry_type: str,
    price: str,
    size: str,
    price_format: NumberFormat | None = None,
    size_format: NumberFormat | None = None,
    header: Header,
    sending_time: str,
    overwrite: bool = False,
    compute: bool = True,
    scheduler: Any = None,
) -> list[WrittenPart] | Any:
    """Write each partition's rows as FIX ``35=W`` snapshots to its own file.

    Partition ``k`` becomes ``out_dir/part-{k:05d}.fix``: one MarketDataSnapshotFullRefresh
    (:func:`vecfix.fix.snapshots`) per distinct symbol of the partition, in order of its
    first row, its ``268`` entries that symbol's rows in row order (a symbol that spans
    partitions gets one message in each); an empty partition, an empty file. MsgSeqNum
    (``34``) runs on across the files from the header's next number, counted by a first
    pass over each partition's symbols when this function is called (even with
    ``compute=False``; ``ddf.persist()`` first avoids reading the data twice).

    Each file is written under a temporary name and renamed over its own
    (:func:`vecfix._io.atomic_path`):
    a task that Dask retries after a worker died rewrites the same bytes under the same
    name: no file is lost, half-written or duplicated (dead attempts' temporary files are
    removed at the end).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One market data entry per row.
    out_dir : str or os.PathLike
        A local directory that every worker sees at the same path (a shared mount, or a
        local cluster). Created if missing.
    symbol : str
        Column of symbols (``55``): printable ASCII text, not null.
    entry_type : str
        Column of MDEntryType (``269``): ints 0..9 or one-character strings, not null (for
        one type for all rows, add a constant column: ``ddf.assign(t="2")``).
    price, size : str
        Columns of MDEntryPx (``270``) and MDEntrySize (``271``): integer coefficients or
        decimals; a null (or the format's ``null``) leaves the field out.
    price_format, size_format : vecfix.NumberFormat, optional
        How they are printed, as ``price=`` and ``size=`` of :func:`vecfix.fix.snapshots`
        (integer prices need one, whole-number sizes none); an exponent or a scale may
        name a column of the frame (one value a row).
    header : vecfix.fix.Header
        Sender, target, begin string and the first MsgSeqNum: the files take
        ``header.next_seq`` onwards, and the header moves on past them at once.
    sending_time : str
        SendingTime (``52``), one ``YYYYMMDD-HH:MM:SS[.sss]`` for all messages.
    overwrite : bool, default False
        What to do with ``part-*.fix`` files already in ``out_dir``: ``False`` raises,
        ``True`` deletes them first.
    compute : bool, default True
        ``False`` returns a :class:`dask.delayed.Delayed` that writes the files when
        computed (e.g. ``client.compute(...)``) and yields the same list.
    scheduler : optional
        Passed to :func:`dask.compute` (e.g. a ``distributed.Client``).

    Returns
    -------
    list of WrittenPart or dask.delayed.Delayed
        One per partition, in order: path, messages, entries, bytes and first MsgSeqNum.

    Raises
    ------
    FileExistsError
        If ``out_dir`` holds ``part-*.fix`` files and ``overwrite`` is false.
    KeyError, TypeError, ValueError
        For a missing column, a bad ``header``, a format that does not fit its column's
        dtype; when a partition runs, a null symbol or entry type (named with partition
        and index label) or anything :func:`vecfix.fix.snapshots` refuses.

    Examples
    --------
    >>> import tempfile, pandas as pd, dask.dataframe as dd
    >>> import vecfix, vecfix.dask as vd, vecfix.fix as fix
    >>> df = pd.DataFrame({"sym": ["ES", "NQ", "ES"], "t": ["0", "1", "2"],
    ...                    "px": [5012_25, 18001_50, 5012_50], "qty": [3, 1, 2]})
    >>> out_dir = tempfile.mkdtemp()
    >>> parts = vd.write_fix_snapshots(
    ...     dd.from_pandas(df, npartitions=1), out_dir, symbol="sym", entry_type="t",
    ...     price="px", size="qty", price_format=vecfix.NumberFormat(-2, 2),
    ...     header=fix.Header("MD", "C"), sending_time="20240102-14:30:00", scheduler="sync",
    ... )
    >>> [(Path(p.path).name, p.messages, p.entries, p.first_seq) for p in parts]
    [('part-00000.fix', 2, 3, 1)]
    >>> for m in Path(parts[0].path).read_bytes().split(b"\\x0110=")[:2]:
    ...     print(m.split(b"\\x0155=")[1].replace(b"\\x01", b"|").decode().split("|", 1)[1])
    268=2|269=0|270=5012.25|271=3|269=2|270=5012.50|271=2
    268=1|269=1|270=18001.50|271=1
    """
    head = check_header(header)
    meta = ddf._meta
    columns = {"symbol": symbol, "entry_type": entry_type, "price": price, "size": size}
    for name, col in columns.items():
        _column(meta, name, col)
    fields = _Fields(
        symbol,
        entry_type,
        price,
        size,
        _fix_number("price_format", "price", price, price_format, meta),
        _fix_number("size_format", "size", size, size_format, meta),
    )
    # the header's values and SendingTime, checked before any work (no number is taken)
    snapshots([], [], [], [], [], header=head, sending_time=sending_time)
    fixed = (head.sender, head.target, head.begin_string, head.precision, sending_time)

    out = os.fspath(out_dir)
    os.makedirs(out, exist_ok=True)
    old = sorted(p for p in os.listdir(out) if re.fullmatch(r"part-\d{5}\.fix", p))
    if old and not overwrite:
        raise FileExistsError(
            f"{out} already holds {len(old)} part-*.fix files (e.g. {old[0]}); "
            "pass overwrite=True to replace them"
        )
    for name in old:
        os.remove(os.path.join(out, name))

    kw = {} if scheduler is None else {"scheduler": scheduler}
    parts = ddf.to_delayed()
    counts = _message_counts(ddf, parts, symbol, kw)
    seq_start = head.reserve(int(counts.sum())).start
    firsts = seq_start + offsets(counts)[:-1]
    write = dask.delayed(_write_part, pure=False)  # side effects: never reuse a result
    tasks = [
        write(p, k, int(firsts[k]), int(counts[k]), out, fields, fixed) for k, p in enumerate(parts)
    ]
    done = dask.delayed(_finish, pure=False)(tasks, out)
    if not compute:
        return done
    (result,) = dask.compute(done, **kw)
    return result
