"""vecfix's Numba kernels, all of them, one module per concern.

* :mod:`~vecfix._kernels.fixed`: rounding and writing ``format_fixed``'s rows;
* :mod:`~vecfix._kernels.text`: decimal text in, rows of text copied and justified out;
* :mod:`~vecfix._kernels.fix`: FIX fields and messages;
* :mod:`~vecfix._kernels.fixtick`: the per-tick call of MassQuote (35=i) in one kernel;
* :mod:`~vecfix._kernels.fixread`: FIX messages scanned back (framing, fields, groups);
* :mod:`~vecfix._kernels.fixcolumns`: the columns of a scanned log (strings, numbers,
  timestamps).

Nothing is imported here: importing one module compiles (or loads) only its own kernels,
on their first call. Every Numba option is decided in :mod:`vecfix._jit`.
"""

#: The ``status`` a row gets from :func:`vecfix._kernels.text.parse_decimal` (and from the
#: plain-Python parser of :mod:`vecfix.columns.text`, which follows the same grammar).
OK = 0
BIG = 1  # valid text whose coefficient is beyond int64: the caller parses it exactly
INVALID = 2  # not decimal text
EXPONENT_RANGE = 3  # valid text whose exponent is outside int32

#: FIX's field separator.
SOH = 1
