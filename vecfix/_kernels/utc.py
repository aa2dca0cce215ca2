"""The one ``UTCTimestamp`` rule (:func:`vecfix._utc.utc_fields`) compiled, over a column
of values: :func:`vecfix.fix.read`'s timestamp columns and the FIX writers' long columns
of timestamp text go through :func:`parse_utc`."""

from __future__ import annotations

from .._jit import kernel
from .._utc import OK, utc_fields
from .words import prefetch

AHEAD = 16  # values ahead whose bytes are fetched
#: The rule, compiled on its own (not inlined: a call then passes ``data`` without
#: counting references, as an inlined helper would at every value).
_fields = kernel(utc_fields)


@kernel("u8[]r i64[,]r bool i64[] i64[] i64[] u8[]")
def parse_utc(data, pairs, time_only, secs, frac, ndig, status):
    """Each value ``data[pairs[j, 0]:pairs[j, 1]]`` by the rule: ``status[j]`` (``OK`` or
    ``BAD``), ``secs[j]``, ``frac[j]`` and ``ndig[j]`` as :func:`~vecfix._utc.utc_fields`
    gives them. Returns the most fraction digits of a good value (-1 if none)."""
    most = -1
    n = pairs.shape[0]
    for j in range(n):
        prefetch(data, pairs[min(j + AHEAD, n - 1), 0])  # values lie a message apart
        code, s, f, nd = _fields(data, pairs[j, 0], pairs[j, 1] - pairs[j, 0], time_only)
        status[j] = code
        secs[j] = s
        frac[j] = f
        ndig[j] = nd
        if code == OK and nd > most:
            most = nd
    return most
