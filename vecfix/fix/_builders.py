"""The message builders :func:`fields`, :func:`snapshots` (35=W) and :func:`quotes` (35=S),
and what the builders share.

Each builder checks every input first (nothing is written, no sequence number taken,
before that), measures each message's body and hands the bodies' writer to
:func:`~vecfix.fix._header.frame`, which writes the standard header and trailer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _arrow
from .._limits import INT32_MAX
from .._number_format import NumberFormat
from .._result import Formatted
from .._scalar import MAX_ROW_LENGTH
from ..columns import ColumnLike
from ._buffers import FieldBuffer, Messages
from ._columns import (
    _fix,
    all_valid,
    check_aligned,
    checked_int,
    codes,
    has_formatted_shape,
    parts,
    plain_text,
    require_a_price,
    text_column,
    valid_mask,
    with_fields,
)
from ._header import Header, check_header, frame, one_time, times_for
from ._numbers import (
    QUOTE_NAMES,
    check_formats,
    formatted_column,
    plain_coefficients,
    plain_layout,
    quote_columns,
    read_numbers,
    warn_sentinel,
)

MAX_TAG: int = INT32_MAX
"""Largest tag number accepted (FIX tags are positive integers; engines hold them in int32)."""

TimeLike = Any
"""SendingTime: a str, a datetime, or a column of either (see :func:`sending_time`)."""


def _asarray(values: object) -> np.ndarray:
    """``np.asarray``, except that an empty list is int64 (NumPy makes it float64)."""
    arr = np.asarray(values)
    return arr.astype(np.int64) if arr.size == 0 and arr.dtype.kind == "f" else arr


def group_starts(name: str, counts: ColumnLike, n: int, what: str, *, empty: bool) -> np.ndarray:
    """Cumulative row boundaries of groups given by their sizes (``>= 0``, or ``>= 1``
    unless ``empty``); ``n`` groups (any number if ``n < 0``), each one per ``what``."""
    arr = _asarray(counts)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers, got dtype {arr.dtype}")
    if arr.ndim != 1 or (n >= 0 and arr.shape != (n,)):
        raise ValueError(f"{name} has shape {arr.shape}, expected ({n},): one per {what}")
    low = 0 if empty else 1
    if arr.size and arr.min() < low:
        i = int(np.argmax(arr < low))
        words = "is negative" if arr[i] < 0 else f"is empty: every {what} needs an entry"
        raise ValueError(f"{name}[{i}] = {int(arr[i])} {words}")
    return _arrow.offsets(arr)


#: ``10**k`` for ``0 <= k <= 18``.
POWERS = 10 ** np.arange(19, dtype=np.int64)


def ndigits(v: np.ndarray) -> np.ndarray:
    """Decimal digits of each ``v >= 0`` (int64): one search among the powers of ten
    (18 comparisons of every value cost a call of a few rows 20 us)."""
    return np.searchsorted(POWERS[1:], v, side="right").astype(np.int64) + 1


def fields(
    tag: int,
    column: Formatted | ColumnLike,
    *,
    valid: ColumnLike = None,
    out: np.ndarray | None = None,
    offsets: ColumnLike = None,
) -> FieldBuffer | np.ndarray:
    """Write ``TAG=VALUE|`` (``|`` = SOH) for every present row of a column.

    Parameters
    ----------
    tag : int
        The FIX tag, ``1..MAX_TAG``.
    column : Formatted or a column of str or bytes
        The values: a :class:`vecfix.Formatted` (or an object with a ``matrix`` and
        ``lengths`` laid out like one, and maybe a ``valid`` mask) or text (a sequence, a
        NumPy ``S``/``U`` array, an Arrow, pandas or polars string column), where ``None``
        or a null marks a null row.
    valid : array_like of bool, optional
        ``True`` where the row is present (and the column's own nulls): null rows produce
        no field.
    out : numpy.ndarray, optional
        A writeable 1-D ``uint8`` buffer to write into instead of a new one; needs
        ``offsets``: where each row's field starts in ``out`` (fields must not overlap).
    offsets : array_like of int, optional
        With ``out``: where each row's field starts.

    Returns
    -------
    FieldBuffer or numpy.ndarray
        A :class:`FieldBuffer` holding all fields contiguously; with ``out``, the
        ``int64`` offsets just past each written field (``offsets`` for null rows).

    Raises
    ------
    TypeError, ValueError
        For a bad tag, ``valid``, ``out`` or ``offsets``, a present value that is empty or
        holds SOH, a field outside ``out`` or over another. Nothing is written then.

    Examples
    --------
    >>> import numpy as np, vecfix, vecfix.fix as fix
    >>> px = vecfix.format_fixed([5000_25, 4999_75, 0], -2, 2)
    >>> fix.fields(270, px, valid=[True, True, False]).to_list()
    [b'270=5000.25\\x01', b'270=4999.75\\x01', b'']

    Appending into your own buffer, one cursor per row:

    >>> buf = np.zeros(40, dtype=np.uint8)
    >>> ends = fix.fields(55, ["ES", "NQ"], out=buf, offsets=[0, 20])
    >>> ends = fix.fields(270, px[:2], out=buf, offsets=ends)
    >>> ends.tolist(), buf[:ends[0]].tobytes()
    ([18, 38], b'55=ES\\x01270=5000.25\\x01')
    """
    tag_bytes = np.frombuffer(b"%d=" % checked_int("tag", tag, 1, MAX_TAG), np.uint8)
    if has_formatted_shape(column):
        col = formatted_column("column", column, valid)
    else:
        col = text_column("column", column, identifier=False)
        if valid is not None:
            mask = valid_mask("valid", valid, len(col))
            col = Formatted(col.matrix, col.lengths, all_valid(col) & mask)
    sizes = np.where(all_valid(col), tag_bytes.size + col.lengths.astype(np.int64) + 1, 0)
    if out is None:
        if offsets is not None:
            raise TypeError("offsets is only used together with out")
        starts = _arrow.offsets(sizes)
        buf = np.empty(int(starts[-1]), dtype=np.uint8)
        _fix().write_fields(buf, starts, tag_bytes, *parts(col))
        return FieldBuffer(buf, starts)
    starts = _caller_offsets(out, offsets, len(col))
    ends = starts + sizes
    _check_fits(out, starts, ends)
    _fix().write_fields(out, starts, tag_bytes, *parts(col))
    return ends


def _caller_offsets(out: object, offsets: ColumnLike, n: int) -> np.ndarray:
    if not isinstance(out, np.ndarray) or out.dtype != np.uint8 or out.ndim != 1:
        raise TypeError("out must be a 1-D uint8 numpy array")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be contiguous and writeable")
    if offsets is None:
        raise TypeError("out needs offsets: where each row's field starts in out")
    arr = _asarray(offsets)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"offsets must be integers, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"offsets has shape {arr.shape}, expected ({n},): one per row")
    if n and arr.min() < 0:
        raise ValueError(f"offsets must be >= 0; row {int(np.argmin(arr))} is {int(arr.min())}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _check_fits(out: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> None:
    """Every field inside ``out`` and no two overlapping, or an error before any write."""
    over = np.flatnonzero(ends > out.size)
    if over.size:
        r = int(over[0])
        raise ValueError(
            f"row {r}'s field needs out[{int(starts[r])}:{int(ends[r])}] but out has"
            f" {out.size} bytes; nothing was written"
        )
    order = np.flatnonzero(ends > starts)  # (an empty field overlaps nothing)
    order = order[np.argsort(starts[order], kind="stable")]
    clash = np.flatnonzero(starts[order[1:]] < ends[order[:-1]])  # in order, the next one
    if clash.size:
        r = int(order[clash[0] + 1])
        raise ValueError(
            f"row {r}'s field at out[{int(starts[r])}:{int(ends[r])}] overlaps another"
            " row's field; nothing was written"
        )


def snapshots(
    symbols: ColumnLike,
    entry_counts: ColumnLike,
    entry_types: ColumnLike,
    prices: Formatted | ColumnLike,
    sizes: Formatted | ColumnLike,
    *,
    price: NumberFormat | None = None,
    size: NumberFormat | None = None,
    price_valid: ColumnLike = None,
    size_valid: ColumnLike = None,
    header: Header,
    sending_time: TimeLike = None,
) -> Messages:
    """Build one MarketDataSnapshotFullRefresh (``35=W``) per symbol.

    Message ``i`` is ``8|9|35=W|49|56|34|52|55=symbols[i]|268=K|``, its ``K =
    entry_counts[i]`` entries ``269=TYPE|270=PRICE|271=SIZE|``, then ``10``. Entries are
    the rows of ``entry_types``, ``prices`` and ``sizes`` in order: message 0 owns the
    first ``entry_counts[0]``, and so on. A null price or size leaves its field out.
    A tick's call (lists or NumPy arrays of ``str`` and ints, formats of ints, no masks)
    is written by one kernel call, as in :func:`quotes`.

    Parameters
    ----------
    symbols : column of str
        Symbol (``55``) per message: printable ASCII, not empty, no ``=``; a sequence, a
        NumPy ``S``/``U`` array, an Arrow, pandas or polars string or categorical column.
    entry_counts : array_like of int
        Entries (``268``) per message, ``>= 0``.
    entry_types : array_like
        MDEntryType (``269``) per entry: ints 0..9 or one-character strings (``"0"`` bid,
        ``"1"`` offer, ``"2"`` trade, ...); a scalar applies to every entry.
    prices, sizes : column of int or decimals, or Formatted
        MDEntryPx (``270``) and MDEntrySize (``271``) per entry: integer coefficients or
        decimals (``Decimal``, decimal text, Arrow, pandas or polars decimals) formatted
        by :func:`vecfix.format_fixed` (its nulls and the format's ``null`` leave the field
        out), or an already formatted :class:`vecfix.Formatted`.
    price, size : vecfix.NumberFormat, optional
        How ``prices`` and ``sizes`` are printed (exponent, scale, null sentinels; one for
        the column or arrays of one a row). Integer prices need one
        (``NumberFormat(-9, 2)`` for CME PRICE9 at 2 decimals), whole-number sizes none;
        decimals print as written unless a scale is given; a ``Formatted`` takes none.
        The rules in full: :mod:`vecfix.fix._numbers`.
    price_valid, size_valid : array_like of bool, optional
        ``True`` where the price (size) is present; what a masked row holds is not read.
    header : Header
        Sender, target, begin string and the next MsgSeqNum (``34``), shared across calls.
    sending_time : str, datetime or a column of either, optional
        SendingTime (``52``) for all messages or one per message: ``YYYYMMDD-HH:MM:SS[.sss]``
        text or datetimes (see :func:`sending_time`). Default: now.

    Returns
    -------
    Messages
        All messages in one buffer, with offsets.

    Raises
    ------
    TypeError, ValueError
        For an input of the wrong type or length, a symbol or header value holding SOH or
        ``=``, a malformed timestamp, a price that cannot be printed...: the message names
        the argument and the row. Nothing is half-built, no MsgSeqNum taken.

    Examples
    --------
    >>> import vecfix, vecfix.fix as fix
    >>> msgs = fix.snapshots(
    ...     ["AAPL", "MSFT"], [1, 2], [2, 0, 1], [189_9800, 402_1200, None], [100, 5, 7],
    ...     price=vecfix.NumberFormat(-4, 2), header=fix.Header("MD", "C", next_seq=7),
    ...     sending_time=["20240102-14:30:00.000", "20240102-14:30:00.001"],
    ... )
    >>> for m in msgs:
    ...     print(m.replace(b"\\x01", b"|").decode())
    8=FIX.4.4|9=85|35=W|49=MD|56=C|34=7|52=20240102-14:30:00.000|55=AAPL|268=1|269=2|270=189.98|271=100|10=036|
    8=FIX.4.4|9=95|35=W|49=MD|56=C|34=8|52=20240102-14:30:00.001|55=MSFT|268=2|269=0|270=402.12|271=5|269=1|271=7|10=235|
    """
    if price_valid is None and size_valid is None and type(header) is Header:
        done = _plain_snapshots(
            symbols, entry_counts, entry_types, (prices, sizes), price, size, header, sending_time
        )
        if done is not None:
            return done
    head = check_header(header)
    given = (("prices", "price", prices, price_valid), ("sizes", "size", sizes, size_valid))
    check_aligned({"symbols": symbols, "entry_counts": entry_counts})
    price, size = check_formats(price, size, given, {"entry_types": entry_types})
    syms = text_column("symbols", symbols, what="message")
    entry_starts = group_starts("entry_counts", entry_counts, len(syms), "symbol", empty=True)
    what = f"entry (entry_counts sums to {int(entry_starts[-1])})"
    types = codes("entry_types", entry_types, int(entry_starts[-1]), what)
    px, sz = read_numbers(price, size, given, int(entry_starts[-1]), what)
    times = times_for(sending_time, head, len(syms))
    (px_rows, px_len, px_ok), (sz_rows, sz_len, sz_ok) = parts(px), parts(sz)
    body = np.empty(len(syms), dtype=np.int64)
    _fix().snapshot_lengths(syms.lengths, entry_starts, px_len, px_ok, sz_len, sz_ok, body)

    def write(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> int:
        return _fix().write_snapshot_bodies(
            buf, starts, ends, syms.matrix, syms.lengths, entry_starts, types,
            px_rows, px_len, px_ok, sz_rows, sz_len, sz_ok,
        )  # fmt: skip

    return frame(b"W", body, write, head, head.reserve(len(syms)).start, times)


def quotes(
    symbols: ColumnLike,
    bid_px: Formatted | ColumnLike,
    offer_px: Formatted | ColumnLike,
    bid_size: Formatted | ColumnLike,
    offer_size: Formatted | ColumnLike,
    *,
    quote_ids: ColumnLike,
    price: NumberFormat | None = None,
    size: NumberFormat | None = None,
    bid_px_valid: ColumnLike = None,
    offer_px_valid: ColumnLike = None,
    bid_size_valid: ColumnLike = None,
    offer_size_valid: ColumnLike = None,
    header: Header,
    sending_time: TimeLike = None,
) -> Messages:
    """Build one Quote (``35=S``) per row.

    Message ``i`` is ``8|9|35=S|49|56|34|52|117=quote_ids[i]|55=symbols[i]|``, the present
    ``132`` BidPx, ``133`` OfferPx, ``134`` BidSize and ``135`` OfferSize, then ``10``. For
    many quotes in few messages, see :func:`mass_quotes`.

    A tick's call (up to :data:`PLAIN_QUOTES` quotes: lists or NumPy arrays of ``str``
    and of ints, ``price`` and ``size`` of int exponents and scales and at most one
    ``null`` each, no masks, one SendingTime) is checked, numbered and written by one
    kernel call; any other call, or one that call refuses, takes the general path, which
    builds the same bytes or says what is wrong.

    Parameters
    ----------
    symbols : column of str
        Symbol (``55``) per quote: printable ASCII, not empty, no ``=``.
    bid_px, offer_px, bid_size, offer_size : column of int or decimals, or Formatted
        One value per quote, read as ``prices`` in :func:`snapshots`. A null (a one-sided
        quote) leaves its field out; a quote needs a bid or an offer price.
    quote_ids : column of str or int
        QuoteID (``117``) per quote, as symbols.
    price, size : vecfix.NumberFormat, optional
        How the prices (``bid_px``, ``offer_px``) and the sizes are printed, as in
        :func:`snapshots`.
    bid_px_valid, offer_px_valid, bid_size_valid, offer_size_valid : array_like of bool
        ``True`` where the value is present.
    header, sending_time
        The standard header (required) and SendingTime, as in :func:`snapshots`.

    Returns
    -------
    Messages
        One message per quote, in one buffer.

    Raises
    ------
    TypeError, ValueError
        As :func:`snapshots` does, and for a quote with neither a bid nor an offer price.

    Examples
    --------
    >>> import vecfix, vecfix.fix as fix
    >>> msgs = fix.quotes(
    ...     ["EURUSD"], [108_215], [None], [1_000_000], [None], quote_ids=["Q1"],
    ...     price=vecfix.NumberFormat(-5, 5), header=fix.Header("S", "T"),
    ...     sending_time="20240102-03:04:05",
    ... )
    >>> print(msgs[0].replace(b"\\x01", b"|").decode())
    8=FIX.4.4|9=82|35=S|49=S|56=T|34=1|52=20240102-03:04:05|117=Q1|55=EURUSD|132=1.08215|134=1000000|10=252|
    """
    values = (bid_px, offer_px, bid_size, offer_size)
    valids = (bid_px_valid, offer_px_valid, bid_size_valid, offer_size_valid)
    if valids == (None, None, None, None) and type(header) is Header:
        done = _plain_quotes(symbols, values, quote_ids, price, size, header, sending_time)
        if done is not None:
            return done
    head = check_header(header)
    given = quote_columns(values, valids)
    price, size = check_formats(price, size, given, {"symbols": symbols, "quote_ids": quote_ids})
    syms = text_column("symbols", symbols, what="quote")
    n = len(syms)
    ids = text_column("quote_ids", quote_ids, what="quote")
    if len(ids) != n:
        raise ValueError(f"quote_ids has {len(ids)} values for {n} symbols")
    cols = read_numbers(price, size, given, n, "quote")
    require_a_price(cols[0], cols[1], "quote")
    times = times_for(sending_time, head, n)
    body = with_fields(9 + ids.lengths + syms.lengths, cols)  # 117=ID|55=SYM|

    def write(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> int:
        return _fix().write_quote_bodies(
            buf, starts, ends, ids.matrix, ids.lengths, syms.matrix, syms.lengths,
            *(a for col in cols for a in parts(col)),
        )  # fmt: skip

    return frame(b"S", body, write, head, head.reserve(n).start, times)


#: Most quotes (snapshot entries) :func:`quotes` (:func:`snapshots`) writes by its per-tick
#: path: its kernel prints each value digit by digit (a quote about 0.2 us), and above a
#: few thousand the general path's block kernels (0.17 us) have paid for its fixed cost
#: (about 0.15 ms).
PLAIN_QUOTES = 2048


def _plain_quotes(
    symbols: object,
    values: tuple[object, ...],
    quote_ids: object,
    price: object,
    size: object,
    header: Header,
    sending_time: TimeLike,
) -> Messages | None:
    """:func:`quotes` of the per-tick call in one kernel call: lists (or NumPy arrays) of
    str and of ints, one ``NumberFormat`` of ints per kind, one SendingTime. The kernel
    (:func:`~vecfix._kernels.fix.quote_messages`) checks what :func:`quotes` checks,
    measures and writes every message, its values printed by vecfix's row writer. None,
    with nothing taken or written, for any other call or any row the kernel refuses:
    :func:`quotes`' general path then builds the messages or says what is wrong."""
    syms, ids, layout = plain_text(symbols), plain_text(quote_ids), plain_layout(price, size)
    if syms is None or ids is None or layout is None:
        return None
    n = syms[1].size
    if n > PLAIN_QUOTES or ids[1].size != n:
        return None
    cols = plain_coefficients(values, n)
    times = one_time(sending_time, header)
    if cols is None or times is None:
        return None
    tail = (times.matrix, int(times.lengths[0]), MAX_ROW_LENGTH, *ids, *syms, *cols, layout)
    return _one_call(b"S", header, QUOTE_NAMES, _fix().quote_messages, tail)


def _plain_snapshots(
    symbols: object,
    entry_counts: object,
    entry_types: object,
    values: tuple[object, object],
    price: object,
    size: object,
    header: Header,
    sending_time: TimeLike,
) -> Messages | None:
    """:func:`snapshots` of the per-tick call in one kernel call, as :func:`_plain_quotes`
    makes quotes (:func:`~vecfix._kernels.fix.snapshot_messages`); None, nothing taken or
    written, for any other call or any row refused."""
    syms, layout = plain_text(symbols), plain_layout(price, size)
    if syms is None or layout is None:
        return None
    n = syms[1].size
    counts = plain_coefficients((entry_counts,), n)
    if counts is None or (n and counts[0].min() < 0):
        return None
    total = int(counts[0].sum())
    cols = plain_coefficients(values, total)
    times = one_time(sending_time, header)
    if total > PLAIN_QUOTES or cols is None or times is None:
        return None
    try:  # (a bad code: the general path says so, in its order)
        types = codes("entry_types", entry_types, total, "entry")
    except (TypeError, ValueError):
        return None
    tail = (times.matrix, int(times.lengths[0]), MAX_ROW_LENGTH, *syms, counts[0], types,
            *cols, layout)  # fmt: skip
    return _one_call(b"W", header, ("prices", "", "sizes"), _fix().snapshot_messages, tail)


def _one_call(
    msg_type: bytes,
    header: Header,
    names: tuple[str, ...],
    kernel: Any,
    tail: tuple[Any, ...],
) -> Messages | None:
    """The messages of ``msg_type`` from one call of a per-tick ``kernel`` (``begin,
    head, first_seq, *tail`` -> ``(bad, sentinels, buffer, offsets)``, as many messages
    as offsets less one), numbered under the header's lock; None when the kernel refuses
    a row or an array (nothing taken).
    Warns for the value columns ``names[c]`` of each bit ``c`` of ``sentinels``."""
    begin, head = header._prefixes(msg_type)
    found: list[int] = []

    def build(first: int) -> tuple[int, Messages | None]:
        try:
            bad, sentinels, buf, offsets = kernel(begin, head, first, *tail)
        except TypeError:  # an array the kernel does not take as it is (strided...)
            return -1, None
        found.append(sentinels)
        return (-1 if bad >= 0 else offsets.size - 1), Messages._trusted(buf, offsets)

    done = header._numbered(build)
    if done is not None and found[0]:
        warn_sentinel([name for c, name in enumerate(names) if found[0] >> c & 1], 5)
    return done
