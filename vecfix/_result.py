"""The result of a bulk format: a fixed-width byte matrix, row lengths and a validity mask."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import IO, Any

import numpy as np

from . import _engine
from ._arrow import offsets, pack_rows
from ._io import write_all
from .columns.column import Identity
from .columns.rules import is_int, show_value

_new = object.__new__


class Formatted:
    """Formatted text for ``n`` rows, held as an ``(n, width)`` uint8 matrix.

    Row ``i`` is ``matrix[i, :lengths[i]]``, left-aligned ASCII; the bytes after it are
    zero. Nothing is decoded to Python strings until asked for. A result of
    ``format_fixed(..., layout="arrow")`` or ``layout="string_view"`` holds its text in
    that Arrow layout instead and makes the matrix on first use (see :attr:`matrix`).

    A null row (an Arrow, pandas or polars null, ``None``, a ``null=`` sentinel) has
    length 0, an all-zero matrix row and ``valid`` ``False``; each output shows it in its
    own way (``None``, an Arrow null, ``<NA>``, ``null``; ``b""`` from :meth:`to_numpy`).

    Attributes
    ----------
    matrix : numpy.ndarray
        ``(n, width)`` C-contiguous ``uint8``.
    lengths : numpy.ndarray
        ``(n,)`` ``int32``, the length of each row's text (0 for a null row).
    valid : numpy.ndarray or None
        ``(n,)`` bool, ``True`` where a value is present; ``None`` when every row is.
    identity : Identity or None
        The input column's ``name`` (pandas, polars) and ``index`` (pandas), which
        :meth:`to_pandas`, :meth:`to_polars` and :meth:`to_arrow_field` keep by default.

    Examples
    --------
    >>> import numpy as np, vecfix
    >>> out = vecfix.format_fixed(np.array([1234567, -5000, 0]), -4, 2)
    >>> out
    Formatted(3 rows, width 6: ['123.46', '-0.50', ...])
    >>> len(out), out[0], out.width
    (3, '123.46', 6)
    >>> vecfix.format_fixed([5, None, 7], -1, 2).to_list()
    ['0.50', None, '0.70']
    """

    __slots__ = (
        "_data", "_lengths", "_matrix", "_offsets", "_records", "_threads", "identity", "valid"
    )  # fmt: skip

    def __init__(
        self,
        matrix: np.ndarray,
        lengths: np.ndarray,
        valid: np.ndarray | None = None,
        *,
        identity: Identity | None = None,
    ) -> None:
        if matrix.ndim != 2 or matrix.dtype != np.uint8 or lengths.shape != matrix.shape[:1]:
            raise ValueError("matrix must be (n, width) uint8 and lengths (n,)")
        if valid is not None:
            valid = np.asarray(valid)
            if valid.dtype != np.bool_ or valid.shape != lengths.shape:
                raise ValueError("valid must be None or a bool array of shape (n,)")
        self._matrix: np.ndarray | None = matrix
        self._lengths: np.ndarray | None = lengths
        self._offsets: np.ndarray | None = None
        self._data: np.ndarray | None = None
        self._records: np.ndarray | None = None
        self._threads: int | None = None  # the call's threads: its conversions use as many
        self.valid, self.identity = valid, identity

    @classmethod
    def _trusted(cls, matrix: Any, lengths: Any) -> Formatted:
        """Wrap a matrix and lengths the kernels just wrote, unchecked (no nulls)."""
        self = _new(cls)  # object.__new__: no lookup through the class
        self._matrix, self._lengths = matrix, lengths
        self._offsets = self._data = self._records = self._threads = self.valid = None
        self.identity = None
        return self

    @classmethod
    def _packed(cls, offsets: np.ndarray, data: np.ndarray, valid: Any, identity: Any) -> Formatted:
        """Arrow's ``string`` layout, as the kernels wrote it: row ``i`` is
        ``data[offsets[i]:offsets[i + 1]]`` (int32 offsets; a null row's bytes ignored)."""
        self = cls._trusted(None, None)
        self._offsets, self._data, self.valid, self.identity = offsets, data, valid, identity
        return self

    @classmethod
    def _views(
        cls, records: np.ndarray, lengths: np.ndarray, valid: Any, identity: Any
    ) -> Formatted:
        """Arrow ``string_view`` records, as the kernels wrote them (every row at most 12
        bytes): ``(n, 2)`` uint64, a row's length in its first 4 bytes, its text after."""
        self = cls._trusted(None, lengths)
        self._records, self.valid, self.identity = records, valid, identity
        return self

    @property
    def matrix(self) -> np.ndarray:
        """``(n, width)`` C-contiguous ``uint8``: row ``i`` left-aligned, zero-padded.

        A result of ``layout="arrow"`` or ``layout="string_view"`` makes it from its Arrow
        text on first use and from then on holds its text here alone: every output reads
        the matrix (a row written into it shows in every output), and the kernels' Arrow
        buffers are let go (arrays made from them before keep them).
        """
        if self._matrix is not None:
            return self._matrix
        if self._records is not None:  # the records' text bytes
            self._matrix = np.ascontiguousarray(self._inline()[:, : self.width])
        else:
            from ._kernels.text import copy_rows
            from ._tuning import WIDE_MATRIX_BYTES, WIDE_MATRIX_RATIO

            lengths = self.lengths
            assert self._offsets is not None and self._data is not None
            width = int(lengths.max()) if lengths.size else 0
            size, text = lengths.size * width, int(self._data.size)
            if size > WIDE_MATRIX_BYTES and size > WIDE_MATRIX_RATIO * text:
                raise ValueError(
                    f"Formatted.matrix: row {int(np.argmax(lengths))} is {width:,} bytes long,"
                    f" so the ({lengths.size:,}, {width:,}) byte matrix would take"
                    f" {size / 2**30:.1f} GiB for {text / 2**20:.1f} MiB of text\nThis"
                    " result holds the text in Arrow's layout: use to_arrow(), to_pandas(),"
                    " to_polars() or to_list()"
                )
            matrix = np.zeros((lengths.size, width), dtype=np.uint8)
            starts = self._offsets[:-1].astype(np.int64)
            at = np.arange(lengths.size, dtype=np.int64) * width
            copy_rows(self._data, starts, 0, lengths, matrix.reshape(-1), at)
            self._matrix = matrix
        self._offsets = self._data = self._records = None  # the matrix is the text now
        return self._matrix

    def _inline(self) -> np.ndarray:
        """The text bytes of each ``string_view`` record: ``(n, 12)`` uint8, a view."""
        assert self._records is not None
        return self._records.view(np.uint8).reshape(-1, 16)[:, 4:]

    @property
    def lengths(self) -> np.ndarray:
        """``(n,)`` ``int32``: the length of each row's text (0 for a null row)."""
        if self._lengths is None:
            assert self._offsets is not None
            lengths = np.diff(self._offsets).astype(np.int32, copy=False)
            if self.valid is not None:
                lengths[~self.valid] = 0
            self._lengths = lengths
        return self._lengths

    @property
    def width(self) -> int:
        """Bytes per row of :attr:`matrix` (the longest row, or the caller's width)."""
        if self._matrix is None:
            return int(self.lengths.max()) if len(self) else 0
        return self._matrix.shape[1]

    @property
    def null_count(self) -> int:
        """How many rows are null."""
        return 0 if self.valid is None else int(self.valid.size - np.count_nonzero(self.valid))

    def __len__(self) -> int:
        if self._lengths is None and self._offsets is not None:  # no lengths made for it
            return self._offsets.shape[0] - 1
        return self.lengths.shape[0]

    def __getitem__(self, key: int | slice | np.ndarray) -> str | Formatted | None:
        """A row as ``str`` (``None`` if null) for an integer key; a :class:`Formatted` for
        a slice (a view of this result's arrays), a bool mask or an index array (copies)."""
        given = key
        if not isinstance(key, (int, np.integer, slice, np.ndarray, tuple)):
            key = np.asarray(key)  # a list, a pandas or polars Series: positions or a mask
            if key.size == 0:  # [] is no rows (NumPy makes it a float array)
                key = key.astype(np.intp)
        if isinstance(key, np.ndarray) and key.ndim == 0:
            key = key[()]
        if is_int(key):
            return self._row(int(key))  # type: ignore[arg-type]
        if not isinstance(key, slice) and not (
            isinstance(key, np.ndarray) and key.dtype.kind in "iub"
        ):
            shown = f"of dtype {key.dtype}" if isinstance(key, np.ndarray) else show_value(given)
            raise TypeError(
                "a Formatted is indexed by an int, a slice, a bool mask or an array of row"
                f" numbers, not {type(given).__name__} {shown}"
            )
        identity = self.identity
        if identity is not None and identity.index is not None:
            identity = identity._replace(index=identity.index[key])
        valid = None if self.valid is None else self.valid[key]
        part = Formatted(
            np.ascontiguousarray(self.matrix[key]), self.lengths[key], valid, identity=identity
        )
        part._threads = self._threads
        return part

    def _row(self, key: int) -> str | None:
        if not -len(self) <= key < len(self):
            raise IndexError(f"row {key} is out of range for a result of {len(self)} rows")
        i = range(len(self))[key]  # negative indices as for lists
        if self.valid is not None and not self.valid[i]:
            return None
        if self._matrix is not None:
            text = self._matrix[i, : self.lengths[i]]
        elif self._offsets is not None and self._data is not None:
            text = self._data[int(self._offsets[i]) : int(self._offsets[i + 1])]
        else:  # string_view records: no matrix made for one row
            text = self._inline()[i, : self.lengths[i]]
        return text.tobytes().decode("ascii")

    def __iter__(self) -> Iterator[str | None]:
        return iter(self.to_list())

    def __repr__(self) -> str:
        shown = [repr(self[i]) for i in range(min(len(self), 2))] + ["..."] * (len(self) > 2)
        return f"Formatted({len(self)} rows, width {self.width}: [{', '.join(shown)}])"

    def to_list(self) -> list[str | None]:
        """Every row as a Python ``str``; ``None`` for a null row."""
        rows: list[str | None]
        if self._offsets is not None and self._data is not None:
            text = self._data.tobytes().decode("ascii")  # Arrow's layout: no matrix made
            bounds = self._offsets.tolist()
            rows = [text[lo:hi] for lo, hi in itertools.pairwise(bounds)]
        else:
            text = self.matrix.tobytes().decode("ascii")
            w = self.width
            rows = [text[i * w : i * w + n] for i, n in enumerate(self.lengths.tolist())]
        if self.valid is not None:
            for i in np.flatnonzero(~self.valid).tolist():
                rows[i] = None
        return rows

    def to_numpy(self) -> np.ndarray:
        """The rows as a NumPy ``S{width}`` array: a view of :attr:`matrix`, no copy (NumPy
        drops the trailing zero bytes; a null row reads as ``b""``, see :attr:`valid`)."""
        if self.width == 0:
            return np.zeros(len(self), dtype="S1")
        return self.matrix.view(f"S{self.width}").reshape(len(self))

    def rjust(
        self, width: int | None = None, fillchar: bytes = b" ", null: bytes = b""
    ) -> np.ndarray:
        """Rows right-aligned in ``width`` bytes, padded with ``fillchar``, for reports.

        Parameters
        ----------
        width : int, optional
            Bytes per row; default :attr:`width`. A row (or ``null``) longer than ``width``
            is refused (:class:`ValueError`, naming the row).
        fillchar : bytes
            One byte to pad with.
        null : bytes
            Text for null rows (default: nothing, an all-padding row).

        Returns
        -------
        numpy.ndarray
            ``(n, width)`` uint8, C-contiguous: ``.tobytes()`` gives the rows back to back,
            and ``.view(f"S{width}").ravel()`` gives one ``bytes`` per row.

        Examples
        --------
        >>> import vecfix
        >>> out = vecfix.format_fixed([12345, -5, None], -2, 2)
        >>> out.rjust(8).tobytes()
        b'  123.45   -0.05        '
        >>> out.rjust(8, null=b"-").view("S8").ravel().tolist()
        [b'  123.45', b'   -0.05', b'       -']
        """
        return self._justify(width, fillchar, null, right=True)

    def ljust(
        self, width: int | None = None, fillchar: bytes = b" ", null: bytes = b""
    ) -> np.ndarray:
        """Rows left-aligned in ``width`` bytes, padded with ``fillchar``; see :meth:`rjust`.

        Examples
        --------
        >>> import vecfix
        >>> vecfix.format_fixed([12345, -5], -2, 2).ljust(7, b"_").tobytes()
        b'123.45_-0.05__'
        """
        return self._justify(width, fillchar, null, right=False)

    def _justify(self, width: int | None, fillchar: bytes, null: bytes, right: bool) -> np.ndarray:
        fill = _bytes_arg(fillchar, "fillchar")
        if fill.size != 1:
            raise ValueError(f"fillchar must be exactly one byte, got {show_value(fillchar)}")
        nul = _bytes_arg(null, "null")
        if width is not None and not is_int(width):  # ("25" or 25.0: not a width)
            raise TypeError(
                f"width must be an int or None, got {type(width).__name__} {show_value(width)}"
            )
        w = self.width if width is None else int(width)
        if w < 0:
            raise ValueError(f"width must be >= 0, got {width}")
        if self.null_count and nul.size > w:
            raise ValueError(f"null={show_value(null)} does not fit width {w}")
        too_long = np.flatnonzero(self.lengths > w)
        if too_long.size:
            i = int(too_long[0])
            raise ValueError(
                f"row {i} ({show_value(self[i])}) needs {int(self.lengths[i])} bytes but the"
                f" width is {w}"
            )
        out = np.full((len(self), w), fill[0], dtype=np.uint8)
        lengths = self.lengths[:, None]
        place = np.arange(w) >= w - lengths if right else np.arange(w) < lengths
        out[place] = self.matrix[np.arange(self.width) < lengths]
        if self.null_count and nul.size:
            at = w - nul.size if right else 0
            out[~self.valid, at : at + nul.size] = nul  # type: ignore[operator]
        return out

    def to_bytes(self, sep: bytes = b"\n", end: bytes = b"", null: bytes = b"") -> bytes:
        """The rows joined by ``sep`` (then ``end``) as one ``bytes``, with no Python strings.

        Parameters
        ----------
        sep : bytes
            Written between rows.
        end : bytes
            Written once after the last row (``b"\\n"`` for newline-terminated lines).
        null : bytes
            Text for a null row (default: nothing).

        Examples
        --------
        >>> import vecfix
        >>> vecfix.format_fixed([125, None, -6], -2, 1).to_bytes(b",", null=b"NA")
        b'1.3,NA,-0.1'
        """
        return self._joined(sep, end, null).tobytes()

    def write(
        self,
        file: str | os.PathLike | IO[bytes],
        sep: bytes = b"\n",
        end: bytes = b"\n",
        null: bytes = b"",
    ) -> int:
        """Write the rows to a binary file (a path or an open file), one per line by default:
        the bytes of ``to_bytes(sep, end, null)`` (but ``end=b"\\n"`` by default); returns
        the number of bytes written.

        Examples
        --------
        >>> import io, vecfix
        >>> f = io.BytesIO()
        >>> vecfix.format_fixed([1, 22], 0, 1).write(f)
        9
        >>> f.getvalue()
        b'1.0\\n22.0\\n'
        """
        return write_all(file, self._joined(sep, end, null))

    def _joined(self, sep: bytes, end: bytes, null: bytes) -> np.ndarray:
        s, e, z = _bytes_arg(sep, "sep"), _bytes_arg(end, "end"), _bytes_arg(null, "null")
        n = len(self)
        if not n:
            return np.empty(0, dtype=np.uint8)
        sizes = self.lengths.astype(np.int64)  # each row's text, a null one's ``null``
        nulls = None if self.valid is None else ~self.valid
        if nulls is not None:
            sizes[nulls] = z.size
        starts = offsets(sizes + s.size)  # (and where a row after the last would)
        total = int(starts[n]) - s.size
        out = np.empty(total + e.size, dtype=np.uint8)
        pack_rows(self.matrix, self.lengths, out, starts, 1 if _engine.loaded() else 0)
        for j in range(s.size):  # the separators, then the null rows' text, then the end
            out[starts[1:n] - s.size + j] = s[j]
        for j in range(z.size if nulls is not None else 0):
            out[starts[:n][nulls] + j] = z[j]
        out[total:] = e
        return out

    def to_arrow(self, large: bool | None = None, *, view: bool = False) -> Any:
        """The rows as a ``pyarrow`` string array, nulls as Arrow nulls.

        No Python strings are made (and no name: see :meth:`to_arrow_field`). A result of
        ``layout="arrow"`` hands over its buffers as they are; otherwise one kernel pass
        packs the rows. ``view=True`` gives Arrow's ``string_view``: a 16-byte record a row
        that holds a row of up to 12 bytes itself and points into the text (shared, not
        copied) for a longer one; polars takes it without a copy.

        Parameters
        ----------
        large : bool, optional
            ``True`` for ``large_string`` (64-bit offsets). By default ``string``, or
            ``large_string`` when the text exceeds 2 GiB. Not with ``view=True``.
        view : bool, default False
            ``True`` for ``string_view``.

        Returns
        -------
        pyarrow.StringArray, pyarrow.LargeStringArray or pyarrow.StringViewArray

        Examples
        --------
        >>> import vecfix
        >>> vecfix.format_fixed([125, None, -6], -2, 1).to_arrow().to_pylist()
        ['1.3', None, '-0.1']
        >>> vecfix.format_fixed([125, None, -6], -2, 1).to_arrow(view=True).type
        DataType(string_view)
        """
        pa = _require("pyarrow", "to_arrow")
        from . import _arrow

        if view:
            _arrow.check_view(large)
        if self._records is None and (self._offsets is None or large):
            return _arrow.arrow_strings(
                self.matrix,
                self.lengths,
                self.valid,
                view=view,
                large=large,
                threads=self._threads,
                kernels=_engine.loaded(),
            )
        n, nulls = len(self), self.null_count
        bitmap = _arrow.validity(self.valid, nulls)
        if self._records is not None:  # string_view records, as the kernels wrote them
            records = [bitmap, pa.py_buffer(self._records)]
            text = pa.Array.from_buffers(pa.string_view(), n, records, null_count=nulls)
            if view:
                return text
            wide = _arrow.large_offsets(int(self.lengths.sum(dtype=np.int64)), large)
            return text.cast(pa.large_string() if wide else pa.string())  # pyarrow packs
        buffers = [bitmap, pa.py_buffer(self._offsets), pa.py_buffer(self._data)]
        text = pa.Array.from_buffers(pa.string(), n, buffers, null_count=nulls)  # as it is
        return _arrow.without_empty_buffers(text.cast(pa.string_view())) if view else text

    def to_arrow_field(self, name: str | None = None) -> Any:
        """The ``pyarrow.Field`` for :meth:`to_arrow`'s array, named after the input column
        (or ``name``), to build a table with ``pa.Table.from_arrays(arrays, schema=...)``.

        Examples
        --------
        >>> import polars as pl, vecfix
        >>> vecfix.format_fixed(pl.Series("bid", [125]), -2, 1).to_arrow_field()
        pyarrow.Field<bid: string>
        """
        pa = _require("pyarrow", "to_arrow_field")
        if name is None:
            name = "" if self.identity is None or self.identity.name is None else self.identity.name
        return pa.field(str(name), pa.string(), nullable=True)

    def to_pandas(self, name: Any = None, index: Any = None) -> Any:
        """The rows as a pandas ``Series`` of dtype ``string[pyarrow]`` (nulls are ``<NA>``).

        Built on :meth:`to_arrow` without Python strings. The input's ``name`` and
        ``index`` are kept (a pandas Series in, its index out), unless given here.

        Examples
        --------
        >>> import vecfix
        >>> s = vecfix.format_fixed([125, None], -2, 1).to_pandas(name="px")
        >>> s.tolist(), str(s.dtype), s.name
        (['1.3', <NA>], 'string', 'px')
        """
        pd = _require("pandas", "to_pandas")
        if self.identity is not None:
            name = self.identity.name if name is None else name
            index = self.identity.index if index is None else index
        return pd.Series(pd.arrays.ArrowStringArray(self.to_arrow()), name=name, index=index)

    def to_polars(self, name: str | None = None) -> Any:
        """The rows as a polars ``Series`` of dtype ``String`` (nulls are ``null``), named
        ``name`` or, by default, as the input column was (``""`` if it had no name).

        polars takes Arrow ``string_view`` records (see :meth:`to_arrow`), its own layout,
        and shares the text they point into: write into :attr:`matrix` afterwards and the
        Series sees it (``matrix.copy()`` first if you must).

        Examples
        --------
        >>> import vecfix
        >>> s = vecfix.format_fixed([125, None], -2, 1).to_polars("px")
        >>> s.to_list(), s.dtype, s.name
        (['1.3', None], String, 'px')
        """
        pl = _require("polars", "to_polars")
        if name is None:
            name = "" if self.identity is None or self.identity.name is None else self.identity.name
        if self._matrix is not None and not _engine.loaded():  # made in Python:
            return pl.Series(str(name), self.to_list(), dtype=pl.String)  # (no pyarrow)
        _require("pyarrow", "to_polars")
        # through the Arrow C data interface: polars' path for a pyarrow array imports
        # pyarrow.compute (0.2 s in a fresh process); both take the buffers as they are
        return pl.Series(_ArrowArray(self.to_arrow(view=True))).alias(str(name))


class _ArrowArray:
    """An Arrow array seen only through the Arrow PyCapsule interface."""

    def __init__(self, array: Any) -> None:
        self._array = array

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        return self._array.__arrow_c_array__(requested_schema)


def _bytes_arg(value: bytes, name: str) -> np.ndarray:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(f"{name} must be bytes, got {type(value).__name__} {show_value(value)}")
    return np.frombuffer(bytes(value), dtype=np.uint8)


def _require(module: str, method: str) -> Any:
    import importlib

    extra = "arrow" if module == "pyarrow" else module
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(
            f"Formatted.{method}() needs {module}, which is not installed:"
            f" pip install {module} (or pip install 'vecfix[{extra}]')"
        ) from None
