"""Compile (or load from the on-disk cache) the kernels ahead of the first real call."""

from __future__ import annotations

import time
from typing import Any

import numpy as np


def warmup(*, everything: bool = True) -> float:
    """Compile vecfix's kernels now, so that no later call pays for compiling.

    With Numba's on-disk cache warm this only loads compiled code (well under a second);
    cold, it compiles (several seconds). Call it at start-up in latency-sensitive services.

    Parameters
    ----------
    everything : bool, default True
        Also compile the kernels of the decimal-text parser, the Arrow/bytes output
        methods and :mod:`vecfix.fix`; ``False`` compiles only :func:`format_fixed`'s.

    Returns
    -------
    float
        Seconds it took.

    Examples
    --------
    >>> import vecfix
    >>> seconds = vecfix.warmup()
    """
    from . import fix
    from ._format import format_fixed

    start = time.perf_counter()
    small = format_fixed(np.array([1, -2], dtype=np.int64), -1, 1)  # format_rows, measuring first
    exponents = np.arange(600, dtype=np.int32) % 3 - 1  # format_rows: measure, then fill
    format_fixed(np.arange(600, dtype=np.int64), exponents, 1)
    if everything:
        text = format_fixed(np.array([b"1.5", b"-2"]), scales=1)
        text.to_bytes()
        text.rjust(6)
        packed = format_fixed(np.array([1, -2], dtype=np.int64), -1, 1, layout="arrow")
        assert packed.matrix.shape == (2, 4)  # unpack_rows: its matrix, made on first use
        head = fix.Header("S", "T")
        numbers: dict[str, Any] = {
            "price_exponent": 0,
            "price_scale": 1,
            "size_exponent": 0,
            "size_scale": 0,
        }
        when = "20260101-00:00:00.000"
        fix.snapshots(
            ["X"], [2], [0, 1], np.array([1, 2]), np.array([3, 4]), **numbers, header=head,
            sending_time=when,
        )  # fmt: skip
        fix.quotes(["X"], [1], [2], [3], [4], quote_ids=["Q"], **numbers, header=head,
                   sending_time=when)  # fmt: skip
        fix.mass_quotes(["X"], [1], [2], [3], [4], **numbers, header=head, sending_time=when)
        fix.incremental(0, 0, ["X"], [1], [2], **numbers, header=head, sending_time=when)
        try:
            import pyarrow as pa

            fix.fields(55, pa.array(["X"]))  # Arrow strings into a byte matrix
        except ImportError:  # pyarrow is optional
            pass
        fix.fields(35, small)
        fix.fields(35, small, out=np.empty(32, dtype=np.uint8), offsets=np.array([0, 16]))
        try:
            small.to_arrow()  # the packing kernel
            small.to_arrow(view=True)  # the string_view records (to_polars)
        except ImportError:  # pyarrow is optional
            pass
    return time.perf_counter() - start
