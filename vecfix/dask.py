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
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

try:
    import dask  # noqa: F401 (as the others: installed, or the message below)
    import dask.dataframe as dd
    import pandas as pd
    import pyarrow  # noqa: F401 (needed by the formatted columns)
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "vecfix.dask needs dask[dataframe], distributed and pyarrow: "
        f"pip install 'vecfix[dask]' ({exc})"
    ) from exc

from ._batch import format_values
from ._dask_fix import WrittenPart, write_fix_snapshots
from ._number_format import NumberFormat
from .columns import Kind, RowError, kind_of, rules
from .columns.rules import as_int

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
            f"{rules.show_value(columns)}"
        )
    out = []
    for name, spec in columns.items():
        if name not in meta.columns:
            raise KeyError(
                f"columns: {rules.show_value(name)} is not a column; the frame has"
                f" {rules.show_value(list(meta.columns), 100)}"
            )
        where = f"columns[{name!r}]"
        if isinstance(spec, NumberFormat):
            out.append(_from_format(name, spec, meta, where))
            continue
        if not isinstance(spec, Mapping):
            raise TypeError(
                f"{where} must be a NumberFormat or a dict with 'scale', got"
                f" {rules.show_value(spec)}"
            )
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
        where = f"partition {number}, index {rules.show_value(label, 40)}, "
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
        raise TypeError(
            f"suffix must be a str, got {type(suffix).__name__} {rules.show_value(suffix)}"
        )
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
