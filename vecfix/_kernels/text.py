"""Numba kernels for text in and out: parse decimal text, move rows of text.

Like :mod:`vecfix._kernels.fixed`, every kernel is a plain loop with arrays in and arrays out;
nothing is allocated inside (the caller passes every output buffer).

Decimal text grammar (ASCII only, no surrounding whitespace)::

    [+-] ( digits [ "." [digits] ] | "." digits ) [ ("e" | "E") [+-] digits ]

A row parses to ``coefficient * 10**exponent`` where the coefficient is every digit of the
mantissa read as one integer (the point removed) and the exponent is the written exponent
minus the number of digits after the point, as :class:`decimal.Decimal` does:
``"0.00100000"`` is ``(100000, -8)`` and ``"1.5e3"`` is ``(15, 2)``.
"""

from __future__ import annotations

import numpy as np

from .._jit import helper, kernel, load8, store8
from .._limits import INT32_MAX, INT32_MIN
from . import BIG, EXPONENT_RANGE, INVALID, OK
from .words import DOTS, HIGHS, LOW7, OVER9, WORDS, ZEROS, ctz, swar_number

_U64 = np.uint64
_ALL = _U64(0xFFFFFFFFFFFFFFFF)

_INT64_MAX_U = _U64(9223372036854775807)
_EXP_CAP = 10_000_000_000  # exponent digits stop accumulating past this (already out of range)
_INT32_MIN = INT32_MIN
_INT32_MAX = INT32_MAX


@helper
def _short_decimal(word, n):
    """``(ok, value, decimals)`` of the ``n`` bytes (1 to 8) at the bottom of ``word``
    when they are digits with at most one ``.`` among them (and a digit): the number the
    digits write and how many follow the point. Else ``ok`` is False."""
    x = (word ^ ZEROS) & (_ALL >> _U64(64 - 8 * n))  # digit values; "." is 0x1E
    t = x ^ DOTS
    dot = ~(((t & LOW7) + LOW7) | t) & HIGHS & (_ALL >> _U64(64 - 8 * n))
    over = (((x & LOW7) + OVER9) | x) & HIGHS & ~dot
    if over != 0 or (dot & (dot - _U64(1))) != 0 or (dot != 0 and n == 1):
        return False, _U64(0), np.int64(0)
    digits = x
    count = n
    decimals = np.int64(0)
    if dot != 0:
        at = ctz(dot) >> _U64(3)
        low = (_U64(1) << (at << _U64(3))) - _U64(1)
        digits = (x & low) | ((x >> _U64(8)) & ~low)
        count = n - 1
        decimals = np.int64(n - 1) - np.int64(at)
    return True, swar_number(digits << (_U64(64) - (_U64(count) << _U64(3)))), decimals


@kernel("u8[]r i64[]r i64 i64 u8[]r i64[] i32[] u8[]")
def parse_decimal(data, offsets, width, gap, valid, coef, exps, status):
    """Parse every row of decimal text into ``coef`` (int64) and ``exps`` (int32).

    Rows are ``data[offsets[i]:offsets[i+1] - gap]`` when ``width == 0`` (``gap`` is 0 for
    Arrow buffers, 1 for rows joined by a separator), ``data[offsets[2*i]:offsets[2*i+1]]``
    when ``width == 0`` and ``gap < 0`` (rows given by ``(start, stop)`` pairs, anywhere in
    ``data``: the values of FIX fields in a log), otherwise
    ``data[i*width:(i+1)*width]`` less trailing NUL bytes (NumPy ``S`` arrays). ``valid``
    is a uint8 array (0 = null row, which gets ``(0, 0)``) or empty when every row is
    present. ``status`` receives one of :data:`OK`, :data:`BIG`, :data:`INVALID` and
    :data:`EXPONENT_RANGE` per row; a ``BIG`` row still gets its exponent.

    Returns ``(first, nbig)``: the first row that is ``INVALID`` or ``EXPONENT_RANGE``
    (-1 if none) and the number of ``BIG`` rows.
    """
    first = -1
    nbig = 0
    check_valid = valid.shape[0] != 0
    size = data.shape[0]
    for i in range(coef.shape[0]):
        if check_valid and valid[i] == 0:
            coef[i] = 0
            exps[i] = 0
            status[i] = OK
            continue
        # The row's bounds, written here rather than in a helper taking the arrays: a
        # helper's array arguments cost Numba two reference counts each a row.
        if width > 0:  # fixed-width rows drop their trailing NUL bytes
            p = i * width
            stop = p + width
            while stop > p and data[stop - 1] == 0:
                stop -= 1
        elif gap < 0:  # (start, stop) pairs
            p = np.int64(offsets[2 * i])
            stop = np.int64(offsets[2 * i + 1])
        else:
            p = np.int64(offsets[i])
            stop = np.int64(offsets[i + 1]) - gap
        neg = False
        if p < stop and (data[p] == 45 or data[p] == 43):  # "-" or "+"
            neg = data[p] == 45
            p += 1
        if WORDS and p < stop <= p + 8 and p + 8 <= size:  # short: 8 bytes at once
            short, value, decimals = _short_decimal(load8(data, p), stop - p)
            if short:
                coef[i] = -np.int64(value) if neg else np.int64(value)
                exps[i] = -decimals
                status[i] = OK
                continue
        coef[i] = 0
        exps[i] = 0
        status[i] = OK
        m = _U64(0)
        nsig = 0  # digits from the first non-zero one on
        ndig = 0
        frac = 0
        dot = False
        while p < stop:
            b = data[p]
            if 48 <= b <= 57:
                ndig += 1
                if dot:
                    frac += 1
                d = _U64(b - 48)
                if nsig > 0 or d != 0:
                    if nsig < 19:  # 19 digits always fit in uint64
                        m = m * _U64(10) + d
                    nsig += 1
            elif b == 46 and not dot:  # "."
                dot = True
            else:
                break
            p += 1
        ok = ndig > 0
        ev = np.int64(0)
        if ok and p < stop and (data[p] == 101 or data[p] == 69):  # "e" or "E"
            p += 1
            eneg = False
            if p < stop and (data[p] == 45 or data[p] == 43):
                eneg = data[p] == 45
                p += 1
            edig = 0
            while p < stop and 48 <= data[p] <= 57:
                if ev < _EXP_CAP:
                    ev = ev * 10 + np.int64(data[p] - 48)
                edig += 1
                p += 1
            ok = edig > 0
            if eneg:
                ev = -ev
        if not ok or p != stop:
            status[i] = INVALID
            if first < 0:
                first = i
            continue
        e = ev - frac
        if e < _INT32_MIN or e > _INT32_MAX:
            status[i] = EXPONENT_RANGE
            if first < 0:
                first = i
            continue
        exps[i] = e
        limit = _INT64_MAX_U + _U64(1) if neg else _INT64_MAX_U
        if nsig > 19 or m > limit:
            status[i] = BIG
            nbig += 1
        elif neg and m != 0:  # "-0" is 0, and m - 1 would wrap
            coef[i] = -np.int64(m - _U64(1)) - 1  # exact for -2**63 too
        else:
            coef[i] = np.int64(m)
    return first, nbig


@kernel(
    "u8[]r i64[]r i64 i32[]r u8[] i32[]r",
    "u8[]r i64[]r i64 i32[]r u8[] i64[]r",
    "u8[]r i64[]r i64 i64[]r u8[] i32[]r",
    "u8[]r i64[]r i64 i64[]r u8[] i64[]r",
)
def copy_rows(src, starts, step, lengths, dst, at):
    """Copy row ``i``'s ``lengths[i]`` bytes from ``src[starts[i]:]`` (from
    ``src[i * step:]`` when ``starts`` is empty: the rows of a byte matrix) to
    ``dst[at[i]:]``, for every row; return the bytes copied.

    vecfix's one kernel that moves rows of text into a flat buffer: Arrow's layout from a
    matrix, rows joined by a separator, FIX fields read out of a log. Eight bytes a load
    and a store where both stay inside their buffers (the bytes a store writes past a row
    are overwritten by the rows after it, so rows must be copied to increasing places and
    not overlap), as zeros: a matrix's padding stays zero; byte by byte elsewhere.

    Examples
    --------
    >>> import numpy as np
    >>> src = np.frombuffer(b"ab\\0\\0cde\\0", dtype=np.uint8).copy()  # a (2, 4) matrix
    >>> dst = np.zeros(6, dtype=np.uint8)
    >>> empty = np.empty(0, dtype=np.int64)
    >>> at, lengths = np.array([0, 3]), np.array([2, 3], dtype=np.int32)
    >>> int(copy_rows(src, empty, 4, lengths, dst, at)), bytes(dst)
    (5, b'ab\\x00cde')
    """
    total = 0
    given = starts.shape[0] > 0
    room_src = src.shape[0] - 8  # a word loaded or stored at or below these stays inside
    room_dst = dst.shape[0] - 8
    for i in range(lengths.shape[0]):
        k = np.int64(lengths[i])
        base = np.int64(starts[i]) if given else i * step
        pos = np.int64(at[i])
        if k <= 8 and base <= room_src and pos <= room_dst:  # most rows: one word
            if k > 0:
                store8(dst, pos, load8(src, base) & (_ALL >> _U64(64 - 8 * k)))
        elif base + (k - 1) // 8 * 8 <= room_src and pos + (k - 1) // 8 * 8 <= room_dst:
            for j in range(0, k, 8):  # the bytes past the row's text stored as zeros
                word = load8(src, base + j)
                if k - j < 8:
                    word &= _ALL >> _U64(8 * (8 - (k - j)))
                store8(dst, pos + j, word)
        else:
            for j in range(k):
                dst[pos + j] = src[base + j]
        total += k
    return total


@kernel("i64 i64 u8[]r i64 i32[]r i64 u64[,]")
def string_views(start, stop, flat, width, lengths, rows_per_buffer, out):
    """Write the Arrow ``string_view`` record of each row ``i`` of ``start:stop`` into
    ``out[i]`` (two uint64); return the rows written.

    ``flat`` is a byte matrix's buffer (row ``i`` at ``i * width``), split into data
    buffers of ``rows_per_buffer`` rows for the rows longer than 12 bytes. A record is the
    row's length (int32), then a row of at most 12 bytes itself, zero-padded, else its
    first 4 bytes, a buffer index and an offset into that buffer. Rows are independent:
    threads may take parts of them.
    """
    quick = stop  # rows whose 12 bytes can be read with two 8-byte loads
    while quick > start and (quick - 1) * width + 12 > flat.shape[0]:
        quick -= 1
    for i in range(start, stop):
        k = _U64(lengths[i])
        base = i * width
        if i < quick:
            head, tail = load8(flat, base), load8(flat, base + 4)
        else:  # the last rows of a buffer without slack: byte by byte
            head, tail = _U64(0), _U64(0)
            for j in range(min(lengths[i], 12)):
                byte = _U64(flat[base + j])
                if j < 8:
                    head |= byte << _U64(8 * j)
                if j >= 4:
                    tail |= byte << _U64(8 * (j - 4))
        shown = min(k, _U64(4))  # the bytes after the text are not the row's: mask them
        lo = k | ((head & ((_U64(1) << (_U64(8) * shown)) - _U64(1))) << _U64(32))
        if k <= _U64(12):
            rest = max(k, _U64(4)) - _U64(4)
            hi = (_ALL >> (_U64(64) - _U64(8) * rest)) & tail if rest else _U64(0)
        else:
            b = i // rows_per_buffer
            hi = _U64(b) | (_U64((i - b * rows_per_buffer) * width) << _U64(32))
        out[i, 0] = lo
        out[i, 1] = hi
    return stop - start
