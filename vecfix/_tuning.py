"""Every tuning constant of the formatting path, in one place.

None of these changes what is printed, only how the work is cut up and which engine does
it. Tests shrink some of them (``monkeypatch.setattr(vecfix._tuning, ...)``) to push small
inputs through the paths large inputs take.
"""

from __future__ import annotations

import os

#: Rows a block of the kernel (:func:`vecfix._kernels.fixed.format_rows`): its staging
#: arrays (about 100 bytes a row) stay in the L1/L2 cache, and the loops over a block are
#: long enough for the vector units.
BLOCK = 1024

#: Rows a block when some rows are null (:mod:`vecfix._passes`): a block's copies of the
#: coefficients and scales stay in the cache, and the Python work per block is small next
#: to the kernel's work.
NULL_BLOCK = 65_536

#: Inputs shorter than this run on one thread: a thread's start costs more than it saves.
MIN_ROWS_PER_THREAD = 65_536

#: A matrix larger than this (bytes) is weighed against the text it would hold: when a few
#: wide rows would make it more than :data:`WIDE_MATRIX_RATIO` times the text, the call is
#: refused with the way out, instead of asking for rows x widest bytes.
WIDE_MATRIX_BYTES = 256 * 2**20
WIDE_MATRIX_RATIO = 4

#: Below this many rows one kernel call measures and fills; above, the widest row comes
#: from the extremes of the coefficients (one layout) or of each layout.
MEASURE_BELOW = 512

#: Up to this many rows, a column of one exponent and scale is written in one scalar pass
#: (:func:`vecfix._kernels.fixed.format_few`) rather than by the block kernel, whose passes
#: and arguments cost more than a handful of rows.
FEW_ROWS = 32

# --- the engine (vecfix._engine) ---------------------------------------------------------

#: Seconds a row costs in plain Python (:mod:`vecfix._python`: 2.3 us a row through
#: :mod:`decimal`, plus the layout), for :func:`vecfix._engine.kernels_for`.
PYTHON_ROW_COST = 3e-6

#: Seconds a fresh process pays to load the kernels from the on-disk cache (importing
#: Numba, 0.25-0.4 s, and the code): the Python work a process does before it loads them.
KERNEL_LOAD_COST = 0.35

#: Seconds the kernels take to compile when the cache is cold (one process, 2 cores): a
#: call whose Python work would cost more waits for them rather than run in Python.
KERNEL_COMPILE_COST = 30.0

#: Seconds a process waits at most for a background compile before compiling itself.
COMPILE_LOCK_LIFE = 600.0

#: Whether compiled kernels are kept in an on-disk cache (``VECFIX_NUMBA_CACHE=0``: no).
NUMBA_CACHE = os.environ.get("VECFIX_NUMBA_CACHE", "1").strip().lower() not in {"0", "false", "no"}
