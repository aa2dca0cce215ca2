"""Writing a buffer of bytes to a path or a binary file object, in full."""

from __future__ import annotations

import io
import os
from contextlib import nullcontext
from typing import IO, Any, Union, cast

import numpy as np

from .columns.rules import show_value

Destination = Union[str, "os.PathLike[str]", IO[bytes]]
"""Where :func:`write_all` writes: a path (opened ``"wb"``) or an open binary file object."""


def write_all(file: Destination, data: np.ndarray | bytes | memoryview) -> int:
    """Write every byte of ``data`` (a C-contiguous array's raw memory, no copy) to
    ``file``; return how many. A raw stream that takes fewer bytes than offered is offered
    the rest until all are written. A path is opened ``"wb"`` and closed; an open file is
    left open, not flushed. A non-blocking stream that takes nothing: BlockingIOError.

    >>> import io, numpy as np
    >>> sink = io.BytesIO()
    >>> write_all(sink, np.frombuffer(b"35=W\\x01", np.uint8)), sink.getvalue()
    (5, b'35=W\\x01')
    """
    check_binary(file)
    view = memoryview(cast(Any, data)).cast("B")
    with open(file, "wb") if isinstance(file, (str, os.PathLike)) else nullcontext(file) as f:
        total = 0
        while total < len(view):
            written = f.write(view[total:])
            if written is None:  # a non-blocking raw stream that could not write now
                raise BlockingIOError("the stream accepted no bytes; use a blocking stream")
            if written <= 0:
                raise OSError(f"the stream accepted {written} bytes; {len(view) - total} remain")
            total += written
        return total


def check_binary(file: object) -> None:
    """Refuse a text stream, or what is neither a path nor has ``write``: vecfix writes bytes.

    >>> import io
    >>> check_binary(io.StringIO())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: file must be a binary file (vecfix writes bytes), not the text stream StringIO
    Open the file with "wb", or pass io.BytesIO or sys.stdout.buffer
    """
    advice = '\nOpen the file with "wb", or pass io.BytesIO or sys.stdout.buffer'
    if isinstance(file, io.TextIOBase):
        raise TypeError(
            "file must be a binary file (vecfix writes bytes), not the text stream"
            f" {type(file).__name__}{advice}"
        )
    if not isinstance(file, (str, os.PathLike)) and not callable(getattr(file, "write", None)):
        raise TypeError(
            f"file must be a path or a binary file, got {type(file).__name__}"
            f" {show_value(file)}{advice}"
        )
