"""How many bytes a stretch of rows of one layout prints, without formatting them.

Under one exponent ``e`` and scale ``s`` a row's length only depends on how many of a few
thresholds ``|c|`` reaches. With ``d = e + s`` and ``M`` the rounded integer (see
:mod:`vecfix._kernels`), the text of a row is ``base`` bytes, plus ``w0`` once ``M >= 1``
(the zeros that follow ``M`` beyond the scale's ``s + 1`` digits), plus one for each power
``10**k`` (``k >= k0``) that ``M`` reaches, plus one for the sign when ``c < 0`` and ``M
>= 1``. ``M >= m`` exactly when ``|c| >= T(m)``, the smallest magnitude that rounds (half
away from zero) to ``m`` or more: ``m`` itself for ``d >= 0``, ``m * 10**K - 5 * 10**(K -
1)`` when ``K = -d`` digits are dropped. So the text of ``n`` rows is ``n * base`` plus
weighted counts of 64-bit comparisons, which :func:`count_past` makes a block of rows at a
time in loops LLVM turns into vector code (``|c| >= T`` is ``c > T - 1 or c < 1 - T``: no
absolute value, exact for the most negative int64).

:func:`vecfix._format._pack_split` uses it so that each thread of
``format_fixed(layout="arrow")`` writes its rows where they end up in Arrow's layout.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from ._jit import helper, kernel
from ._limits import INT64_MAX, INT64_MIN

#: Rows :func:`count_past` compares with every threshold before it moves on: 16 KiB of
#: coefficients, which stay in the L1 cache.
_BLOCK = 2048


class Thresholds(NamedTuple):
    """A layout's row lengths as counts: a row prints ``base`` bytes plus ``weight[t]``
    for each ``t`` where ``c`` is outside ``[low[t], low[t] + span[t]]`` (as uint64:
    ``uint64(c) - low[t] > span[t]``, one comparison)."""

    base: int
    low: np.ndarray  # uint64: the interval's first int64, as uint64
    span: np.ndarray  # uint64: its last minus its first
    weight: np.ndarray  # int64


def thresholds(
    exponent: int, scale: int, low: int = INT64_MIN, high: int = INT64_MAX
) -> Thresholds:
    """The :class:`Thresholds` of layout ``(exponent, scale)`` for int64 coefficients
    from ``low`` to ``high`` (the thresholds no such coefficient reaches are left out).

    Examples
    --------
    >>> t = thresholds(-9, 4, -(10**14), 10**14)  # PRICE9 at scale 4: 0.0000 at least
    >>> t.base, t.weight.tolist()  # then 10.0000, 100.0000 ... 100000.0000 and the sign
    (6, [1, 1, 1, 1, 1, 1])
    >>> [int(x) for x in t.low.astype(np.int64)[[0, -1]]], int(t.span[0])
    ([-9999949999, -49999], 19999899998)
    >>> thresholds(-9, 4, 0, 10**14 - 1).weight.tolist()  # 99999.99999999 is 100000.0000
    [1, 1, 1, 1, 1]
    """
    s, d = scale, exponent + scale
    wide = max(s, 0) + 1  # the digits a row prints at least (0.00 for scale 2)
    zeros = d + max(-s, 0) if d >= 0 else max(-s, 0)  # after M's digits
    largest = max(abs(low), abs(high))  # the largest |c| (2**63 for INT64_MIN)

    def least(m: int) -> int:  # the smallest |c| that rounds to m or more (m >= 1)
        if d >= 0:
            return m
        k = -d
        return m * 10**k - 5 * 10 ** (k - 1)

    first: list[int] = []
    span: list[int] = []
    weight: list[int] = []

    def add(t: int, w: int, sign_only: bool = False) -> None:
        """Count ``w`` for ``|c| >= t`` (``c <= -t`` with ``sign_only``)."""
        if t > largest or w == 0 or (sign_only and low > -t):  # no coefficient gets there
            return
        lo, hi = 1 - t, INT64_MAX if sign_only else t - 1  # counted: c outside lo..hi
        first.append(lo % 2**64)
        span.append(hi - lo)
        weight.append(w)

    add(least(1), max(zeros - max(s, 0), 0))  # M >= 1: its zeros beyond the minimum
    k = max(1, wide - zeros)
    while least(10**k) <= largest:
        add(least(10**k), 1)  # one more digit
        k += 1
    add(least(1), 1, sign_only=True)  # the sign of a nonzero M
    return Thresholds(
        wide + (1 if s > 0 else 0),
        np.array(first, dtype=np.uint64),
        np.array(span, dtype=np.uint64),
        np.array(weight, dtype=np.int64),
    )


def text_size(start: int, stop: int, coef: np.ndarray, layout: Thresholds) -> int:
    """Bytes that rows ``start:stop`` of the int64 ``coef`` print under ``layout``.

    Examples
    --------
    >>> c = np.array([0, -4_999, -5_000, 99_995_000, 99_994_999, -(2**63)], dtype=np.int64)
    >>> text_size(0, 6, c, thresholds(-4, 0))  # 0 0 -1 10000 9999 -922337203685478
    29
    """
    if stop <= start:
        return 0
    counted = count_past(start, stop, coef, layout.low, layout.span, layout.weight)
    return (stop - start) * layout.base + int(counted)


def _wrapped_python(a: np.uint64, b: np.uint64) -> np.uint64:
    """``a - b`` modulo 2**64 for ``NUMBA_DISABLE_JIT=1``, without NumPy's overflow
    warning."""
    return np.uint64((int(a) - int(b)) % 2**64)


@helper
def _wrapped_compiled(a, b):
    """``a - b`` of two uint64, modulo 2**64 (as the machine does it)."""
    return a - b


#: ``a - b`` of two uint64 modulo 2**64, in the kernels and in plain Python alike.
_wrapped = _wrapped_python if numba.config.DISABLE_JIT else _wrapped_compiled  # type: ignore[attr-defined]


@kernel
def count_past(start, stop, coef, low, span, weight):
    """``sum(weight[t] * count(uint64(coef[i]) - low[t] > span[t]))`` over rows
    ``start:stop`` and every ``t``: a block of rows at a time, one threshold at a time
    (a vectorized count: one subtraction and one comparison a row)."""
    total = 0
    for i0 in range(start, stop, _BLOCK):
        part = coef[i0 : min(i0 + _BLOCK, stop)]
        for t in range(low.shape[0]):
            first, most = low[t], span[t]
            count = 0
            for j in range(part.shape[0]):
                count += _wrapped(np.uint64(part[j]), first) > most
            total += weight[t] * count
    return total
