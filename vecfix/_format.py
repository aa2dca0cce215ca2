"""``format_fixed``: validate once, run the kernels, stitch in the fallback rows."""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _kernels
from ._fallback import INT32_MAX as _INT32_MAX
from ._fallback import INT32_MIN as _INT32_MIN
from ._fallback import MAX_ROW_LENGTH, RowTooLongError, row_length, string_fixed
from ._inputs import _NATIVE_INT64, Rows, _int32_constant, prepare
from ._interop import blank_nulls, resolve
from ._jit import readonly
from ._result import Formatted

_T = _kernels.TABLES
_TABLES = tuple(_T)
_WORDS, _DIGITS4 = _kernels.WORDS, _T.digits4
_SLACK = 8


def format_fixed(
    coefficients: object,
    exponents: object = None,
    scales: object = None,
    *,
    width: int | None = None,
    out: np.ndarray | None = None,
    threads: int | None = 1,
    null: int | Sequence[int] | None = None,
) -> Formatted:
    """Format ``coefficients * 10**exponents`` with ``scales`` decimals, as FIX engines do.

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
        :class:`vecfix.DecimalColumn`). Their nulls (and ``None`` in lists) give null rows.
    exponents : int or array_like of int, optional
        Power of ten of each coefficient (``-9`` for CME PRICE9), within int32. A scalar
        or an array broadcast against ``coefficients``. Required for integers; must be
        left out (``None``) for values that carry their own exponent.
    scales : int or array_like of int
        Decimal places to print, within int32; broadcast like ``exponents``.
    width : int, optional
        Bytes per row of the result. Default: the longest row.
    out : numpy.ndarray, optional
        A C-contiguous ``(n, width)`` uint8 matrix to write into instead of allocating one;
        its second dimension is the width.
    threads : int or None, default 1
        Threads to split the rows over (the kernels release the GIL). ``None`` uses every
        core (``os.cpu_count()``). Inputs under 65,536 rows always run on one thread. The
        bytes are identical whatever the count.
    null : int or sequence of int, optional
        Sentinel coefficients that mean "no value", e.g. ``2**63 - 1`` (CME
        ``PRICENULL9``, Databento ``UNDEF_PRICE``). Rows equal to one of them are null.

    Returns
    -------
    Formatted
        The ``(n, width)`` byte matrix and the row lengths, with ``to_list()`` and
        ``to_numpy()``. A 0-d input gives one row. A null row is never printed: its
        length is 0, its matrix row zero, and ``valid`` is ``False`` there.

    Raises
    ------
    TypeError
        If an input is not integer-typed (the message says what to pass instead), or
        ``exponents`` is given for values that carry their own.
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
    >>> vecfix.format_fixed([Decimal("2.675"), None, Decimal("1E-3")], scales=2).to_list()
    ['2.68', None, '0.00']
    >>> vecfix.format_fixed(np.array([b"0.00100000", b"-12.5"]), scales=3).to_list()
    ['0.001', '-12.500']
    >>> vecfix.format_fixed([15, 2**63 - 1], -1, 0, null=2**63 - 1).to_list()
    ['2', None]
    """
    if (
        type(coefficients) is np.ndarray
        and type(exponents) is int
        and type(scales) is int
        and width is None
        and out is None
        and null is None
        and type(threads) is int
        and threads == 1
        and coefficients.dtype == _NATIVE_INT64
        and coefficients.ndim == 1
        and coefficients.flags.c_contiguous
        and _INT32_MIN <= exponents <= _INT32_MAX
        and _INT32_MIN <= scales <= _INT32_MAX
    ):
        done = _format_int64(coefficients, exponents, scales)
        if done is not None:
            return done
    coefficients, exponents, scales, valid = resolve(coefficients, exponents, scales, null)
    rows = _one_layout_if_constant(prepare(coefficients, exponents, scales))
    threads = _thread_count(rows.n, threads)
    lengths = np.empty(rows.n, dtype=np.int32)
    args = (readonly(rows.coef), rows.cstep, readonly(rows.exps), rows.estep)
    args += (readonly(rows.scales), rows.sstep)
    widest = _uniform_widest(rows, threads)
    if widest is None and (rows.estep or rows.sstep):  # the fill reads the plans in lengths
        plan = _kernels.plan_runs if _in_runs(rows) else _kernels.plan_rows
        widest = max(_run(plan, rows.n, threads, *args, lengths, _T.half, _T.pow10), default=0)
    measured = widest is None or widest > MAX_ROW_LENGTH  # measure() raises for too long
    if measured:
        widest = _measure(rows, args, lengths, threads)
    big_text = _fallback_rows(rows) if rows.big_values else []
    big_lengths = [len(t) for t in big_text]
    if big_lengths:
        widest = max(widest, *big_lengths)
    matrix, flat = _output_matrix(rows.n, widest, width, out)
    if matrix.shape[1] < widest:
        if not measured:
            _measure(rows, args, lengths, threads)
        lengths[rows.big_rows] = big_lengths
        i = int(np.flatnonzero(lengths > matrix.shape[1])[0])
        c, e, s = rows.row(i)
        raise RowTooLongError(
            f"row {i} (coefficient={c}, exponent={e}, scale={s}) needs {int(lengths[i])}"
            f" bytes but the width is {matrix.shape[1]}; widest row needs {widest}"
        )
    _run(_kernels.fill, rows.n, threads, *args, flat, matrix.shape[1], lengths, _TABLES)
    for i, text in zip(rows.big_rows.tolist() if big_text else (), big_text, strict=True):
        lengths[i] = len(text)
        matrix[i, : len(text)] = np.frombuffer(text, dtype=np.uint8)
        matrix[i, len(text) :] = 0
    return Formatted(matrix, lengths, blank_nulls(matrix, lengths, valid))


def _format_int64(coef: np.ndarray, exponent: int, scale: int) -> Formatted | None:
    """The common call (an int64 column, one exponent and scale, no options), lean.

    The same kernels as the general path with nothing else around them, so that a call
    on a handful of values costs microseconds. Returns None for a row over the length
    limit, which the general path then reports.
    """
    n = coef.shape[0]
    coef = readonly(coef)
    if n < _MEASURE_BELOW:
        bound = _longest_row(exponent, scale)
        if bound <= _SMALL_ROW_BOUND:  # one kernel call measures and fills
            flat = np.empty(n * bound + _SLACK, dtype=np.uint8)
            lengths = np.empty(n, dtype=np.int32)
            widest = _kernels.format_small(coef, exponent, scale, flat, lengths, _WORDS, _DIGITS4)
            return Formatted._trusted(flat[: n * widest].reshape(n, widest), lengths)
    e, s = _int32_constant(exponent), _int32_constant(scale)
    lengths = np.empty(n, dtype=np.int32)
    if n < _MEASURE_BELOW:
        widest, first = _kernels.measure(0, n, coef, 1, e, 0, s, 0, lengths, MAX_ROW_LENGTH,
                                         _T.half, _T.pow10)  # fmt: skip
    else:  # the fill writes the lengths
        widest = _widest_of_extremes(coef, exponent, scale)
        first = 0 if widest > MAX_ROW_LENGTH else -1
    if first >= 0:
        return None
    flat = np.empty(n * widest + _SLACK, dtype=np.uint8)
    _kernels.fill(0, n, coef, 1, e, 0, s, 0, flat, widest, lengths, _TABLES)
    return Formatted._trusted(flat[: n * widest].reshape(n, widest), lengths)


#: :func:`_format_int64` takes one kernel call for few rows when no row under the layout
#: can be longer than this (the buffer is sized for the longest row an int64 can print).
_SMALL_ROW_BOUND = 64


@functools.lru_cache(maxsize=4096)
def _longest_row(exponent: int, scale: int) -> int:
    """The longest row any int64 prints under ``(exponent, scale)``: that of ``-2**63``
    (the length grows with ``|c|``, and a sign only adds to it)."""
    return row_length(-(2**63), exponent, scale)


def _measure(rows: Rows, args: tuple, lengths: np.ndarray, threads: int) -> int:
    """Write every row's length (the kernel's view: big rows as 0); return the widest."""
    parts = _run(
        _kernels.measure, rows.n, threads, *args, lengths, MAX_ROW_LENGTH, _T.half, _T.pow10
    )
    too_long = [first for _, first in parts if first >= 0]
    if too_long:
        _raise_too_long(rows, min(too_long))
    return max((w for w, _ in parts), default=0)


#: Below this many rows the measuring kernel is cheaper than finding the extremes.
_MEASURE_BELOW = 512


def _one_layout_if_constant(rows: Rows) -> Rows:
    """``rows`` with an exponent or scale array whose values are all one value taken as
    that value (step 0), so that the fill runs the one-layout loop."""
    if rows.estep and _constant(rows.exps):
        rows = rows._replace(exps=rows.exps[:1], estep=0)
    if rows.sstep and _constant(rows.scales):
        rows = rows._replace(scales=rows.scales[:1], sstep=0)
    return rows


def _constant(values: np.ndarray) -> bool:
    """Whether the 1-D ``values`` are all equal (first and last compared first: a column
    that varies rarely costs a full pass)."""
    return len(values) > 1 and values[0] == values[-1] and values.min() == values.max()


#: :func:`_in_runs` looks at this many rows.
_RUN_SAMPLE = 4096


def _in_runs(rows: Rows) -> bool:
    """Whether the rows come in runs of one exponent and scale (a table sorted by
    instrument), judged on the first rows: then the kernel ``plan_runs`` is faster."""
    if rows.n < _RUN_SAMPLE:
        return False
    changes = np.zeros(_RUN_SAMPLE - 1, dtype=bool)
    for values, step in ((rows.exps, rows.estep), (rows.scales, rows.sstep)):
        if step:
            changes |= values[1:_RUN_SAMPLE] != values[: _RUN_SAMPLE - 1]
    return int(np.count_nonzero(changes)) * 4 * _kernels._RUN < _RUN_SAMPLE


def _uniform_widest(rows: Rows, threads: int = 1) -> int | None:
    """The longest row when every row shares one exponent and scale, else None."""
    if rows.estep or rows.sstep or rows.n < _MEASURE_BELOW:
        return None if rows.n else 0
    return _widest_of_extremes(rows.coef, int(rows.exps[0]), int(rows.scales[0]), threads)


def _widest_of_extremes(coef: np.ndarray, exponent: int, scale: int, threads: int = 1) -> int:
    """The longest row of ``coef`` under one exponent and scale, from two of its rows.

    The length only grows with ``|c|``, so the smallest and the largest coefficient bound
    it and the measuring pass can be skipped (the fill writes the lengths). With
    ``threads``, each thread finds the extremes of its part (NumPy releases the GIL).
    """
    parts = _run(_extremes, coef.size, min(threads, coef.size), coef)
    low, high = min(lo for lo, _ in parts), max(hi for _, hi in parts)
    return max(row_length(low, exponent, scale), row_length(high, exponent, scale))


def _extremes(start: int, stop: int, coef: np.ndarray) -> tuple[int, int]:
    """The smallest and the largest of ``coef[start:stop]``."""
    part = coef[start:stop]
    return int(part.min()), int(part.max())


#: Inputs shorter than this run on one thread: a thread's start costs more than it saves.
MIN_ROWS_PER_THREAD = 65_536


def _thread_count(n: int, threads: int | None) -> int:
    """How many threads to use for ``n`` rows when the caller asks for ``threads``."""
    if threads == 1 and type(threads) is int:
        return 1
    if threads is None:
        threads = os.cpu_count() or 1
    if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, (int, np.integer)):
        raise TypeError(f"threads must be a positive int or None, got {threads!r}")
    if threads < 1:
        raise ValueError(f"threads must be a positive int or None, got {threads}")
    return int(min(threads, max(n // MIN_ROWS_PER_THREAD, 1)))


def _run(kernel: Callable, n: int, threads: int, *args: object) -> list:
    """Run ``kernel(start, stop, *args)`` over rows ``0:n`` in ``threads`` even chunks.

    The kernels release the GIL, so the chunks run in parallel; returns their results.
    """
    if threads == 1:
        return [kernel(0, n, *args)]
    bounds = np.linspace(0, n, threads + 1).astype(np.int64).tolist()
    with ThreadPoolExecutor(threads, thread_name_prefix="vecfix") as pool:
        jobs = [pool.submit(kernel, lo, hi, *args) for lo, hi in itertools.pairwise(bounds)]
        return [job.result() for job in jobs]


def _fallback_rows(rows: Rows) -> list[bytes]:
    """Format the rows whose coefficient is beyond int64 with the decimal fallback."""
    texts = []
    for i, c in zip(rows.big_rows.tolist(), rows.big_values, strict=True):
        e, s = int(rows.exps[i * rows.estep]), int(rows.scales[i * rows.sstep])
        try:
            texts.append(string_fixed(c, e, s).encode("ascii"))
        except RowTooLongError as exc:
            raise RowTooLongError(f"row {i}: {exc}") from None
    return texts


def _raise_too_long(rows: Rows, i: int) -> None:
    c, e, s = rows.row(i)
    raise RowTooLongError(
        f"row {i} (coefficient={c}, exponent={e}, scale={s}) would print"
        f" {row_length(c, e, s)} bytes, more than vecfix.MAX_ROW_LENGTH={MAX_ROW_LENGTH};"
        " check the exponent and scale"
    )


def _output_matrix(
    n: int, widest: int, width: int | None, out: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The matrix to fill and the flat buffer under it (with slack bytes when it is ours).

    The matrix is the caller's ``out``, or a new one of ``width`` (or ``widest``) bytes.
    """
    if out is not None:
        if not isinstance(out, np.ndarray) or out.dtype != np.uint8 or out.ndim != 2:
            raise TypeError("out must be a 2-D uint8 numpy array of shape (n, width)")
        if out.shape[0] != n:
            raise ValueError(f"out has {out.shape[0]} rows but the inputs have {n}")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("out must be C-contiguous and writeable")
        if width is not None and width != out.shape[1]:
            raise ValueError(f"width={width} disagrees with out.shape[1]={out.shape[1]}")
        return out, out.reshape(-1)
    if width is None:  # the common case first: a matrix exactly as wide as the widest row
        flat = np.empty(n * widest + _SLACK, dtype=np.uint8)
        return flat[: n * widest].reshape(n, widest), flat
    if isinstance(width, (bool, np.bool_)) or not isinstance(width, (int, np.integer)):
        raise TypeError(f"width must be an int, got {type(width).__name__} {width!r}")
    if not 0 <= width <= MAX_ROW_LENGTH:
        raise ValueError(f"width must be between 0 and {MAX_ROW_LENGTH}, got {width}")
    # 8 slack bytes after the last row let the kernel write every row with 8-byte stores.
    flat = np.empty(n * int(width) + _SLACK, dtype=np.uint8)
    return flat[: n * int(width)].reshape(n, int(width)), flat
