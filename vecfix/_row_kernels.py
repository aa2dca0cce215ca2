"""A row-at-a-time twin of :func:`vecfix._kernels.format_rows`, for CPUs without AVX2.

The block kernel's passes are written for vector units: on a CPU that LLVM compiles for
without AVX2 (``NUMBA_CPU_NAME=generic``: SSE2 only) they stay scalar and run 3-4x slower
than a plain loop over rows. :func:`format_rows` here is that plain loop, with the same
arguments, contract and result, so that :mod:`vecfix._format` can run either
(:func:`vecfix._format._row_kernel` chooses).

A row ``(c, e, s)`` (see :mod:`vecfix._kernels` for ``M``, ``d = e + s`` and ``k = -d``)
is taken here when ``0 <= s <= 15`` and either ``-18 <= d <= 15`` with ``M < 10**16``, or
``d <= -20`` (``M = 0``). Then, in registers (:func:`_rows`; a layout's constants are
recomputed only where the exponent or the scale changes):

* ``M = (|c| + 10**k // 2) // 10**k`` by a multiply with the reciprocal of ``10**k``
  (:data:`MAGIC`, :func:`mulhi`), or ``M = |c| * 10**d``;
* digits four at a time from a table (:data:`DIGITS4`), the first in the low byte of a
  word;
* unaligned 8-byte stores at the row's start, which may spill a few bytes into the next
  row before it is written (never past ``stop``'s row, nor past the buffer: the last rows
  are written byte by byte).

Rows with ``1 <= s <= 7`` decimals and digits dropped go through :func:`_lean_rows` in
runs whose integer part keeps its digit count (PRICE9 prices: two stores a row, no digit
counting); other rows with decimals and an integer part below ``10**7`` through
:func:`_split_row` (three stores); the rest the layout takes through :func:`_compose`
(the text's words: leading zeros shifted out, the point inserted, the sign in front).

Other rows go through :mod:`vecfix._kernels`' general path (``_row_length``,
``_write_row``). Nothing here wraps around, so the plain-Python twins
(``NUMBA_DISABLE_JIT=1``) raise no overflow warnings.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from ._jit import helper, kernel, store8
from ._kernels import _phase, _row_length, _write_row

_U64 = np.uint64
_I64 = np.int64
_DOT = _U64(46)  # b"."
_MINUS = _U64(45)  # b"-"
#: ``mode`` of :func:`format_rows`, as :mod:`vecfix._kernels` numbers them.
FILL, MEASURE, PACK, PACK_AT = 0, 1, 2, 3

_E7 = _U64(10_000_000)
_E8 = _U64(100_000_000)
_E16 = _U64(10**16)
_ONES = ~_U64(0)


def _mulhi_python(a, b):
    """Pure-Python ``mulhi`` for ``NUMBA_DISABLE_JIT=1``."""
    return np.uint64((int(a) * int(b)) >> 64)


@intrinsic
def _mulhi_intrinsic(typingctx, a, b):
    """High 64 bits of the 128-bit product of two uint64 (one ``mul`` instruction)."""
    if a != types.uint64 or b != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return types.uint64(a, b), codegen


#: ``mulhi(a, b)``: the high 64 bits of ``a * b`` for two uint64.
mulhi = _mulhi_python if numba.config.DISABLE_JIT else _mulhi_intrinsic  # type: ignore[attr-defined]


def _reciprocals() -> tuple[np.ndarray, np.ndarray]:
    """``MAGIC[k]``, ``SHIFT[k]`` with ``x // 10**k == mulhi(x >> k, MAGIC[k]) >> SHIFT[k]``
    for every uint64 ``x`` and ``1 <= k <= 19`` (Granlund & Montgomery 1994, theorem 4.2:
    ``x >> k`` has ``n = 64 - k`` bits, ``2**(l-1) < 5**k < 2**l`` and ``m = ceil(2**(n +
    l) / 5**k) < 2**64``); each is checked here."""
    magic = np.zeros(20, dtype=np.uint64)
    shift = np.zeros(20, dtype=np.uint64)
    for k in range(1, 20):
        d, n = 5**k, 64 - k
        bits = d.bit_length()
        m = -(-(1 << (n + bits)) // d)
        assert m < 1 << 64 and m * d - (1 << (n + bits)) <= 1 << bits
        magic[k], shift[k] = m, bits - k
    magic.flags.writeable = shift.flags.writeable = False
    return magic, shift


#: The reciprocals of :func:`_reciprocals`, constants of the compiled code.
MAGIC, SHIFT = _reciprocals()


@helper
def _div10(x, k):
    """``x // 10**k`` for a uint64 ``x`` and ``1 <= k <= 19``, by a multiply."""
    return mulhi(x >> _U64(k), MAGIC[k]) >> SHIFT[k]


#: ``10**k`` for ``0 <= k <= 19``, a constant of the compiled code.
POW10 = np.array([10**k for k in range(20)], dtype=np.uint64)
POW10.flags.writeable = False


@helper
def _pow10(k):
    """``10**k`` as uint64 for ``0 <= k <= 19``, by at most five multiplies (once a lean
    run; where layouts change row to row, :data:`POW10` is read instead)."""
    p = _U64(10) if k & 1 else _U64(1)
    p *= _U64(100) if k & 2 else _U64(1)
    p *= _U64(10_000) if k & 4 else _U64(1)
    p *= _E8 if k & 8 else _U64(1)
    return p * (_E16 if k & 16 else _U64(1))


@helper
def _layout(e, s):
    """The constants of layout ``(e, s)``: ``(ok, mul, k, half, most)``, without a division.

    ``ok``: whether :func:`format_rows` takes the layout. Its rows have ``M = |c| * mul``
    when ``k`` is 0 (taken when ``|c| <= most``, so that ``M < 10**16``), else ``M = (|c|
    + half) // 10**k``. ``d <= -20`` gives ``mul = 0``: every digit is dropped.
    """
    d = _I64(e) + _I64(s)
    ok = (s >= 0) & (s <= 15) & (((d >= -18) & (d <= 15)) | (d <= -20))
    up = min(max(d, 0), 15)  # selects, no branches: layouts change row to row in a mix
    k = min(max(-d, 0), 18) * _I64(d >= -18)
    mul = POW10[_U64(up)] * _U64(d > -20)
    most = POW10[_U64(16 - up)] - _U64(1) if d >= 0 else _ONES
    return ok, mul, k, POW10[_U64(k)] >> _U64(1), most


@helper
def _digits8(x):
    """Decimal digits of ``x < 10**8`` (1 for 0)."""
    n = _I64(1) + _I64(x >= _U64(10)) + _I64(x >= _U64(100)) + _I64(x >= _U64(1000))
    n += _I64(x >= _U64(10_000)) + _I64(x >= _U64(100_000)) + _I64(x >= _U64(1_000_000))
    return n + _I64(x >= _U64(10_000_000))


#: The four ASCII digits of each of 0000..9999 in a uint32, the first in the low byte: a
#: constant of the compiled code (Numba freezes a global array), 40 KB read a row at a
#: time (two reads for 8 digits, where SWAR arithmetic takes five multiplies).
DIGITS4 = np.frombuffer("".join(f"{v:04d}" for v in range(10_000)).encode(), dtype="<u4").copy()
DIGITS4.flags.writeable = False


@helper
def _ascii8(x):
    """The eight ASCII digits of ``x < 10**8`` in a uint64, the first in the low byte."""
    top = x // _U64(10_000)
    return _U64(DIGITS4[top]) | (_U64(DIGITS4[x - top * _U64(10_000)]) << _U64(32))


@helper
def _compose(m, shown, s, neg):
    """Row words ``(w0, w1, w2)`` of ``M < 10**16`` printed with ``shown`` digits (1..16,
    zero-padded), a point before the last ``s`` (0..15) and a sign when ``neg``."""
    hi = m // _E8
    a, b = _ascii8(hi), _ascii8(m - hi * _E8)
    skip = 16 - shown  # leading zeros to drop: (a, b) as 128 bits >> 8 * skip
    if skip == 0:
        e0, e1 = a, b
    elif skip < 8:
        e0 = (a >> _U64(8 * skip)) | (b << _U64(64 - 8 * skip))
        e1 = b >> _U64(8 * skip)
    else:
        e0, e1 = b >> _U64(8 * (skip - 8)), _U64(0)
    p0, p1, p2 = e0, e1, _U64(0)
    i = shown - s  # the point's byte (when s > 0): 1..15
    if s > 0 and i < 8:
        low = (_U64(1) << _U64(8 * i)) - _U64(1)
        p0 = (e0 & low) | ((e0 & ~low) << _U64(8)) | (_DOT << _U64(8 * i))
        p1 = (e1 << _U64(8)) | (e0 >> _U64(56))
        p2 = e1 >> _U64(56)
    elif s > 0:
        low = (_U64(1) << _U64(8 * (i - 8))) - _U64(1)
        p1 = (e1 & low) | ((e1 & ~low) << _U64(8)) | (_DOT << _U64(8 * (i - 8)))
        p2 = e1 >> _U64(56)
    up = _U64(8) * _U64(neg)  # the sign: everything up one byte, "-" in front
    carry = _ONES * _U64(neg)
    w0 = (p0 << up) | (_MINUS & carry)
    w1 = (p1 << up) | ((p0 >> _U64(56)) & carry)
    w2 = (p2 << up) | ((p1 >> _U64(56)) & carry)
    return w0, w1, w2


@helper
def _shr(x, n):
    """``x >> n`` for a uint64 and any int64 ``n``: 0 unless ``0 <= n < 64``."""
    return x >> _U64(n & 63) if _U64(n) < _U64(64) else _U64(0)


@helper
def _shl(x, n):
    """``x << n`` for a uint64 and any int64 ``n``: 0 unless ``0 <= n < 64``."""
    return x << _U64(n & 63) if _U64(n) < _U64(64) else _U64(0)


@helper
def _store_row(buf, base, width, nw, fast, w0, w1, w2, zero):
    """Write a row's words at ``buf[base:]``: ``nw`` 8-byte stores when ``fast`` (the
    stores may spill past the row), else byte by byte within its ``width`` bytes.
    ``zero`` is 0 read from memory, so that LLVM does not turn the zero stores into a
    ``memset`` call."""
    if fast:
        store8(buf, base, w0)
        if nw > 1:
            store8(buf, base + 8, w1)
            if nw > 2:
                store8(buf, base + 16, w2)
                for t in range(3, nw):
                    store8(buf, base + 8 * t, zero)
    else:
        _store_bytes(buf, base, width, w0, w1, w2)


@kernel
def _store_bytes(buf, base, width, w0, w1, w2):
    """Write a row's words at ``buf[base:base + width]`` byte by byte (the last rows of a
    buffer without slack; compiled apart, out of the row loop)."""
    for t in range(width):
        word = w0 if t < 8 else (w1 if t < 16 else (w2 if t < 24 else _U64(0)))
        buf[base + t] = np.uint8((word >> _U64(8 * (t % 8))) & _U64(0xFF))


@kernel
def _rows(start, stop, coef, exps, estep, scales, sstep, buf, width, lengths, limit, mode):
    """:func:`format_rows`' one pass over rows ``start:stop``; return ``(widest, first)``.

    The layout's constants are recomputed only where the exponent or the scale changes
    from the row before. A written layout with ``1 <= s <= 7`` decimals and digits dropped
    hands its runs of 8 rows or more to :func:`_lean_rows`, in turns that end where the
    integer part's digit count changes; that row, and every other row, goes through
    :func:`_row`. (One function for the whole pass: a call a run would cost rows whose
    layout changes row to row more than the compile it saves.)
    """
    measure, packed, given = mode == MEASURE, mode >= PACK, mode == PACK_AT
    widest = 0
    first = -1
    cap = max(limit, 0) + 1
    zero = _U64(cap >> 62)  # 0, unknown to LLVM (see _store_row)
    nw = min((width + 7) // 8, 3) if packed else (width + 7) // 8  # words a row stores
    end = buf.shape[0]
    if stop < lengths.shape[0]:
        end = _I64(lengths[stop - 1]) if given else stop * width
    stores_below = end - 8 * nw + 1  # rows starting below this take 8-byte stores
    pad = 0 if packed else max(width - 9, 0) // 8  # zero stores from base + 16
    lean_below = end - max(17, 16 + 8 * pad) + 1  # rows starting below this may be lean
    split_below = end - max(25, 16 + 8 * pad) + 1  # and split (_split_row)
    e, s = _I64(1) << _I64(40), _I64(0)  # no layout yet: the first row's differs
    ok, mul, k, half, most = False, _U64(1), _I64(0), _U64(0), _ONES
    lean = False  # the layout's written rows may go through _lean_rows
    run_end = start  # the current layout's rows end here
    nt = _I64(1)  # the integer part's digits in the current lean run
    pos = start * width  # packed: where the next row starts
    i = start
    while i < stop:
        if i >= run_end:  # a new layout, perhaps; then how far it goes
            e2, s2 = _I64(exps[i * estep]), _I64(scales[i * sstep])
            if e2 != e or s2 != s:
                e, s = e2, s2
                ok, mul, k, half, most = _layout(e, s)
                lean = ok & (k > 0) & (s >= 1) & (s <= 7) & (mode == FILL)
            run_end = i + 1
            if estep == 0 and sstep == 0:
                run_end = stop
            while run_end < stop and (_I64(exps[run_end * estep]) == e) & (
                _I64(scales[run_end * sstep]) == s
            ):
                run_end += 1
        long_run = run_end - i >= 8  # tested first: mostly false where layouts mix
        if long_run and lean:
            i, top = _lean_rows(i, run_end, coef, buf, width, lengths, limit, k, half, s, nt,
                                pad, zero, lean_below)  # fmt: skip
            widest = max(widest, top)
            if i == run_end:
                continue
        c = coef[_U64(i)]  # unsigned indices: no wraparound code
        at = (_I64(lengths[_U64(i)]) if given else pos) if packed else i * width
        n, base = _row(c, e, s, ok, mul, k, half, most, buf, at, width, nw, stores_below, cap,
                       zero, pad, split_below, measure, packed, given)  # fmt: skip
        if packed:
            lengths[_U64(i)] = base + n  # where the row ends
            pos = base + n
        else:
            if n > limit:  # rare (measuring): rows beyond the limit get length 0
                first = i if first < 0 else first
                n = 0
            lengths[_U64(i)] = n
        widest = max(widest, n)
        if long_run and lean:  # the next lean run: this row's digit count
            m = _div10(_magnitude(c) + half, k)
            nt = _digits8(min(_div10(m, s), _U64(9_999_999)))
        i += 1
    return widest, first


@helper
def _magnitude(c):
    """``|c|`` of an int64 as uint64, exact for the smallest int64 too."""
    return _U64(c) if c >= 0 else ~_U64(c) + _U64(1)


@kernel
def _lean_rows(start, stop, coef, buf, width, lengths, limit, k, half, s, nt, pad, zero,
               lean_below):  # fmt: skip
    """Write rows ``start, start + 1, ...`` (before ``stop``) of a layout with ``k >= 1``
    digits dropped and ``1 <= s <= 7`` decimals while their integer part ``top = M //
    10**s`` has ``nt`` (1..7) digits (rows at ``i * width``: ``FILL``); return the first
    row not written and the longest row written.

    Such a row ``[-] top . frac`` has a fixed length: two words stored at ``base + neg``
    and ``base + neg + 8`` after ``pad`` zero stores from ``base + 16`` and a ``-`` at
    ``base`` (the digits overwrite it when there is no sign); no store waits on counting
    digits. The stores reach ``base + max(17, 16 + 8 * pad)``, and rows from
    ``lean_below`` on are left to :func:`_row`, as is a row longer than ``limit``.
    """
    lo = _pow10(nt - 1) * _U64(nt > 1)  # top has nt digits: lo <= top < hi
    hi = _pow10(nt)
    unit = _pow10(s)
    top_shift = _U64(64 - 8 * nt)
    low_shift = _U64(8 * nt)  # the point and the fraction follow the top's nt bytes
    frac_shift = _U64(64 - 8 * s)
    size = nt + 1 + s
    below = 1 - _I64(half)  # c < 0 with M != 0: M > 0 when |c| >= 10**k - half = half
    mk, shk, ms, shs = MAGIC[k], SHIFT[k], MAGIC[s], SHIFT[s]
    widest = 0
    i = start
    while i < stop:
        c = coef[_U64(i)]  # unsigned indices: no wraparound code
        m = mulhi((_magnitude(c) + half) >> _U64(k), mk) >> shk
        top = mulhi(m >> _U64(s), ms) >> shs
        neg = _I64(c < below)
        n = size + neg
        base = i * width
        if (top < lo) | (top >= hi) | (base >= lean_below) | (n > limit):
            break
        for t in range(pad):
            store8(buf, base + 16 + 8 * t, zero)
        buf[_U64(base)] = np.uint8(_MINUS)
        frac = m - top * unit
        if s <= 4:  # the fraction is one table read
            digits = _U64(DIGITS4[frac]) >> (frac_shift - _U64(32))
        else:
            digits = _ascii8(frac) >> frac_shift
        tail = _DOT | (digits << _U64(8))  # "." and the s digits
        store8(buf, base + neg, (_ascii8(top) >> top_shift) | (tail << low_shift))
        store8(buf, base + neg + 8, tail >> top_shift)
        lengths[_U64(i)] = n
        widest = max(widest, n)
        i += 1
    return i, widest


@helper
def _row(c, e, s, ok, mul, k, half, most, buf, at, width, nw, stores_below, cap, zero, pad,
         split_below, measure, packed, given):  # fmt: skip
    """Measure (``measure``) or write row ``c`` of layout ``(e, s)``, whose constants are
    given (:func:`_layout`); return its length (capped at ``cap`` when measured) and where
    it starts: ``at``, or with ``given`` its end ``at`` less its length.

    A written row with decimals and an integer part below ``10**7`` goes through
    :func:`_split_row` (from ``split_below`` on, its stores would reach too far), other
    rows the layout takes through :func:`_compose`, the rest through the general path
    (``packed``: the text's bytes only, else ``width`` bytes, zero-padded)."""
    a = _magnitude(c)
    x = min(a, most) * mul + half  # no branch on k: layouts change row to row in a mix
    m = _div10(x, k) if k > 0 else x
    if ok & (a <= most) & (m < _E16):
        neg = (c < 0) & (m != _U64(0))
        hi = m // _E8
        long = hi != _U64(0)  # a select, not a branch: digit counts vary row to row
        nd = _digits8(hi if long else m) + 8 * _I64(long)
        shown = max(nd, s + 1)
        n = shown + _I64(s > 0) + _I64(neg)
        base = at - n if given else at
        if not measure:
            top = _div10(m, max(s, 1))
            if s > 0 and top < _E7 and base < split_below:
                _split_row(buf, base, m, top, shown - s, s, _I64(neg), pad, zero)
            else:
                count = n if packed else width
                _write_words(buf, base, count, nw, base < stores_below, m, shown, s, neg, zero)
        return n, base
    if measure:
        return min(_row_length(c, e, s), cap), at
    if not packed:
        return _write_row(buf, at, width, c, e, s), at
    n = min(_row_length(c, e, s), cap)
    base = at - n if given else at
    _write_row(buf, base, n, c, e, s)
    return n, base


@kernel
def _write_words(buf, base, count, nw, fast, m, shown, s, neg, zero):
    """:func:`_compose` and :func:`_store_row` (``count`` bytes when not ``fast``): a
    function of its own, for the rows of neither :func:`_lean_rows` nor
    :func:`_split_row` (a shorter compile)."""
    w0, w1, w2 = _compose(m, shown, s, neg)
    _store_row(buf, base, count, nw, fast, w0, w1, w2, zero)


@helper
def _split_row(buf, base, m, top, nt, s, neg, pad, zero):
    """Write ``[-] top . frac`` for ``1 <= s <= 15`` decimals and ``top = M // 10**s <
    10**7`` of ``nt`` digits (1 for 0). ``neg``: 1 for a sign.

    Three 8-byte stores from ``base + neg``: the integer part and the point, then the
    fraction's last ``s`` of 16 digits (zeros after them), after ``pad`` zero stores
    from ``base + 16`` and a ``-`` at ``base`` (overwritten when there is no sign). The
    stores reach ``base + max(25, 16 + 8 * pad)``.
    """
    frac = m - top * POW10[_U64(s)]
    high = frac // _E8
    a, b = _ascii8(high), _ascii8(frac - high * _E8)
    r = 16 - s  # leading zeros of the fraction's 16 digits: (a, b) >> 8 * r as 128 bits
    g0 = _shr(a, 8 * r) | _shl(b, 64 - 8 * r) | _shr(b, 8 * r - 64)  # no branch on s
    g1 = _shr(b, 8 * r)
    for t in range(pad):
        store8(buf, base + 16 + 8 * t, zero)
    buf[_U64(base)] = np.uint8(_MINUS)
    q = base + neg
    store8(buf, q, (_ascii8(top) >> _U64(64 - 8 * nt)) | (_DOT << _U64(8 * nt)))
    store8(buf, q + nt + 1, g0)
    store8(buf, q + nt + 9, g1)


@kernel
def format_rows(start, stop, coef, cstep, exps, estep, scales, sstep, buf, width, lengths,
                limit, mode, wide, real, narrow):  # fmt: skip
    """Measure or write rows ``start:stop``, a row at a time; return ``(widest, first)``.

    The arguments, the result and what is written are those of
    :func:`vecfix._kernels.format_rows` (see there), byte for byte: ``mode`` is
    :data:`FILL` (or ``False``), :data:`MEASURE` (or ``True``), :data:`PACK` or
    :data:`PACK_AT` (Arrow's layout: rows back to back, ``lengths`` their ends). The
    staging arrays ``wide``, ``real`` and ``narrow`` are taken and left alone, so that
    either kernel runs with the same arguments.

    Examples
    --------
    >>> import numpy as np
    >>> from vecfix import _kernels
    >>> coef = np.array([5000_250000000, -4_000050000, 7], dtype=np.int64)
    >>> e, s = np.array([-9], dtype=np.int32), np.array([4], dtype=np.int32)
    >>> for a in coef, e, s:  # read-only, as format_fixed passes them: one signature
    ...     a.flags.writeable = False
    >>> buf, lengths = np.zeros(3 * 9 + 8, dtype=np.uint8), np.zeros(3, dtype=np.int32)
    >>> widest, first = format_rows(0, 3, coef, 1, e, 0, s, 0, buf, 9, lengths, 2**31 - 1,
    ...                             False, *_kernels.scratch())
    >>> int(widest), int(first)
    (9, -1)
    >>> [bytes(buf[9 * i : 9 * i + n]) for i, n in enumerate(lengths)], buf[16:18].tolist()
    ([b'5000.2500', b'-4.0001', b'0.0000'], [0, 0])
    """
    widest = 0
    first = -1
    for phase in range(2 if width < 0 else 1):
        width, now = _phase(phase, width, widest, mode)
        widest, first = _rows(start, stop, coef, exps, estep, scales, sstep, buf, width,
                              lengths, limit, now)  # fmt: skip
    return widest, first
