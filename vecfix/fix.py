"""FIX on the wire: fields and whole messages for a batch, built in one buffer.

FIX engines build each field into a fresh slice and each message into a fresh buffer.
Here a whole batch is laid out by Numba kernels in two passes (measure, then fill) into a
single contiguous ``uint8`` buffer with an offsets array: no Python object per field or per
message until you ask for one.

* :func:`fields` writes ``TAG=VALUE|`` per row, into a new buffer or a caller's buffer.
* :func:`snapshots` builds MarketDataSnapshotFullRefresh (``35=W``) messages.
* :func:`quotes` builds Quote (``35=S``) messages.

Prices and sizes go through :func:`vecfix.format_fixed`, so a ``270`` field holds exactly
the text of shopspring/decimal's ``StringFixed``. BodyLength (``9``) and CheckSum (``10``)
are computed by the kernels over the bytes actually written. Below, ``|`` stands for SOH.

>>> import vecfix.fix as fix
>>> msgs = fix.snapshots(
...     ["ESZ4"], [2], ["0", "1"], [5000_250000000, 5000_500000000], [7, 12],
...     price_exponent=-9, price_scale=2, sender="VECFIX", target="CLIENT",
...     sending_time="20240102-03:04:05.678",
... )
>>> print(msgs[0].replace(b"\\x01", b"|").decode())
8=FIX.4.4|9=118|35=W|49=VECFIX|56=CLIENT|34=1|52=20240102-03:04:05.678|55=ESZ4|268=2|269=0|270=5000.25|271=7|269=1|270=5000.50|271=12|10=084|
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np

from . import _fix_kernels as _k
from ._format import format_fixed

__all__ = ["MAX_TAG", "FieldBuffer", "Messages", "fields", "quotes", "snapshots"]

MAX_TAG: int = 2**31 - 1
"""Largest tag number accepted (FIX tags are positive integers; engines hold them in int32)."""

_INT64_MAX = 2**63 - 1
_EQUALS = ord("=")
_ALNUM = np.frombuffer(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", np.uint8)


# ---------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------


class _Chunks:
    """Byte strings ``buffer[offsets[i]:offsets[i + 1]]`` held in one buffer."""

    __slots__ = ("buffer", "offsets")

    def __init__(self, buffer: np.ndarray, offsets: np.ndarray) -> None:
        if buffer.ndim != 1 or buffer.dtype != np.uint8:
            raise ValueError("buffer must be a 1-D uint8 array")
        if offsets.ndim != 1 or offsets.size < 1 or offsets.dtype != np.int64:
            raise ValueError("offsets must be a 1-D int64 array with at least one element")
        self.buffer = buffer
        self.offsets = offsets

    @property
    def lengths(self) -> np.ndarray:
        """Byte length of every item, ``int64``."""
        return np.diff(self.offsets)

    @property
    def nbytes(self) -> int:
        """Bytes spanned by all items together."""
        return int(self.offsets[-1] - self.offsets[0])

    def __len__(self) -> int:
        return self.offsets.size - 1

    def __getitem__(self, key: int | slice) -> Any:
        """One item as ``bytes`` for an integer key; a view of the same type for a slice."""
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            if step != 1:
                raise ValueError("only contiguous slices (step 1) are supported")
            stop = max(start, stop)
            offs = self.offsets[start : stop + 1]
            return type(self)(self.buffer[offs[0] : offs[-1]], offs - offs[0])
        if not isinstance(key, (int, np.integer)) or isinstance(key, (bool, np.bool_)):
            raise TypeError(f"indices must be integers or slices, not {type(key).__name__}")
        i = range(len(self))[key]  # IndexError and negative indices as for lists
        return self.buffer[self.offsets[i] : self.offsets[i + 1]].tobytes()

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.to_list())

    def __repr__(self) -> str:
        shown = [repr(self[i]) for i in range(min(len(self), 1))] + ["..."] * (len(self) > 1)
        return f"{type(self).__name__}({len(self)}, {self.nbytes} bytes: [{', '.join(shown)}])"

    def to_bytes(self) -> bytes:
        """Every item, back to back, as one ``bytes``."""
        return self.buffer[self.offsets[0] : self.offsets[-1]].tobytes()

    def to_list(self) -> list[bytes]:
        """Every item as its own ``bytes``."""
        data = self.buffer.tobytes()
        o = self.offsets.tolist()
        return [data[a:b] for a, b in itertools.pairwise(o)]

    def write(self, fileobj: BinaryIO) -> int:
        """Write every item, back to back, to a binary file object; returns the byte count.

        The buffer is handed over as one :class:`memoryview` (no copy, no object per
        item); a partial write from a raw file is continued until everything is written.
        For a socket, pass ``self.buffer`` to ``sock.sendall`` directly.
        """
        view = memoryview(self.buffer[self.offsets[0] : self.offsets[-1]])
        total = 0
        while total < len(view):
            written = fileobj.write(view[total:])
            if written is None:  # a non-blocking raw stream that could not write now
                raise BlockingIOError("the stream accepted no bytes; use a blocking stream")
            total += written
        return total


class FieldBuffer(_Chunks):
    """``TAG=VALUE|`` fields, one per row, in one buffer (``|`` is SOH).

    Row ``i`` is ``buffer[offsets[i]:offsets[i + 1]]``, empty for a null row.

    Attributes
    ----------
    buffer : numpy.ndarray
        1-D ``uint8``: every field back to back.
    offsets : numpy.ndarray
        ``(n + 1,)`` ``int64``: where each row's field starts; the last is the end.

    Examples
    --------
    >>> import vecfix, vecfix.fix as fix
    >>> out = fix.fields(270, vecfix.format_fixed([125, -4], -3, 2))
    >>> out
    FieldBuffer(2, 18 bytes: [b'270=0.13\\x01', ...])
    >>> out.to_list(), out.offsets.tolist()
    ([b'270=0.13\\x01', b'270=0.00\\x01'], [0, 9, 18])
    """

    __slots__ = ()


class Messages(_Chunks):
    """Complete FIX messages, back to back in one buffer.

    Message ``i`` is ``buffer[offsets[i]:offsets[i + 1]]``. ``write`` sends them all to a
    file object in one call; ``[i]`` and ``to_list()`` give ``bytes`` per message.

    Attributes
    ----------
    buffer : numpy.ndarray
        1-D ``uint8``: every message back to back.
    offsets : numpy.ndarray
        ``(n + 1,)`` ``int64`` message boundaries.

    Examples
    --------
    >>> import io, vecfix.fix as fix
    >>> msgs = fix.quotes(
    ...     ["EURUSD", "USDJPY"], [108_215, 15_501_2], [108_225, 15_502_0], [1, 2], [1, 2],
    ...     quote_ids=["q1", "q2"], price_exponent=[-5, -3], price_scale=[5, 3],
    ...     sender="S", target="T", seq_start=41, sending_time="20240102-03:04:05",
    ... )
    >>> len(msgs), msgs.lengths.tolist()
    (2, [117, 117])
    >>> sink = io.BytesIO()
    >>> msgs.write(sink) == len(sink.getvalue()) == msgs.nbytes
    True
    >>> msgs[1:].to_list() == [msgs[1]]
    True
    """

    __slots__ = ()


# ---------------------------------------------------------------------------------------
# Column preparation (validation happens here, before anything is written)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Column:
    """Rows of bytes: row ``r`` is ``matrix[r, :lengths[r]]``, absent unless ``valid[r]``."""

    matrix: np.ndarray  # (R, w) uint8, C-contiguous
    lengths: np.ndarray  # (R,) int64
    valid: np.ndarray  # (R,) bool

    def __len__(self) -> int:
        return self.lengths.size


def _valid_mask(name: str, valid: object, n: int) -> np.ndarray:
    """A boolean presence mask of length ``n`` (all True when ``valid`` is None)."""
    if valid is None:
        return np.ones(n, dtype=np.bool_)
    arr = np.asarray(valid)
    if arr.dtype != np.bool_:
        raise TypeError(f"{name} must be booleans (True = present), got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"{name} has shape {arr.shape} but its column has {n} rows")
    return np.ascontiguousarray(arr)


def _describe_bad(name: str, col: _Column, r: int, identifier: bool) -> ValueError:
    text = col.matrix[r, : col.lengths[r]].tobytes()
    if not text:
        why = "is empty (FIX forbids empty values: mark the row null instead)"
    elif 1 in text:
        why = "contains SOH (\\x01), the FIX field delimiter"
    elif identifier and b"=" in text:
        why = "contains '=', which a FIX parser would take for a tag separator"
    else:
        why = "contains a byte outside printable ASCII"
    return ValueError(f"{name}[{r}] = {text!r} {why}")


def _check_bytes(name: str, col: _Column, identifier: bool) -> None:
    """Refuse empty rows and SOH anywhere; identifiers must be printable ASCII without '='."""
    lo, hi, forbidden = (0x20, 0x7E, _EQUALS) if identifier else (0, 255, _k.SOH)
    r = _k.first_bad_byte(col.matrix, col.lengths, col.valid, lo, hi, forbidden)
    if r >= 0:
        raise _describe_bad(name, col, int(r), identifier)


def _text_column(name: str, values: object, *, identifier: bool) -> _Column:
    """Strings (or bytes) as a byte matrix; ``None`` marks a null row."""
    if isinstance(values, (str, bytes)):
        raise TypeError(
            f"{name} must be a sequence of strings, not a single {type(values).__name__}"
        )
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {values.shape}")
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        arr = np.ascontiguousarray(values)
        lengths = np.char.str_len(arr).astype(np.int64)
        valid = np.ones(arr.size, dtype=np.bool_)
    else:
        try:
            items = values.tolist() if isinstance(values, np.ndarray) else list(values)
        except TypeError:
            raise TypeError(
                f"{name} must be a sequence of str or bytes, got {type(values).__name__}"
            ) from None
        encoded = []
        for i, v in enumerate(items):
            if v is None:
                encoded.append(b"")
            elif isinstance(v, str):
                try:
                    encoded.append(v.encode("ascii"))
                except UnicodeEncodeError:
                    raise ValueError(f"{name}[{i}] = {v!r} is not ASCII") from None
            elif isinstance(v, (bytes, bytearray)):
                encoded.append(bytes(v))
            else:
                raise TypeError(f"{name}[{i}] must be str or bytes, got {type(v).__name__} {v!r}")
        valid = np.fromiter((v is not None for v in items), dtype=np.bool_, count=len(items))
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        width = max(1, int(lengths.max(initial=0)))
        arr = np.array(encoded, dtype=f"S{width}").reshape(len(encoded))
    matrix = arr.view(np.uint8).reshape(arr.size, arr.dtype.itemsize)
    col = _Column(matrix, lengths, valid)
    _check_bytes(name, col, identifier)
    return col


def _identifier(name: str, value: object) -> bytes:
    """One header value (sender, target, begin string): printable ASCII, no '='."""
    if not isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {value!r}")
    col = _text_column(name, [value], identifier=True)
    return col.matrix[0, : col.lengths[0]].tobytes()


def _has_formatted_shape(values: object) -> bool:
    return hasattr(values, "matrix") and hasattr(values, "lengths")


def _nulls_to_zero(name: str, values: object, valid: np.ndarray | None) -> tuple[object, Any]:
    """Coefficients with null rows (``None`` or ``valid`` False) set to 0, and the mask."""
    none = None
    if isinstance(values, (list, tuple)) and any(v is None for v in values):
        none = np.fromiter((v is None for v in values), dtype=np.bool_, count=len(values))
    elif isinstance(values, np.ndarray) and values.dtype.kind == "O":
        none = np.equal(values, None).reshape(values.shape)
    if none is not None:
        if valid is not None and valid.shape != none.shape:
            raise ValueError(f"{name}: valid has shape {valid.shape}, values {none.shape}")
        valid = ~none if valid is None else valid & ~none
    if valid is None or valid.all():
        return values, valid
    if isinstance(values, np.ndarray):
        if values.shape != valid.shape:
            raise ValueError(f"{name}: valid has shape {valid.shape}, values {values.shape}")
        cleaned = values.copy()
        cleaned[~valid] = 0
        return cleaned, valid
    seq = list(values)  # type: ignore[call-overload]
    if len(seq) != valid.size:
        raise ValueError(f"{name}: valid has {valid.size} rows, values {len(seq)}")
    return [v if ok else 0 for v, ok in zip(seq, valid.tolist(), strict=True)], valid


def _number_column(
    name: str,
    prefix: str,
    values: object,
    exponent: object,
    scale: object,
    valid: object,
    n: int,
    *,
    rows: str,
    valid_name: str,
    default_scale: int | None = None,
) -> _Column:
    """A price or size column of ``n`` rows, formatted like ``vecfix.format_fixed``.

    ``rows`` says what ``n`` counts, for the error when the length differs.
    """
    if _has_formatted_shape(values):
        if exponent is not None or scale is not None:
            raise TypeError(
                f"{name} is already formatted: leave {prefix}_exponent and {prefix}_scale unset"
            )
        matrix = np.ascontiguousarray(values.matrix, dtype=np.uint8)  # type: ignore[attr-defined]
        lengths = np.ascontiguousarray(values.lengths, dtype=np.int64)  # type: ignore[attr-defined]
        if matrix.ndim != 2 or lengths.shape != matrix.shape[:1]:
            raise ValueError(f"{name}: matrix must be (n, width) and lengths (n,)")
        if lengths.size and (lengths.min() < 0 or lengths.max() > matrix.shape[1]):
            raise ValueError(f"{name}: lengths must lie within 0..width={matrix.shape[1]}")
        mask = _valid_mask(valid_name, valid, lengths.size)
        inner = getattr(values, "valid", None)
        if inner is not None:
            mask = mask & _valid_mask(f"{name}.valid", inner, lengths.size)
        col = _Column(matrix, lengths, mask)
        _check_bytes(name, col, identifier=False)
    else:
        scale = default_scale if scale is None else scale
        if scale is None:
            raise TypeError(f"{prefix}_scale is required: the decimal places to print")
        if exponent is None:
            exponent = 0
        mask = None if valid is None else _valid_mask(valid_name, valid, _rows(values))
        coef, mask = _nulls_to_zero(name, _asarray(values) if _rows(values) == 0 else values, mask)
        try:
            out = format_fixed(coef, exponent, scale)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{name}: {exc}") from None
        lengths = out.lengths.astype(np.int64)
        col = _Column(out.matrix, lengths, _valid_mask(name, mask, lengths.size))
    if len(col) != n:
        raise ValueError(f"{name} has {len(col)} rows, expected {n}: one per {rows}")
    return col


def _asarray(values: object) -> np.ndarray:
    """``np.asarray``, except that an empty list is int64 (NumPy makes it float64)."""
    arr = np.asarray(values)
    return arr.astype(np.int64) if arr.size == 0 and arr.dtype.kind == "f" else arr


def _rows(values: object) -> int:
    try:
        return len(values)  # type: ignore[arg-type]
    except TypeError:
        return 1


def _stack(cols: Sequence[_Column]) -> _Column:
    """Columns one under the other, padded to a common width."""
    width = max(c.matrix.shape[1] for c in cols)
    matrix = np.empty((sum(len(c) for c in cols), width), dtype=np.uint8)
    r = 0
    for c in cols:
        matrix[r : r + len(c), : c.matrix.shape[1]] = c.matrix
        r += len(c)
    lengths = np.concatenate([c.lengths for c in cols])
    return _Column(matrix, lengths, np.concatenate([c.valid for c in cols]))


def _check_tag(tag: object) -> int:
    if isinstance(tag, (bool, np.bool_)) or not isinstance(tag, (int, np.integer)):
        raise TypeError(f"tag must be an int, got {type(tag).__name__} {tag!r}")
    if not 1 <= tag <= MAX_TAG:
        raise ValueError(f"tag must be between 1 and {MAX_TAG}, got {tag}")
    return int(tag)


def _tag_table(tags: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """``b"TAG="`` for every tag, as a byte matrix and lengths."""
    rendered = [f"{t}=".encode() for t in tags]
    table = np.array(rendered, dtype=f"S{max(map(len, rendered))}")
    matrix = table.view(np.uint8).reshape(len(rendered), table.dtype.itemsize)
    return matrix, np.array([len(t) for t in rendered], dtype=np.int64)


_QUOTE_TAGS = _tag_table(_k.QUOTE_TAGS)


def _as_bytes_array(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=np.uint8)


# ---------------------------------------------------------------------------------------
# fields
# ---------------------------------------------------------------------------------------


def fields(
    tag: int,
    column: object,
    *,
    valid: object = None,
    out: np.ndarray | None = None,
    offsets: object = None,
) -> FieldBuffer | np.ndarray:
    """Write ``TAG=VALUE|`` (``|`` = SOH) for every present row of a column.

    Parameters
    ----------
    tag : int
        The FIX tag, ``1..MAX_TAG``.
    column : Formatted or sequence of str or bytes
        The values: a :class:`vecfix.Formatted` (or any object with a ``matrix`` and
        ``lengths`` laid out like one; its ``valid`` attribute, if any, marks present rows)
        or strings, where ``None`` marks a null row.
    valid : array_like of bool, optional
        ``True`` where the row is present; null rows produce no field. Combined (and) with
        the column's own nulls.
    out : numpy.ndarray, optional
        A writeable 1-D ``uint8`` buffer to write into (append style) instead of a new one.
        Requires ``offsets``.
    offsets : array_like of int, optional
        With ``out``: where each row's field starts in ``out``. Fields must not overlap.

    Returns
    -------
    FieldBuffer or numpy.ndarray
        Without ``out``, a :class:`FieldBuffer` holding all fields contiguously. With
        ``out``, the ``int64`` offsets just past each written field (``offsets`` itself for
        null rows), ready for the next call.

    Raises
    ------
    TypeError
        If ``tag`` is not an int, ``valid`` not boolean, or ``out``/``offsets`` have the
        wrong type.
    ValueError
        If ``tag`` is out of range, a present value is empty or contains SOH, a field
        would fall outside ``out`` or overlap another. Nothing is written then.

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
    tag_bytes = _as_bytes_array(f"{_check_tag(tag)}=".encode())
    if _has_formatted_shape(column):
        n = _rows(column)
        col = _number_column(
            "column", "column", column, None, None, valid, n, rows="row", valid_name="valid"
        )
    else:
        col = _text_column("column", column, identifier=False)
        if valid is not None:
            col = _Column(
                col.matrix, col.lengths, col.valid & _valid_mask("valid", valid, len(col))
            )
    n = len(col)
    sizes = np.where(col.valid, tag_bytes.size + col.lengths + 1, 0)
    if out is None:
        if offsets is not None:
            raise TypeError("offsets is only used together with out")
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=starts[1:])
        buf = np.empty(int(starts[-1]), dtype=np.uint8)
        _k.write_fields(buf, starts, tag_bytes, col.matrix, col.lengths, col.valid)
        return FieldBuffer(buf, starts)
    starts = _caller_offsets(out, offsets, n)
    ends = starts + sizes
    _check_fits(out, starts, ends)
    _k.write_fields(out, starts, tag_bytes, col.matrix, col.lengths, col.valid)
    return ends


def _caller_offsets(out: object, offsets: object, n: int) -> np.ndarray:
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
    if not starts.size:
        return
    over = np.flatnonzero(ends > out.size)
    if over.size:
        r = int(over[0])
        raise ValueError(
            f"row {r}'s field needs out[{int(starts[r])}:{int(ends[r])}] but out has"
            f" {out.size} bytes; nothing was written"
        )
    r = int(_k.check_disjoint(starts, ends))
    if r == -2:  # not in order: check in sorted order
        order = np.argsort(starts, kind="stable")
        r = int(_k.check_disjoint(starts[order], ends[order]))
        r = int(order[r]) if r >= 0 else r
    if r >= 0:
        raise ValueError(
            f"row {r}'s field at out[{int(starts[r])}:{int(ends[r])}] overlaps another"
            " row's field; nothing was written"
        )


# ---------------------------------------------------------------------------------------
# messages
# ---------------------------------------------------------------------------------------


def _sending_times(value: object, n: int) -> tuple[_Column, int]:
    """SendingTime as ``YYYYMMDD-HH:MM:SS`` or ``…SS.sss``: one (step 0) or one per message."""
    if isinstance(value, (str, bytes)):
        col, step = _text_column("sending_time", [value], identifier=True), 0
    else:
        col, step = _text_column("sending_time", value, identifier=True), 1
        if len(col) != n:
            raise ValueError(f"sending_time has {len(col)} values for {n} messages")
    if not col.valid.all():
        raise ValueError(f"sending_time[{int(np.argmin(col.valid))}] is None; it is required")
    m = np.zeros((len(col), 21), dtype=np.uint8)
    m[:, : min(21, col.matrix.shape[1])] = col.matrix[:, :21]
    d = m.astype(np.int64) - ord("0")
    is_digit = (d >= 0) & (d <= 9)

    def num(a: int, b: int) -> np.ndarray:
        return sum(d[:, k] * 10 ** (b - 1 - k) for k in range(a, b))

    long = col.lengths == 21
    ok = (col.lengths == 17) | long
    for k in (*range(8), 9, 10, 12, 13, 15, 16):
        ok &= is_digit[:, k]
    ok &= is_digit[:, 18:21].all(axis=1) | ~long
    ok &= (m[:, 8] == ord("-")) & (m[:, 11] == ord(":")) & (m[:, 14] == ord(":"))
    ok &= (m[:, 17] == ord(".")) | ~long
    ok &= (num(4, 6) >= 1) & (num(4, 6) <= 12) & (num(6, 8) >= 1) & (num(6, 8) <= 31)
    ok &= (num(9, 11) <= 23) & (num(12, 14) <= 59) & (num(15, 17) <= 60)
    if not ok.all():
        r = int(np.argmin(ok))
        text = col.matrix[r, : col.lengths[r]].tobytes().decode("ascii")
        raise ValueError(
            f"sending_time[{r}] = {text!r} is not a UTC timestamp YYYYMMDD-HH:MM:SS[.sss]"
        )
    return col, step


def _seq_start(seq_start: object, n: int) -> int:
    if isinstance(seq_start, (bool, np.bool_)) or not isinstance(seq_start, (int, np.integer)):
        raise TypeError(f"seq_start must be an int, got {type(seq_start).__name__} {seq_start!r}")
    if seq_start < 1 or seq_start + max(n - 1, 0) > _INT64_MAX:
        raise ValueError(
            f"seq_start must be >= 1 and seq_start + {max(n - 1, 0)} within int64, got {seq_start}"
        )
    return int(seq_start)


def _frame(
    msg_type: bytes,
    body_lengths: np.ndarray,
    write_bodies: Any,
    *,
    sender: object,
    target: object,
    seq_start: object,
    sending_time: object,
    begin_string: object,
) -> Messages:
    """Validate the header, size and fill every message around its type body."""
    n = body_lengths.size
    begin = b"8=" + _identifier("begin_string", begin_string) + b"\x019="
    head = (
        b"\x0135=" + msg_type
        + b"\x0149=" + _identifier("sender", sender)
        + b"\x0156=" + _identifier("target", target)
        + b"\x0134="
    )  # fmt: skip
    first = _seq_start(seq_start, n)
    times, tstep = _sending_times(sending_time, n)
    msg_len = np.empty(n, dtype=np.int64)
    bodies = np.empty(n, dtype=np.int64)
    _k.frame_lengths(
        body_lengths, len(begin), len(head), first, times.lengths, tstep, msg_len, bodies
    )
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(msg_len, out=offsets[1:])
    buf = np.empty(int(offsets[-1]), dtype=np.uint8)
    _k.write_heads(
        buf, offsets, bodies, _as_bytes_array(begin), _as_bytes_array(head), first,
        times.matrix, times.lengths, tstep,
    )  # fmt: skip
    ends = offsets[1:] - 7
    bad = int(write_bodies(buf, ends - body_lengths, ends))
    if bad >= 0:  # pragma: no cover - a measure/fill disagreement is a bug in vecfix
        raise RuntimeError(f"internal error: message {bad} was sized wrongly")
    _k.write_trailers(buf, offsets)
    return Messages(buf, offsets)


def _counts(entry_counts: object, n: int) -> np.ndarray:
    arr = _asarray(entry_counts)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"entry_counts must be integers, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"entry_counts has shape {arr.shape}, expected ({n},): one per symbol")
    if n and arr.min() < 0:
        i = int(np.argmin(arr))
        raise ValueError(f"entry_counts[{i}] = {int(arr[i])} is negative")
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(arr, out=starts[1:])
    return starts


def _entry_types(values: object, n: int) -> np.ndarray:
    """MDEntryType (269) as one ASCII byte per entry: ints 0..9 or one-character strings."""
    arr = _asarray(values)
    if arr.ndim == 0:
        arr = np.broadcast_to(arr, (n,))
    given = arr
    if arr.shape != (n,):
        raise ValueError(
            f"entry_types has shape {arr.shape}, expected ({n},): one per entry"
            f" (entry_counts sums to {n})"
        )
    if arr.dtype.kind in "iu":
        if n and (arr.min() < 0 or arr.max() > 9):
            i = int(np.flatnonzero((arr < 0) | (arr > 9))[0])
            raise ValueError(f"entry_types[{i}] = {int(arr[i])}: integer types must be 0..9")
        return (arr + ord("0")).astype(np.uint8)
    if arr.dtype.kind not in "US":
        raise TypeError(
            f"entry_types must be ints 0..9 or one-character strings, got dtype {arr.dtype}"
        )
    first = np.ascontiguousarray(arr.astype(arr.dtype.kind + "1"))  # first character
    codes = first.view(np.uint32 if arr.dtype.kind == "U" else np.uint8)
    ok = (np.char.str_len(arr) == 1) & np.isin(codes, _ALNUM)
    if not ok.all():
        i = int(np.argmin(ok))
        raise ValueError(f"entry_types[{i}] = {given[i]!r} must be a single letter or digit")
    return codes.astype(np.uint8)


def snapshots(
    symbols: Sequence[str] | np.ndarray,
    entry_counts: object,
    entry_types: object,
    prices: object,
    sizes: object,
    *,
    price_exponent: object = None,
    price_scale: object = None,
    size_exponent: object = None,
    size_scale: object = None,
    price_valid: object = None,
    size_valid: object = None,
    sender: str,
    target: str,
    seq_start: int = 1,
    sending_time: str | Sequence[str],
    begin_string: str = "FIX.4.4",
) -> Messages:
    """Build one MarketDataSnapshotFullRefresh (``35=W``) per symbol.

    Message ``i`` is ``8|9|35=W|49|56|34=seq_start+i|52|55=symbols[i]|268=K|`` followed
    by its ``K = entry_counts[i]`` entries, each ``269=TYPE|270=PRICE|271=SIZE|``, then
    ``10``. Entries are the flat columns ``entry_types``, ``prices`` and ``sizes``, taken
    in order: message 0 owns the first ``entry_counts[0]`` rows, and so on. A null price
    or size omits that ``270`` or ``271`` from its entry.

    Parameters
    ----------
    symbols : sequence of str or numpy.ndarray
        Symbol (``55``) per message: printable ASCII, not empty, no ``=``. A NumPy bytes
        (``S``) array is taken as is; other sequences are encoded one by one.
    entry_counts : array_like of int
        Number of entries (``268``) per message, ``>= 0``; their sum is the entry count.
    entry_types : array_like
        MDEntryType (``269``) per entry: ints 0..9 or one-character strings (``"0"`` bid,
        ``"1"`` offer, ``"2"`` trade, ...). A scalar applies to every entry.
    prices, sizes : array_like of int, or Formatted
        MDEntryPx (``270``) and MDEntrySize (``271``) per entry: integer coefficients
        formatted with :func:`vecfix.format_fixed` (``None`` marks a null), or an already
        formatted :class:`vecfix.Formatted`.
    price_exponent, price_scale : int or array_like of int
        Exponent and scale for ``prices`` as in :func:`vecfix.format_fixed`; the scale is
        required for coefficients, both must be unset for a ``Formatted``. The exponent
        defaults to 0.
    size_exponent, size_scale : int or array_like of int
        The same for ``sizes``; both default to 0 (whole quantities).
    price_valid, size_valid : array_like of bool, optional
        ``True`` where the price (size) is present.
    sender, target : str
        SenderCompID (``49``) and TargetCompID (``56``).
    seq_start : int, default 1
        MsgSeqNum (``34``) of the first message; the next ones count up by one.
    sending_time : str or sequence of str
        SendingTime (``52``), ``YYYYMMDD-HH:MM:SS`` or ``YYYYMMDD-HH:MM:SS.sss`` (UTC):
        one for all messages or one per message.
    begin_string : str, default "FIX.4.4"
        BeginString (``8``).

    Returns
    -------
    Messages
        All messages in one buffer, with offsets.

    Raises
    ------
    TypeError
        If an input has the wrong type (the message names it).
    ValueError
        If column lengths disagree with ``entry_counts``, a symbol or header value contains
        SOH or ``=``, a timestamp is malformed, a price cannot be printed (see
        :class:`vecfix.RowTooLongError`), and so on. Nothing is returned half-built.

    Examples
    --------
    >>> import vecfix.fix as fix
    >>> msgs = fix.snapshots(
    ...     ["AAPL", "MSFT"], [1, 2], [2, 0, 1], [189_9800, 402_1200, None], [100, 5, 7],
    ...     price_exponent=-4, price_scale=2, sender="MD", target="C", seq_start=7,
    ...     sending_time=["20240102-14:30:00.000", "20240102-14:30:00.001"],
    ... )
    >>> for m in msgs:
    ...     print(m.replace(b"\\x01", b"|").decode())
    8=FIX.4.4|9=85|35=W|49=MD|56=C|34=7|52=20240102-14:30:00.000|55=AAPL|268=1|269=2|270=189.98|271=100|10=036|
    8=FIX.4.4|9=95|35=W|49=MD|56=C|34=8|52=20240102-14:30:00.001|55=MSFT|268=2|269=0|270=402.12|271=5|269=1|271=7|10=235|
    """
    syms = _text_column("symbols", symbols, identifier=True)
    n = len(syms)
    if not syms.valid.all():
        raise ValueError(f"symbols[{int(np.argmin(syms.valid))}] is None; every message needs one")
    entry_starts = _counts(entry_counts, n)
    n_entries = int(entry_starts[-1])
    what = f"entry (entry_counts sums to {n_entries})"
    types = _entry_types(entry_types, n_entries)
    px = _number_column(
        "prices", "price", prices, price_exponent, price_scale, price_valid, n_entries,
        rows=what, valid_name="price_valid",
    )  # fmt: skip
    sz = _number_column(
        "sizes", "size", sizes, size_exponent, size_scale, size_valid, n_entries,
        rows=what, valid_name="size_valid", default_scale=0,
    )  # fmt: skip
    body = np.empty(n, dtype=np.int64)
    _k.snapshot_lengths(
        syms.lengths, entry_starts, px.lengths, px.valid, sz.lengths, sz.valid, body
    )

    def write(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> int:
        return _k.write_snapshot_bodies(
            buf, starts, ends, syms.matrix, syms.lengths, entry_starts,
            types, px.matrix, px.lengths, px.valid, sz.matrix, sz.lengths, sz.valid,
        )  # fmt: skip

    return _frame(
        b"W", body, write, sender=sender, target=target, seq_start=seq_start,
        sending_time=sending_time, begin_string=begin_string,
    )  # fmt: skip


def quotes(
    symbols: Sequence[str] | np.ndarray,
    bid_px: object,
    offer_px: object,
    bid_size: object,
    offer_size: object,
    *,
    quote_ids: Sequence[str] | np.ndarray,
    price_exponent: object = None,
    price_scale: object = None,
    size_exponent: object = None,
    size_scale: object = None,
    bid_px_valid: object = None,
    offer_px_valid: object = None,
    bid_size_valid: object = None,
    offer_size_valid: object = None,
    sender: str,
    target: str,
    seq_start: int = 1,
    sending_time: str | Sequence[str],
    begin_string: str = "FIX.4.4",
) -> Messages:
    """Build one Quote (``35=S``) per row, for batch quote publishing.

    Message ``i`` is ``8|9|35=S|49|56|34=seq_start+i|52|117=quote_ids[i]|55=symbols[i]|``
    then ``132`` BidPx, ``133`` OfferPx, ``134`` BidSize, ``135`` OfferSize (each omitted
    when null), then ``10``.

    Parameters
    ----------
    symbols : sequence of str or numpy.ndarray
        Symbol (``55``) per quote: printable ASCII, not empty, no ``=``.
    bid_px, offer_px, bid_size, offer_size : array_like of int, or Formatted
        One value per quote: integer coefficients formatted with
        :func:`vecfix.format_fixed` (``None`` marks a null, e.g. a one-sided quote), or an
        already formatted :class:`vecfix.Formatted`.
    quote_ids : sequence of str
        QuoteID (``117``) per quote, same rules as symbols.
    price_exponent, price_scale : int or array_like of int
        Exponent (default 0) and scale (required) of both prices, as in
        :func:`vecfix.format_fixed`; unset when the prices are ``Formatted``.
    size_exponent, size_scale : int or array_like of int
        The same for both sizes; both default to 0.
    bid_px_valid, offer_px_valid, bid_size_valid, offer_size_valid : array_like of bool
        ``True`` where the value is present.
    sender, target, seq_start, sending_time, begin_string
        The standard header, as for :func:`snapshots`.

    Returns
    -------
    Messages
        All quotes in one buffer, with offsets.

    Raises
    ------
    TypeError, ValueError
        As for :func:`snapshots`: bad types, lengths that disagree, identifiers with SOH
        or ``=``, malformed timestamps, values that cannot be printed.

    Examples
    --------
    >>> import vecfix.fix as fix
    >>> msgs = fix.quotes(
    ...     ["EURUSD"], [108_215], [None], [1_000_000], [None], quote_ids=["Q1"],
    ...     price_exponent=-5, price_scale=5, sender="S", target="T",
    ...     sending_time="20240102-03:04:05",
    ... )
    >>> print(msgs[0].replace(b"\\x01", b"|").decode())
    8=FIX.4.4|9=82|35=S|49=S|56=T|34=1|52=20240102-03:04:05|117=Q1|55=EURUSD|132=1.08215|134=1000000|10=252|
    """
    syms = _text_column("symbols", symbols, identifier=True)
    n = len(syms)
    ids = _text_column("quote_ids", quote_ids, identifier=True)
    if len(ids) != n:
        raise ValueError(f"quote_ids has {len(ids)} values for {n} symbols")
    for name, col in (("symbols", syms), ("quote_ids", ids)):
        if not col.valid.all():
            raise ValueError(f"{name}[{int(np.argmin(col.valid))}] is None; every quote needs one")
    given = (
        ("bid_px", "price", bid_px, bid_px_valid),
        ("offer_px", "price", offer_px, offer_px_valid),
        ("bid_size", "size", bid_size, bid_size_valid),
        ("offer_size", "size", offer_size, offer_size_valid),
    )
    cols = []
    for name, prefix, values, valid in given:
        price = prefix == "price"
        exponent, scale = (price_exponent, price_scale) if price else (size_exponent, size_scale)
        col = _number_column(
            name, prefix, values, exponent, scale, valid, n,
            rows="quote", valid_name=f"{name}_valid", default_scale=None if price else 0,
        )  # fmt: skip
        cols.append(col)
    values = _stack(cols)
    body = np.empty(n, dtype=np.int64)
    tags, tag_lengths = _QUOTE_TAGS
    _k.quote_lengths(tag_lengths, ids.lengths, syms.lengths, values.lengths, values.valid, body)

    def write(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> int:
        return _k.write_quote_bodies(
            buf, starts, ends, tags, tag_lengths, ids.matrix, ids.lengths, syms.matrix,
            syms.lengths, values.matrix, values.lengths, values.valid,
        )  # fmt: skip

    return _frame(
        b"S", body, write, sender=sender, target=target, seq_start=seq_start,
        sending_time=sending_time, begin_string=begin_string,
    )  # fmt: skip
