"""Numba kernels that lay out FIX fields and messages in one contiguous buffer.

A builder measures every message first (the bodies with NumPy, or :func:`snapshot_lengths`
on the snapshots' hot path; the frames with :func:`frame_lengths`), allocates the whole
buffer once, then fills it in place: :func:`write_heads` writes
``8=…|9=…|35=…|49=…|56=…|34=…|52=…|``, one kernel per message type its body, and
:func:`write_trailers` appends ``10=CCC|``. No kernel allocates, but
:func:`quote_messages`, the per-tick call's one kernel.

A column arrives as a byte matrix: row ``r`` is ``matrix[r, :lengths[r]]``, absent where
``valid[r]`` is false. A tag is the little-endian word of its ASCII bytes (``_T270`` is
``b"270="``): a constant, once the helpers are inlined, which is what keeps the loops fast.
"""

from __future__ import annotations

import numpy as np

from .._jit import helper, kernel
from . import SOH
from .rows import _row_length, _write_row

_ZERO = 48  # b"0"
_I64 = np.int64
_T10, _T52, _T55, _T117, _T132, _T133, _T134, _T135, _T268, _T269, _T270, _T271 = (
    int.from_bytes(b"%d=" % tag, "little")
    for tag in (10, 52, 55, 117, 132, 133, 134, 135, 268, 269, 270, 271)
)
_T273, _T279, _T290, _T295, _T296, _T299, _T302, _T304, _T893 = (
    int.from_bytes(b"%d=" % tag, "little") for tag in (273, 279, 290, 295, 296, 299, 302, 304, 893)
)


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
    """Write the ``n`` bytes of ``word`` (``b"TAG="``, little-endian) at ``p``; return the end."""
    for k in range(n):
        buf[p + k] = (word >> (8 * k)) & 255
    return p + n


@helper
def _put_array(buf, p, values):
    """Write the bytes of ``values`` at ``p``; return the end."""
    for k in range(values.shape[0]):
        buf[p + k] = values[k]
    return p + values.shape[0]


@helper
def _put_field(buf, p, word, n, matrix, row, length):
    """Write ``TAG=`` (the ``n`` bytes of ``word``), ``matrix[row, :length]`` and SOH at
    ``p``; return the end. (Spelled out, not two inlined calls: each costs Numba's front
    end compile time, 0.03-0.09 s more for the 35=i and 35=X writers.)"""
    for k in range(n):
        buf[p + k] = (word >> (8 * k)) & 255
    p += n
    for k in range(length):
        buf[p + k] = matrix[row, k]
    buf[p + length] = SOH
    return p + length + 1


@helper
def _put_code(buf, p, word, code):
    """Write ``TAG=C|`` (a 3-digit tag, one byte ``code``) at ``p``; return the end."""
    p = _put_tag(buf, p, word, 4)
    buf[p] = code
    buf[p + 1] = SOH
    return p + 2


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
    costs them (35=i 0.89 -> 0.78 s, 35=X 0.55 -> 0.49, their ns/value unchanged). A tag
    is not passed in: each constant would compile a copy of its own (35=i 0.3 s more)."""
    p = _put_digits(buf, p, v)
    buf[p] = SOH
    return p + 1


@helper
def _put_present(buf, p, row, tags, cols, lens, oks):
    """Write ``tags[c]=cols[c][row]|`` for each column ``c`` present at ``row``. A loop
    over tuples: one inlined writer, not four (the kernels' compile 0.2 s less, their time
    1-2% more). The 35=i writer spells it out: through this helper it took 2-3% more."""
    for c in range(len(tags)):
        if oks[c][row]:
            p = _put_field(buf, p, tags[c], 4, cols[c], row, lens[c][row])
    return p


@helper
def _bad_bytes(text, lo, hi, forbidden):
    """Whether the bytes ``text`` are empty, or hold one outside ``lo..hi`` or equal to
    ``forbidden``."""
    if text.shape[0] == 0:
        return True
    for k in range(text.shape[0]):
        b = text[k]
        if b < lo or b > hi or b == forbidden:
            return True
    return False


@kernel("u8[,]r i32[]r bool[]r i64 i64 i64")
def first_bad_byte(matrix, lengths, valid, lo, hi, forbidden):
    """First present row that is empty or holds a byte outside ``lo..hi`` or equal to
    ``forbidden``; -1 when every row is fine."""
    for r in range(lengths.shape[0]):
        if valid[r] and _bad_bytes(matrix[r, : lengths[r]], lo, hi, forbidden):
            return r
    return -1


@kernel("u8[] i64[]r u8[]r u8[,]r i32[]r bool[]r")
def write_fields(buf, starts, tag, matrix, lengths, valid):
    """Write ``TAG=VALUE|`` for every present row ``r`` at ``buf[starts[r]:]``."""
    for r in range(lengths.shape[0]):
        if valid[r]:
            p = _put_array(buf, starts[r], tag)
            for k in range(lengths[r]):
                buf[p + k] = matrix[r, k]
            buf[p + lengths[r]] = SOH


@kernel("i64[]r i64 i64 i64 i32[]r i64 i64[] i64[]")
def frame_lengths(
    body_lengths, begin_len, head_len, seq_start, time_lengths, tstep, offsets, bodies
):
    """Lay each message out around a type body of ``body_lengths[i]`` bytes: ``8=BEGIN|9=``
    (``begin_len`` bytes), BodyLength, ``head_len`` bytes of ``|35=…|49=…|56=…|34=``, the
    sequence number, ``|52=`` + time + ``|``, the body and ``10=CCC|``. Writes where each
    message starts to ``offsets`` (and the end, last) and its BodyLength to ``bodies``."""
    offsets[0] = 0
    for i in range(body_lengths.shape[0]):
        body = head_len + ndigits(seq_start + i) + 4 + time_lengths[i * tstep] + body_lengths[i]
        bodies[i] = body
        offsets[i + 1] = offsets[i] + begin_len + ndigits(body) + 1 + body + 7


@helper
def _write_head(buf, start, body, begin, head, seq, times, t, time_length):
    """Write ``8=…|9=BODY|35=…|49=…|56=…|34=SEQ|52=TIME|`` at ``start``; return the end."""
    p = _put_digits(buf, _put_array(buf, start, begin), body)
    p = _put_digits(buf, _put_array(buf, p, head), seq)
    buf[p] = SOH
    return _put_field(buf, p + 1, _T52, 3, times, t, time_length)


@kernel("u8[] i64[]r i64[]r u8[]r u8[]r i64 u8[,]r i32[]r i64")
def write_heads(buf, offsets, bodies, begin, head, seq_start, times, time_lengths, tstep):
    """Write ``8=…|9=…|35=…|49=…|56=…|34=SEQ|52=TIME|`` at the start of every message."""
    for i in range(offsets.shape[0] - 1):
        t = i * tstep
        _write_head(
            buf, offsets[i], bodies[i], begin, head, seq_start + i, times, t, time_lengths[t]
        )


@helper
def _write_trailer(buf, start, end):
    """Write ``10=CCC|`` at ``end``: the sum of ``buf[start:end]``, modulo 256."""
    summed = buf[start:end]  # a view: looping from 0 lets LLVM vectorize the sum
    total = np.int64(0)  # not 0: as plain Python, 0 + uint8 would stay uint8 and wrap
    for k in range(summed.shape[0]):
        total += summed[k]
    total &= 255
    p = _put_tag(buf, end, _T10, 3)
    buf[p] = _ZERO + total // 100
    buf[p + 1] = _ZERO + (total // 10) % 10
    buf[p + 2] = _ZERO + total % 10
    buf[p + 3] = SOH


@kernel("u8[] i64[]r")
def write_trailers(buf, offsets):
    """Append ``10=CCC|``: the sum of every byte before it, modulo 256, in three digits."""
    for i in range(offsets.shape[0] - 1):
        _write_trailer(buf, offsets[i], offsets[i + 1] - 7)


@kernel("i32[]r i64[]r i32[]r bool[]r i32[]r bool[]r i64[]")
def snapshot_lengths(sym_lengths, entry_starts, px_len, px_valid, sz_len, sz_valid, out):
    """Body of each 35=W message: ``55=SYM|268=K|`` then per entry ``269=T|`` and the
    present ``270=PX|``, ``271=SIZE|`` (one pass: the snapshots' hot path)."""
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


@kernel("u8[] i64[]r i64[]r u8[,]r i32[]r i64[]r u8[]r u8[,]r i32[]r bool[]r u8[,]r i32[]r bool[]r")
def write_snapshot_bodies(
    buf, starts, ends, syms, sym_lengths, entry_starts, entry_types,
    px, px_len, px_valid, sz, sz_len, sz_valid,
):  # fmt: skip
    """Fill the bodies sized by :func:`snapshot_lengths` from ``starts[i]``; returns the
    first message whose body does not end exactly at ``ends[i]`` (-1: all do)."""
    for i in range(starts.shape[0]):
        p = _put_field(buf, starts[i], _T55, 3, syms, i, sym_lengths[i])
        a = entry_starts[i]
        b = entry_starts[i + 1]
        p = _put_uint(buf, _put_tag(buf, p, _T268, 4), b - a)
        for e in range(a, b):
            p = _put_code(buf, p, _T269, entry_types[e])
            if px_valid[e]:
                p = _put_field(buf, p, _T270, 4, px, e, px_len[e])
            if sz_valid[e]:
                p = _put_field(buf, p, _T271, 4, sz, e, sz_len[e])
        if p != ends[i]:
            return i
    return -1


_VALUES = " u8[,]r i32[]r bool[]r" * 4  # four columns of values: matrix, lengths, valid


@kernel("u8[] i64[]r i64[]r u8[,]r i32[]r u8[,]r i32[]r" + _VALUES)
def write_quote_bodies(
    buf, starts, ends, ids, id_len, syms, sym_len,
    bpx, bpx_len, bpx_ok, opx, opx_len, opx_ok, bsz, bsz_len, bsz_ok, osz, osz_len, osz_ok,
):  # fmt: skip
    """Fill 35=S bodies: ``117=ID|55=SYM|`` and the present ``132``..``135``. Returns the
    first message not ending at ``ends[i]`` (-1: none)."""
    tags, cols = (_T132, _T133, _T134, _T135), (bpx, opx, bsz, osz)
    lens, oks = (bpx_len, opx_len, bsz_len, osz_len), (bpx_ok, opx_ok, bsz_ok, osz_ok)
    for i in range(starts.shape[0]):
        p = _put_field(buf, starts[i], _T117, 4, ids, i, id_len[i])
        p = _put_field(buf, p, _T55, 3, syms, i, sym_len[i])
        p = _put_present(buf, p, i, tags, cols, lens, oks)
        if p != ends[i]:
            return i
    return -1


#: Columns of a quote's ``layout`` row (:func:`quote_frames`): the exponent, the scale, the
#: null sentinel, and whether there is one.
EXPONENT, SCALE, NULL, HAS_NULL = range(4)
_INT64_MAX = np.iinfo(np.int64).max


@helper
def _quoted(value, layout, c):
    """Whether ``value`` of column ``c`` (0 bid, 1 offer, 2 bid size, 3 offer size) is
    present: not its column's null sentinel."""
    return (layout[c, HAS_NULL] == 0) | (value != layout[c, NULL])


@helper
def _text_row(at, i, stride):
    """Where row ``i`` of a text column starts: ``i * stride`` in a matrix's bytes
    (``stride > 0``), else ``at``, the end of the row before (rows back to back)."""
    return i * stride if stride > 0 else at


#: A quote's text columns (IDs, symbols: bytes, lengths, stride) and values (four int64
#: columns, and their layouts).
_QUOTES = "u8[]r i32[]r i64 u8[]r i32[]r i64 i64[]r i64[]r i64[]r i64[]r i64[,]r"


@helper
def _put_text(buf, p, word, n, data, at, length):
    """Write ``TAG=`` (the ``n`` bytes of ``word``), ``data[at:at + length]`` and SOH."""
    p = _put_tag(buf, p, word, n)
    for k in range(length):
        buf[p + k] = data[at + k]
    buf[p + length] = SOH
    return p + length + 1


@helper
def _value_bytes(v, layout, c, limit):
    """``(bytes, sentinel)`` of a value field ``TAG=V|`` (a 3-digit tag) of ``v`` under
    ``layout[c]``: 0 for the null sentinel, -1 past ``limit``; whether ``v`` is
    ``2**63 - 1`` printed without a null sentinel."""
    if not _quoted(v, layout, c):
        return 0, False
    k = _row_length(v, layout[c, EXPONENT], layout[c, SCALE])
    if k > limit:
        return -1, False
    return 4 + k + 1, (v == _INT64_MAX) & (layout[c, HAS_NULL] == 0)


@helper
def _entry_bytes(prices, sizes, e, layout, limit):
    """``(bytes, sentinels)`` of entry ``e``'s ``270=PX|271=SIZE|`` (prices under
    ``layout[0]``, sizes under ``layout[2]``; -1 when one is past ``limit``) and the
    sentinel bits of :func:`_value_bytes` (bit 0 prices, 2 sizes)."""
    total, bits = 0, 0
    for c in (0, 2):
        k, sentinel = _value_bytes(prices[e] if c == 0 else sizes[e], layout, c, limit)
        bits |= _I64(sentinel) << c
        if k < 0:
            return -1, bits
        total += k
    return total, bits


@helper
def _put_value(buf, p, word, v, layout, c):
    """Write ``TAG=V|`` (``word``: a 3-digit tag) unless ``v`` is the null sentinel; the
    value by vecfix's one row writer; return the end."""
    if not _quoted(v, layout, c):
        return p
    p = _put_tag(buf, p, word, 4)
    p += _write_row(buf, p, 0, v, layout[c, EXPONENT], layout[c, SCALE])  # (no padding)
    buf[p] = SOH
    return p + 1


@helper
def _frames(n):
    """Room for ``n`` messages' offsets (the first 0) and BodyLengths."""
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0] = 0
    return offsets, np.empty(n, dtype=np.int64)


@helper
def _framed(offsets, bodies, i, begin, head, seq, time_len, body):
    """Frame message ``i`` around a body of ``body`` bytes, as :func:`frame_lengths`."""
    body += head.shape[0] + ndigits(seq) + 4 + time_len
    bodies[i] = body
    offsets[i + 1] = offsets[i] + begin.shape[0] + ndigits(body) + 1 + body + 7


@kernel("u8[]r u8[]r i64 u8[,]r i64 i64 " + _QUOTES)
def quote_messages(begin, head, seq_start, times, time_len, limit,
                   ids, id_len, id_stride, syms, sym_len, sym_stride,
                   bid, offer, bid_size, offer_size, layout):  # fmt: skip
    """Whole 35=S messages made from integer coefficients, the per-tick call of
    :func:`vecfix.fix.quotes`, checked, measured and written in one call: each
    ``8|9|35|49|56|34|52|117=ID|55=SYM|`` (``begin``, ``head``, ``times`` as
    :func:`write_heads` takes them), the present ``132``..``135``, each value of column
    ``c`` printed under ``layout[c]`` (see :data:`EXPONENT`) by vecfix's one row writer
    (:func:`vecfix._kernels.rows._write_row`), and ``10``.

    Returns ``(bad, sentinels, buffer, offsets)``: the first quote the general path must
    take (an ID or a symbol empty, not printable ASCII or holding ``=``; no price; a
    value longer than ``limit``), -1 if none; a bit for each value column holding
    ``2**63 - 1`` without a null sentinel; the messages and their offsets (both empty
    when a quote is refused: nothing is written). The one kernel that allocates: a call
    of one quote pays for no other.
    """
    n = id_len.shape[0]
    cols = (bid, offer, bid_size, offer_size)
    offsets, bodies = _frames(n)
    sentinels = 0
    id_at, sym_at = 0, 0
    for i in range(n):
        id_at = _text_row(id_at, i, id_stride)
        sym_at = _text_row(sym_at, i, sym_stride)
        bad_id = _bad_bytes(ids[id_at : id_at + id_len[i]], 0x20, 0x7E, 61)
        if bad_id or _bad_bytes(syms[sym_at : sym_at + sym_len[i]], 0x20, 0x7E, 61):
            return i, sentinels, np.empty(0, np.uint8), offsets[:0]
        id_at += id_len[i]
        sym_at += sym_len[i]
        body = 4 + id_len[i] + 1 + 3 + sym_len[i] + 1
        priced = False
        for c in range(4):
            k, sentinel = _value_bytes(cols[c][i], layout, c, limit)
            if k < 0:
                return i, sentinels, np.empty(0, np.uint8), offsets[:0]
            body += k
            priced |= (c < 2) & (k > 0)
            sentinels |= _I64(sentinel) << c
        if not priced:
            return i, sentinels, np.empty(0, np.uint8), offsets[:0]
        _framed(offsets, bodies, i, begin, head, seq_start + i, time_len, body)
    buf = np.empty(offsets[n], dtype=np.uint8)
    tags = (_T132, _T133, _T134, _T135)
    id_at, sym_at = 0, 0
    for i in range(n):
        id_at = _text_row(id_at, i, id_stride)
        sym_at = _text_row(sym_at, i, sym_stride)
        p = _write_head(buf, offsets[i], bodies[i], begin, head, seq_start + i, times, 0, time_len)
        p = _put_text(buf, p, _T117, 4, ids, id_at, id_len[i])
        p = _put_text(buf, p, _T55, 3, syms, sym_at, sym_len[i])
        id_at += id_len[i]
        sym_at += sym_len[i]
        for c in range(4):
            p = _put_value(buf, p, tags[c], cols[c][i], layout, c)
        _write_trailer(buf, offsets[i], offsets[i + 1] - 7)
    return -1, sentinels, buf, offsets


@kernel("u8[]r u8[]r i64 u8[,]r i64 i64 u8[]r i32[]r i64 i64[]r u8[]r i64[]r i64[]r i64[,]r")
def snapshot_messages(begin, head, seq_start, times, time_len, limit, syms, sym_len,
                      sym_stride, entry_counts, types, prices, sizes, layout):  # fmt: skip
    """Whole 35=W messages made from integer coefficients, the per-tick call of
    :func:`vecfix.fix.snapshots`, in one call as :func:`quote_messages` makes quotes:
    ``55=SYM|268=K|`` and per entry ``269=T|`` and the present ``270``, ``271`` (prices
    under ``layout[0]``, sizes under ``layout[2]``). Returns ``(bad, sentinels, buffer,
    offsets)`` (a bit 0 for prices, 2 for sizes)."""
    n = sym_len.shape[0]
    offsets, bodies = _frames(n)
    sentinels = 0
    sym_at, a = 0, 0
    for i in range(n):
        sym_at = _text_row(sym_at, i, sym_stride)
        if _bad_bytes(syms[sym_at : sym_at + sym_len[i]], 0x20, 0x7E, 61):
            return i, sentinels, np.empty(0, np.uint8), offsets[:0]
        sym_at += sym_len[i]
        b = a + entry_counts[i]
        body = 3 + sym_len[i] + 1 + 4 + ndigits(b - a) + 1 + (b - a) * 6
        for e in range(a, b):
            k, bits = _entry_bytes(prices, sizes, e, layout, limit)
            sentinels |= bits
            if k < 0:
                return i, sentinels, np.empty(0, np.uint8), offsets[:0]
            body += k
        _framed(offsets, bodies, i, begin, head, seq_start + i, time_len, body)
        a = b
    buf = np.empty(offsets[n], dtype=np.uint8)
    sym_at, a = 0, 0
    for i in range(n):
        sym_at = _text_row(sym_at, i, sym_stride)
        p = _write_head(buf, offsets[i], bodies[i], begin, head, seq_start + i, times, 0, time_len)
        p = _put_text(buf, p, _T55, 3, syms, sym_at, sym_len[i])
        sym_at += sym_len[i]
        b = a + entry_counts[i]
        p = _put_uint(buf, _put_tag(buf, p, _T268, 4), b - a)
        for e in range(a, b):
            p = _put_code(buf, p, _T269, types[e])
            p = _put_value(buf, p, _T270, prices[e], layout, 0)
            p = _put_value(buf, p, _T271, sizes[e], layout, 2)
        _write_trailer(buf, offsets[i], offsets[i + 1] - 7)
        a = b
    return -1, sentinels, buf, offsets


@kernel(
    "u8[]r u8[]r i64 u8[,]r i64 i64 u8[]r i64[]r u8[]r u8[]r u8[]r i32[]r i64 i64[]r i64[]r i64[,]r"
)
def incremental_messages(begin, head, seq_start, times, time_len, limit, prefix, starts,
                         actions, types, syms, sym_len, sym_stride, prices, sizes,
                         layout):  # fmt: skip
    """Whole 35=X messages made from integer coefficients, the per-tick call of
    :func:`vecfix.fix.incremental`, in one call as :func:`quote_messages` makes quotes:
    ``prefix`` (``262=ID|`` or nothing), ``268=K|``, then per entry (message ``i`` holds
    entries ``starts[i]:starts[i + 1]``) ``279=A|269=T|55=SYM|`` and the present ``270``,
    ``271`` (prices under ``layout[0]``, sizes under ``layout[2]``). Returns ``(bad,
    sentinels, buffer, offsets)``, ``bad`` a message."""
    n = starts.shape[0] - 1
    offsets, bodies = _frames(n)
    sentinels = 0
    sym_at = 0
    for i in range(n):
        body = prefix.shape[0] + 5 + ndigits(starts[i + 1] - starts[i])
        for e in range(starts[i], starts[i + 1]):
            sym_at = _text_row(sym_at, e, sym_stride)
            if _bad_bytes(syms[sym_at : sym_at + sym_len[e]], 0x20, 0x7E, 61):
                return i, sentinels, np.empty(0, np.uint8), offsets[:0]
            sym_at += sym_len[e]
            k, bits = _entry_bytes(prices, sizes, e, layout, limit)
            sentinels |= bits
            if k < 0:
                return i, sentinels, np.empty(0, np.uint8), offsets[:0]
            body += 16 + sym_len[e] + k
        _framed(offsets, bodies, i, begin, head, seq_start + i, time_len, body)
    buf = np.empty(offsets[n], dtype=np.uint8)
    sym_at = 0
    for i in range(n):
        p = _write_head(buf, offsets[i], bodies[i], begin, head, seq_start + i, times, 0, time_len)
        p = _put_tag(buf, _put_array(buf, p, prefix), _T268, 4)
        p = _put_uint(buf, p, starts[i + 1] - starts[i])
        for e in range(starts[i], starts[i + 1]):
            sym_at = _text_row(sym_at, e, sym_stride)
            p = _put_code(buf, _put_code(buf, p, _T279, actions[e]), _T269, types[e])
            p = _put_text(buf, p, _T55, 3, syms, sym_at, sym_len[e])
            sym_at += sym_len[e]
            p = _put_value(buf, p, _T270, prices[e], layout, 0)
            p = _put_value(buf, p, _T271, sizes[e], layout, 2)
        _write_trailer(buf, offsets[i], offsets[i + 1] - 7)
    return -1, sentinels, buf, offsets


@helper
def _pack_sets(set_counts, limit, frag_set, frag_len, msg_frags, counts):
    """:func:`pack_sets`' loop, also the per-tick 35=i kernel's
    (:func:`vecfix._kernels.fixtick.mass_quote_messages`)."""
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


@kernel("i64[]r i64 i64[] i64[] i64[] i64[]")
def pack_sets(set_counts, limit, frag_set, frag_len, msg_frags, counts):
    """Lay quote sets out in messages of at most ``limit`` entries, in order.

    A set joins the current message if it fits; otherwise it starts a new one, and a set
    larger than ``limit`` is cut into fragments of ``limit`` entries (its last fragment
    leaves room for the next sets). Fragment ``f`` is ``frag_len[f]`` entries of set
    ``frag_set[f]``; message ``m`` holds fragments ``msg_frags[m]:msg_frags[m + 1]``.
    Writes the fragment and message counts to ``counts[0]`` and ``counts[1]``.
    """
    _pack_sets(set_counts, limit, frag_set, frag_len, msg_frags, counts)


@kernel(
    "u8[] i64[]r i64[]r u8[,]r i32[]r u8[]r i64[] i64[] i64[]r u8[]r u8[,]r i32[]r i64[]r"
    " i64[]r u8[,]r i32[]r u8[,]r i32[]r" + _VALUES
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
    tags, cols = (_T132, _T133, _T134, _T135), (bpx, opx, bsz, osz)
    lens, oks = (bpx_len, opx_len, bsz_len, osz_len), (bpx_ok, opx_ok, bsz_ok, osz_ok)
    for i in range(starts.shape[0]):
        p = _put_field(buf, starts[i], _T117, 4, qids, i, qid_len[i])
        p = _put_tag(buf, _put_array(buf, p, level), _T296, 4)
        p = _put_uint(buf, p, msg_frags[i + 1] - msg_frags[i])
        for f in range(msg_frags[i], msg_frags[i + 1]):
            s = frag_set[f]
            p = _put_field(buf, p, _T302, 4, set_ids, s, set_id_len[s])
            p = _put_uint(buf, _put_tag(buf, p, _T304, 4), set_total[s])
            if frag_flag[f] != 0:  # LastFragment (893) for a set cut across messages
                p = _put_code(buf, p, _T893, frag_flag[f])
            p = _put_tag(buf, p, _T295, 4)
            p = _put_uint(buf, p, frag_entries[f + 1] - frag_entries[f])
            for e in range(frag_entries[f], frag_entries[f + 1]):
                if eid_len.shape[0]:
                    p = _put_field(buf, p, _T299, 4, eids, e, eid_len[e])
                else:  # no IDs given: the entry's position in its set, from 1
                    p = _put_uint(buf, _put_tag(buf, p, _T299, 4), e - set_starts[s] + 1)
                p = _put_field(buf, p, _T55, 3, syms, e, sym_len[e])
                for c in range(4):  # the present values, as _put_present writes them
                    if oks[c][e]:
                        p = _put_field(buf, p, tags[c], 4, cols[c], e, lens[c][e])
        if p != ends[i]:
            return i
    return -1


@kernel("u8[] i64[]r i64[]r u8[]r i64[]r u8[]r u8[]r u8[,]r i32[]r" + _VALUES)
def write_incremental_bodies(
    buf, starts, ends, prefix, entry_starts, actions, types, syms, sym_len,
    px, px_len, px_ok, sz, sz_len, sz_ok, times, time_len, time_ok, pos, pos_len, pos_ok,
):  # fmt: skip
    """Fill 35=X bodies: ``prefix`` (``262=ID|`` or nothing), ``268=K|``, then per entry
    ``279=A|269=T|55=SYM|`` and the present ``270``, ``271``, ``273``, ``290``. Returns
    the first message not ending at ``ends[i]`` (-1: none)."""
    tags, cols = (_T270, _T271, _T273, _T290), (px, sz, times, pos)
    lens, oks = (px_len, sz_len, time_len, pos_len), (px_ok, sz_ok, time_ok, pos_ok)
    for i in range(starts.shape[0]):
        a = entry_starts[i]
        b = entry_starts[i + 1]
        p = _put_tag(buf, _put_array(buf, starts[i], prefix), _T268, 4)
        p = _put_uint(buf, p, b - a)
        for e in range(a, b):
            p = _put_code(buf, _put_code(buf, p, _T279, actions[e]), _T269, types[e])
            p = _put_field(buf, p, _T55, 3, syms, e, sym_len[e])
            p = _put_present(buf, p, e, tags, cols, lens, oks)
        if p != ends[i]:
            return i
    return -1
