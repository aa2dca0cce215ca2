"""Format inputs of any length in chunks of rows, with bounded memory.

:func:`iter_format` slices the inputs (NumPy arrays and memory maps, lists, pyarrow,
pandas and polars columns, a :class:`~vecfix.DecimalColumn`, or anything else with
``len()`` and slicing) into chunks of ``chunksize`` rows and formats one chunk at a time;
:func:`write_formatted` streams the text of every chunk to a binary file. Only one chunk's
result is alive at a time, so the memory used is set by ``chunksize``, not by the input.
"""

from __future__ import annotations

import decimal
import itertools
import os
from collections.abc import Iterator
from typing import IO, Any

import numpy as np

from ._format import format_fixed
from ._io import check_binary
from ._result import Formatted
from .columns import ColumnLike, DecimalColumn, RowError, rules

__all__ = ["iter_format", "write_formatted"]

_NAMES = rules.ARGUMENTS
_SCALAR_TYPES = (int, np.integer, decimal.Decimal, str, bytes, bytearray, memoryview)


def iter_format(
    coefficients: ColumnLike,
    exponents: ColumnLike = None,
    scales: ColumnLike = None,
    *,
    chunksize: int = 1_000_000,
    **kwargs: Any,
) -> Iterator[Formatted]:
    """Format the rows in chunks of ``chunksize``, yielding one :class:`Formatted` per chunk.

    Every chunk is formatted by :func:`vecfix.format_fixed` with the same arguments, so
    the rows' text is identical whatever the chunk size; only one chunk's matrix exists
    at a time (unless the caller keeps them), which bounds the memory for inputs of any
    length.

    Parameters
    ----------
    coefficients, exponents, scales
        As for :func:`vecfix.format_fixed`. Each may be a scalar, a length-1 sequence
        (both broadcast to every chunk) or a column of the common length: a NumPy array
        or memory map, a list or tuple, a pyarrow array or chunked array, a pandas or
        polars Series, a :class:`~vecfix.DecimalColumn`, or any object with ``len()``
        and slicing. ``coefficients`` may also be an iterator (a generator of ints or
        ``Decimal`` values, say) when ``exponents`` and ``scales`` are scalars or
        ``None``; it is read ``chunksize`` items at a time.
    chunksize : int, default 1_000_000
        Rows per chunk (the last chunk may be shorter).
    **kwargs
        ``width``, ``threads``, ``null`` and ``layout``, passed to
        :func:`vecfix.format_fixed` for every chunk. Give ``width`` to make every chunk's
        matrix the same width. ``out`` is refused: each chunk gets a matrix of its own; so
        is any other keyword.

    Yields
    ------
    Formatted
        The rows of one chunk, in order. An empty input yields nothing.

    Raises
    ------
    TypeError, ValueError
        At the call: a bad ``chunksize``, ``out=``, lengths that do not broadcast, inputs
        that are not 1-D or cannot be sliced. While iterating: what
        :func:`vecfix.format_fixed` raises, when the chunk holding the offending row is
        reached; a :class:`~vecfix.RowError` counts its :attr:`~vecfix.RowError.row` from
        the start of the whole input.

    Examples
    --------
    >>> import numpy as np, vecfix
    >>> px = np.array([5000_250000000, -4_000000, 12_345678901, 7])
    >>> [chunk.to_list() for chunk in vecfix.iter_format(px, -9, 4, chunksize=3)]
    [['5000.2500', '-0.0040', '12.3457'], ['0.0000']]
    >>> [len(chunk) for chunk in vecfix.iter_format(range(10), 0, 0, chunksize=4)]
    [4, 4, 2]
    """
    chunksize = rules.positive_int(chunksize, "chunksize")  # type: ignore[assignment]
    if "out" in kwargs:
        raise TypeError("iter_format does not take out=: every chunk gets a matrix of its own")
    unknown = sorted(set(kwargs) - {"width", "threads", "null", "layout"})
    if unknown:  # (not format_fixed's words: iter_format is the call the user made)
        raise TypeError(
            f"iter_format() got an unexpected keyword argument {rules.show_value(unknown[0])}"
            "\niter_format passes width, threads, null and layout to format_fixed for every"
            " chunk"
        )
    columns = (coefficients, exponents, scales)
    lengths = [_length(name, value) for name, value in zip(_NAMES, columns, strict=True)]
    if lengths[0] == -1:  # an iterator of coefficients
        if lengths[1] not in (None, 1) or lengths[2] not in (None, 1):
            raise TypeError(
                "when coefficients is an iterator, exponents and scales must be scalars (or"
                " None)\nPass a list or an array to give them per row"
            )
        return _iter_unsized(coefficients, exponents, scales, chunksize, kwargs)
    return _iter_sized(columns, lengths, rules.broadcast_length(lengths), chunksize, kwargs)


def _iter_sized(
    columns: tuple[ColumnLike, ...],
    lengths: list[int | None],
    n: int,
    chunksize: int,
    kwargs: dict[str, Any],
) -> Iterator[Formatted]:
    """Chunks of sized columns: slices of ``n`` rows, broadcast values passed whole."""
    for lo in range(0, n, chunksize):
        hi = min(lo + chunksize, n)
        parts = [
            value if length is None or (length == 1 and n != 1) else _slice(value, lo, hi)
            for value, length in zip(columns, lengths, strict=True)
        ]
        yield _format_chunk(lo, parts, kwargs)


def write_formatted(
    file: str | os.PathLike[str] | IO[bytes],
    coefficients: ColumnLike,
    exponents: ColumnLike = None,
    scales: ColumnLike = None,
    *,
    chunksize: int = 1_000_000,
    sep: bytes = b"\n",
    end: bytes = b"\n",
    null_text: bytes = b"",
    **kwargs: Any,
) -> int:
    """Format the rows chunk by chunk and write their text to a binary file.

    Writes exactly the bytes of ``format_fixed(...).write(file, sep, end, null=null_text)``
    (rows joined by ``sep``, then ``end`` once; nothing for an empty input) while holding
    only one chunk in memory.

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        A path (created or truncated, closed afterwards) or an open binary file (left
        open, written from its current position).
    coefficients, exponents, scales, chunksize
        As for :func:`iter_format`.
    sep : bytes-like, default b"\\n"
        Written between rows (``bytes``, ``bytearray`` or ``memoryview``, as for
        :meth:`vecfix.Formatted.write`).
    end : bytes-like, default b"\\n"
        Written once after the last row.
    null_text : bytes-like, default b""
        Text written for a null row.
    **kwargs
        ``width``, ``threads`` and ``null`` (sentinel coefficients), as for
        :func:`vecfix.format_fixed`.

    Returns
    -------
    int
        The number of bytes written.

    Raises
    ------
    TypeError, ValueError
        As :func:`iter_format` does. What it refuses at the call, or in the first
        chunk, is refused before a path is opened; an error in a later chunk leaves the
        rows of the chunks before it written.

    Examples
    --------
    >>> import io, vecfix
    >>> f = io.BytesIO()
    >>> vecfix.write_formatted(f, [125, -5, 2**70], -2, 1, chunksize=2)
    32
    >>> f.getvalue()
    b'1.3\\n-0.1\\n11805916207174113034.2\\n'
    """
    for name, value in (("sep", sep), ("end", end), ("null_text", null_text)):
        if not isinstance(value, (bytes, bytearray, memoryview)):  # as Formatted.write takes
            raise TypeError(
                f"{name} must be bytes, got {type(value).__name__} {rules.show_value(value)}"
            )
    sep, end, null_text = bytes(sep), bytes(end), bytes(null_text)  # fixed for every chunk
    check_binary(file)  # before any work
    chunks = iter_format(coefficients, exponents, scales, chunksize=chunksize, **kwargs)
    if isinstance(file, (str, os.PathLike)):
        # the first chunk formatted before the path is opened (truncated): an input
        # refused whole (floats, text that is no number) leaves an existing file as it was
        first = list(itertools.islice(chunks, 1))
        with open(file, "wb") as fh:
            return _write(fh, itertools.chain(first, chunks), sep, end, null_text)
    return _write(file, chunks, sep, end, null_text)


def _write(
    file: IO[bytes], chunks: Iterator[Formatted], sep: bytes, end: bytes, null_text: bytes
) -> int:
    """Rows joined by ``sep``, then ``end``: each chunk written (and dropped) as it comes."""
    written = 0
    rows = 0
    for chunk in chunks:
        if rows:
            file.write(sep)
            written += len(sep)
        written += chunk.write(file, sep=sep, end=b"", null=null_text)
        rows += len(chunk)
        del chunk
    if rows:
        file.write(end)
        written += len(end)
    return written


# ----------------------------------------------------------------------------- helpers


def _length(name: str, value: Any) -> int | None:
    """Rows in ``value``: ``None`` for a scalar (or absent), -1 for an unsized iterable."""
    if value is None or isinstance(value, _SCALAR_TYPES):
        return None
    if isinstance(value, DecimalColumn):
        return len(value.coefficients)
    ndim = getattr(value, "ndim", None)
    if isinstance(ndim, (int, np.integer)):
        if ndim == 0:
            return None
        rules.check_1d(name, tuple(getattr(value, "shape", (0, 0))))
    try:
        return len(value)
    except TypeError:
        pass
    if name == "coefficients" and hasattr(value, "__iter__"):
        return -1
    raise TypeError(
        f"{name} must be a scalar, a sized sliceable column (an array, list, Series ...) or,"
        f" for coefficients, an iterator; got {type(value).__name__}"
    )


def _slice(value: Any, lo: int, hi: int) -> Any:
    """Rows ``lo:hi`` of a column, without copying where the container allows."""
    if isinstance(value, DecimalColumn):
        exps = value.exponents
        return DecimalColumn(
            _slice(value.coefficients, lo, hi),
            exps if exps is None or isinstance(exps, int) or exps.ndim == 0 else exps[lo:hi],
            None if value.valid is None else value.valid[lo:hi],
        )
    iloc = getattr(value, "iloc", None)  # pandas: positions, never labels
    if iloc is not None:
        return iloc[lo:hi]
    return value[lo:hi]


def _format_chunk(offset: int, parts: list[Any], kwargs: dict[str, Any]) -> Formatted:
    """``format_fixed(*parts, **kwargs)``, with a :class:`RowError`'s row counted from the
    input's start."""
    try:
        return format_fixed(*parts, **kwargs)
    except RowError as exc:
        if not offset or exc.row is None:
            raise
        raise exc.shifted(offset) from None


def _iter_unsized(
    coefficients: Any,
    exponents: ColumnLike,
    scales: ColumnLike,
    chunksize: int,
    kwargs: dict[str, Any],
) -> Iterator[Formatted]:
    """Chunks of an iterator of coefficients (exponents and scales are scalars)."""
    iterator = iter(coefficients)
    offset = 0
    while True:
        chunk = list(itertools.islice(iterator, chunksize))
        if not chunk:
            return
        yield _format_chunk(offset, [chunk, exponents, scales], kwargs)
        offset += len(chunk)
