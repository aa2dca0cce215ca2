"""Batch publishing: MassQuote (35=i) and MarketDataIncrementalRefresh (35=X).

Both take flat columns (one row per quote entry or market-data entry) and a grouping;
their bodies are measured with NumPy (sums of field lengths) and written by one kernel
each, in one buffer like the other builders'.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import format_fixed
from .._arrow import offsets
from .._engine import import_kernels
from .._number_format import NumberFormat
from .._result import Formatted
from .._scalar import MAX_ROW_LENGTH
from ..columns import ColumnLike
from ..columns.rules import show_value
from ._buffers import Messages
from ._builders import PLAIN_QUOTES, POWERS, TimeLike, _one_call, group_starts, ndigits
from ._columns import (
    _fix,
    all_valid,
    check_rows,
    checked_int,
    codes,
    identifier,
    parts,
    plain_text,
    require_a_price,
    text_column,
    with_fields,
)
from ._header import Header, check_header, frame, one_time, times_for, timestamps
from ._numbers import (
    QUOTE_NAMES,
    WHOLE,
    check_formats,
    number_column,
    plain_coefficients,
    plain_layout,
    quote_columns,
    read_numbers,
)


def _prefixed(prefix: bytes, numbers: range) -> Formatted:
    """``prefix`` followed by the digits of each number."""
    digits = format_fixed(np.arange(numbers.start, numbers.stop, dtype=np.int64), 0, 0)
    matrix = np.zeros((len(numbers), len(prefix) + digits.matrix.shape[1]), dtype=np.uint8)
    matrix[:, : len(prefix)] = np.frombuffer(prefix, np.uint8)
    matrix[:, len(prefix) :] = digits.matrix
    return Formatted(matrix, (digits.lengths + len(prefix)).astype(np.int32))


def _digit_total(x: np.ndarray) -> np.ndarray:
    """Decimal digits written for all of ``1, 2, ..., x`` (0 for ``x = 0``), for each ``x``:
    every number ``>= 10**(d - 1)`` has a ``d``-th digit (one pass over a row a power)."""
    return np.maximum(x[:, None] - POWERS + 1, 0).sum(axis=1)


def _pack(set_total: np.ndarray, limit: int) -> tuple[np.ndarray, ...]:
    """Quote sets into messages of at most ``limit`` entries (see :func:`pack_sets`).

    Returns, per fragment (a set's part in one message): its set, its entry count, its
    first entry (and the end, ``frag_entries[-1]``) and its LastFragment flag (``0`` for
    a set not cut, else ``N``/``Y``); and per message its first fragment (and the end).
    """
    cap = set_total.size + int(set_total.sum()) // limit + 1
    frag_set, frag_len, msg_frags = (np.empty(k, np.int64) for k in (cap, cap, cap + 1))
    counts = np.zeros(2, np.int64)
    _fix().pack_sets(set_total, limit, frag_set, frag_len, msg_frags, counts)
    n_frags, m = int(counts[0]), int(counts[1])
    frag_set, frag_len, msg_frags = frag_set[:n_frags], frag_len[:n_frags], msg_frags[: m + 1]
    frag_entries = offsets(frag_len)
    split = np.bincount(frag_set, minlength=set_total.size)[frag_set] > 1
    last = np.append(frag_set[1:] != frag_set[:-1], True) if n_frags else split
    frag_flag = np.where(split, np.where(last, ord("Y"), ord("N")), 0).astype(np.uint8)
    return frag_set, frag_len, frag_entries, frag_flag, msg_frags


def _quote_sets(quote_set_ids: ColumnLike, n: int, limit: int) -> tuple[np.ndarray, Formatted]:
    """Where each quote set starts (and the end, ``n``) and its QuoteSetID: runs of equal
    IDs in ``quote_set_ids`` (one per entry), or sets of ``limit`` rows numbered from 1."""
    if quote_set_ids is None:
        starts = np.append(np.arange(0, n, limit, dtype=np.int64), n)
        return starts, format_fixed(np.arange(1, starts.size, dtype=np.int64), 0, 0)
    ids = text_column("quote_set_ids", quote_set_ids, rows=n, what="quote entry")
    if n == 0:
        return np.zeros(1, np.int64), ids
    rows = np.where(np.arange(ids.matrix.shape[1]) < ids.lengths[:, None], ids.matrix, 0)
    new = np.ones(n, dtype=np.bool_)
    new[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    heads = np.flatnonzero(new)
    keys = np.ascontiguousarray(rows[heads]).view(f"S{rows.shape[1]}").reshape(-1)
    order = np.argsort(keys, kind="stable")
    again = order[1:][keys[order[1:]] == keys[order[:-1]]]  # sets whose ID came before
    if again.size:
        s = int(again.min())
        first = int(heads[np.argmax(keys[:s] == keys[s])])
        raise ValueError(
            f"quote_set_ids[{int(heads[s])}] = {show_value(keys[s].decode())} comes back after"
            f" another set (its set began at row {first})\nA set's entries must be consecutive"
            " rows: sort or group the rows by set first"
        )
    return np.append(heads, n).astype(np.int64), Formatted(rows[heads], ids.lengths[heads])


def _sums(lengths: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sum of ``lengths[starts[g]:starts[g + 1]]`` for every group ``g``."""
    total = offsets(lengths)
    return total[starts[1:]] - total[starts[:-1]]


def mass_quotes(
    symbols: ColumnLike,
    bid_px: Formatted | ColumnLike,
    offer_px: Formatted | ColumnLike,
    bid_size: Formatted | ColumnLike,
    offer_size: Formatted | ColumnLike,
    *,
    quote_set_ids: ColumnLike = None,
    max_entries: int = 100,
    response_level: int | None = None,
    quote_entry_ids: ColumnLike = None,
    quote_ids: ColumnLike = None,
    price: NumberFormat | None = None,
    size: NumberFormat | None = None,
    header: Header,
    sending_time: TimeLike = None,
) -> Messages:
    """Build MassQuote (``35=i``) messages: a batch of two-sided quotes in few messages.

    Rows are quote entries, grouped into quote sets (``quote_set_ids``), and sets into
    messages of at most ``max_entries`` entries: a set joins the current message if it
    fits, else it starts the next one; a set larger than ``max_entries`` is cut across
    messages, each part carrying the set's total in ``304`` and LastFragment ``893=N``
    (``893=Y`` on its last part). Each message is, in FIX 4.4's order::

        8|9|35=i|49|56|34|52|117=QuoteID|[301=level|]296=NoQuoteSets|
          302=QuoteSetID|304=TotNoQuoteEntries|[893=Y/N|]295=NoQuoteEntries|
            299=QuoteEntryID|55=Symbol|132=BidPx|133=OfferPx|134=BidSize|135=OfferSize|
        10

    Parameters
    ----------
    symbols : column of str
        Symbol (``55``) per entry, as in :func:`snapshots`.
    bid_px, offer_px, bid_size, offer_size : column of int or decimals, or Formatted
        BidPx (``132``), OfferPx (``133``), BidSize (``134``), OfferSize (``135``) per
        entry, as in :func:`quotes`: a null leaves its field out, an entry needs a price.
    quote_set_ids : column of str or int, optional
        QuoteSetID (``302``) per entry: consecutive entries with the same ID form one set
        (an ID that comes back after another set's rows is refused: group the rows by set
        first; from set sizes, ``np.repeat(ids, counts)``). Default: sets of
        ``max_entries`` consecutive rows, numbered ``1``, ``2``, ...
    max_entries : int, default 100
        Most quote entries in one message (the sum of its ``295`` counts).
    response_level : int, optional
        QuoteResponseLevel (``301``), written in every message when given.
    quote_entry_ids : column of str or int, optional
        QuoteEntryID (``299``) per entry. Default: the entry's position in its set, from 1.
    quote_ids : str or column of str, optional
        QuoteID (``117``): one per message, or a prefix (default: none) to each message's
        MsgSeqNum.
    price, size, header, sending_time
        As in :func:`snapshots`.

    A tick's call (lists or NumPy arrays of ``str`` and ints, formats of ints, no
    ``quote_entry_ids``, ``quote_ids`` a prefix or none) is written by one kernel call,
    as in :func:`quotes`.

    Returns
    -------
    Messages
        The MassQuote messages, back to back in one buffer.

    Raises
    ------
    TypeError, ValueError
        As :func:`quotes` does, and for a quote set that is empty or comes back.

    Examples
    --------
    >>> import vecfix, vecfix.fix as fix
    >>> head = fix.Header("MM", "VENUE", next_seq=5)
    >>> msgs = fix.mass_quotes(
    ...     ["ESZ4", "ESH5", "NQZ4"], [5000_25, 5010_50, None], [5000_50, 5011_00, 18000_25],
    ...     [10, 5, None], [12, 5, 3], quote_set_ids=["ES", "ES", "NQ"],
    ...     price=vecfix.NumberFormat(-2, 2), header=head, sending_time="20240102-14:30:00.000",
    ... )
    >>> print(msgs[0].replace(b"\\x01", b"|").decode())
    8=FIX.4.4|9=235|35=i|49=MM|56=VENUE|34=5|52=20240102-14:30:00.000|117=5|296=2|302=ES|304=2|295=2|299=1|55=ESZ4|132=5000.25|133=5000.50|134=10|135=12|299=2|55=ESH5|132=5010.50|133=5011.00|134=5|135=5|302=NQ|304=1|295=1|299=1|55=NQZ4|133=18000.25|135=3|10=170|

    With at most two entries a message, the second set starts the next message:

    >>> msgs = fix.mass_quotes(
    ...     ["ESZ4", "ESH5", "NQZ4"], [5000_25, 5010_50, None], [5000_50, 5011_00, 18000_25],
    ...     [10, 5, None], [12, 5, 3], quote_set_ids=["ES", "ES", "NQ"], max_entries=2,
    ...     price=vecfix.NumberFormat(-2, 2), quote_ids="MQ-", header=head,
    ...     sending_time="20240102-14:30:00.000",
    ... )
    >>> [m.split(b"\\x01")[7:10] for m in msgs]
    [[b'117=MQ-6', b'296=1', b'302=ES'], [b'117=MQ-7', b'296=1', b'302=NQ']]
    """
    values = (bid_px, offer_px, bid_size, offer_size)
    if quote_entry_ids is None and type(header) is Header:
        done = _plain_mass_quotes(
            symbols, values, quote_set_ids, max_entries, response_level, quote_ids, price,
            size, header, sending_time,
        )  # fmt: skip
        if done is not None:
            return done
    head = check_header(header)
    given = quote_columns(values)
    others = {
        "symbols": symbols,
        "quote_entry_ids": quote_entry_ids,
        "quote_set_ids": quote_set_ids,
    }
    price, size = check_formats(price, size, given, others)
    syms = text_column("symbols", symbols, what="quote entry")
    n = len(syms)
    limit = checked_int("max_entries", max_entries, 1)
    cols = read_numbers(price, size, given, n, "quote entry")
    require_a_price(cols[0], cols[1], "quote entry")
    set_starts, set_ids = _quote_sets(quote_set_ids, n, limit)
    set_total = np.diff(set_starts)
    if quote_entry_ids is None:  # positions in the set, written by the kernel
        entry_ids = Formatted(np.zeros((0, 1), np.uint8), np.zeros(0, np.int32))
    else:
        entry_ids = text_column("quote_entry_ids", quote_entry_ids, rows=n, what="quote entry")
    level = b""
    if response_level is not None:
        level = b"301=%d\x01" % checked_int("response_level", response_level, 0)
    frag_set, frag_len, frag_entries, frag_flag, msg_frags = _pack(set_total, limit)
    m = msg_frags.size - 1
    if quote_ids is None or isinstance(quote_ids, (str, bytes)):  # a prefix of MsgSeqNum
        qids: Formatted | bytes = b"" if quote_ids is None else identifier("quote_ids", quote_ids)
    else:
        qids = text_column("quote_ids", quote_ids, rows=m, what="message")
    times = times_for(sending_time, head, m)
    seqs = head.reserve(m)
    if isinstance(qids, bytes):
        qids = _prefixed(qids, seqs)
    entry_bytes = with_fields(9 + syms.lengths, cols)  # 299=|55=SYM|
    if len(entry_ids):
        entry_bytes += entry_ids.lengths
    frag_bytes = _sums(entry_bytes, frag_entries) + 15 + ndigits(frag_len)
    if not len(entry_ids):  # the digits of positions p0..p1 - 1 in the set
        p0 = frag_entries[:-1] - set_starts[frag_set]
        frag_bytes += _digit_total(p0 + frag_len) - _digit_total(p0)
    frag_bytes += set_ids.lengths[frag_set] + ndigits(set_total[frag_set]) + 6 * (frag_flag != 0)
    body = _sums(frag_bytes, msg_frags) + qids.lengths + 10 + len(level)
    body += ndigits(np.diff(msg_frags))

    def write(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> int:
        return _fix().write_mass_quote_bodies(
            buf, starts, ends, qids.matrix, qids.lengths, np.frombuffer(level, np.uint8),
            msg_frags, frag_set, frag_entries, frag_flag, set_ids.matrix, set_ids.lengths,
            set_total, set_starts, entry_ids.matrix, entry_ids.lengths, syms.matrix,
            syms.lengths, *(a for col in cols for a in parts(col)),
        )  # fmt: skip

    return frame(b"i", body, write, head, seqs.start, times)


def incremental(
    actions: Any,
    entry_types: Any,
    symbols: Any,
    prices: Any,
    sizes: Any,
    *,
    entry_counts: Any = None,
    max_entries: int | None = None,
    entry_times: Any = None,
    position_nos: Any = None,
    md_req_id: str | None = None,
    price: NumberFormat | None = None,
    size: NumberFormat | None = None,
    header: Header,
    sending_time: TimeLike = None,
) -> Messages:
    """Build MarketDataIncrementalRefresh (``35=X``) messages: updates between snapshots.

    Rows are ``NoMDEntries`` (``268``) entries, written in FIX 4.4's order::

        8|9|35=X|49|56|34|52|[262=MDReqID|]268=K|
          279=MDUpdateAction|269=MDEntryType|55=Symbol|270=MDEntryPx|271=MDEntrySize|
          [273=MDEntryTime|][290=MDEntryPositionNo|]
        10

    By default the whole batch is one message; ``entry_counts`` makes one message per
    group of rows and ``max_entries`` caps the entries of a message (longer groups go on
    in the next one). A null price, size, time or position leaves its field out (a
    delete, ``279=2``, often carries no price). A tick's call (lists or NumPy arrays of
    ``str`` and ints, formats of ints, no entry times or positions) is written by one
    kernel call, as in :func:`quotes`.

    Parameters
    ----------
    actions, entry_types : int, str or column of them
        MDUpdateAction (``279``: ``0`` new, ``1`` change, ``2`` delete) and MDEntryType
        (``269``) per entry: ints 0..9 or one-character strings; a scalar applies to all.
    symbols : column of str
        Symbol (``55``) per entry, as in :func:`snapshots`.
    prices, sizes : column of int or decimals, or Formatted
        MDEntryPx (``270``) and MDEntrySize (``271``) per entry, as in :func:`snapshots`.
    entry_counts : array_like of int, optional
        Entries per message, each ``>= 1``, summing to the number of rows.
    max_entries : int, optional
        Most entries in one message.
    entry_times : str, datetime or column of either, optional
        MDEntryTime (``273``, UTCTimeOnly ``HH:MM:SS[.sss]``) per entry: text, or
        datetimes written at the header's precision.
    position_nos : column of int, optional
        MDEntryPositionNo (``290``) per entry, ``>= 1`` (nulls leave it out).
    md_req_id : str, optional
        MDReqID (``262``), written in every message.
    price, size, header, sending_time
        The formats, the standard header and SendingTime, as in :func:`snapshots`.

    Returns
    -------
    Messages
        The refreshes in one buffer.

    Raises
    ------
    TypeError, ValueError
        As :func:`snapshots` does, and for an empty group or a bad code.

    Examples
    --------
    >>> import vecfix, vecfix.fix as fix
    >>> msgs = fix.incremental(
    ...     [0, 2], [0, 1], ["ESZ4", "ESZ4"], [5000_25, None], [7, None],
    ...     price=vecfix.NumberFormat(-2, 2), header=fix.Header("MD", "C"),
    ...     sending_time="20240102-14:30:00.000",
    ... )
    >>> print(msgs[0].replace(b"\\x01", b"|").decode())
    8=FIX.4.4|9=110|35=X|49=MD|56=C|34=1|52=20240102-14:30:00.000|268=2|279=0|269=0|55=ESZ4|270=5000.25|271=7|279=2|269=1|55=ESZ4|10=010|
    """
    if entry_times is None and position_nos is None and type(header) is Header:
        done = _plain_incremental(
            actions, entry_types, symbols, (prices, sizes), entry_counts, max_entries,
            md_req_id, price, size, header, sending_time,
        )  # fmt: skip
        if done is not None:
            return done
    head = check_header(header)
    given = (("prices", "price", prices, None), ("sizes", "size", sizes, None))
    others = {"actions": actions, "entry_types": entry_types, "symbols": symbols,
              "entry_times": entry_times, "position_nos": position_nos}  # fmt: skip
    price, size = check_formats(price, size, given, others)
    syms = text_column("symbols", symbols, what="entry")
    n = len(syms)
    acts = codes("actions", actions, n, "entry")
    types = codes("entry_types", entry_types, n, "entry")
    px, sz = read_numbers(price, size, given, n, "entry")
    stamps = pos = None
    if entry_times is not None:
        stamps = timestamps("entry_times", entry_times, head.precision, time_only=True)
        if len(stamps) == 1 and n != 1:
            stamps = Formatted(np.repeat(stamps.matrix, n, axis=0), np.repeat(stamps.lengths, n))
        check_rows("entry_times", stamps, n, "entry")
    if position_nos is not None:
        pos = number_column("position_nos", "position", position_nos, WHOLE)
        check_rows("position_nos", pos, n, "entry")
        first = pos.matrix[:, 0]
        bad = all_valid(pos) & ((first == ord("-")) | ((pos.lengths == 1) & (first == ord("0"))))
        if bad.any():
            r = int(np.argmax(bad))
            raise ValueError(f"position_nos[{r}] = {pos[r]} must be >= 1")
    starts = _message_starts(entry_counts, max_entries, n)
    m = starts.size - 1
    prefix = _request_prefix(md_req_id)
    times = times_for(sending_time, head, m)
    entry_bytes = with_fields(16 + syms.lengths, [px, sz, stamps, pos])  # 279=|269=|55=|
    body = _sums(entry_bytes, starts) + len(prefix) + 5 + ndigits(np.diff(starts))
    none = Formatted(np.zeros((n, 1), np.uint8), np.zeros(n, np.int32), np.zeros(n, np.bool_))
    cols = [px, sz, none if stamps is None else stamps, none if pos is None else pos]

    def write(buf: np.ndarray, starts_: np.ndarray, ends: np.ndarray) -> int:
        return _fix().write_incremental_bodies(
            buf, starts_, ends, np.frombuffer(prefix, np.uint8), starts, acts, types,
            syms.matrix, syms.lengths, *(a for col in cols for a in parts(col)),
        )  # fmt: skip

    return frame(b"X", body, write, head, head.reserve(m).start, times)


def _message_starts(entry_counts: Any, max_entries: int | None, n: int) -> np.ndarray:
    """Where each 35=X message's entries start (and the end, ``n``): groups of
    ``entry_counts`` (default: one), longer ones cut at ``max_entries``."""
    counts = ([n] if n else []) if entry_counts is None else entry_counts
    starts = group_starts("entry_counts", counts, -1, "message", empty=False)
    if starts[-1] != n:
        raise ValueError(f"entry_counts sums to {int(starts[-1])}, but there are {n} entries")
    if max_entries is not None:  # longer groups go on in the next message
        limit = checked_int("max_entries", max_entries, 1)
        groups = np.diff(starts)
        pieces = (groups + limit - 1) // limit
        cut = np.full(int(pieces.sum()), limit, dtype=np.int64)
        cut[np.cumsum(pieces) - 1] = groups - limit * (pieces - 1)
        starts = offsets(cut)
    return starts


def _request_prefix(md_req_id: str | None) -> bytes:
    """``262=MDReqID|`` of every 35=X message, or nothing."""
    return b"" if md_req_id is None else b"262=" + identifier("md_req_id", md_req_id) + b"\x01"


def _plain_incremental(
    actions: Any,
    entry_types: Any,
    symbols: Any,
    values: tuple[Any, Any],
    entry_counts: Any,
    max_entries: int | None,
    md_req_id: str | None,
    price: Any,
    size: Any,
    header: Header,
    sending_time: TimeLike,
) -> Messages | None:
    """:func:`incremental` of the per-tick call (no entry times or positions) in one
    kernel call (:func:`~vecfix._kernels.fix.incremental_messages`), as
    :func:`vecfix.fix._builders._plain_quotes` makes quotes; None, nothing taken or
    written, for any other call or any row refused."""
    syms, layout = plain_text(symbols), plain_layout(price, size)
    if syms is None or layout is None or syms[1].size > PLAIN_QUOTES:
        return None
    n = syms[1].size
    cols = plain_coefficients(values, n)
    times = one_time(sending_time, header)
    if cols is None or times is None:
        return None
    try:  # (a bad code or grouping: the general path says so, in its order)
        acts = codes("actions", actions, n, "entry")
        types = codes("entry_types", entry_types, n, "entry")
        starts = _message_starts(entry_counts, max_entries, n)
        prefix = np.frombuffer(_request_prefix(md_req_id), np.uint8)
    except (TypeError, ValueError):
        return None
    tail = (times.matrix, int(times.lengths[0]), MAX_ROW_LENGTH, prefix, starts, acts, types,
            *syms, *cols, layout)  # fmt: skip
    kernel = _fix().incremental_messages
    return _one_call(b"X", header, ("prices", "", "sizes"), kernel, tail)


#: No QuoteSetIDs: the per-tick 35=i kernel's empty text column.
_NO_SETS = (np.zeros(1, np.uint8), np.zeros(0, np.int32), 0)


def _plain_mass_quotes(
    symbols: Any,
    values: tuple[Any, ...],
    quote_set_ids: Any,
    max_entries: Any,
    response_level: Any,
    quote_ids: Any,
    price: Any,
    size: Any,
    header: Header,
    sending_time: TimeLike,
) -> Messages | None:
    """:func:`mass_quotes` of the per-tick call (no ``quote_entry_ids``, ``quote_ids`` a
    prefix or none) in one kernel call
    (:func:`~vecfix._kernels.fixtick.mass_quote_messages`), as
    :func:`vecfix.fix._builders._plain_quotes` makes quotes; None, nothing taken or
    written, for any other call or any entry refused."""
    syms, layout = plain_text(symbols), plain_layout(price, size)
    if syms is None or layout is None:
        return None
    n = syms[1].size
    sets = _NO_SETS if quote_set_ids is None else plain_text(quote_set_ids)
    if not 0 < n <= PLAIN_QUOTES or sets is None or (sets is not _NO_SETS and sets[1].size != n):
        return None
    if type(max_entries) is not int or not 0 < max_entries < 2**62:
        return None
    if response_level is not None and (type(response_level) is not int or response_level < 0):
        return None
    cols = plain_coefficients(values, n)
    times = one_time(sending_time, header)
    if cols is None or times is None or not (quote_ids is None or type(quote_ids) is str):
        return None
    try:  # (a bad prefix: the general path says so, in its order)
        prefix = b"" if quote_ids is None else identifier("quote_ids", quote_ids)
    except (TypeError, ValueError):
        return None
    level = b"" if response_level is None else b"301=%d\x01" % response_level
    tail = (times.matrix, int(times.lengths[0]), MAX_ROW_LENGTH, np.frombuffer(prefix, np.uint8),
            np.frombuffer(level, np.uint8), max_entries, *sets, *syms, *cols, layout)  # fmt: skip
    kernel = import_kernels("fixtick").mass_quote_messages
    return _one_call(b"i", header, QUOTE_NAMES, kernel, tail)
