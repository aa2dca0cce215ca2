"""Format inputs of any length in chunks of rows, with bounded memory: :func:`iter_format`
formats one chunk of ``chunksize`` rows at a time, :func:`write_formatted` streams each
chunk's text to a binary file; only one chunk's result is alive at a time."""

from __future__ import annotations

import contextlib
import decimal
import itertools
import os
from collections.abc import Iterator
from typing import IO, Any

import numpy as np

from ._format import _UNSET, format_fixed, number_format_parts, renamed
from ._io import atomic_path, check_binary
from ._number_format import NumberFormat
from ._result import Formatted
from .columns import ColumnLike, DecimalColumn, RowError, rules

__all__ = ["iter_format", "write_formatted"]

_NAMES = rules.ARGUMENTS
_SCALAR_TYPES = (int, np.integer, decimal.Decimal, str, bytes, bytearray, memoryview)


def iter_format(
    coefficients: ColumnLike,
    exponent: ColumnLike | NumberFormat = None,
    scale: ColumnLike = None,
    *,
    chunksize: int = 1_000_000,
    **kwargs: Any,
) -> Iterator[Formatted]:
    """Format the rows in chunks of ``chunksize``, yielding one :class:`Formatted` per chunk.

    Each chunk is :func:`vecfix.format_fixed` with the same arguments, so the text is the
    same whatever the chunk size, and only one chunk's matrix exists at a time (unless
    the caller keeps them).

    Parameters
    ----------
    coefficients, exponent, scale
        As for :func:`vecfix.format_fixed` (``exponent`` may be a
        :class:`~vecfix.NumberFormat`; ``exponents=``, ``scales=`` are their deprecated
        names): a scalar or a length-1 sequence (broadcast),
        or a column of the common length (a NumPy array or memory map, a list, a pyarrow,
        pandas or polars column, a :class:`~vecfix.DecimalColumn`, anything with ``len()``
        and slicing). ``coefficients`` may be an iterator (of ints or ``Decimal``, say)
        when ``exponent`` and ``scale`` are scalars or ``None``.
    chunksize : int, default 1_000_000
        Rows per chunk (the last chunk may be shorter).
    **kwargs
        ``width`` (give it to make every chunk's matrix as wide), ``threads``, ``null``
        and ``layout``, passed to :func:`vecfix.format_fixed`; ``out`` and any other
        keyword are refused.

    Yields
    ------
    Formatted
        The rows of one chunk, in order. An empty input yields nothing.

    Raises
    ------
    TypeError, ValueError
        At the call: a bad ``chunksize``, ``out=``, lengths that do not broadcast, inputs
        that are not 1-D or cannot be sliced. While iterating: what
        :func:`vecfix.format_fixed` raises, a :class:`~vecfix.RowError`'s row counted from
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
    exponent, scale = renamed(
        "iter_format", exponent, scale, kwargs.pop("exponents", _UNSET),
        kwargs.pop("scales", _UNSET),
    )  # fmt: skip
    if isinstance(exponent, NumberFormat):
        exponent, scale, kwargs["null"] = number_format_parts(exponent, scale, kwargs.get("null"))
    if "out" in kwargs:
        raise TypeError("iter_format does not take out=: every chunk gets a matrix of its own")
    unknown = sorted(set(kwargs) - {"width", "threads", "null", "layout"})
    if unknown:  # (not format_fixed's words: iter_format is the call the user made)
        raise TypeError(
            f"iter_format() got an unexpected keyword argument {rules.show_value(unknown[0])}"
            "\niter_format passes width, threads, null and layout to format_fixed for every"
            " chunk"
        )
    columns = (coefficients, exponent, scale)
    lengths = [_length(name, value) for name, value in zip(_NAMES, columns, strict=True)]
    if lengths[0] == -1:  # an iterator of coefficients
        if lengths[1] not in (None, 1) or lengths[2] not in (None, 1):
            raise TypeError(
                "when coefficients is an iterator, exponent and scale must be scalars (or"
                " None)\nPass a list or an array to give them per row"
            )
        it = iter(coefficients)  # type: ignore[arg-type]
        chunks = iter(lambda: list(itertools.islice(it, chunksize)), [])
        return _formatted(([chunk, exponent, scale] for chunk in chunks), kwargs)
    n = rules.broadcast_length(lengths)
    parts = (
        [v if k is None or (k == 1 and n != 1) else _slice(v, lo, min(lo + chunksize, n))
         for v, k in zip(columns, lengths, strict=True)]
        for lo in range(0, n, chunksize)
    )  # fmt: skip
    return _formatted(parts, kwargs)


def write_formatted(
    file: str | os.PathLike[str] | IO[bytes],
    coefficients: ColumnLike,
    exponent: ColumnLike | NumberFormat = None,
    scale: ColumnLike = None,
    *,
    chunksize: int = 1_000_000,
    sep: bytes = b"\n",
    end: bytes = b"\n",
    null_text: bytes = b"",
    **kwargs: Any,
) -> int:
    """Format the rows chunk by chunk and write their text to a binary file: the bytes of
    ``format_fixed(...).write(file, sep, end, null=null_text)``, one chunk in memory.

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        A path (replaced whole once every row is written: an error leaves an existing
        file as it was, :func:`vecfix._io.atomic_path`) or an open binary file (left
        open, written from its current position).
    coefficients, exponent, scale, chunksize
        As for :func:`iter_format` (``exponents=``, ``scales=``: deprecated names).
    sep, end, null_text : bytes-like, default b"\\n", b"\\n", b""
        Written between rows, once after the last row (none for an empty input), and for
        a null row (``bytes``, ``bytearray`` or ``memoryview``).
    **kwargs
        ``width``, ``threads`` and ``null``, as for :func:`vecfix.format_fixed`.

    Returns
    -------
    int
        The number of bytes written.

    Raises
    ------
    TypeError, ValueError
        As :func:`iter_format`. A path is left as it was; an open file keeps the chunks
        written before the one that failed.

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
    exponent, scale = renamed(
        "write_formatted", exponent, scale, kwargs.pop("exponents", _UNSET),
        kwargs.pop("scales", _UNSET),
    )  # fmt: skip
    chunks = iter_format(coefficients, exponent, scale, chunksize=chunksize, **kwargs)
    with contextlib.ExitStack() as stack:
        fh: IO[bytes]
        if isinstance(file, (str, os.PathLike)):  # replaced whole, or left as it was
            fh = stack.enter_context(open(stack.enter_context(atomic_path(file)), "wb"))
        else:
            fh = file
        written = rows = 0
        for chunk in chunks:
            if rows:
                fh.write(sep)
                written += len(sep)
            written += chunk.write(fh, sep=sep, end=b"", null=null_text)
            rows += len(chunk)
            del chunk  # (not alive while the next one is formatted)
        if rows:
            fh.write(end)
            written += len(end)
        return written


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


def _formatted(parts: Iterator[list[Any]], kwargs: dict[str, Any]) -> Iterator[Formatted]:
    """``format_fixed(*part, **kwargs)`` of each part, a :class:`RowError`'s row counted
    from the input's start."""
    offset = 0
    for part in parts:
        try:
            out = format_fixed(*part, **kwargs)
        except RowError as exc:
            raise exc.shifted(offset) from None
        offset += len(out)
        yield out
