"""The per-tick call of :func:`vecfix.fix.mass_quotes` (35=i) in one kernel call, beside
:mod:`~vecfix._kernels.fix` (whose per-tick kernels and helpers it uses: the value writer,
the frames, the heads and trailers, the packing of quote sets) for that module's size."""

from __future__ import annotations

import numpy as np

from .._jit import kernel
from .fix import (
    _I64,
    _T55,
    _T117,
    _T132,
    _T133,
    _T134,
    _T135,
    _bad_bytes,
    _framed,
    _frames,
    _pack_sets,
    _put_array,
    _put_code,
    _put_tag,
    _put_text,
    _put_uint,
    _put_value,
    _text_row,
    _value_bytes,
    _write_head,
    _write_trailer,
    ndigits,
)

_T295, _T296, _T299, _T302, _T304, _T893 = (
    int.from_bytes(b"%d=" % tag, "little") for tag in (295, 296, 299, 302, 304, 893)
)


@kernel
def _same_text(data, a, b, n):
    """Whether ``data[a:a + n]`` equals ``data[b:b + n]``."""
    for k in range(n):
        if data[a + k] != data[b + k]:
            return False
    return True


#: A modulus below 2**55: a set ID's hash times 256 plus a byte stays within int64.
_HASH_MOD = (1 << 55) - 55


@kernel
def _comes_back(data, lengths, starts, at, ns):
    """Whether two of the ``ns`` sets (set ``s``: ``data[at[s]:]``, ``lengths[starts[s]]``
    bytes) have one ID: the sets sorted by a hash of their IDs, the bytes compared within
    each run of equal hashes (not every pair of sets: 2,048 sets of one entry took 4 ms)."""
    hashes = np.empty(ns, dtype=np.int64)
    for s in range(ns):
        h = _I64(0)
        for k in range(lengths[starts[s]]):
            h = (h * 256 + data[at[s] + k]) % _HASH_MOD
        hashes[s] = h
    order = np.argsort(hashes)
    run = 0
    for j in range(1, ns + 1):
        if j < ns and hashes[order[j]] == hashes[order[run]]:
            continue
        for x in range(run, j):  # (a run of equal hashes: nearly always one set)
            for y in range(x + 1, j):
                a, b = order[x], order[y]
                size = lengths[starts[a]]
                if size == lengths[starts[b]] and _same_text(data, at[a], at[b], size):
                    return True
        run = j
    return False


@kernel(
    "u8[]r u8[]r i64 u8[,]r i64 i64 u8[]r u8[]r i64 u8[]r i32[]r i64 u8[]r i32[]r i64"
    " i64[]r i64[]r i64[]r i64[]r i64[,]r"
)
def mass_quote_messages(begin, head, seq_start, times, time_len, limit, prefix, level,
                        max_entries, set_data, set_len, set_stride, syms, sym_len, sym_stride,
                        bid, offer, bid_size, offer_size, layout):  # fmt: skip
    """Whole 35=i messages made from integer coefficients, the per-tick call of
    :func:`vecfix.fix.mass_quotes`, in one call as
    :func:`~vecfix._kernels.fix.quote_messages` makes quotes: ``117=PREFIX+SEQ|``,
    ``level`` (``301=L|`` or nothing), ``296=S|``, per quote set ``302|304|[893|]295=K|``
    and per entry ``299=POSITION|55=SYM|`` and the present ``132``..``135``. Sets are
    runs of equal ``set_data`` rows (none given: ``max_entries`` rows each, numbered from
    1), packed into messages of at most ``max_entries`` entries as
    :func:`~vecfix._kernels.fix.pack_sets` packs them.

    Returns ``(bad, sentinels, buffer, offsets)`` as ``quote_messages``: ``bad`` the
    first entry the general path must take (a symbol or set ID empty, not printable
    ASCII or holding ``=``; no price; a value longer than ``limit``; ``n`` for a set ID
    coming back after another set), -1 if none."""
    n = sym_len.shape[0]
    cols = (bid, offer, bid_size, offer_size)
    named = set_len.shape[0] > 0
    set_starts = np.empty(n + 1, dtype=np.int64)  # each set's first entry (and the end)
    set_at = np.empty(n, dtype=np.int64)  # where its ID's bytes start in set_data
    sym_ats = np.empty(n, dtype=np.int64)
    sentinels = 0
    ns = 0
    sym_at, id_at = 0, 0
    for e in range(n):
        sym_at = _text_row(sym_at, e, sym_stride)
        sym_ats[e] = sym_at
        if _bad_bytes(syms[sym_at : sym_at + sym_len[e]], 0x20, 0x7E, 61):
            return e, sentinels, np.empty(0, np.uint8), np.empty(0, _I64)
        sym_at += sym_len[e]
        priced = False
        for c in range(4):
            k, sentinel = _value_bytes(cols[c][e], layout, c, limit)
            if k < 0:
                return e, sentinels, np.empty(0, np.uint8), np.empty(0, _I64)
            priced |= (c < 2) & (k > 0)
            sentinels |= _I64(sentinel) << c
        if not priced:
            return e, sentinels, np.empty(0, np.uint8), np.empty(0, _I64)
        if not named:
            if e % max_entries == 0:
                set_starts[ns] = e
                ns += 1
            continue
        id_at = _text_row(id_at, e, set_stride)
        if _bad_bytes(set_data[id_at : id_at + set_len[e]], 0x20, 0x7E, 61):
            return e, sentinels, np.empty(0, np.uint8), np.empty(0, _I64)
        s = ns - 1
        if ns == 0 or set_len[e] != set_len[set_starts[s]]:
            new = True
        else:
            new = not _same_text(set_data, set_at[s], id_at, set_len[e])
        if new:
            set_starts[ns] = e
            set_at[ns] = id_at
            ns += 1
        id_at += set_len[e]
    set_starts[ns] = n
    if named and _comes_back(set_data, set_len, set_starts, set_at, ns):
        return n, sentinels, np.empty(0, np.uint8), np.empty(0, _I64)
    set_total = set_starts[1 : ns + 1] - set_starts[:ns]
    cap = ns + n // max_entries + 1
    frag_set, frag_len = np.empty(cap, _I64), np.empty(cap, _I64)
    msg_frags = np.empty(cap + 1, _I64)
    counts = np.zeros(2, _I64)
    _pack_sets(set_total, max_entries, frag_set, frag_len, msg_frags, counts)
    nf, m = counts[0], counts[1]
    flags = np.zeros(nf, np.uint8)  # LastFragment: N, then Y on a cut set's last part
    for f in range(nf):
        if frag_len[f] != set_total[frag_set[f]]:
            flags[f] = 89 if f == nf - 1 or frag_set[f + 1] != frag_set[f] else 78
    offsets, bodies = _frames(m)
    e = 0
    for i in range(m):
        seq = seq_start + i
        body = 5 + prefix.shape[0] + ndigits(seq) + level.shape[0] + 5
        body += ndigits(msg_frags[i + 1] - msg_frags[i])
        for f in range(msg_frags[i], msg_frags[i + 1]):
            s = frag_set[f]
            set_id = set_len[set_starts[s]] if named else ndigits(s + 1)
            body += 10 + set_id + ndigits(set_total[s]) + 6 * (flags[f] != 0) + 5
            body += ndigits(frag_len[f])
            for _ in range(frag_len[f]):
                body += 5 + ndigits(e - set_starts[s] + 1) + 4 + sym_len[e]
                for c in range(4):
                    body += _value_bytes(cols[c][e], layout, c, limit)[0]
                e += 1
        _framed(offsets, bodies, i, begin, head, seq, time_len, body)
    buf = np.empty(offsets[m], dtype=np.uint8)
    tags = (_T132, _T133, _T134, _T135)
    e = 0
    for i in range(m):
        seq = seq_start + i
        p = _write_head(buf, offsets[i], bodies[i], begin, head, seq, times, 0, time_len)
        p = _put_array(buf, _put_tag(buf, p, _T117, 4), prefix)
        p = _put_uint(buf, p, seq)
        p = _put_tag(buf, _put_array(buf, p, level), _T296, 4)
        p = _put_uint(buf, p, msg_frags[i + 1] - msg_frags[i])
        for f in range(msg_frags[i], msg_frags[i + 1]):
            s = frag_set[f]
            if named:
                p = _put_text(buf, p, _T302, 4, set_data, set_at[s], set_len[set_starts[s]])
            else:
                p = _put_uint(buf, _put_tag(buf, p, _T302, 4), s + 1)
            p = _put_uint(buf, _put_tag(buf, p, _T304, 4), set_total[s])
            if flags[f] != 0:
                p = _put_code(buf, p, _T893, flags[f])
            p = _put_uint(buf, _put_tag(buf, p, _T295, 4), frag_len[f])
            for _ in range(frag_len[f]):
                p = _put_uint(buf, _put_tag(buf, p, _T299, 4), e - set_starts[s] + 1)
                p = _put_text(buf, p, _T55, 3, syms, sym_ats[e], sym_len[e])
                for c in range(4):
                    p = _put_value(buf, p, tags[c], cols[c][e], layout, c)
                e += 1
        _write_trailer(buf, offsets[i], offsets[i + 1] - 7)
    return -1, sentinels, buf, offsets
