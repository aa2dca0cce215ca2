""":func:`read`: FIX tag=value messages back into Arrow columns, in bulk and exactly.

The log is scanned by the kernels of :mod:`vecfix._kernels.fixread` (framing, fields,
groups, then one pass per column); nothing here loops over messages or fields.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .._kernels import fixread as _k
from ._read_columns import Scan, build, empty, prefix_array
from ._read_types import check_tags, check_types, name_for, spec_for

Source = bytes | bytearray | memoryview | np.ndarray | str | os.PathLike[str]

_BIG_TAGS = 1024  # distinct tags of 65536 and more a log may hold

#: What each problem code means, as the warning counts it and an error starts.
WHAT = {
    _k.BODY_LENGTH: "wrong BodyLength (9)",
    _k.CHECKSUM: "wrong CheckSum (10)",
    _k.TRUNCATED: "truncated (no CheckSum (10))",
    _k.NO_EQUALS: "a field without '='",
    _k.BAD_TAG: "a tag that is not a number",
    _k.EMPTY_VALUE: "an empty value",
    _k.MSG_TYPE: "MsgType (35) not third",
    _k.GROUP_COUNT: "a group count that disagrees with its entries",
    _k.BAD_VALUE: "a value not of its tag's type",
    _k.MISPLACED: "CheckSum (10) before the end",
}


def read(
    source: Source,
    *,
    tags: Iterable[int | str] | None = None,
    types: Mapping[Any, Any] | None = None,
    strict: bool = False,
    delimiter: str | bytes | None = None,
    names: str = "tag",
) -> Any:
    """Read FIX tag=value messages into a ``pyarrow.Table``, one row per group entry.

    The log is scanned by Numba kernels (framing, fields, repeating groups, then one pass
    a column), with no Python object per message or per field. Every message is checked:
    its BodyLength (``9``) and CheckSum (``10``), the ``TAG=VALUE`` grammar of each field,
    its group counts, and its values against their FIX types.

    Parameters
    ----------
    source : bytes, bytearray, memoryview, numpy.ndarray of uint8, str or path
        Messages back to back, or a log of one message a line; text before ``8=FIX`` on a
        line (a timestamp, say) is kept in a column ``prefix``. A ``str`` or path names a
        file, which is memory-mapped.
    tags : sequence of int or str, optional
        The tags to read, in this order (default: every tag seen, in first-seen order),
        as numbers or FIX names (``"MDEntryPx"``). A tag not seen gives a column of nulls.
    types : mapping of tag to type, optional
        A tag's column type instead of its FIX type's: ``"string"``, ``"int64"``,
        ``"decimal"`` (at the widest scale seen), ``"timestamp"`` (at the precision
        written), or an Arrow type: ``pa.string()``, ``pa.large_string()``, an integer
        type, ``pa.decimal128(p, s)``/``pa.decimal256(p, s)`` (values outside the integer
        type, or with more decimals or digits, are bad values), ``pa.timestamp(unit, tz)``.
    strict : bool, default False
        Raise at the first message that is not valid instead of keeping it.
    delimiter : str or bytes, optional
        The byte each field ends with (default: the log's, ``|`` when its first
        BeginString ends with one, else SOH). BodyLength and CheckSum are checked as over
        SOH, as the engine computed them before it logged the message.
    names : {"tag", "name"}, default "tag"
        Columns named by tag number (``"270"``) or by FIX name (``"MDEntryPx"``; a tag no
        dictionary knows keeps its number).

    Returns
    -------
    pyarrow.Table
        One row per innermost repeating-group entry (NoMDEntries ``268`` of ``35=W``/``X``;
        NoQuoteEntries ``295`` inside NoQuoteSets ``296`` of ``35=i``), in order, each with
        its message's fields (and its quote set's); one row per message without entries.
        Columns ``msg`` (message number from 0), ``offset`` (the byte where its ``8=``
        starts), ``valid``, ``prefix`` (only when a line has one: its text before ``8=``,
        spaces around it left out; null where there is none), then one per tag. Each
        tag's type is its FIX type in the version of the messages (their BeginString:
        FIX.4.2 and older as 4.2, FIXT.1.1 and FIX.5.0 as 5.0 SP2, others as 4.4; text
        where the log's versions disagree): prices, quantities, amounts and percentages
        as ``decimal128`` at the widest scale seen (the text's own digits; ``decimal256``
        past 38 digits, a bad value past 76), integers as ``int64``, ``UTCTimestamp``
        fields as UTC ``timestamp`` at the precision written (a leap second, ``:60``, as
        the next second), the rest as ``string``. A tag missing from a row, or whose value
        is bad, is null there.

    Raises
    ------
    ValueError
        With ``strict=True``: the first message that is not valid (its number, the byte
        where it starts and what is wrong, at which byte).
    TypeError
        A ``source``, ``tags`` or ``types`` of the wrong type.
    FileNotFoundError
        A path that does not exist.

    Warns
    -----
    UserWarning
        Once, when messages are not valid (how many of each kind, and the first), bytes
        after the last message are not a message, or a tag repeats within a row (a
        repeating group other than those above: the first value is kept).

    Notes
    -----
    A message starts at ``8=FIX`` (text before it on its line is its prefix) and is
    framed by its BodyLength; where that is wrong, by the first ``SOH 10=`` after
    its header, or else the end of its line or the next ``8=FIX`` (truncated). Such
    messages are kept, ``valid`` False, with their fields as far as they parse. ``valid``
    covers the values of the columns read (``tags=`` leaves the others unchecked). Strings
    are ``string`` (``large_string`` past 2 GiB of text in a column).

    Examples
    --------
    >>> import vecfix.fix as fix
    >>> log = (
    ...     b"8=FIX.4.4\\x019=84\\x0135=W\\x0134=7\\x0152=20240102-14:30:00.125\\x0155=ESZ4"
    ...     b"\\x01268=2\\x01269=0\\x01270=5000.25\\x01269=1\\x01270=5000.5\\x0110=201\\x01"
    ... )
    >>> t = fix.read(log, tags=[55, 269, 270, 52])
    >>> t.column_names
    ['msg', 'offset', 'valid', '55', '269', '270', '52']
    >>> t.schema.field("270").type, t.schema.field("52").type
    (Decimal128Type(decimal128(18, 2)), TimestampType(timestamp[ms, tz=UTC]))
    >>> [str(v) for v in t["270"].to_pylist()], t["55"].to_pylist(), t["valid"].to_pylist()
    (['5000.25', '5000.50'], ['ESZ4', 'ESZ4'], [True, True])

    A log as engines keep them, ``|`` for SOH and a time before each message:

    >>> line = b"14:30:00.125 IN 8=FIX.4.4|9=24|35=8|31=402.125|12=1.25|10=065|"
    >>> t = fix.read(line, names="name")
    >>> t.column_names[3:]
    ['prefix', 'BeginString', 'BodyLength', 'MsgType', 'LastPx', 'Commission', 'CheckSum']
    >>> t["prefix"][0].as_py(), t["LastPx"][0].as_py(), t["valid"][0].as_py()
    ('14:30:00.125 IN', Decimal('402.125'), True)
    """
    import pyarrow as pa

    data = _as_array(source)
    delim = _delimiter(data, delimiter)
    wanted = check_tags(tags)
    given = check_types(types)
    if not isinstance(strict, bool):
        raise TypeError(f"strict must be True or False, got {strict!r}")
    if names not in ("tag", "name"):
        raise ValueError(f'names must be "tag" or "name", got {names!r}')
    scan, col_tags = _scan(data, wanted, delim)
    versions = _versions(scan)
    header = ["msg", "offset", "valid"]
    arrays: list[Any] = []
    for c, tag in enumerate(col_tags):
        arrays.append(build(pa, scan, c, spec_for(tag, given, versions), tag))
    by_name = names == "name"  # (no FIX name is two tags': tests/test_fix_spec.py)
    titles = [name_for(tag, versions) if by_name else str(tag) for tag in col_tags]
    if strict:
        _raise_first(scan)
    ok = scan.problem == _k.OK
    head = [
        pa.array(scan.row_msg),
        pa.array(scan.starts[scan.row_msg]),
        pa.array(ok[scan.row_msg]),
    ]
    prefix = prefix_array(pa, scan)
    if prefix is not None:
        head.append(prefix)
        header.append("prefix")
    _warn(scan, ok)
    return pa.Table.from_arrays(head + arrays, names=header + titles)


def _as_array(source: object) -> np.ndarray:
    """The log as a read-only 1-D uint8 array, without a copy where possible."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        view = memoryview(source)
        if not view.c_contiguous:
            raise ValueError("source: a memoryview must be C-contiguous")
        arr = np.frombuffer(
            view.cast("B") if view.format != "B" or view.ndim != 1 else view, np.uint8
        )
    elif isinstance(source, np.ndarray):
        if source.dtype != np.uint8:
            raise TypeError(
                f"source: a NumPy array must be uint8, got {source.dtype}"
                " (bytes in another dtype: .view(np.uint8))"
            )
        if source.ndim != 1:
            raise ValueError(f"source: a NumPy array must be 1-D, got shape {source.shape}")
        arr = np.ascontiguousarray(source)
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.stat().st_size == 0:  # FileNotFoundError names the path
            arr = np.zeros(0, dtype=np.uint8)
        else:
            arr = np.memmap(path, dtype=np.uint8, mode="r").view(np.ndarray)
    else:
        raise TypeError(
            "source must be bytes, bytearray, memoryview, a uint8 NumPy array or a path,"
            f" got {type(source).__name__}"
        )
    return arr


def _versions(scan: Scan) -> set[str]:
    """The FIX versions of the log's messages, each by its BeginString (``8``): FIX.4.0 to
    4.2 as 4.2, FIX.4.3 and 4.4 (and any other) as 4.4, FIXT.1.1 and FIX.5.0 as 5.0 SP2."""
    counts = np.bincount(scan.version, minlength=3)
    names = {_k.V44: "4.4", _k.V42: "4.2", _k.V50: "5.0SP2"}
    return {names[code] for code in range(3) if counts[code]}


def _delimiter(data: np.ndarray, delimiter: str | bytes | None) -> int:
    """``delimiter=`` as a byte, or the log's: the byte after its first BeginString's
    value (``8=FIX.4.4|``), when that is ``|``; else SOH."""
    if delimiter is None:
        head = data[:65536].tobytes()
        at = head.find(b"8=FIX")
        end = at + 5
        while 0 <= at and end < len(head) and (head[end : end + 1].isalnum() or head[end] == 46):
            end += 1
        return 124 if 0 <= at and end < len(head) and head[end] == 124 else 1
    raw = delimiter.encode("latin-1") if isinstance(delimiter, str) else delimiter
    if not isinstance(raw, bytes) or len(raw) != 1 or raw.isalnum() or raw in b"=.\r\n":
        raise ValueError(
            "delimiter must be one byte that is not a letter, digit, '=', '.' or a line end"
            f" (SOH '\\x01' or '|'), got {delimiter!r}"
        )
    return raw[0]


def _frame(data: np.ndarray, delim: int) -> tuple[list[np.ndarray], int]:
    """Every message's bounds and framing verdict, in as few kernel calls as the array
    sizes allow (one, unless the messages are shorter than 64 bytes on average)."""
    n = data.shape[0]
    cap = n // 64 + 16
    parts: list[list[np.ndarray]] = []
    pos, junk = 0, -1
    while True:
        arrays = [np.empty(cap, dtype=np.int64) for _ in range(6)]
        arrays[3] = np.empty(cap, dtype=np.uint8)
        arrays += [np.empty((cap, 2), dtype=np.int64), np.empty(cap, dtype=np.uint8)]
        m, pos, junk = (int(x) for x in _k.frame_messages(data, delim, pos, *arrays))
        parts.append([a[:m] for a in arrays])
        if m < cap:
            break
        cap *= 2
    if len(parts) == 1:
        return parts[0], junk
    return [np.concatenate(p) for p in zip(*parts, strict=True)], junk


def _scan(data: np.ndarray, wanted: list[int] | None, delim: int) -> tuple[Scan, list[int]]:
    """Frame and split the log; every column's records (its fields), in message order."""
    framed, junk = _frame(data, delim)
    starts, ends, trailers, problem, problem_at, nsoh, prefix, version = framed
    m = starts.shape[0]
    fields = int(nsoh.sum()) + m  # at most one field a SOH, and one unterminated
    table = np.full(_k.DENSE_TAGS, -1, dtype=np.int32)
    big = np.zeros((2, _BIG_TAGS), dtype=np.int64)  # tags of 65536 and more, their columns
    most = min(_k.DENSE_TAGS + _BIG_TAGS, fields + len(wanted or ()))  # columns, at most
    col_tags = np.zeros(most, dtype=np.int64)
    state = np.zeros(_k.STATE_SIZE, dtype=np.int64)
    state[_k.S_GROW] = wanted is None
    state[_k.S_NODES] = m  # message i is node i; group entries follow
    for c, tag in enumerate(wanted or ()):
        col_tags[c] = tag
        if tag < _k.DENSE_TAGS:
            table[tag] = c
        else:
            big[:, state[_k.S_BIG]] = tag, c
            state[_k.S_BIG] += 1
        state[_k.S_COLS] += 1
    largest = int(nsoh.max()) + 2 if m else 2
    chunks = (fields + 63 * _k.CHUNK) // _k.CHUNK + largest  # 64 columns' part-filled chunks
    pool = empty((chunks * _k.CHUNK, 2), np.int64)
    chunk_col = np.empty(chunks, dtype=np.int32)
    cols = np.zeros((most, 4), dtype=np.int64)
    cols[:, _k.C_LAST] = -1
    cols[:, _k.C_FLAT] = 1
    nodes = empty((fields + m, 2), np.int64)
    row_msg = empty(fields + m, np.int64)
    levels = np.zeros((_k.LEVEL_ROWS, _k.MAX_DEPTH + 1), dtype=np.int64)
    tree = np.zeros((2, largest), dtype=np.int64)
    bits = empty(data.shape[0] // 64 + 2, np.uint64)
    _k.soh_bits(data, delim, bits)
    fixed = starts, ends, trailers, nsoh
    while True:
        status = _k.split_fields(
            data, bits, *fixed, problem, problem_at, table, big, col_tags, state, levels,
            tree, cols, chunk_col, pool, nodes, row_msg,
        )  # fmt: skip
        if status == _k.DONE:
            break
        if status == _k.BIG_TAGS_FULL:
            raise ValueError(f"source has more than {_BIG_TAGS} distinct tags of 65536 or more")
        if status == _k.TOO_LONG:
            at = int(starts[state[_k.S_MSG]])
            raise ValueError(f"message at byte {at} has a value of 4 GiB or more")
        if status == _k.TOO_MANY:
            raise ValueError(f"source has {_k.MAX_NODES:,} messages and group entries or more")
        pool = np.concatenate([pool, np.empty_like(pool)])  # POOL_FULL
        chunk_col = np.concatenate([chunk_col, np.empty_like(chunk_col)])
    ncols = int(state[_k.S_COLS])
    used = chunk_col[: state[_k.S_CHUNKS]]
    order = np.argsort(used, kind="stable")
    bounds = np.searchsorted(used[order], np.arange(ncols + 1))
    seg_lo = order * _k.CHUNK
    seg_hi = seg_lo + _k.CHUNK
    ends_at = bounds[1:][bounds[1:] > bounds[:-1]] - 1  # each column's last chunk
    seg_hi[ends_at] = cols[used[order[ends_at]], _k.C_CUR]
    nnodes, rows = int(state[_k.S_NODES]), int(state[_k.S_ROWS])
    scan = Scan(
        data=data, starts=starts, ends=ends, trailers=trailers, problem=problem,
        problem_at=problem_at, pool=pool, nodes=nodes[:nnodes], row_msg=row_msg[:rows],
        seg_lo=seg_lo, seg_hi=seg_hi, bounds=bounds,
        flat=cols[:ncols, _k.C_FLAT].astype(np.uint8), junk_at=junk, prefix=prefix,
        version=version,
        delim=delim,
    )  # fmt: skip
    return scan, col_tags[:ncols].tolist()


# ---------------------------------------------------------------------------------------
# Problems: one warning, or an error at the first
# ---------------------------------------------------------------------------------------


def _shown(data: np.ndarray, at: int, delim: int = 1, limit: int = 40) -> str:
    """The field at byte ``at`` as text, cut at ``limit`` characters."""
    chunk = data[at : at + limit + 1].tobytes()
    end = chunk.find(bytes([delim]))
    text = chunk[: end if end >= 0 else limit].decode("ascii", "replace").replace("\n", "\\n")
    return text[:limit] + ("..." if len(text) > limit or (end < 0 and len(chunk) > limit) else "")


def describe(scan: Scan, i: int) -> str:
    """What is wrong with message ``i``, in a sentence naming the byte."""
    data, d = scan.data, scan.delim
    code, at = int(scan.problem[i]), int(scan.problem_at[i])
    start, trailer = int(scan.starts[i]), int(scan.trailers[i])
    if code == _k.BODY_LENGTH:
        head = data[start : start + 64].tobytes().split(bytes([scan.delim]))
        said = head[1].decode("ascii", "replace") if len(head) > 1 else ""
        body = start + len(head[0]) + len(head[1]) + 2 if said.startswith("9=") else None
        if body is not None and trailer >= 0:
            return f"BodyLength ({said}) at byte {at}, but the body has {trailer - body} bytes"
        return f"BodyLength (9) at byte {at} is missing or malformed: {_shown(data, at, d)!r}"
    if code == _k.CHECKSUM:
        summed = data[start:trailer]
        total = int(summed.sum(dtype=np.int64) - (summed == d).sum() * (d - 1)) % 256  # as SOH
        return f"CheckSum ({_shown(data, at, d)}) at byte {at}, but the bytes sum to {total:03d}"
    if code == _k.TRUNCATED:
        return f"truncated at byte {at}: no CheckSum (10) field"
    if code == _k.BAD_VALUE:  # ``at`` is the value's first byte: its tag is before it
        before = data[max(start, at - 12) : at].tobytes()
        digits = before[before.rfind(bytes([d])) + 1 : -1]
        tag = int(digits) if digits.isdigit() else 0
        kind = scan.bad_tags.get(tag, "value")
        return f"field '{tag}={_shown(data, at, d)}' at byte {at} is not a FIX {kind}"
    what = WHAT.get(code, f"problem {code}")
    return f"{what}: field {_shown(data, at, d)!r} at byte {at}"


def _junk(scan: Scan) -> str:
    n = scan.data.shape[0] - scan.junk_at
    shown = _shown(scan.data, scan.junk_at, scan.delim)
    return f"the last {n:,} bytes (from byte {scan.junk_at}: {shown!r}) are not a FIX message"


def _raise_first(scan: Scan) -> None:
    bad = np.flatnonzero(scan.problem != _k.OK)
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"message {i} at byte {int(scan.starts[i])} is not valid: {describe(scan, i)}"
            "\n(strict=False keeps such messages, with valid=False, and warns)"
        )
    if scan.junk_at >= 0:
        raise ValueError(_junk(scan) + "\n(strict=False skips them and warns)")


def _warn(scan: Scan, ok: np.ndarray) -> None:
    """One warning for everything that is not right, or none."""
    parts = []
    bad = np.flatnonzero(~ok)
    if bad.size:
        counts = np.bincount(scan.problem[bad], minlength=len(WHAT) + 1)
        kinds = ", ".join(f"{int(counts[c]):,} {w}" for c, w in WHAT.items() if counts[c])
        i = int(bad[0])
        parts.append(
            f"{bad.size:,} of {ok.size:,} messages are not valid (valid=False): {kinds};"
            f" the first, message {i} at byte {int(scan.starts[i])}: {describe(scan, i)}"
        )
    if scan.junk_at >= 0:
        parts.append(_junk(scan))
    if scan.repeated:
        parts.append(
            f"{scan.repeated:,} fields repeat a tag already in their row (a repeating group"
            " that makes no rows): the first value is kept"
        )
    if parts:
        warnings.warn("vecfix.fix.read: " + "; ".join(parts), UserWarning, stacklevel=3)
