"""Format partitioned data on a Dask cluster: columns, Parquet datasets and FIX files.

Every function here runs vecfix once per partition, inside the Dask task that already holds
that partition, so the data is formatted where it lives and never gathered on one machine.
Formatting is row-wise, so a distributed result equals the single-process one row for row.

This module needs the optional dependencies ``dask[dataframe]`` and ``distributed``
(``pip install 'vecfix[dask]'``); ``import vecfix`` alone never imports Dask.

Functions
---------
format_columns
    Format integer or decimal columns of a Dask DataFrame into Arrow-backed strings, keeping
    its partitions, index and divisions (lazy: nothing runs until you compute or write).
format_parquet
    Read a partitioned Parquet dataset, format columns, write a Parquet dataset, on a Dask
    cluster you name or on a loopback-only local one started for the call.
write_fix_snapshots
    Write each partition's market data as FIX ``35=W`` messages to its own file, atomically,
    so that a task retried after a worker death neither loses nor duplicates messages.
"""

from __future__ import annotations

import logging
import os
import re
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

try:
    import dask
    import dask.dataframe as dd
    import pandas as pd
    import pyarrow  # noqa: F401 (needed by the formatted columns)
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "vecfix.dask needs dask[dataframe], distributed and pyarrow: "
        f"pip install 'vecfix[dask]' ({exc})"
    ) from exc

from . import format_fixed
from ._batch import format_values
from ._number_format import NumberFormat
from .columns import Kind, RowError, kind_of, rules
from .columns.rules import as_int
from .fix import snapshots

__all__ = [
    "STRING_DTYPE",
    "ColumnFormats",
    "WrittenPart",
    "format_columns",
    "format_parquet",
    "local_cluster_options",
    "write_fix_snapshots",
]

#: The dtype of every formatted column: pandas strings backed by Arrow, nulls as ``<NA>``.
STRING_DTYPE = pd.StringDtype("pyarrow", na_value=pd.NA)

_SPEC_KEYS = frozenset({"scale", "exponent", "null"})
_PART_NAME = "part-{:05d}.fix"
_TMP_RE = re.compile(r"^\.part-\d{5}\.fix\.[0-9a-f]{32}\.tmp$")


# ---------------------------------------------------------------------------------------
# Column specs
# ---------------------------------------------------------------------------------------

#: What :func:`format_columns` formats: ``{column: NumberFormat}`` (or ``{column: {"scale":
#: s, "exponent": e, "null": n}}``).
ColumnFormats = Mapping[str, NumberFormat | Mapping[str, Any]]


class _Spec(NamedTuple):
    """A column and its :class:`~vecfix.NumberFormat`, whose parts are also fields."""

    column: str
    format: NumberFormat
    exponent: Any
    scale: Any
    null: Any


def _column_kind(sample: pd.Series) -> Kind:
    """What a column holds, by the input layer's rules, from its type. An ``object``
    column reads as ``"empty"``: Python ints, ``Decimal`` or text, decided in each
    partition."""
    return kind_of(sample.dtype)


def _spec(
    column: str, sample: pd.Series, scale: object, exponent: object, null: Any, where: str
) -> _Spec:
    """One column's int exponent, scale and null sentinel, checked against what it holds
    with the rules :func:`vecfix.format_fixed` applies."""
    scale = as_int(scale, f"{where}: scale of column {column!r}")
    if exponent is not None:
        exponent = as_int(exponent, f"{where}: exponent of column {column!r}")
    return _checked(column, sample, NumberFormat(exponent, scale, null), where)


def _checked(column: str, sample: pd.Series, fmt: NumberFormat, where: str) -> _Spec:
    try:
        kind = _column_kind(sample)
    except TypeError as exc:
        raise TypeError(f"{where}: column {column!r} has dtype {sample.dtype}: {exc}") from None
    source = f"the column {column!r} of dtype {sample.dtype}"
    rules.needs(kind, fmt.exponent, fmt.null, source=source, where=f"{where}: ")
    return _Spec(column, fmt, fmt.exponent, fmt.scale, fmt.null)


def _specs(meta: pd.DataFrame, columns: ColumnFormats) -> list[_Spec]:
    if not isinstance(columns, Mapping) or not columns:
        raise TypeError(
            "columns must be a non-empty dict {name: NumberFormat(exponent, scale)}, got "
            f"{columns!r}"
        )
    out = []
    for name, spec in columns.items():
        if name not in meta.columns:
            raise KeyError(f"columns: {name!r} is not a column; the frame has {list(meta.columns)}")
        where = f"columns[{name!r}]"
        if isinstance(spec, NumberFormat):
            out.append(_from_format(name, spec, meta, where))
            continue
        if not isinstance(spec, Mapping):
            raise TypeError(f"{where} must be a NumberFormat or a dict with 'scale', got {spec!r}")
        unknown = set(spec) - _SPEC_KEYS
        if unknown:
            raise TypeError(
                f"{where} has unknown keys {sorted(unknown)}; allowed: {sorted(_SPEC_KEYS)}"
            )
        if "scale" not in spec:
            raise TypeError(f"{where} needs a 'scale' (decimal places to print)")
        out.append(
            _spec(name, meta[name], spec["scale"], spec.get("exponent"), spec.get("null"), where)
        )
    return out


def _from_format(name: str, fmt: NumberFormat, meta: pd.DataFrame, where: str) -> _Spec:
    """A :class:`NumberFormat` entry: its per-row parts must name columns of the frame."""
    if fmt.scale is None:
        raise TypeError(f"{where} needs a scale (decimal places to print)")
    for part, value in (("exponent", fmt.exponent), ("scale", fmt.scale)):
        if value is not None and not rules.is_int(value) and not isinstance(value, str):
            raise TypeError(f"{where}: a per-row {part} is a column's name in vecfix.dask")
        if isinstance(value, str) and value not in meta.columns:
            raise KeyError(f"{where}: {part} {value!r} is not a column of the frame")
    return _checked(name, meta[name], fmt, where)


# ---------------------------------------------------------------------------------------
# format_columns
# ---------------------------------------------------------------------------------------


def _format_series(part: pd.DataFrame, spec: _Spec, name: object, number: int = 0) -> pd.Series:
    """One partition's column, through the per-batch function of the polars namespace
    and ``vecfix format``. A :class:`~vecfix.RowError` keeps its row (counted in the
    partition: the rows before it are in other tasks) and says which partition and index
    label it is at."""
    series = part[spec.column]
    layouts = {"exponents": spec.exponent, "scales": spec.scale}
    per_row = {k: part[v] for k, v in layouts.items() if isinstance(v, str)}
    try:
        # one thread: dask runs a partition per worker thread already; Arrow's layout,
        # which to_pandas() hands over as it is (as the pandas accessor does)
        out = format_values(
            series, spec.format, column=spec.column, layout="arrow", threads=1, **per_row
        )
    except RowError as exc:
        if exc.row is None:
            raise
        label = series.index[exc.row]
        label = label.item() if isinstance(label, np.generic) else label
        where = f"partition {number}, index {label!r}, "
        raise type(exc)(
            exc.detail, argument=exc.argument, row=exc.row, lead=where + exc.lead
        ) from None
    return out.to_pandas(name=name, index=series.index)


def _format_partition(
    part: pd.DataFrame,
    specs: Sequence[_Spec],
    suffix: str,
    partition_info: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """One partition: the formatted columns replace (or join) the inputs."""
    number = 0 if partition_info is None else int(partition_info["number"])
    out = part.copy(deep=False)
    for spec in specs:
        name = spec.column + suffix
        out[name] = _format_series(part, spec, name, number)
    return out


def format_columns(ddf: dd.DataFrame, columns: ColumnFormats, *, suffix: str = "") -> dd.DataFrame:
    """Format integer or decimal columns of a Dask DataFrame, partition by partition.

    Lazy, like any Dask operation: it adds one ``map_partitions`` step to the graph. Each
    partition is formatted where it lives, by the per-batch function of the polars
    namespace and ``vecfix format``; the result has the same partitions, index and
    divisions as ``ddf``, and equals the single-process result row for row (formatting is
    row-wise).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        The data.
    columns : dict of str to NumberFormat
        ``{column: NumberFormat(exponent, scale, null=...)}``, one entry per column to
        format. ``scale`` is required: the decimals to print, or the name of a column
        holding each row's (a row whose scale or exponent is ``<NA>`` is ``<NA>``).
        ``exponent`` is the power of ten of the coefficients (or a column's name):
        required for integer columns (NumPy, pandas nullable or Arrow integers),
        forbidden for columns whose values carry their own exponent (Arrow decimals,
        decimal text, ``Decimal`` objects). ``null`` (integer columns only) marks
        sentinel coefficients as null, e.g. CME ``PRICENULL9``. An ``object`` column with
        an exponent is read as Python ints, without one as ``Decimal`` objects or text.
        A dict ``{"scale": s, "exponent": e, "null": n}`` of ints is taken too.
    suffix : str, default ""
        Empty: the formatted columns replace the inputs, in place. Otherwise each
        formatted column is added as ``column + suffix`` after the existing columns.

    Returns
    -------
    dask.dataframe.DataFrame
        The frame with the formatted columns as ``string[pyarrow]`` (``STRING_DTYPE``);
        nulls in, or null sentinels of, an input column are ``<NA>``.

    Raises
    ------
    KeyError
        If a named column is missing.
    TypeError
        If a spec lacks a scale, has unknown keys, gives an exponent to a decimal column
        or none to an integer column, or names a float, bool or date column.
    ValueError
        When computed: as :func:`vecfix.format_fixed` (e.g. a row too long).

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> import vecfix.dask as vd
    >>> from vecfix import NumberFormat
    >>> df = pd.DataFrame({"px": [1899800, None, -5], "qty": [100, 5, 7]}).astype("Int64")
    >>> ddf = dd.from_pandas(df, npartitions=2)
    >>> out = vd.format_columns(ddf, {"px": NumberFormat(-4, 2)}, suffix="_text")
    >>> out.compute(scheduler="sync")
            px  qty px_text
    0  1899800  100  189.98
    1     <NA>    5    <NA>
    2       -5    7    0.00
    """
    if not isinstance(suffix, str):
        raise TypeError(f"suffix must be a str, got {type(suffix).__name__} {suffix!r}")
    meta = ddf._meta
    specs = _specs(meta, columns)
    out_meta = meta.copy(deep=False)
    for spec in specs:
        out_meta[spec.column + suffix] = pd.Series([], dtype=STRING_DTYPE, index=meta.index)
    return ddf.map_partitions(
        _format_partition, specs, suffix, meta=out_meta, align_dataframes=False
    )


# ---------------------------------------------------------------------------------------
# format_parquet
# ---------------------------------------------------------------------------------------


def local_cluster_options(n_workers: int = 2) -> dict[str, Any]:
    """Keyword arguments for a ``distributed.LocalCluster`` that listens on loopback only.

    ``n_workers`` processes of one thread each; the scheduler, workers and nannies bind
    ``127.0.0.1`` on free ports; no dashboard (the scheduler's small HTTP endpoint binds
    ``127.0.0.1`` on a free port too); the cluster's logs below CRITICAL silenced (a task
    that fails is raised from the call that computes it, so a worker's "Compute Failed"
    log would only repeat it, with a traceback, on stderr). :func:`format_parquet` uses
    it when not given a scheduler.

    Examples
    --------
    >>> opts = local_cluster_options(4)
    >>> opts["n_workers"], opts["host"], opts["dashboard_address"]
    (4, '127.0.0.1', None)
    """
    return {
        "n_workers": n_workers,
        "threads_per_worker": 1,
        "processes": True,
        "host": "127.0.0.1",
        "dashboard_address": None,
        "worker_dashboard_address": None,
        "scheduler_kwargs": {"dashboard_address": "127.0.0.1:0"},
        "silence_logs": logging.CRITICAL,
    }


def format_parquet(
    input_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    columns: ColumnFormats,
    *,
    scheduler: str | Any | None = None,
    suffix: str = "",
    n_workers: int = 2,
    read_kwargs: Mapping[str, Any] | None = None,
    write_kwargs: Mapping[str, Any] | None = None,
) -> int:
    """Format columns of a partitioned Parquet dataset on a Dask cluster.

    Reads ``input_path`` with :func:`dask.dataframe.read_parquet`, applies
    :func:`format_columns`, and writes ``output_path`` with ``to_parquet`` (one output
    file per input partition, index included). This is the Python form of
    ``vecfix format --dask [ADDRESS]``: the CLI passes the address (or ``None``) as
    ``scheduler``.

    Parameters
    ----------
    input_path, output_path : str or os.PathLike
        Parquet dataset paths (a directory, a file or a glob; any URL Dask reads). Every
        worker must be able to reach both.
    columns : dict of str to NumberFormat
        The columns to format, as for :func:`format_columns`.
    scheduler : str, distributed.Client or None, default None
        ``None`` starts a local cluster for this call only: ``n_workers`` worker
        processes, one thread each, listening on ``127.0.0.1`` only, no dashboard; it is
        closed before returning. A string is a scheduler address
        (``"tcp://10.0.0.5:8786"``) to connect a :class:`distributed.Client` to (closed
        after; the cluster is left running). A ``Client`` is used as is and left open.
    suffix : str, default ""
        As for :func:`format_columns`.
    n_workers : int, default 2
        Worker processes of the local cluster (``scheduler=None`` only).
    read_kwargs, write_kwargs : dict, optional
        Extra keyword arguments for ``dask.dataframe.read_parquet`` and ``to_parquet``.
        Columns are read with ``dtype_backend="pyarrow"`` unless ``read_kwargs`` says
        otherwise, so that an integer column with nulls keeps its integers.

    Returns
    -------
    int
        ``npartitions`` of the formatted frame: the output files, unless Dask fuses small
        partitions (it may when ``read_kwargs`` selects few columns).

    Raises
    ------
    ImportError
        If ``distributed`` is not installed.
    KeyError, TypeError
        As for :func:`format_columns` (checked before any work is sent).

    Examples
    --------
    The CLI's ``--dask`` flag is this call (``args.dask`` is the address or ``None``):

    >>> vd.format_parquet(                                          # doctest: +SKIP
    ...     "ticks/", "ticks-text/", {"px": {"exponent": -9, "scale": 4}},
    ...     scheduler=args.dask,
    ... )
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"format_parquet needs distributed: pip install 'vecfix[dask]' ({exc})"
        ) from exc
    n_workers = as_int(n_workers, "n_workers")
    if n_workers < 1:
        raise ValueError(f"n_workers must be >= 1, got {n_workers}")
    # pyarrow-backed columns: an int64 price column with nulls stays int64 (NumPy's
    # backend makes it float64, which format_fixed refuses: floats are not exact)
    read = {"dtype_backend": "pyarrow", **dict(read_kwargs or {})}
    ddf = dd.read_parquet(os.fspath(input_path), **read)
    formatted = format_columns(ddf, columns, suffix=suffix)  # checks specs before starting

    def run(client: Any) -> int:
        formatted.to_parquet(
            os.fspath(output_path), compute=True, compute_kwargs={"scheduler": client},
            **dict(write_kwargs or {}),
        )  # fmt: skip
        return formatted.npartitions

    if scheduler is None:
        with (
            LocalCluster(**local_cluster_options(n_workers)) as cluster,
            Client(cluster, set_as_default=False) as client,
        ):
            return run(client)
    if isinstance(scheduler, (str, os.PathLike)):
        with Client(os.fspath(scheduler), set_as_default=False) as client:
            return run(client)
    if not hasattr(scheduler, "get") or not hasattr(scheduler, "submit"):
        raise TypeError(
            "scheduler must be None, an address string or a distributed.Client, got "
            f"{type(scheduler).__name__}"
        )
    return run(scheduler)


# ---------------------------------------------------------------------------------------
# write_fix_snapshots
# ---------------------------------------------------------------------------------------


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
    price: _Spec
    size: _Spec


def _symbol_counts(part: pd.DataFrame, symbol: str) -> pd.Series:
    return pd.Series([part[symbol].nunique(dropna=False)], dtype=np.int64)


def _symbol_count(part: pd.DataFrame, symbol: str) -> int:
    return int(part[symbol].nunique(dropna=False))


def _message_counts(ddf: dd.DataFrame, parts: list[Any], symbol: str, kw: dict) -> np.ndarray:
    """Distinct symbols per partition of ``parts``, reading as little as Dask allows.

    The cheap way reads only the symbol column, but Dask may then fuse small Parquet
    partitions into fewer tasks; if it did, count on the partitions themselves.
    """
    (cheap,) = dask.compute(
        ddf[[symbol]].map_partitions(_symbol_counts, symbol, meta=pd.Series([], dtype=np.int64)),
        **kw,
    )
    if len(cheap) == len(parts):
        return cheap.to_numpy(dtype=np.int64)
    count = dask.delayed(_symbol_count, pure=True)
    return np.array(dask.compute(*[count(p, symbol) for p in parts], **kw), dtype=np.int64)


def _entry_types(series: pd.Series) -> np.ndarray:
    if _column_kind(series) == "integers":
        return series.to_numpy(dtype=np.int64)
    return series.astype(object).to_numpy().astype("U")


def _write_part(
    part: pd.DataFrame,
    number: int,
    first_seq: int,
    planned: int,
    out_dir: str,
    fields: _Fields,
    header: Mapping[str, Any],
) -> WrittenPart:
    """Build one partition's snapshots and write them, replacing the file atomically."""
    where = f"partition {number}"
    for col in (fields.symbol, fields.entry_type):
        missing = part[col].isna().to_numpy()
        if missing.any():
            label = part.index[int(np.argmax(missing))]
            raise ValueError(f"{where}: column {col!r} is null at index {label!r}")
    codes, symbols = pd.factorize(part[fields.symbol], sort=False)  # first-appearance order
    order = np.argsort(codes, kind="stable")  # rows of one symbol together, in row order
    counts = np.bincount(codes, minlength=len(symbols))
    if len(symbols) != planned:  # pragma: no cover - Dask split the data differently
        raise RuntimeError(
            f"{where} has {len(symbols)} symbols but the numbering pass counted {planned}: "
            "the partitioning changed between the two passes; persist() the frame first"
        )
    used = (fields.symbol, fields.entry_type, fields.price.column, fields.size.column)
    rows = part[list(dict.fromkeys(used))].iloc[order]
    try:
        prices = format_fixed(
            rows[fields.price.column], fields.price.exponent, fields.price.scale,
            null=fields.price.null,
        )  # fmt: skip
        sizes = format_fixed(
            rows[fields.size.column], fields.size.exponent, fields.size.scale,
            null=fields.size.null,
        )  # fmt: skip
        msgs = snapshots(
            [str(s) for s in symbols], counts, _entry_types(rows[fields.entry_type]),
            prices, sizes, seq_start=first_seq, **header,
        )  # fmt: skip
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where}: {exc}") from None
    final = os.path.join(out_dir, _PART_NAME.format(number))
    tmp = os.path.join(out_dir, f".{_PART_NAME.format(number)}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as fh:
            msgs.write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)  # atomic: readers see the old file or the whole new one
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
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
    price_scale: int,
    price_exponent: int | None = None,
    size_scale: int = 0,
    size_exponent: int | None = None,
    price_null: int | Sequence[int] | None = None,
    size_null: int | Sequence[int] | None = None,
    sender: str,
    target: str,
    sending_time: str,
    seq_start: int = 1,
    begin_string: str = "FIX.4.4",
    overwrite: bool = False,
    compute: bool = True,
    scheduler: Any = None,
) -> list[WrittenPart] | Any:
    """Write each partition's rows as FIX ``35=W`` snapshots to its own file.

    Partition ``k`` becomes ``out_dir/part-{k:05d}.fix``: one MarketDataSnapshotFullRefresh
    (built by :func:`vecfix.fix.snapshots`) per distinct symbol of the partition, in order
    of the symbol's first row, whose ``268`` entries are that symbol's rows in row order.
    A symbol that spans partitions gets one message per partition (repartition by symbol
    first if you need one message per symbol). An empty partition writes an empty file.

    MsgSeqNum (``34``) runs on across files in partition order, from ``seq_start``, so the
    files concatenated in name order are one gap-free sequence. To number them, a first
    pass counts the symbols of each partition when this function is called (even with
    ``compute=False``). It reads only the ``symbol`` column where Dask keeps the same
    partitions for that column alone, else whole partitions; ``ddf.persist()`` first
    avoids reading the data twice when it fits in the cluster's memory.

    Each file is written to a temporary name in ``out_dir`` and renamed over the final
    name (``os.replace``), so a task that Dask retries after a worker died rewrites the
    same bytes under the same name: no file is lost, half-written or duplicated. Temporary
    files left by dead attempts are removed at the end.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One market data entry per row.
    out_dir : str or os.PathLike
        A local directory, seen at the same path by every worker (a shared mount, or a
        local cluster). Created if missing.
    symbol : str
        Column of symbols (``55``): printable ASCII text, not null.
    entry_type : str
        Column of MDEntryType (``269``): ints 0..9 or one-character strings, not null. For
        one type for all rows add a constant column first: ``ddf.assign(t="2")``.
    price, size : str
        Columns of MDEntryPx (``270``) and MDEntrySize (``271``): integer coefficients or
        decimals, as for :func:`format_columns`. A null price or size (or a sentinel from
        ``price_null``/``size_null``) omits that field from its entry.
    price_scale, price_exponent : int
        Decimals to print and, for integer columns (required there), the exponent.
    size_scale, size_exponent : int
        The same for sizes: scale 0, and exponent 0 for integer columns, by default.
    price_null, size_null : int or sequence of int, optional
        Null sentinel coefficients of integer columns.
    sender, target, sending_time, begin_string
        Header fields ``49``, ``56``, ``52`` (one ``YYYYMMDD-HH:MM:SS[.sss]`` for all
        messages) and ``8``, as for :func:`vecfix.fix.snapshots`.
    seq_start : int, default 1
        MsgSeqNum of the first message of the first non-empty file.
    overwrite : bool, default False
        If ``out_dir`` already holds ``part-*.fix`` files: ``False`` raises, ``True``
        deletes them first.
    compute : bool, default True
        ``False`` returns a :class:`dask.delayed.Delayed` that writes the files when
        computed (e.g. ``client.compute(...)``) and yields the same list.
    scheduler : optional
        Passed to :func:`dask.compute` (e.g. a ``distributed.Client``); default: Dask's
        current scheduler.

    Returns
    -------
    list of WrittenPart or dask.delayed.Delayed
        One entry per partition, in partition order: path, messages, entries, bytes and
        first MsgSeqNum.

    Raises
    ------
    FileExistsError
        If ``out_dir`` holds ``part-*.fix`` files and ``overwrite`` is false.
    KeyError, TypeError
        If a column is missing, or exponent/scale do not fit its dtype.
    ValueError
        When a partition runs: a null symbol or entry type (named with partition and
        index), or anything :func:`vecfix.fix.snapshots` refuses.

    Examples
    --------
    >>> import tempfile, pandas as pd, dask.dataframe as dd
    >>> import vecfix.dask as vd
    >>> df = pd.DataFrame({"sym": ["ES", "NQ", "ES"], "t": ["0", "1", "2"],
    ...                    "px": [5012_25, 18001_50, 5012_50], "qty": [3, 1, 2]})
    >>> out_dir = tempfile.mkdtemp()
    >>> parts = vd.write_fix_snapshots(
    ...     dd.from_pandas(df, npartitions=1), out_dir, symbol="sym", entry_type="t",
    ...     price="px", size="qty", price_exponent=-2, price_scale=2,
    ...     sender="MD", target="C", sending_time="20240102-14:30:00", scheduler="sync",
    ... )
    >>> [(Path(p.path).name, p.messages, p.entries, p.first_seq) for p in parts]
    [('part-00000.fix', 2, 3, 1)]
    >>> for m in Path(parts[0].path).read_bytes().split(b"\\x0110=")[:2]:
    ...     print(m.split(b"\\x0155=")[1].replace(b"\\x01", b"|").decode().split("|", 1)[1])
    268=2|269=0|270=5012.25|271=3|269=2|270=5012.50|271=2
    268=1|269=1|270=18001.50|271=1
    """
    meta = ddf._meta
    for name, col in (("symbol", symbol), ("entry_type", entry_type)):
        if col not in meta.columns:
            raise KeyError(f"{name}={col!r} is not a column; the frame has {list(meta.columns)}")
    for name, col in (("price", price), ("size", size)):
        if col not in meta.columns:
            raise KeyError(f"{name}={col!r} is not a column; the frame has {list(meta.columns)}")
    size_kind = _column_kind(meta[size])
    if size_exponent is None and size_kind in ("integers", "empty"):
        size_exponent = 0
    fields = _Fields(
        symbol,
        entry_type,
        _spec(price, meta[price], price_scale, price_exponent, price_null, "price"),
        _spec(size, meta[size], size_scale, size_exponent, size_null, "size"),
    )
    seq_start = as_int(seq_start, "seq_start")
    header: dict[str, Any] = {
        "sender": sender,
        "target": target,
        "sending_time": sending_time,
        "begin_string": begin_string,
    }
    snapshots([], [], [], [], [], price_scale=0, **header)  # check the header before any work

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
    firsts = seq_start + np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    write = dask.delayed(_write_part, pure=False)  # side effects: never reuse a result
    tasks = [
        write(p, k, int(firsts[k]), int(counts[k]), out, fields, header)
        for k, p in enumerate(parts)
    ]
    done = dask.delayed(_finish, pure=False)(tasks, out)
    if not compute:
        return done
    (result,) = dask.compute(done, **kw)
    return result
