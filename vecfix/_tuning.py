"""Every tuning constant of the formatting path, in one place.

None of these changes what is printed, only how the work is cut up. Tests shrink some of
them (``monkeypatch.setattr(vecfix._format, ...)``) to push small inputs through the
paths large inputs take.
"""

from __future__ import annotations

#: Rows a block of the kernel (:func:`vecfix._kernels.fixed.format_rows`): its staging arrays
#: (about 100 bytes a row) stay in the L1/L2 cache, and the loops over a block are long
#: enough for the vector units.
BLOCK = 1024

#: Rows a block when some rows are null (``vecfix._format._Passes``): a block's copies of
#: the coefficients and scales stay in the cache, and the Python work per block is small
#: next to the kernel's work.
NULL_BLOCK = 65_536

#: Inputs shorter than this run on one thread: a thread's start costs more than it saves.
MIN_ROWS_PER_THREAD = 65_536

#: The time :func:`vecfix._measure.count_past` takes to count a row's bytes, and the second
#: thread to add its part's start to the row's offset, as a share of the time
#: :func:`vecfix._kernels.fixed.format_rows` takes to write the row in Arrow's layout (0.25 and
#: 7.8 ns a row on 1M PRICE9 rows, 2-vCPU AVX-512 EPYC). ``format_fixed(layout="arrow")``
#: on two threads gives the first thread that much more of the rows, as the second one
#: counts the first part's text before it writes its own (``vecfix._format._pack_two``).
#: The first such call's value: each call's second thread measures it for the next.
COUNT_COST = 0.035

#: A matrix larger than this (bytes) is weighed against the text it would hold: when a few
#: wide rows would make it more than :data:`WIDE_MATRIX_RATIO` times the text, the call is
#: refused with the way out, instead of asking for rows x widest bytes.
WIDE_MATRIX_BYTES = 256 * 2**20
WIDE_MATRIX_RATIO = 4

#: Below this many rows one kernel call measures and fills (``format_rows`` with no width);
#: the widest row of a one-layout column comes from its smallest and largest coefficient.
MEASURE_BELOW = 512

#: Up to this many rows, a column of one exponent and scale (``format_fixed``'s common call)
#: is written in one scalar pass (``vecfix._kernels.fixed.format_few``) rather than by the block
#: kernel, whose passes and arguments cost more than a handful of rows.
FEW_ROWS = 32

#: While the block kernel compiles in a worker process (``vecfix._coldstart``, the cold
#: tier), a kernel call of up to this many rows runs through the scalar kernel
#: (``vecfix._cold_kernels``, about 15 ns a row slower); a larger one waits for the worker,
#: or compiles the block kernel here when none runs (a few seconds, less than its rows
#: would cost).
COLD_TIER_ROWS = 2**27
