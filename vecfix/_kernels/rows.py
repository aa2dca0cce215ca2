"""One row at a time, and the widest row of a column: the kernels' scalar path.

A row is ``(c, e, s)``: an int64 coefficient, an exponent and a scale. Its text is that of
the integer ``M = round_half_away(|c| * 10**(e + s))`` followed by ``Z`` zeros, with a
decimal point ``s`` digits from the right when ``s > 0`` (the digits zero-padded to at
least ``s + 1``), and a ``-`` in front when ``c < 0`` and ``M != 0``. With ``d = e + s``:

* ``d >= 0``: nothing is dropped, ``M = |c|`` and ``Z = d + max(0, -s)``;
* ``d < 0``: ``k = -d`` digits are dropped, ``M = (|c| + 5 * 10**(k-1)) // 10**k`` and
  ``Z = max(0, -s)`` (for ``s < 0`` the dropped digits come back as zeros).

:func:`_write_row` is vecfix's one scalar row writer: any int64 row, digit by digit, from
the right. The block kernel (:mod:`vecfix._kernels.fixed`) sends it the rows its vector
passes do not take, and :func:`format_few` the rows of a call too small for those passes
(rows beyond int64 never reach a kernel: :mod:`decimal` does them,
:func:`vecfix._scalar.string_fixed`). A row's length is :func:`vecfix._scalar.text_length`,
the same function Python uses (:func:`vecfix._scalar.row_length`), compiled here.

A row's length only grows with ``|c|`` under one layout, so the widest row of a column
comes from its smallest and largest coefficient (:func:`extremes`), or from those of each
of its layouts (:func:`widest_of_layouts`), without measuring every row.
"""

from __future__ import annotations

import numpy as np

from .. import _scalar
from .._jit import helper, kernel

_U64 = np.uint64
_I64 = np.int64
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_DOT = np.uint8(46)  # b"."
_MINUS = np.uint8(45)  # b"-"

#: The length of a row whose ``M`` has ``nd`` digits followed by ``z`` zeros: the one
#: formula, Python's own (:func:`vecfix._scalar.text_length`), compiled.
_text_length = helper(_scalar.text_length)

#: ``10**k`` for ``0 <= k <= 19``, a constant of the compiled code (a loop of multiplies
#: instead is turned into vector code by LLVM: a longer compile for nothing).
_POW10 = np.array([10**k for k in range(20)], dtype=np.uint64)


@helper
def _magnitude(c):
    """``|c|`` of an int64 as uint64, exact for the most negative int64 too."""
    u = _U64(c)
    return u if c >= 0 else ~u + _U64(1)


@helper
def _rounded(c, e, s):
    """``(M, Z)`` of any int64 row (``M`` fits uint64: see the module docstring)."""
    a = _magnitude(_I64(c))
    d = _I64(e) + _I64(s)
    z = max(-_I64(s), 0)
    m = _U64(0)
    if d >= 0:
        m = a
        z += d
    elif d >= -19:  # a + 10**k // 2 < 2**64
        p = _POW10[_U64(-d)]
        m = (a + p // _U64(2)) // p
    return m, z


@helper
def _ndigits(m):
    """Decimal digits of the uint64 ``m`` (0 for 0), by comparisons (no division)."""
    nd = 0
    while nd < 20 and m >= _POW10[nd]:
        nd += 1
    return nd


@kernel
def _row_length(c, e, s):
    """Printed length of any row ``(c, e, s)`` with an int64 ``c`` (and int32 ``e``, ``s``)."""
    m, z = _rounded(c, e, s)
    return _text_length(_ndigits(m), z, c < 0, _I64(s))


@kernel
def _write_row(buf, base, width, c, e, s):
    """Write any row at ``buf[base:base + width]``, zero-padded, byte by byte, from the
    right; return its length (the caller has checked that it fits)."""
    m, z = _rounded(c, e, s)
    s = _I64(s)
    nd = _ndigits(m)
    n = _text_length(nd, z, c < 0, s)
    for t in range(_U64(base + n), _U64(base + width)):  # unsigned: a memset
        buf[t] = 0
    neg = _I64(c < 0) & _I64(nd > 0)
    pos = base + n - 1
    for r in range(n - neg - _I64(s > 0)):  # r: the digit's place, counted from the right
        if r == s and s > 0:
            buf[pos] = _DOT
            pos -= 1
        digit = _U64(0)
        if r >= z:
            digit = m % _U64(10)
            m //= _U64(10)
        buf[pos] = np.uint8(_U64(48) + digit)
        pos -= 1
    if neg:
        buf[pos] = _MINUS
    return n


@helper
def _check_layout(exponent, scale):
    """Refuse an exponent or a scale outside int32 (the rows vecfix prints)."""
    if (
        (exponent < _INT32_MIN)
        | (exponent > _INT32_MAX)
        | (scale < _INT32_MIN)
        | (scale > _INT32_MAX)
    ):
        raise ValueError("vecfix.numba: exponent and scale must be within int32")


@kernel
def _fixed_length(coefficient, exponent, scale):
    """:func:`vecfix.numba.fixed_length`: :func:`_row_length`, the layout checked (called
    from users' nopython code, compiled for their types: no signature)."""
    _check_layout(_I64(exponent), _I64(scale))
    return _row_length(_I64(coefficient), _I64(exponent), _I64(scale))


@kernel
def _write_fixed(buf, pos, coefficient, exponent, scale):
    """:func:`vecfix.numba.write_fixed`: :func:`_write_row` at ``buf[pos:]`` when the row
    fits, else nothing written and ``-(pos + length)``."""
    c, e, s = _I64(coefficient), _I64(exponent), _I64(scale)
    _check_layout(e, s)
    if pos < 0:
        raise ValueError("vecfix.numba.write_fixed: pos must be >= 0")
    n = _row_length(c, e, s)
    end = _I64(pos) + n
    if end > buf.shape[0]:
        return -end
    _write_row(buf, _I64(pos), n, c, e, s)
    return end


#: :func:`widest_of_layouts` keeps the extremes of the layouts ``0 <= s < 16``, ``-20 <= d
#: < 16`` in a table of this many rows (``(d + 20) * 16 + s``).
LAYOUTS = 36 * 16


@helper
def _one_value(values, step, lo, hi):
    """Whether ``values[i * step]`` is one value for ``lo <= i < hi`` (a contiguous slice
    compared with its first value: a vectorized loop)."""
    if step == 0:
        return True
    if values[lo] != values[hi - 1]:  # rows of many layouts: known at once
        return False
    part = values[lo:hi]
    first = part[0]
    differ = 0
    for j in range(part.shape[0]):  # an index loop: LLVM vectorizes it, not `for x in part`
        differ |= part[j] ^ first
    return differ == 0


@helper
def _extremes(values, low, high):
    """``min(low, values.min())``, ``max(high, values.max())``: selects over an index loop,
    which LLVM vectorizes (``min()`` over ``for c in values`` it leaves scalar, 10x slower)."""
    for j in range(values.shape[0]):
        c = values[j]
        low = c if c < low else low
        high = c if c > high else high
    return low, high


@kernel("i64[]r bool[]r")
def extremes(values, valid):
    """``(values.min(), values.max())`` of a non-empty int64 array in one vectorized pass
    (NumPy's two reductions read it twice).

    ``valid``, unless empty, is a bool a row: a row where it is False counts as 0, the
    placeholder ``format_fixed`` writes for a null row (never wider than another row), so
    the widest row follows from the result as from a copy of ``values`` with the null rows
    zeroed, without the copy (NumPy's ``minimum.reduce(where=)`` is slower than the copy)."""
    low, high = _I64(np.iinfo(np.int64).max), _I64(np.iinfo(np.int64).min)
    if valid.shape[0] == 0:
        return _extremes(values, low, high)
    for j in range(values.shape[0]):
        c = values[j] if valid[j] else _I64(0)
        low = c if c < low else low
        high = c if c > high else high
    return low, high


@helper
def _layout_slot(d, s):
    """Row of :func:`widest_of_layouts`' table for ``d = e + s`` and ``s`` (-1: none)."""
    return (d + 20) * 16 + s if (s >= 0) & (s < 16) & (d >= -20) & (d < 16) else -1


#: Rows :func:`widest_of_layouts` checks for one layout at a time.
_RUN = 256


#: Rows of :func:`widest_of_layouts`' table: the layouts', then room for a stretch's slots.
TABLE_ROWS = LAYOUTS + _RUN


@helper
def _table_rows(exps, estep, scales, sstep, m, slots, staged):
    """Each of ``m`` rows' row in :func:`widest_of_layouts`' table, in ``slots`` (-1 for
    a layout outside it); return whether any is outside. The exponents and scales are
    staged first (``staged``: room for ``m`` scales), so that every loop is vectorized."""
    _copy_int64(exps, estep, m, slots)
    _copy_int64(scales, sstep, m, staged)
    outside = 0
    for j in range(m):
        s = staged[j]
        t = _layout_slot(slots[j] + s, s)
        slots[j] = t
        outside += _I64(t < 0)
    return outside > 0


@helper
def _copy_int64(values, step, m, out):
    """``out[j] = values[j * step]`` for ``j < m``, ``step`` 0 or 1 (vectorized loops)."""
    if step == 0:
        v = _I64(values[0])
        for j in range(m):
            out[j] = v
    else:
        for j in range(m):
            out[j] = _I64(values[j])


@kernel("i64 i64 i64[]r i64 i32[]r i64 i32[]r i64 i64 i32[] i64[,]")
def widest_of_layouts(start, stop, coef, cstep, exps, estep, scales, sstep, limit, hints, table):
    """The longest row among rows ``start:stop`` (capped at ``limit + 1``), for rows whose
    exponents or scales vary: a row's length only grows with ``|c|`` under one layout, so
    the smallest and the largest coefficient of each layout decide; rows of other layouts
    are measured one by one. ``table``: an int64 ``(TABLE_ROWS, 2)`` array to work in.

    Much cheaper than measuring every row (``format_rows`` writes the lengths as it writes
    the rows): a stretch of :data:`_RUN` rows of one layout (a table grouped by instrument)
    costs two vectorized passes; in other stretches a vectorized pass finds each row's
    table row, then each row compares its coefficient with its layout's extremes, and
    stores only a new one: once a layout has had a few rows that is rare, and the branch
    well predicted, so that rows do not wait on each other's stores (1.66-1.72 -> 1.12-1.16
    ns a row on the ``prices`` mix against updates without a branch in four copies of the
    table, which were 3.1 -> 1.2 against one copy; a column whose rows keep making new
    extremes at random, the worst case, 1.34 -> 2.1).

    Unless ``hints`` is empty, ``hints[i]`` at the first row ``i`` of each stretch of
    :data:`_RUN` rows from ``start`` (the last one may be shorter) gets the stretch's slot
    in the table when its rows share one layout, else -1: ``format_rows``' :data:`HINTED`
    fill over the same rows reads them (``hints`` is its ``lengths``).
    """
    if table.shape[0] < TABLE_ROWS or table.shape[1] < 2:
        raise ValueError("widest_of_layouts: table smaller than (TABLE_ROWS, 2)")
    spare = table[LAYOUTS:TABLE_ROWS].reshape(2 * _RUN)  # contiguous: vectorized
    slots, staged = spare[:_RUN], spare[_RUN:]
    cap = max(limit, 0) + 1
    for t in range(table.shape[0]):
        table[t, 0] = np.iinfo(np.int64).max
        table[t, 1] = np.iinfo(np.int64).min
    widest = 0
    hinted = hints.shape[0] > 0
    last, low, high = 0, table[0, 0], table[0, 1]  # the current run's layout in registers
    for i0 in range(start, stop, _RUN):
        i1 = min(i0 + _RUN, stop)
        e0, s0 = _I64(exps[i0 * estep]), _I64(scales[i0 * sstep])
        t = _layout_slot(e0 + s0, s0)
        if t >= 0 and _one_value(exps, estep, i0, i1) and _one_value(scales, sstep, i0, i1):
            if hinted:
                hints[i0] = t
            if t != last:
                table[last, 0], table[last, 1] = low, high
                last, low, high = t, table[t, 0], table[t, 1]
            low, high = _extremes(coef[i0:i1], low, high)
            continue
        if hinted:
            hints[i0] = -1
        table[last, 0], table[last, 1] = low, high
        es, ss = exps[i0 * estep :], scales[i0 * sstep :]
        if _table_rows(es, estep, ss, sstep, i1 - i0, slots, staged):
            for j in range(i1 - i0):  # rare: layouts outside the table, measured alone
                if slots[j] < 0:
                    i = i0 + j
                    e, s = _I64(exps[i * estep]), _I64(scales[i * sstep])
                    widest = max(widest, min(_row_length(coef[i], e, s), cap))
        part = coef[i0:i1]
        for j in range(i1 - i0):
            k = slots[j]
            if k >= 0:  # (rarely not)
                c = part[j]
                if c < table[k, 0]:  # a new extreme: rare once a layout has had rows
                    table[k, 0] = c
                if c > table[k, 1]:
                    table[k, 1] = c
        low, high = table[last, 0], table[last, 1]
    table[last, 0], table[last, 1] = low, high
    for t in range(LAYOUTS):
        lo, hi = table[t, 0], table[t, 1]
        if lo <= hi:
            s = t % 16
            e = t // 16 - 20 - s
            widest = max(widest, min(_row_length(lo, e, s), cap))
            widest = max(widest, min(_row_length(hi, e, s), cap))
    return widest


@kernel("i64[]r i64 i64 u8[] i32[]")
def format_few(coef, exponent, scale, buf, lengths):
    """Write the rows ``coef`` of one ``exponent`` and ``scale`` (any int64s) into a matrix
    as wide as their widest row; return that width, or -1, having written nothing, for a
    call that is not its own: an exponent or scale outside int32, a row holding int64 max
    or min (the usual null sentinels: the caller's general path decides what they are), or
    rows that do not fit ``buf``.

    Row ``i`` goes to ``buf[i * widest:][:widest]``, zero-padded, its length to
    ``lengths[i]``; ``buf`` needs ``len(coef) * widest + 8`` bytes. One scalar pass of
    the general path (:func:`_write_row`), the widest row found from the smallest and the
    largest coefficient (a row's length only grows with ``|c|``): :func:`format_rows`'
    passes cost more than this for a handful of rows (``format_fixed``'s call of a
    trading loop).

    Examples
    --------
    >>> import numpy as np
    >>> coef = np.array([5000_250000000, -4_000050000, 7], dtype=np.int64)
    >>> buf, lengths = np.zeros(3 * 24 + 8, dtype=np.uint8), np.zeros(3, dtype=np.int32)
    >>> widest = int(format_few(coef, -9, 4, buf, lengths))
    >>> [bytes(buf[widest * i : widest * i + n]) for i, n in enumerate(lengths)]
    [b'5000.2500', b'-4.0001', b'0.0000']
    >>> int(format_few(np.array([7, 2**63 - 1]), -9, 4, buf, lengths))
    -1
    """
    n = coef.shape[0]
    if not (_INT32_MIN <= exponent <= _INT32_MAX and _INT32_MIN <= scale <= _INT32_MAX):
        return -1
    if n == 0:
        return 0
    lo, hi = _extremes(coef, coef[0], coef[0])
    if lo == _I64(np.iinfo(np.int64).min) or hi == _I64(np.iinfo(np.int64).max):
        return -1
    widest = max(_row_length(lo, exponent, scale), _row_length(hi, exponent, scale))
    if n * widest + 8 > buf.shape[0]:
        return -1
    for i in range(n):
        lengths[i] = _write_row(buf, i * widest, widest, coef[i], exponent, scale)
    return widest
