"""Numba kernels that scan FIX tag=value messages: framing, fields, repeating groups.

A log (a ``uint8`` buffer of messages, each line perhaps with a prefix before ``8=``) is
read in three passes, each a plain loop with arrays in and arrays out:

1. :func:`frame_messages`: where each message starts and ends, found by its BodyLength
   (``9``) and checked by its CheckSum (``10``); a wrong BodyLength falls back to the
   first ``SOH 10=`` (or the end of the line), a missing trailer marks a truncated message.
2. :func:`soh_bits`: where the SOH bytes are, a bit each (64 bytes a vector compare);
3. :func:`split_fields`: every field's value, filed under its column (its tag looked up
   in a table) in chunks of a pool, with the repeating-group entry it belongs to: a
   message is a small tree of *nodes* (the message, its quote sets, their entries) and
   each childless node is a row. A field ends at the next SOH bit; its tag and ``=`` are
   read 8 bytes at once (:mod:`vecfix._kernels.words`), byte by byte only when unusual.

:mod:`vecfix._kernels.fixcolumns` then makes each column from its records.
"""

from __future__ import annotations

import numpy as np

from .._jit import helper, kernel, load8
from .words import (
    HIGHS,
    LOW7,
    OVER9,
    WORDS,
    ZEROS,
    byte_sum,
    ctz,
    equal_bits,
    first_byte,
    popcount,
    prefetch_write,
    swar_number,
)

SOH = 1
_EQ = 61  # "="
_NL = 10
_CR = 13
_ZERO = 48

#: Per-message ``problem`` codes. 1-3 come from the framing and win over the others; of
#: 4-10 a message keeps the first in its bytes.
OK = 0
BODY_LENGTH = 1  # BodyLength (9) missing, malformed or not where the trailer is
CHECKSUM = 2  # CheckSum (10) not three digits or not the sum of the bytes
TRUNCATED = 3  # no CheckSum (10) field: the message ends first
NO_EQUALS = 4  # a field without "="
BAD_TAG = 5  # a tag that is not a positive number without leading zeros
EMPTY_VALUE = 6  # "TAG=" followed by SOH
MSG_TYPE = 7  # MsgType (35) is not the third field
GROUP_COUNT = 8  # a NumInGroup count that disagrees with the entries that follow
BAD_VALUE = 9  # a value that does not parse as its column's type
MISPLACED = 10  # CheckSum (10) before the end of the message

#: The FIX version of a message's BeginString (``frame_messages``'s ``version``).
V44, V42, V50 = 0, 1, 2

#: Count tags whose entries become rows: NoMDEntries (268), NoQuoteSets (296),
#: NoQuoteEntries (295). The field after the count opens the first entry; each later field
#: with that tag opens the next one.
ROW_GROUPS = (268, 295, 296)
MAX_DEPTH = 3  # levels of row groups inside a message (sets, entries, and one more)
DENSE_TAGS = 65536  # tags below this are looked up in a table, the others searched
_TAG_LIMIT = 2147483647

_U64 = np.uint64
_ONES = _U64(0x0101010101010101)  # SOH in every byte
_EQS = _U64(0x3D3D3D3D3D3D3D3D)  # "=" in every byte


@kernel("u8[]r u8 u64[]")
def soh_bits(data, delim, bits):
    """Where the SOH bytes (the ``delim`` bytes) are: bit ``j % 64`` of ``bits[j // 64]``
    for byte ``j``;
    ``bits`` has ``len(data) // 64 + 2`` words, the last all ones (a stop for a search
    that runs past the end)."""
    full = data.shape[0] // 64
    for w in range(full):
        bits[w] = equal_bits(data, w * 64, delim)
    tail = _U64(0)
    for j in range(full * 64, data.shape[0]):
        if data[j] == delim:
            tail |= _U64(1) << _U64(j - full * 64)
    bits[full] = tail
    bits[full + 1] = ~_U64(0)


@helper
def _begins(b0, b1, b2, b3, b4):
    """Whether five bytes are ``8=FIX``. (Bytes, not the array: a helper taking an array
    costs Numba reference counts at each call.)"""
    return b0 == 56 and b1 == _EQ and b2 == 70 and b3 == 73 and b4 == 88


@helper
def _is_space(b):
    return b == 32 or b == 9 or b == _NL or b == _CR


@kernel("u8[]r u8 i64 i64[] i64[] i64[] u8[] i64[] i64[] i64[,] u8[]")
def frame_messages(
    data, delim, pos, starts, ends, trailers, problem, problem_at, nsoh, prefix, version
):
    """Frame messages from byte ``pos`` on, filling the arrays from index 0; stop when they
    are full. Fields end at ``delim`` (SOH, or ``|`` as logs often keep them: BodyLength
    and CheckSum are then checked as over SOH, as the engine computed them). Returns
    ``(count, next_pos, junk_at)``: ``junk_at`` is the first byte that is neither space
    nor part of a message after the last one (-1 if none; only once the buffer's end is
    reached).

    Message ``i`` is ``data[starts[i]:ends[i]]``; ``trailers[i]`` is where its ``10=``
    field starts (-1 if it has none); ``nsoh[i]`` counts its ``delim`` bytes (its fields
    are at most one more). ``problem`` and ``problem_at`` receive the framing's verdict
    (:data:`OK`, :data:`BODY_LENGTH`, :data:`CHECKSUM` or :data:`TRUNCATED`) and the byte
    it is about; ``prefix[i]`` the bounds of the text before its ``8=`` on its line, spaces
    and tabs around it left out (empty: none); ``version[i]`` the FIX version its
    BeginString names: :data:`V42` (FIX.4.0 to 4.2), :data:`V50` (FIXT.1.1, FIX.5.0...)
    or :data:`V44` (any other).
    """
    n = data.shape[0]
    m = 0
    p = pos
    cap = starts.shape[0]
    while m < cap:
        s = p
        while s + 5 <= n and not _begins(
            data[s], data[s + 1], data[s + 2], data[s + 3], data[s + 4]
        ):
            s += 1
        if s + 5 > n:
            s = n
        if s >= n:
            junk = np.int64(-1)
            for q in range(p, n):
                if not _is_space(data[q]):
                    junk = q
                    break
            return m, n, junk
        lo = s  # the line's text before the message: its prefix
        while lo > p and data[lo - 1] != _NL and data[lo - 1] != _CR:
            lo -= 1
        hi = s
        while lo < hi and (data[lo] == 32 or data[lo] == 9):
            lo += 1
        while hi > lo and (data[hi - 1] == 32 or data[hi - 1] == 9):
            hi -= 1
        prefix[m, 0] = lo
        prefix[m, 1] = hi
        v = V44  # by "FIX.4.2" / "FIXT.1.1" after "8="
        if s + 8 < n:
            if data[s + 5] == 84 or (data[s + 5] == 46 and data[s + 6] == 53):  # "T", ".5"
                v = V50
            elif data[s + 5] == 46 and data[s + 6] == 52 and data[s + 8] <= 50:  # ".4", <= "2"
                v = V42
        version[m] = v
        code = OK
        at = np.int64(-1)
        q = s + 2
        while q < n and data[q] != delim and data[q] != _NL and data[q] != _CR:
            q += 1
        body = q + 1
        declared = np.int64(-1)
        t = np.int64(-1)
        e = np.int64(-1)
        total = np.int64(0)
        count = np.int64(0)
        if q >= n or data[q] != delim:  # not even a whole BeginString field
            code = TRUNCATED
            at = q
            e = q
        else:
            if body + 1 < n and data[body] == 57 and data[body + 1] == _EQ:  # "9="
                r = body + 2
                v = np.int64(0)
                while r < n and 48 <= data[r] <= 57 and r - body < 14:
                    v = v * 10 + np.int64(data[r] - _ZERO)
                    r += 1
                if r > body + 2 and r < n and data[r] == delim:
                    declared = v
                    body = r + 1
            c = body + declared
            if (
                declared > 0
                and c + 3 <= n
                and data[c - 1] == delim
                and data[c] == 49
                and data[c + 1] == 48
                and data[c + 2] == _EQ
            ):
                t = c
            else:
                code = BODY_LENGTH
                at = q + 1
                r = body - 1  # the delimiter before the body: an empty body is a trailer at once
                e = n
                while r < n:
                    b = data[r]
                    if b == delim:
                        if r + 3 < n and data[r + 1] == 49 and data[r + 2] == 48:
                            if data[r + 3] == _EQ:
                                t = r + 1
                                break
                    elif (
                        b == _NL
                        or b == _CR
                        or (
                            r >= body
                            and r + 5 <= n
                            and _begins(b, data[r + 1], data[r + 2], data[r + 3], data[r + 4])
                        )
                    ):
                        e = r
                        break
                    r += 1
                if t < 0:
                    code = TRUNCATED
                    at = e
        stop = t if t >= 0 else e
        k = s  # the bytes' sum and delimiter count, 64 bytes a step
        while WORDS and k + 64 <= stop:
            total += np.int64(byte_sum(data, k, 64))
            count += np.int64(popcount(equal_bits(data, k, delim)))
            k += 64
        if WORDS and k < stop and k + 64 <= n:
            rest = _U64(stop - k)
            total += np.int64(byte_sum(data, k, rest))
            count += np.int64(popcount(equal_bits(data, k, delim) & ((_U64(1) << rest) - _U64(1))))
            k = stop
        for j in range(k, stop):  # near the buffer's end (and without the JIT)
            total += data[j]
            count += data[j] == delim
        if t >= 0:
            r = t + 3
            v = np.int64(0)
            while r < n and 48 <= data[r] <= 57 and r - t < 8:
                v = v * 10 + np.int64(data[r] - _ZERO)
                r += 1
            digits = r - t - 3
            while r < n and data[r] != delim and data[r] != _NL and data[r] != _CR:
                r += 1
            if r < n and data[r] == delim:
                e = r + 1
                count += 1
                total -= (count - 1) * (np.int64(delim) - SOH)  # as over SOH
                if code == OK and (digits != 3 or v != total % 256):
                    code = CHECKSUM
                    at = t
            else:
                e = r
                code = TRUNCATED
                at = r
        starts[m] = s
        ends[m] = e
        trailers[m] = t
        problem[m] = code
        problem_at[m] = at
        nsoh[m] = count
        m += 1
        p = e
    return m, p, np.int64(-1)


@helper
def _noted(code, at, new, new_at):
    """A message's problem ``(code, at)`` once ``new`` at byte ``new_at`` is noted: a
    framing problem stays, else the first in the message's bytes. (Scalars in, scalars
    out: a helper taking the arrays would cost Numba reference counts at each call.)"""
    if code == OK or (code >= NO_EQUALS and new_at < at):
        return np.int64(new), np.int64(new_at)
    return code, at


#: Rows of ``split_fields``'s ``levels`` scratch array (one column per group level).
_DELIM, _DECLARED, _SEEN, _COUNT_AT, _NODE = 0, 1, 2, 3, 4
LEVEL_ROWS = 5
_LW = MAX_DEPTH + 1  # columns of levels


#: ``split_fields``'s ``state``: columns, large tags, whether new tags get columns, the
#: next message, nodes and rows so far, chunks used.
S_COLS, S_BIG, S_GROW, S_MSG, S_NODES, S_ROWS, S_CHUNKS = 0, 1, 2, 3, 4, 5, 6
STATE_SIZE = 7
CHUNK = 512  # records of one column held together in the pool
DONE, BIG_TAGS_FULL, POOL_FULL, TOO_LONG, TOO_MANY = 0, 1, 2, 3, 4
#: Columns of ``split_fields``'s ``cols``: each column's next free slot in the pool, the
#: end of its chunk, the node of its last record, whether it is flat.
C_CUR, C_END, C_LAST, C_FLAT = 0, 1, 2, 3
#: A record's second word: the value's length in the low 32 bits, its node above.
LENGTH_BITS = 32
LENGTH_MASK = (1 << LENGTH_BITS) - 1
MAX_NODES = 1 << 31


@kernel(
    "u8[]r u64[]r i64[]r i64[]r i64[]r i64[]r u8[] i64[] i32[] i64[,] i64[] i64[]"
    " i64[,] i64[,] i64[,] i32[] i64[,] i64[,] i64[]"
)
def split_fields(
    data, bits, starts, ends, trailers, nsoh, problem, problem_at, table, big, col_tags,
    state, levels, tree, cols, chunk_col, pool, nodes, row_msg,
):  # fmt: skip
    """Split messages into fields, file each field under its column, number the rows.

    A field's column comes from ``table[tag]`` (tags below :data:`DENSE_TAGS`) or, for
    the ``state[S_BIG]`` larger tags, ``big[1]`` beside ``big[0]``; -1 means none yet:
    with ``state[S_GROW]`` set such a tag gets the next column (``col_tags`` records each
    column's tag), else its fields are skipped. A field ends at its SOH, found in ``bits``
    (:func:`soh_bits`), or at its message's end.

    A kept field becomes a record in ``pool``: its value's first byte, then its length
    (below :data:`LENGTH_BITS`) and its node (above). Records of one column go to chunks
    of :data:`CHUNK` records (``chunk_col`` says whose each chunk is; ``cols`` holds each
    column's free slot and its chunk's end, :data:`C_CUR` and :data:`C_END`): in message
    order within a column, read sequentially later. ``cols[c, C_FLAT]`` is cleared when a
    record of column ``c`` lies inside the node of its column's record before it (a tag at
    two levels, or twice in one node; ``cols[c, C_LAST]`` holds that node): else each row
    takes its value from at most one record, in order.

    Nodes are the messages (message ``i`` is node ``i``) and their group entries, numbered
    from ``state[S_NODES]`` (the number of messages at first) in message order (entries
    are opened by the first field after a :data:`ROW_GROUPS` count and by each later field
    with that tag; the trailer ``10`` is the message's own). Each childless node is a row:
    ``nodes[u, 0]:nodes[u, 1]`` are the rows under node ``u``, ``row_msg`` each row's
    message.

    Starts at message ``state[S_MSG]`` and returns :data:`DONE`; :data:`BIG_TAGS_FULL`;
    :data:`POOL_FULL` before a message whose fields might not fit (``state`` then says
    where to resume once the pool is larger); :data:`TOO_LONG` (a value of 4 GiB or more,
    ``state[S_MSG]`` its message) or :data:`TOO_MANY` (:data:`MAX_NODES` nodes).
    ``levels`` (``(LEVEL_ROWS, MAX_DEPTH + 1)``) and ``tree`` (``(2, fields of the largest
    message + 2)``) are scratch.
    """
    grow = state[S_GROW] != 0
    cf = cols.reshape(-1)  # flat views: an index is then a shift and an add
    pf = pool.reshape(-1)
    lev = levels.reshape(-1)
    capacity = pool.shape[0]
    v = state[S_NODES]
    r = state[S_ROWS]
    chunks = state[S_CHUNKS]
    n = data.shape[0]
    for i in range(state[S_MSG], starts.shape[0]):
        if (chunks + nsoh[i] + 1) * CHUNK > capacity or v + nsoh[i] + 2 > MAX_NODES:
            state[S_MSG] = i
            state[S_NODES] = v
            state[S_ROWS] = r
            state[S_CHUNKS] = chunks
            return POOL_FULL if v + nsoh[i] + 2 <= MAX_NODES else TOO_MANY
        s = starts[i]
        e = ends[i]
        t = trailers[i]
        code = np.int64(problem[i])  # the message's problem, kept in registers
        code_at = problem_at[i]
        root = i  # message i is node i; its entries are nodes first, first + 1, ...
        first = v
        tree[0, 0] = -1  # parent (0: the message, k: node first + k - 1)
        tree[1, 0] = 0  # has children
        lev[_U64(_NODE * _LW + 0)] = root
        depth = 0
        node = root
        pending = np.int64(0)
        pending_at = np.int64(0)
        p = s
        k = 0
        w = s >> 6  # the SOH bits from s on
        soh = bits[w] & (~_U64(0) << _U64(s & 63))
        while p < e:
            while soh == 0:
                w += 1
                soh = bits[_U64(w)]
            q = min((w << 6) + np.int64(ctz(soh)), e)  # the field's end: its SOH
            soh &= soh - _U64(1)
            tag = np.int64(-1)
            eq = q
            if WORDS and p + 8 <= n:  # a tag of 1 to 7 digits and its "=" in one word
                word = load8(data, p)
                size = np.int64(ctz(first_byte(word, _EQS)) >> _U64(3))
                if size < 8 and size < q - p and size != 0 and (word & _U64(255)) != _ZERO:
                    width = _U64(size) << _U64(3)
                    digits = (word ^ ZEROS) & ((_U64(1) << width) - _U64(1))
                    if (((digits & LOW7) + OVER9) | digits) & HIGHS == 0:
                        tag = np.int64(swar_number(digits << (_U64(64) - width)))
                        eq = p + size
            if tag < 0:  # a longer tag, or not a tag: byte by byte
                tag = 0
                eq = p
                while eq < q and 48 <= data[eq] <= 57 and tag <= _TAG_LIMIT:
                    tag = tag * 10 + np.int64(data[eq] - _ZERO)
                    eq += 1
                if eq >= q or data[eq] != _EQ or eq == p or data[p] == _ZERO or tag > _TAG_LIMIT:
                    while eq < q and data[eq] != _EQ:
                        eq += 1
                    bad = BAD_TAG if eq < q else NO_EQUALS
                    code, code_at = _noted(code, code_at, bad, p)
                    p = q + 1
                    k += 1
                    continue
            vs = eq + 1
            if q == vs:
                code, code_at = _noted(code, code_at, EMPTY_VALUE, p)
            if k == 2 and tag != 35:
                code, code_at = _noted(code, code_at, MSG_TYPE, p)
            if p == t:  # the trailer: the message's own, after any groups
                for d in range(depth, 0, -1):  # close the groups, checking their counts
                    if lev[_U64(_SEEN * _LW + d)] != lev[_U64(_DECLARED * _LW + d)]:
                        code, code_at = _noted(
                            code, code_at, GROUP_COUNT, lev[_U64(_COUNT_AT * _LW + d)]
                        )
                if pending > 0:
                    code, code_at = _noted(code, code_at, GROUP_COUNT, pending_at)
                pending = 0
                depth = 0
                node = root
            elif depth > 0 or pending > 0 or tag == 10 or tag == 268 or tag == 295 or tag == 296:
                if tag == 10:
                    code, code_at = _noted(code, code_at, MISPLACED, p)
                if pending > 0:  # this field opens the group's first entry ...
                    outer = False
                    for lv in range(1, depth + 1):
                        outer = outer or tag == lev[_U64(_DELIM * _LW + lv)]
                    if outer:  # ... unless it opens an enclosing group's next entry
                        code, code_at = _noted(code, code_at, GROUP_COUNT, pending_at)
                    elif depth < MAX_DEPTH:
                        depth += 1
                        lev[_U64(_DELIM * _LW + depth)] = tag
                        lev[_U64(_DECLARED * _LW + depth)] = pending
                        lev[_U64(_SEEN * _LW + depth)] = 0
                        lev[_U64(_COUNT_AT * _LW + depth)] = pending_at
                    pending = 0
                for lv in range(depth, 0, -1):
                    if tag == lev[_U64(_DELIM * _LW + lv)]:
                        for d in range(depth, lv, -1):  # close the groups inside it
                            if lev[_U64(_SEEN * _LW + d)] != lev[_U64(_DECLARED * _LW + d)]:
                                code, code_at = _noted(
                                    code, code_at, GROUP_COUNT, lev[_U64(_COUNT_AT * _LW + d)]
                                )
                        depth = lv
                        parent = lev[_U64(_NODE * _LW + lv - 1)]
                        above = 0 if parent == root else parent - first + 1
                        tree[1, above] = 1
                        tree[0, v - first + 1] = above
                        tree[1, v - first + 1] = 0
                        lev[_U64(_NODE * _LW + lv)] = v
                        v += 1
                        lev[_U64(_SEEN * _LW + lv)] += 1
                        break
                node = lev[_U64(_NODE * _LW + depth)]
                if tag == 268 or tag == 295 or tag == 296:
                    count = np.int64(0)
                    c = vs
                    while c < q and 48 <= data[c] <= 57 and count < 1_000_000_000:
                        count = count * 10 + np.int64(data[c] - _ZERO)
                        c += 1
                    if c != q or q == vs:
                        code, code_at = _noted(code, code_at, GROUP_COUNT, p)
                    elif count > 0:
                        pending = count
                        pending_at = p
            if tag < DENSE_TAGS:
                col = np.int64(table[_U64(tag)])
                if col < 0 and grow:
                    col = state[S_COLS]
                    state[S_COLS] += 1
                    table[tag] = col
                    col_tags[col] = tag
            else:
                col = -1
                for b in range(state[S_BIG]):
                    if big[0, b] == tag:
                        col = big[1, b]
                        break
                if col < 0 and grow:
                    if state[S_BIG] >= big.shape[1]:
                        state[S_CHUNKS] = chunks
                        return BIG_TAGS_FULL
                    col = state[S_COLS]
                    state[S_COLS] += 1
                    big[0, state[S_BIG]] = tag
                    big[1, state[S_BIG]] = col
                    state[S_BIG] += 1
                    col_tags[col] = tag
            if col >= 0:
                if q - vs > LENGTH_MASK:
                    state[S_MSG] = i
                    state[S_CHUNKS] = chunks
                    return TOO_LONG
                last = cf[_U64(4 * col + C_LAST)]
                if (last == root or last >= first) and cf[_U64(4 * col + C_FLAT)] != 0:
                    inside = last == node or node == root
                    for d in range(depth):
                        inside = inside or lev[_U64(_NODE * _LW + d)] == last
                    if inside:
                        cf[_U64(4 * col + C_FLAT)] = 0
                cf[_U64(4 * col + C_LAST)] = node
                slot = cf[_U64(4 * col + C_CUR)]
                if slot == cf[_U64(4 * col + C_END)]:  # a new chunk for this column
                    chunk_col[chunks] = col
                    slot = chunks * CHUNK
                    chunks += 1
                    cf[_U64(4 * col + C_END)] = slot + CHUNK
                prefetch_write(pf, 2 * slot + 16)  # 2 lines on: stores wait on no load
                pf[_U64(2 * slot)] = vs
                pf[_U64(2 * slot + 1)] = (q - vs) | (node << LENGTH_BITS)
                cf[_U64(4 * col + C_CUR)] = slot + 1
            p = q + 1
            k += 1
        for d in range(depth, 0, -1):  # close the groups, checking their counts
            if lev[_U64(_SEEN * _LW + d)] != lev[_U64(_DECLARED * _LW + d)]:
                code, code_at = _noted(code, code_at, GROUP_COUNT, lev[_U64(_COUNT_AT * _LW + d)])
        if pending > 0:
            code, code_at = _noted(code, code_at, GROUP_COUNT, pending_at)
        problem[i] = code
        problem_at[i] = code_at
        for k in range(v - first + 1):  # nodes in message order: a leaf is the next row
            u = root if k == 0 else first + k - 1
            nodes[u, 0] = r
            if tree[1, k] == 0:
                row_msg[r] = i
                r += 1
            nodes[u, 1] = r
        for k in range(v - first, 0, -1):  # children after their parents: widen upwards
            u = first + k - 1
            par = root if tree[0, k] == 0 else first + tree[0, k] - 1
            if nodes[u, 1] > nodes[par, 1]:
                nodes[par, 1] = nodes[u, 1]
    state[S_MSG] = starts.shape[0]
    state[S_NODES] = v
    state[S_ROWS] = r
    state[S_CHUNKS] = chunks
    return DONE
