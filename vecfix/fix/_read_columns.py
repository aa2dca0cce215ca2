"""The columns of :func:`vecfix.fix.read`: one Arrow array per tag, from the scanned fields.

Each builder takes the :class:`Scan` (the log, its messages, fields, group nodes and
rows) and one column (its records, in message order), parses their values once, and
spreads them over the rows (a message's field over all its entries' rows) with one
kernel. Values that do not parse as the column's type are null, and their messages are
marked (``BAD_VALUE``) through :meth:`Scan.mark_bad`.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._arrow import offsets as arrow_offsets
from .._arrow import validity
from .._kernels import fixcolumns as _c
from .._kernels import fixread as _k
from .._kernels import text as _text
from .._kernels import utc as _utc
from .._limits import INT32_MAX, INT64_MAX, INT64_MIN
from ._read_types import DECIMAL, INT, STRING, TIMESTAMP, Spec

POW10 = 10 ** np.arange(19, dtype=np.int64)
_NO_VALID = np.zeros(0, dtype=np.uint8)
_UNITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}
MOST_DIGITS = 76  # decimal256's precision: a value of more digits is a bad value


@dataclass
class Scan:
    """A scanned log: per message, per node (message, quote set, entry), per row, and each
    column's records (its fields' values and nodes) in pool segments."""

    data: np.ndarray  # the log, read-only uint8
    starts: np.ndarray  # per message: first byte ("8="), end, trailer ("10=", -1 if none)
    ends: np.ndarray
    trailers: np.ndarray
    problem: np.ndarray  # per message: a _k code (0: valid) and the byte it is about
    problem_at: np.ndarray
    pool: np.ndarray  # per record: its value's first byte; its length and node (packed)
    nodes: np.ndarray  # per node: its rows, nodes[u, 0]:nodes[u, 1]
    row_msg: np.ndarray  # per row: its message
    seg_lo: np.ndarray  # column c's records: pool[seg_lo[x]:seg_hi[x]] for x in
    seg_hi: np.ndarray  # bounds[c]:bounds[c + 1], in message order
    bounds: np.ndarray
    flat: np.ndarray  # per column: each row takes its value from at most one record
    # per message: its line's text before "8=" (lo, hi); its BeginString's version (_k.V44...)
    prefix: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    version: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))
    delim: int = 1  # the byte fields end with: SOH, or "|"
    junk_at: int = -1  # first byte after the last message that is not space (-1: none)
    repeated: int = 0  # fields that repeat a tag in their row (the first is kept)
    bad_tags: dict[int, str] = field(default_factory=dict)  # tag -> its kind, for messages

    @property
    def rows(self) -> int:
        return int(self.row_msg.shape[0])

    def mark_bad(self, tag: int, kind: str, positions: np.ndarray) -> None:
        """Mark the messages holding values at ``positions`` (bytes) ``BAD_VALUE``, unless
        a framing problem or an earlier one in the message is already recorded."""
        if not positions.size:
            return
        self.bad_tags[tag] = kind
        msgs = np.searchsorted(self.starts, positions, side="right") - 1
        first = np.full(self.starts.shape[0], np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first, msgs, positions)
        hit = first < np.iinfo(np.int64).max
        code, at = self.problem, self.problem_at
        take = hit & ((code == _k.OK) | ((code >= _k.NO_EQUALS) & (first < at)))
        code[take] = _k.BAD_VALUE
        at[take] = first[take]

    def segments(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        """Where column ``c``'s records are in the pool."""
        lo, hi = int(self.bounds[c]), int(self.bounds[c + 1])
        return self.seg_lo[lo:hi], self.seg_hi[lo:hi]

    def walk(self, c: int) -> tuple[Any, ...]:
        """The arguments every walk over column ``c``'s rows starts with."""
        lo, hi = self.segments(c)
        return lo, hi, self.pool, self.nodes, bool(self.flat[c])

    def records(self, c: int) -> int:
        """How many records column ``c`` has."""
        lo, hi = self.segments(c)
        return int((hi - lo).sum())

    def pairs(self, c: int) -> np.ndarray:
        """Column ``c``'s values as ``(start, stop)`` rows, in message order."""
        lo, hi = self.segments(c)
        out = empty((self.records(c), 2), np.int64)
        _c.gather_records(lo, hi, self.pool, out)
        return out


_HUGE = 2 << 20  # a transparent huge page
_ALIGNED_FROM = 1 << 20  # arrays of this many bytes and more start on a huge page


def empty(shape: int | tuple[int, ...], dtype: Any) -> np.ndarray:
    """``np.empty``, but an array of 1 MiB or more starts on a 2 MiB boundary inside an
    allocation NumPy asks the kernel to back with huge pages (it does from 4 MiB): 4 KiB
    pages, faulted and zeroed one at a time, cost four times as much a byte, and a large
    read writes hundreds of MiB of fresh memory. (At most 2 MiB of the last huge page is
    memory the array does not use.)"""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if nbytes < _ALIGNED_FROM:
        return np.empty(shape, dtype)
    raw = np.empty(nbytes + 2 * _HUGE, dtype=np.uint8)
    skip = -raw.ctypes.data % _HUGE
    return raw[skip : skip + nbytes].view(dtype).reshape(shape)


def _stack() -> np.ndarray:
    """Scratch for a walk over a column's rows: the nodes a row's value may come from."""
    return np.zeros((_c.STACK, 3), dtype=np.int64)


def _parse(scan: Scan, c: int, point: int, width: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Decimal text of each field (vecfix's one parser), less what FIX forbids. Returns
    ``words`` (each record's coefficient, then its exponent when ``width`` is 2), their
    statuses, and the lowest exponent of a good value."""
    k = scan.records(c)
    words = empty((k, width), np.int64)
    status = empty(k, np.uint8)
    lo, hi = scan.segments(c)
    pairs = np.empty((2, 2 * _k.CHUNK), dtype=np.int64)
    coef = np.empty(_k.CHUNK, dtype=np.int64)
    exps = np.empty(_k.CHUNK, dtype=np.int32)
    _, lowest = _c.parse_numbers(
        scan.data, lo, hi, scan.pool, point, _NO_VALID, words, status, pairs, coef, exps
    )
    return words, status, int(lowest)


def _mark(scan: Scan, c: int, tag: int, kind: str, bad: np.ndarray) -> None:
    """Mark the messages of column ``c``'s records ``bad`` (a mask) as holding a bad
    value."""
    if bad.any():
        scan.mark_bad(tag, kind, scan.pairs(c)[bad, 0])


def _spread(pa: Any, scan: Scan, c: int, words: np.ndarray, ok: np.ndarray, typ: Any) -> Any:
    """The Arrow array of a number column: each row the words of the record it takes."""
    if scan.flat[c] and words.shape[0] == scan.rows:  # record j is row j: nothing to move
        words = np.ascontiguousarray(words)
        return pa.Array.from_buffers(
            typ, scan.rows, [validity(ok, ok.size - int(np.count_nonzero(ok))), pa.py_buffer(words)]
        )
    out = empty((scan.rows, words.shape[1]), np.int64)
    valid = empty(scan.rows, np.uint8)
    present, repeated = _c.spread_words(*scan.walk(c), _stack(), words, ok, out, valid)
    scan.repeated += int(repeated)
    bitmap = validity(valid, valid.size - int(present))
    return pa.Array.from_buffers(typ, scan.rows, [bitmap, pa.py_buffer(out)])


_BLOCK = 512  # rows copy_rows copies a call


def string_array(pa: Any, scan: Scan, c: int, spec: Spec) -> Any:
    """The fields' text, copied out of the log by ``copy_rows``: ``string`` (or
    ``large_string`` past 2 GiB, or as ``types=`` asks)."""
    n = scan.rows
    walk = scan.walk(c)
    wide = spec.arrow is not None and pa.types.is_large_string(spec.arrow)
    if scan.flat[c] and scan.records(c) == n:  # record j is row j
        lo, hi = scan.segments(c)
        offsets = empty(n + 1, np.int64 if wide else np.int32)
        total = int(_c.serial_offsets(lo, hi, scan.pool, offsets))
        if total <= INT32_MAX or wide:
            buf = empty(total + 8, np.uint8)  # room for copy_rows' last 8-byte store
            at = np.empty(_k.CHUNK, dtype=np.int64)
            size = np.empty(_k.CHUNK, dtype=np.int32)
            _c.serial_rows(lo, hi, scan.pool, scan.data, offsets, at, size, buf)
            typ = pa.large_string() if wide else pa.string()
            return pa.Array.from_buffers(typ, n, [None, pa.py_buffer(offsets), pa.py_buffer(buf)])
    total, present, repeated = (int(x) for x in _c.text_total(*walk, n, _stack()))
    scan.repeated += repeated
    large = total > INT32_MAX if spec.arrow is None else wide
    if not large and total > INT32_MAX:
        raise ValueError(f"{total:,} bytes of text do not fit pa.string(); ask for large_string")
    offsets = empty(n + 1, np.int64 if large else np.int32)
    valid = empty(n if present < n else 0, np.uint8)
    buf = empty(total + 8, np.uint8)  # room for copy_rows' last 8-byte store
    at = np.empty(_BLOCK, dtype=np.int64)
    size = np.empty(_BLOCK, dtype=np.int32)
    _c.text_rows(*walk, _stack(), scan.data, offsets, valid, at, size, buf)
    typ = pa.large_string() if large else pa.string()
    bitmap = validity(valid, n - present)
    return pa.Array.from_buffers(typ, n, [bitmap, pa.py_buffer(offsets), pa.py_buffer(buf)])


def int_array(pa: Any, scan: Scan, c: int, spec: Spec, tag: int) -> Any:
    """``int64`` (or the integer type ``types=`` asks for: a value outside it is a bad
    value, as one outside int64 is)."""
    words, status, _ = _parse(scan, c, 0, 1)
    good = status == _text.OK
    kind = "int"
    if spec.arrow is not None and spec.arrow != pa.int64():
        kind = str(spec.arrow)
        limits = np.iinfo(spec.arrow.to_pandas_dtype())
        low, high = max(limits.min, INT64_MIN), min(limits.max, INT64_MAX)
        good &= (words[:, 0] >= low) & (words[:, 0] <= high)
    ok = good.view(np.uint8)
    _mark(scan, c, tag, kind, ok == 0)
    arr = _spread(pa, scan, c, words, ok, pa.int64())
    return arr if kind == "int" else arr.cast(spec.arrow, safe=True)


def _exact(text: bytes, exp: int, scale: int) -> int | None:
    """``text`` (decimal digits, one point, a sign) times ``10**scale``, exactly; None when
    it has more than ``scale`` decimals."""
    if scale + exp < 0:
        return None
    digits = text.lstrip(b"-").replace(b".", b"").decode("ascii")
    significant = len(digits.lstrip("0"))
    if significant and significant + scale + exp > MOST_DIGITS:  # before any int is made:
        return None  # the text may have any number of digits
    value = int(decimal.Decimal(digits)) * 10 ** (scale + exp)  # no int-from-str limit
    return -value if text.startswith(b"-") else value


def _words(value: int, count: int) -> np.ndarray:
    return np.frombuffer(value.to_bytes(8 * count, "little", signed=True), dtype=np.int64)


def decimal_array(pa: Any, scan: Scan, c: int, spec: Spec, tag: int) -> Any:
    """``decimal128(p, s)`` at the widest scale seen (``p`` 18, or 38 if a value needs
    it; ``decimal256(76, s)`` past that), or the decimal type ``types=`` asks for: the
    text's own digits, no float anywhere."""
    words, status, lowest = _parse(scan, c, 1, 2)
    if lowest < -MOST_DIGITS:  # more decimals than any decimal type holds: a bad value
        good = status <= _text.BIG
        status[good & (words[:, 1] < -MOST_DIGITS)] = _text.INVALID
        lowest = int(words[status <= _text.BIG, 1].min(initial=0))
    forced = spec.arrow
    if forced is not None:
        scale, precision = forced.scale, forced.precision
    else:
        scale, precision = -lowest, 0
    wide = _c.rescale(words, status, scale, POW10)  # in place; BIG ones keep their exponent
    big: dict[int, int] = {}
    huge = np.flatnonzero(status == _text.BIG).tolist()
    pairs = scan.pairs(c) if huge else np.empty((0, 2), dtype=np.int64)
    for j in huge:
        a, b = int(pairs[j, 0]), int(pairs[j, 1])
        value = _exact(scan.data[a:b].tobytes(), int(words[j, 1]), scale)
        words[j] = 0
        if value is None:
            status[j] = _text.INVALID
        else:
            big[j] = value
    digits = max((len(str(abs(v))) for v in big.values()), default=0)
    if forced is None:
        need = max(digits, 19 if wide else 0, scale)
        precision = 18 if need <= 18 else 38 if need <= 38 else 76
    if forced is not None and precision < 19:  # the int64 values must fit it too
        limit, low = POW10[precision], words[:, 0]
        status[(status == _text.OK) & ((low >= limit) | (low <= -limit))] = _text.INVALID
    for j, value in list(big.items()):
        if len(str(abs(value))) > precision:
            status[j] = _text.INVALID
            del big[j]
    if precision > 38 if forced is None else pa.types.is_decimal256(forced):
        sign = (words[:, 0] >> 63)[:, None]
        words = np.hstack([words, sign, sign])
    for j, value in big.items():
        words[j] = _words(value, words.shape[1])
        status[j] = _text.OK
    ok = (status == _text.OK).view(np.uint8)
    _mark(scan, c, tag, "decimal", ok == 0)
    if forced is not None:
        typ = forced
    else:
        typ = pa.decimal256(precision, scale) if precision > 38 else pa.decimal128(precision, scale)
    return _spread(pa, scan, c, np.ascontiguousarray(words), ok, typ)


def timestamp_array(pa: Any, scan: Scan, c: int, spec: Spec, tag: int) -> Any:
    """``timestamp`` in UTC at the precision written (s, ms, us or ns: the most fraction
    digits of the column), or the unit ``types=`` asks for; the text checked by FIX's one
    rule (:mod:`vecfix._utc`: a leap second reads as the next second)."""
    k = scan.records(c)
    secs = empty(k, np.int64)
    frac = empty(k, np.int64)
    ndig = empty(k, np.int64)
    status = empty(k, np.uint8)
    most = int(_utc.parse_utc(scan.data, scan.pairs(c), False, secs, frac, ndig, status))
    if spec.arrow is not None:
        unit, tz = spec.arrow.unit, spec.arrow.tz
    else:
        unit = "s" if most <= 0 else "ms" if most <= 3 else "us" if most <= 6 else "ns"
        tz = "UTC"
    u = _UNITS[unit]
    bad = (status != 0) | (ndig > u) | (np.abs(secs) >= INT64_MAX // POW10[u] - 1)
    shift = np.clip(u - ndig, 0, 18)
    values = np.where(bad, 0, secs * POW10[u] + frac * POW10[shift])
    ok = (~bad).view(np.uint8)
    _mark(scan, c, tag, "UTCTimestamp", bad)
    return _spread(pa, scan, c, values.reshape(-1, 1), ok, pa.timestamp(unit, tz=tz))


def prefix_array(pa: Any, scan: Scan) -> Any | None:
    """The ``prefix`` column: each row's message's line text before its ``8=`` (null where
    there is none), or None when no message has any."""
    sizes = scan.prefix[:, 1] - scan.prefix[:, 0]
    if not sizes.any():
        return None
    at, size = scan.prefix[scan.row_msg, 0], sizes[scan.row_msg]
    total = int(size.sum())
    offsets = arrow_offsets(size, np.int64 if total > INT32_MAX else np.int32)
    buf = empty(total + 8, np.uint8)  # room for copy_rows' last 8-byte store
    _text.copy_rows(scan.data, at, 0, size, buf, offsets[:-1])
    present = (size > 0).view(np.uint8)
    typ = pa.large_string() if total > INT32_MAX else pa.string()
    bitmap = validity(present, present.size - int(np.count_nonzero(present)))
    return pa.Array.from_buffers(typ, scan.rows, [bitmap, pa.py_buffer(offsets), pa.py_buffer(buf)])


def build(pa: Any, scan: Scan, c: int, spec: Spec, tag: int) -> Any:
    """The Arrow array of column ``c`` (``tag``'s)."""
    if spec.kind == STRING:
        return string_array(pa, scan, c, spec)
    if spec.kind == INT:
        return int_array(pa, scan, c, spec, tag)
    if spec.kind == DECIMAL:
        return decimal_array(pa, scan, c, spec, tag)
    if spec.kind == TIMESTAMP:
        return timestamp_array(pa, scan, c, spec, tag)
    raise AssertionError(spec.kind)  # pragma: no cover
