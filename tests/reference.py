"""A deliberately simple reference for what vecfix must print, in exact integer arithmetic.

It shares no code with vecfix and uses neither :mod:`decimal` nor floats, so that it is an
independent second truth next to the Go golden vectors. It is slow and obviously correct:

1. The value is ``c * 10**e``. Printing it with ``s`` decimals means printing the integer
   ``round(|c| * 10**(e + s))`` with a decimal point ``s`` digits from the right.
2. With ``d = e + s``: if ``d >= 0`` nothing is dropped and ``q = |c| * 10**d``. Otherwise
   ``k = -d`` digits are dropped, rounding half away from zero on the magnitude:
   ``q = floor(|c| / 10**k + 1/2) = (2*|c| + 10**k) // (2 * 10**k)``.
3. The sign is printed only when ``c < 0`` and ``q != 0`` (never a negative zero).
4. ``s > 0``: the digits of ``q``, left-padded with zeros to at least ``s + 1`` digits,
   with a point before the last ``s``. ``s <= 0``: ``q`` is a count of units of
   ``10**-s``, so its digits followed by ``-s`` zeros (just ``"0"`` when ``q == 0``).
"""

from __future__ import annotations


def reference_fixed(c: int, e: int, s: int) -> str:
    """``c * 10**e`` rounded half away from zero to ``s`` decimals, as StringFixed prints it.

    Parameters
    ----------
    c : int
        Coefficient, any size.
    e : int
        Exponent (keep it modest: the work grows with ``|e + s|``).
    s : int
        Scale: digits after the point; negative rounds to a multiple of ``10**-s``.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> reference_fixed(-125, -3, 2)
    '-0.13'
    >>> reference_fixed(-4, -3, 2)
    '0.00'
    >>> reference_fixed(-150, 0, -2)
    '-200'
    """
    c, e, s = int(c), int(e), int(s)
    a = abs(c)
    d = e + s
    if d >= 0:
        q = a * 10**d
    else:
        p = 10 ** (-d)
        q = (2 * a + p) // (2 * p)
    sign = "-" if c < 0 and q != 0 else ""
    if s <= 0:
        return sign + (str(q) + "0" * (-s) if q else "0")
    digits = str(q).rjust(s + 1, "0")
    return sign + digits[:-s] + "." + digits[-s:]
