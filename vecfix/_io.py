"""Writing a buffer of bytes to a path or a binary file object, in full, and the one way
vecfix replaces a file (:func:`atomic_path`)."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Union, cast

import numpy as np

from .columns.rules import show_value

Destination = Union[str, "os.PathLike[str]", IO[bytes]]
"""Where :func:`write_all` writes: a path (replaced whole) or an open binary file object."""


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
    with contextlib.ExitStack() as stack:
        f: IO[bytes]
        if isinstance(file, (str, os.PathLike)):
            f = stack.enter_context(open(stack.enter_context(atomic_path(file)), "wb"))
        else:
            f = file
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


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str], *, folder: bool = False) -> Iterator[str]:
    """Replace the file ``target`` whole, or leave it as it was: yield the path of a new,
    empty temporary file beside it for the block to write (by name, as polars' sinks do,
    or by opening it); when the block ends normally, the file is flushed to disk
    (``fsync``), given ``target``'s permissions (a new file: ``0o666`` less the umask),
    and renamed over ``target`` (``os.replace``, atomic: a reader sees the old file or the
    whole new one); when it raises, the temporary file is removed and ``target`` is
    untouched. A link to a file replaces the file it points to. Every path vecfix writes
    (``vecfix format``, :func:`vecfix.write_formatted`, the Dask and FIX writers) is
    written through this.

    The temporary file is ``.NAME.<32 hex digits>.tmp`` in ``target``'s folder.
    ``folder=True``: the same for a folder of files (a Parquet dataset): a new folder
    yielded, every file in it flushed, then put in place of ``target`` (an existing one is
    renamed aside first, then removed: two renames, so a crash between them leaves the
    old folder under ``.NAME.<hex>.old``).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "prices.csv"
    >>> _ = target.write_text("old\\n")
    >>> with atomic_path(target) as tmp:
    ...     _ = pathlib.Path(tmp).write_text("new\\n")
    >>> target.read_text()
    'new\\n'
    >>> try:
    ...     with atomic_path(target) as tmp:
    ...         _ = pathlib.Path(tmp).write_text("half a fi")
    ...         raise OSError("disk full")
    ... except OSError:
    ...     pass
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('new\\n', ['prices.csv'])
    """
    final = Path(os.path.realpath(target))
    try:
        mode: int | None = stat.S_IMODE(final.stat().st_mode)
    except FileNotFoundError:
        mode = None
    tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
    if folder:
        os.mkdir(tmp)
    else:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # (umask applies)
    try:
        yield os.fspath(tmp)
        for path in [tmp, *(tmp.rglob("*") if folder else ())]:
            _fsync(path)
        if mode is not None:
            os.chmod(tmp, mode)
        if folder and mode is not None:  # (a folder is not renamed over another: set aside)
            aside = tmp.with_suffix(".old")
            os.replace(final, aside)
            os.replace(tmp, final)
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.replace(tmp, final)
    except BaseException:
        if folder:
            shutil.rmtree(tmp, ignore_errors=True)
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    with contextlib.suppress(OSError):  # the rename itself on disk (where the OS allows)
        _fsync(final.parent)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
