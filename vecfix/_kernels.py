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

from ._jit import helper, kernel

_U64 = np.uint64
_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_ZERO = np.uint8(48)  # b"0"
_DOT = np.uint8(46)  # b"."
_MINUS = np.uint8(45)  # b"-"


class Tables(NamedTuple):
    """Lookup tables handed to every kernel."""

    pow10: np.ndarray  # uint64[20]: 10**k
    half: np.ndarray  # uint64[20]: 5 * 10**(k-1) (0 for k = 0), added before dropping k digits
    magic: np.ndarray  # uint64[20]: reciprocal of 5**k for 64 - k bit dividends
    shift: np.ndarray  # uint64[20]: final right shift after the high multiply
    digits4: np.ndarray  # uint8[40000]: "0000" .. "9999", four ASCII bytes each


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
    digits4 = np.frombuffer("".join(f"{v:04d}" for v in range(10_000)).encode(), dtype=np.uint8)
    return Tables(pow10, half, magic, shift, digits4.copy())


TABLES = make_tables()


@helper
def _mulhi(a, b):
    """High 64 bits of the 128-bit product of two uint64."""
    a_lo = a & _MASK32
    a_hi = a >> _S32
    b_lo = b & _MASK32
    b_hi = b >> _S32
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    mid = (p0 >> _S32) + (p1 & _MASK32) + (p2 & _MASK32)
    return a_hi * b_hi + (p1 >> _S32) + (p2 >> _S32) + (mid >> _S32)


@helper
def _div_pow10(x, k, magic, shift):
    """``x // 10**k`` for a uint64 ``x`` and ``1 <= k <= 19``, without a divide."""
    return _mulhi(x >> _U64(k), magic[k]) >> shift[k]


@helper
def _ndigits(x, pow10):
    """Number of decimal digits of the uint64 ``x`` (1 for 0)."""
    n = 1
    if x >= pow10[8]:
        n = 17 if x >= pow10[16] else 9
    while n < 20 and x >= pow10[n]:
        n += 1
    return n


@helper
def _magnitude(c):
    """``|c|`` of an int64 as uint64 (exact for the most negative int64 too)."""
    if c < 0:
        return _U64(-(c + 1)) + _U64(1)
    return _U64(c)


@helper
def _row_length(c, e, s, pow10, half):
    """Printed length of one row, or of its zero form when ``M`` rounds to zero."""
    a = _magnitude(c)
    d = e + s
    nd = 0  # digits of M; 0 means M == 0
    z = 0
    if d >= 0:
        if a != 0:
            nd = _ndigits(a, pow10)
            z = d + max(0, -s)
    elif -d < 20:
        k = -d
        ndx = _ndigits(a + half[k], pow10)
        if ndx > k:
            nd = ndx - k
            z = max(0, -s)
    if nd == 0:
        return 1 if s <= 0 else s + 2
    sign = 1 if c < 0 else 0
    if s <= 0:
        return sign + nd + z
    return sign + max(nd + z - s, 1) + 1 + s


@kernel
def measure(coef, cstep, exps, estep, scales, sstep, lengths, limit, pow10, half):
    """Write each row's printed length into ``lengths``.

    ``coef``, ``exps`` and ``scales`` are read at ``i * step`` (step 0 broadcasts a single
    value). Returns ``(widest, first)``: the longest length seen among rows within
    ``limit``, and the first row whose length exceeds ``limit`` (-1 if none). Such rows
    get length 0.
    """
    widest = 0
    first = -1
    for i in range(lengths.shape[0]):
        n = _row_length(
            coef[i * cstep], np.int64(exps[i * estep]), np.int64(scales[i * sstep]), pow10, half
        )
        if n > limit:
            if first < 0:
                first = i
            n = 0
        lengths[i] = n
        widest = max(widest, n)
    return widest, first


@helper
def _put_digits(out, i, end, v, nd, digits4):
    """Write the ``nd`` low decimal digits of ``v`` (zero-padded) to ``out[i, end-nd:end]``."""
    while nd >= 4:
        q = v // _U64(10_000)
        j = (v - q * _U64(10_000)) * _U64(4)
        out[i, end - 4] = digits4[j]
        out[i, end - 3] = digits4[j + 1]
        out[i, end - 2] = digits4[j + 2]
        out[i, end - 1] = digits4[j + 3]
        end -= 4
        nd -= 4
        v = q
    j = v * _U64(4) + _U64(4 - nd)
    for t in range(nd):
        out[i, end - nd + t] = digits4[j + _U64(t)]


@helper
def _put_zeros(out, i, start, stop):
    for p in range(start, stop):
        out[i, p] = _ZERO


@helper
def _fill_row(out, i, c, e, s, pow10, half, magic, shift, digits4):
    """Write row ``i``; returns the number of bytes written (the rest is left alone)."""
    a = _magnitude(c)
    d = e + s
    m = _U64(0)
    z = max(0, -s)
    if d >= 0:
        m = a
        z += d
    elif -d < 20:
        m = _div_pow10(a + half[-d], -d, magic, shift)
    if m == 0:
        out[i, 0] = _ZERO
        if s <= 0:
            return 1
        out[i, 1] = _DOT
        _put_zeros(out, i, 2, s + 2)
        return s + 2
    p = 0
    if c < 0:
        out[i, 0] = _MINUS
        p = 1
    nd = _ndigits(m, pow10)
    if s <= 0:
        _put_digits(out, i, p + nd, m, nd, digits4)
        _put_zeros(out, i, p + nd, p + nd + z)
        return p + nd + z
    f = s - z  # how many of M's digits fall after the point
    if f <= 0:  # M and -f zeros form the integer part; the fraction is all zeros
        _put_digits(out, i, p + nd, m, nd, digits4)
        p += nd
        _put_zeros(out, i, p, p - f)
        p -= f
        out[i, p] = _DOT
        _put_zeros(out, i, p + 1, p + 1 + s)
        return p + 1 + s
    if f >= nd:  # the integer part is 0
        out[i, p] = _ZERO
        out[i, p + 1] = _DOT
        p += 2
        _put_zeros(out, i, p, p + f - nd)
        p += f - nd
        _put_digits(out, i, p + nd, m, nd, digits4)
        p += nd
    else:
        top = _div_pow10(m, f, magic, shift)
        _put_digits(out, i, p + nd - f, top, nd - f, digits4)
        p += nd - f
        out[i, p] = _DOT
        _put_digits(out, i, p + 1 + f, m - top * pow10[f], f, digits4)
        p += 1 + f
    _put_zeros(out, i, p, p + z)
    return p + z


@kernel
def fill(coef, cstep, exps, estep, scales, sstep, out, pow10, half, magic, shift, digits4):
    """Write every row's text into ``out`` (``n x width`` uint8), zero-padding the rest.

    The caller has already checked, with :func:`measure`, that every row fits the width.
    """
    width = out.shape[1]
    for i in range(out.shape[0]):
        n = _fill_row(
            out,
            i,
            coef[i * cstep],
            np.int64(exps[i * estep]),
            np.int64(scales[i * sstep]),
            pow10,
            half,
            magic,
            shift,
            digits4,
        )
        for p in range(n, width):
            out[i, p] = 0
