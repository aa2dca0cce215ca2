"""Numba kernels that scan FIX tag=value messages: framing, fields, repeating groups.

A log (a ``uint8`` buffer of messages, each line perhaps with a prefix before ``8=``) is
read in two passes, each a plain loop with arrays in and arrays out:

1. :func:`frame_messages`: where each message starts and ends, found by its BodyLength
   (``9``) and checked by its CheckSum (``10``); a wrong BodyLength falls back to the
   first ``SOH 10=`` (or the end of the line), a missing trailer marks a truncated message.
2. :func:`split_fields`: every field's value, filed under its column (its tag looked up
   in a table) in chunks of a pool, with the repeating-group entry it belongs to: a
   message is a small tree of *nodes* (the message, its quote sets, their entries) and
   each childless node is a row.

:mod:`vecfix._kernels.fixcolumns` then makes each column from its records.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from .._jit import array, helper, i64, kernel, load8

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
_ZEROS = _U64(0x3030303030303030)  # "0" in every byte
_HIGHS = _U64(0x8080808080808080)
_LOW7 = _U64(0x7F7F7F7F7F7F7F7F)
_OVER9 = _U64(0x7676767676767676)  # a byte's low 7 bits plus this pass 127 above 9
#: Whether to scan 8 bytes a step (numba.config sets DISABLE_JIT at run time: plain Python
#: then takes the byte-by-byte paths, which wrapping uint64 arithmetic would warn in).
_WORDS = not numba.config.DISABLE_JIT  # type: ignore[attr-defined]


def _ctz_python(x):
    """``ctz`` for ``NUMBA_DISABLE_JIT=1``."""
    x = int(x)
    return _U64((x & -x).bit_length() - 1 if x else 64)


@intrinsic
def _ctz_intrinsic(typingctx, x):
    """The trailing zero bits of the uint64 ``x`` (LLVM's ``cttz``, one instruction)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        word = ir.IntType(64)
        fn = builder.module.declare_intrinsic("llvm.cttz", [word, ir.IntType(1)])
        return builder.call(fn, [args[0], ir.IntType(1)(0)])

    return types.uint64(x), codegen


#: ``ctz(x)``: the trailing zero bits of a uint64 (64 for 0).
ctz = _ctz_intrinsic if _WORDS else _ctz_python


@helper
def _first(word, pattern):
    """A uint64 whose lowest set bit is bit 7 of the first byte of ``word`` that equals
    ``pattern``'s bytes (0 if none; bits above it may be set falsely)."""
    x = word ^ pattern
    return (x - _ONES) & ~x & _HIGHS


@helper
def _swar_number(digits):
    """The number that 8 digit values (0 to 9, one a byte, the first in the lowest byte)
    write: three multiplies, each joining pairs of groups."""
    v = ((digits * _U64(2561)) >> _U64(8)) & _U64(0x00FF00FF00FF00FF)
    v = ((v * _U64(6553601)) >> _U64(16)) & _U64(0x0000FFFF0000FFFF)
    return (v * _U64(42949672960001)) >> _U64(32)



@helper
def _starts_message(data, p, n):
    """Whether ``data[p:]`` begins with ``8=FIX``."""
    return (
        p + 5 <= n
        and data[p] == 56
        and data[p + 1] == _EQ
        and data[p + 2] == 70
        and data[p + 3] == 73
        and data[p + 4] == 88
    )


@helper
def _is_space(b):
    return b == 32 or b == 9 or b == _NL or b == _CR


@kernel(
    (
        array("uint8", readonly=True),
        i64,
        array("int64"),
        array("int64"),
        array("int64"),
        array("uint8"),
        array("int64"),
        array("int64"),
    )
)
def frame_messages(data, pos, starts, ends, trailers, problem, problem_at, nsoh):
    """Frame messages from byte ``pos`` on, filling the arrays from index 0; stop when they
    are full. Returns ``(count, next_pos, junk_at)``: ``junk_at`` is the first byte that is
    neither space nor part of a message after the last one (-1 if none; only once the
    buffer's end is reached).

    Message ``i`` is ``data[starts[i]:ends[i]]``; ``trailers[i]`` is where its ``10=``
    field starts (-1 if it has none); ``nsoh[i]`` counts its SOH bytes (its fields are at
    most one more). ``problem`` and ``problem_at`` receive the framing's verdict
    (:data:`OK`, :data:`BODY_LENGTH`, :data:`CHECKSUM` or :data:`TRUNCATED`) and the byte
    it is about.
    """
    n = data.shape[0]
    m = 0
    p = pos
    cap = starts.shape[0]
    while m < cap:
        s = p
        while s < n and not _starts_message(data, s, n):
            s += 1
        if s >= n:
            junk = np.int64(-1)
            for q in range(p, n):
                if not _is_space(data[q]):
                    junk = q
                    break
            return m, n, junk
        code = OK
        at = np.int64(-1)
        q = s + 2
        while q < n and data[q] != SOH and data[q] != _NL and data[q] != _CR:
            q += 1
        body = q + 1
        declared = np.int64(-1)
        t = np.int64(-1)
        e = np.int64(-1)
        if q >= n or data[q] != SOH:  # not even a whole BeginString field
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
                if r > body + 2 and r < n and data[r] == SOH:
                    declared = v
                    body = r + 1
            c = body + declared
            if (
                declared > 0
                and c + 3 <= n
                and data[c - 1] == SOH
                and data[c] == 49
                and data[c + 1] == 48
                and data[c + 2] == _EQ
            ):
                t = c
            else:
                code = BODY_LENGTH
                at = q + 1
                r = body - 1  # the SOH before the body: an empty body is a trailer at once
                e = n
                while r < n:
                    b = data[r]
                    if b == SOH:
                        if r + 3 < n and data[r + 1] == 49 and data[r + 2] == 48:
                            if data[r + 3] == _EQ:
                                t = r + 1
                                break
                    elif b == _NL or b == _CR or (r >= body and _starts_message(data, r, n)):
                        e = r
                        break
                    r += 1
                if t < 0:
                    code = TRUNCATED
                    at = e
        stop = t if t >= 0 else e
        view = data[s:stop]  # from 0: LLVM vectorizes both sums
        total = np.int64(0)
        count = np.int64(0)
        for k in range(view.shape[0]):
            total += view[k]
            count += view[k] == SOH
        if t >= 0:
            r = t + 3
            v = np.int64(0)
            while r < n and 48 <= data[r] <= 57 and r - t < 8:
                v = v * 10 + np.int64(data[r] - _ZERO)
                r += 1
            digits = r - t - 3
            while r < n and data[r] != SOH and data[r] != _NL and data[r] != _CR:
                r += 1
            if r < n and data[r] == SOH:
                e = r + 1
                count += 1
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


#: ``split_fields``'s ``state``: columns, large tags, whether new tags get columns, the
#: next message, nodes and rows so far, chunks used.
S_COLS, S_BIG, S_GROW, S_MSG, S_NODES, S_ROWS, S_CHUNKS = 0, 1, 2, 3, 4, 5, 6
STATE_SIZE = 7
CHUNK = 512  # records of one column held together in the pool
DONE, BIG_TAGS_FULL, POOL_FULL = 0, 1, 2


@kernel(
    (
        array("uint8", readonly=True),
        array("int64", readonly=True),
        array("int64", readonly=True),
        array("int64", readonly=True),
        array("int64", readonly=True),
        array("uint8"),
        array("int64"),
        array("int32"),
        array("int64"),
        array("int32"),
        array("int64"),
        array("int64"),
        array("int64", 2),
        array("int64", 2),
        array("int64"),
        array("int64"),
        array("int64"),
        array("uint8"),
        array("int32"),
        array("int64", 2),
        array("int64"),
        array("int64"),
        array("int64"),
        array("int64"),
    )
)
def split_fields(
    data, starts, ends, trailers, nsoh, problem, problem_at, table, big_tags, big_cols,
    col_tags, state, levels, tree, col_cur, col_end, col_last, col_flat, chunk_col,
    pool_pairs, pool_node, n_lo, n_hi, row_msg,
):  # fmt: skip
    """Split messages into fields, file each field under its column, number the rows.

    A field's column comes from ``table[tag]`` (tags below :data:`DENSE_TAGS`) or
    ``big_cols`` beside ``big_tags`` (``state[S_BIG]`` larger tags); -1 means none yet:
    with ``state[S_GROW]`` set such a tag gets the next column (``col_tags`` records each
    column's tag), else its fields are skipped.

    A kept field becomes a record in the pool: its value's ``(start, stop)`` in
    ``pool_pairs`` and its node in ``pool_node``. Records of one column go to chunks of
    :data:`CHUNK` records (``chunk_col`` says whose each chunk is; ``col_cur`` and
    ``col_end`` are each column's free slot and its chunk's end): in message order within
    a column, read sequentially later. ``col_flat[c]`` is cleared when a record of
    column ``c`` lies inside the node of its column's record before it (a tag at two
    levels, or twice in one node; ``col_last`` holds that node): else each row takes its
    value from at most one record, in order.

    Nodes are the message and its group entries (entries are opened by the first field
    after a :data:`ROW_GROUPS` count and by each later field with that tag; the trailer
    ``10`` is the message's own). Each childless node is a row: ``n_lo[u]:n_hi[u]`` are
    the rows under node ``u``, ``row_msg`` each row's message.

    Starts at message ``state[S_MSG]`` and returns :data:`DONE`, :data:`BIG_TAGS_FULL`,
    or :data:`POOL_FULL` before a message whose fields might not fit (``state`` then
    says where to resume once the pool is larger). ``levels`` (``(LEVEL_ROWS,
    MAX_DEPTH + 1)``) and ``tree`` (``(2, fields of the largest message + 2)``) are
    scratch.
    """
    grow = state[S_GROW] != 0
    capacity = pool_node.shape[0]
    v = state[S_NODES]
    r = state[S_ROWS]
    n = data.shape[0]
    for i in range(state[S_MSG], starts.shape[0]):
        if (state[S_CHUNKS] + nsoh[i] + 1) * CHUNK > capacity:
            state[S_MSG] = i
            state[S_NODES] = v
            state[S_ROWS] = r
            return POOL_FULL
        s = starts[i]
        e = ends[i]
        t = trailers[i]
        code = np.int64(problem[i])  # the message's problem, kept in registers
        code_at = problem_at[i]
        root = v
        tree[0, 0] = -1  # parent, as an offset from root
        tree[1, 0] = 0  # has children
        v += 1
        levels[_NODE, 0] = root
        depth = 0
        pending = np.int64(0)
        pending_at = np.int64(0)
        p = s
        k = 0
        while p < e:
            tag = np.int64(-1)
            q = p
            seek = np.int64(-1)  # the value's SOH, when found with the tag
            if _WORDS and p + 16 <= n:  # a tag of 1 to 7 digits, its "=", and the SOH
                word = load8(data, p)  # in 16 bytes, both words read at once (the next
                soh = _first(word, _ONES)  # field's start waits on this one's SOH only)
                stop = (ctz(soh) >> _U64(3)) + (
                    _U64(0) if soh != 0 else ctz(_first(load8(data, p + 8), _ONES)) >> _U64(3)
                )
                size = ctz(_first(word, _EQS)) >> _U64(3)
                if size < stop and size != 0 and (word & _U64(255)) != _ZERO:
                    digits = (word ^ _ZEROS) & ((_U64(1) << (size << _U64(3))) - _U64(1))
                    if (((digits & _LOW7) + _OVER9) | digits) & _HIGHS == 0:
                        tag = np.int64(_swar_number(digits << (_U64(64) - (size << _U64(3)))))
                        q = p + np.int64(size)
                        seek = p + np.int64(stop)
            if tag < 0 or q >= e:  # a longer tag, or not a tag: byte by byte
                tag = 0
                q = p
                while q < e and 48 <= data[q] <= 57 and tag <= _TAG_LIMIT:
                    tag = tag * 10 + np.int64(data[q] - _ZERO)
                    q += 1
                if q >= e or data[q] != _EQ or q == p or data[p] == _ZERO or tag > _TAG_LIMIT:
                    bad = BAD_TAG
                    while q < e and data[q] != SOH:
                        if data[q] == _EQ:
                            break
                        q += 1
                    if q >= e or data[q] == SOH:
                        bad = NO_EQUALS
                    code, code_at = _noted(code, code_at, bad, p)
                    while q < e and data[q] != SOH:
                        q += 1
                    p = q + 1
                    k += 1
                    continue
            vs = q + 1
            if seek >= 0 and seek < p + 16:  # found with the tag
                q = min(seek, e)
            else:
                q = vs if seek < 0 else seek
                while True:  # the value's end: its SOH, 8 bytes a step
                    if q >= e:
                        q = e
                        break
                    if not _WORDS or q + 8 > n:
                        while q < e and data[q] != SOH:
                            q += 1
                        break
                    soh = _first(load8(data, q), _ONES)
                    if soh != 0:
                        q = min(q + np.int64(ctz(soh) >> _U64(3)), e)
                        break
                    q += 8
            if q == vs:
                code, code_at = _noted(code, code_at, EMPTY_VALUE, p)
            if k == 2 and tag != 35:
                code, code_at = _noted(code, code_at, MSG_TYPE, p)
            if p == t:  # the trailer: the message's own, after any groups
                for d in range(depth, 0, -1):  # close the groups, checking their counts
                    if levels[_SEEN, d] != levels[_DECLARED, d]:
                        code, code_at = _noted(code, code_at, GROUP_COUNT, levels[_COUNT_AT, d])
                if pending > 0:
                    code, code_at = _noted(code, code_at, GROUP_COUNT, pending_at)
                pending = 0
                depth = 0
                node = root
            else:
                if tag == 10:
                    code, code_at = _noted(code, code_at, MISPLACED, p)
                if pending > 0:  # this field opens the group's first entry ...
                    outer = False
                    for lv in range(1, depth + 1):
                        outer = outer or tag == levels[_DELIM, lv]
                    if outer:  # ... unless it opens an enclosing group's next entry
                        code, code_at = _noted(code, code_at, GROUP_COUNT, pending_at)
                    elif depth < MAX_DEPTH:
                        depth += 1
                        levels[_DELIM, depth] = tag
                        levels[_DECLARED, depth] = pending
                        levels[_SEEN, depth] = 0
                        levels[_COUNT_AT, depth] = pending_at
                    pending = 0
                for lv in range(depth, 0, -1):
                    if tag == levels[_DELIM, lv]:
                        for d in range(depth, lv, -1):  # close the groups inside it
                            if levels[_SEEN, d] != levels[_DECLARED, d]:
                                code, code_at = _noted(
                                    code, code_at, GROUP_COUNT, levels[_COUNT_AT, d]
                                )
                        depth = lv
                        parent = levels[_NODE, lv - 1]
                        tree[1, parent - root] = 1
                        tree[0, v - root] = parent - root
                        tree[1, v - root] = 0
                        levels[_NODE, lv] = v
                        v += 1
                        levels[_SEEN, lv] += 1
                        break
                node = levels[_NODE, depth]
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
                col = table[tag]
                if col < 0 and grow:
                    col = state[S_COLS]
                    state[S_COLS] += 1
                    table[tag] = col
                    col_tags[col] = tag
            else:
                col = -1
                for b in range(state[S_BIG]):
                    if big_tags[b] == tag:
                        col = big_cols[b]
                        break
                if col < 0 and grow:
                    if state[S_BIG] >= big_tags.shape[0]:
                        return BIG_TAGS_FULL
                    col = state[S_COLS]
                    state[S_COLS] += 1
                    big_tags[state[S_BIG]] = tag
                    big_cols[state[S_BIG]] = col
                    state[S_BIG] += 1
                    col_tags[col] = tag
            if col >= 0:
                last = col_last[col]
                if last >= root and col_flat[col]:
                    inside = last == node or node == root
                    for d in range(depth):
                        inside = inside or levels[_NODE, d] == last
                    if inside:
                        col_flat[col] = 0
                col_last[col] = node
                slot = col_cur[col]
                if slot == col_end[col]:  # a new chunk for this column
                    chunk = state[S_CHUNKS]
                    state[S_CHUNKS] += 1
                    chunk_col[chunk] = col
                    slot = chunk * CHUNK
                    col_end[col] = slot + CHUNK
                pool_pairs[slot, 0] = vs
                pool_pairs[slot, 1] = q
                pool_node[slot] = node
                col_cur[col] = slot + 1
            p = q + 1
            k += 1
        for d in range(depth, 0, -1):  # close the groups, checking their counts
            if levels[_SEEN, d] != levels[_DECLARED, d]:
                code, code_at = _noted(code, code_at, GROUP_COUNT, levels[_COUNT_AT, d])
        if pending > 0:
            code, code_at = _noted(code, code_at, GROUP_COUNT, pending_at)
        problem[i] = code
        problem_at[i] = code_at
        for u in range(root, v):  # nodes in message order: a leaf is the next row
            n_lo[u] = r
            if tree[1, u - root] == 0:
                row_msg[r] = i
                r += 1
            n_hi[u] = r
        for u in range(v - 1, root, -1):  # children after their parents: widen upwards
            par = root + tree[0, u - root]
            if n_hi[u] > n_hi[par]:
                n_hi[par] = n_hi[u]
    state[S_MSG] = starts.shape[0]
    state[S_NODES] = v
    state[S_ROWS] = r
    return DONE
