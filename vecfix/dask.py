"""Format partitioned data on a Dask cluster: columns, Parquet datasets and FIX files.

Every function runs vecfix once per partition, inside the Dask task that already holds it:
the data is formatted where it lives, and the result equals the single-process one row for
row. Needs ``dask[dataframe]``, ``distributed`` and pyarrow (``pip install 'vecfix[dask]'``);
``import vecfix`` alone never imports Dask.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Mapping
from typing import Any

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
from ._io import atomic_path
from ._number_format import NumberFormat
from .columns import RowError, kind_of, rules
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

#: What :func:`format_columns` formats: ``{column: NumberFormat}`` (or ``{column: {"scale":
#: s, "exponent": e, "null": n}}``).
ColumnFormats = Mapping[str, NumberFormat | Mapping[str, Any]]


def _formats(meta: pd.DataFrame, columns: ColumnFormats) -> dict[str, NumberFormat]:
    """Each column's :class:`NumberFormat`, checked against what the column holds with the
    rules :func:`vecfix.format_fixed` applies; a per-row part names a column of the frame."""
    if not isinstance(columns, Mapping) or not columns:
        raise TypeError(
            "columns must be a non-empty dict {name: NumberFormat(exponent, scale)}, got "
            f"{rules.show_value(columns)}"
        )
    out = {}
    for name, fmt in columns.items():
        if name not in meta.columns:
            raise KeyError(
                f"columns: {rules.show_value(name)} is not a column; the frame has"
                f" {rules.show_value(list(meta.columns), 100)}"
            )
        where = f"columns[{name!r}]"
        if isinstance(fmt, Mapping):
            unknown = set(fmt) - _SPEC_KEYS
            if unknown:
                raise TypeError(
                    f"{where} has unknown keys {sorted(unknown)}; allowed: {sorted(_SPEC_KEYS)}"
                )
            if "scale" not in fmt:
                raise TypeError(f"{where} needs a 'scale' (decimal places to print)")
            scale = as_int(fmt["scale"], f"{where}: scale of column {name!r}")
            exponent = fmt.get("exponent")
            if exponent is not None:
                exponent = as_int(exponent, f"{where}: exponent of column {name!r}")
            fmt = NumberFormat(exponent, scale, fmt.get("null"))
        elif not isinstance(fmt, NumberFormat):
            raise TypeError(
                f"{where} must be a NumberFormat or a dict with 'scale', got"
                f" {rules.show_value(fmt)}"
            )
        if fmt.scale is None:
            raise TypeError(f"{where} needs a scale (decimal places to print)")
        for part, value in (("exponent", fmt.exponent), ("scale", fmt.scale)):
            if value is not None and not rules.is_int(value) and not isinstance(value, str):
                raise TypeError(f"{where}: a per-row {part} is a column's name in vecfix.dask")
            if isinstance(value, str) and value not in meta.columns:
                raise KeyError(f"{where}: {part} {value!r} is not a column of the frame")
        dtype = meta[name].dtype
        try:  # (an object column reads as "empty": its values are decided in each partition)
            kind = kind_of(dtype)
        except TypeError as exc:
            raise TypeError(f"{where}: column {name!r} has dtype {dtype}: {exc}") from None
        source = f"the column {name!r} of dtype {dtype}"
        rules.needs(kind, fmt.exponent, fmt.null, source=source, where=f"{where}: ")
        out[name] = fmt
    return out


def _format_partition(
    part: pd.DataFrame,
    formats: Mapping[str, NumberFormat],
    suffix: str,
    partition_info: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """One partition, each column through the per-batch function of the polars namespace
    (on one thread: dask runs a partition per worker thread already), in Arrow's layout. A
    :class:`~vecfix.RowError` keeps its row (counted in the partition) and names the
    partition and the row's index label."""
    out = part.copy(deep=False)
    for column, fmt in formats.items():
        series = part[column]
        layouts = {"exponent": fmt.exponent, "scale": fmt.scale}
        per_row = {k: part[v] for k, v in layouts.items() if isinstance(v, str)}
        try:
            text = format_values(series, fmt, column=column, layout="arrow", threads=1, **per_row)
        except RowError as exc:
            if exc.row is None:
                raise
            label = series.index[exc.row]
            label = label.item() if isinstance(label, np.generic) else label
            number = 0 if partition_info is None else int(partition_info["number"])
            where = f"partition {number}, index {rules.show_value(label, 40)}, "
            raise type(exc)(
                exc.detail, argument=exc.argument, row=exc.row, lead=where + exc.lead
            ) from None
        out[column + suffix] = text.to_pandas(name=column + suffix, index=series.index)
    return out


def format_columns(ddf: dd.DataFrame, columns: ColumnFormats, *, suffix: str = "") -> dd.DataFrame:
    """Format integer or decimal columns of a Dask DataFrame, partition by partition.

    Lazy: one ``map_partitions`` step, each partition formatted where it lives by the
    per-batch function of the polars namespace and ``vecfix format``. The result keeps
    ``ddf``'s partitions, index and divisions.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        The data.
    columns : dict of str to NumberFormat
        ``{column: NumberFormat(exponent, scale, null=...)}``. ``scale`` is required (an
        int, or the name of a column holding each row's; a row whose scale or exponent is
        ``<NA>`` is ``<NA>``). ``exponent`` is required for integer columns and refused
        for values that carry their own (Arrow decimals, decimal text, ``Decimal``); an
        ``object`` column with an exponent is read as Python ints. ``null``: sentinel
        coefficients of an integer column, e.g. CME ``PRICENULL9``. A dict ``{"scale": s,
        "exponent": e, "null": n}`` of ints is taken too.
    suffix : str, default ""
        Empty: the formatted columns replace the inputs. Otherwise each is added as
        ``column + suffix`` after the existing columns.

    Returns
    -------
    dask.dataframe.DataFrame
        The formatted columns as ``string[pyarrow]`` (``STRING_DTYPE``); nulls and null
        sentinels are ``<NA>``.

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
    formats = _formats(meta, columns)
    out_meta = meta.copy(deep=False)
    for column in formats:
        out_meta[column + suffix] = pd.Series([], dtype=STRING_DTYPE, index=meta.index)
    return ddf.map_partitions(
        _format_partition, formats, suffix, meta=out_meta, align_dataframes=False
    )


def local_cluster_options(n_workers: int = 2) -> dict[str, Any]:
    """Keyword arguments for a ``distributed.LocalCluster`` that listens on loopback only.

    ``n_workers`` processes of one thread each, bound to ``127.0.0.1`` on free ports, no
    dashboard, logs below CRITICAL silenced (a failed task is raised by the call that
    computes it; a worker's "Compute Failed" log would only repeat it on stderr).

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

    ``dask.dataframe.read_parquet``, :func:`format_columns`, ``to_parquet`` (one output
    file per input partition, index included): ``vecfix format --dask [ADDRESS]``. A local
    output folder is written beside itself and put in place of the old one when every
    partition is written (:func:`vecfix._io.atomic_path`): an error leaves it as it was.

    Parameters
    ----------
    input_path, output_path : str or os.PathLike
        Parquet datasets (a directory, a file or a glob; any URL Dask reads) every worker
        can reach.
    columns : dict of str to NumberFormat
        As for :func:`format_columns`.
    scheduler : str, distributed.Client or None, default None
        ``None``: a local cluster for this call (:func:`local_cluster_options`), closed
        before returning. A scheduler address (``"tcp://10.0.0.5:8786"``): a client
        connected for the call. A ``Client``: used as is and left open.
    suffix : str, default ""
        As for :func:`format_columns`.
    n_workers : int, default 2
        Worker processes of the local cluster (``scheduler=None`` only).
    read_kwargs, write_kwargs : dict, optional
        Extra keyword arguments for ``read_parquet`` and ``to_parquet``; columns are read
        with ``dtype_backend="pyarrow"`` (an integer column with nulls stays integers)
        unless ``read_kwargs`` says otherwise.

    Returns
    -------
    int
        ``npartitions`` of the formatted frame: the output files, unless Dask fuses small
        partitions.

    Raises
    ------
    ImportError
        If ``distributed`` is not installed.
    KeyError, TypeError
        As for :func:`format_columns`, before any work is sent.

    Examples
    --------
    >>> vd.format_parquet(                                          # doctest: +SKIP
    ...     "ticks/", "ticks-text/", {"px": {"exponent": -9, "scale": 4}}, scheduler=None
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
    read = {"dtype_backend": "pyarrow", **dict(read_kwargs or {})}
    ddf = dd.read_parquet(os.fspath(input_path), **read)
    formatted = format_columns(ddf, columns, suffix=suffix)  # checks before any work
    address = isinstance(scheduler, (str, os.PathLike))
    if scheduler is not None and not address and not hasattr(scheduler, "submit"):
        raise TypeError(
            "scheduler must be None, an address string or a distributed.Client, got "
            f"{type(scheduler).__name__}"
        )
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = stack.enter_context(LocalCluster(**local_cluster_options(n_workers)))
            scheduler = stack.enter_context(Client(cluster, set_as_default=False))
        elif address:
            scheduler = stack.enter_context(Client(os.fspath(scheduler), set_as_default=False))
        kwargs = {"compute_kwargs": {"scheduler": scheduler}, **dict(write_kwargs or {})}
        output = os.fspath(output_path)
        if "://" not in output:  # a local dataset: replaced whole, or left as it was
            output = stack.enter_context(atomic_path(output, folder=True))
        formatted.to_parquet(output, compute=True, **kwargs)
    return formatted.npartitions
