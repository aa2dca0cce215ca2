"""The kernel engine: :func:`vecfix._kernels.fixed.format_rows` over every row, split over
threads, in the layout the plan asks for.

A call finds its widest row first, cheaply where it can (the extremes of the coefficients,
or of each layout: :mod:`vecfix._kernels.rows`), else by a measuring pass; the checks of
:mod:`vecfix._plan` run; then one pass writes every row: into a byte matrix, into Arrow's
``string_view`` records (every row at most 12 bytes), or at offsets measured first
(Arrow's ``string`` layout). Rows beyond int64 are formatted by :mod:`decimal` and put in
their place after.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _plan, _tuning
from ._inputs import Rows
from ._kernels import fixed
from ._kernels import rows as row_kernels
from ._kernels.fixed import FILL, HINTED, MEASURE, PACK, PACK_AT
from ._limits import INT32_MAX
from ._result import Formatted
from ._scalar import MAX_ROW_LENGTH, RowTooLongError, row_length, string_fixed
from ._threads import run_split, split_bounds
from .columns import rules
from .columns.column import Identity

_NO_BYTES = np.empty(0, dtype=np.uint8)
_NO_HINTS = np.empty(0, dtype=np.int32)
_ALL_VALID = np.empty(0, dtype=np.bool_)
#: The longest text an Arrow ``string_view`` record holds in itself (16 bytes: the length,
#: then up to 12 bytes of text).
VIEW_INLINE = 12
_LOCAL = threading.local()
#: ``layout="arrow"`` writes int32 offsets: text up to this many bytes (else a matrix).
_PACK_LIMIT = INT32_MAX


def run(
    rows: Rows,
    valid: np.ndarray | None,
    plan: _plan.Plan,
    identity: Identity | None,
    sentinels: bool = False,
) -> Formatted:
    """Format ``rows`` as :func:`vecfix.format_fixed` does, on ``plan``; ``sentinels``:
    warn of a usual null sentinel among them (from the extremes the widest row is found
    from: no pass of its own where the call makes that one)."""
    rows = _for_kernels(rows, valid)
    passes = _Passes(rows, valid, plan.parts)
    if sentinels:
        rules.warn_sentinels(
            rows.coef, valid=valid, extremes=passes.extremes() if rows.n else None,
            big_rows=rows.big_rows.tolist(), big_values=rows.big_values,
        )  # fmt: skip
    if rows.n < _tuning.MEASURE_BELOW and plan.layout == "matrix" and not rows.big_values:
        return _few(rows, valid, plan, identity)
    if plan.layout == "arrow" and not rows.big_values:
        return _packed(passes, plan, identity)
    lengths = np.empty(rows.n, dtype=np.int32)
    widest, hinted = passes.widest(lengths)
    if plan.layout == "string_view" and widest is not None and widest <= VIEW_INLINE:
        if not rows.big_values:
            return _views(passes, plan, lengths, hinted, identity)
    measured = widest is None
    if widest is None:
        widest = passes.measure(lengths)
    big_text = _fallback_rows(rows)
    widest = max(widest, *map(len, big_text)) if big_text else widest

    def measure() -> np.ndarray:
        nonlocal measured
        if not measured:
            passes.measure(lengths)
            measured = True
        lengths[rows.big_rows] = [len(t) for t in big_text]
        return lengths

    matrix, flat = _plan.output_matrix(rows, measure, widest, plan, valid)
    passes.fill(matrix, flat, lengths, hinted and not measured)
    for i, text in zip(rows.big_rows.tolist(), big_text, strict=True):
        lengths[i] = len(text)
        matrix[i, : len(text)] = np.frombuffer(text, dtype=np.uint8)
        matrix[i, len(text) :] = 0
    done = Formatted(matrix, lengths, valid, identity=identity)
    done._threads = plan.threads
    return done


def _few(rows: Rows, valid: np.ndarray | None, plan: _plan.Plan, identity: Any) -> Formatted:
    """Fewer than :data:`~vecfix._tuning.MEASURE_BELOW` rows into a matrix: the passes'
    steps (measure, the checks, fill, blank the null rows) as two direct kernel calls.
    The passes' machinery (threads, null blocks, the calls' arguments built per part)
    costs more than these rows: 8 rows with a scale each took 18.8 us through it, 10 so
    (benchmarks/, group batch8)."""
    n = rows.n
    nulls = None if valid is None else np.flatnonzero(~valid)
    head = _null_block(rows, 0, n, nulls, *_null_rooms(rows, n)) if nulls is not None else (
        rows.coef, rows.cstep, rows.exps, rows.estep, rows.scales, rows.sstep)  # fmt: skip
    lengths = np.empty(n, dtype=np.int32)
    widest, first = _format_rows(0, n, *head, _NO_BYTES, 0, lengths, MAX_ROW_LENGTH, MEASURE)
    if first >= 0:
        _plan.check_lengths(rows, lengths, valid, too_long=first)
    matrix, flat = _plan.output_matrix(rows, lambda: lengths, widest, plan, valid)
    _format_rows(0, n, *head, flat, matrix.shape[1], lengths, INT32_MAX, FILL)
    if nulls is not None:
        lengths[nulls] = 0
        matrix[nulls] = 0
    done = Formatted(matrix, lengths, valid, identity=identity)
    done._threads = plan.threads
    return done


#: The kernel of :func:`vecfix.format_fixed`'s call of a few rows (it calls it directly).
FEW_KERNEL = row_kernels.format_few


# ----------------------------------------------------------------------------- layouts


def _views(
    passes: _Passes, plan: _plan.Plan, lengths: np.ndarray, hinted: bool, identity: Any
) -> Formatted:
    """Every row (none longer than :data:`VIEW_INLINE`) written into its ``string_view``
    record: its length, then its text, zero-padded, 16 bytes a row, which polars takes as
    they are (no matrix, no pass that copies one into records); a null row's record all
    zero bytes. ``lengths``: the rows' lengths to come (holding the layouts' hints if
    ``hinted``)."""
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
    passes.run(lambda r: (flat[r * 16 :], 16, lengths[r:], INT32_MAX, mode), blank)
    records.view(np.int32)[: 4 * n : 4] = lengths
    done = Formatted._views(records[: 2 * n].reshape(n, 2), lengths, passes.valid, identity)
    done._threads = plan.threads
    return done


def _packed(passes: _Passes, plan: _plan.Plan, identity: Any) -> Formatted:
    """Arrow's ``string`` layout, written by the kernels. Each kernel call writes its rows
    back to back from where its first row would start in a matrix of the widest row's
    width (the pages past the text are never touched), then the calls' text is moved
    together (:func:`_close_gaps`). Where a few wide rows would make that reserve many
    times the text, every row's length is measured first and the rows written where
    they end up. A text past int32 offsets (2 GiB) is laid out as a matrix instead
    (``to_arrow`` makes it ``large_string``)."""
    n = passes.rows.n
    offsets = np.empty(n + 1, dtype=np.int32)
    offsets[0] = 0
    ends = offsets[1:]
    widest, hinted = passes.widest(ends)
    if widest is None:  # a few rows, or one past the length limit (refused here)
        widest = passes.measure(ends)
    reserve = n * widest + _plan.SLACK
    if reserve <= _PACK_LIMIT and (reserve <= _tuning.WIDE_MATRIX_BYTES or widest <= 32):
        data = np.empty(reserve, dtype=np.uint8)
        mode = PACK | HINTED if hinted else PACK
        passes.run(lambda r: (data[r * widest :], widest, ends[r:], INT32_MAX, mode))
        total = _close_gaps(passes, data, ends, widest)
    else:  # a few wide rows: the text's own size
        passes.measure(ends)
        total = int(ends.sum(dtype=np.int64))
        if total + _plan.SLACK > _PACK_LIMIT:
            return run(passes.rows, passes.valid, plan._replace(layout="matrix"), identity)
        np.cumsum(ends, out=ends)
        data = np.empty(total + _plan.SLACK, dtype=np.uint8)
        passes.run(lambda r: (data, max(widest, 1), ends[r:], INT32_MAX, PACK_AT))
    if total + _plan.SLACK < data.size - data.size // 16:  # give back the reserve's rest
        data.resize(total + _plan.SLACK, refcheck=False)
    done = Formatted._packed(offsets, data[:total], passes.valid, identity)
    done._threads = plan.threads
    return done


def _close_gaps(passes: _Passes, data: np.ndarray, ends: np.ndarray, width: int) -> int:
    """Move each kernel call's text (written from its first row's place in a matrix of
    ``width``) down to follow the text before it, and its ends with it; return the text's
    size."""
    total = 0
    for first, last, view in passes.calls():
        if first == last:
            continue
        start = first * width
        used = int(ends[last - 1]) + view * width - start
        if view != 0 or start != total:
            ends[first:last] += view * width - (start - total)
        if start != total and used:
            data[total : total + used] = data[start : start + used]  # (memmove)
        total += used
    return total


# ------------------------------------------------------------------------------ passes


class _Passes:
    """Runs :func:`vecfix._kernels.fixed.format_rows` (or another kernel of its first
    arguments) over every row, split over threads.

    Without null rows the kernel sees the whole columns. With them, it sees
    :data:`~vecfix._tuning.NULL_BLOCK` rows at a time, from copies in which the null rows'
    coefficients (and per-row scales) are 0: each null row is formatted as a placeholder
    zero, never wider than a real row, then blanked. The copies are a block long, so the
    peak memory stays that of the output.
    """

    def __init__(self, rows: Rows, valid: np.ndarray | None, threads: int) -> None:
        self.rows, self.valid, self.threads = rows, valid, threads
        self._extremes: tuple[int, int] | None = None

    def extremes(self) -> tuple[int, int]:
        """The smallest and the largest coefficient (a null row counted as 0), found once
        (over threads) and remembered."""
        if self._extremes is None:
            rows = self.rows
            mask = _ALL_VALID if self.valid is None else np.ascontiguousarray(self.valid)
            parts = run_split(_extremes, rows.n, self.threads, rows.coef, mask)
            self._extremes = min(lo for lo, _ in parts), max(hi for _, hi in parts)
        return self._extremes

    def run(
        self,
        tail: Callable[[int], tuple],
        blank: Callable[[np.ndarray], None] | None = None,
        kernel: Callable | None = None,
    ) -> list[tuple[int, Any]]:
        """``[(first_row, result)]`` of each kernel call. ``tail(r)`` gives the arguments
        after the first eight for a call whose row 0 is row ``r`` (its per-row arrays from
        row ``r`` on). ``blank``, if given, gets the null rows of each block once the
        kernel has run over it. ``kernel`` replaces ``format_rows`` (then no staging
        arrays are passed)."""
        rows, valid = self.rows, self.valid
        call = kernel or _format_rows
        if valid is None:
            head = (rows.coef, rows.cstep, rows.exps, rows.estep, rows.scales, rows.sstep)
            return [(0, r) for r in run_split(call, rows.n, self.threads, *head, *tail(0))]

        def blocks(start: int, stop: int) -> list[tuple[int, Any]]:
            done = []
            room = _null_rooms(rows, min(_tuning.NULL_BLOCK, stop - start))  # reused
            for first in range(start, stop, _tuning.NULL_BLOCK):
                last = min(first + _tuning.NULL_BLOCK, stop)
                nulls = np.flatnonzero(~valid[first:last])
                args = *_null_block(rows, first, last, nulls, *room), *tail(first)
                done.append((first, call(0, last - first, *args)))
                if blank is not None:
                    blank(first + nulls)
            return done

        return [part for chunk in run_split(blocks, rows.n, self.threads) for part in chunk]

    def calls(self) -> list[tuple[int, int, int]]:
        """``(first, last, view)`` of each kernel call :meth:`run` makes, in row order:
        its rows ``first:last``, and the row its arrays start from (``view``: 0 when the
        whole columns are passed, ``first`` for a block of a column with nulls)."""
        calls = []
        for lo, hi in split_bounds(self.rows.n, self.threads):
            if self.valid is None:
                calls.append((lo, hi, 0))
            else:
                step = _tuning.NULL_BLOCK
                calls += [(a, min(a + step, hi), a) for a in range(lo, hi, step)]
        return calls

    def widest(self, lengths: np.ndarray) -> tuple[int | None, bool]:
        """The longest row, cheaply, and whether ``lengths`` now holds the layouts' hints
        for the fill: under one layout, from the smallest and largest coefficient (a
        row's length only grows with ``|c|``); under many, from those of each layout
        (:func:`vecfix._kernels.rows.widest_of_layouts`, which leaves the hints). None for
        a few rows (one measuring pass costs less) or a length past the limit."""
        rows = self.rows
        if rows.n < _tuning.MEASURE_BELOW:
            return (None if rows.n else 0), False
        if not rows.estep and not rows.sstep:
            low, high = self.extremes()
            e, s = int(rows.exps[0]), int(rows.scales[0])
            found = max(row_length(low, e, s), row_length(high, e, s))
            return (found if found <= MAX_ROW_LENGTH else None), False

        def tail(r: int) -> tuple:
            return MAX_ROW_LENGTH, lengths[r:]

        found = max((w for _, w in self.run(tail, kernel=_widest_of_layouts)), default=0)
        return (found if found <= MAX_ROW_LENGTH else None), found <= MAX_ROW_LENGTH

    def measure(self, lengths: np.ndarray) -> int:
        """Write every row's length (big rows as 0) and return the widest; refuse a row
        past :data:`~vecfix.MAX_ROW_LENGTH`."""
        parts = self.run(lambda r: (_NO_BYTES, 0, lengths[r:], MAX_ROW_LENGTH, MEASURE))
        too_long = [start + first for start, (_, first) in parts if first >= 0]
        if too_long:
            _plan.check_lengths(self.rows, lengths, self.valid, too_long=min(too_long))
        return max((w for _, (w, _) in parts), default=0)

    def fill(self, matrix: np.ndarray, flat: np.ndarray, lengths: np.ndarray, hinted: bool) -> None:
        """Write every row into ``matrix`` (``flat``: its buffer, with slack) and its
        ``lengths`` (which hold the layouts' hints if ``hinted``); blank the null rows
        (length 0, zero bytes) block by block, while they are in the cache."""
        w = matrix.shape[1]
        mode = FILL | HINTED if hinted else FILL

        def blank(nulls: np.ndarray) -> None:
            lengths[nulls] = 0
            matrix[nulls] = 0

        self.run(lambda r: (flat[r * w :], w, lengths[r:], INT32_MAX, mode), blank)


def _staging() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This thread's staging arrays for :func:`vecfix._kernels.fixed.format_rows`."""
    try:
        return _LOCAL.staging
    except AttributeError:  # this thread's first call
        arrays = _LOCAL.staging = fixed.scratch()
        return arrays


def _format_rows(start: int, stop: int, *args: object) -> tuple[int, int]:
    """``format_rows`` with this thread's staging arrays."""
    return fixed.format_rows(start, stop, *args, *_staging())


def _widest_of_layouts(start: int, stop: int, *args: object) -> int:
    """:func:`vecfix._kernels.rows.widest_of_layouts` with a table of its own."""
    table = np.empty((row_kernels.TABLE_ROWS, 2), dtype=np.int64)
    return row_kernels.widest_of_layouts(start, stop, *args, table)


def _extremes(start: int, stop: int, coef: np.ndarray, valid: np.ndarray) -> tuple[int, int]:
    """The smallest and the largest of ``coef[start:stop]``, a null row counted as 0."""
    low, high = row_kernels.extremes(coef[start:stop], valid[start:stop])
    return int(low), int(high)


# ---------------------------------------------------------------------- rows and nulls


def _for_kernels(rows: Rows, valid: np.ndarray | None) -> Rows:
    """``rows`` as ``format_rows`` takes them: a coefficient a row (a broadcast one
    repeated), and no coefficient beyond int64 in a null row (never printed)."""
    if rows.n > 1 and not rows.cstep:
        rows = rows._replace(coef=np.full(rows.n, rows.coef[0], dtype=np.int64), cstep=1)
    if valid is not None and rows.big_values:
        keep = valid[rows.big_rows]
        values = [v for v, k in zip(rows.big_values, keep.tolist(), strict=True) if k]
        rows = rows._replace(big_rows=rows.big_rows[keep], big_values=values)
    return rows


def _fallback_rows(rows: Rows) -> list[bytes]:
    """The rows whose coefficient is beyond int64, formatted by :mod:`decimal`."""
    texts = []
    for i, c in zip(rows.big_rows.tolist(), rows.big_values, strict=True):
        e, s = int(rows.exps[i * rows.estep]), int(rows.scales[i * rows.sstep])
        try:
            texts.append(string_fixed(c, e, s).encode("ascii"))
        except RowTooLongError as exc:
            raise RowTooLongError(f": {exc}", argument="coefficients", row=i) from None
    return texts


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
    among them (counted from ``first``) zeroed in copies made in the rooms given (a block
    without nulls is passed as it is): each null row a placeholder zero, never wider than
    a real row and never sent to the fallback."""
    coef, scales = rows.coef, rows.scales
    if rows.cstep:
        coef = _zeroed(coef[first:last], nulls, coef_room)
    elif nulls.size:  # one coefficient for every row: it is the null one
        coef = np.zeros_like(coef)
    if rows.sstep:
        scales = _zeroed(scales[first:last], nulls, scales_room)
    exps = rows.exps[first:] if rows.estep else rows.exps
    return coef, rows.cstep, exps, rows.estep, scales, rows.sstep


def _zeroed(values: np.ndarray, nulls: np.ndarray, room: np.ndarray | None) -> np.ndarray:
    """``values`` with the rows ``nulls`` set to 0: a copy in ``room`` if there are any."""
    if not nulls.size:
        return values
    assert room is not None  # _null_rooms() makes one for every per-row column
    copy = room[: values.size]
    np.copyto(copy, values)
    copy[nulls] = 0
    return copy
