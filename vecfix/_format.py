"""``format_fixed``: read the inputs, make the plan, run the engine it names.

One call reads down: :func:`vecfix._inputs.read_inputs` turns the arguments into rows
(:mod:`vecfix.columns` reads every kind of column), :func:`vecfix._plan.plan` decides the
engine, threads and layout once, and the engine writes the rows: the compiled kernels
(:mod:`vecfix._passes`) or plain Python (:mod:`vecfix._python`). The call of a trading
loop (a few int64 rows, one exponent and scale, no option) is recognised first and runs
one kernel call (:func:`vecfix._kernels.rows.format_few`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from . import _engine, _plan, _python, _tuning
from ._inputs import plain_list, read_inputs
from ._limits import INT64_MAX, INT64_MIN
from ._number_format import NumberFormat, number_format
from ._result import Formatted
from .columns import ColumnLike
from .columns.rules import NullLike, show_value

_INT64, _INT32, _UINT8 = np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint8)
#: A deprecated keyword left out (``None`` is a value: "no exponent").
_UNSET: Any = type("_Unset", (), {"__repr__": lambda self: "<unset>"})()
#: Bytes a row the call of a few rows makes room for (a wider layout takes the general path).
_FEW_ROOM = 64
_FEW_ROWS = _tuning.FEW_ROWS
_STATE = _engine._state  # ("mode": "python" turns the kernels off, for tests)
#: :func:`vecfix._kernels.rows.format_few`, once a call has found the kernels loaded.
_FEW_KERNEL: list[Callable[..., int]] = []
_trusted = Formatted._trusted
_empty = np.empty


def format_fixed(
    coefficients: ColumnLike,
    exponent: ColumnLike | NumberFormat = None,
    scale: ColumnLike = None,
    *,
    width: int | None = None,
    out: np.ndarray | None = None,
    threads: int | None = None,
    null: NullLike = None,
    layout: Literal["matrix", "arrow", "string_view"] = "matrix",
    exponents: Any = _UNSET,
    scales: Any = _UNSET,
) -> Formatted:
    """Format ``coefficients * 10**exponent`` with ``scale`` decimals, as FIX engines do.

    Each row is rounded half away from zero and printed exactly as shopspring/decimal's
    ``StringFixed(scale)`` (QuickFIX/Go's ``FIXDecimal``) prints it: exactly ``scale``
    digits after the point, no negative zero, no exponent notation; a negative scale rounds
    to a multiple of ``10**-scale``.

    Parameters
    ----------
    coefficients : array_like of int, or a column of decimals
        Integer coefficients: any NumPy integer dtype, or Python ints of any size (lists,
        object arrays). int64 takes the fast path; values beyond int64 are formatted by
        the exact :mod:`decimal` fallback. Floats and bools are refused. Also accepted,
        as read by :func:`vecfix.decimal_column`: pyarrow, pandas and polars integer
        columns, and values that carry their own exponent (``Decimal`` sequences,
        decimal text, Arrow decimal arrays, pandas/polars decimal columns, a
        :class:`vecfix.DecimalColumn`). Their nulls (and ``None`` or ``pd.NA`` in lists)
        give null rows.
    exponent : int, array_like of int, or NumberFormat, optional
        Power of ten of each coefficient (``-9`` for CME PRICE9), within int32. A scalar
        or an array broadcast against ``coefficients``. Required for integers; must be
        left out (``None``) for values that carry their own exponent. A
        :class:`vecfix.NumberFormat` in its place gives the exponent, the scale and the
        null sentinels at once (``scale=`` or ``null=`` beside it is a ``TypeError``, as
        in the namespaces: one or the other).
    scale : int or array_like of int
        Decimal places to print, within int32; broadcast like ``exponent``. Rows are
        paired by position: a pandas Series of exponents or scales must have the
        coefficients' index (else :class:`ValueError`; ``reindex`` it first). A row whose
        exponent or scale is null (``None`` in a list, a masked, pandas, polars or Arrow
        null) is a null row, as pandas and polars propagate nulls.
    width : int, optional
        Bytes per row of the result. Default: the longest row.
    out : numpy.ndarray, optional
        A C-contiguous ``(n, width)`` uint8 matrix to write into instead of allocating one;
        its second dimension is the width. The result is a view of it: a later call into
        the same ``out`` changes the earlier result's text.
    threads : int or None, default None
        Threads to split the rows over (the kernels release the GIL). By default (``None``)
        a large input uses every core this process may run on, as polars and DuckDB do; a
        thread takes at least 65,536 rows, so smaller inputs run on the calling thread
        alone. ``threads=1`` keeps a call on one thread (inside a worker pool, say;
        :mod:`vecfix.dask` does). The bytes are identical whatever the count.
    null : int or sequence of int, optional
        Sentinel coefficients that mean "no value", e.g. ``2**63 - 1`` (CME
        ``PRICENULL9``, Databento ``UNDEF_PRICE``). Rows equal to one of them are null.
        Without it, integer coefficients holding int64 max or min (or uint64 max) are
        printed as numbers, with one :class:`~vecfix.columns.rules.SentinelWarning` (a
        ``UserWarning``) a call naming ``null=``.
    exponents, scales
        The old names of ``exponent`` and ``scale``: deprecated, taken with a
        ``DeprecationWarning`` until vecfix 0.3 (beside the new name, a ``TypeError``).
    layout : {"matrix", "arrow", "string_view"}, default "matrix"
        How the compiled kernels lay the text out (a call of a few rows in a process that
        has not loaded them runs in plain Python and makes a matrix: see below).
        ``"matrix"``: the byte matrix. ``"arrow"``: Arrow's ``string`` layout (int32
        offsets and the rows back to back), written by the kernels directly, so that
        :meth:`~Formatted.to_arrow` and :meth:`~Formatted.to_pandas` copy nothing.
        ``"string_view"``: Arrow's
        ``string_view`` records (16 bytes a row: its length, then its text), polars' own
        layout for strings, written by the kernels directly where every row is at most 12
        bytes (prices, sizes), so that :meth:`~Formatted.to_polars` and
        ``to_arrow(view=True)`` copy nothing; longer rows are laid out as a matrix. With
        either, the matrix is made on first use of :attr:`~Formatted.matrix` (or of a
        method that reads it). The text is the same. Not with ``width`` or ``out``.
        Inputs the kernels do not write alone (values beyond int64, or more than 2 GiB of
        text) are laid out as a matrix and converted.

    Notes
    -----
    The rows are written by Numba kernels, compiled once per machine into Numba's
    on-disk cache and loaded by each process the first time it needs them (a fraction of
    a second). A process does its first few thousand rows in plain Python instead
    (:mod:`decimal`, microseconds a row), so that a short job never pays for the kernels;
    the text is the same (:mod:`vecfix._engine` decides, and says how to choose).

    Returns
    -------
    Formatted
        The ``(n, width)`` byte matrix and the row lengths, with ``to_list()`` and
        ``to_numpy()``. A 0-d input gives one row. A null row is never printed: its
        length is 0, its matrix row zero, and ``valid`` is ``False`` there; it never
        widens the matrix, and a column of null rows only is 0 bytes wide (or
        ``width``).

    Raises
    ------
    TypeError
        If an input is not integer-typed (the message says what to pass instead),
        ``exponent`` is given for values that carry their own, or a ``NumberFormat``
        comes with ``scale=`` or ``null=``.
    ValueError
        If the inputs do not broadcast, are not 1-D, an exponent or scale is outside int32,
        a row would exceed :data:`MAX_ROW_LENGTH`, or a row does not fit ``width`` (the
        message names the first such row and the width it needs). Nothing is truncated.

    Examples
    --------
    >>> import numpy as np, vecfix
    >>> px = np.array([5000_250000000, -4_000000, 12_345678901], dtype=np.int64)
    >>> out = vecfix.format_fixed(px, -9, 4)
    >>> out.to_list()
    ['5000.2500', '-0.0040', '12.3457']
    >>> out.to_numpy()
    array([b'5000.2500', b'-0.0040', b'12.3457'], dtype='|S9')
    >>> vecfix.format_fixed([125, -125, 2**70], [-3, -3, -2], 2).to_list()
    ['0.13', '-0.13', '11805916207174113034.24']
    >>> from decimal import Decimal
    >>> vecfix.format_fixed([Decimal("2.675"), None, Decimal("1E-3")], scale=2).to_list()
    ['2.68', None, '0.00']
    >>> vecfix.format_fixed(np.array([b"0.00100000", b"-12.5"]), scale=3).to_list()
    ['0.001', '-12.500']
    >>> vecfix.format_fixed([15, 2**63 - 1], -1, 0, null=2**63 - 1).to_list()
    ['2', None]
    >>> PRICE9 = vecfix.NumberFormat(-9, 2, null=2**63 - 1)
    >>> vecfix.format_fixed(np.array([5000_250000000, 2**63 - 1]), PRICE9).to_list()
    ['5000.25', None]
    >>> vecfix.format_fixed([125, 125, 125], -2, [1, None, 0]).to_list()  # a null scale
    ['1.3', None, '1']
    """
    e, s, nulls = exponent, scale, null
    if type(e) is NumberFormat and s is None and nulls is None:  # (one format)
        e, s, nulls = e.exponent, e.scale, e.null
    if (  # the call of a trading loop, recognised first and cheaply: a few int64 rows
        type(coefficients) is np.ndarray
        and type(e) is int
        and type(s) is int
        and width is out is None
        and layout == "matrix"
        and exponents is scales is _UNSET
        and (threads is None or (type(threads) is int and threads == 1))
        and (nulls is None or (type(nulls) is int and (nulls == INT64_MAX or nulls == INT64_MIN)))
        and coefficients.dtype is _INT64
        and coefficients.ndim == 1
        and coefficients.shape[0] <= _FEW_ROWS
        and _FEW_KERNEL
        and _STATE["mode"] != "python"
    ):
        n = coefficients.shape[0]
        lengths = _empty(n, _INT32)
        flat = _empty(n * _FEW_ROOM + _plan.SLACK, _UINT8)
        try:  # -1: not its call (a null sentinel among the rows, a wide layout...)
            w = _FEW_KERNEL[0](coefficients, e, s, flat, lengths)
        except (TypeError, OverflowError):  # an array it does not take as it is (strided)
            w = -1
        if w >= 0:
            return _trusted(flat[: n * w].reshape(n, w), lengths)
    exponent, scale = renamed("format_fixed", exponent, scale, exponents, scales)
    return run(coefficients, exponent, scale, width, out, threads, null, layout)


def renamed(owner: str, exponent: Any, scale: Any, exponents: Any, scales: Any) -> tuple[Any, Any]:
    """``exponent`` and ``scale`` of a call that may use the plural keywords of vecfix 0.1
    (``exponents=``, ``scales=``): taken, with a :class:`DeprecationWarning`, for one
    release; given beside the new word, a :class:`TypeError`."""
    for old, new, value, given in (("exponents", "exponent", exponents, exponent),
                                   ("scales", "scale", scales, scale)):  # fmt: skip
        if value is _UNSET:
            continue
        if given is not None:
            raise TypeError(
                f"{owner}: give {new}= only ({old}= is its old name), got {new}="
                f"{show_value(given, 40)} and {old}={show_value(value, 40)}"
            )
        warnings.warn(
            f"{owner}: {old}= is deprecated, and will be removed in vecfix 0.3; say {new}=",
            DeprecationWarning,
            stacklevel=3,
        )
    return (
        exponent if exponents is _UNSET else exponents,
        scale if scales is _UNSET else scales,
    )


def run(
    coefficients: ColumnLike,
    exponent: Any,
    scale: ColumnLike,
    width: int | None = None,
    out: np.ndarray | None = None,
    threads: int | None = None,
    null: NullLike = None,
    layout: Literal["matrix", "arrow", "string_view"] = "matrix",
    sentinels: bool = True,
) -> Formatted:
    """:func:`format_fixed`'s general path, its keywords decided. ``sentinels=False``: no
    warning for a usual null sentinel (a caller that warns in its own words)."""
    if isinstance(exponent, NumberFormat):
        exponent, scale, null = number_format_parts(exponent, scale, null)
    if type(coefficients) is list:  # Python ints within int64: the array they make, once
        coefficients = plain_list(coefficients, exponent, scale)
    elif coefficients is None:  # (read as a column, it would be one null row)
        raise TypeError(
            "coefficients is None: pass the values to format (a null row is None within"
            " them, e.g. [None])"
        )
    _plan.check_options(width, out, threads, layout)
    inputs = read_inputs(coefficients, exponent, scale, null)
    rows, valid = inputs.rows, inputs.valid
    if valid is not None and rows.n and not valid.any():
        return _all_null(rows.n, width, out, layout, valid, inputs.identity)
    plan = _plan.plan(rows.n, width, out, threads, layout)
    warn = sentinels and null is None and inputs.integers
    if plan.kernels:
        from . import _passes

        if not _FEW_KERNEL:  # (the call of a few rows may take its shortcut from now on)
            _FEW_KERNEL.append(_passes.FEW_KERNEL)
        return _passes.run(rows, valid, plan, inputs.identity, warn)
    return _python.run(rows, valid, plan, inputs.identity, warn)


def number_format_parts(fmt: NumberFormat, scale: Any, null: Any) -> tuple[Any, Any, Any]:
    """The exponent, scale and null of a :class:`NumberFormat` given in ``exponent``'s
    place: ``scale=`` or ``null=`` beside it is refused (as the namespaces refuse it), and
    so is a column's name (``format_fixed`` has no other columns)."""
    fmt = number_format("format_fixed", None, fmt, scale, null)
    for name, value in (("exponent", fmt.exponent), ("scale", fmt.scale)):
        if isinstance(value, str):
            raise TypeError(
                f"format_fixed: the NumberFormat's {name} names a column ({show_value(value)}),"
                f" and format_fixed has no other columns\nGive {name} as an int or as values"
                " of one a row, or format a frame's column (series.vecfix.fixed(...))"
            )
    return fmt.exponent, fmt.scale, fmt.null


def _all_null(
    n: int, width: int | None, out: np.ndarray | None, layout: str, valid: np.ndarray, identity
) -> Formatted:
    """Every row null: no text, so no width of its own (a placeholder zero is not a value
    the user gave): a matrix of ``width`` (or ``out``'s) bytes, else of 0, all zero bytes,
    every length 0; or an empty Arrow layout."""
    if layout == "arrow":  # (an empty data buffer at a real address: polars < 2 needs one)
        return Formatted._packed(
            np.zeros(n + 1, np.int32), np.zeros(8, np.uint8)[:0], valid, identity
        )
    if out is not None:
        if out.shape[0] != n:
            raise ValueError(f"out has {out.shape[0]} rows but the inputs have {n}")
        out[...] = 0
        matrix = out
    else:
        matrix = np.zeros((n, 0 if width is None else int(width)), dtype=np.uint8)
    return Formatted(matrix, np.zeros(n, dtype=np.int32), valid, identity=identity)
