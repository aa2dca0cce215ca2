"""Decimal text to coefficients and exponents: one pass of the parsing kernel, or, for a
few rows (:func:`vecfix._engine.kernels_for`), plain Python by the same grammar."""

from __future__ import annotations

import decimal
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _engine
from .._kernels import BIG, EXPONENT_RANGE, INVALID, OK
from .._limits import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from .column import DecimalColumn
from .rules import RowError

_NO_VALID = np.empty(0, dtype=np.uint8)
_NO_OFFSETS = np.zeros(1, dtype=np.int64)


def valid_of(seq: Sequence[object], has_null: bool) -> np.ndarray | None:
    """``True`` where ``seq`` holds something other than ``None`` (``None`` if no null)."""
    return np.array([v is not None for v in seq], dtype=bool) if has_null else None


def parse_texts(
    texts: Sequence[str] | Sequence[bytes], valid: np.ndarray | None, name: str, joined: Any = None
) -> DecimalColumn:
    """Rows of ``str`` or of ``bytes`` (a null row empty), joined by newlines once (or as
    ``joined`` already) and parsed."""
    n = len(texts)
    if n and isinstance(texts[0], bytes):
        data = b"\n".join(texts)  # type: ignore[arg-type]
    else:
        try:
            data = ("\n".join(texts) if joined is None else joined).encode("ascii")  # type: ignore[arg-type]
        except UnicodeEncodeError as exc:
            ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=n) + 1)
            row = int(np.searchsorted(ends, exc.start, side="right"))
            raise text_error(row, texts[row], INVALID, name) from None
    arr = np.frombuffer(data, dtype=np.uint8)
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0] = 0
    seps = np.flatnonzero(arr == 10)
    if n and seps.size == n - 1:  # row i ends where separator i is
        offsets[1:n] = seps + 1
        offsets[n] = arr.size + 1
    else:  # a row holds a newline itself (it is not decimal text): go by the lengths
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=n)
        np.cumsum(lengths + 1, out=offsets[1:])
    return parse(arr, offsets, 0, 1, n, valid, name)


def parse_numpy(arr: np.ndarray, name: str) -> DecimalColumn:
    """NumPy ``S``/``U`` arrays: fixed-width rows, parsed in place where possible."""
    flat = arr.reshape(-1)
    n = flat.shape[0]
    if arr.dtype.kind == "S":
        flat = np.ascontiguousarray(flat)
        width = flat.dtype.itemsize
        data = flat.view(np.uint8) if width else np.zeros(0, dtype=np.uint8)
    else:
        flat = np.ascontiguousarray(flat, dtype=flat.dtype.newbyteorder("="))
        width = flat.dtype.itemsize // 4
        codes = flat.view(np.uint32).reshape(n, width)
        wide = codes > 127
        if wide.any():
            row = int(np.flatnonzero(wide.any(axis=1))[0])
            raise text_error(row, str(flat[row]), INVALID, name)
        data = codes.astype(np.uint8).reshape(-1)
    if width == 0:  # itemsize 0: every row is empty text
        data = np.zeros(max(n, 1), dtype=np.uint8)
        width = 1
    return parse(data, _NO_OFFSETS, width, 0, n, None, name)


def parse_arrow_buffers(arr: Any, wide: bool, valid: np.ndarray | None, name: str) -> DecimalColumn:
    """An Arrow ``string``/``binary`` (``wide``: ``large_``) array, parsed in its buffers."""
    n = len(arr)
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64 if wide else np.int32)
    offsets = offsets[arr.offset : arr.offset + n + 1].astype(np.int64)
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else _NO_VALID
    return parse(data, offsets, 0, 0, n, valid, name)


def parse(
    data: np.ndarray,
    offsets: np.ndarray,
    width: int,
    gap: int,
    n: int,
    valid: np.ndarray | None,
    name: str,
) -> DecimalColumn:
    """Parse ``n`` rows of ``width`` bytes in ``data``, or between ``offsets`` (less ``gap``
    separator bytes each)."""
    coef = np.empty(n, dtype=np.int64)
    exps = np.empty(n, dtype=np.int32)
    status = np.empty(n, dtype=np.uint8)
    vmask = _NO_VALID if valid is None else np.ascontiguousarray(valid, dtype=bool).view(np.uint8)

    def text(i: int) -> bytes:
        if width:
            return data[i * width : (i + 1) * width].tobytes().rstrip(b"\0")
        return data[offsets[i] : offsets[i + 1] - gap].tobytes()

    if _engine.kernels_for(n):
        from .._kernels.text import parse_decimal

        first, nbig = parse_decimal(data, offsets, width, gap, vmask, coef, exps, status)
    else:
        rows = (None if vmask.size and not vmask[i] else text(i) for i in range(n))
        first, nbig = _parse_python(rows, coef, exps, status)
    if first >= 0:
        raise text_error(first, text(first), int(status[first]), name)
    if nbig:
        values = coef.astype(object)
        for i in np.flatnonzero(status == BIG).tolist():
            mantissa = text(i).decode("ascii").lower().partition("e")[0].replace(".", "")
            values[i] = int(decimal.Decimal(mantissa))  # exact; no int-from-str digit limit
        return DecimalColumn(values, exps, valid)
    return DecimalColumn(coef, exps, valid)


#: The grammar of :func:`vecfix._kernels.text.parse_decimal`: sign, digits with a point
#: somewhere (at least one digit), an exponent.
_DECIMAL = re.compile(rb"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")


def _parse_python(
    rows: Any, coef: np.ndarray, exps: np.ndarray, status: np.ndarray
) -> tuple[int, int]:
    """:func:`vecfix._kernels.text.parse_decimal` in plain Python, for a few ``rows``
    (``bytes``, or None for a null row: ``(0, 0)``); the same outputs and result."""
    first, nbig = -1, 0
    for i, row in enumerate(rows):
        coef[i], exps[i], status[i] = 0, 0, OK
        found = None if row is None else _DECIMAL.fullmatch(row)
        if row is None:
            continue
        if found is None or not (found[2] or found[3]):
            status[i] = INVALID
        else:
            sign, whole, frac, power = found.groups(b"")
            digits = (whole + frac).lstrip(b"0")
            significant = power.lstrip(b"+-").lstrip(b"0")
            e = (int(power or b"0") if len(significant) <= 12 else 2**40) - len(frac)
            if not INT32_MIN <= e <= INT32_MAX:
                status[i] = EXPONENT_RANGE
            elif len(digits) > 19 or not INT64_MIN <= int(sign + (digits or b"0")) <= INT64_MAX:
                status[i], nbig, exps[i] = BIG, nbig + 1, e
            else:
                coef[i], exps[i] = int(sign + (digits or b"0")), e
        if status[i] in (INVALID, EXPONENT_RANGE) and first < 0:
            first = i
    return first, nbig


def text_error(row: int, text: bytes | str, status: int, name: str) -> RowError:
    """The error for a row that is not decimal text (or whose exponent is outside int32)."""
    if isinstance(text, bytes):
        text = text.decode("ascii", "backslashreplace")
    shown = text if len(text) <= 60 else text[:57] + "..."
    if status == EXPONENT_RANGE:
        detail = f": {shown!r} has an exponent outside int32"
    else:
        detail = f": {shown!r} is not decimal text (expected e.g. '-12.5', '0.001' or '1e-3')"
    return RowError(detail, argument=name, row=row, lead=f"{name} ")
