"""Results of the FIX builders: byte strings held back to back in one buffer."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np

from .._io import Destination, write_all


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

    @classmethod
    def _trusted(cls, buffer: np.ndarray, offsets: np.ndarray) -> Any:
        """A result of vecfix's own kernels, whose arrays need no checks."""
        made = cls.__new__(cls)
        made.buffer, made.offsets = buffer, offsets
        return made

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

    def write(self, file: Destination) -> int:
        """Write every item, back to back, to a path or a binary file object.

        The buffer is handed over as one :class:`memoryview` (no copy, no object per
        item); a partial write from a raw file is continued until everything is written.
        A path is replaced whole (:func:`vecfix._io.atomic_path`). For a socket, pass
        ``self.buffer`` to ``sock.sendall`` directly. Returns the byte count.
        """
        return write_all(file, self.buffer[self.offsets[0] : self.offsets[-1]])


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
    path or file object in one call; ``[i]`` and ``to_list()`` give ``bytes`` per message.

    Attributes
    ----------
    buffer : numpy.ndarray
        1-D ``uint8``: every message back to back.
    offsets : numpy.ndarray
        ``(n + 1,)`` ``int64`` message boundaries.

    Examples
    --------
    >>> import io, vecfix, vecfix.fix as fix
    >>> msgs = fix.quotes(  # one exponent and one scale a row
    ...     ["EURUSD", "USDJPY"], [108_215, 15_501_2], [108_225, 15_502_0], [1, 2], [1, 2],
    ...     quote_ids=["q1", "q2"], price=vecfix.NumberFormat([-5, -3], [5, 3]),
    ...     header=fix.Header("S", "T", next_seq=41), sending_time="20240102-03:04:05",
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
