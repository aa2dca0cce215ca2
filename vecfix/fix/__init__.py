"""FIX on the wire: fields and whole messages for a batch, built in one buffer.

FIX engines build each field into a fresh slice and each message into a fresh buffer.
Here a whole batch is laid out by Numba kernels (measure, then fill) into a single
contiguous ``uint8`` buffer with an offsets array: no Python object per field or per
message until you ask for one.

* :func:`fields` writes ``TAG=VALUE|`` per row, into a new buffer or a caller's buffer.
* :func:`snapshots` builds MarketDataSnapshotFullRefresh (``35=W``) messages.
* :func:`incremental` builds MarketDataIncrementalRefresh (``35=X``) messages.
* :func:`quotes` builds Quote (``35=S``) messages, one per quote.
* :func:`mass_quotes` builds MassQuote (``35=i``) messages: many quotes per message.
* :class:`Header` carries sender, target and begin string, and numbers messages (``34``)
  across calls; :func:`sending_time` writes datetimes as FIX ``UTCTimestamp`` (``52``).
* :func:`read` reads messages back (any FIX log, not only vecfix's) into a
  ``pyarrow.Table``: one row per group entry, prices as exact decimals, every
  BodyLength and CheckSum checked.

Prices and sizes go through :func:`vecfix.format_fixed`, so a ``270`` field holds exactly
the text of shopspring/decimal's ``StringFixed``; a null leaves its field out. Each
builder takes the header (``header=``, a :class:`Header`: required) and one
:class:`vecfix.NumberFormat` for its prices (``price=``; integer prices need one, e.g.
``NumberFormat(-9, 2)`` for CME PRICE9) and one for its sizes (``size=``; whole-number
sizes need none); decimals are printed as written unless a format gives a scale. BodyLength
(``9``) and CheckSum (``10``) are computed by the kernels over the bytes actually written.
Columns are paired by position; pandas Series given for one kind of row (entries, or
instruments) must share an index, as in :func:`vecfix.format_fixed`. Below, ``|`` stands
for SOH.

>>> import vecfix, vecfix.fix as fix
>>> head = fix.Header("VECFIX", "CLIENT")
>>> msgs = fix.snapshots(
...     ["ESZ4"], [2], ["0", "1"], [5000_250000000, 5000_500000000], [7, 12],
...     price=vecfix.NumberFormat(-9, 2), header=head, sending_time="20240102-03:04:05.678",
... )
>>> print(msgs[0].replace(b"\\x01", b"|").decode())
8=FIX.4.4|9=118|35=W|49=VECFIX|56=CLIENT|34=1|52=20240102-03:04:05.678|55=ESZ4|268=2|269=0|270=5000.25|271=7|269=1|270=5000.50|271=12|10=084|
>>> head.next_seq
2
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._buffers import FieldBuffer, Messages
from ._builders import MAX_TAG, fields, quotes, snapshots
from ._header import Header, sending_time
from ._publish import incremental, mass_quotes

if TYPE_CHECKING:
    from ._read import read

__all__ = [
    "MAX_TAG",
    "FieldBuffer",
    "Header",
    "Messages",
    "fields",
    "incremental",
    "mass_quotes",
    "quotes",
    "read",
    "sending_time",
    "snapshots",
]


def __getattr__(name: str) -> object:
    """:func:`read` is imported on first use (its kernels load with it)."""
    if name == "read":
        from ._read import read

        globals()["read"] = read
        return read
    raise AttributeError(f"module 'vecfix.fix' has no attribute {name!r}")
