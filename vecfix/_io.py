"""Writing a buffer of bytes to a path or a binary file object, in full."""

from __future__ import annotations

import io
import os
from typing import IO, Any, Union, cast

import numpy as np

from .columns.rules import show_value

Destination = Union[str, "os.PathLike[str]", IO[bytes]]
"""Where :func:`write_all` writes: a path (opened ``"wb"``) or an open binary file object."""


def write_all(file: Destination, data: np.ndarray | bytes | memoryview) -> int:
    """Write every byte of ``data`` to ``file``; return how many were written.

    ``data`` is handed over as a :class:`memoryview` (no copy). A raw stream may take
    fewer bytes than offered: the rest is offered again until everything is written, so a
    short write never loses data silently. A path is opened with ``"wb"`` (truncating a
    regular file) and closed afterwards; an open file object is left open and not flushed.

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        A path, or anything with ``write(bytes-like) -> int | None``.
    data : numpy.ndarray, bytes or memoryview
        The bytes; an array must be C-contiguous (its raw memory is written).

    Returns
    -------
    int
        Bytes written (``data``'s size in bytes).

    Raises
    ------
    BlockingIOError
        If a non-blocking stream accepts nothing (its ``write`` returns ``None``).
    OSError
        As raised by the file system.

    Examples
    --------
    >>> import io, numpy as np
    >>> from vecfix._io import write_all
    >>> sink = io.BytesIO()
    >>> write_all(sink, np.frombuffer(b"35=W\\x01", np.uint8)), sink.getvalue()
    (5, b'35=W\\x01')
    """
    check_binary(file)
    view = memoryview(cast(Any, data)).cast("B")
    if isinstance(file, (str, os.PathLike)):
        with open(file, "wb") as f:
            return _write_view(f, view)
    return _write_view(file, view)


def check_binary(file: object) -> None:
    """Refuse a text stream (``io.StringIO``, ``sys.stdout``, a file opened with ``"w"``):
    vecfix writes bytes.

    >>> import io
    >>> check_binary(io.StringIO())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: file must be a binary file (vecfix writes bytes), not the text stream StringIO
    Open the file with "wb", or pass io.BytesIO or sys.stdout.buffer
    """
    if isinstance(file, io.TextIOBase):
        raise TypeError(
            "file must be a binary file (vecfix writes bytes), not the text stream"
            f' {type(file).__name__}\nOpen the file with "wb", or pass io.BytesIO or'
            " sys.stdout.buffer"
        )
    if not isinstance(file, (str, os.PathLike)) and not callable(getattr(file, "write", None)):
        raise TypeError(
            f"file must be a path or a binary file, got {type(file).__name__}"
            f' {show_value(file)}\nOpen the file with "wb", or pass io.BytesIO or'
            " sys.stdout.buffer"
        )


def _write_view(fileobj: IO[bytes], view: memoryview) -> int:
    total = 0
    while total < len(view):
        written = fileobj.write(view[total:])
        if written is None:  # a non-blocking raw stream that could not write now
            raise BlockingIOError("the stream accepted no bytes; use a blocking stream")
        if written <= 0:
            raise OSError(f"the stream accepted {written} bytes; {len(view) - total} remain")
        total += written
    return total
