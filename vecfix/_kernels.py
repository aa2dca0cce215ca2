"""The Numba kernels: shift, round half away from zero, measure and fill.

Every kernel is a plain loop over rows, arrays in and arrays out. Lookup tables are built
once in Python (:data:`TABLES`) and passed in as arguments, never read as globals, so a
cached compile never freezes a table into machine code.

A row is ``(c, e, s)``: an int64 coefficient, an exponent and a scale. Its text is that of
the integer ``M = round_half_away(|c| * 10**(e + s))`` followed by ``Z`` zeros, with a
decimal point ``s`` digits from the right when ``s > 0``, a ``-`` in front when ``c < 0``
and ``M != 0``. With ``d = e + s``:

* ``d >= 0``: nothing is dropped, ``M = |c|`` and ``Z = d + max(0, -s)``;
* ``d < 0``: ``k = -d`` digits are dropped, ``M = (|c| + 5 * 10**(k-1)) // 10**k`` and
  ``Z = max(0, -s)`` (for ``s < 0`` the dropped digits come back as zeros).

``M`` never exceeds ``2**63 + 5 * 10**18 < 2**64``, so every int64 row is exact in uint64
arithmetic: nothing overflows, whatever the exponent and scale. Divisions by a power of ten
chosen per row are done by multiplying with a precomputed reciprocal (Granlund-Montgomery),
never by the slow hardware divider.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._jit import bit_length, helper, kernel, mulhi, store8

_U64 = np.uint64
_S32 = np.uint64(32)
_ZERO = np.uint8(48)  # b"0"
_DOT = np.uint8(46)  # b"."
_MINUS = np.uint8(45)  # b"-"
_P8 = np.uint64(10**8)
_P16 = np.uint64(10**16)


class Tables(NamedTuple):
    """Lookup tables handed to every kernel."""

    pow10: np.ndarray  # uint64[20]: 10**k
    fits: np.ndarray  # uint64[20]: the largest x with x * 10**k < 2**64
    half: np.ndarray  # uint64[20]: 5 * 10**(k-1) (0 for k = 0), added before dropping k digits
    magic: np.ndarray  # uint64[20]: reciprocal of 5**k for 64 - k bit dividends
    shift: np.ndarray  # uint64[20]: final right shift after the high multiply
    digits4: np.ndarray  # uint32[10000]: the four ASCII digits of 0000..9999, first lowest


def make_tables() -> Tables:
    """Build the tables; every magic number is checked against exact integer division."""
    pow10 = np.array([10**k for k in range(20)], dtype=np.uint64)
    half = np.array([0] + [5 * 10 ** (k - 1) for k in range(1, 20)], dtype=np.uint64)
    magic = np.zeros(20, dtype=np.uint64)
    shift = np.zeros(20, dtype=np.uint64)
    for k in range(1, 20):
        # x // 10**k == (x >> k) // 5**k, and x >> k has n = 64 - k bits. With
        # 2**(l-1) < d = 5**k < 2**l and m = ceil(2**(n+l) / d) < 2**64,
        # floor(y / d) == floor(y * m / 2**(n+l)) for every y < 2**n (Granlund-Montgomery
        # 1994, theorem 4.2), i.e. mulhi(y, m) >> (l - k).
        d, n = 5**k, 64 - k
        bits = d.bit_length()
        m = -(-(1 << (n + bits)) // d)
        assert m < 1 << 64 and (m * d - (1 << (n + bits))) <= 1 << bits
        magic[k], shift[k] = m, bits - k
    digits4 = np.frombuffer("".join(f"{v:04d}" for v in range(10_000)).encode(), dtype="<u4")
    fits = np.array([(2**64 - 1) // 10**k for k in range(20)], dtype=np.uint64)
    return Tables(pow10, fits, half, magic, shift, digits4.astype(np.uint32))


TABLES = make_tables()


@helper
def _div_pow10(x, k, magic, shift):
    """``x // 10**k`` for a uint64 ``x`` and ``1 <= k <= 19``, without a divide."""
    return mulhi(x >> _U64(k), magic[k]) >> shift[k]


@helper
def _ndigits(x, pow10):
    """Number of decimal digits of the uint64 ``x`` (0 for 0), without a branch.

    ``bits * 1233 >> 12`` is ``floor(bits * log10(2))``, at most one short of the answer.
    """
    t = (bit_length(x) * 1233) >> 12
    return t + (1 if x >= pow10[t] else 0)


@helper
def _magnitude(c):
    """``|c|`` of an int64 as uint64 (exact for the most negative int64 too)."""
    if c < 0:
        return _U64(-(c + 1)) + _U64(1)
    return _U64(c)


@helper
def _row_length(c, e, s, half, pow10):
    """Printed length of row ``(c, e, s)`` (see :func:`make_tables` for the tables)."""
    a = _magnitude(c)
    d = e + s
    nd = 0  # digits of M; 0 means M == 0
    z = 0
    if d >= 0:
        if a != 0:
            nd = _ndigits(a, pow10)
            z = d + max(0, -s)
    elif d > -20:
        ndx = _ndigits(a + half[-d], pow10)  # M = (a + half) // 10**k has k digits fewer
        if ndx > -d:
            nd = ndx + d
            z = max(0, -s)
    if nd == 0:
        return 1 if s <= 0 else s + 2
    sign = 1 if c < 0 else 0
    if s <= 0:
        return sign + nd + z
    return sign + max(nd + z - s, 1) + 1 + s


@kernel
def measure(start, stop, coef, cstep, exps, estep, scales, sstep, lengths, limit, half, pow10):
    """Write the printed length of rows ``start:stop`` into ``lengths``.

    ``coef``, ``exps`` and ``scales`` are read at ``i * step`` (step 0 broadcasts a single
    value). Returns ``(widest, first)``: the longest length among rows within ``limit``,
    and the first row whose length exceeds ``limit`` (-1 if none; such rows get 0).
    """
    widest = 0
    first = -1
    uniform = estep == 0 and sstep == 0  # then e and s stay in registers
    e = np.int64(exps[0]) if uniform else 0
    s = np.int64(scales[0]) if uniform else 0
    for i in range(start, stop):
        if not uniform:
            e = np.int64(exps[i * estep])
            s = np.int64(scales[i * sstep])
        n = _row_length(coef[i * cstep], e, s, half, pow10)
        if n > limit:
            if first < 0:
                first = i
            n = 0
        lengths[i] = n
        widest = max(widest, n)
    return widest, first


@helper
def _put_group(buf, q, v, n, fast, digits4):
    """Write the ``n`` (1..8) digits of ``v < 10**n`` at ``buf[q:q+n]``.

    The digits come four at a time from the ``digits4`` table (faster here than any
    arithmetic digit splitting). With ``fast``, one unaligned 8-byte store that may spill
    junk past ``q + n``; the caller writes those bytes again afterwards (rows are written
    left to right).
    """
    if n <= 4:
        word = _U64(digits4[v]) >> _U64(8 * (4 - n))
    else:
        hi = v // _U64(10_000)
        word = _U64(digits4[hi]) | (_U64(digits4[v - hi * _U64(10_000)]) << _S32)
        word >>= _U64(8 * (8 - n))
    if fast:
        store8(buf, q, word)
    else:
        for t in range(n):
            buf[q + t] = np.uint8(word & _U64(0xFF))
            word >>= _U64(8)


@helper
def _put_digits(buf, q, v, nd, fast, digits4):
    """Write the ``nd`` low digits of ``v`` (zero-padded) at ``buf[q:q+nd]``; return the end."""
    if nd > 16:
        head = v // _P16
        _put_group(buf, q, head, nd - 16, fast, digits4)
        v -= head * _P16
        q += nd - 16
        nd = 16
    if nd > 8:
        head = v // _P8
        _put_group(buf, q, head, nd - 8, fast, digits4)
        v -= head * _P8
        q += nd - 8
        nd = 8
    if nd > 0:
        _put_group(buf, q, v, nd, fast, digits4)
    return q + nd


@helper
def _put_run(buf, q, n, byte, fast):
    """Write ``n`` copies of ``byte`` at ``buf[q:q+n]`` (8 at once if ``fast``); return the end."""
    if fast:
        word = _U64(byte) * _U64(0x0101010101010101)
        j = 0
        while j < n:
            store8(buf, q + j, word)
            j += 8
    else:
        for j in range(n):
            buf[q + j] = byte
    return q + n


@helper
def _fill_row(buf, base, width, c, e, s, tables, fast):
    """Write one row at ``buf[base:base+width]``, zero-padded; return its length.

    With ``fast`` the row is written with 8-byte stores that may spill up to 7 bytes past
    ``base + width``, so the caller allows it only where those bytes are written later.
    """
    pow10, fits, half, magic, shift, digits4 = tables
    a = _magnitude(c)
    d = e + s
    if 0 <= s <= 19 and d <= 19 and (d <= 0 or a <= fits[d]):
        # The common case: the text is M = round(|c| * 10**d) with a point s digits from
        # the right (M < 2**64).
        m = _U64(0)
        if d >= 0:
            m = a * pow10[d]
        elif d > -20:
            m = _div_pow10(a + half[-d], -d, magic, shift)
        q = base
        if c < 0 and m != 0:  # never a negative zero
            buf[q] = _MINUS
            q += 1
        top = _div_pow10(m, s, magic, shift) if s > 0 else m
        q = _put_digits(buf, q, top, max(_ndigits(top, pow10), 1), fast, digits4)
        if s > 0:
            buf[q] = _DOT
            q = _put_digits(buf, q + 1, m - top * pow10[s], s, fast, digits4)
    else:
        q = _fill_general(buf, base, c, e, s, pow10, half, magic, shift, digits4, fast)
    _put_run(buf, q, base + width - q, np.uint8(0), fast)
    return q - base


@helper
def _fill_general(buf, base, c, e, s, pow10, half, magic, shift, digits4, fast):
    """Write a row with appended zeros (``Z > 0``) or a scale beyond 19; return its end.

    The text is ``[-] A [zeros] [.] [zeros] B [zeros]``: ``A`` the integer part of ``M``
    and ``B`` its fractional digits (see the module docstring for ``M`` and ``Z``).
    """
    a = _magnitude(c)
    d = e + s
    m = _U64(0)
    z = max(0, -s)
    if d >= 0:
        m = a
        z += d
    elif d > -20:
        m = _div_pow10(a + half[-d], -d, magic, shift)
    nd = _ndigits(m, pow10)
    # The integer part: top (na digits) then za zeros; the fraction: zl zeros, low (nb
    # digits), zt zeros.
    top, na, za, zl, low, nb, zt = m, nd, z, 0, _U64(0), 0, 0
    if m == 0:
        na, za, zl = 1, 0, s
    elif s > 0:
        f = s - z  # how many of M's digits fall after the point
        if f <= 0:  # M and -f zeros are the integer part; the fraction is s zeros
            za, zl = -f, s
        elif f >= nd:  # the integer part is 0
            top, na, za, zl, low, nb, zt = _U64(0), 1, 0, f - nd, m, nd, z
        else:
            top = _div_pow10(m, f, magic, shift)
            na, za, low, nb, zt = nd - f, 0, m - top * pow10[f], f, z
    q = base
    if c < 0 and m != 0:
        buf[q] = _MINUS
        q += 1
    q = _put_digits(buf, q, top, na, fast, digits4)
    q = _put_run(buf, q, za, _ZERO, fast)
    if s > 0:
        buf[q] = _DOT
        q = _put_run(buf, q + 1, zl, _ZERO, fast)
        q = _put_digits(buf, q, low, nb, fast, digits4)
        q = _put_run(buf, q, zt, _ZERO, fast)
    return q


@kernel
def fill(start, stop, coef, cstep, exps, estep, scales, sstep, buf, width, lengths, tables):
    """Write rows ``start:stop`` and their ``lengths``; row ``i`` is ``buf[i*width:][:width]``.

    ``buf`` is the flat matrix, possibly followed by slack bytes; ``tables`` is
    :data:`TABLES` as a tuple. Rows are written in order with 8-byte stores, each spilling
    into the next row before that row is written; the last rows of the range, where a
    spill would leave it, are written byte by byte. The caller has checked that every row
    fits ``width``.
    """
    end = stop * width
    if stop == lengths.shape[0]:
        end = buf.shape[0]  # the slack after the last row may take spills
    if estep == 0 and sstep == 0:  # one exponent and scale: a loop of its own, so that
        e = np.int64(exps[0])  # LLVM keeps them in registers and folds what they decide
        s = np.int64(scales[0])
        for i in range(start, stop):
            base = i * width
            lengths[i] = _fill_row(
                buf, base, width, coef[i * cstep], e, s, tables, base + width + 7 <= end
            )
    else:
        for i in range(start, stop):
            base = i * width
            e = np.int64(exps[i * estep])
            s = np.int64(scales[i * sstep])
            lengths[i] = _fill_row(
                buf, base, width, coef[i * cstep], e, s, tables, base + width + 7 <= end
            )
