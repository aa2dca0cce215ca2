"""How many bytes a stretch of rows of one layout prints, without formatting them.

Under one exponent ``e`` and scale ``s`` a row's length only depends on how many of a few
thresholds ``|c|`` reaches. With ``d = e + s`` and ``M`` the rounded integer (see
:mod:`vecfix._kernels.fixed`), the text of a row is ``base`` bytes, plus ``w0`` once ``M >= 1``
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
_U64 = np.uint64
_TOP = np.uint64(2**63)  # |c| of the most negative int64: the largest magnitude


class Thresholds(NamedTuple):
    """A layout's row lengths as counts: a row prints ``base`` bytes plus ``weight[t]``
    for each ``t`` where ``c`` is outside ``first[t]..last[t]`` (int64 arrays)."""

    base: int
    first: np.ndarray
    last: np.ndarray
    weight: np.ndarray


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
    >>> t.first.tolist()[0], t.last.tolist()[0]  # |c| >= 9999950000 rounds to 10.0000
    (-9999949999, 9999949999)
    >>> t.first.tolist()[-1], t.last.tolist()[-1] == 2**63 - 1  # c <= -50000: -0.0001
    (-49999, True)
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
    last: list[int] = []
    weight: list[int] = []

    def add(t: int, w: int, sign_only: bool = False) -> None:
        """Count ``w`` for ``|c| >= t`` (``c <= -t`` with ``sign_only``)."""
        if t > largest or w == 0 or (sign_only and low > -t):  # no coefficient gets there
            return
        first.append(1 - t)  # counted: c outside first..last
        last.append(INT64_MAX if sign_only else t - 1)
        weight.append(w)

    add(least(1), max(zeros - max(s, 0), 0))  # M >= 1: its zeros beyond the minimum
    k = max(1, wide - zeros)
    while least(10**k) <= largest:
        add(least(10**k), 1)  # one more digit
        k += 1
    add(least(1), 1, sign_only=True)  # the sign of a nonzero M
    as_int64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    point = 1 if s > 0 else 0
    return Thresholds(wide + point, as_int64(first), as_int64(last), as_int64(weight))


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
    counted = count_past(start, stop, coef, layout.first, layout.last, layout.weight)
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
def count_past(start, stop, coef, first, last, weight):
    """``sum(weight[t] * count(coef[i] < first[t] or coef[i] > last[t]))`` over rows
    ``start:stop`` and every ``t``, a block of rows at a time.

    A block's smallest and largest ``c`` and smallest ``|c|`` (one vectorized pass)
    settle most thresholds for the whole block: every row inside ``first..last``, or
    every row outside (``|c|`` past ``last`` for a two-sided one, ``last = -first``;
    ``c`` below ``first`` for the sign, ``last = INT64_MAX``). The others are counted,
    a vectorized pass each: ``uint64(c) - uint64(first) > uint64(last - first)``, one
    subtraction and one comparison a row.
    """
    total = 0
    for i0 in range(start, stop, _BLOCK):
        part = coef[i0 : min(i0 + _BLOCK, stop)]
        n = part.shape[0]
        low, high, least = part[0], part[0], _TOP
        for j in range(n):
            c = part[j]
            low, high = min(low, c), max(high, c)
            least = min(least, _U64(c) if c >= 0 else _wrapped(_U64(0), _U64(c)))
        for t in range(first.shape[0]):
            lo, hi, w = first[t], last[t], weight[t]
            if low >= lo and high <= hi:  # every row inside
                continue
            if (high < lo) | ((hi == -lo) & (least > _U64(hi))):  # every row outside
                total += w * n
                continue
            base, most = _U64(lo), _wrapped(_U64(hi), _U64(lo))
            count = 0
            for j in range(n):
                count += _wrapped(_U64(part[j]), base) > most
            total += w * count
    return total
