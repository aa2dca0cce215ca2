"""FIX's ``UTCTimestamp`` and ``UTCTimeOnly``: the one rule the FIX writers and
:func:`vecfix.fix.read` both check text by.

``YYYYMMDD-HH:MM:SS`` (``UTCTimestamp``) or ``HH:MM:SS`` (``UTCTimeOnly``), then no
fraction or one of 3, 6 or 9 digits after a ``.`` (milliseconds, microseconds,
nanoseconds); every field of two or four ASCII digits; a month of 01-12, a day that exists
in it (Gregorian leap years: 2000 and 2024 have a February 29, 1900 and 2023 do not), hours
00-23, minutes 00-59, seconds 00-60. Years 0000-9999 are all allowed (FIX does not say
otherwise); second 60 is the leap second FIX allows at any minute.

A leap second is read as POSIX time and Python's :func:`calendar.timegm` count it: as the
next second (``20161231-23:59:60.250`` is ``2017-01-01 00:00:00.250``), since neither
Arrow, NumPy nor ``datetime`` holds a 61st second.

:func:`utc_fields` is the rule, written once in plain Python over any indexable bytes
(``bytes``): the writers call it as it is for a few values (:func:`check_column`), and
:mod:`vecfix._kernels.utc` compiles this same function for its columns (the reader's and
the writers' long ones). Nothing here imports Numba.
"""

from __future__ import annotations

from typing import Any

OK = 0
BAD = 2  # as vecfix._kernels.text's INVALID

FRACTION_DIGITS = (0, 3, 6, 9)


def utc_fields(data: Any, a: int, size: int, time_only: bool) -> tuple[int, int, int, int]:
    """Check the ``size`` bytes of ``data`` (``bytes`` or a ``uint8`` array) from ``a`` by
    the rule; return ``(status, seconds, fraction, digits)``: status :data:`OK` or
    :data:`BAD`; seconds since
    1970-01-01 (since midnight with ``time_only``), a leap second counted as the next
    second; the fraction's digits as an integer and how many there are. A bad value gives
    zeros.

    Examples
    --------
    >>> utc_fields(b"20161231-23:59:60.250", 0, 21, False)
    (0, 1483228800, 250, 3)
    >>> utc_fields(b"20230229-12:00:00", 0, 17, False)[0]  # no February 29 in 2023
    2
    """
    o = 0 if time_only else 9  # where HH:MM:SS starts
    nd = size - o - 9
    if size != o + 8 and nd != 3 and nd != 6 and nd != 9:
        return BAD, 0, 0, 0
    if nd < 0:
        nd = 0
    days = 0
    if not time_only:
        if data[a + 8] != 45:  # "-"
            return BAD, 0, 0, 0
        y0, y1, y2, y3 = (
            int(data[a]) - 48,
            int(data[a + 1]) - 48,
            int(data[a + 2]) - 48,
            int(data[a + 3]) - 48,
        )
        m0, m1, d0, d1 = (
            int(data[a + 4]) - 48,
            int(data[a + 5]) - 48,
            int(data[a + 6]) - 48,
            int(data[a + 7]) - 48,
        )
        if max(y0, y1, y2, y3, m0, m1, d0, d1) > 9 or min(y0, y1, y2, y3, m0, m1, d0, d1) < 0:
            return BAD, 0, 0, 0
        y = (y0 * 10 + y1) * 100 + y2 * 10 + y3  # (digits apart: no chain of multiplies)
        mo = m0 * 10 + m1
        d = d0 * 10 + d1
        dim = 31
        if mo == 4 or mo == 6 or mo == 9 or mo == 11:
            dim = 30
        elif mo == 2:
            dim = 29 if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else 28
        if mo < 1 or mo > 12 or d < 1 or d > dim:
            return BAD, 0, 0, 0
        yy = y - (1 if mo <= 2 else 0)  # days from civil (H. Hinnant's algorithm)
        era = yy // 400
        yoe = yy - era * 400
        doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
        days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    t = a + o
    if data[t + 2] != 58 or data[t + 5] != 58:  # ":"
        return BAD, 0, 0, 0
    h0, h1, i0, i1 = (
        int(data[t]) - 48,
        int(data[t + 1]) - 48,
        int(data[t + 3]) - 48,
        int(data[t + 4]) - 48,
    )
    s0, s1 = int(data[t + 6]) - 48, int(data[t + 7]) - 48
    if max(h0, h1, i0, i1, s0, s1) > 9 or min(h0, h1, i0, i1, s0, s1) < 0:
        return BAD, 0, 0, 0
    hh = h0 * 10 + h1
    mi = i0 * 10 + i1
    ss = s0 * 10 + s1
    if hh > 23 or mi > 59 or ss > 60:
        return BAD, 0, 0, 0
    fraction = 0
    if nd > 0:
        if data[t + 8] != 46:  # "."
            return BAD, 0, 0, 0
        for x in range(t + 9, t + 9 + nd):
            digit = int(data[x]) - 48
            if digit < 0 or digit > 9:
                return BAD, 0, 0, 0
            fraction = fraction * 10 + digit
    return OK, days * 86400 + hh * 3600 + mi * 60 + ss, fraction, nd


_FEW = 64  # values checked in plain Python; more by the compiled rule


def check_column(name: str, col: Any, time_only: bool) -> Any:
    """A writer's column of timestamp text (a :class:`~vecfix._result.Formatted`: rows of
    ``matrix``, their ``lengths``, ``valid``), checked by the rule; returned as it is, or
    ``ValueError`` naming the first row refused and its text."""
    import numpy as np

    n = len(col.lengths)
    width = col.matrix.shape[1] if col.matrix.ndim == 2 else 0
    starts = np.arange(n, dtype=np.int64) * width
    sizes = np.asarray(col.lengths, dtype=np.int64)
    if n <= _FEW:
        raw = np.ascontiguousarray(col.matrix).tobytes()  # Python's ints, not NumPy's uint8
        rule = [utc_fields(raw, int(starts[i]), int(sizes[i]), time_only)[0] for i in range(n)]
        bad = np.flatnonzero(np.array(rule, dtype=np.int64) != OK)
    else:
        from ._engine import import_kernels

        out = [np.empty(n, np.int64) for _ in range(3)]
        status = np.empty(n, np.uint8)
        pairs = np.stack([starts, starts + sizes], axis=1)
        data = np.ascontiguousarray(col.matrix).reshape(-1)
        import_kernels("utc").parse_utc(data, pairs, time_only, *out, status)
        bad = np.flatnonzero(status != OK)
    if col.valid is not None:
        bad = bad[np.asarray(col.valid)[bad]] if bad.size else bad
    if bad.size:
        from .columns.rules import show_value

        r = int(bad[0])
        text = col.matrix[r, : col.lengths[r]].tobytes().decode("ascii", "replace")
        form = "HH:MM:SS" if time_only else "a UTC timestamp YYYYMMDD-HH:MM:SS"
        raise ValueError(
            f"{name}[{r}] = {show_value(text)} is not {form}[.sss, .ssssss or .sssssssss]"
        )
    return col
