"""Numba kernels that make the columns of :func:`vecfix.fix.read` from a scanned log.

:func:`vecfix._kernels.fixread.split_fields` files every field as a record of its column
(its value's first byte and length, and its node) in chunks of a pool, a column's records
in message order. Per column, its records are read in order and its rows walked in order:
a row takes the value of its own node, else its parent's, and so on up to the message.
In a *flat* column (each row has at most one record over it, in order) a record's rows are
simply its node's; otherwise ``_run`` walks the rows a run at a time. :func:`text_total`
and :func:`text_rows` make string columns (the text copied by
:func:`vecfix._kernels.text.copy_rows`; :func:`serial_offsets` and :func:`serial_rows`
when record ``j`` is row ``j``), :func:`spread_words` number columns (1 to 4 int64 words
a value).

Numbers are parsed by :func:`vecfix._kernels.text.parse_decimal` a chunk of records at a
time, through :func:`parse_numbers`, which adds FIX's rules to its grammar
(:func:`_check_numbers`: no exponent, no ``+``); :func:`rescale` brings a column's
decimals to one scale. (``UTCTimestamp`` text is read by :mod:`vecfix._kernels.utc`.)

No helper here takes an array: Numba counts references to the arrays an inlined helper
receives at every call (two atomic operations an array), which in a row loop costs more
than the work.
"""

from __future__ import annotations

import numba
import numpy as np

from .._jit import helper, kernel, load8
from .fixread import LENGTH_BITS, LENGTH_MASK
from .text import copy_rows, parse_decimal
from .words import prefetch

_LENGTH = np.int64(LENGTH_MASK)
_SHIFT = np.int64(LENGTH_BITS)


AHEAD = 16  # records ahead whose values are prefetched


@kernel("i64[]r i64[]r i64[,]r i64[,]")
def gather_records(seg_lo, seg_hi, pool, out):
    """A column's records' ``(start, stop)``, segment after segment, into ``out``
    (``(records, 2)``)."""
    j = 0
    for s in range(seg_lo.shape[0]):
        for p in range(seg_lo[s], seg_hi[s]):
            a = pool[p, 0]
            out[j, 0] = a
            out[j, 1] = a + (pool[p, 1] & _LENGTH)
            j += 1


STACK = 8  # nested nodes a row's value may come from (MAX_DEPTH + 1, and room)


@kernel
def _run(r, rows, seg_lo, seg_hi, pool, nodes, stack, walk):
    """Move a column's walk to row ``r`` (rows in order) and return ``(end, walk)``: rows
    ``r:end`` all take the record in stack slot ``walk[0]`` (-1: none). Of the records
    whose node holds a row, the deepest applies; ``stack[x]`` is ``(pool position, record
    number, node's last row + 1)``.

    ``walk`` is ``(top, segment, pool position, record number, last node, repeated)``
    (start with ``(-1, 0, seg_lo[0], 0, -1, 0)``). A column's records come in message
    order, so their nodes' first rows never decrease and a node's records come before its
    children's. A record of the same node as the one before it repeats a tag within that
    node: it is skipped and counted. (Compiled on its own, not inlined: a call passes the
    arrays without counting references, and only columns that are not flat come here.)
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
        node = pool[p, 1] >> _SHIFT
        lo = nodes[node, 0]
        if lo > r:
            end = lo
            break
        if node == last:
            repeated += 1
        else:
            last = node
            hi = nodes[node, 1]
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


@kernel("i64[]r i64[]r i64[,]r i64[,]r bool i64 i64[,]")
def text_total(seg_lo, seg_hi, pool, nodes, flat, rows, stack):
    """Bytes of text a string column's ``rows`` hold (each row's value is found as
    ``_run`` says; with ``flat``, straight from its one record). Returns ``(bytes, rows
    present, records repeated)``."""
    total = 0
    present = 0
    if flat:
        for s in range(seg_lo.shape[0]):
            hi = seg_hi[s]
            for p in range(seg_lo[s], hi):
                second = pool[p, 1]
                node = second >> _SHIFT
                count = nodes[node, 1] - nodes[node, 0]
                total += (second & _LENGTH) * count
                present += count
        return total, present, 0
    walk = (np.int64(-1), np.int64(0), seg_lo[0], np.int64(0), np.int64(-1), np.int64(0))
    r = 0
    while r < rows:
        end, walk = _run(r, rows, seg_lo, seg_hi, pool, nodes, stack, walk)
        if walk[0] >= 0:
            p = stack[walk[0], 0]
            total += (pool[p, 1] & _LENGTH) * (end - r)
            present += end - r
        r = end
    return total, present, walk[5]


@kernel(
    "i64[]r i64[]r i64[,]r i64[,]r bool i64[,] u8[]r i32[] u8[] i64[] i32[] u8[]",
    "i64[]r i64[]r i64[,]r i64[,]r bool i64[,] u8[]r i64[] u8[] i64[] i32[] u8[]",
)
def text_rows(seg_lo, seg_hi, pool, nodes, flat, stack, data, offsets, valid, at, size, dst):
    """Arrow ``string`` (``large_string``) data of a column: ``offsets`` (``rows + 1``),
    ``valid`` (empty when every row is present: then not written) and the text in
    ``dst``, copied by ``copy_rows`` a block of rows at a time (``at`` and ``size``, each
    row's first byte in ``data`` and its length, are its scratch, one block long; the
    block's ``offsets`` say where its rows go)."""
    rows = offsets.shape[0] - 1
    marks = valid.shape[0] > 0
    block = at.shape[0]
    nseg = seg_lo.shape[0]
    pos = np.int64(0)
    offsets[0] = 0
    r = 0
    s = 0
    p = seg_lo[0] if nseg else np.int64(0)
    hi = seg_hi[0] if nseg else np.int64(0)
    walk = (np.int64(-1), np.int64(0), p, np.int64(0), np.int64(-1), np.int64(0))
    end = np.int64(0)  # rows r:end take the text at a, k bytes (k < 0: none)
    a = np.int64(0)
    k = np.int64(-1)
    while r < rows:
        x0 = r  # one block of rows: their sources laid out, then copied
        q = 0
        while q < block and r < rows:
            if r >= end:  # the next run of rows
                top = np.int64(-1)
                end = rows
                if flat:  # the next record's rows, or the rows before them
                    while s < nseg and p >= hi:
                        s += 1
                        if s < nseg:
                            p = seg_lo[s]
                            hi = seg_hi[s]
                    if s < nseg:
                        prefetch(data, pool[min(p + AHEAD, hi - 1), 0])
                        node = pool[p, 1] >> _SHIFT
                        if nodes[node, 0] > r:
                            end = nodes[node, 0]
                        else:
                            top = p
                            end = nodes[node, 1]
                            p += 1
                else:
                    end, walk = _run(r, rows, seg_lo, seg_hi, pool, nodes, stack, walk)
                    if walk[1] < nseg:
                        prefetch(data, pool[min(walk[2] + AHEAD, seg_hi[walk[1]] - 1), 0])
                    if walk[0] >= 0:
                        top = stack[walk[0], 0]
                if top >= 0:
                    a = pool[top, 0]
                    k = pool[top, 1] & _LENGTH
                else:
                    a = 0
                    k = -1
                if marks:
                    for x in range(r, end):
                        valid[x] = k >= 0
            take = min(end - r, block - q)
            width = max(k, 0)
            for x in range(take):
                at[q + x] = a
                size[q + x] = width
                offsets[r + x + 1] = pos + (x + 1) * width
            pos += take * width
            q += take
            r += take
        copy_rows(data, at[:q], 0, size[:q], dst, offsets[x0 : x0 + q])


@kernel("i64[]r i64[]r i64[,]r i32[]", "i64[]r i64[]r i64[,]r i64[]")
def serial_offsets(seg_lo, seg_hi, pool, offsets):
    """Arrow offsets of a string column whose record ``j`` is row ``j`` (flat, as many
    records as rows): each row's value's length, summed. Returns the bytes."""
    pos = np.int64(0)
    offsets[0] = 0
    r = 1
    for s in range(seg_lo.shape[0]):
        for p in range(seg_lo[s], seg_hi[s]):
            pos += pool[p, 1] & _LENGTH
            offsets[r] = pos
            r += 1
    return pos


@kernel(
    "i64[]r i64[]r i64[,]r u8[]r i32[] i64[] i32[] u8[]",
    "i64[]r i64[]r i64[,]r u8[]r i64[] i64[] i32[] u8[]",
)
def serial_rows(seg_lo, seg_hi, pool, data, offsets, at, size, dst):
    """The text of a string column whose record ``j`` is row ``j``, copied by
    ``copy_rows`` a chunk of records at a time (``at`` and ``size``, ``CHUNK`` long, its
    scratch) to where :func:`serial_offsets` put each row."""
    r = 0
    for s in range(seg_lo.shape[0]):
        lo = seg_lo[s]
        k = seg_hi[s] - lo
        for x in range(k):
            prefetch(data, pool[lo + min(x + AHEAD, k - 1), 0])
            at[x] = pool[lo + x, 0]
            size[x] = pool[lo + x, 1] & _LENGTH
        copy_rows(data, at[:k], 0, size[:k], dst, offsets[r : r + k])
        r += k


@kernel("i64[]r i64[]r i64[,]r i64[,]r bool i64[,] i64[,]r u8[]r i64[,] u8[]")
def spread_words(seg_lo, seg_hi, pool, nodes, flat, stack, words, ok, out, valid):
    """A number column's rows: ``out[r]`` (``out.shape[1]`` int64 words) is ``words[j]`` of
    the record ``j`` that applies to row ``r`` (as ``_run`` says), zeros and
    ``valid[r] = 0`` where none does or ``ok[j]`` is 0 (with ``flat``, a row's record is
    the next one). Returns ``(rows present, records repeated)``."""
    rows = valid.shape[0]
    w = out.shape[1]
    nseg = seg_lo.shape[0]
    present = 0
    r = 0
    if flat:  # record after record: the rows before its node's are empty, its own its words
        line = out.reshape(-1)
        n = 0
        for s in range(nseg):
            hi = seg_hi[s]
            for p in range(seg_lo[s], hi):
                node = pool[p, 1] >> _SHIFT
                a = nodes[node, 0]
                b = nodes[node, 1]
                for y in range(r * w, a * w):
                    line[y] = 0
                for y in range(r, a):
                    valid[y] = 0
                good = ok[n] != 0
                flag = 1 if good else 0
                if w == 1:
                    v = words[n, 0] if good else 0
                    for y in range(a, b):
                        line[y] = v
                else:
                    for x in range(w):
                        v = words[n, x] if good else 0
                        for y in range(a, b):
                            out[y, x] = v
                for y in range(a, b):
                    valid[y] = flag
                present += (b - a) * flag
                r = b
                n += 1
        for y in range(r * w, rows * w):
            line[y] = 0
        for y in range(r, rows):
            valid[y] = 0
        return present, 0
    walk = (np.int64(-1), np.int64(0), seg_lo[0], np.int64(0), np.int64(-1), np.int64(0))
    while r < rows:
        end, walk = _run(r, rows, seg_lo, seg_hi, pool, nodes, stack, walk)
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


@kernel("u8[]r i64[]r i64[]r i64[,]r i64 u8[]r i64[,] u8[] i64[,] i64[] i32[]")
def parse_numbers(data, seg_lo, seg_hi, pool, point, valid, words, status, pairs, coef, exps):
    """:func:`~vecfix._kernels.text.parse_decimal` then :func:`_check_numbers` over a
    column's records, a chunk (segment) at a time: each chunk's ``(start, stop)`` pairs
    are laid out in ``pairs`` (``(2, 2 * CHUNK)``, two chunks' scratch) and its values
    prefetched while the chunk before is parsed (a column a message holds once has its
    values a message apart, and each would wait on memory); ``coef`` and ``exps``
    (``CHUNK`` long) receive a chunk's values, then ``words[j, 0]`` record ``j``'s
    coefficient and, when ``words`` has a second column, ``words[j, 1]`` its exponent.
    ``valid`` is empty. Returns ``_check_numbers``'s ``(bad, lowest)``."""
    nseg = seg_lo.shape[0]
    second = words.shape[1] > 1
    bad = 0
    lowest = 0
    j0 = 0
    for s in range(nseg + 1):
        if s < nseg:  # lay out (and prefetch) this chunk
            half = s & 1
            x = 0
            for p in range(seg_lo[s], seg_hi[s]):
                a = pool[p, 0]
                prefetch(data, a)
                pairs[half, x] = a
                pairs[half, x + 1] = a + (pool[p, 1] & _LENGTH)
                x += 2
        if s > 0:  # parse the chunk before
            k = seg_hi[s - 1] - seg_lo[s - 1]
            part = pairs[(s - 1) & 1, : 2 * k]
            j1 = j0 + k
            parse_decimal(data, part, 0, -1, valid, coef[:k], exps[:k], status[j0:j1])
            b, low = _check_numbers(data, part, point, exps[:k], status[j0:j1])
            for x in range(k):
                words[j0 + x, 0] = coef[x]
            if second:
                for x in range(k):
                    words[j0 + x, 1] = exps[x]
            bad += b
            lowest = min(lowest, low)
            j0 = j1
    return bad, lowest


@kernel("i64[,] u8[] i64 i64[]r")
def rescale(words, status, scale, pow10):
    """In place, each value ``words[j] = (coefficient, exponent)`` with ``status`` 0
    becomes ``coefficient * 10**(scale + exponent)`` (its low word, then its sign);
    ``status`` becomes 1 (``BIG``: the caller computes it exactly, from the exponent left
    in ``words[j, 1]``) where the product leaves int64, and 2 where the value has more
    decimals than ``scale``; other values become zeros. Returns the number of values of 19
    digits or more (18 digits fit ``decimal128(18, s)``), counting every ``BIG`` one."""
    wide = 0
    lim18 = np.int64(999_999_999_999_999_999)
    for j in range(words.shape[0]):
        c = words[j, 0]
        e = words[j, 1]
        words[j, 0] = 0
        words[j, 1] = 0
        if status[j] == 1:
            words[j, 1] = e
            wide += 1
            continue
        if status[j] != 0:
            continue
        k = scale + e
        if k < 0:
            status[j] = 2
            continue
        if k > 0:
            if k > 18:
                if c != 0:
                    status[j] = 1
                    words[j, 1] = e
                    wide += 1
                    continue
            else:
                m = pow10[k]
                limit = np.int64(9_223_372_036_854_775_807) // m
                if c > limit or c < -limit:
                    status[j] = 1
                    words[j, 1] = e
                    wide += 1
                    continue
                c = c * m
        words[j, 0] = c
        words[j, 1] = -1 if c < 0 else 0
        if c > lim18 or c < -lim18:
            wide += 1
    return wide
