"""Numba kernels that make the columns of :func:`vecfix.fix.read` from a scanned log.

:func:`vecfix._kernels.fixread.split_fields` files every field as a record (its value's
``(start, stop)`` and its node) in chunks of a pool, a column's records in message order.
Per column, its records are read in order and its rows walked in order, a run at a time
(``_run``): a row takes the value of its own node, else its parent's, and so on up to the
message. :func:`text_total` and :func:`text_rows` make string columns (the text copied by
:func:`vecfix._kernels.text.copy_rows`), :func:`spread_words` number columns (1 to 4 int64
words a value).

Numbers are parsed by :func:`vecfix._kernels.text.parse_decimal` (from the pairs that
:func:`gather_pairs` lines up), through :func:`parse_numbers`, which adds FIX's rules to
its grammar (:func:`_check_numbers`: no exponent, no ``+``); :func:`rescale` brings a
column's decimals to one scale, and :func:`parse_timestamps` reads ``UTCTimestamp`` text.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from .._jit import helper, kernel, load8
from .text import copy_rows, parse_decimal

#: ``status`` values of :func:`parse_timestamps` beyond :mod:`~vecfix._kernels.text`'s.
TS_LEAP_SECOND = 4


def _prefetch_python(buf, offset):
    """``prefetch`` for ``NUMBA_DISABLE_JIT=1``: nothing to do."""


@intrinsic
def _prefetch_intrinsic(typingctx, buf, offset):
    """Ask for the cache line of byte ``offset`` of a 1-D array (LLVM's ``prefetch``)."""
    if not (isinstance(buf, types.Array) and buf.ndim == 1):
        return None

    def codegen(context, builder, sig, args):
        array = context.make_array(sig.args[0])(context, builder, args[0])
        where = context.cast(builder, args[1], sig.args[1], types.intp)
        byte = ir.IntType(8).as_pointer()
        pointer = builder.bitcast(builder.gep(array.data, [where]), byte)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [byte], fnty)
        builder.call(fn, [pointer, i32(0), i32(3), i32(1)])  # read, keep, data cache
        return context.get_dummy_value()

    return types.void(buf, offset), codegen


#: ``prefetch(buf, offset)``: start loading ``buf[offset]``'s cache line; no wait, no
#: fault (an address past the buffer is harmless). A value a column takes from each
#: message lies a message apart from the last: without it, each such read waits on memory
#: while the row stores behind it pile up. (numba.config sets DISABLE_JIT at run time.)
prefetch = _prefetch_python if numba.config.DISABLE_JIT else _prefetch_intrinsic  # type: ignore[attr-defined]

AHEAD = 16  # records ahead whose values text_rows prefetches


@kernel("i64[]r i64[]r i64[,]r i64[,]")
def gather_pairs(seg_lo, seg_hi, pool_pairs, out):
    """A column's records' ``(start, stop)``, segment after segment, into ``out``
    (``(records, 2)``)."""
    j = 0
    for s in range(seg_lo.shape[0]):
        for p in range(seg_lo[s], seg_hi[s]):
            out[j, 0] = pool_pairs[p, 0]
            out[j, 1] = pool_pairs[p, 1]
            j += 1


STACK = 8  # nested nodes a row's value may come from (MAX_DEPTH + 1, and room)


@helper
def _run(r, rows, seg_lo, seg_hi, pool_node, n_lo, n_hi, stack, walk):
    """Move a column's walk to row ``r`` (rows in order) and return ``(end, walk)``: rows
    ``r:end`` all take the record in stack slot ``walk[0]`` (-1: none). Of the records
    whose node holds a row, the deepest applies; ``stack[x]`` is ``(pool position, record
    number, node's last row + 1)``.

    ``walk`` is ``(top, segment, pool position, record number, last node, repeated)``, a
    tuple kept in registers (start with :func:`_walk_start`). A column's records come in
    message order, so their nodes' first rows never decrease and a node's records come
    before its children's. A record of the same node as the one before it repeats a tag
    within that node: it is skipped and counted.
    """
    top, s, p, j, last, repeated = walk
    while top >= 0 and stack[top, 2] <= r:
        top -= 1
    nseg = seg_lo.shape[0]
    end = rows
    while s < nseg:
        if p >= seg_hi[s]:
            s += 1
            if s < nseg:
                p = seg_lo[s]
            continue
        node = pool_node[p]
        lo = n_lo[node]
        if lo > r:
            end = lo
            break
        if node == last:
            repeated += 1
        else:
            last = node
            hi = n_hi[node]
            if hi > r:
                if top < STACK - 1:
                    top += 1
                stack[top, 0] = p
                stack[top, 1] = j
                stack[top, 2] = hi
        p += 1
        j += 1
    if top >= 0 and stack[top, 2] < end:
        end = stack[top, 2]
    return end, (top, s, p, j, last, repeated)


@helper
def _walk_start(seg_lo):
    p = seg_lo[0] if seg_lo.shape[0] else np.int64(0)
    return (np.int64(-1), np.int64(0), np.int64(p), np.int64(0), np.int64(-1), np.int64(0))


@kernel("i64[]r i64[]r i64[,]r i64[]r i64[]r i64[]r bool i64 i64[,]")
def text_total(seg_lo, seg_hi, pool_pairs, pool_node, n_lo, n_hi, flat, rows, stack):
    """Bytes of text a string column's ``rows`` hold (each row's value is found as
    ``_run`` says; with ``flat``, straight from its one record). Returns ``(bytes, rows
    present, records repeated)``."""
    if flat:
        total = 0
        present = 0
        for s in range(seg_lo.shape[0]):
            for p in range(seg_lo[s], seg_hi[s]):
                node = pool_node[p]
                count = n_hi[node] - n_lo[node]
                total += (pool_pairs[p, 1] - pool_pairs[p, 0]) * count
                present += count
        return total, present, 0
    walk = _walk_start(seg_lo)
    total = 0
    present = 0
    r = 0
    while r < rows:
        end, walk = _run(r, rows, seg_lo, seg_hi, pool_node, n_lo, n_hi, stack, walk)
        if walk[0] >= 0:
            p = stack[walk[0], 0]
            total += (pool_pairs[p, 1] - pool_pairs[p, 0]) * (end - r)
            present += end - r
        r = end
    return total, present, walk[5]


@kernel(
    "i64[]r i64[]r i64[,]r i64[]r i64[]r i64[]r bool i64[,] u8[]r i32[] u8[] i64[] i64[] i64[] u8[]"
)
def text_rows(
    seg_lo, seg_hi, pool_pairs, pool_node, n_lo, n_hi, flat, stack, data, offsets, valid,
    starts, lengths, at, dst,
):  # fmt: skip
    """Arrow ``string`` (``large_string``) data of a column: ``offsets`` (``rows + 1``),
    ``valid`` and the text in ``dst``, copied by ``copy_rows`` a block of rows at a time
    (``starts``, ``lengths`` and ``at`` are its scratch, one block long)."""
    walk = _walk_start(seg_lo)
    rows = valid.shape[0]
    block = starts.shape[0]
    pos = np.int64(0)
    q = 0
    offsets[0] = 0
    r = 0
    s = 0
    p = seg_lo[0] if seg_lo.shape[0] else 0
    while r < rows:
        if flat:  # the next record's rows, or the rows before them
            while s < seg_lo.shape[0] and p >= seg_hi[s]:
                s += 1
                if s < seg_lo.shape[0]:
                    p = seg_lo[s]
            top = -1
            end = rows
            if s < seg_lo.shape[0]:
                prefetch(data, pool_pairs[min(p + AHEAD, seg_hi[s] - 1), 0])
                node = pool_node[p]
                if n_lo[node] > r:
                    end = n_lo[node]
                else:
                    top = p
                    end = n_hi[node]
                    p += 1
        else:
            end, walk = _run(r, rows, seg_lo, seg_hi, pool_node, n_lo, n_hi, stack, walk)
            if walk[1] < seg_lo.shape[0]:
                prefetch(data, pool_pairs[min(walk[2] + AHEAD, seg_hi[walk[1]] - 1), 0])
            top = stack[walk[0], 0] if walk[0] >= 0 else -1
        if top >= 0:
            a = pool_pairs[top, 0]
            k = pool_pairs[top, 1] - a
            for x in range(r, end):
                valid[x] = 1
                starts[q] = a
                lengths[q] = k
                at[q] = pos
                q += 1
                if q == block:
                    copy_rows(data, starts, 0, lengths, dst, at)
                    q = 0
                pos += k
                offsets[x + 1] = pos
        else:
            for x in range(r, end):
                valid[x] = 0
                offsets[x + 1] = pos
        r = end
    for x in range(q, block):  # the last block's unused rows copy nothing
        lengths[x] = 0
        starts[x] = 0
        at[x] = 0
    copy_rows(data, starts, 0, lengths, dst, at)


@kernel("i64[]r i64[]r i64[]r i64[]r i64[]r bool i64[,] i64[,]r u8[]r i64[,] u8[]")
def spread_words(seg_lo, seg_hi, pool_node, n_lo, n_hi, flat, stack, words, ok, out, valid):
    """A number column's rows: ``out[r]`` (``out.shape[1]`` int64 words) is ``words[j]`` of
    the record ``j`` that applies to row ``r`` (as ``_run`` says), zeros and
    ``valid[r] = 0`` where none does or ``ok[j]`` is 0 (with ``flat``, a row's record is
    the next one). Returns ``(rows present, records repeated)``."""
    walk = _walk_start(seg_lo)
    rows = valid.shape[0]
    w = out.shape[1]
    present = 0
    r = 0
    s = 0
    p = seg_lo[0] if seg_lo.shape[0] else 0
    n = 0  # records passed, in flat columns
    while r < rows:
        if flat:
            while s < seg_lo.shape[0] and p >= seg_hi[s]:
                s += 1
                if s < seg_lo.shape[0]:
                    p = seg_lo[s]
            j = -1
            end = rows
            if s < seg_lo.shape[0]:
                node = pool_node[p]
                if n_lo[node] > r:
                    end = n_lo[node]
                else:
                    j = n
                    end = n_hi[node]
                    p += 1
                    n += 1
        else:
            end, walk = _run(r, rows, seg_lo, seg_hi, pool_node, n_lo, n_hi, stack, walk)
            j = stack[walk[0], 1] if walk[0] >= 0 else -1
        good = j >= 0 and ok[j] != 0
        for x in range(w):
            v = words[j, x] if good else 0
            for y in range(r, end):
                out[y, x] = v
        flag = 1 if good else 0
        for y in range(r, end):
            valid[y] = flag
        if good:
            present += end - r
        r = end
    return present, walk[5]


_U64 = np.uint64
_ONES = _U64(0x0101010101010101)
_HIGHS = _U64(0x8080808080808080)
_CASE = _U64(0x2020202020202020)  # "E" | 0x20 is "e"; digits, "-", "." and "+" keep theirs
_WORDS = not numba.config.DISABLE_JIT  # type: ignore[attr-defined]  # 8 bytes a test


@helper
def _has(word, byte):
    """Whether one of ``word``'s bytes is ``byte`` (the first such is always found exact)."""
    x = word ^ (_ONES * _U64(byte))
    return ((x - _ONES) & ~x & _HIGHS) != 0


@kernel
def _check_numbers(data, pairs, point, exps, status):
    """FIX's number grammar on top of ``parse_decimal``'s: mark ``status`` 2 (invalid)
    where a value has an exponent, a ``+`` or (when ``point`` is 0: integers) a ``.``;
    an empty value is invalid too. Returns how many were marked and the lowest exponent
    of the values left (0 if none is lower)."""
    bad = 0
    lowest = 0
    n = data.shape[0]
    for j in range(status.shape[0]):
        a = pairs[2 * j]
        b = pairs[2 * j + 1]
        wrong = a == b
        if _WORDS and b - a <= 8 and a + 8 <= n:  # one 8-byte word, the rest masked off
            word = load8(data, a) | _CASE
            if b - a < 8:
                word &= (_U64(1) << _U64(8 * (b - a))) - _U64(1)
            wrong = wrong or _has(word, 101) or _has(word, 43) or (point == 0 and _has(word, 46))
        else:
            for p in range(a, b):
                c = data[p]
                if c == 101 or c == 69 or c == 43 or (c == 46 and point == 0):  # e E + .
                    wrong = True
        if wrong and status[j] != 2:
            status[j] = 2
            bad += 1
        if status[j] <= 1 and exps[j] < lowest:
            lowest = exps[j]
    return bad, lowest


BLOCK = 512  # values parse_numbers parses while the next ones are fetched


@kernel("u8[]r i64[]r i64 u8[]r i64[] i32[] u8[]")
def parse_numbers(data, pairs, point, valid, coef, exps, status):
    """:func:`~vecfix._kernels.text.parse_decimal` (``pairs``: ``(start, stop)`` of each
    value) then :func:`_check_numbers`, a block of values at a time, the next block's bytes
    prefetched: a column a message holds once has its values a message apart, and each
    would wait on memory. Returns ``_check_numbers``'s ``(bad, lowest)``."""
    k = status.shape[0]
    bad = 0
    lowest = 0
    for j in range(min(BLOCK, k)):
        prefetch(data, pairs[2 * j])
    for j0 in range(0, k, BLOCK):
        j1 = min(j0 + BLOCK, k)
        for j in range(j1, min(j1 + BLOCK, k)):
            prefetch(data, pairs[2 * j])
        part = pairs[2 * j0 : 2 * j1]
        parse_decimal(data, part, 0, -1, valid, coef[j0:j1], exps[j0:j1], status[j0:j1])
        b, low = _check_numbers(data, part, point, exps[j0:j1], status[j0:j1])
        bad += b
        lowest = min(lowest, low)
    return bad, lowest


@kernel("i64[] i32[] u8[] i64 i64[] i64[,]")
def rescale(coef, exps, status, scale, pow10, words):
    """``coef[j] * 10**(scale + exps[j])`` into ``words[j]`` (its low word, the others the
    sign), for fields with ``status`` 0; ``status`` becomes 1 (``BIG``: the caller computes
    it exactly) where the product leaves int64, and 2 where the field has more decimals
    than ``scale``. Returns the number of values of 19 digits or more (18 digits fit
    ``decimal128(18, s)``), counting every ``BIG`` one."""
    w = words.shape[1]
    wide = 0
    lim18 = np.int64(999_999_999_999_999_999)
    for j in range(coef.shape[0]):
        for x in range(w):
            words[j, x] = 0
        if status[j] == 1:
            wide += 1
            continue
        if status[j] != 0:
            continue
        k = scale + exps[j]
        if k < 0:
            status[j] = 2
            continue
        c = coef[j]
        if k > 0:
            if k > 18:
                if c != 0:
                    status[j] = 1
                    wide += 1
                    continue
            else:
                m = pow10[k]
                limit = np.int64(9_223_372_036_854_775_807) // m
                if c > limit or c < -limit:
                    status[j] = 1
                    wide += 1
                    continue
                c = c * m
        words[j, 0] = c
        if c < 0:
            for x in range(1, w):
                words[j, x] = -1
        if c > lim18 or c < -lim18:
            wide += 1
    return wide


@helper
def _digits(data, p, n):
    """The number written by ``n`` ASCII digits at ``p``, or -1."""
    v = np.int64(0)
    for k in range(n):
        c = data[p + k]
        if c < 48 or c > 57:
            return np.int64(-1)
        v = v * 10 + np.int64(c - 48)
    return v


@kernel("u8[]r i64[]r i64[] i64[] i64[] u8[]")
def parse_timestamps(data, pairs, secs, frac, ndig, status):
    """Read ``UTCTimestamp`` values ``YYYYMMDD-HH:MM:SS[.f...]`` (1 to 9 fraction digits):
    seconds since 1970 into ``secs``, the fraction's digits as an integer into ``frac`` and
    their count into ``ndig``; ``status`` 0, or 2 (not such a timestamp, or no such day or
    time) or :data:`TS_LEAP_SECOND` (second 60, which Arrow cannot hold). Returns the most
    fraction digits of a good value (-1 if none)."""
    most = -1
    k = status.shape[0]
    for j in range(k):
        if j + AHEAD < k:
            prefetch(data, pairs[2 * (j + AHEAD)])
        a = pairs[2 * j]
        size = pairs[2 * j + 1] - a
        secs[j] = 0
        frac[j] = 0
        ndig[j] = 0
        status[j] = 2
        nd = size - 18 if size > 17 else 0
        if size < 17 or size == 18 or nd > 9:
            continue
        if data[a + 8] != 45 or data[a + 11] != 58 or data[a + 14] != 58:  # "-" ":" ":"
            continue
        if size > 17 and data[a + 17] != 46:  # "."
            continue
        y = _digits(data, a, 4)
        mo = _digits(data, a + 4, 2)
        d = _digits(data, a + 6, 2)
        hh = _digits(data, a + 9, 2)
        mi = _digits(data, a + 12, 2)
        ss = _digits(data, a + 15, 2)
        fr = _digits(data, a + 18, nd) if nd > 0 else np.int64(0)
        if y < 0 or mo < 1 or mo > 12 or d < 1 or hh < 0 or hh > 23 or mi < 0 or mi > 59:
            continue
        if ss < 0 or ss > 60 or fr < 0:
            continue
        leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
        dim = 31
        if mo == 4 or mo == 6 or mo == 9 or mo == 11:
            dim = 30
        elif mo == 2:
            dim = 29 if leap else 28
        if d > dim:
            continue
        if ss == 60:
            status[j] = TS_LEAP_SECOND
            continue
        yy = y - (1 if mo <= 2 else 0)  # days from civil (H. Hinnant), y >= 0 here
        era = yy // 400
        yoe = yy - era * 400
        doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
        doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
        days = era * 146097 + doe - 719468
        secs[j] = days * 86400 + hh * 3600 + mi * 60 + ss
        frac[j] = fr
        ndig[j] = nd
        status[j] = 0
        if nd > most:
            most = nd
    return most
