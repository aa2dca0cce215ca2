"""``format_fixed``: validate once, run the kernels, stitch in the fallback rows.

The kernel that writes the rows is ``format_rows`` (:func:`_row_kernel` chooses the block
or the row-at-a-time one), except while the cold tier runs (:mod:`vecfix._coldstart`:
the chosen kernel has no compiled code anywhere yet and a worker process compiles it),
when :func:`_cold_rows` writes the same bytes with a scalar kernel that compiles in a
fraction of the time, and NumPy finds the extremes.
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from . import _coldstart, _tuning
from ._inputs import _NATIVE_INT64, Rows, _int32_constant, plain_list, read_inputs
from ._jit import readonly, target_has
from ._kernels import fixed as _kernels
from ._kernels.fixed import FILL, HINTED, MEASURE, PACK, PACK_AT
from ._limits import INT32_MAX as _INT32_MAX
from ._limits import INT32_MIN as _INT32_MIN
from ._limits import INT64_MAX, INT64_MIN
from ._measure import Thresholds as _Thresholds
from ._measure import text_size as _text_size
from ._measure import thresholds as _thresholds
from ._result import Formatted
from ._scalar import MAX_ROW_LENGTH, RowTooLongError, row_length, string_fixed
from ._threads import run_parts as _run_parts
from ._threads import run_split as _run
from ._threads import split_bounds
from ._tuning import FEW_ROWS as _FEW_ROWS
from ._tuning import MEASURE_BELOW as _MEASURE_BELOW
from ._tuning import MIN_ROWS_PER_THREAD, NULL_BLOCK, WIDE_MATRIX_BYTES, WIDE_MATRIX_RATIO
from .columns import ColumnLike
from .columns.rules import NullLike, RowError, show_int

#: Bytes after our matrix, so that the kernel writes its last rows with 8-byte stores.
_SLACK = 8
_NO_BYTES = np.empty(0, dtype=np.uint8)
_NO_HINTS = np.empty(0, dtype=np.int32)
#: ``layout="arrow"`` writes int32 offsets: a buffer of rows x widest bytes up to this.
_PACK_LIMIT = _INT32_MAX
#: ... and, past WIDE_MATRIX_BYTES, rows up to this wide (a block row prints at most 18).
_PACK_WIDEST = 32
#: The longest text an Arrow ``string_view`` record holds in itself (16 bytes: the length,
#: then up to 12 bytes of text).
VIEW_INLINE = 12
_LOCAL = threading.local()


def format_fixed(
    coefficients: ColumnLike,
    exponents: ColumnLike = None,
    scales: ColumnLike = None,
    *,
    width: int | None = None,
    out: np.ndarray | None = None,
    threads: int | None = None,
    null: NullLike = None,
    layout: Literal["matrix", "arrow", "string_view"] = "matrix",
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
        :class:`vecfix.DecimalColumn`). Their nulls (and ``None`` or ``pd.NA`` in lists)
        give null rows.
    exponents : int or array_like of int, optional
        Power of ten of each coefficient (``-9`` for CME PRICE9), within int32. A scalar
        or an array broadcast against ``coefficients``. Required for integers; must be
        left out (``None``) for values that carry their own exponent.
    scales : int or array_like of int
        Decimal places to print, within int32; broadcast like ``exponents``. Rows are
        paired by position: a pandas Series of exponents or scales must have the
        coefficients' index (else :class:`ValueError`; ``reindex`` it first).
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
    layout : {"matrix", "arrow", "string_view"}, default "matrix"
        How the kernels lay the text out. ``"matrix"``: the byte matrix. ``"arrow"``:
        Arrow's ``string`` layout (int32 offsets and the rows back to back), written by the
        kernels directly, so that :meth:`~Formatted.to_arrow` and
        :meth:`~Formatted.to_pandas` copy nothing. ``"string_view"``: Arrow's
        ``string_view`` records (16 bytes a row: its length, then its text), polars' own
        layout for strings, written by the kernels directly where every row is at most 12
        bytes (prices, sizes), so that :meth:`~Formatted.to_polars` and
        ``to_arrow(view=True)`` copy nothing; longer rows are laid out as a matrix. With
        either, the matrix is made on first use of :attr:`~Formatted.matrix` (or of a
        method that reads it). The text is the same. Not with ``width`` or ``out``.
        Inputs the kernels do not write alone (values beyond int64, or more than 2 GiB of
        text) are laid out as a matrix and converted.

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
    if type(coefficients) is list:  # Python ints within int64: the array they make, once
        coefficients = plain_list(coefficients, exponents, scales)  # (a few: the small call)
    elif coefficients is None:  # (read as a column, it was one null row)
        raise TypeError(
            "coefficients is None: pass the values to format (a null row is None within"
            " them, e.g. [None])"
        )
    if (  # the common call, recognised first and cheaply: an int64 column, no options
        type(coefficients) is np.ndarray
        and type(exponents) is int
        and type(scales) is int
        and width is None
        and out is None
        and null is None
        and layout == "matrix"
        and (threads is None or (type(threads) is int and threads == 1))
        and coefficients.ndim == 1
        and coefficients.dtype == _NATIVE_INT64
    ):
        flags = coefficients.flags
        done: Formatted | None = None
        if flags.c_contiguous:
            n = len(coefficients)
            if n < _MEASURE_BELOW:  # a few rows: one kernel call
                known = _SMALL_LAYOUTS.get((exponents, scales)) or _small_layout(exponents, scales)
                if known:
                    coef = coefficients if flags.aligned else coefficients.copy()  # one signature
                    if n > _FEW_ROWS:
                        return _format_small(coef, known)
                    # one scalar pass (vecfix._kernels.fixed.format_few), called here: the call of
                    # a trading loop, where every step costs (a function call is 5% of it)
                    lengths = np.empty(n, _INT32)
                    flat = np.empty(n * known[2] + _SLACK, _UINT8)
                    w = _few_entry(coef, exponents, scales, flat, lengths)
                    return _trusted(flat[: n * w].reshape(n, w), lengths)
            elif _INT32_MIN <= exponents <= _INT32_MAX and _INT32_MIN <= scales <= _INT32_MAX:
                done = _format_int64(coefficients, exponents, scales, threads)
            if done is not None:
                done._threads = threads  # for its conversions (to_arrow ...)
                return done
    if layout != "matrix":
        if layout not in ("arrow", "string_view"):
            raise ValueError(f'layout must be "matrix", "arrow" or "string_view", got {layout!r}')
        if width is not None or out is not None:
            raise ValueError(f'layout="{layout}" writes no matrix: leave width and out out')
        if layout == "string_view":  # the records where they hold every row, else a matrix
            inputs = read_inputs(coefficients, exponents, scales, null)
            return _format_read(inputs, threads, None, None, views=True)
        packed = _format_packed(coefficients, exponents, scales, threads, null)
        packed._threads = threads
        return packed
    return _format_read(read_inputs(coefficients, exponents, scales, null), threads, width, out)


def _fill_views(
    passes: _Passes, identity: Any, threads: int | None, lengths: np.ndarray, hinted: bool
) -> Formatted:
    """Every row (none longer than :data:`VIEW_INLINE`) written into its ``string_view``
    record (``format_fixed(..., layout="string_view")``): its length, then its text,
    zero-padded, 16 bytes a row, which polars takes as they are, with no byte matrix and
    no pass that copies one into records (1-3 ns a row); a null row's record all zero
    bytes. ``lengths``: room for the rows' lengths (``hinted``: holding the layouts'
    hints, see :meth:`_Passes.layouts_widest`)."""
    n = passes.rows.n
    # Each row's text 4 bytes into its record, zero-padded to the record's end: the
    # padding runs over the next record's length, which is written after.
    records = np.empty(2 * n + 2, dtype=np.uint64)  # 8 bytes of slack; 8-byte aligned
    flat = records.view(np.uint8)[4:]
    text = flat[: 16 * n].reshape(n, 16)[:, :VIEW_INLINE]

    def blank(nulls: np.ndarray) -> None:
        lengths[nulls] = 0
        text[nulls] = 0

    mode = FILL | HINTED if hinted else FILL
    passes.run(lambda r: (flat[r * 16 :], 16, lengths[r:], _INT32_MAX, mode), blank)
    records.view(np.int32)[: 4 * n : 4] = lengths
    done = Formatted._views(records[: 2 * n].reshape(n, 2), lengths, passes.valid, identity)
    done._threads = threads
    return done


def _format_read(
    inputs: Any,
    threads: int | None,
    width: int | None,
    out: np.ndarray | None,
    *,
    views: bool = False,
) -> Formatted:
    """:func:`format_fixed`'s general path, on inputs :func:`read_inputs` has read; with
    ``views``, ``layout="string_view"``'s (:func:`_fill_views` where every row is at most
    12 bytes, none beyond int64, the widest known: not a few rows of varying layouts, nor
    the cold tier)."""
    rows, valid = _for_kernels(inputs.rows), inputs.valid
    count = _thread_count(rows.n, threads)  # (checks threads)
    if valid is not None:
        if rows.n and not valid.any():
            done = _all_null(rows.n, width, out, valid, inputs.identity)
            done._threads = threads
            return done
        rows = _without_null_big_rows(rows, valid)
    if rows.n < _MEASURE_BELOW and not rows.big_values:
        done = _few_rows(rows, width, out, inputs.identity, valid)
        done._threads = threads
        return done
    passes = _Passes(rows, valid, count)
    lengths = np.empty(rows.n, dtype=np.int32)
    widest = passes.uniform_widest()
    hinted = False  # whether lengths holds the layouts' hints for the fill
    if widest is None and rows.n >= _MEASURE_BELOW:
        widest = passes.layouts_widest(lengths)
        hinted = widest is not None
    if views and not rows.big_values and rows.n:
        if widest is not None and widest <= VIEW_INLINE:  # (None: few rows, the cold tier)
            return _fill_views(passes, inputs.identity, threads, lengths, hinted)
    measured = widest is None or widest > MAX_ROW_LENGTH  # measure() raises for too long
    if measured:
        widest = _measure(passes, lengths)
    assert widest is not None  # measured when not known
    big_text = _fallback_rows(rows) if rows.big_values else []
    widest = max(widest, *map(len, big_text)) if big_text else widest
    if width is None and out is None and rows.n * widest > WIDE_MATRIX_BYTES:
        if not measured:
            _measure(passes, lengths)
            measured = True
        _refuse_few_wide_rows(rows, lengths, big_text, widest, valid, views)
    matrix, flat = _output_matrix(rows.n, widest, width, out)
    if matrix.shape[1] < widest:
        if not measured:
            _measure(passes, lengths)
        lengths[rows.big_rows] = [len(t) for t in big_text]
        _raise_too_narrow(rows, lengths, matrix.shape[1], widest, valid)
    passes.fill(matrix, flat, lengths, hinted and not measured)
    for i, text in zip(rows.big_rows.tolist() if big_text else (), big_text, strict=True):
        lengths[i] = len(text)
        matrix[i, : len(text)] = np.frombuffer(text, dtype=np.uint8)
        matrix[i, len(text) :] = 0
    done = Formatted(matrix, lengths, valid, identity=inputs.identity)
    done._threads = threads
    return done


def _all_null(
    n: int, width: int | None, out: np.ndarray | None, valid: np.ndarray, identity: Any
) -> Formatted:
    """Every row null: no text, so no width of its own (the placeholder the passes write
    for a null row, zero, is not a value the user gave: it must neither widen the matrix
    nor be named by a width check): a matrix of ``width`` (or ``out``'s) bytes, else of 0,
    all zero bytes, every length 0."""
    matrix, _ = _output_matrix(n, 0, width, out)
    matrix[...] = 0
    return Formatted(matrix, np.zeros(n, dtype=np.int32), valid, identity=identity)


def _few_rows(
    rows: Rows,
    width: int | None,
    out: np.ndarray | None,
    identity: Any,
    valid: np.ndarray | None = None,
) -> Formatted:
    """Fewer than :data:`_MEASURE_BELOW` rows without big values: the general path's
    steps for them (the lengths measured, the checks, the rows written) as two direct
    kernel calls. The passes' machinery (threads, null blocks, the widest-row passes) cost
    more than these rows: 8 rows of per-row scales took 17 us, the kernels 1.5 of them;
    8 rows with a null, 32 us. Null rows (``valid`` False) are what the passes' null
    blocks make of them (:func:`_null_block`: coefficient 0, and scale 0 where scales are
    per row), measured and written, then blanked (length 0, zero bytes)."""
    n = rows.n
    nulls = None if valid is None else np.flatnonzero(~valid)
    if nulls is not None and nulls.size:  # the zeroed copies of one null block
        head: tuple = _null_block(rows, 0, n, nulls, *_null_rooms(rows, n))
        rows = rows._replace(coef=head[0], scales=head[4])  # (the checks' messages read them)
    else:
        head = (readonly(rows.coef), rows.cstep, readonly(rows.exps), rows.estep)
        head += (readonly(rows.scales), rows.sstep)
    lengths = np.empty(n, dtype=np.int32)
    widest, first = _format_rows(0, n, *head, _NO_BYTES, 0, lengths, MAX_ROW_LENGTH, MEASURE)
    if first >= 0:  # (a null row's placeholder only when every row is too long)
        _raise_too_long(rows, first if valid is None else _first_valid(lengths == 0, valid))
    if width is None and out is None and n * widest > WIDE_MATRIX_BYTES:
        _refuse_few_wide_rows(rows, lengths, [], widest, valid)
    matrix, flat = _output_matrix(n, widest, width, out)
    if matrix.shape[1] < widest:
        _raise_too_narrow(rows, lengths, matrix.shape[1], widest, valid)
    _format_rows(0, n, *head, flat, matrix.shape[1], lengths, _INT32_MAX, FILL)
    if nulls is not None and nulls.size:
        lengths[nulls] = 0
        matrix[nulls] = 0
    return Formatted(matrix, lengths, valid, identity=identity)


def _format_packed(
    coefficients: ColumnLike,
    exponents: ColumnLike,
    scales: ColumnLike,
    threads: int | None,
    null: NullLike,
) -> Formatted:
    """``format_fixed(..., layout="arrow")``: the kernels write Arrow's layout directly."""
    inputs = read_inputs(coefficients, exponents, scales, null)
    rows, valid = _for_kernels(inputs.rows), inputs.valid
    count = _thread_count(rows.n, threads)  # (checks threads)
    if valid is not None:
        if rows.n and not valid.any():  # no text (see _all_null)
            ends = np.zeros(rows.n + 1, dtype=np.int32)
            return Formatted._packed(ends, np.empty(0, np.uint8), valid, inputs.identity)
        rows = _without_null_big_rows(rows, valid)
    passes = _Passes(rows, valid, count)
    widest = passes.uniform_widest()
    offsets = None  # the offsets, once they hold the layouts' hints (see _pack)
    if widest is None and rows.n >= _MEASURE_BELOW:
        offsets = np.empty(rows.n + 1, dtype=np.int32)
        widest = passes.layouts_widest(offsets[1:])
        offsets = None if widest is None else offsets
    if widest is None:  # a few rows (or the cold tier): measure them, naming a long one
        widest = _measure(passes, np.empty(rows.n, dtype=np.int32))
    if rows.big_values or widest > MAX_ROW_LENGTH:  # the matrix path: the fallback's
        return format_fixed(coefficients, exponents, scales, threads=threads, null=null)
    # _pack writes in a buffer of rows x widest, of which only the text's pages are ever
    # touched; rows much wider than the block rows (a few wide ones, most likely) are
    # measured first instead, and the buffer is the text's size
    size = rows.n * widest + _SLACK
    packed: tuple[np.ndarray, np.ndarray] | None
    if size <= _PACK_LIMIT and (size <= WIDE_MATRIX_BYTES or widest <= _PACK_WIDEST):
        packed = _pack(passes, widest, offsets)
    else:
        packed = _pack_measured(passes, widest)
    if packed is None:  # past int32 offsets: a matrix, which to_arrow() packs as large_string
        return format_fixed(coefficients, exponents, scales, threads=threads, null=null)
    offsets, data = packed
    return Formatted._packed(offsets, data, valid, inputs.identity)


def _pack_measured(passes: _Passes, widest: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Every row's text back to back at offsets measured first: the memory is the
    text's (and the offsets'), whatever one row's width. None when the text is past
    int32 offsets."""
    n = passes.rows.n
    offsets = np.empty(n + 1, dtype=np.int32)
    offsets[0] = 0
    ends = offsets[1:]
    _measure(passes, ends)  # each row's length, then, summed in place, where it ends
    total = int(ends.sum(dtype=np.int64))
    if total + _SLACK > _PACK_LIMIT:
        return None
    np.cumsum(ends, out=ends)
    data = np.empty(total + _SLACK, dtype=np.uint8)
    passes.run(lambda r: (data, int(widest), ends[r:], _INT32_MAX, PACK_AT))
    return offsets, data[:total]


def _pack(
    passes: _Passes, width: int, hinted: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Every row's text back to back: ``(offsets, data)`` in Arrow's ``string`` layout.

    Over several threads, rows of one layout and no nulls (the common column) are written
    where they end up (:func:`_pack_split`); otherwise each kernel call writes its rows
    from where its first row would start in a matrix of ``width`` and the text is moved
    together after (:func:`_pack_moved`), in ``hinted`` if given: offsets whose ``[1:]``
    hold the layouts' hints (:meth:`_Passes.layouts_widest`).
    """
    rows = passes.rows
    one_layout = passes.valid is None and not rows.estep and not rows.sstep
    if passes.threads > 1 and one_layout and not _cold_now(rows.n // passes.threads):
        packed = _pack_split(passes, width)
        if packed is not None:
            return packed
    return _pack_moved(passes, width, hinted)


def _pack_split(passes: _Passes, width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_pack` for one layout and no nulls, over threads, with nothing moved.

    Where a thread's part starts in the Arrow data is the size of the text before it,
    which :func:`vecfix._measure.text_size` counts without formatting (a few vectorized
    comparisons a row, a thirtieth to a tenth of the cost of writing it); each thread
    then writes its part there and adds its start to its offsets. With two threads
    (:func:`_pack_two`) the first part is written while the second thread counts it;
    with more, the threads count their parts, then write them.

    Returns None (and the caller packs the rows the other way) if a part's text did not
    end where the count said, which the counts' tests say cannot happen.
    """
    rows, width = passes.rows, int(width)
    n, threads = rows.n, passes.threads
    coef = readonly(rows.coef)
    low, high = passes.extremes or (INT64_MIN, INT64_MAX)
    layout = _thresholds(int(rows.exps[0]), int(rows.scales[0]), low, high)
    head = (readonly(rows.exps), 0, readonly(rows.scales), 0)
    if threads == 2:
        return _pack_two(coef, head, layout, width)
    sizes = _run(_text_size, n, threads, coef, layout)
    starts = np.cumsum([0, *sizes]).tolist()
    bounds = split_bounds(n, threads)
    if any(starts[t] > lo * width for t, (lo, _) in enumerate(bounds)):
        return None  # a miscount (see the Returns): nothing written past a matrix's room
    data, offsets = _packed_buffers(n, width)
    ends = offsets[1:]
    part_of = {lo: t for t, (lo, _) in enumerate(bounds)}

    def write(lo: int, hi: int) -> None:
        t = part_of[lo]
        at = starts[t]
        buf = data[at:] if t == threads - 1 else data[at : starts[t + 1]]  # its end: exact
        _write_part(lo, hi, coef, head, buf, width, ends, at)

    _run(write, n, threads)
    if any(hi > lo and ends[hi - 1] != starts[t + 1] for t, (lo, hi) in enumerate(bounds)):
        return None
    return offsets, _text_of(data, starts[-1])


def _packed_buffers(
    n: int, width: int, offsets: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The data buffer (``n`` rows of ``width`` and slack: only the text's pages are ever
    touched) and the int32 offsets (``offsets[0] = 0``; those given, if any) for
    :func:`_pack`."""
    offsets = np.empty(n + 1, dtype=np.int32) if offsets is None else offsets
    offsets[0] = 0
    return np.empty(n * width + _SLACK, dtype=np.uint8), offsets


def _text_of(data: np.ndarray, total: int) -> np.ndarray:
    """The ``total`` bytes of text at the start of ``data``, whose room past the text
    and its slack is given back when it is more than a sixteenth of it."""
    if total + _SLACK < data.size - data.size // 16:
        data.resize(total + _SLACK, refcheck=False)
    return data[:total]


def _write_part(
    lo: int,
    hi: int,
    coef: np.ndarray,
    head: tuple,
    buf: np.ndarray,
    width: int,
    ends: np.ndarray,
    at: int,
) -> None:
    """Rows ``lo:hi`` (one layout: ``head``) in Arrow's layout from ``buf[0]`` on, which
    is ``at`` in the data: their ends in ``ends[lo:hi]``, counted from the data's start.

    The kernel sees these rows alone (``stop`` is its ``lengths``' size), so it takes
    ``buf``'s end as the end of the room it may write in.
    """
    part = ends[lo:hi]
    _format_rows(0, hi - lo, coef[lo:hi], 1, *head, buf, width, part, _INT32_MAX, PACK)
    if at:
        part += at


#: Rows at the end of the first part that :func:`_pack_two` writes once the second
#: part's start is known. The kernel's 8-byte stores spill at most 25 bytes past a row's
#: start; these rows print at least a byte each, so the spills of the rows before them
#: land on them (rewritten after), never on the second part.
_TAIL_ROWS = 64


#: :data:`~vecfix._tuning.COUNT_COST` as the two-thread packs of this process measured it
#: (:func:`_learn_count_cost`): it depends on the CPU (a faster kernel makes counting a
#: larger share: about 0.035 on a Zen 4 VM, 0.07-0.1 on a Zen 5 one).
_count_cost = [_tuning.COUNT_COST]


def _learn_count_cost(count_s: float, counted: int, write_s: float, written: int) -> None:
    """Move :data:`_count_cost` halfway to the share that counting ``counted`` rows in
    ``count_s`` seconds is of writing ``written`` rows in ``write_s`` (one call's second
    thread), kept within 0 and :data:`_COUNT_COST_MAX` (a thread put off the CPU for a
    while says nothing of the kernels).

    Examples
    --------
    >>> _count_cost[0] = 0.04
    >>> _learn_count_cost(0.0001, 500_000, 0.0010, 500_000)  # counting: a tenth of writing
    >>> round(_count_cost[0], 3)
    0.07
    """
    if counted > 0 and written > 0 and write_s > 0:
        share = (count_s / counted) / (write_s / written)
        share = min(max(share, 0.0), _COUNT_COST_MAX)
        _count_cost[0] += 0.5 * (share - _count_cost[0])


#: The largest share :func:`_learn_count_cost` keeps (counting is a few comparisons a row).
_COUNT_COST_MAX = 0.3


def _pack_two(
    coef: np.ndarray, head: tuple, layout: _Thresholds, width: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_pack_split` over two threads: the calling thread writes the first part
    from the data's start, while the other counts the first part's text, then writes
    the second part from there. The first part is a little longer than the second
    (:data:`~vecfix._tuning.COUNT_COST`), so that both threads finish together; the
    first part's last :data:`_TAIL_ROWS` rows are written last, once the second part's
    start is known. The buffer is reserved as rows x widest (only the text's pages are
    touched) and given back past the text. The second thread times its count and its
    writing, and the next call's split follows (:func:`_learn_count_cost`)."""
    n = coef.shape[0]
    share = 1 / (2 - _count_cost[0])  # the first part's, of the rows
    m = min(max(int(n * share), 1), n - 1)
    tail = min(_TAIL_ROWS, m)
    data, offsets = _packed_buffers(n, width)
    ends = offsets[1:]

    def write(lo: int, hi: int) -> int:
        if lo == 0:  # the calling thread: the first part but its tail, from the start
            if hi > tail:
                _write_part(0, hi - tail, coef, head, data, width, ends[: hi - tail], 0)
            return 0
        started = time.perf_counter()
        at = _text_size(0, lo, coef, layout)
        counted = time.perf_counter()
        if at <= lo * width:  # else a miscount (see _pack_split): nothing is written
            _write_part(lo, hi, coef, head, data[at:], width, ends, at)
            _learn_count_cost(counted - started, lo, time.perf_counter() - counted, hi - lo)
        return at

    _, second = _run_parts(write, [(0, m), (m, n)])
    at = int(ends[m - tail - 1]) if m > tail else 0
    if second > m * width or at + _text_size(m - tail, m, coef, layout) != second:
        return None  # a miscount: the tail would not end where the second part starts
    _write_part(m - tail, m, coef, head, data[at:second], width, ends, at)
    if ends[m - 1] != second:
        return None
    return offsets, _text_of(data, int(ends[-1]))


def _pack_moved(
    passes: _Passes, width: int, hinted: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_pack` with each kernel call's text written from where its first row would
    start in a matrix of ``width`` (no call's text can pass the next call's start), then
    moved down to follow the text before it, and its offsets with it (``hinted``: the
    offsets to use, holding the layouts' hints)."""
    n, width = passes.rows.n, int(width)
    data, offsets = _packed_buffers(n, width, hinted)
    mode = PACK if hinted is None else PACK | HINTED
    ends = offsets[1:]
    passes.run(lambda r: (data[r * width :], width, ends[r:], _INT32_MAX, mode))
    total = 0
    for first, last, view in passes.calls():
        if first == last:
            continue
        start = first * width
        used = int(ends[last - 1]) + view * width - start
        if view != 0 or start != total:
            ends[first:last] += view * width - (start - total)
        if start != total and used:
            ctypes.memmove(data.ctypes.data + total, data.ctypes.data + start, used)
        total += used
    return offsets, _text_of(data, total)


class _Passes:
    """Runs :func:`vecfix._kernels.fixed.format_rows` over every row, split over threads.

    The kernel is called as ``format_rows(start, stop, coef, cstep, exps, estep, scales,
    sstep, *tail, *staging)``. Without null rows it sees the whole columns. With them, it
    sees :data:`NULL_BLOCK` rows at a time, from copies in which the null rows'
    coefficients (and per-row scales) are 0: each null row is formatted as a placeholder
    zero, never wider than a real row and never sent to the fallback, then blanked. The
    copies are a block long, so the peak memory stays that of the output. The per-row
    arrays of ``tail`` (``lengths``, and the fill's flat buffer) are passed from the
    block's first row on.
    """

    def __init__(self, rows: Rows, valid: np.ndarray | None, threads: int) -> None:
        self.rows, self.valid, self.threads = rows, valid, threads
        #: The smallest and the largest coefficient, once :meth:`uniform_widest` knows them.
        self.extremes: tuple[int, int] | None = None

    def run(
        self,
        tail: Callable[[int], tuple],
        blank: Callable[[np.ndarray], None] | None = None,
        kernel: Callable | None = None,
    ) -> list[tuple[int, Any]]:
        """``[(first_row, result)]`` of each call. ``tail(r)`` gives the arguments after the
        first eight for a call whose row 0 is row ``r``: its per-row arrays from row ``r``
        on. A result's row numbers count from its ``first_row``. ``blank``, if given, gets
        the null rows of each block once the kernel has run over it. ``kernel`` replaces
        ``format_rows`` (then no staging arrays are passed)."""
        rows = self.rows
        kernel = kernel or _format_rows
        if self.valid is None:
            head: tuple = (readonly(rows.coef), rows.cstep, readonly(rows.exps), rows.estep)
            head += (readonly(rows.scales), rows.sstep)
            return [(0, r) for r in _run(kernel, rows.n, self.threads, *head, *tail(0))]
        valid = self.valid

        def blocks(start: int, stop: int) -> list[tuple[int, Any]]:
            done = []
            rooms = _null_rooms(self.rows, min(NULL_BLOCK, stop - start))  # reused: no page faults
            for first in range(start, stop, NULL_BLOCK):
                last = min(first + NULL_BLOCK, stop)
                nulls = np.flatnonzero(~valid[first:last])
                args = *_null_block(self.rows, first, last, nulls, *rooms), *tail(first)
                done.append((first, kernel(0, last - first, *args)))
                if blank is not None:
                    blank(first + nulls)
            return done

        return [part for chunk in _run(blocks, rows.n, self.threads) for part in chunk]

    def calls(self) -> list[tuple[int, int, int]]:
        """``(first, last, view)`` of each kernel call :meth:`run` makes, in row order:
        its rows ``first:last``, and the row its arrays start from (``view``: 0 when the
        whole columns are passed, ``first`` for a block of a column with nulls)."""
        n, valid = self.rows.n, self.valid
        calls = []
        for lo, hi in split_bounds(n, self.threads):
            if valid is None:
                calls.append((lo, hi, 0))
            else:
                calls += [(a, min(a + NULL_BLOCK, hi), a) for a in range(lo, hi, NULL_BLOCK)]
        return calls

    def fill(
        self, matrix: np.ndarray, flat: np.ndarray, lengths: np.ndarray, hinted: bool = False
    ) -> None:
        """Write every row into ``matrix`` (``flat`` is its buffer, with slack) and its
        ``lengths`` (``hinted``: which hold the layouts' hints, see
        :meth:`layouts_widest`); blank the null rows (length 0, zero bytes) block by
        block, while they are in the cache."""
        w = matrix.shape[1]
        mode = FILL | HINTED if hinted else FILL

        def blank(nulls: np.ndarray) -> None:
            lengths[nulls] = 0
            matrix[nulls] = 0

        self.run(lambda r: (flat[r * w :], w, lengths[r:], _INT32_MAX, mode), blank)

    def uniform_widest(self) -> int | None:
        """The longest row when every row shares one exponent and scale, else None."""
        rows = self.rows
        if rows.estep or rows.sstep or rows.n < _MEASURE_BELOW:
            return None if rows.n else 0
        e, s = int(rows.exps[0]), int(rows.scales[0])
        if self.valid is None:
            parts = _extremes_of(rows.coef, self.threads)
            self.extremes = min(lo for lo, _ in parts), max(hi for _, hi in parts)
            return _widest_of(parts, e, s)
        valid = readonly(np.ascontiguousarray(self.valid))  # one pass, nulls as 0
        parts = _run(_extremes, rows.n, self.threads, rows.coef, valid)
        return _widest_of(parts, e, s)

    def layouts_widest(self, hints: np.ndarray | None = None) -> int | None:
        """The longest row (or one over the length limit) when exponents or scales vary,
        from the extremes of each layout; None in the cold tier (the rows are measured by
        the cold kernel then, rather than compile this kernel).

        ``hints``, an int32 array of a slot a row, gets the hints of
        :func:`vecfix._kernels.fixed.widest_of_layouts` for each kernel call :meth:`run` makes:
        passed as the ``lengths`` of a fill with the :data:`~vecfix._kernels.fixed.HINTED` flag
        (the same calls), they spare the fill reading the exponents and scales of
        stretches of one layout."""
        if _cold_now(self.rows.n):
            return None

        def tail(r: int) -> tuple:
            return MAX_ROW_LENGTH, _NO_HINTS if hints is None else hints[r:]

        parts = self.run(tail, kernel=_widest_of_layouts)
        return max((w for _, w in parts), default=0)


def _widest_of_layouts(start: int, stop: int, *args: object) -> int:
    """:func:`vecfix._kernels.fixed.widest_of_layouts` with a table of its own."""
    table = np.empty((_kernels.TABLE_ROWS, 2), dtype=np.int64)
    return _kernels.widest_of_layouts(start, stop, *args, table)


def _staging() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This thread's staging arrays for :func:`vecfix._kernels.fixed.format_rows`."""
    try:
        return _LOCAL.staging
    except AttributeError:  # this thread's first call
        arrays = _LOCAL.staging = _kernels.scratch()
        return arrays


def _format_rows(start: int, stop: int, *args: object) -> tuple[int, int]:
    """:func:`_row_kernel`'s ``format_rows`` with this thread's staging arrays (or, in the
    cold tier, :func:`_cold_rows`)."""
    return (_kernel or _tiered_kernel(stop - start))(start, stop, *args, *_staging())


#: The ``format_rows`` that writes the rows, once :func:`_row_kernel` has chosen it (None
#: while the cold tier runs).
_kernel: Any = None


def _row_kernel() -> Any:
    """The ``format_rows`` kernel for the CPU that Numba compiles for (:func:`_chosen`),
    from now on in this process."""
    global _kernel
    _kernel = _chosen()
    return _kernel


def _chosen() -> Any:
    """The block kernel (:mod:`vecfix._kernels.fixed`) where Numba compiles for AVX2, else the
    row-at-a-time one (:mod:`vecfix._row_kernels`), as the block kernel's vector passes
    run 3-4x slower than a plain row loop with SSE2 alone (``NUMBA_CPU_NAME=generic``, a
    cache built to load on any x86-64). On an AVX2 host nothing else is imported or
    compiled. ``VECFIX_KERNEL=block`` or ``rows`` forces one (for benchmarks and tests:
    both write the same bytes).
    """
    forced = os.environ.get("VECFIX_KERNEL", "").strip().lower()
    if forced not in ("block", "rows"):
        forced = "block" if _target_has_avx2() else "rows"
    if forced == "rows":
        from . import _row_kernels

        return _row_kernels.format_rows
    return _kernels.format_rows


def _tiered_kernel(rows: int) -> Any:
    """What runs a kernel call of ``rows`` rows before :data:`_kernel` is set:
    :func:`_cold_rows` while the cold tier runs (:mod:`vecfix._coldstart`: a worker
    process compiles the chosen kernel), else the chosen kernel, from now on."""
    if _coldstart.cold_tier(_chosen, rows):
        return _cold_rows
    return _row_kernel()


def _cold_now(rows: int) -> bool:
    """Whether a kernel call of ``rows`` rows runs in the cold tier now (which needs
    neither the ``extremes`` kernel nor the widest-row kernel of varying layouts)."""
    return _kernel is None and _tiered_kernel(rows) is _cold_rows


def _cold_rows(
    start: int,
    stop: int,
    coef: np.ndarray,
    cstep: int,
    exps: np.ndarray,
    estep: int,
    scales: np.ndarray,
    sstep: int,
    buf: np.ndarray,
    width: int,
    lengths: np.ndarray,
    limit: int,
    mode: int,
    *staging: np.ndarray,
) -> tuple[int, int]:
    """The cold tier's ``format_rows``: :func:`vecfix._cold_kernels.format_rows_cold`
    with ``format_rows``' arguments (the ``staging`` arrays are not used)."""
    from ._cold_kernels import format_rows_cold

    widest, first = format_rows_cold(start, stop, readonly(coef), cstep, exps, estep, scales,
                                     sstep, buf, width, lengths, limit, mode)  # fmt: skip
    return int(widest), int(first)


def _target_has_avx2() -> bool:
    """Whether the machine code Numba writes may use AVX2 (:func:`vecfix._jit.target_has`)."""
    return target_has("avx2")


def _for_kernels(rows: Rows) -> Rows:
    """``rows`` as ``format_rows`` takes them: a coefficient a row (a broadcast one
    repeated).

    For the block kernel, exponent or scale arrays stay arrays even when all their values
    are one: the pass that finds the widest row reads them once, with the coefficients,
    and leaves hints that spare the fill reading them again. Checking them for one value
    first (a minimum and a maximum over each, to run the uniform kernels) cost more than
    it saved: 1M PRICE9 rows with arrays of one exponent and one scale took 1.22-1.39x the
    call with scalars, and 1.05-1.14x without the check (1 and 2 threads). The row kernel
    (CPUs without AVX2) reads no hints, so for it an array of one value is still taken as
    that value (step 0): 1.14x against 1.28x without the check."""
    if (_kernel or _chosen()) is not _kernels.format_rows:
        if rows.estep and _constant(rows.exps):
            rows = rows._replace(exps=rows.exps[:1], estep=0)
        if rows.sstep and _constant(rows.scales):
            rows = rows._replace(scales=rows.scales[:1], sstep=0)
    if rows.n > 1 and not rows.cstep:
        rows = rows._replace(coef=np.full(rows.n, rows.coef[0], dtype=np.int64), cstep=1)
    return rows


def _null_rooms(rows: Rows, size: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Room for a block's copy of the per-row coefficients and scales (None: not per row)."""
    coef = np.empty(size, dtype=np.int64) if rows.cstep else None
    scales = np.empty(size, dtype=np.int32) if rows.sstep else None
    return coef, scales


def _null_block(
    rows: Rows,
    first: int,
    last: int,
    nulls: np.ndarray,
    coef_room: np.ndarray | None,
    scales_room: np.ndarray | None,
) -> tuple:
    """``format_rows``' first six arguments for rows ``first:last``, with the ``nulls``
    among them (counted from ``first``) zeroed in copies made in the rooms given
    (:func:`_null_rooms`; a block without nulls is passed as it is): each null row a
    placeholder zero, never wider than a real row and never sent to the fallback."""
    coef, scales = rows.coef, rows.scales
    if rows.cstep:
        coef = _zeroed(coef[first:last], nulls, coef_room)
    elif nulls.size:  # one coefficient for every row: it is the null one
        coef = np.zeros_like(coef)
    if rows.sstep:
        scales = _zeroed(scales[first:last], nulls, scales_room)
    exps = rows.exps[first:] if rows.estep else rows.exps
    return readonly(coef), rows.cstep, readonly(exps), rows.estep, readonly(scales), rows.sstep


def _zeroed(values: np.ndarray, nulls: np.ndarray, room: np.ndarray | None) -> np.ndarray:
    """``values`` with the rows ``nulls`` set to 0: a copy in ``room`` if there are any."""
    if not nulls.size:
        return values
    assert room is not None  # _null_rooms() makes one for every per-row column
    copy = room[: values.size]
    np.copyto(copy, values)
    copy[nulls] = 0
    return copy


def _without_null_big_rows(rows: Rows, valid: np.ndarray) -> Rows:
    """``rows`` less the coefficients beyond int64 that are in null rows (never printed)."""
    if not rows.big_values:
        return rows
    keep = valid[rows.big_rows]
    values = [v for v, k in zip(rows.big_values, keep.tolist(), strict=True) if k]
    return rows._replace(big_rows=rows.big_rows[keep], big_values=values)


def _format_int64(
    coef: np.ndarray, exponent: int, scale: int, threads: int | None
) -> Formatted | None:
    """The common call (an int64 column, one exponent and scale, no options), lean.

    The same kernel as the general path with nothing else around it (a few rows go
    through :func:`_format_small` instead). Returns None for a row over the length limit,
    which the general path then reports. ``threads`` is 1 or None (see
    :func:`_thread_count`).
    """
    n = coef.shape[0]
    coef = readonly(coef)
    e, s = _int32_constant(exponent), _int32_constant(scale)
    lengths = np.empty(n, dtype=np.int32)
    parts = _thread_count(n, threads)
    widest = _widest_of_extremes(coef, exponent, scale, parts)
    if widest > MAX_ROW_LENGTH:
        return None
    matrix, flat = _output_matrix(n, widest, None, None)
    _run(_format_rows, n, parts, coef, 1, e, 0, s, 0, flat, widest, lengths, _INT32_MAX, FILL)
    return Formatted._trusted(matrix, lengths)


#: :func:`_format_small` takes a layout when no row under it can be longer than this (its
#: buffer is sized for the longest row an int64 can print).
_SMALL_ROW_BOUND = 64

#: :func:`_small_layout`'s answers: ``(exponent, scale)`` -> ``(exps, scales, bound)``.
_SMALL_LAYOUTS: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, int]] = {}

#: The compiled code ``format_rows`` (:func:`_row_kernel`) runs for
#: :func:`_format_small`'s arguments, called without Numba's dispatch once known (see
#: :func:`_entry_point`).
_small_entry: Callable[..., tuple[int, int]] | None = None


def _small_layout(exponent: int, scale: int) -> tuple[np.ndarray, np.ndarray, int] | None:
    """What :func:`_format_small` needs for one exponent and scale: both as one-element
    int32 arrays, and the longest row any int64 prints under them (its buffer's row).
    None when either is outside int32 (the general path says so) or a row can be longer
    than :data:`_SMALL_ROW_BOUND` (the general path measures first)."""
    if not (_INT32_MIN <= exponent <= _INT32_MAX and _INT32_MIN <= scale <= _INT32_MAX):
        return None
    bound = _longest_row(exponent, scale)
    if bound > _SMALL_ROW_BOUND:
        return None
    layout = _int32_constant(exponent), _int32_constant(scale), bound
    if len(_SMALL_LAYOUTS) >= 4096:  # bounded, like _longest_row's cache
        _SMALL_LAYOUTS.clear()
    _SMALL_LAYOUTS[exponent, scale] = layout
    return layout


def _format_small(coef: np.ndarray, layout: tuple[np.ndarray, np.ndarray, int]) -> Formatted:
    """A few rows (over :data:`FEW_ROWS`, under :data:`MEASURE_BELOW`) of one layout in
    one kernel call that measures, then fills (fewer rows take one scalar pass,
    :func:`vecfix._kernels.fixed.format_few`, called from ``format_fixed`` itself).

    ``coef`` is a C-contiguous, aligned int64 column; ``layout`` comes from
    :func:`_small_layout`. Once the kernel has run once through Numba's dispatcher, its
    compiled code is called directly (:func:`_entry_point`): that skips typing each of
    the arguments, and the read-only view the dispatcher needs to keep one signature
    (the code only reads ``coef``): a third of the call's cost.
    """
    global _small_entry
    exps, scales, bound = layout
    n = coef.shape[0]
    lengths = np.empty(n, dtype=np.int32)
    flat = np.empty(n * bound + _SLACK, dtype=np.uint8)
    wide, real, narrow = _staging()
    entry = _small_entry
    if entry is not None:
        widest, _ = entry(0, n, coef, 1, exps, 0, scales, 0, flat, -1, lengths, bound, FILL,
                          wide, real, narrow)  # fmt: skip
    else:  # the first call: Numba compiles (or loads) the kernel, or the cold tier runs
        args = (0, n, readonly(coef), 1, exps, 0, scales, 0, flat, -1, lengths, bound, FILL)
        kernel = _kernel or _tiered_kernel(n)
        widest, _ = kernel(*args, wide, real, narrow)
        if kernel is not _cold_rows:
            found = _entry_point(kernel, (*args, wide, real, narrow))
            _small_entry = found or _dispatched
    return Formatted._trusted(flat[: n * widest].reshape(n, widest), lengths)


def _few_first(coef: np.ndarray, *args: Any) -> int:
    """:func:`vecfix._kernels.fixed.format_few` for ``format_fixed``'s first call of up to
    :data:`FEW_ROWS` rows: Numba compiles (or loads) the kernel; later calls run its
    compiled code directly (:func:`_entry_point`), as :func:`_format_small` does.

    The arguments are ``(coef, exponent, scale, buf, lengths)``: a C-contiguous, aligned
    int64 column, a layout within int32, and a buffer of ``len(coef) * bound + 8`` bytes
    (``bound``: the longest row any int64 prints under the layout, from
    :func:`_small_layout`).
    """
    global _few_entry
    args = (readonly(coef), *args)  # one signature, whatever the column's flags
    widest = _kernels.format_few(*args)
    _few_entry = _entry_point(_kernels.format_few, args) or _few_dispatched
    return widest


def _few_dispatched(coef: np.ndarray, *args: Any) -> int:
    """:func:`vecfix._kernels.fixed.format_few` through Numba's dispatcher, ``coef`` read-only."""
    return _kernels.format_few(readonly(coef), *args)


#: What ``format_fixed`` calls to run :func:`vecfix._kernels.fixed.format_few`: its compiled
#: code once :func:`_few_first` has found it.
_few_entry: Callable[..., int] = _few_first
_INT32 = np.dtype(np.int32)
_UINT8 = np.dtype(np.uint8)
_trusted = Formatted._trusted


def _dispatched(start: int, stop: int, coef: np.ndarray, *args: object) -> tuple[int, int]:
    """:func:`_row_kernel`'s ``format_rows`` through Numba's dispatcher, ``coef``
    read-only."""
    return (_kernel or _row_kernel())(start, stop, readonly(coef), *args)


def _entry_point(dispatcher: Any, args: tuple) -> Callable[..., Any] | None:
    """The compiled code that Numba's ``dispatcher`` has run for ``args``, to be called
    with arguments of the same types (an array's read-only flag aside); None without it
    (``NUMBA_DISABLE_JIT=1``: the kernel is a Python function).

    Numba's dispatcher types every argument on every call to find the code to run; the
    code's own entry point converts them and runs it (and releases the GIL) directly.
    Nothing checks the types then: the caller must pass arrays of the same dtype, number
    of dimensions, layout and alignment.
    """
    overloads = getattr(dispatcher, "overloads", None)
    if not overloads:
        return None
    import numba

    key = tuple(numba.typeof(a, numba.core.typing.typeof.Purpose.argument) for a in args)
    compiled = overloads.get(key)
    return None if compiled is None else compiled.entry_point


@functools.lru_cache(maxsize=4096)
def _longest_row(exponent: int, scale: int) -> int:
    """The longest row any int64 prints under ``(exponent, scale)``: that of ``-2**63``
    (the length grows with ``|c|``, and a sign only adds to it)."""
    return row_length(INT64_MIN, exponent, scale)


def _measure(passes: _Passes, lengths: np.ndarray) -> int:
    """Write every row's length (the kernel's view: big rows as 0); return the widest."""
    parts = passes.run(lambda r: (_NO_BYTES, 0, lengths[r:], MAX_ROW_LENGTH, MEASURE))
    too_long = [start + first for start, (_, first) in parts if first >= 0]
    if too_long:
        i = min(too_long)
        if passes.valid is not None and not passes.valid[i]:  # a placeholder: see _first_valid
            i = _first_valid(np.ones(passes.rows.n, dtype=bool), passes.valid)
        _raise_too_long(passes.rows, i)
    return max((w for _, (w, _) in parts), default=0)


def _constant(values: np.ndarray) -> bool:
    """Whether the 1-D ``values`` are all equal (first and last compared first: a column
    that varies rarely costs a full pass)."""
    return len(values) > 1 and values[0] == values[-1] and values.min() == values.max()


def _widest_of_extremes(coef: np.ndarray, exponent: int, scale: int, threads: int = 1) -> int:
    """The longest row of ``coef`` under one exponent and scale, from two of its rows.

    The length only grows with ``|c|``, so the smallest and the largest coefficient bound
    it and the measuring pass can be skipped (the fill writes the lengths).
    """
    return _widest_of(_extremes_of(coef, threads), exponent, scale)


def _extremes_of(coef: np.ndarray, threads: int) -> list[tuple[int, int]]:
    """The ``(smallest, largest)`` coefficient of each of ``threads`` parts of ``coef``,
    each found on its thread (the kernel releases the GIL)."""
    return _run(_extremes, coef.size, min(threads, coef.size), coef)


def _widest_of(extremes: list[tuple[int, int]], exponent: int, scale: int) -> int:
    """The longest row given the ``(smallest, largest)`` coefficient of each part."""
    low, high = min(lo for lo, _ in extremes), max(hi for _, hi in extremes)
    return max(row_length(low, exponent, scale), row_length(high, exponent, scale))


def _extremes(
    start: int, stop: int, coef: np.ndarray, valid: np.ndarray | None = None
) -> tuple[int, int]:
    """The smallest and the largest of ``coef[start:stop]``, the rows where ``valid`` is
    False counted as 0 (NumPy's in the cold tier, rather than compile the kernel: masked
    reductions, no copy)."""
    if _cold_now(stop - start):
        part = coef[start:stop]
        if valid is None:
            return int(part.min()), int(part.max())
        mask = valid[start:stop]
        low = int(np.minimum.reduce(part, where=mask, initial=INT64_MAX))
        high = int(np.maximum.reduce(part, where=mask, initial=INT64_MIN))
        return (low, high) if mask.all() else (min(low, 0), max(high, 0))
    mask = _ALL_VALID if valid is None else valid[start:stop]
    low, high = _kernels.extremes(readonly(coef[start:stop]), mask)
    return int(low), int(high)


#: ``extremes``' ``valid`` for a column without nulls.
_ALL_VALID = readonly(np.empty(0, dtype=np.bool_))


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _thread_count(n: int, threads: int | None) -> int:
    """How many threads to use for ``n`` rows when the caller asks for ``threads``."""
    if threads == 1 and type(threads) is int:
        return 1
    if threads is None:
        if n < 2 * MIN_ROWS_PER_THREAD:  # one thread whatever the cores (no system call)
            return 1
        threads = usable_cores()
    if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, (int, np.integer)):
        raise TypeError(f"threads must be a positive int or None, got {threads!r}")
    if threads < 1:
        raise ValueError(f"threads must be a positive int or None, got {threads}")
    return int(min(threads, max(n // MIN_ROWS_PER_THREAD, 1)))


def _fallback_rows(rows: Rows) -> list[bytes]:
    """Format the rows whose coefficient is beyond int64 with the decimal fallback."""
    texts = []
    for i, c in zip(rows.big_rows.tolist(), rows.big_values, strict=True):
        e, s = int(rows.exps[i * rows.estep]), int(rows.scales[i * rows.sstep])
        try:
            texts.append(string_fixed(c, e, s).encode("ascii"))
        except RowTooLongError as exc:
            raise RowTooLongError(f": {exc}", argument="coefficients", row=i) from None
    return texts


def _refuse_few_wide_rows(
    rows: Rows,
    lengths: np.ndarray,
    big_text: list[bytes],
    widest: int,
    valid: np.ndarray | None,
    views: bool = False,
) -> None:
    """Refuse a matrix that a few wide rows would make many times the size of the text
    (one row at exponent 60,000 among 1M rows asks for 56 GiB): name the widest row, the
    memory, and the ways to the text. ``lengths`` holds every row's length (big rows as 0).
    With ``views`` (``layout="string_view"``, which takes no ``width``) the way offered
    instead of ``width=`` is ``layout="arrow"``, which writes the text without a matrix."""
    total = int(lengths.sum(dtype=np.int64)) + sum(map(len, big_text))
    size = rows.n * widest
    if size <= WIDE_MATRIX_RATIO * total:  # rows of about one width: the matrix is the text
        return
    if big_text and max(map(len, big_text)) == widest:
        i = int(rows.big_rows[[len(t) for t in big_text].index(widest)])
    else:  # the first widest row that is not null (see _first_valid)
        i = _first_valid(lengths == widest, valid)
    c, e, s = rows.row(i)
    raise RowError(
        f" (coefficient={show_int(c)}, exponent={e}, scale={s}) prints {widest:,} bytes, so"
        f" the ({rows.n:,}, {widest:,}) byte matrix would take {size / 2**30:.1f} GiB for"
        f" {total / 2**20:.1f} MiB of text. Format the wide rows on their own"
        " (vecfix.string_fixed(coefficient, exponent, scale)) and leave them out of this call"
        f" (a masked array, or null=), or "
        + (
            'pass layout="arrow" (the text back to back, no matrix)'
            if views
            else f"pass width={widest} to accept the matrix"
        ),
        argument="coefficients",
        row=i,
    )


def _raise_too_narrow(
    rows: Rows, lengths: np.ndarray, width: int, widest: int, valid: np.ndarray | None
) -> None:
    """Refuse a ``width`` narrower than the ``widest`` row, naming the first such row that
    is not null (``lengths`` holds the null rows' placeholders too, never wider than the
    other rows: see :func:`_first_valid`)."""
    i = _first_valid(lengths > width, valid)
    c, e, s = rows.row(i)
    raise RowTooLongError(
        f" (coefficient={show_int(c)}, exponent={e}, scale={s}) needs {int(lengths[i])}"
        f" bytes but the width is {width}; widest row needs {widest}",
        argument="coefficients",
        row=i,
    )


def _first_valid(candidates: np.ndarray, valid: np.ndarray | None) -> int:
    """The first row where ``candidates`` is True that is not null (``valid``: None when
    none is). The kernels measure a null row as its placeholder, coefficient 0 at the
    row's layout (scale 0 where scales are per row): a value the user never gave, so never
    the row an error names. Its text is never longer than another row's at its layout, so
    when a placeholder is a candidate, a valid row is one too (a column of nulls only
    never gets here: :func:`_all_null`)."""
    if valid is not None:
        candidates = candidates & valid
    return int(np.flatnonzero(candidates)[0])


def _raise_too_long(rows: Rows, i: int) -> None:
    c, e, s = rows.row(i)
    raise RowTooLongError(
        f" (coefficient={show_int(c)}, exponent={e}, scale={s}) would print"
        f" {row_length(c, e, s)} bytes, more than vecfix.MAX_ROW_LENGTH={MAX_ROW_LENGTH};"
        " check the exponent and scale",
        argument="coefficients",
        row=i,
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
