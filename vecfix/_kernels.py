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

from ._jit import bit_length, helper, kernel, mulhi, opaque, store8

_U64 = np.uint64
_S32 = np.uint64(32)
_ZERO = np.uint8(48)  # b"0"
_DOT = np.uint8(46)  # b"."
_MINUS = np.uint8(45)  # b"-"
_P8 = np.uint64(10**8)
_P16 = np.uint64(10**16)
_INT32_MAX = 2**31 - 1


class Tables(NamedTuple):
    """Lookup tables handed to every kernel."""

    pow10: np.ndarray  # uint64[20]: 10**k
    fits: np.ndarray  # uint64[20]: the largest x with x * 10**k < 2**64
    half: np.ndarray  # uint64[20]: 5 * 10**(k-1) (0 for k = 0), added before dropping k digits
    magic: np.ndarray  # uint64[20]: reciprocal of 5**k for 64 - k bit dividends
    shift: np.ndarray  # uint64[20]: final right shift after the high multiply
    digits4: np.ndarray  # uint32[10000]: the four ASCII digits of 0000..9999, first lowest
    plans: np.ndarray  # uint64[_PLANS * _PLAN_WORDS]: the fast path's plan of each (d, s)


def make_tables() -> tuple[Tables, np.ndarray]:
    """Build the tables; every magic number is checked against exact integer division.

    Returns the tables and :data:`WORDS`, one 64-byte aligned buffer the uint64 tables are
    views into, so that a kernel called on a few rows takes them as one argument (see
    :func:`format_small`).
    """
    words = _aligned_words(_W_PLANS + _PLANS * _PLAN_WORDS)
    pow10, fits, half, magic, shift = (words[20 * t : 20 * t + 20] for t in range(5))
    pow10[:] = [10**k for k in range(20)]
    half[:] = [0] + [5 * 10 ** (k - 1) for k in range(1, 20)]
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
    fits[:] = [(2**64 - 1) // 10**k for k in range(20)]
    plans = words[_W_PLANS:]
    _make_plans(plans.reshape(_PLANS, _PLAN_WORDS), pow10, fits, half, magic, shift)
    return Tables(pow10, fits, half, magic, shift, digits4.astype(np.uint32), plans), words


def _aligned_words(n: int) -> np.ndarray:
    """``n`` zeroed uint64 words starting on a 64-byte boundary (a cache line)."""
    raw = np.zeros(n + 8, dtype=np.uint64)
    skip = (-raw.ctypes.data % 64) // 8
    return raw[skip : skip + n]


#: The fast path's layouts: ``0 <= s <= _S_MAX`` and ``|d| <= 19`` with ``d = e + s``;
#: plan ``(d + 19) * (_S_MAX + 1) + s``, then one that says "not here".
_S_MAX = 16
_PLANS = 39 * (_S_MAX + 1) + 1
_PLAN_WORDS = 16  # two cache lines a plan, fields as in _Plan


def _make_plans(plans, pow10, fits, half, magic, shift) -> None:
    """Write one :class:`_Plan` a layout into ``plans`` (``_PLANS`` rows of 16 words)."""
    ones = 2**64 - 1
    for d in range(-19, 20):
        for s in range(_S_MAX + 1):
            k, dp = max(-d, 0), max(d, 0)
            plans[(d + 19) * (_S_MAX + 1) + s] = [
                0,  # ok: 0 means the fast path may take the layout
                half[k],
                k,
                magic[k] if k else pow10[dp],  # mul_k: m = low or high word of x * mul_k
                shift[k],
                0 if k else ones,  # low_k: keep the low word (k = 0) or not
                fits[dp],
                s,
                magic[s] if s else 1,  # mul_s: top = m // 10**s the same way
                shift[s],
                0 if s else ones,
                pow10[s],
                (64 - 8 * s if s <= 8 else 128 - 8 * s) if s else 63,  # frac_shift
                46 if s else 0,  # the point, or nothing
                1 if s else 0,
                0,
            ]
    plans[-1, 0] = 1  # not ok


#: Where the plans start in :data:`WORDS` (after five tables of 20 words, on a cache line).
_W_PLANS = 104

#: The tables, and the uint64 ones in one buffer: ``pow10``, ``fits``, ``half``, ``magic``,
#: ``shift`` (20 words each from word 0), then ``plans`` from word ``_W_PLANS``.
TABLES, WORDS = make_tables()


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
    return t + (1 if x >= pow10[_U64(t)] else 0)


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


@helper
def _plan_length(c, d, s, k, half_k, z, point, pow10):
    """Printed length of row ``c`` when ``d = e + s >= -19``, without a branch.

    ``k = max(-d, 0)`` digits are dropped and ``half_k`` is added first, so ``M`` has
    ``max(digits(|c| + half_k) - k, 0)`` digits; ``z = max(d, 0) + max(-s, 0)`` zeros
    follow a nonzero ``M``. The text has ``max(digits(M) + Z, max(s, 0) + 1)`` digits, a
    point when ``s > 0`` (``point``) and a sign when ``c < 0`` and ``M != 0``.
    """
    nd = _ndigits(_magnitude(c) + half_k, pow10) - k
    nz = opaque(-np.int64(nd > 0))  # all ones when M != 0
    body = nd + (z & nz)
    body += _clamp0(max(s, 0) + 1 - body)  # max(body, s + 1) without a branch
    return body + point + (np.int64(c < 0) & nz & 1)


@helper
def _clamp0(x):
    """``max(x, 0)`` as ``x & ~(x >> 63)``: LLVM keeps it free of branches (a ``max`` may
    become a mispredicted jump)."""
    return x & ~opaque(x >> 63)


@kernel
def measure(start, stop, coef, cstep, exps, estep, scales, sstep, lengths, limit, half, pow10):
    """Write the printed length of rows ``start:stop`` into ``lengths``.

    ``coef``, ``exps`` and ``scales`` are read at ``i * step`` (step 0 broadcasts a single
    value). Returns ``(widest, first)``: the longest length among rows within ``limit``,
    and the first row whose length exceeds ``limit`` (-1 if none; such rows get 0).
    """
    widest = 0
    first = -1
    cap = max(limit, 0) + 1
    if estep == 0 and sstep == 0:  # one layout: its constants stay in registers
        e, s = np.int64(exps[0]), np.int64(scales[0])
        widest = _measure_layout(start, stop, coef, cstep, e, s, lengths, cap, half, pow10)
    else:
        for i in range(start, stop):
            e = np.int64(exps[_U64(i * estep)])
            s = np.int64(scales[_U64(i * sstep)])
            n = _planned_length(coef[_U64(i * cstep)], e, s, half, pow10)
            n = min(n, cap)  # an int32 length, and > limit for the rows beyond it
            lengths[_U64(i)] = n
            widest = max(widest, n)
    if widest > limit:  # rare: find the rows beyond the limit after the fact
        widest = 0
        for i in range(start, stop):
            n = np.int64(lengths[i])
            if n > limit:
                if first < 0:
                    first = i
                lengths[i] = 0
            else:
                widest = max(widest, n)
    return widest, first


@helper
def _measure_layout(start, stop, coef, cstep, e, s, lengths, cap, half, pow10):
    """:func:`measure` for rows that share exponent ``e`` and scale ``s``; return the widest."""
    d = e + s
    k = min(max(-d, 0), 19)
    z = max(d, 0) + max(-s, 0)
    point = np.int64(s > 0)
    if d < -19:  # everything rounds to zero
        k, z = 20, 0
    half_k = half[min(k, 19)]
    widest = 0
    for i in range(start, stop):
        n = _plan_length(coef[_U64(i * cstep)], d, s, k, half_k, z, point, pow10)
        n = min(n, cap)  # an int32 length, and > the limit for the rows beyond it
        lengths[_U64(i)] = n
        widest = max(widest, n)
    return widest


@kernel
def plan_rows(start, stop, coef, cstep, exps, estep, scales, sstep, lengths, half, pow10):
    """Return the longest length among rows ``start:stop`` and write each row's plan (its
    row of ``plans``, see :func:`_plan_index`) and length into ``lengths``, for :func:`fill`.

    The first pass over rows whose exponents and scales vary row to row: with the plans
    and lengths found here, :func:`fill`'s rows wait neither on their exponent and scale
    nor on counting digits. Unlike :func:`measure` it leaves no plain lengths behind and
    does not look for rows over a limit.
    """
    widest = 0
    for i in range(start, stop):
        e = np.int64(exps[_U64(i * estep)])
        s = np.int64(scales[_U64(i * sstep)])
        n = _planned_length(coef[_U64(i * cstep)], e, s, half, pow10)
        widest = max(widest, n)
        lengths[_U64(i)] = _packed_plan(e, s, n)
    return widest


@kernel
def plan_runs(start, stop, coef, cstep, exps, estep, scales, sstep, lengths, half, pow10):
    """:func:`plan_rows` for rows in runs of one layout (a table sorted by instrument).

    After the first ``_RUN`` rows of a run, which :func:`_mixed_rows` writes, :func:`fill`
    hands the rest of the run to :func:`_fill_layout`: those rows get their plan alone
    (length 0), and their widest row is found from the run's smallest and largest
    coefficient, as the length grows with ``|c|``. Slower than :func:`plan_rows` where the
    layout changes every few rows.
    """
    widest = 0
    same = 0
    last = np.int64(-1)
    i = start
    while i < stop:
        e = np.int64(exps[_U64(i * estep)])
        s = np.int64(scales[_U64(i * sstep)])
        c = coef[_U64(i * cstep)]
        j = np.int64(_plan_index(e, s) // _U64(_PLAN_WORDS))
        same = (same + 1) if j == last else 0  # counted as _mixed_rows counts
        last = j
        if (same >= _RUN) & (j != _PLANS - 1):  # one plan is one layout: to the run's end
            low = high = c
            while i < stop and exps[_U64(i * estep)] == e and scales[_U64(i * sstep)] == s:
                c = coef[_U64(i * cstep)]
                low, high = min(low, c), max(high, c)
                lengths[_U64(i)] = np.int32(j)
                i += 1
            widest = max(widest, _extremes_length(low, high, e, s, half, pow10))
            continue  # the next row has another plan: its count starts again, as in fill
        n = _planned_length(c, e, s, half, pow10)
        widest = max(widest, n)
        lengths[_U64(i)] = _packed_plan(e, s, n)
        i += 1
    return widest


@helper
def _planned_length(c, e, s, half, pow10):
    """The length of row ``(c, e, s)`` (exact: see :func:`_plan_length`), branch-free."""
    d = e + s
    k = min(max(-d, 0), 20)  # 20: every digit dropped, M is 0 (digits(|c| + half) <= 20)
    nd = _ndigits(_magnitude(c) + half[_U64(min(k, 19))], pow10)  # M has nd - k digits
    nz = opaque(-np.int64(nd > k))  # all ones when M != 0
    body = (nd + d + max(-s, 0)) & nz  # digits of M and the zeros after it
    return max(body, max(s, 0) + 1) + np.int64(s > 0) + (np.int64(c < 0) & nz & 1)


@helper
def _packed_plan(e, s, n):
    """Row ``(e, s)``'s plan and its length ``n``, packed into an int32 for :func:`fill`."""
    j = np.int64(_plan_index(e, s) // _U64(_PLAN_WORDS))
    return np.int32(j | ((n & _SIZE_MASK) << _PLAN_BITS))


@kernel
def _extremes_length(low, high, e, s, half, pow10):
    """The longest row among coefficients ``low..high`` under ``(e, s)``: that of ``low`` or
    of ``high`` (a function of its own: called once a run)."""
    return max(_row_length(low, e, s, half, pow10), _row_length(high, e, s, half, pow10))


#: How :func:`plan_rows` packs a row's plan and length into an int32 for :func:`fill`: the
#: plan in the low bits, the length (exact for every row the fast path takes) above.
_PLAN_BITS = 10
_PLAN_MASK = (1 << _PLAN_BITS) - 1
_SIZE_MASK = (1 << (31 - _PLAN_BITS)) - 1
assert _PLANS <= 1 << _PLAN_BITS


@helper
def _put_group(buf, q, v, n, digits4):
    """Write the ``n`` (1..8) digits of ``v < 10**n`` at ``buf[q:q+n]``, byte by byte.

    The digits come four at a time from the ``digits4`` table (faster here than any
    arithmetic digit splitting).
    """
    if n <= 4:
        word = _U64(digits4[v]) >> _U64(8 * (4 - n))
    else:
        hi = v // _U64(10_000)
        word = _U64(digits4[hi]) | (_U64(digits4[v - hi * _U64(10_000)]) << _S32)
        word >>= _U64(8 * (8 - n))
    for t in range(n):
        buf[q + t] = np.uint8(word & _U64(0xFF))
        word >>= _U64(8)


@helper
def _put_digits(buf, q, v, nd, digits4):
    """Write the ``nd`` low digits of ``v`` (zero-padded) at ``buf[q:q+nd]``; return the end."""
    if nd > 16:
        head = v // _P16
        _put_group(buf, q, head, nd - 16, digits4)
        v -= head * _P16
        q += nd - 16
        nd = 16
    if nd > 8:
        head = v // _P8
        _put_group(buf, q, head, nd - 8, digits4)
        v -= head * _P8
        q += nd - 8
        nd = 8
    if nd > 0:
        _put_group(buf, q, v, nd, digits4)
    return q + nd


@helper
def _put_run(buf, q, n, byte):
    """Write ``n`` copies of ``byte`` at ``buf[q:q+n]``; return the end."""
    for j in range(n):
        buf[q + j] = byte
    return q + n


@kernel
def _fill_row(buf, base, width, c, e, s, tables):
    """Write one row at ``buf[base:base+width]``, byte by byte and zero-padded; return its
    length.

    Any row, for the rows :func:`fill`'s fast path leaves. A function of its own, not
    inlined: compiled once for :func:`fill` and :func:`format_small` alike.
    """
    pow10, fits, half, magic, shift, digits4, _ = tables
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
        q = _put_digits(buf, q, top, max(_ndigits(top, pow10), 1), digits4)
        if s > 0:
            buf[q] = _DOT
            q = _put_digits(buf, q + 1, m - top * pow10[s], s, digits4)
    else:
        q = _fill_general(buf, base, c, e, s, pow10, half, magic, shift, digits4)
    _put_run(buf, q, base + width - q, np.uint8(0))
    return q - base


@helper
def _fill_general(buf, base, c, e, s, pow10, half, magic, shift, digits4):
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
    q = _put_digits(buf, q, top, na, digits4)
    q = _put_run(buf, q, za, _ZERO)
    if s > 0:
        buf[q] = _DOT
        q = _put_run(buf, q + 1, zl, _ZERO)
        q = _put_digits(buf, q, low, nb, digits4)
        q = _put_run(buf, q, zt, _ZERO)
    return q


_P4 = np.uint64(10_000)


@helper
def _ascii8(v, digits4):
    """The eight ASCII digits of ``v < 10**8``, zero-padded, the first in the low byte."""
    hi = v // _P4
    return _U64(digits4[hi]) | (_U64(digits4[v - hi * _P4]) << _S32)


@helper
def _digits8(x):
    """Digits of ``x < 10**8`` (1 for 0) by seven comparisons: where the row's next byte
    goes then depends on ``x`` only, not on a table read (much faster than stripping the
    ASCII word's leading zeros with a ``tzcnt``)."""
    return (
        1
        + np.int64(x >= _U64(10))
        + np.int64(x >= _U64(100))
        + np.int64(x >= _U64(1000))
        + np.int64(x >= _U64(10_000))
        + np.int64(x >= _U64(100_000))
        + np.int64(x >= _U64(1_000_000))
        + np.int64(x >= _U64(10_000_000))
    )


class _Plan(NamedTuple):
    """What one exponent and scale decide for :func:`_fast_row` (one row of ``plans``)."""

    bad: np.uint64  # 0 when the fast path may take the layout (0 <= s <= 16, |e + s| <= 19)
    half: np.uint64  # 5 * 10**(k-1), 0 for k = 0, with k = max(-(e + s), 0) digits dropped
    drop: np.uint64  # k
    mul_k: np.uint64  # M = (x & low_k) * mul_k | hi(x * mul_k) >> shift_k, x = (a+half) >> k
    shift_k: np.uint64
    low_k: np.uint64  # all ones for k = 0 (then mul_k = 10**(e + s)), else 0
    fits: np.uint64  # the largest |c| with |c| * 10**max(e + s, 0) < 2**64
    scale: np.uint64  # s
    mul_s: np.uint64  # top = M // 10**s, computed as M above
    shift_s: np.uint64
    low_s: np.uint64
    pow10_s: np.uint64  # 10**s
    frac_shift: np.uint64  # right shift of the last fraction group to keep its digits
    dot: np.uint64  # b"." if s > 0 else 0
    point: np.uint64  # 1 if s > 0 else 0


@helper
def _plan_index(e, s):
    """The row of ``plans`` for layout ``(e, s)``, the last one when the fast path can't."""
    d = e + s
    ok = (_U64(s) <= _U64(_S_MAX)) & (_U64(d + 19) <= _U64(38))
    i = (d + 19) * (_S_MAX + 1) + s  # no overflow: |d| < 2**33
    return _U64(i if ok else _PLANS - 1) * _U64(_PLAN_WORDS)


@helper
def _plan(plans, j):
    """The :class:`_Plan` at word ``j`` of ``plans``."""
    return _Plan(
        plans[j],
        plans[j + _U64(1)],
        plans[j + _U64(2)],
        plans[j + _U64(3)],
        plans[j + _U64(4)],
        plans[j + _U64(5)],
        plans[j + _U64(6)],
        plans[j + _U64(7)],
        plans[j + _U64(8)],
        plans[j + _U64(9)],
        plans[j + _U64(10)],
        plans[j + _U64(11)],
        plans[j + _U64(12)],
        plans[j + _U64(13)],
        plans[j + _U64(14)],
    )


@helper
def _scaled(x, mul, shift, low):
    """``(x & low) * mul | hi(x * mul) >> shift``: ``x // 10**k`` through a reciprocal
    (``low`` 0), or ``x * 10**d`` (``low`` all ones, ``shift`` 0, no overflow), no branch."""
    return ((x & low) * mul) | (mulhi(x, mul) >> shift)


@helper
def _fast_row(buf, base, c, plan, pad, zero, digits4, size):
    """Write row ``c`` of layout ``plan`` at ``buf[base:]``; return its length, or -1 (nothing
    written) for a row the fast path does not take (see :func:`_fill_row`).

    The row is ``[-] top [. frac]`` with ``top < 10**16`` and ``frac`` of ``s <= 16`` digits,
    written with 8-byte stores whose bytes past the text are zeros; ``pad`` stores of zeros
    from ``base + 9`` (made first) cover the rest of the row. The stores reach at most
    ``base + width + 8``. ``zero`` is 0 read from memory: a constant would let LLVM turn
    the padding loop into a call to ``memset`` for every row. ``size`` is the row's
    length when the caller knows it (:func:`plan_rows`), else -1: then ``top``'s digits
    are counted here.
    """
    a = _magnitude(c)
    if (a > plan.fits) | (plan.bad != _U64(0)):
        return -1
    m = _scaled((a + plan.half) >> plan.drop, plan.mul_k, plan.shift_k, plan.low_k)
    s = plan.scale
    top = _scaled(m >> s, plan.mul_s, plan.shift_s, plan.low_s)
    if top >= _P16:
        return -1
    frac = m - top * plan.pow10_s
    if pad > 0:  # most rows are narrow: no loop to enter
        store8(buf, base + 9, zero)
        if pad > 1:
            store8(buf, base + 17, zero)
            for j in range(2, pad):
                store8(buf, base + 9 + 8 * j, zero)
    buf[_U64(base)] = _MINUS  # kept only when the sign counts: the digits overwrite it otherwise
    neg = np.int64(c < _neg_below(plan.half))
    q = base + neg
    rest = size - neg - np.int64(plan.point) - np.int64(s)  # top's digits, if size is known
    if top < _P8:
        n = _digits8(top) if size < 0 else rest
        store8(buf, q, _ascii8(top, digits4) >> _U64(64 - 8 * n))
    else:
        hi = top // _P8
        n = _digits8(hi) + 8 if size < 0 else rest
        store8(buf, q, _ascii8(hi, digits4) >> _U64(128 - 8 * n))
        store8(buf, q + n - 8, _ascii8(top - hi * _P8, digits4))
    q += n
    buf[_U64(q)] = np.uint8(plan.dot)
    q += np.int64(plan.point)
    if s <= _U64(8):
        store8(buf, q, _ascii8(frac, digits4) >> plan.frac_shift)
    else:
        hi = frac // _P8
        store8(buf, q, _ascii8(hi, digits4) >> plan.frac_shift)
        store8(buf, q + np.int64(s) - 8, _ascii8(frac - hi * _P8, digits4))
    return q + np.int64(s) - base


@helper
def _neg_below(half):
    """The coefficients below which a row prints a sign: ``c < 0`` with ``M != 0``.

    ``M = (|c| + half) // 10**k`` is nonzero when ``|c| >= 10**k - half = half`` (``k > 0``),
    and ``M = |c| * 10**d`` when ``|c| >= 1`` (``k = 0``, ``half = 0``): ``c <= -max(half,
    1)``. One comparison with the coefficient as loaded, so the store addresses that follow
    the sign do not wait for the division (3-4 ns a row faster than testing ``M``).
    """
    return 1 - max(np.int64(half), 1)


@helper
def _lean_rows(i, stop, buf, width, coef, cstep, plan, nt, lengths, digits4, pow10, zero, short):
    """Write rows ``i, i + 1, ...`` (before ``stop``) of one layout while their integer part
    has ``nt`` (1..7) digits; return the first row not written.

    For layouts with ``k > 0`` digits dropped and ``1 <= s <= 7``. The text ``top . frac``
    then has a fixed length and is put together in two words, stored at ``base + neg`` and
    ``base + neg + 8`` with zeros past the text, so no store address waits on the row's
    digits (the sign is known from ``c`` alone). When ``width > 16``, zero stores from
    ``base + 16`` come first. ``short`` (a literal) says ``s <= 4``: the fraction is one
    table read. The stores reach ``base + 17 + 8 * _lean_pad(width)`` at most.
    """
    half, k, mk, shk = plan.half, plan.drop, plan.mul_k, plan.shift_k
    s, ms, shs, p10 = plan.scale, plan.mul_s, plan.shift_s, plan.pow10_s
    fs = plan.frac_shift
    below = _neg_below(half)
    lo = opaque(pow10[_U64(nt - 1)] * _U64(nt > 1))  # top has nt digits: lo <= top < hi
    hi = pow10[_U64(nt)]
    top_shift = _U64(64 - 8 * nt)
    low_shift = _U64(8 * nt)  # the point and the fraction follow the top's nt bytes
    size = nt + 1 + np.int64(s)
    npad = _lean_pad(width)
    while i < stop:
        c = coef[_U64(i * cstep)]
        m = mulhi((_magnitude(c) + half) >> k, mk) >> shk
        top = mulhi(m >> s, ms) >> shs
        if (top < lo) | (top >= hi):
            break
        base = i * width
        for j in range(npad):
            store8(buf, base + 16 + 8 * j, zero)
        neg = np.int64(c < below)
        buf[_U64(base)] = _MINUS  # overwritten by the digits when there is no sign
        q = base + neg
        frac = m - top * p10
        if short:  # one table read
            tail = _U64(_DOT) | ((_U64(digits4[frac]) >> (fs - _S32)) << _U64(8))
        else:
            tail = _U64(_DOT) | ((_ascii8(frac, digits4) >> fs) << _U64(8))
        store8(buf, q, (_ascii8(top, digits4) >> top_shift) | (tail << low_shift))
        store8(buf, q + 8, tail >> top_shift)
        lengths[_U64(i)] = size + neg
        i += 1
    return i


@helper
def _lean_pad(width):
    """Zero stores :func:`_lean_rows` makes a row: the bytes from ``base + 16`` on."""
    return max(width - 9, 0) // 8


#: After two runs of :func:`_lean_rows` in a row this short, the next rows skip it for a
#: while (integer parts whose digit count changes row to row would pay for two tries a
#: row). One short run does not: a lone outlier (a zero, a null row's placeholder) leaves
#: one, and the rows after it go back to the lean loop at once.
_LEAN_MIN = 4
_LEAN_PAUSE = 64


@kernel
def fill(start, stop, coef, cstep, exps, estep, scales, sstep, buf, width, lengths, tables):
    """Write rows ``start:stop`` and their ``lengths``; row ``i`` is ``buf[i*width:][:width]``.

    ``buf`` is the flat matrix, possibly followed by slack bytes; ``tables`` is
    :data:`TABLES` as a tuple. The caller has checked that every row fits ``width``.
    Unless ``estep`` and ``sstep`` are both 0, ``lengths`` must hold the rows' plans and
    lengths, as :func:`plan_rows` or :func:`plan_runs` writes them.

    A first pass writes the rows :func:`_fast_row` takes, in order, with 8-byte stores
    that spill into the next row before that row is written; it marks the others with
    length -1, and leaves the last rows of the range, where a spill would leave it. A
    second pass writes those byte by byte (:func:`_fill_row`), within their own rows. With
    one exponent and scale, runs of rows whose integer part keeps its digit count go
    through :func:`_lean_rows` in the first pass; with exponents and scales per row, so do
    runs of one layout, after their first ``_RUN`` rows (:func:`_mixed_rows`).
    """
    pow10, digits4, plans = tables[0], tables[5], tables[6]
    end, fast_stop, pad = _fast_bounds(start, stop, lengths.shape[0], buf.shape[0], width)
    zero = pow10[0] - _U64(1)  # 10**0 - 1, see _fast_row
    skipped = 0
    i = start
    while i < fast_stop:  # rows i:run of one exponent and scale go through _fill_layout
        run = fast_stop
        if estep != 0 or sstep != 0:  # the plans and lengths come from plan_rows
            i, run, missed = _mixed_rows(i, fast_stop, coef, cstep, buf, width, lengths, pad,
                                         zero, digits4, plans)  # fmt: skip
            skipped += missed
        if i < run:  # a loop of its own for one layout, so that the plan stays in registers
            e, s = np.int64(exps[_U64(i * estep)]), np.int64(scales[_U64(i * sstep)])
            skipped += _fill_layout(i, run, end, coef, cstep, e, s, buf, width, lengths, pad,
                                    zero, digits4, pow10, plans)  # fmt: skip
            i = run
    for i in range(start if skipped else fast_stop, stop):
        if i >= fast_stop or lengths[i] < 0:
            e = np.int64(exps[i * estep])
            s = np.int64(scales[i * sstep])
            lengths[i] = _fill_row(buf, i * width, width, coef[i * cstep], e, s, tables)


#: After this many rows in a row with one plan, :func:`_mixed_rows` hands the rest of the
#: run to :func:`_fill_layout` (tables sorted by instrument have long runs).
_RUN = 16


@helper
def _mixed_rows(i, stop, coef, cstep, buf, width, lengths, pad, zero, digits4, plans):
    """Write rows ``i, i + 1, ...`` (before ``stop``), each with its own plan and length from
    :func:`plan_rows` or :func:`plan_runs`, until ``_RUN`` rows in a row share a plan.

    Returns ``(first, run, skipped)``: rows ``first:run`` are the rest of that run (empty
    when ``stop`` came first), for :func:`_fill_layout`; ``skipped`` counts the rows left
    for :func:`fill`'s second pass.
    """
    skipped = 0
    same = 0
    last = np.int64(-1)
    while i < stop:
        known = np.int64(lengths[_U64(i)])
        j = known & _PLAN_MASK
        same = (same + 1) if j == last else 0
        last = j
        row = _plan(plans, _U64(j) * _U64(_PLAN_WORDS))
        size = known >> _PLAN_BITS
        if size == 0:  # never, as plan_runs counts runs as this does: else count here
            size = -1
        n = _fast_row(buf, i * width, coef[_U64(i * cstep)], row, pad, zero, digits4, size)
        lengths[_U64(i)] = n
        skipped += n < 0
        i += 1
        if same == _RUN - 1:  # a run: find where it ends
            run = i
            while run < stop and (np.int64(lengths[_U64(run)]) & _PLAN_MASK) == j:
                run += 1
            return i, run, skipped
    return i, i, skipped


@helper
def _fast_bounds(start, stop, rows, size, width):
    """``(end, fast_stop, pad)`` of :func:`fill` on rows ``start:stop`` of ``rows`` in a buffer
    of ``size`` bytes: stores may reach ``end``; rows before ``fast_stop`` may be written
    with stores that spill 8 bytes past the row (into the next row, or into the slack
    after the last one); ``pad`` is :func:`_fast_row`'s count of zero stores."""
    end = stop * width
    if stop == rows:
        end = size  # the slack after the last row may take spills
    fast_stop = start
    if width > 0:
        fast_stop = max(min(stop, (end - 8) // width), start)
    return end, fast_stop, max(width - 2, 0) // 8


@helper
def _fill_layout(start, fast_stop, end, coef, cstep, e, s, buf, width, lengths, pad, zero,
                 digits4, pow10, plans):  # fmt: skip
    """:func:`fill`'s first pass over rows ``start:fast_stop`` of one exponent and scale.

    After each row written by :func:`_fast_row`, the rows whose integer part has as many
    digits go through :func:`_lean_rows` (not near ``fast_stop``, where its stores would
    leave ``buf[:end]``). Returns how many rows were left for the second pass.
    """
    plan = _plan(plans, _plan_index(e, s))
    reach = 17 + 8 * _lean_pad(width)
    lean_stop = start
    lean = (plan.bad == _U64(0)) & (plan.low_k == _U64(0))
    lean &= (plan.scale >= _U64(1)) & (plan.scale <= _U64(7))
    if lean & (width > 0) & (end >= reach):
        lean_stop = max(min(fast_stop, (end - reach) // width + 1), start)
    below = _neg_below(plan.half)
    size = np.int64(plan.point) + np.int64(plan.scale)  # the length less top's digits
    short = plan.scale <= _U64(4)
    skipped = 0
    pause = start
    misses = 0  # lean runs in a row under _LEAN_MIN
    i = start
    while i < fast_stop:
        c = coef[_U64(i * cstep)]
        n = _fast_row(buf, i * width, c, plan, pad, zero, digits4, -1)
        lengths[_U64(i)] = n
        skipped += n < 0
        i += 1
        nt = n - np.int64(c < below) - size
        if (n >= 0) & (nt <= 7) & (i < lean_stop) & (i >= pause):
            was = i
            if short:
                i = _lean_rows(i, lean_stop, buf, width, coef, cstep, plan, nt, lengths,
                               digits4, pow10, zero, True)  # fmt: skip
            else:
                i = _lean_rows(i, lean_stop, buf, width, coef, cstep, plan, nt, lengths,
                               digits4, pow10, zero, False)  # fmt: skip
            misses = (misses + 1) if i - was < _LEAN_MIN else 0
            if misses == 2:
                pause, misses = i + _LEAN_PAUSE, 0
    return skipped


@kernel
def format_small(coef, e, s, buf, lengths, words, digits4):
    """Measure and fill the rows of ``coef`` under one exponent ``e`` and scale ``s``, in
    one call; return the width, the longest row.

    For a few rows, where calling a kernel costs more than its work: one call instead of
    :func:`measure` and :func:`fill`, and the tables as two arrays (:data:`WORDS` and
    ``digits4``) instead of a tuple. ``buf`` must hold ``len(coef)`` rows of the longest
    length any int64 can print under ``(e, s)``, plus 8 bytes; the rows are written at
    the returned width, ``buf[i * width:][:width]``.
    """
    pow10, fits, half = words[0:20], words[20:40], words[40:60]
    magic, shift, plans = words[60:80], words[80:100], words[_W_PLANS:]
    tables = (pow10, fits, half, magic, shift, digits4, plans)
    e, s = np.int64(e), np.int64(s)
    n = coef.shape[0]
    width = _measure_layout(0, n, coef, 1, e, s, lengths, _INT32_MAX, half, pow10)
    _, fast_stop, pad = _fast_bounds(0, n, n, buf.shape[0], width)
    zero = pow10[0] - _U64(1)  # 10**0 - 1, see _fast_row
    plan = _plan(plans, _plan_index(e, s))
    skipped = 0
    for i in range(fast_stop):  # no lean runs: a few rows, and a kernel that compiles faster
        size = _fast_row(buf, i * width, coef[i], plan, pad, zero, digits4, -1)
        lengths[i] = size
        skipped += size < 0
    for i in range(0 if skipped else fast_stop, n):
        if i >= fast_stop or lengths[i] < 0:
            lengths[i] = _fill_row(buf, i * width, width, coef[i], e, s, tables)
    return width
