"""The result of a bulk format: a fixed-width byte matrix plus row lengths."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


class Formatted:
    """Formatted text for ``n`` rows, held as an ``(n, width)`` uint8 matrix.

    Row ``i`` is ``matrix[i, :lengths[i]]``, left-aligned ASCII; the bytes after it are
    zero. Nothing is decoded to Python strings until asked for.

    Attributes
    ----------
    matrix : numpy.ndarray
        ``(n, width)`` C-contiguous ``uint8``.
    lengths : numpy.ndarray
        ``(n,)`` ``int32``, the length of each row's text.

    Examples
    --------
    >>> import numpy as np, vecfix
    >>> out = vecfix.format_fixed(np.array([1234567, -5000, 0]), -4, 2)
    >>> out
    Formatted(3 rows, width 6: ['123.46', '-0.50', ...])
    >>> len(out), out[0], out.width
    (3, '123.46', 6)
    """

    __slots__ = ("lengths", "matrix")

    def __init__(self, matrix: np.ndarray, lengths: np.ndarray) -> None:
        if matrix.ndim != 2 or matrix.dtype != np.uint8 or lengths.shape != matrix.shape[:1]:
            raise ValueError("matrix must be (n, width) uint8 and lengths (n,)")
        self.matrix = matrix
        self.lengths = lengths

    @property
    def width(self) -> int:
        """Bytes per row of :attr:`matrix` (the longest row, or the caller's width)."""
        return self.matrix.shape[1]

    def __len__(self) -> int:
        return self.matrix.shape[0]

    def __getitem__(self, key: int | slice | np.ndarray) -> str | Formatted:
        """A row as ``str`` for an integer key; a new :class:`Formatted` otherwise."""
        if isinstance(key, (int, np.integer)):
            i = range(len(self))[key]  # IndexError and negative indices as for lists
            return self.matrix[i, : self.lengths[i]].tobytes().decode("ascii")
        return Formatted(np.ascontiguousarray(self.matrix[key]), self.lengths[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_list())

    def __repr__(self) -> str:
        shown = [repr(self[i]) for i in range(min(len(self), 2))] + ["..."] * (len(self) > 2)
        return f"Formatted({len(self)} rows, width {self.width}: [{', '.join(shown)}])"

    def to_list(self) -> list[str]:
        """Every row as a Python ``str``."""
        text = self.matrix.tobytes().decode("ascii")
        w = self.width
        return [text[i * w : i * w + n] for i, n in enumerate(self.lengths.tolist())]

    def to_numpy(self) -> np.ndarray:
        """The rows as a NumPy ``S{width}`` array: a view of :attr:`matrix`, no copy.

        NumPy drops the trailing zero bytes when an element is read, so each element is
        exactly the row's text.
        """
        if self.width == 0:
            return np.zeros(len(self), dtype="S1")
        return self.matrix.view(f"S{self.width}").reshape(len(self))
