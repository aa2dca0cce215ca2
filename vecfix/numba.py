"""vecfix's row writer for your own Numba code: a price's exact text inside ``@njit`` loops.

:func:`fixed_length` and :func:`write_fixed` print ``coefficient * 10**exponent`` with
``scale`` decimals, byte for byte as :func:`vecfix.format_fixed` (shopspring/decimal's
``StringFixed``) does, for every int64 coefficient and every int32 exponent and scale.
They are the row writer vecfix's own kernels use (:mod:`vecfix._kernels.rows`), not a
copy, and they are Numba functions: call them from nopython code (a custom wire format, a
CSV line, an SBE-to-FIX bridge). Importing this module imports Numba; ``import vecfix``
does not.

``write_fixed(buf, pos, c, e, s)`` writes the text at ``buf[pos:]`` of a 1-D ``uint8``
array and returns where it ends. A row that does not fit writes nothing at all and
returns the negated end it would need, ``-(pos + fixed_length(c, e, s))``, so that a
result below 0 says "grow ``buf`` to at least ``-result`` bytes". A ``pos`` below 0, or
an exponent or a scale outside int32, raises :class:`ValueError`.

A row's text may be long (``scale`` digits after the point, ``exponent`` zeros before
it): :func:`vecfix.format_fixed` refuses rows past :data:`vecfix.MAX_ROW_LENGTH` bytes,
these functions print any row the buffer holds.

Examples
--------
One CSV line a quote, in a loop of your own:

>>> import numpy as np, numba
>>> from vecfix.numba import fixed_length, write_fixed
>>> @numba.njit
... def csv_lines(bid, offer, exponent, scale, buf):
...     pos = 0
...     for i in range(bid.shape[0]):
...         pos = write_fixed(buf, pos, bid[i], exponent, scale)
...         if pos < 0:  # buf too small: nothing was written past it
...             return pos
...         buf[pos] = ord(",")
...         pos = write_fixed(buf, pos + 1, offer[i], exponent, scale)
...         if pos < 0:
...             return pos
...         buf[pos] = ord("\\n")
...         pos += 1
...     return pos
>>> bid = np.array([5000_250000000, -12_345000000], dtype=np.int64)
>>> offer = np.array([5000_500000000, 125], dtype=np.int64)
>>> buf = np.zeros(64, dtype=np.uint8)
>>> end = csv_lines(bid, offer, -9, 2, buf)
>>> print(buf[:end].tobytes().decode(), end="")
5000.25,5000.50
-12.35,0.00
>>> int(csv_lines(bid, offer, -9, 2, buf[:10]))  # the second value needs 15 bytes
-15

The length alone, to size a buffer:

>>> @numba.njit
... def total(coef, exponent, scale):
...     n = 0
...     for c in coef:
...         n += fixed_length(c, exponent, scale)
...     return n
>>> int(total(bid, -9, 2)), int(total(offer, -9, 2))
(13, 11)
"""

from __future__ import annotations

from ._kernels.rows import _fixed_length as fixed_length
from ._kernels.rows import _write_fixed as write_fixed

__all__ = ["fixed_length", "write_fixed"]
