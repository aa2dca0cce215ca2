"""A row-at-a-time twin of :func:`vecfix._kernels.fixed.format_rows`, for CPUs without AVX2.

The block kernel's passes are written for vector units: on a CPU that LLVM compiles for
without AVX2 (``NUMBA_CPU_NAME=generic``: SSE2 only) they stay scalar and run 3-4x slower
than a plain loop over rows. :func:`format_rows` here is that plain loop, with the same
arguments, contract and result, so that :mod:`vecfix._format` can run either
(:func:`vecfix._format._row_kernel` chooses).

A row ``(c, e, s)`` (see :mod:`vecfix._kernels.fixed` for ``M``, ``d = e + s`` and ``k = -d``)
is taken here when ``0 <= s <= 15`` and either ``-18 <= d <= 15`` with ``M < 10**16``, or
``d <= -20`` (``M = 0``). Then, in registers (:func:`_rows`; a layout's constants come
from a table of ``d`` (:data:`LAYOUTS`), once for one exponent and scale, every row,
without a branch, where they vary):

* ``M = (|c| + 10**k // 2) // 10**k`` by a multiply with the reciprocal of ``10**k``
  (:data:`MAGIC`, :func:`mulhi`), or ``M = |c| * 10**d``; the integer part ``M //
  10**s`` beside it, from ``|c|`` too (not waiting for ``M``); the sign from ``c``;
* digits four at a time from a table (:data:`DIGITS4`), the first in the low byte of a
  word;
* unaligned 8-byte stores at the row's start, which may spill a few bytes into the next
  row before it is written (never past ``stop``'s row, nor past the buffer: the last rows
  are written through the text's words, :func:`_compose`, byte by byte where needed).

Writing a matrix (``FILL``), rows with ``1 <= s <= 7`` decimals and digits dropped go
through :func:`_lean_rows` in runs whose integer part keeps its digit count (PRICE9
prices: two stores a row, no digit counting), or, where the count changes row to row,
:func:`_counted_rows` (the same two stores, the digits counted); :func:`_lean_turn`
chooses, called from an outer loop so that the rows' loop keeps its registers. Other
rows the layout takes go through :func:`_put_row` (the integer part, the point, the
fraction: four to six stores), in every mode.

Other rows go through :mod:`vecfix._kernels.fixed`' general path (``_row_length``,
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
from ._kernels.fixed import _phase, _row_length, _write_row

_U64 = np.uint64
_I64 = np.int64
_DOT = _U64(46)  # b"."
_MINUS = _U64(45)  # b"-"
#: ``mode`` of :func:`format_rows`, as :mod:`vecfix._kernels.fixed` numbers them.
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


def _layout_table() -> np.ndarray:
    """:func:`_layout`'s constants ``(mul, k, half, most)`` of each ``d = e + s`` from -20
    (every digit dropped, as for any ``d <= -20``) to 16 (not taken, as for any ``d >
    15``), four words a row: they depend on ``d`` alone."""
    rows = []
    for d in range(-20, 17):
        up, k = min(max(d, 0), 15), min(max(-d, 0), 18) if d >= -18 else 0
        mul = 10**up if d > -20 else 0
        most = 10 ** (16 - up) - 1 if d >= 0 else 2**64 - 1
        rows.append((mul, k, 10**k // 2, most))
    table = np.array(rows, dtype=np.uint64).reshape(-1)
    table.flags.writeable = False
    return table


#: :func:`_layout_table`, a constant of the compiled code (1.2 KB).
LAYOUTS = _layout_table()


@helper
def _layout(e, s):
    """The constants of layout ``(e, s)``: ``(ok, mul, k, half, most)``, from
    :data:`LAYOUTS` (no branch: layouts change row to row in a mix).

    ``ok``: whether :func:`format_rows` takes the layout. Its rows have ``M = |c| * mul``
    when ``k`` is 0 (taken when ``|c| <= most``, so that ``M < 10**16``), else ``M = (|c|
    + half) // 10**k``. ``d <= -20`` gives ``mul = 0``: every digit is dropped.
    """
    d = _I64(e) + _I64(s)
    ok = (s >= 0) & (s <= 15) & (((d >= -18) & (d <= 15)) | (d <= -20))
    j = _U64(4 * (min(max(d, -20), 16) + 20))
    k = _I64(LAYOUTS[j + _U64(1)])
    return ok, LAYOUTS[j], k, LAYOUTS[j + _U64(2)], LAYOUTS[j + _U64(3)]


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


#: After two lean runs in a row shorter than this, :func:`_lean_turn` counts the digits
#: row by row (:func:`_counted_rows`) for the next ``_LEAN_PAUSE`` rows (integer parts
#: whose digit count changes row to row would pay for a failed run a row; a lone outlier
#: leaves one short run, and the rows after it go back to lean runs at once).
_LEAN_MIN = 4
_LEAN_PAUSE = 64
#: Rows of one layout in a row before :func:`_rows` looks for the end of their run where
#: layouts vary row to row (the scan then pays for itself).
_LEAN_AFTER = 8


@kernel
def _rows(start, stop, coef, exps, estep, scales, sstep, buf, width, lengths, limit, mode):
    """:func:`format_rows`' one pass over rows ``start:stop``; return ``(widest, first)``.

    With one exponent and scale the layout's constants are computed once; with per-row
    ones, every row, without a branch (a test for a change of layout mispredicts where
    layouts mix), until ``_LEAN_AFTER`` rows in a row share a layout: then the run's end
    is found once (``run_end``) and its rows read no layout (a column sorted by layout:
    the prices mix sorted so 15.0 -> 12.4 ns/value, a snapshot grouped by instrument 8.1
    -> 7.5, generic, 1 thread). Writing a matrix, a layout :func:`_leans` takes hands its
    runs (all its rows, or, where layouts vary, the rest of a run so found) to
    :func:`_lean_turn`, from an outer loop: the rows' loop has no call but the general
    path's, so that its registers stay with the rows. So do rows of layouts that change
    from row to row (to :func:`_mixed_rows`, until a run or a row it does not take).
    Every other row, and the row a lean turn or :func:`_mixed_rows` stops at, goes
    through :func:`_row`. (One function for the whole pass and every mode but those:
    another copy of the row code costs the compile more than it saves a row.)
    """
    measure, packed, given = mode == MEASURE, mode >= PACK, mode == PACK_AT
    varying = (estep != 0) | (sstep != 0)
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
    fast_below = end - max(25, 16 + 8 * pad) + 1  # rows starting below this: _put_row
    lean_stop = start  # lean rows (at most 16 bytes) end before this row
    mixed_stop = start  # rows before this one may go through _mixed_rows
    if (mode == FILL) & (limit >= 16) & (width > 0):  # their stores reach base + 17
        lean_stop = max(min(stop, (end - max(17, 16 + 8 * pad)) // width + 1), start)
        if varying & (limit >= _FAST_LONGEST):  # their stores: those of _put_row
            mixed_stop = max(min(stop, (fast_below + width - 1) // width), start)
    e, s = _I64(0), _I64(0)
    if start < stop:
        e, s = _I64(exps[start * estep]), _I64(scales[start * sstep])
    ok, mul, k, half, most = _layout(e, s)
    lean = _leans(ok, k, s)
    same = _I64(0)  # rows before this one of its layout, in a row (where layouts vary)
    nt = _I64(1)  # the integer part's digits of the row before (1..7)
    short = True  # the row before had at most 7 digits in its integer part (else a lean run
    # would stop at once: a column of larger values went through a failed turn a row)
    pause = start  # no lean run before this row
    misses = _I64(0)  # lean runs in a row shorter than _LEAN_MIN (not a literal 0: one
    # signature of _lean_turn)
    run_end = _I64(start)  # where layouts vary, the rows up to this one share the layout
    pos = start * width  # packed: where the next row starts
    i = start
    held = start - 1  # the row a lean run stopped at: it goes through _row
    alone = start - 1  # the row _mixed_rows stopped at: it goes through _row
    mixed = False
    while i < stop:
        while i < stop:  # rows through _row until a lean run is due (no call in this loop
            if varying & (i >= run_end):  # but the general path's: the registers stay
                mixed = (i < mixed_stop) & (i != alone)
                if mixed:
                    break
                e2, s2 = _I64(exps[_U64(i * estep)]), _I64(scales[_U64(i * sstep)])
                kept = (e2 == e) & (s2 == s)
                e, s = e2, s2
                ok, mul, k, half, most = _layout(e, s)
                lean = _leans(ok, k, s)
                same = (same + 1) * _I64(kept)  # a value, not a branch: layouts mix
                if same >= _LEAN_AFTER:  # a run: its end, once; its rows read no layout
                    run_end, same = i + 1, 0
                    while run_end < stop and (_I64(exps[_U64(run_end * estep)]) == e) & (
                        _I64(scales[_U64(run_end * sstep)]) == s
                    ):
                        run_end += 1
                due = False
            else:
                due = lean & (i != held) & short
            if due & (i < lean_stop):  # LLVM branches on each term in turn: each of these
                break  # is (nearly) always one way, where the layout's terms would not be
            c = coef[_U64(i)]  # unsigned indices: no wraparound code
            at = (_I64(lengths[_U64(i)]) if given else pos) if packed else i * width
            n, base, digits = _row(c, e, s, ok, mul, k, half, most, buf, at, width, nw,
                                   stores_below, cap, zero, pad, fast_below, measure, packed,
                                   given)  # fmt: skip
            if packed:
                lengths[_U64(i)] = base + n  # where the row ends
                pos = base + n
            else:
                if n > limit:  # rare (measuring): rows beyond the limit get length 0
                    first = i if first < 0 else first
                    n = 0
                lengths[_U64(i)] = n
            widest = max(widest, n)
            nt = min(digits, 7)  # the next lean run's digit count
            short = digits <= 7
            i += 1
        if i >= stop:
            break
        if mixed:  # rows of layouts that change from row to row, in a loop of their own
            i, top, e, s, same, digits = _mixed_rows(i, mixed_stop, coef, exps, estep, scales,
                                                     sstep, buf, width, lengths, pad, zero,
                                                     e, s, same)  # fmt: skip
            widest = max(widest, top)
            nt, short = min(digits, 7), digits <= 7
            ok, mul, k, half, most = _layout(e, s)
            lean = _leans(ok, k, s)
            if same >= _LEAN_AFTER:  # a run: its end, once; its rows read no layout
                run_end, same = i, 0
                while run_end < stop and (_I64(exps[_U64(run_end * estep)]) == e) & (
                    _I64(scales[_U64(run_end * sstep)]) == s
                ):
                    run_end += 1
            else:  # a row the fast path does not take, or mixed_stop: _row takes it
                alone = i
            mixed = False
            continue
        turn_stop = min(run_end, lean_stop) if varying else lean_stop  # (i < run_end here)
        i, top, nt, pause, misses = _lean_turn(i, turn_stop, pause, misses, nt, coef, buf,
                                               width, lengths, k, half, s, pad, zero)  # fmt: skip
        widest = max(widest, top)
        held = i  # of the run's layout (before run_end), or past it: the layout is read again
        same = 0  # where layouts vary and the run has ended, a run again after _LEAN_AFTER
    return widest, first


#: The longest row :func:`_put_row` writes: a sign, 16 digits and a point.
_FAST_LONGEST = 18


@kernel(vectorize=False)
def _mixed_rows(i, stop, coef, exps, estep, scales, sstep, buf, width, lengths, pad, zero, e,
                s, same):  # fmt: skip
    """Write rows ``i, i + 1, ...`` (before ``stop``: their stores are :func:`_put_row`'s
    and stay in the buffer) whose layouts change from row to row (``FILL``), each with
    its own layout's constants, until ``_LEAN_AFTER`` rows in a row share a layout (a
    run: :func:`_rows` finds its end) or a row that :func:`_put_row` does not take.

    ``(e, s)`` is the layout of the row before ``i`` and ``same`` the rows before it of
    that layout, in a row (as :func:`_rows` counts them). Returns ``(i, widest, e, s,
    same, digits)``: the first row not written, the longest row written (0 for none),
    the last written row's layout and its count, and its integer digits (1 for none).

    :func:`_rows` reads the same rows in its own loop, which carries the state of every
    mode and of lean runs: in a loop of their own their constants stay in registers
    (``NUMBA_CPU_NAME=generic``, 1 thread, the ``prices`` mix: 13.9-14.1 -> 11.7-11.8
    ns/value for the pass)."""
    widest = 0
    digits = _I64(1)
    while i < stop:
        r, t = _I64(exps[_U64(i * estep)]), _I64(scales[_U64(i * sstep)])
        ok, mul, k, half, most = _layout(r, t)
        c = coef[_U64(i)]
        a = _magnitude(c)
        x = min(a, most) * mul + half  # as in _row
        m = _div_pow10(x, k)
        if not (ok & (a <= most) & (m < _E16)):
            break
        top = _div_pow10(x, _U64(min(k + t, 19)))
        nt, word, hi = _int_part(top)
        neg = _I64(c < _neg_below(mul, half))
        _put_row(buf, i * width, m, top, nt, word, hi, t, neg, pad, zero)
        n = nt + t + _I64(t > 0) + neg
        lengths[_U64(i)] = n
        widest = max(widest, n)
        digits = nt
        same = (same + 1) * _I64((r == e) & (t == s))  # a value, not a branch
        e, s = r, t
        i += 1
        if same >= _LEAN_AFTER:
            break
    return i, widest, e, s, same, digits


@helper
def _leans(ok, k, s):
    """Whether a layout's rows may go through :func:`_lean_rows`."""
    return ok & (k > 0) & (s >= 1) & (s <= 7) & (k + s <= 19)


@helper
def _magnitude(c):
    """``|c|`` of an int64 as uint64, exact for the smallest int64 too."""
    return _U64(c) if c >= 0 else ~_U64(c) + _U64(1)


@helper
def _div_pow10(x, k):
    """``x // 10**k`` for a uint64 ``x`` and ``0 <= k <= 19``, by a multiply and without a
    branch on ``k`` (``MAGIC[0]`` is 0: for ``k = 0`` the mask keeps ``x``)."""
    u = _U64(k)  # an unsigned index: no wraparound code
    return (mulhi(x >> u, MAGIC[u]) >> SHIFT[u]) | (x & (_ONES * _U64(u == _U64(0))))


@helper
def _neg_below(mul, half):
    """The coefficients below which a row prints a sign: ``c < 0`` with ``M != 0``.

    ``M = (|c| + half) // 10**k`` is nonzero when ``|c| >= 10**k - half = half`` (``k >
    0``), ``M = |c| * mul`` when ``|c| >= 1`` and ``mul != 0``. One comparison with the
    coefficient as loaded, so that the stores that follow the sign need not wait for
    ``M``."""
    return (1 - max(_I64(half), 1)) if mul != _U64(0) else _I64(-(2**63))


@kernel(vectorize=False)
def _lean_turn(i, stop, pause, misses, nt, coef, buf, width, lengths, k, half, s, pad, zero):
    """A turn of lean runs for :func:`_rows` over rows ``i:stop`` of one layout, which
    :func:`_lean_rows` takes (the caller's ``stop``: where the layout's run ends, before
    ``lean_stop``), with the digit count ``nt`` of the row before, or counted row by row
    before row ``pause``; return ``(i, widest, nt, pause, misses)``: the first row not
    written, the longest written, the last one's digit count and the pause's state
    (``misses``: lean runs in a row shorter than ``_LEAN_MIN``; two of them pause the
    fixed count for ``_LEAN_PAUSE`` rows).

    A lean run stops at a row whose digit count changed: that row is counted alone and
    the next lean run starts after it with its count, so that the turn goes on to
    ``stop`` or to an integer part of 8 digits or more (under ``NUMBA_CPU_NAME=generic``,
    1 thread: the prices mix's coefficients at one layout 9.5 -> 7.9 ns/value, the mix
    sorted by layout 16.9 -> 14.7, against going back to :func:`_rows` for
    ``_LEAN_AFTER`` rows). :func:`_rows` finds a run's end once (looking for it at each
    of a run's many short turns made a sorted column's pass quadratic: 300 ns a row on
    the ``prices`` mix sorted by layout). One call from the pass, so that its loop keeps
    its registers."""
    widest = 0
    alone = False  # the row a lean run stopped at, counted alone (its digit count changed)
    while i < stop:
        if alone | (i < pause):  # digit counts changed often of late: counted row by row
            until = i + 1 if alone else min(stop, pause)
            j, top, nt = _counted_rows(i, until, coef, buf, width, lengths, k, half, s, pad,
                                       zero)  # fmt: skip
            widest = max(widest, top)
            if j < until:  # an integer part of 8 digits or more: _row takes it
                return j, widest, nt, pause, misses
            i, alone = j, False
            continue
        j, top, nt = _lean_rows(i, stop, coef, buf, width, lengths, k, half, s, nt, pad, zero)
        widest = max(widest, top)
        misses = misses + 1 if j - i < _LEAN_MIN else 0
        if misses == 2:
            pause, misses = j + _LEAN_PAUSE, 0
        i, alone = j, True
    return i, widest, nt, pause, misses


@helper
def _lean_rows(start, stop, coef, buf, width, lengths, k, half, s, nt, pad, zero):
    """Write rows ``start, start + 1, ...`` (before ``stop``) of a layout with ``k >= 1``
    digits dropped, ``1 <= s <= 7`` decimals and ``k + s <= 19`` while their integer part
    ``top = M // 10**s`` has ``nt`` (1..7) digits (rows at ``i * width``: ``FILL``);
    return the first row not written, the longest row written (0 for none) and ``nt``.

    Such a row ``[-] top . frac`` is two words stored at ``base + neg`` and ``base + neg
    + 8`` after ``pad`` zero stores from ``base + 16`` and a ``-`` at ``base`` (the digits
    overwrite it when there is no sign); no store waits on counting digits. ``M`` and
    ``top`` both come from ``|c|``, side by side. The stores reach ``base + max(17, 16 +
    8 * pad)``: the caller's ``stop`` keeps them in the buffer.
    """
    lo = _pow10(nt - 1) * _U64(nt > 1)  # top has nt digits: lo <= top < hi
    hi = _pow10(nt)
    unit = _pow10(s)
    top_shift = _U64(64 - 8 * nt)
    low_shift = _U64(8 * nt)  # the point and the fraction follow the top's nt bytes
    frac_shift = _U64(64 - 8 * s)
    size = nt + 1 + s
    below = 1 - _I64(half)  # c < 0 with M != 0: M > 0 when |c| >= 10**k - half = half
    mk, shk, mks, shks = MAGIC[k], SHIFT[k], MAGIC[k + s], SHIFT[k + s]
    signed = _I64(0)  # 1 once a row has a sign
    i = start
    while i < stop:
        c = coef[_U64(i)]  # unsigned indices: no wraparound code
        x = _magnitude(c) + half
        m = mulhi(x >> _U64(k), mk) >> shk
        top = mulhi(x >> _U64(k + s), mks) >> shks  # M // 10**s, not waiting for M
        if (top < lo) | (top >= hi):
            break
        neg = _I64(c < below)
        base = i * width
        _zeros(buf, base, pad, zero)
        buf[_U64(base)] = np.uint8(_MINUS)
        frac = m - top * unit
        if s <= 4:  # the fraction is one table read
            digits = _U64(DIGITS4[frac]) >> (frac_shift - _U64(32))
        else:
            digits = _ascii8(frac) >> frac_shift
        tail = _DOT | (digits << _U64(8))  # "." and the s digits
        store8(buf, base + neg, (_ascii8(top) >> top_shift) | (tail << low_shift))
        store8(buf, base + neg + 8, tail >> top_shift)
        lengths[_U64(i)] = size + neg
        signed |= neg
        i += 1
    return i, (size + signed) * _I64(i > start), nt


@helper
def _counted_rows(start, stop, coef, buf, width, lengths, k, half, s, pad, zero):
    """:func:`_lean_rows` for rows whose integer part has at most 7 digits, counted row
    by row (a loop of its own: the fixed count's loop keeps its constants); return the
    first row not written, the longest row written (0 for none) and the last one's
    digit count (1 for none)."""
    unit = _pow10(s)
    frac_shift = _U64(64 - 8 * s)
    below = 1 - _I64(half)
    mk, shk, mks, shks = MAGIC[k], SHIFT[k], MAGIC[k + s], SHIFT[k + s]
    widest = 0
    nt = _I64(1)
    i = start
    while i < stop:
        c = coef[_U64(i)]
        x = _magnitude(c) + half
        m = mulhi(x >> _U64(k), mk) >> shk
        top = mulhi(x >> _U64(k + s), mks) >> shks
        if top >= _E7:
            break
        nd = _digits8(top)
        neg = _I64(c < below)
        base = i * width
        _zeros(buf, base, pad, zero)
        buf[_U64(base)] = np.uint8(_MINUS)
        frac = m - top * unit
        tail = _DOT | ((_ascii8(frac) >> frac_shift) << _U64(8))  # "." and the s digits
        top_shift = _U64(64 - 8 * nd)
        store8(buf, base + neg, (_ascii8(top) >> top_shift) | (tail << _U64(8 * nd)))
        store8(buf, base + neg + 8, tail >> top_shift)
        n = nd + 1 + s + neg
        lengths[_U64(i)] = n
        widest = max(widest, n)
        nt = nd
        i += 1
    return i, widest, nt


@helper
def _row(c, e, s, ok, mul, k, half, most, buf, at, width, nw, stores_below, cap, zero, pad,
         fast_below, measure, packed, given):  # fmt: skip
    """Measure (``measure``) or write row ``c`` of layout ``(e, s)``, whose constants are
    given (:func:`_layout`); return its length (capped at ``cap`` when measured), where
    it starts (``at``, or with ``given`` its end ``at`` less its length) and its integer
    part's digit count (1 for a row of the general path).

    A written row the layout takes goes through :func:`_put_row` (from ``fast_below`` on,
    its stores would reach too far: through :func:`_compose`), the rest through the
    general path (``packed``: the text's bytes only, else ``width`` bytes, zero-padded).
    ``M`` and the integer part both come from ``x`` (``|c| + half``, or ``|c| * 10**d``),
    side by side, and the sign from ``c``, so that the stores wait for one division."""
    a = _magnitude(c)
    x = min(a, most) * mul + half  # |c| + half, or |c| * 10**d: no branch on k
    m = _div_pow10(x, k)
    if ok & (a <= most) & (m < _E16):
        top = _div_pow10(x, _U64(min(k + s, 19)))  # M // 10**s beside M (0 past 19: x < 10**19)
        nt, word, hi = _int_part(top)
        neg = _I64(c < _neg_below(mul, half))  # from c: the stores need not wait for M
        n = nt + s + _I64(s > 0) + neg
        base = at - n if given else at
        if not measure:
            if base < fast_below:
                _put_row(buf, base, m, top, nt, word, hi, s, neg, pad, zero)
            else:
                count = n if packed else width
                _write_words(buf, base, count, nw, base < stores_below, m, nt + s, s, neg,
                             zero)  # fmt: skip
        return n, base, nt
    if measure:
        return min(_row_length(c, e, s), cap), at, _I64(1)
    if not packed:
        return _write_row(buf, at, width, c, e, s), at, _I64(1)
    n = min(_row_length(c, e, s), cap)
    base = at - n if given else at
    _write_row(buf, base, n, c, e, s)
    return n, base, _I64(1)


@kernel
def _write_words(buf, base, count, nw, fast, m, shown, s, neg, zero):
    """:func:`_compose` and :func:`_store_row` (``count`` bytes when not ``fast``): a
    function of its own, for the last rows of a buffer (a shorter compile)."""
    w0, w1, w2 = _compose(m, shown, s, neg)
    _store_row(buf, base, count, nw, fast, w0, w1, w2, zero)


@helper
def _zeros(buf, base, pad, zero):
    """``pad`` zero stores from ``base + 16``: one or two without a loop (most rows are
    narrow: a loop's entry costs more than its stores)."""
    if pad > 0:
        store8(buf, base + 16, zero)
        if pad > 1:
            store8(buf, base + 24, zero)
            for t in range(2, pad):
                store8(buf, base + 16 + 8 * t, zero)


@helper
def _int_part(top):
    """``(nt, first, hi)`` of an integer part ``top < 10**16``: its digit count (1 for 0),
    the word of its first digits (the first in the low byte, zeros past them: all of them
    up to 8 digits, else the first ``nt - 8``) and ``hi = top // 10**8``.

    A branch on ``top < 10**8`` (mostly one way), no division up to 8 digits."""
    if top < _E8:
        nt = _digits8(top)
        return nt, _ascii8(top) >> _U64(64 - 8 * nt), _U64(0)
    hi = top // _E8
    nh = _digits8(hi)
    return nh + 8, _ascii8(hi) >> _U64(64 - 8 * nh), hi


@helper
def _put_row(buf, base, m, top, nt, first, hi, s, neg, pad, zero):
    """Write ``[-] top [. frac]``: ``M < 10**16`` with ``0 <= s <= 15`` decimals, ``top =
    M // 10**s`` of ``nt`` digits, ``first`` and ``hi`` as :func:`_int_part` gives them;
    ``neg``: 1 for a sign.

    Zero stores at ``base + 8`` and ``pad`` more from ``base + 16``, a ``-`` at ``base``
    (overwritten when there is no sign), then 8-byte stores of the digits, each word
    zeros past its digits: the integer part (one store, two past 8 digits), the point,
    the fraction (one store, two past 8 digits). The stores reach ``base + max(25, 16 +
    8 * pad)``.
    """
    frac = m - top * POW10[_U64(s)]
    store8(buf, base + 8, zero)
    _zeros(buf, base, pad, zero)
    buf[_U64(base)] = np.uint8(_MINUS)
    q = base + neg
    store8(buf, q, first)
    if nt > 8:
        store8(buf, q + nt - 8, _ascii8(top - hi * _E8))
    q += nt
    if s > 0:
        buf[_U64(q)] = np.uint8(_DOT)
        if s <= 8:
            store8(buf, q + 1, _ascii8(frac) >> _U64(64 - 8 * s))
        else:
            high = frac // _E8
            store8(buf, q + 1, _ascii8(high) >> _U64(128 - 8 * s))
            store8(buf, q + s - 7, _ascii8(frac - high * _E8))


@kernel
def format_rows(start, stop, coef, cstep, exps, estep, scales, sstep, buf, width, lengths,
                limit, mode, wide, real, narrow):  # fmt: skip
    """Measure or write rows ``start:stop``, a row at a time; return ``(widest, first)``.

    The arguments, the result and what is written are those of
    :func:`vecfix._kernels.fixed.format_rows` (see there), byte for byte: ``mode`` is
    :data:`FILL` (or ``False``), :data:`MEASURE` (or ``True``), :data:`PACK` or
    :data:`PACK_AT` (Arrow's layout: rows back to back, ``lengths`` their ends). The
    staging arrays ``wide``, ``real`` and ``narrow`` are taken and left alone, so that
    either kernel runs with the same arguments.

    Examples
    --------
    >>> import numpy as np
    >>> from vecfix._kernels import fixed as _kernels
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
