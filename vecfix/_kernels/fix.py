"""Numba kernels that lay out FIX fields and messages in one contiguous buffer.

Every builder runs in two passes and never allocates inside a kernel: a *measure* kernel
computes each message's length, Python allocates the whole buffer once from the cumulative
sum, and *write* kernels fill it in place. Framing is shared by every message type:

* :func:`frame_lengths` sizes the frame (``8``, ``9``, standard header, trailer) around a
  type-specific body whose length the type's own measure kernel gives;
* :func:`write_heads` writes ``8=…|9=…|35=…|49=…|56=…|34=…|52=…|``;
* a type kernel (:func:`write_snapshot_bodies`, :func:`write_quote_bodies`,
  :func:`write_mass_quote_bodies`, :func:`write_incremental_bodies`) writes the body;
* :func:`write_trailers` sums every byte written and appends ``10=CCC|``.

A helper prepares inputs: :func:`pack_sets` lays MassQuote's quote sets out in messages
(Arrow strings become byte matrices through :func:`vecfix._kernels.text.copy_rows`).

Column data arrive as byte matrices: row ``r`` of a column is ``matrix[r, :lengths[r]]``
and is absent when ``valid[r]`` is false. Tags arrive pre-rendered as ``b"TAG="`` rows of a
small table (``tags``, ``tag_lengths``), passed in like every other table, except in the
snapshot kernel's hot loop, which stores them as constants.
"""

from __future__ import annotations

import numpy as np

from .._jit import helper, kernel
from . import SOH

_ZERO = 48  # b"0"
_Q_ID, _Q_SYMBOL, _Q_FIRST_VALUE = 0, 1, 2


@helper
def ndigits(v):
    """Number of decimal digits of ``v >= 0``."""
    n = 1
    while v >= 10:
        v //= 10
        n += 1
    return n


@helper
def _put_tag(buf, p, word, n):
    """Write the ``n`` bytes of ``word`` (``b"TAG="``, little-endian) at ``p``."""
    for k in range(n):
        buf[p + k] = (word >> (8 * k)) & 255
    return p + n


@helper
def _put_bytes(buf, p, matrix, row, n):
    """Write ``matrix[row, :n]`` at ``p``; return the end."""
    for k in range(n):
        buf[p + k] = matrix[row, k]
    return p + n


@helper
def _put_row(buf, p, matrix, row, n):
    """Write ``matrix[row, :n]`` and SOH at ``p``; return the end."""
    p = _put_bytes(buf, p, matrix, row, n)
    buf[p] = SOH
    return p + 1


@helper
def _put_field(buf, p, word, n, matrix, row, length):
    """Write ``TAG=`` (the ``n`` bytes of ``word``), ``matrix[row, :length]`` and SOH at
    ``p``; return the end: :func:`_put_tag` then :func:`_put_row`, spelled out. (One
    inlined helper a field, not two: each inlined call costs Numba's front end compile
    time; written as those two calls it cost the 35=i and 35=X writers 0.03-0.09 s more.)"""
    for k in range(n):
        buf[p + k] = (word >> (8 * k)) & 255
    p += n
    for k in range(length):
        buf[p + k] = matrix[row, k]
    buf[p + length] = SOH
    return p + length + 1


@helper
def _put_digits(buf, p, v):
    """Write the decimal digits of ``v >= 0`` at ``p``; return the end."""
    nd = ndigits(v)
    for k in range(nd - 1, -1, -1):
        buf[p + k] = _ZERO + v % 10
        v //= 10
    return p + nd


@kernel
def _put_uint(buf, p, v):
    """Write the decimal digits of ``v >= 0`` and SOH at ``p``; return the end.

    Compiled apart, not inlined: it writes a count a message or a quote set, not a field
    an entry, and each inlined copy cost the body writers' compile more than the call
    costs them (with :func:`_put_field`: 35=i 0.89 -> 0.78 s, 35=X 0.55 -> 0.49, the
    writers' ns/value unchanged)."""
    p = _put_digits(buf, p, v)
    buf[p] = SOH
    return p + 1


@kernel("u8[,]r i32[]r bool[]r i64 i64 i64")
def first_bad_byte(matrix, lengths, valid, lo, hi, forbidden):
    """First present row that is empty or holds a byte outside ``lo..hi`` or equal to
    ``forbidden``; -1 when every row is fine."""
    for r in range(lengths.shape[0]):
        if not valid[r]:
            continue
        n = lengths[r]
        if n == 0:
            return r
        for k in range(n):
            b = matrix[r, k]
            if b < lo or b > hi or b == forbidden:
                return r
    return -1


@kernel("u8[] i64[]r u8[]r u8[,]r i32[]r bool[]r")
def write_fields(buf, starts, tag, matrix, lengths, valid):
    """Write ``TAG=VALUE|`` for every present row ``r`` at ``buf[starts[r]:]``."""
    t = tag.shape[0]
    for r in range(lengths.shape[0]):
        if not valid[r]:
            continue
        p = starts[r]
        for k in range(t):
            buf[p + k] = tag[k]
        _put_row(buf, p + t, matrix, r, lengths[r])


@kernel("i64[]r i64[]r")
def check_disjoint(starts, ends):
    """For ranges sorted by start: index of the first range overlapping the previous one,
    -1 if none, -2 if ``starts`` is not sorted (empty ranges are skipped)."""
    last_end = 0
    last_start = 0
    for r in range(starts.shape[0]):
        if ends[r] == starts[r]:
            continue
        if starts[r] < last_start:
            return -2
        if starts[r] < last_end:
            return r
        last_start = starts[r]
        last_end = ends[r]
    return -1


@kernel("i64[]r i64 i64 i64 i64[]r i64 i64[] i64[]")
def frame_lengths(
    body_lengths, begin_len, head_len, seq_start, time_lengths, tstep, out_len, out_body
):
    """Size each message around a type body of ``body_lengths[i]`` bytes.

    The frame is ``8=BEGIN|9=`` (``begin_len`` bytes), the BodyLength digits, then
    ``head_len`` bytes of ``|35=…|49=…|56=…|34=`` (the leading SOH ends field 9), the
    sequence number, ``|52=`` + time + ``|``, the type body, and ``10=CCC|``. Writes each
    message's length to ``out_len`` and its BodyLength (field 9) to ``out_body``.
    """
    for i in range(body_lengths.shape[0]):
        std = head_len - 1 + ndigits(seq_start + i) + 4 + time_lengths[i * tstep] + 1
        body = std + body_lengths[i]
        out_body[i] = body
        out_len[i] = begin_len + ndigits(body) + 1 + body + 7


@kernel("u8[] i64[]r i64[]r u8[]r u8[]r i64 u8[,]r i64[]r i64")
def write_heads(buf, offsets, bodies, begin, head, seq_start, times, time_lengths, tstep):
    """Write ``8=…|9=…|35=…|49=…|56=…|34=SEQ|52=TIME|`` at the start of every message."""
    nb = begin.shape[0]
    nh = head.shape[0]
    for i in range(offsets.shape[0] - 1):
        p = offsets[i]
        for k in range(nb):
            buf[p + k] = begin[k]
        p += nb
        p = _put_digits(buf, p, bodies[i])
        for k in range(nh):
            buf[p + k] = head[k]
        p = _put_digits(buf, p + nh, seq_start + i)
        buf[p] = SOH
        buf[p + 1] = 53  # "5"
        buf[p + 2] = 50  # "2"
        buf[p + 3] = 61  # "="
        p += 4
        t = i * tstep
        _put_row(buf, p, times, t, time_lengths[t])


@kernel("u8[] i64[]r")
def write_trailers(buf, offsets):
    """Append ``10=CCC|``: the sum of every byte before it, modulo 256, in three digits."""
    for i in range(offsets.shape[0] - 1):
        end = offsets[i + 1] - 7
        summed = buf[offsets[i] : end]  # a view: looping from 0 lets LLVM vectorize the sum
        total = np.int64(0)  # not 0: as plain Python, 0 + uint8 would stay uint8 and wrap
        for k in range(summed.shape[0]):
            total += summed[k]
        total &= 255
        buf[end] = 49  # "1"
        buf[end + 1] = 48  # "0"
        buf[end + 2] = 61  # "="
        buf[end + 3] = _ZERO + total // 100
        buf[end + 4] = _ZERO + (total // 10) % 10
        buf[end + 5] = _ZERO + total % 10
        buf[end + 6] = SOH


@kernel("i32[]r i64[]r i32[]r bool[]r i32[]r bool[]r i64[]")
def snapshot_lengths(sym_lengths, entry_starts, px_len, px_valid, sz_len, sz_valid, out):
    """Body of each 35=W message: ``55=SYM|268=K|`` then per entry ``269=T|`` and the
    present ``270=PX|``, ``271=SIZE|``."""
    for i in range(out.shape[0]):
        a = entry_starts[i]
        b = entry_starts[i + 1]
        total = 3 + sym_lengths[i] + 1 + 4 + ndigits(b - a) + 1 + (b - a) * 6
        for e in range(a, b):
            if px_valid[e]:
                total += 4 + px_len[e] + 1
            if sz_valid[e]:
                total += 4 + sz_len[e] + 1
        out[i] = total


@helper
def _put_27x(buf, p, last_digit, values, row, n):
    """Write ``27X=VALUE|`` (``X`` the ASCII digit ``last_digit``) at ``p``; return the end.

    The tag bytes are constants once inlined, which is what keeps the hot loop fast.
    """
    buf[p] = 50  # "2"
    buf[p + 1] = 55  # "7"
    buf[p + 2] = last_digit
    buf[p + 3] = 61  # "="
    p += 4
    for k in range(n):
        buf[p + k] = values[row, k]
    p += n
    buf[p] = SOH
    return p + 1


@kernel("u8[] i64[]r i64[]r u8[,]r i32[]r i64[]r u8[]r u8[,]r i32[]r bool[]r u8[,]r i32[]r bool[]r")
def write_snapshot_bodies(
    buf, starts, ends, syms, sym_lengths, entry_starts, entry_types,
    px, px_len, px_valid, sz, sz_len, sz_valid,
):  # fmt: skip
    """Fill the bodies sized by :func:`snapshot_lengths` from ``starts[i]``; returns the
    first message whose body does not end exactly at ``ends[i]`` (-1: all do).

    The tags are written as constant bytes (``50, 54, 57, 61`` is ``"269="``): this is the
    hot loop, and constant stores run a quarter faster than copies from a tag table.
    """
    for i in range(starts.shape[0]):
        p = starts[i]
        buf[p] = 53  # "55="
        buf[p + 1] = 53
        buf[p + 2] = 61
        p += 3
        p = _put_row(buf, p, syms, i, sym_lengths[i])
        buf[p] = 50  # "268="
        buf[p + 1] = 54
        buf[p + 2] = 56
        buf[p + 3] = 61
        a = entry_starts[i]
        b = entry_starts[i + 1]
        p = _put_digits(buf, p + 4, b - a)
        buf[p] = SOH
        p += 1
        for e in range(a, b):
            buf[p] = 50  # "269=T|"
            buf[p + 1] = 54
            buf[p + 2] = 57
            buf[p + 3] = 61
            buf[p + 4] = entry_types[e]
            buf[p + 5] = SOH
            p += 6
            if px_valid[e]:
                p = _put_27x(buf, p, 48, px, e, px_len[e])  # "270=PRICE|"
            if sz_valid[e]:
                p = _put_27x(buf, p, 49, sz, e, sz_len[e])  # "271=SIZE|"
        if p != ends[i]:
            return i
    return -1


@kernel("i64[]r i32[]r i32[]r i32[]r bool[]r i64[]")
def quote_lengths(tag_lengths, id_lengths, sym_lengths, values_len, values_valid, out):
    """Body of each 35=S message: ``117=ID|55=SYM|`` and the present ``132``..``135``.
    Value rows: bid px ``0..n``, offer px ``n..2n``, bid size, offer size."""
    n = out.shape[0]
    for i in range(n):
        total = tag_lengths[_Q_ID] + id_lengths[i] + 1
        total += tag_lengths[_Q_SYMBOL] + sym_lengths[i] + 1
        for j in range(4):
            r = i + j * n
            if values_valid[r]:
                total += tag_lengths[_Q_FIRST_VALUE + j] + values_len[r] + 1
        out[i] = total


@kernel("u8[] i64[]r i64[]r u8[,]r i64[]r u8[,]r i32[]r u8[,]r i32[]r u8[,]r i32[]r bool[]r")
def write_quote_bodies(
    buf, starts, ends, tags, tag_lengths, ids, id_lengths, syms, sym_lengths,
    values, values_len, values_valid,
):  # fmt: skip
    """Fill the bodies sized by :func:`quote_lengths`; returns the first message whose
    body does not end at ``ends[i]`` (-1: all do)."""
    n = starts.shape[0]
    for i in range(n):
        p = _put_bytes(buf, starts[i], tags, _Q_ID, tag_lengths[_Q_ID])
        p = _put_row(buf, p, ids, i, id_lengths[i])
        p = _put_bytes(buf, p, tags, _Q_SYMBOL, tag_lengths[_Q_SYMBOL])
        p = _put_row(buf, p, syms, i, sym_lengths[i])
        for j in range(4):
            r = i + j * n
            if values_valid[r]:
                t = _Q_FIRST_VALUE + j
                p = _put_bytes(buf, p, tags, t, tag_lengths[t])
                p = _put_row(buf, p, values, r, values_len[r])
        if p != ends[i]:
            return i
    return -1


# ---------------------------------------------------------------------------------------
# MassQuote (35=i) and MarketDataIncrementalRefresh (35=X)
#
# Their bodies are measured with NumPy (sums of field lengths) and written by one kernel
# each. Tags are little-endian words of their ASCII bytes: constants, like the snapshot
# kernel's, once the helpers are inlined.
# ---------------------------------------------------------------------------------------


def _word(tag: bytes) -> int:
    return int.from_bytes(tag, "little")


_T55, _T117, _T132, _T133, _T134, _T135 = (
    _word(b"55="), _word(b"117="), _word(b"132="), _word(b"133="), _word(b"134="), _word(b"135=")
)  # fmt: skip
_T268, _T269, _T270, _T271, _T273, _T279 = (
    _word(b"268="), _word(b"269="), _word(b"270="), _word(b"271="), _word(b"273="), _word(b"279=")
)  # fmt: skip
_T290, _T295, _T296, _T299, _T302, _T304, _T893 = (
    _word(b"290="), _word(b"295="), _word(b"296="), _word(b"299="), _word(b"302="),
    _word(b"304="), _word(b"893="),
)  # fmt: skip


@kernel("i64[]r i64 i64[] i64[] i64[] i64[]")
def pack_sets(set_counts, limit, frag_set, frag_len, msg_frags, counts):
    """Lay quote sets out in messages of at most ``limit`` entries, in order.

    A set joins the current message if it fits; otherwise it starts a new one, and a set
    larger than ``limit`` is cut into fragments of ``limit`` entries (its last fragment
    leaves room for the next sets). Fragment ``f`` is ``frag_len[f]`` entries of set
    ``frag_set[f]``; message ``m`` holds fragments ``msg_frags[m]:msg_frags[m + 1]``.
    Writes the fragment and message counts to ``counts[0]`` and ``counts[1]``.
    """
    nf = 0
    nm = 0
    room = 0
    for s in range(set_counts.shape[0]):
        left = set_counts[s]
        if left > room:
            room = 0  # it does not fit: close the current message
        while left > 0:
            if room == 0:
                msg_frags[nm] = nf
                nm += 1
                room = limit
            take = min(left, room)
            frag_set[nf] = s
            frag_len[nf] = take
            nf += 1
            left -= take
            room -= take
    msg_frags[nm] = nf
    counts[0] = nf
    counts[1] = nm


@kernel(
    "u8[] i64[]r i64[]r u8[,]r i32[]r u8[]r i64[] i64[] i64[]r u8[]r u8[,]r i32[]r i64[]r"
    " i64[]r u8[,]r i32[]r u8[,]r i32[]r u8[,]r i32[]r bool[]r u8[,]r i32[]r bool[]r"
    " u8[,]r i32[]r bool[]r u8[,]r i32[]r bool[]r"
)
def write_mass_quote_bodies(
    buf, starts, ends, qids, qid_len, level, msg_frags, frag_set, frag_entries, frag_flag,
    set_ids, set_id_len, set_total, set_starts, eids, eid_len, syms, sym_len,
    bpx, bpx_len, bpx_ok, opx, opx_len, opx_ok, bsz, bsz_len, bsz_ok, osz, osz_len, osz_ok,
):  # fmt: skip
    """Fill 35=i bodies: ``117=ID|`` (``level``: ``301=L|`` or nothing), ``296=S|``, then
    per quote set ``302|304|[893|]295=K|`` and per entry ``299|55|`` and the present
    ``132``..``135``. With no ``eid_len`` rows, ``299`` is the entry's position in its set
    (``set_starts``: each set's first entry). Returns the first message not ending at
    ``ends[i]`` (-1: none)."""
    # The four optional fields in a loop over tuples: one inlined writer, not four (the
    # kernel's compile 0.2 s less, its time 1-2% more)
    tags, cols = (_T132, _T133, _T134, _T135), (bpx, opx, bsz, osz)
    lens, oks = (bpx_len, opx_len, bsz_len, osz_len), (bpx_ok, opx_ok, bsz_ok, osz_ok)
    for i in range(starts.shape[0]):
        p = _put_field(buf, starts[i], _T117, 4, qids, i, qid_len[i])
        for k in range(level.shape[0]):
            buf[p + k] = level[k]
        p += level.shape[0]
        f0 = msg_frags[i]
        f1 = msg_frags[i + 1]
        p = _put_tag(buf, p, _T296, 4)
        p = _put_uint(buf, p, f1 - f0)
        for f in range(f0, f1):
            s = frag_set[f]
            p = _put_field(buf, p, _T302, 4, set_ids, s, set_id_len[s])
            p = _put_tag(buf, p, _T304, 4)
            p = _put_uint(buf, p, set_total[s])
            if frag_flag[f] != 0:  # LastFragment (893) for a set cut across messages
                p = _put_tag(buf, p, _T893, 4)
                buf[p] = frag_flag[f]
                buf[p + 1] = SOH
                p += 2
            a = frag_entries[f]
            b = frag_entries[f + 1]
            p = _put_tag(buf, p, _T295, 4)
            p = _put_uint(buf, p, b - a)
            for e in range(a, b):
                p = _put_tag(buf, p, _T299, 4)
                if eid_len.shape[0]:
                    p = _put_row(buf, p, eids, e, eid_len[e])
                else:  # no IDs given: the entry's position in its set, from 1
                    p = _put_uint(buf, p, e - set_starts[s] + 1)
                p = _put_field(buf, p, _T55, 3, syms, e, sym_len[e])
                for f in range(4):  # 132 133 134 135: the present prices and sizes
                    if oks[f][e]:
                        p = _put_field(buf, p, tags[f], 4, cols[f], e, lens[f][e])
        if p != ends[i]:
            return i
    return -1


@kernel(
    "u8[] i64[]r i64[]r u8[]r i64[]r u8[]r u8[]r u8[,]r i32[]r u8[,]r i32[]r bool[]r"
    " u8[,]r i32[]r bool[]r u8[,]r i32[]r bool[]r u8[,]r i32[]r bool[]r"
)
def write_incremental_bodies(
    buf, starts, ends, prefix, entry_starts, actions, types, syms, sym_len,
    px, px_len, px_ok, sz, sz_len, sz_ok, times, time_len, time_ok, pos, pos_len, pos_ok,
):  # fmt: skip
    """Fill 35=X bodies: ``prefix`` (``262=ID|`` or nothing), ``268=K|``, then per entry
    ``279=A|269=T|55=SYM|`` and the present ``270``, ``271``, ``273``, ``290``. Returns
    the first message not ending at ``ends[i]`` (-1: none)."""
    tags, cols = (_T270, _T271, _T273, _T290), (px, sz, times, pos)  # as in 35=i's writer
    lens, oks = (px_len, sz_len, time_len, pos_len), (px_ok, sz_ok, time_ok, pos_ok)
    for i in range(starts.shape[0]):
        p = starts[i]
        for k in range(prefix.shape[0]):
            buf[p + k] = prefix[k]
        p += prefix.shape[0]
        a = entry_starts[i]
        b = entry_starts[i + 1]
        p = _put_tag(buf, p, _T268, 4)
        p = _put_uint(buf, p, b - a)
        for e in range(a, b):
            p = _put_tag(buf, p, _T279, 4)
            buf[p] = actions[e]
            buf[p + 1] = SOH
            p = _put_tag(buf, p + 2, _T269, 4)
            buf[p] = types[e]
            buf[p + 1] = SOH
            p = _put_field(buf, p + 2, _T55, 3, syms, e, sym_len[e])
            for f in range(4):  # 270 271 273 290, those present
                if oks[f][e]:
                    p = _put_field(buf, p, tags[f], 4, cols[f], e, lens[f][e])
        if p != ends[i]:
            return i
    return -1
