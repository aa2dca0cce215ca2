"""The Numba kernels: round half away from zero, measure and write, a block of rows at a time.

A row is ``(c, e, s)``; its text is that of ``M`` followed by ``Z`` zeros, with a point
and a sign (:mod:`vecfix._kernels.rows` says how, and writes any row one at a time).

:func:`format_rows` works on blocks of :data:`~vecfix._tuning.BLOCK` rows held in small
staging arrays, in passes whose loops have no branches, so that LLVM turns them into vector
code:

1. **layout & round** (:func:`_layouts`, :func:`_round_one`, :func:`_round_rows`): each
   row's constants ``10**d``, ``10**k``, ``1 / 10**k`` and ``10**k / 2`` in float64,
   computed arithmetically from ``e`` and ``s`` (small-table gathers keep LLVM from
   vectorizing); then ``M`` and its 8-digit halves in float64 alone
   (:func:`_rounded_float`: a floor and a remainder fix-up), exact while ``|c| * 10**d +
   10**k / 2 < 2**52``. A block of one layout (a column's, or a run's) computes its
   constants once, for its first row, and keeps them in registers. Rows outside ``0 <= s
   <= 15``, ``-18 <= d <= 15`` (or ``d <= -20``, where ``M = 0``) are flagged *slow*; so
   are larger coefficients, unless they fill more than 1 row in 32 of the block: then the
   block goes through an integer pass (:func:`_round_int`: a float64 estimate with an
   integer ``±1`` fix-up, exact while ``M < 2**49``);
2. **digits** (:func:`_digits`, :func:`_compose`): ``M``'s two 8-digit halves (the
   rounding passes go from 64-bit to 32-bit lanes) as 16 ASCII digits (four 4-digit
   SWAR groups in uint32 lanes, 16 rows a vector) and its length, then the row's text in
   three little-endian words: leading zeros stripped, sign, point;
3. **place** (:func:`_place`): unaligned 8-byte stores of the words at each row's start
   (its matrix row, or, in Arrow's layout, where the row before ended); what spills past a
   row is overwritten by the rows written after it, or lands in slack bytes.

Slow rows then go through the one scalar row writer, :func:`~vecfix._kernels.rows._row_length`
and :func:`~vecfix._kernels.rows._write_row`, which take any int64 row, digit by digit (rows
beyond int64 never reach a kernel: the decimal fallback does them).
"""

from __future__ import annotations

import numpy as np

from .._jit import bits, double, funnel, helper, kernel, store8, target_has
from .._tuning import BLOCK
from .rows import _RUN, _magnitude, _row_length, _write_row

_U64 = np.uint64
_U32 = np.uint32
_I64 = np.int64
_ZERO = np.uint8(48)  # b"0"
_DOT = np.uint8(46)  # b"."
_MINUS = np.uint8(45)  # b"-"
_ASCII4 = _U32(0x30303030)
_TWO49 = float(2**49)
_ONES = ~np.uint64(0)  # all 64 bits set; masks are _ONES * flag (nothing wraps)
_EXP52 = np.uint64(0x4330000000000000)  # the bits of 2.0**52
#: Whether uint64 -> float64 is one instruction on the target (AVX-512DQ's vcvtuqq2pd);
#: without it :func:`_as_double` converts two exact halves (AVX2 and SSE2 have no such
#: instruction). Both give the same double.
_NATIVE_CONVERT = target_has("avx512dq")
_TWO52 = 2.0**52


@helper
def _to_double(x):
    """The uint64 ``x < 2**52`` as float64, exactly: its bits under 2**52's exponent."""
    return double(x | _EXP52) - _TWO52


@helper
def _to_int(x):
    """The float64 ``0 <= x < 2**51`` rounded to the nearest integer, as uint64."""
    return bits(x + _TWO52) ^ _EXP52


#: Rows of the staging arrays (see :func:`scratch`): uint64, float64 and uint32 ones.
_W0, _W1, _W2, _AT = range(4)
_PF, _HF, _RD, _DF = range(4)
_E, _SC, _S, _FAST, _HI, _LO, _SG, _LEN, _G0, _G1, _G2, _G3 = range(12)


def scratch(block: int = BLOCK) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The staging arrays :func:`format_rows` works in: one set per thread.

    They hold the layout constants of exponent 0 and scale 0 in every column, as
    :func:`_layouts` would write them: the kernel recomputes a column's constants only
    when its exponent or scale changes.
    """
    wide = np.zeros((4, block), dtype=np.uint64)
    real = np.zeros((4, block), dtype=np.float64)
    narrow = np.zeros((12, block), dtype=np.uint32)
    real[_PF], real[_RD], real[_DF] = 1.0, 1.0, 1.0
    return wide, real, narrow


# --- the block passes ---------------------------------------------------------------------


@helper
def _pow10f(k):
    """``10.0**k`` for ``0 <= k < 32`` (exact up to 22), with selects: no table, no loop."""
    p = 10.0 if k & 1 else 1.0
    p *= 100.0 if k & 2 else 1.0
    p *= 1e4 if k & 4 else 1.0
    p *= 1e8 if k & 8 else 1.0
    return p * (1e16 if k & 16 else 1.0)


@helper
def _fits(d, s):
    """Whether the block passes may take layout ``d = e + s``, ``s`` (int64s)."""
    return (s >= 0) & (s <= 15) & (((d >= -18) & (d <= 15)) | (d <= -20))


@helper
def _layout_floats(e, s):
    """``(P, H, 1 / D, D)`` of layout ``(e, s)`` in float64 (see :func:`_layouts`)."""
    d = _I64(e) + _I64(s)
    power = _pow10f(min(abs(d), 18))  # 10**d or 10**k: one of them is 1
    p = power if d >= 0 else (1.0 if d > -20 else 0.0)
    q = 1.0 if d >= 0 else power
    h = q * (0.5 if (d < 0) & (d > -20) else 0.0)
    return p, (h if _fits(d, _I64(s)) else _TWO52), 1.0 / q, q


@kernel
def _layouts(nb, wide, real, narrow):
    """The constants of each row's layout ``(e, s)`` (rows ``E`` and ``SC`` of ``narrow``,
    as uint32), in float64: ``P = 10**max(d, 0)`` (0 when ``d <= -20``: every digit is
    dropped), ``D = 10**k``, ``1 / D``, ``H = D / 2`` (0 for ``k = 0`` and ``d <= -20``;
    ``2**52`` for a layout the block passes cannot take, so that no row of it passes
    :func:`_rounded_float`'s test), and the scale ``s``. One loop, vectorized."""
    exps, scales = narrow[_E], narrow[_SC]
    pf, hf, rd, df, sc = real[_PF], real[_HF], real[_RD], real[_DF], narrow[_S]
    for j in range(nb):
        s = np.int32(scales[j])
        pf[j], hf[j], rd[j], df[j] = _layout_floats(np.int32(exps[j]), s)
        sc[j] = _U32(s)


@helper
def _as_double_native(a):
    """The uint64 ``a`` as float64, rounded once: one instruction with AVX-512DQ."""
    return np.float64(a)


@helper
def _as_double_halves(a):
    """:func:`_as_double_native` for targets without AVX-512DQ: its two 32-bit halves
    converted exactly (:func:`_to_double`) and added (one rounding)."""
    return _to_double(a >> _U64(32)) * 4294967296.0 + _to_double(a & _U64(0xFFFFFFFF))


#: The uint64 -> float64 conversion for the target (chosen once, not by a branch in a
#: helper).
_as_double = _as_double_native if _NATIVE_CONVERT else _as_double_halves


@helper
def _halves(m):
    """``M < 2**51`` as 8-digit halves ``(hi, lo)`` in uint32 (a float64 divide and a
    fix-up)."""
    hi = _U32(_to_int(_to_double(m) * 1e-8))
    lo = np.int32(_I64(m) - _I64(hi) * 100_000_000)  # in (-1e8, 1e8]: int32 lanes
    under = lo < np.int32(0)
    hi = _U32(hi - _U32(under))
    lo = np.int32(lo + (np.int32(100_000_000) if under else np.int32(0)))
    over = lo >= np.int32(100_000_000)
    hi = _U32(hi + _U32(over))
    return hi, _U32(lo - (np.int32(100_000_000) if over else np.int32(0)))


@helper
def _small_double(a):
    """The uint64 ``a`` as float64: exact below ``2**52``; above, ``2**52`` or more with
    AVX-512DQ's conversion (rounding is monotonic), else ``2**52 - 1`` (so that
    :func:`_rounded_float` tests ``x < 2**52 - 1`` there)."""
    return np.float64(a) if _NATIVE_CONVERT else _to_double(min(a, _U64(2**52 - 1)))


@helper
def _rounded_float(c, pf, hf, rd, df):
    """``(HI, LO, ok)`` of one row: ``M``'s 8-digit halves, in float64 only.

    ``x = |c| * P + H`` is exact in float64 while it is below ``2**52`` (``ok``, or below
    ``2**52 - 1`` without AVX-512DQ: see :func:`_small_double`; rounding is monotonic, so
    a larger ``x`` is never computed below it), and so is every product
    below (and ``M < 2**52``: 16 digits at most). ``floor(x * (1 / D))`` is the quotient
    or one less (its error is below ``1 / D``, a fraction's smallest step), and the
    remainder ``x - q * D`` fixes it up. ``floor(M * 1e-8)`` needs no fix-up: the double
    nearest ``1e-8`` is above it, and the error is below ``1e-8``. Where not ``ok`` the
    halves are 0.
    """
    a = _magnitude(c)
    x = _small_double(a) * pf + hf
    ok = x < (_TWO52 if _NATIVE_CONVERT else _TWO52 - 1.0)  # see _small_double
    q = np.floor(x * rd)
    q = q + (1.0 if x - q * df >= df else 0.0)
    q = q if ok else 0.0
    hi = np.floor(q * 1e-8)
    return _U32(np.int32(hi)), _U32(np.int32(q - hi * 1e8)), ok


@kernel
def _round_int(coef, nb, wide, real, narrow):
    """``M`` of each row of a block as halves ``HI``, ``LO``, and its sign, for rows whose
    coefficients are too large for :func:`_rounded_float`; return how many rows are slow
    (their halves are left 0, their ``FAST`` 0).

    ``(|c| * P + H) / D`` in float64, rounded to an integer, is the exact quotient or one
    more while it is below ``2**49`` (at most four roundings of relative size ``2**-53``
    move it by less than 0.25); the remainder ``|c| * P + H - q * D`` in uint64
    (compared, not computed: nothing wraps) fixes it up. The constants are
    :func:`_layouts`' (``H = 2**52`` marks a layout the block passes cannot take).
    """
    pf, hf, rd, df = real[_PF], real[_HF], real[_RD], real[_DF]
    his, los, sg, fast = narrow[_HI], narrow[_LO], narrow[_SG], narrow[_FAST]
    slow = 0
    for j in range(nb):
        c = coef[j]
        a = _magnitude(c)
        qf = (_as_double(a) * pf[j] + hf[j]) * rd[j]
        ok = (hf[j] != _TWO52) & (qf < _TWO49)
        q = _to_int(qf if ok else 0.0)  # within one of the quotient, like trunc(qf)
        d = _U64(df[j])
        t = (a if ok else _U64(0)) * _U64(pf[j]) + _U64(hf[j])  # < 2**64, as is q * d + d
        qd = q * d
        q = q + _U64(t >= qd + d) - _U64(t < qd)
        his[j], los[j] = _halves(q if ok else _U64(0))
        sg[j] = _U32((c < 0) & ok & (q != _U64(0)))
        fast[j] = _U32(ok)
        slow += _I64(not ok)
    return slow


@helper
def _rounded_row(j, c, pf, hf, rd, df, narrow):
    """Row ``j``'s halves, sign and ``FAST`` flag (:func:`_rounded_float`); 1 if slow."""
    hi, lo, ok = _rounded_float(c, pf, hf, rd, df)
    narrow[_HI, j], narrow[_LO, j] = hi, lo
    narrow[_SG, j] = _U32((c < 0) & ((hi | lo) != _U32(0)))
    narrow[_FAST, j] = _U32(ok)
    return _I64(not ok)


@kernel
def _round_one(coef, nb, wide, real, narrow):
    """``M`` of each row of a block of one layout (a column's, or a run's: the staged
    constants of row 0 for every row) as halves ``HI``, ``LO``, and its sign, in float64
    (:func:`_rounded_float`), the constants in registers; return how many rows are slow
    (too large for it, or a layout it cannot take: their halves are 0, their ``FAST``
    0; :func:`_rounded_block` takes the block through :func:`_round_int` if there are
    many)."""
    pf, hf, rd, df = real[_PF, 0], real[_HF, 0], real[_RD, 0], real[_DF, 0]
    slow = 0
    for j in range(nb):
        slow += _rounded_row(j, coef[j], pf, hf, rd, df, narrow)
    return slow


@kernel
def _round_rows(coef, nb, wide, real, narrow):
    """:func:`_round_one` for a block of many layouts: each row's staged constants. Return
    how many rows are slow, and how many of those are in layouts the passes take (their
    coefficients too large for float64: :func:`_round_int` may take them)."""
    pf, hf, rd, df = real[_PF], real[_HF], real[_RD], real[_DF]
    slow = 0
    large = 0  # slow rows in layouts the block passes take: coefficients too large
    for j in range(nb):
        out = _rounded_row(j, coef[j], pf[j], hf[j], rd[j], df[j], narrow)
        slow += out
        large += out & _I64(hf[j] != _TWO52)
    return slow, large


@helper
def _digits8(x):
    """Digits of ``x < 10**8`` (1 for 0), by signed comparisons in int32 lanes (AVX2 has
    no unsigned ones)."""
    x = np.int32(x)
    n = np.int32(np.int32(1) + np.int32(x >= np.int32(10)))
    n = np.int32(n + np.int32(x >= np.int32(100)))
    n = np.int32(n + np.int32(x >= np.int32(1000)))
    n = np.int32(n + np.int32(x >= np.int32(10_000)))
    n = np.int32(n + np.int32(x >= np.int32(100_000)))
    n = np.int32(n + np.int32(x >= np.int32(1_000_000)))
    return np.int32(n + np.int32(x >= np.int32(10_000_000)))


@helper
def _ascii4(g):
    """The four ASCII digits of ``g < 10**4`` in a uint32, the first in the low byte
    (Khuong's SWAR method: two digits a 16-bit half, then one digit a byte)."""
    g = _U32(g)
    top = _U32(_U32(g * _U32(10486)) >> _U32(20))  # g // 100
    pairs = _U32(_U32(_U32(g - _U32(100) * top) << _U32(16)) + top)
    tens = _U32(_U32(_U32(pairs * _U32(103)) >> _U32(10)) & _U32(0x000F000F))  # each half // 10
    tens = _U32(tens + _U32(_U32(pairs - _U32(10) * tens) << _U32(8)))
    return _U32(tens + _ASCII4)


@helper
def _shl(x, n):
    """``x << n`` for a uint64 and any int64 ``n``: 0 unless ``0 <= n < 64``."""
    return x << _U64(n) if _U64(n) < _U64(64) else _U64(0)  # one vpsllvq


@helper
def _low_bytes(n):
    """A mask of the low ``n`` bytes of a word, for any int64 ``n``."""
    return _ONES if n >= 8 else _shl(_U64(1), 8 * max(n, 0)) - _U64(1)


@kernel
def _digits(nb, narrow):
    """``M``'s 16 ASCII digits as four 4-digit groups ``G0..G3`` and the row's length
    ``LEN``, in uint32 lanes only (16 rows a vector)."""
    his, los, sc, signs, size = narrow[_HI], narrow[_LO], narrow[_S], narrow[_SG], narrow[_LEN]
    g0, g1, g2, g3 = narrow[_G0], narrow[_G1], narrow[_G2], narrow[_G3]
    for j in range(nb):
        hi, lo = his[j], los[j]
        top, bottom = _U32(hi // _U32(10_000)), _U32(lo // _U32(10_000))
        g0[j] = _ascii4(top)
        g1[j] = _ascii4(_U32(hi - top * _U32(10_000)))
        g2[j] = _ascii4(bottom)
        g3[j] = _ascii4(_U32(lo - bottom * _U32(10_000)))
        big = hi != _U32(0)
        nd = _digits8(hi if big else lo) + (np.int32(8) if big else np.int32(0))
        nd = nd if big | (lo != _U32(0)) else np.int32(0)  # M = 0 has no digits
        s = np.int32(sc[j])
        body = max(nd, s + np.int32(1))  # _text_length, in int32 lanes
        size[j] = _U32(body + np.int32(s > np.int32(0)) + np.int32(signs[j]))


@kernel
def _compose(nb, wide, narrow):
    """Each row's text in three little-endian words ``W0 W1 W2`` (zeros past the text).

    ``M``'s 16 digits ``A B`` lose their ``16 - L`` leading zeros (``L``: digits printed),
    the bytes from the ``L - s``-th on move up one for the point, and everything moves up
    one more for the sign.
    """
    g0, g1, g2, g3 = narrow[_G0], narrow[_G1], narrow[_G2], narrow[_G3]
    sc, signs, size = narrow[_S], narrow[_SG], narrow[_LEN]
    w0, w1, w2 = wide[_W0], wide[_W1], wide[_W2]
    for j in range(nb):
        a = _U64(g0[j]) | (_U64(g1[j]) << _U64(32))
        b = _U64(g2[j]) | (_U64(g3[j]) << _U64(32))
        s = _I64(sc[j])
        sg = _I64(signs[j])
        point = _I64(s > 0)
        digits = _I64(size[j]) - sg - point  # L
        skip = 8 * (16 - digits)  # bits to drop: 0..120, as one 128-bit shift
        far = skip >= 64  # shifts below stay under 64 bits: no out-of-range selects
        low, high = (b, _U64(0)) if far else (a, b)
        sh = _U64(skip & 63)
        e0 = (low >> sh) | ((high << _U64(1)) << (_U64(63) - sh))
        e1 = high >> sh
        i = digits - s  # bytes before the point: 1..16
        m0, m1 = _low_bytes(i), _low_bytes(i - 8)
        h0, h1 = e0 & ~m0, e1 & ~m1  # the fraction, moved up one byte for the point
        dot = _U64(_DOT) * _U64(point)
        p0 = (e0 & m0) | (h0 << _U64(8)) | _shl(dot, 8 * i)
        p1 = (e1 & m1) | (h1 << _U64(8)) | (h0 >> _U64(56)) | _shl(dot, 8 * i - 64)
        p2 = h1 >> _U64(56)  # the 17th byte (16 digits and a point)
        up = _U64(8 * sg)  # everything up a byte for the sign, "-" in front
        w0[j] = funnel(p0, _U64(_MINUS) << _U64(56), up)
        w1[j] = funnel(p1, p0, up)
        w2[j] = funnel(p2, p1, up)


#: ``mode`` of :func:`format_rows`.
FILL, MEASURE, PACK, PACK_AT = 0, 1, 2, 3
#: A flag added to :data:`FILL` or :data:`PACK`: ``lengths`` holds, at the first row of
#: each stretch of :data:`_RUN` rows from ``start``, :func:`widest_of_layouts`' hint for
#: the stretch (its layout's slot when its rows share one, else -1), written by a call
#: over the same rows ``start:stop``, so that a block whose stretches share a slot does
#: not read its exponents and scales (a snapshot grouped by instrument: its scales are
#: read once, not twice).
HINTED = 8


@kernel
def _place(buf, nb, fast, width, zero, wide, narrow, mode, start):
    """Store each row's words at its start in ``buf``, ``ceil(width / 8)`` words: row
    ``j`` of a matrix at ``start + j * width``; in Arrow's layout (``mode`` :data:`PACK`
    or :data:`PACK_AT`) right after the row before, from ``start`` on (``AT`` holds the
    same starts, which the rows written byte by byte take).

    The first ``fast`` rows with unaligned 8-byte stores that may spill up to
    ``8 * ceil(width / 8) - 1`` bytes past the row's text (over rows written after it, or
    slack bytes); the rest byte by byte: ``width`` bytes (zero-padded), or in Arrow's
    layout the text's ``LEN`` bytes only (and the fast rows' three words: a block row's
    text is at most 18 bytes). ``zero`` is 0 read from memory, so that LLVM does not turn
    the zero stores into ``memset`` calls. Starts are computed where they can be rather
    than loaded: a load after the stores into ``buf`` waits on them (a matrix row 0.74 ->
    0.41 ns, an Arrow row 0.78 -> 0.59).
    """
    packed = mode >= PACK
    nw = min((width + 7) // 8, 3) if packed else (width + 7) // 8  # no padding to write
    at, size = wide[_AT], narrow[_LEN]
    pos = start  # (Arrow's layout: each row where the one before ends)
    for j in range(fast):  # the stores written out: an inlined helper taking the arrays
        base = pos if packed else start + j * width  # cost reference counts a row (3x)
        store8(buf, base, wide[_W0, j])
        if nw > 1:
            store8(buf, base + 8, wide[_W1, j])
            if nw > 2:
                store8(buf, base + 16, wide[_W2, j])
                for t in range(3, nw):
                    store8(buf, base + 8 * t, zero)
        pos += _I64(size[j])
    for j in range(fast, nb):
        base = _I64(at[j]) if packed else start + j * width
        for t in range(_I64(size[j]) if packed else width):
            word = wide[_W0 + t // 8, j] if t < 24 else zero
            buf[base + t] = np.uint8((word >> _U64(8 * (t % 8))) & _U64(0xFF))


@helper
def _phase(phase, width, widest, mode):
    """The width and mode of pass ``phase`` of a ``format_rows`` call (this module's, the
    row kernel's, the cold one's): with no width (below 0), pass 0 measures and pass 1
    writes at the widest row's width; else the one pass writes at ``width``. The mode
    comes without the :data:`HINTED` flag."""
    if width >= 0:
        return width, _I64(mode % HINTED)
    return (widest, _I64(mode % HINTED)) if phase == 1 else (width, _I64(MEASURE))


@helper
def _slow_rows(nb, fast_rows, slow_rows):
    """List the rows of a block whose ``FAST`` is 0 in ``slow_rows``, in order: a group
    of 16 rows is listed (without a branch) only when the sum of its flags says that a
    row in it is slow. (One branch-free loop over every row cost 430 ns a block with
    a slow row, 0.4 ns a row on the ``prices`` mix, whose blocks hold 3 or 4 each; groups
    of 16: 140 ns, of 64: 220.)"""
    r = 0
    whole = nb - nb % 16
    for g in range(0, whole, 16):
        flags = _U32(0)
        for j in range(16):
            flags += fast_rows[g + j]
        if flags != _U32(16):
            for j in range(g, g + 16):
                slow_rows[r] = _U32(j)
                r += _I64(fast_rows[j] == _U32(0))
    for j in range(whole, nb):
        slow_rows[r] = _U32(j)
        r += _I64(fast_rows[j] == _U32(0))


@helper
def _rounded_block(coef, nb, changed, one_layout, partial, wide, real, narrow):
    """The staged constants (if ``changed``), then ``M`` of each row of the block as
    halves ``HI``, ``LO``: in float64, :func:`_round_one` for a block of ``one_layout``,
    else :func:`_round_rows`; when that leaves more than 1 row in 32 slow (coefficients
    of ``2**52`` and more, which real columns hold in whole runs), in integers
    (:func:`_round_int`). Return the slow rows' count and whether only row 0 of the
    constants is up to date (``partial``)."""
    if one_layout:  # the constants of row 0, and every row's scale
        if changed:
            # _I64(1): one signature of _layouts (a literal 1 compiles a second one)
            _layouts(_I64(1), wide, real, narrow)
            scale = narrow[_S]
            for j in range(1, nb):
                scale[j] = scale[0]
            partial = True
        slow = _round_one(coef, nb, wide, real, narrow)
        if slow <= nb // 32 or real[_HF, 0] == _TWO52:  # (a layout no pass can take)
            return slow, partial
        # many coefficients too large for float64: the integer pass
    if changed or partial:  # every row's constants
        _layouts(nb, wide, real, narrow)
        partial = False
    if not one_layout:
        slow, large = _round_rows(coef, nb, wide, real, narrow)
        if large <= nb // 32:
            return slow, partial
    return _round_int(coef, nb, wide, real, narrow), partial


@helper
def _stage_layouts(exps, estep, scales, sstep, nb, narrow):
    """Copy the block's exponents and scales (``exps[j * estep]``, a step of 0 or 1) into
    ``E`` and ``SC``; return whether any changed (one layout, or runs of layouts longer than
    a block, keep the staged constants) and whether the block has one layout."""
    e_changed, e_one = _stage(exps, estep, nb, narrow[_E])
    s_changed, s_one = _stage(scales, sstep, nb, narrow[_SC])
    return e_changed | s_changed, e_one & s_one


@helper
def _stage(values, step, nb, staged):
    """Copy ``values[j * step]`` (``step`` 0 or 1) into ``staged`` as uint32; return
    whether any changed and whether they are one value. Vectorized loops."""
    changed = _U32(0)
    differ = _U32(0)
    if step == 0:
        v = _U32(values[0])
        for j in range(nb):
            changed |= staged[j] ^ v
            staged[j] = v
    else:
        first = _U32(values[0])
        for j in range(nb):
            v = _U32(values[j])
            changed |= staged[j] ^ v
            differ |= v ^ first
            staged[j] = v
    return changed != _U32(0), differ == _U32(0)


# --- a few rows of one layout: one scalar pass ----------------------------------------------


@kernel("i64 i64 i64[]r i64 i32[]r i64 i32[]r i64 u8[] i64 i32[] i64 i64 u64[,] f64[,] u32[,]")
def format_rows(start, stop, coef, cstep, exps, estep, scales, sstep, buf, width, lengths,
                limit, mode, wide, real, narrow):  # fmt: skip
    """Measure or write rows ``start:stop``; return ``(widest, first)``.

    ``coef`` holds a coefficient a row (or one, for one row; ``cstep`` is not read);
    ``exps`` and ``scales`` one a row (step 1) or one for every row (step 0). ``lengths``
    has a slot for each row from row 0 of these arrays to the last one of the column (so
    ``stop == len(lengths)`` says that the slack after the rows may take spills).
    ``wide``, ``real``, ``narrow``: the staging arrays (:func:`scratch`). ``mode``:

    :data:`MEASURE`
        Nothing is written but the lengths: ``widest`` is the longest row within
        ``limit`` and ``first`` the first row beyond it (-1 if none), whose length is set
        to 0.
    :data:`FILL`
        Row ``i`` is written at ``buf[i * width:][:width]``, zero-padded, and its length
        in ``lengths[i]`` (``first`` is -1); the caller has checked that every row fits.
        A ``width`` below 0 means the widest row's: the rows are measured first (a few
        rows, in one call; ``buf`` must then hold rows as long as any row can be, and
        ``limit`` must not be exceeded).
    :data:`PACK`
        Arrow's layout: the rows' text back to back from ``buf[start * width]`` on, no
        padding, and ``lengths[i]`` the offset in ``buf`` where row ``i`` ends. ``width``
        is at least the widest row, so the text stays within ``buf[start * width:stop *
        width]``.
    :data:`PACK_AT`
        As :data:`PACK`, at offsets the caller has measured: ``lengths[i]`` holds where
        row ``i`` ends (Arrow's ``offsets[1:]``) and keeps it. The text takes its own size
        whatever the widest row.
    """
    widest = 0
    first = -1
    # hints in lengths: FILL or PACK only (PACK_AT's lengths are the caller's ends), one
    # pass only (a measuring pass would overwrite them)
    hinted = ((mode == FILL + HINTED) | (mode == PACK + HINTED)) & (width >= 0)
    hinted &= wide.shape[1] % _RUN == 0
    # Each pass over rows start:stop, a block at a time, is written out here rather than
    # as a helper: Numba inlines a helper by copying its IR block by block, each copy with
    # every variable of the helper's scope, which cost this kernel 0.4 s of its 3.9 s of
    # compile (10%, the same code after).
    for phase in range(2 if width < 0 else 1):
        width, now = _phase(phase, width, widest, mode)
        block = wide.shape[1]
        measure, packed, given = now == MEASURE, now >= PACK, now == PACK_AT
        widest = 0
        first = -1
        cap = max(limit, 0) + 1
        nw = min((width + 7) // 8, 3) if packed else (width + 7) // 8  # words a fast row stores
        end = buf.shape[0]
        if stop < lengths.shape[0]:
            end = _I64(lengths[stop - 1]) if given else stop * width
        room = end - 8 * nw  # a row starting at or before this may spill
        zero = _U64(cap >> 62)  # 0, unknown to LLVM (see _place)
        at, fast_rows, size, slow_rows = wide[_AT], narrow[_FAST], narrow[_LEN], narrow[_HI]
        pos = start * width  # PACK: where the next row starts
        # whether only row 0 of the staged constants may be up to date (a call before may
        # have left the others stale: its last block of one layout computed row 0's alone)
        partial = True
        i0 = start
        while i0 < stop:
            nb = min(block, stop - i0)
            known = _I64(-1)  # the block's layout slot, when its hints agree on one
            # With hints, a block ends where they change: the stretches of one layout
            # around a run's end keep the one-layout passes, and only the stretch that
            # holds the end takes the per-row ones (a snapshot grouped by instrument:
            # 1.16-1.27x -> 1.13-1.21x the same rows at one scale, 1 and 2 threads).
            if hinted:
                known = _I64(lengths[i0])
                for g in range(i0 + _RUN, i0 + nb, _RUN):
                    if _I64(lengths[g]) != known:
                        nb = g - i0
                        break
            if known >= 0:  # one layout, known: its exponents and scales are not read
                s1 = known % 16  # (written out here: an inlined helper compiles slower)
                ve, vs = _U32(np.int32(known // 16 - 20 - s1)), _U32(np.int32(s1))
                staged_e, staged_s = narrow[_E], narrow[_SC]
                moved = _U32(0)
                for j in range(nb):
                    moved |= (staged_e[j] ^ ve) | (staged_s[j] ^ vs)
                    staged_e[j] = ve
                    staged_s[j] = vs
                changed, one_layout = moved != _U32(0), True
            else:
                es, ss = exps[i0 * estep :], scales[i0 * sstep :]
                changed, one_layout = _stage_layouts(es, estep, ss, sstep, nb, narrow)
            slow, partial = _rounded_block(coef[i0 : i0 + nb], nb, changed, one_layout,
                                           partial, wide, real, narrow)  # fmt: skip
            _digits(nb, narrow)
            if slow:  # the general path's rows (listed in HI, free once the digits are out)
                _slow_rows(nb, fast_rows, slow_rows)
                for r in range(slow if measure or packed else 0):  # (a matrix: as written)
                    j = _I64(slow_rows[r])
                    i = i0 + j
                    c, e, s = coef[i], _I64(exps[i * estep]), _I64(scales[i * sstep])
                    size[j] = _U32(min(_row_length(c, e, s), cap))
            if not measure:
                _compose(nb, wide, narrow)
                fast = nb
                if packed:
                    for j in range(nb):
                        if given:
                            pos = _I64(lengths[i0 + j]) - _I64(size[j])
                        at[j] = _U64(pos)
                        pos += _I64(size[j])
                    while fast > 0 and _I64(at[fast - 1]) > room:
                        fast -= 1
                else:
                    fast = min(max(room // max(width, 1) + 1 - i0, 0), nb)
                first_byte = _I64(at[0]) if packed else i0 * width
                _place(buf, nb, fast, width, zero, wide, narrow, now, first_byte)
                for r in range(slow):
                    j = _I64(slow_rows[r])
                    i = i0 + j
                    c, e, s = coef[i], _I64(exps[i * estep]), _I64(scales[i * sstep])
                    if packed:
                        _write_row(buf, _I64(at[j]), _I64(size[j]), c, e, s)
                    else:  # its length too: the words placed for it were a placeholder's
                        size[j] = _U32(min(_write_row(buf, i * width, width, c, e, s), cap))
            out = lengths[i0 : i0 + nb]
            top = 0
            for j in range(nb):
                out[j] = size[j] + at[j] if packed else size[j]
                top = max(top, _I64(size[j]))
            if top > limit:  # rare (measuring only): rows beyond the limit get length 0
                top = 0
                for j in range(nb):
                    if out[j] > limit:
                        first = i0 + j if first < 0 else first
                        out[j] = 0
                    top = max(top, _I64(out[j]))
            widest = max(widest, top)
            i0 += nb
    return widest, first
