"""The plan of a :func:`~vecfix.format_fixed` call, decided once, and the checks both
engines make before they write a byte.

:func:`plan` takes the call's options and its rows' count and decides everything that is
not the data's: the engine (the compiled kernels, :mod:`vecfix._passes`, or plain Python,
:mod:`vecfix._python`, as :func:`vecfix._engine.kernels_for` says), the threads, the layout
and the output matrix's width. Each engine then measures its rows and asks the checks here
(:func:`check_lengths`, :func:`output_matrix`) before it writes: the same refusals, in the
same words, whatever the engine.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Literal, NamedTuple

import numpy as np

from . import _engine, _tuning
from ._inputs import Rows
from ._scalar import MAX_ROW_LENGTH, RowTooLongError, row_length
from .columns.rules import RowError, is_int, show_int, show_value

Layout = Literal["matrix", "arrow", "string_view"]

#: Bytes after our matrix, so that the kernels write its last rows with 8-byte stores.
SLACK = 8


class Plan(NamedTuple):
    """What a call does, decided before its rows are measured."""

    kernels: bool  # the compiled kernels, or plain Python
    threads: int | None  # the caller's threads (the result's conversions use it too)
    parts: int  # threads the kernels split the rows over
    layout: Layout
    width: int | None  # the caller's width, or None: the widest row's
    out: np.ndarray | None  # the caller's matrix


def check_options(width: object, out: object, threads: object, layout: object) -> None:
    """Refuse options that are wrong whatever the rows (before they are read)."""
    if layout not in ("matrix", "arrow", "string_view"):
        raise ValueError(
            f'layout must be "matrix", "arrow" or "string_view", got {show_value(layout)}'
        )
    if layout != "matrix" and (width is not None or out is not None):
        raise ValueError(f'layout="{layout}" writes no matrix: leave width and out out')
    if width is not None:
        if not is_int(width):
            raise TypeError(f"width must be an int, got {type(width).__name__} {show_value(width)}")
        if not 0 <= width <= MAX_ROW_LENGTH:  # type: ignore[operator]
            raise ValueError(f"width must be between 0 and {MAX_ROW_LENGTH}, got {width}")
    if out is not None:
        if not isinstance(out, np.ndarray) or out.dtype != np.uint8 or out.ndim != 2:
            raise TypeError("out must be a 2-D uint8 numpy array of shape (n, width)")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("out must be C-contiguous and writeable")
        if width is not None and width != out.shape[1]:
            raise ValueError(f"width={width} disagrees with out.shape[1]={out.shape[1]}")
    if threads is not None and not is_int(threads):
        raise TypeError(f"threads must be a positive int or None, got {show_value(threads)}")
    if threads is not None and threads < 1:  # type: ignore[operator]
        raise ValueError(f"threads must be a positive int or None, got {threads}")


def plan(
    n: int,
    width: int | None = None,
    out: np.ndarray | None = None,
    threads: int | None = None,
    layout: Layout = "matrix",
) -> Plan:
    """The plan for ``n`` rows with options :func:`check_options` has accepted."""
    if out is not None and out.shape[0] != n:
        raise ValueError(f"out has {out.shape[0]} rows but the inputs have {n}")
    kernels = _engine.kernels_for(n)
    count = thread_count(n, threads) if kernels else 1
    given = int(width) if width is not None else (out.shape[1] if out is not None else None)
    return Plan(kernels, threads, count, layout, given, out)


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def thread_count(n: int, threads: int | None) -> int:
    """How many threads to use for ``n`` rows when the caller asks for ``threads``: every
    usable core by default, but at least :data:`~vecfix._tuning.MIN_ROWS_PER_THREAD` rows
    a thread."""
    if threads == 1:
        return 1
    if threads is None:
        if n < 2 * _tuning.MIN_ROWS_PER_THREAD:  # one thread whatever the cores
            return 1
        threads = usable_cores()
    return int(min(threads, max(n // _tuning.MIN_ROWS_PER_THREAD, 1)))


# ----------------------------------------------------------------------------- checks


def check_lengths(
    rows: Rows, lengths: np.ndarray, valid: np.ndarray | None, too_long: int = -1
) -> int:
    """Refuse a row longer than :data:`~vecfix.MAX_ROW_LENGTH` (``too_long``: the first
    such row if the engine knows it; else one of ``lengths`` past it); return the widest.
    ``lengths`` holds every row's length (a null row's: its placeholder's, see
    :func:`first_valid`)."""
    if too_long < 0 and lengths.size and int(lengths.max()) > MAX_ROW_LENGTH:
        too_long = int(np.argmax(lengths > MAX_ROW_LENGTH))
    if too_long >= 0:
        i = too_long if valid is None or valid[too_long] else first_valid(lengths >= 0, valid)
        c, e, s = rows.row(i)
        raise RowTooLongError(
            f" (coefficient={show_int(c)}, exponent={e}, scale={s}) would print"
            f" {row_length(c, e, s)} bytes, more than vecfix.MAX_ROW_LENGTH={MAX_ROW_LENGTH}"
            "\nCheck the exponent and scale",
            argument="coefficients",
            row=i,
        )
    return int(lengths.max()) if lengths.size else 0


def output_matrix(
    rows: Rows,
    lengths: Callable[[], np.ndarray],
    widest: int,
    plan: Plan,
    valid: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """The matrix to write into and the flat buffer under it (with :data:`SLACK` bytes
    when it is vecfix's), once the ``widest`` row is known: the caller's ``out``, or a new
    matrix of the caller's width or the widest row's. Refuses a width narrower than a row,
    and a matrix that a few wide rows would make many times the size of the text
    (:func:`refuse_few_wide_rows`); ``lengths()`` gives every row's length for those (the
    kernels measure them only then)."""
    n = rows.n
    if plan.width is None and n * widest > _tuning.WIDE_MATRIX_BYTES:
        refuse_few_wide_rows(rows, lengths(), widest, valid, plan.layout == "string_view")
    width = widest if plan.width is None else plan.width
    if width < widest:
        measured = lengths()
        i = first_valid(measured > width, valid)
        c, e, s = rows.row(i)
        raise RowTooLongError(
            f" (coefficient={show_int(c)}, exponent={e}, scale={s}) needs {int(measured[i])}"
            f" bytes but the width is {width}; widest row needs {widest}",
            argument="coefficients",
            row=i,
        )
    if plan.out is not None:
        return plan.out, plan.out.reshape(-1)
    flat = np.empty(n * width + SLACK, dtype=np.uint8)
    return flat[: n * width].reshape(n, width), flat


def refuse_few_wide_rows(
    rows: Rows, lengths: np.ndarray, widest: int, valid: np.ndarray | None, views: bool
) -> None:
    """Refuse a matrix that a few wide rows would make many times the size of the text
    (one row at exponent 60,000 among 1M rows asks for 56 GiB): name the widest row, the
    memory, and the ways to the text. With ``views`` (``layout="string_view"``, which
    takes no ``width``) the way offered is ``layout="arrow"``, which needs no matrix."""
    total = int(lengths.sum(dtype=np.int64))
    size = rows.n * widest
    if size <= _tuning.WIDE_MATRIX_RATIO * total:  # rows of about one width: the text
        return
    i = first_valid(lengths == widest, valid)
    c, e, s = rows.row(i)
    way = (
        'pass layout="arrow" (the text back to back, no matrix)'
        if views
        else (f"pass width={widest} to accept the matrix")
    )
    raise RowError(
        f" (coefficient={show_int(c)}, exponent={e}, scale={s}) prints {widest:,} bytes, so"
        f" the byte matrix would take {size / 2**30:.1f} GiB for {total / 2**20:.1f} MiB of"
        f" text\nIt would be {rows.n:,} rows of {widest:,} bytes. Format the wide rows on their own"
        " (vecfix.string_fixed(coefficient, exponent, scale)) and leave them out of this call"
        f" (a masked array, or null=), or {way}",
        argument="coefficients",
        row=i,
    )


def first_valid(candidates: np.ndarray, valid: np.ndarray | None) -> int:
    """The first row where ``candidates`` is True that is not null (``valid``: None when
    none is). The kernels measure a null row as its placeholder, coefficient 0 at the
    row's layout (scale 0 where scales are per row): a value the user never gave, so never
    the row an error names. Its text is never longer than another row's at its layout, so
    when a placeholder is a candidate, a valid row is one too (a column of nulls only
    never gets here)."""
    if valid is not None:
        candidates = candidates & valid
    return int(np.flatnonzero(candidates)[0])
