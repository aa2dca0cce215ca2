"""The standard header every builder writes (:class:`Header`, :func:`frame`) and FIX
timestamps (:func:`sending_time`: strings or datetimes of Python, NumPy, pandas, Arrow or
polars as ``UTCTimestamp`` text)."""

from __future__ import annotations

import datetime as _dt
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .._limits import INT64_MAX
from .._result import Formatted
from .._utc import OK, check_column, utc_fields
from ..columns.column import Identity
from ..columns.rules import show_value
from ._buffers import Messages
from ._columns import _fix, checked_int, identifier, text_column

_PRECISIONS = {"s": 0, "ms": 3, "us": 6}
_TIMESPEC = {"s": "seconds", "ms": "milliseconds", "us": "microseconds"}
T = TypeVar("T")


class Header:
    """The standard header shared by every builder, with MsgSeqNum continuing across calls.

    Each builder given a ``Header`` (``header=``) takes the next ``len(messages)``
    sequence numbers (``34``) from it, once its inputs are checked (a call that raises
    takes none), so consecutive batches are numbered without a gap or a repeat. Taking
    numbers is thread-safe.

    Parameters
    ----------
    sender, target : str
        SenderCompID (``49``) and TargetCompID (``56``): printable ASCII, no ``=``.
    begin_string : str, default "FIX.4.4"
        BeginString (``8``).
    next_seq : int, default 1
        MsgSeqNum of the next message.
    precision : {"ms", "us", "s"}, default "ms"
        Fractional seconds written in SendingTime (``52``) when it is given as a datetime.

    Examples
    --------
    >>> import vecfix.fix as fix
    >>> head = fix.Header("VECFIX", "CLIENT", next_seq=7)
    >>> head.reserve(3), head.next_seq
    (range(7, 10), 10)
    >>> head
    Header(sender='VECFIX', target='CLIENT', begin_string='FIX.4.4', next_seq=10, precision='ms')
    """

    __slots__ = ("_begin", "_heads", "_lock", "_next", "_sender", "_target", "precision")

    def __init__(
        self,
        sender: str,
        target: str,
        *,
        begin_string: str = "FIX.4.4",
        next_seq: int = 1,
        precision: str = "ms",
    ) -> None:
        self._sender = identifier("sender", sender)
        self._target = identifier("target", target)
        self._begin = identifier("begin_string", begin_string)
        self._next = checked_int("next_seq", next_seq, 1, INT64_MAX, ">= 1 and within int64")
        self.precision = _precision(precision)
        self._lock = threading.Lock()
        self._heads: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def sender(self) -> str:
        """SenderCompID (``49``)."""
        return self._sender.decode()

    @property
    def target(self) -> str:
        """TargetCompID (``56``)."""
        return self._target.decode()

    @property
    def begin_string(self) -> str:
        """BeginString (``8``)."""
        return self._begin.decode()

    @property
    def next_seq(self) -> int:
        """MsgSeqNum the next message will get."""
        return self._next

    def reserve(self, count: int) -> range:
        """Take the next ``count`` sequence numbers (``count >= 0``); returns them.

        Raises
        ------
        ValueError
            If ``count`` is negative or the numbers would pass ``2**63 - 1``.
        """
        count = checked_int("count", count, 0)
        with self._lock:
            first = self._next
            if first + count - 1 > INT64_MAX:
                raise ValueError(f"{count} messages from MsgSeqNum {first} would pass 2**63 - 1")
            self._next = first + count
        return range(first, first + count)

    def _numbered(self, build: Callable[[int], tuple[int, T]]) -> T | None:
        """``build(first)`` under the numbering lock, ``first`` the next MsgSeqNum: it
        returns how many messages it built (0 for none, -1 for a refused batch) and
        what it made, and the numbers are taken only when it built any (None when
        refused). One call numbers and builds, no other call between (the per-tick
        path's check, measure and write are one kernel call)."""
        with self._lock:
            first = self._next
            count, made = build(first)
            if count < 0:
                return None
            if first + count - 1 > INT64_MAX:
                raise ValueError(f"{count} messages from MsgSeqNum {first} would pass 2**63 - 1")
            self._next = first + count
        return made

    def __repr__(self) -> str:
        return (
            f"Header(sender={self.sender!r}, target={self.target!r},"
            f" begin_string={self.begin_string!r}, next_seq={self._next},"
            f" precision={self.precision!r})"
        )

    def _prefixes(self, msg_type: bytes) -> tuple[np.ndarray, np.ndarray]:
        """``8=BEGIN|9=`` and ``|35=TYPE|49=SENDER|56=TARGET|34=`` as byte arrays, built
        once per message type (sender, target and begin string never change)."""
        found = self._heads.get(msg_type)
        if found is None:
            begin = b"8=" + self._begin + b"\x019="
            head = b"\x0135=" + msg_type + b"\x0149=" + self._sender + b"\x0156=" + self._target
            head += b"\x0134="
            found = np.frombuffer(begin, np.uint8), np.frombuffer(head, np.uint8)
            self._heads[msg_type] = found
        return found


def _precision(value: object) -> str:
    if value not in _PRECISIONS:
        raise ValueError(f"precision must be one of {sorted(_PRECISIONS)}, got {show_value(value)}")
    return str(value)


def check_header(header: object) -> Header:
    """A builder's ``header=``: required, a :class:`Header`."""
    if isinstance(header, Header):
        return header
    if header is None:
        raise TypeError(
            "header is required: pass header=vecfix.fix.Header(sender, target)\nA Header holds"
            " SenderCompID (49) and TargetCompID (56), and numbers MsgSeqNum (34) across calls"
        )
    raise TypeError(
        f"header must be a vecfix.fix.Header, got {type(header).__name__}:"
        " pass header=vecfix.fix.Header(sender, target)"
    )


def sending_time(values: Any, precision: str = "ms") -> Formatted:
    """FIX ``UTCTimestamp`` text (``YYYYMMDD-HH:MM:SS[.sss[sss]]``) for SendingTime (``52``).

    Parameters
    ----------
    values : str, datetime or a column of them
        A timezone-aware :class:`datetime.datetime` (not a naive one: its zone is
        unknown), a :class:`numpy.datetime64`, or a column of datetimes: NumPy (any unit,
        taken as UTC), pandas (naive taken as UTC, aware converted), Arrow, polars. Text
        is checked and kept (``YYYYMMDD-HH:MM:SS`` with 0, 3 or 6 decimals).
    precision : {"ms", "us", "s"}, default "ms"
        Fractional digits written for datetimes (truncated, not rounded, as clocks are).

    Returns
    -------
    Formatted
        One row of text per value (nulls, ``NaT`` or ``None``, are null rows), with a
        pandas or polars column's name and index for ``to_pandas()`` / ``to_polars()``.

    Raises
    ------
    TypeError, ValueError
        For a naive Python datetime, a value that is neither text nor a datetime,
        malformed text (naming the row) or a year outside 0001..9999.

    Examples
    --------
    >>> import datetime as dt, numpy as np, vecfix.fix as fix
    >>> fix.sending_time(np.array(["2024-01-02T03:04:05.678901"], "datetime64[us]")).to_list()
    ['20240102-03:04:05.678']
    >>> when = dt.datetime(2024, 1, 2, 4, 4, 5, 678901, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    >>> fix.sending_time(when, precision="us").to_list()
    ['20240102-03:04:05.678901']
    """
    out = timestamps("sending_time", values, _precision(precision), time_only=False)
    out.identity = Identity.of(values)
    return out


def timestamps(name: str, values: Any, precision: str, *, time_only: bool) -> Formatted:
    if isinstance(values, (str, bytes)):
        one = _one_text(values, time_only)  # the common call: one well-formed timestamp
        if one is not None:
            return one
        return check_column(name, text_column(name, [values]), time_only)  # says what is wrong
    if isinstance(values, _dt.datetime):
        moment = _utc_us(name, values, 0)
        one = _one_time(moment, precision, time_only)  # the common call: now, or one moment
        if one is not None:
            return one
        return _format_us(name, np.array([moment], np.int64), None, precision, time_only)
    if isinstance(values, np.datetime64):
        values = np.array([values])
    if isinstance(values, _dt.date):  # a date, not a datetime: no time of day to send
        raise TypeError(
            f"{name} = {values!r} is a date: a FIX timestamp needs a time of day too\nPass"
            " an aware datetime, e.g. datetime(2024, 1, 2, tzinfo=timezone.utc), or text"
        )
    micros = _datetime_micros(name, values)
    if micros is None:  # text (or a sequence holding datetimes)
        items = None if isinstance(values, np.ndarray) else list(values)
        if items is not None and any(isinstance(v, _dt.datetime) for v in items):
            nulls = np.array([v is None for v in items], dtype=np.bool_)
            us = np.array(
                [0 if v is None else _utc_us(name, v, i) for i, v in enumerate(items)], np.int64
            )
            return _format_us(name, us, ~nulls if nulls.any() else None, precision, time_only)
        return check_column(name, text_column(name, values if items is None else items), time_only)
    return _format_us(name, *micros, precision, time_only)


def _utc_us(name: str, value: _dt.datetime, row: int) -> int:
    if value.tzinfo is None or value.utcoffset() is None:
        raise TypeError(
            f"{name}[{row}] = {value!r} is a naive datetime: its time zone is unknown\nPass"
            " an aware one (e.g. datetime.now(timezone.utc)) or a NumPy datetime64 in UTC"
        )
    delta = value - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


_EPOCH = _dt.datetime(1970, 1, 1)


def _one_time(us: int, precision: str, time_only: bool) -> Formatted | None:
    """:func:`_format_us` of one moment (microseconds since 1970, UTC) in plain Python, a
    fourth of its time; None outside the years 1..9999 (the array passes then say so)."""
    try:
        iso = (_EPOCH + _dt.timedelta(microseconds=us)).isoformat(timespec=_TIMESPEC[precision])
    except OverflowError:
        return None
    text = iso[11:] if time_only else f"{iso[:4]}{iso[5:7]}{iso[8:10]}-{iso[11:]}"
    return _one_row(text.encode("ascii"))


def _one_row(text: bytes) -> Formatted:
    row = np.frombuffer(text, np.uint8).reshape(1, -1).copy()
    return Formatted(row, np.array([len(text)], np.int32))


def _datetime_micros(name: str, values: Any) -> tuple[np.ndarray, np.ndarray | None] | None:
    """Microseconds since 1970 (UTC, floored) and validity, or None if not datetimes."""
    module = type(values).__module__.partition(".")[0]
    if module == "pyarrow":
        import pyarrow as pa

        if not pa.types.is_timestamp(values.type):
            return None
        values = values.to_numpy(zero_copy_only=False)  # UTC, NaT for nulls
    elif module == "polars":
        if not str(values.dtype).startswith("Datetime"):
            return None
        values = values.to_numpy()  # aware columns come out in UTC
    elif module == "pandas":
        tz = getattr(getattr(values, "dtype", None), "tz", None)
        if tz is not None:
            values = (
                values.dt.tz_convert(None) if hasattr(values, "dt") else values.tz_convert(None)
            )
        values = np.asarray(values)
    if not isinstance(values, np.ndarray) or values.dtype.kind != "M":
        return None
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {values.shape}")
    nat = np.isnat(values)
    us = np.where(nat, 0, values.astype("datetime64[us]").view(np.int64))  # (floored)
    return us, (~nat if nat.any() else None)


def _format_us(
    name: str, us: np.ndarray, valid: np.ndarray | None, precision: str, time_only: bool
) -> Formatted:
    """``YYYYMMDD-HH:MM:SS[.fff[fff]]`` (or the time alone) for microseconds since 1970,
    from NumPy's ISO text (``YYYY-MM-DDTHH:MM:SS[.fff[fff]]``)."""
    moments = us.astype("datetime64[us]").astype(f"datetime64[{precision}]")  # (floored)
    year = moments.astype("datetime64[Y]").astype(np.int64) + 1970
    bad = np.flatnonzero((year < 1) | (year > 9999))
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}]: year {int(year[bad[0]])} is outside 0001..9999")
    width = 19 + (_PRECISIONS[precision] and _PRECISIONS[precision] + 1)
    iso = np.datetime_as_string(moments).astype(f"S{width}").view(np.uint8).reshape(-1, width)
    keep = range(11, width) if time_only else [0, 1, 2, 3, 5, 6, 8, 9, *range(10, width)]
    matrix = np.ascontiguousarray(iso[:, keep])
    if not time_only:  # YYYYMMDD, the "T" made "-", then the time
        matrix[:, 8] = ord("-")
    return Formatted(matrix, np.full(us.size, matrix.shape[1], dtype=np.int32), valid)


def _one_text(value: str | bytes, time_only: bool) -> Formatted | None:
    """One timestamp as text, checked by FIX's one rule without a column's passes (a
    message sent at a time); None when the rule refuses it (the column then says why)."""
    try:
        raw = value.encode("ascii") if isinstance(value, str) else value
    except UnicodeEncodeError:
        return None
    if utc_fields(raw, 0, len(raw), time_only)[0] != OK:
        return None
    return _one_row(raw)


def times_for(values: Any, header: Header, n: int) -> tuple[Formatted, int]:
    """SendingTime for ``n`` messages (default: now): one for all (step 0) or one per
    message (step 1)."""
    if values is None:
        values = _dt.datetime.now(_dt.timezone.utc)
    if isinstance(values, (str, bytes)):
        return one_time(values, header), 0  # type: ignore[return-value]
    col = timestamps("sending_time", values, header.precision, time_only=False)
    scalar = isinstance(values, (str, bytes, _dt.datetime, np.datetime64))
    if not scalar and len(col) != n:
        raise ValueError(f"sending_time has {len(col)} values for {n} messages")
    if col.valid is not None and not col.valid.all():
        r = int(np.argmin(col.valid))
        raise ValueError(f"sending_time[{r}] is null; every row needs one")
    return col, 0 if scalar else 1


#: SendingTime text already checked, by the value given (a str or bytes).
_STAMPS: dict[object, Formatted] = {}


def one_time(values: Any, header: Header) -> Formatted | None:
    """SendingTime for every message of a call when it is one value (text, a datetime or
    ``None``: now), as :func:`times_for` gives it, text checked once and remembered (a
    publisher sends many calls at one time); None for a column."""
    if isinstance(values, (str, bytes)):
        found = _STAMPS.get(values)
        if found is None:
            found = timestamps("sending_time", values, header.precision, time_only=False)
            if len(_STAMPS) >= 64:  # bounded
                _STAMPS.clear()
            _STAMPS[values] = found
        return found
    if values is None or isinstance(values, _dt.datetime):
        return times_for(values, header, 1)[0]
    return None


def frame(
    msg_type: bytes,
    body_lengths: np.ndarray,
    write_bodies: Callable[[np.ndarray, np.ndarray, np.ndarray], int],
    header: Header,
    first_seq: int,
    times: tuple[Formatted, int],
) -> Messages:
    """Size and fill every message around its type body, MsgSeqNum from ``first_seq``;
    ``times``: SendingTime as :func:`times_for` gives it."""
    n = body_lengths.size
    begin, head = header._prefixes(msg_type)
    stamps, tstep = times
    offsets, bodies = np.empty(n + 1, np.int64), np.empty(n, np.int64)
    _fix().frame_lengths(
        body_lengths, begin.size, head.size, first_seq, stamps.lengths, tstep, offsets, bodies
    )
    buf = np.empty(int(offsets[-1]), dtype=np.uint8)
    _fix().write_heads(
        buf, offsets, bodies, begin, head, first_seq, stamps.matrix, stamps.lengths, tstep
    )
    ends = offsets[1:] - 7
    bad = int(write_bodies(buf, ends - body_lengths, ends))
    if bad >= 0:  # pragma: no cover - a measure/fill disagreement is a bug in vecfix
        raise RuntimeError(f"internal error: message {bad} was sized wrongly")
    _fix().write_trailers(buf, offsets)
    return Messages._trusted(buf, offsets)
