"""Compile (or load from the on-disk cache) the kernels ahead of the first real call.

Cold (Numba's on-disk cache empty), :func:`warmup` shares the compile out: while this
process compiles :func:`~vecfix.format_fixed`'s kernels, worker processes (one per idle
core beyond this one: :func:`worker_count`) compile the other kernel groups into the
on-disk cache, taking them in :func:`order` from the front while this process, its own
compile done, takes them from the back (each group :func:`claim` ed by one process: the
split follows the real compile times of this CPU, not estimates), and this process then
loads what they wrote (milliseconds a kernel). Numba compiles one function at a time per
process, so threads would not help. The groups' warm-up calls take already-formatted
columns, so no worker compiles the format kernel again (the "layouts" group compiles the
kernel that finds the widest row when exponents vary, without it).

Workers are an optimisation, never a point of failure: with the cache off
(``VECFIX_NUMBA_CACHE=0``), no idle core, ``VECFIX_WARMUP_WORKERS=0``, a worker that
cannot start, fails or runs past :data:`WORKER_TIMEOUT`, or code a worker wrote that this
process cannot use, this process compiles the kernels itself, one after the other.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

#: Seconds :func:`warmup` waits for its worker processes before it compiles their share
#: itself (a cold compile of a group takes a few seconds).
WORKER_TIMEOUT = 300.0

#: The kernels every message builder compiles (the header, the trailer, the identifier
#: check): once in each process that runs one.
_FRAMING = ("first_bad_byte", "frame_lengths", "write_heads", "write_trailers")

_WORKER_CODE = (
    "import sys; sys.path.insert(0, sys.argv[1]); from vecfix._warmup import _worker;"
    " sys.exit(_worker(sys.argv[2:]))"
)


class _Group(NamedTuple):
    """Kernels compiled by one warm-up function, which never compiles the format kernels."""

    name: str
    run: Callable[[], None]
    module: str  # of the kernels, within vecfix
    kernels: tuple[str, ...]
    seconds: float  # compile time (benchmarks/compile_times.py), framing left out: order()
    needs: str = ""  # an optional package without which the group compiles nothing

    @property
    def framed(self) -> bool:
        """Whether it also compiles the :data:`_FRAMING` kernels (a message builder)."""
        return self.name in _MESSAGES


def _texts(*rows: bytes) -> Any:
    """A :class:`~vecfix.Formatted` of ``rows``, made without a kernel."""
    from ._result import Formatted

    matrix = np.zeros((len(rows), max(map(len, rows))), dtype=np.uint8)
    for i, row in enumerate(rows):
        matrix[i, : len(row)] = np.frombuffer(row, dtype=np.uint8)
    return Formatted(matrix, np.array([len(r) for r in rows], dtype=np.int32))


def _fix_args() -> dict[str, Any]:
    from . import fix

    return {"header": fix.Header("S", "T"), "sending_time": "20260101-00:00:00.000"}


def _layouts() -> None:
    """:func:`~vecfix.format_fixed`'s widest-row kernel for rows whose exponents vary, as
    it calls it, without the format kernel (a worker may take it: a second of compile)."""
    from ._format import _for_kernels, _Passes
    from ._inputs import read_inputs

    exponents = np.arange(600, dtype=np.int32) % 3 - 1
    rows = _for_kernels(read_inputs(np.arange(600, dtype=np.int64), exponents, 1).rows)
    _Passes(rows, None, 1).layouts_widest()


def _format() -> None:
    """:func:`~vecfix.format_fixed`'s kernels for a column of one layout (``extremes``, and
    the block kernel ``format_rows``, whose one signature serves every call): the cold
    tier's worker compiles them (:mod:`vecfix._coldstart`)."""
    from ._format import format_fixed

    format_fixed(np.arange(600, dtype=np.int64), -1, 1)


def _text() -> None:
    from .columns import parse_decimal_text

    parse_decimal_text(np.array([b"1.5", b"-2"]))
    small = _texts(b"1.5", b"-2.0")
    small.to_bytes()
    small.rjust(6)


def _unpack() -> None:
    from ._result import Formatted

    offsets = np.array([0, 3, 7], dtype=np.int32)
    packed = Formatted._packed(offsets, np.frombuffer(b"1.5-2.0", dtype=np.uint8))
    assert packed.matrix.shape == (2, 4)  # layout="arrow": the matrix, made on first use


def _arrow() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:  # pyarrow is optional
        return
    small = _texts(b"1.5", b"-2.0")
    small.to_arrow()  # the packing kernel
    small.to_arrow(view=True)  # the string_view records (to_polars)


def _fields() -> None:
    from . import fix

    small = _texts(b"1.5", b"-2.0")
    fix.Header("S", "T")  # the identifier check
    fix.fields(35, small)
    fix.fields(35, small, out=np.empty(32, dtype=np.uint8), offsets=np.array([0, 16]))
    try:
        import pyarrow as pa

        fix.fields(55, pa.array(["X"]))  # Arrow strings into a byte matrix
    except ImportError:  # pyarrow is optional
        pass


def _snapshots() -> None:
    from . import fix

    fix.snapshots(["X"], [2], [0, 1], _texts(b"1", b"2"), _texts(b"3", b"4"), **_fix_args())


def _quotes() -> None:
    from . import fix

    one = _texts(b"1")
    fix.quotes(["X"], one, one, one, one, quote_ids=["Q"], **_fix_args())


def _mass_quotes() -> None:
    from . import fix

    one = _texts(b"1")
    ids: dict[str, Any] = {"quote_ids": ["Q"], "quote_set_ids": ["S"], "quote_entry_ids": ["E"]}
    fix.mass_quotes(["X"], one, one, one, one, **ids, **_fix_args())  # no digits to format


def _incremental() -> None:
    from . import fix

    fix.incremental(0, 0, ["X"], _texts(b"1"), _texts(b"2"), **_fix_args())


def _counts() -> None:
    from ._jit import readonly
    from ._measure import text_size, thresholds

    text_size(0, 2, readonly(np.array([5, -15], dtype=np.int64)), thresholds(-1, 0))


_FIX = "_kernels.fix"
_MESSAGES = ("snapshots", "quotes", "mass_quotes", "incremental")
_FIELDS = ("first_bad_byte", "check_disjoint", "rows_to_matrix", "write_fields")
_GROUPS = (
    _Group("layouts", _layouts, "_kernels.fixed", ("widest_of_layouts",), 1.2),
    _Group("text", _text, "_kernels.text", ("parse_decimal", "join", "justify"), 0.8),
    _Group("arrow", _arrow, "_arrow", ("pack_rows", "string_views"), 0.6, "pyarrow"),
    _Group("unpack", _unpack, "_arrow", ("unpack_rows",), 0.1),
    _Group("counts", _counts, "_measure", ("count_past",), 0.2),
    _Group("fields", _fields, _FIX, _FIELDS, 0.6),
    _Group("snapshots", _snapshots, _FIX, ("snapshot_lengths", "write_snapshot_bodies"), 0.55),
    _Group("quotes", _quotes, _FIX, ("quote_lengths", "write_quote_bodies"), 0.5),
    _Group("mass_quotes", _mass_quotes, _FIX, ("pack_sets", "write_mass_quote_bodies"), 1.4),
    _Group("incremental", _incremental, _FIX, ("write_incremental_bodies",), 0.8),
)
#: The cold tier's worker (:mod:`vecfix._coldstart`): the block kernel first, then the
#: kernel that finds the widest row when exponents vary (a column call needs only the
#: first; the process switches once both are done). :func:`warmup` compiles the "format"
#: group in its own process, with the few-rows kernel.
_TIER_GROUPS = (
    _Group("format", _format, "_kernels.fixed", ("format_rows", "extremes"), 4.8),
    *(g for g in _GROUPS if g.name == "layouts"),
)
_BY_NAME = {g.name: g for g in (*_GROUPS, *_TIER_GROUPS)}

#: The kernels of :func:`~vecfix.format_fixed`'s first calls (compiled by this process,
#: first: a few rows, then a column of one layout); the kernel for rows whose exponents
#: vary is the "layouts" group's.
_FORMAT_KERNELS = ("format_rows", "extremes", "format_few")


def _format_calls() -> Any:
    """Compile the kernel of :func:`~vecfix.format_fixed`'s first call; return a small
    result."""
    from ._format import format_fixed

    small = format_fixed(np.array([1, -2], dtype=np.int64), -1, 1)  # a few rows: format_few
    _format()  # a column: extremes, format_rows (the "format" group's call)
    return small


def _public_calls(small: Any) -> None:
    """The public calls, on integers: every signature they use, once the groups ran."""
    from . import fix
    from ._format import format_fixed

    exponents = np.arange(600, dtype=np.int32) % 3 - 1  # format_rows: measure, then fill
    format_fixed(np.arange(600, dtype=np.int64), exponents, 1)
    text = format_fixed(np.array([b"1.5", b"-2"]), scales=1)
    text.to_bytes()
    text.rjust(6)
    numbers: dict[str, Any] = {
        "price_exponent": 0,
        "price_scale": 1,
        "size_exponent": 0,
        "size_scale": 0,
        **_fix_args(),
    }
    fix.snapshots(["X"], [2], [0, 1], np.array([1, 2]), np.array([3, 4]), **numbers)
    fix.quotes(["X"], [1], [2], [3], [4], quote_ids=["Q"], **numbers)
    fix.mass_quotes(["X"], [1], [2], [3], [4], **numbers)
    fix.incremental(0, 0, ["X"], [1], [2], **numbers)
    fix.fields(35, small)
    try:
        small.to_arrow()
        small.to_arrow(view=True)
    except ImportError:  # pyarrow is optional
        pass


def _dispatchers(module: str, names: Sequence[str]) -> list[Any]:
    """The kernels ``names`` of ``vecfix.<module>`` (None for a name it lacks: then
    :func:`~vecfix._coldstart.cached_on_disk` says False, and the kernel counts as cold)."""
    import importlib

    mod = importlib.import_module(f"vecfix.{module}")
    return [getattr(mod, name, None) for name in names]


def _cold(group: _Group) -> bool:
    """Whether a kernel of ``group`` lacks compiled code for this CPU on disk."""
    import importlib.util

    from ._coldstart import cached_on_disk

    if group.needs and importlib.util.find_spec(group.needs) is None:
        return False  # nothing to compile
    names = group.kernels + (_FRAMING if group.framed else ())
    return not all(cached_on_disk(k) for k in _dispatchers(group.module, names))


#: Seconds :func:`busy_cores` watches the machine's CPU times (Linux).
_IDLE_SAMPLE = 0.05

#: Seconds between two looks at the claims folder while :func:`warmup` waits for workers.
_POLL = 0.005


def _cpu_times() -> tuple[int, int] | None:
    """``(idle, total)`` CPU time of the machine so far, in ticks, from ``/proc/stat``
    (idle with I/O wait; total without guest time, which user time holds); None where
    there is no such file."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if len(fields) < 5 or fields[0] != b"cpu":
        return None
    ticks = [int(x) for x in fields[1:9]]
    return ticks[3] + ticks[4], sum(ticks)


class _Sample(NamedTuple):
    """The start of a :func:`busy_cores` sample: the machine's CPU times (None without
    ``/proc/stat``), this process's CPU time, and the clock."""

    machine: tuple[int, int] | None
    own: float
    since: float


def start_sample() -> _Sample:
    """Start a :func:`busy_cores` sample now (:func:`warmup` does, then imports and checks
    the cache while it runs, rather than sleep through it).

    Examples
    --------
    >>> from vecfix._warmup import busy_cores, start_sample
    >>> sample = start_sample()
    >>> busy_cores(sample) >= 0
    True
    """
    return _Sample(_cpu_times(), time.process_time(), time.perf_counter())


def busy_cores(sample: _Sample | None = None) -> float:
    """Cores that other work keeps busy now: on Linux, from the machine's CPU times over
    :data:`_IDLE_SAMPLE` seconds (from ``sample``'s start, if given, sleeping for what is
    left of them), less this process's (its thread sleeps meanwhile, or works: its own CPU
    time is not other work); elsewhere, the 1-minute load average (0 where there is none).

    The load average lags: for a minute after a burst of work (an install, a build, the
    last compile) it says a core is busy that is idle now, and :func:`warmup` on two
    cores would then compile alone (9.4 s cold, against 5.4 with a worker).

    Examples
    --------
    >>> from vecfix._warmup import busy_cores
    >>> busy_cores() >= 0
    True
    """
    first, own, since = sample or start_sample()
    if first is not None:
        left = _IDLE_SAMPLE - (time.perf_counter() - since)
        if left > 0:
            time.sleep(left)
        second = _cpu_times()
        if second is not None and second[1] > first[1]:
            idle, total = second[0] - first[0], second[1] - first[1]
            mine = (time.process_time() - own) / max(time.perf_counter() - since, 1e-9)
            return max((1.0 - idle / total) * (os.cpu_count() or 1) - mine, 0.0)
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average here (Windows)
        return 0.0


def worker_count(sample: _Sample | None = None) -> int:
    """Worker processes :func:`warmup` may start: ``VECFIX_WARMUP_WORKERS`` if set, else
    one per usable core beyond this process's that other work leaves idle (the usable
    cores less one, less the cores :func:`busy_cores` finds busy over ``sample``, rounded;
    0 on one core).

    A worker on a core that is busy anyway saves little and costs its start-up and the
    loads here (about a tenth more CPU in all: 14.7 s against 13.4 on 2 cores), so a busy
    machine compiles in one process.

    Examples
    --------
    >>> from vecfix._warmup import worker_count
    >>> worker_count() >= 0
    True
    """
    from ._format import usable_cores

    value = os.environ.get("VECFIX_WARMUP_WORKERS", "").strip()
    if value:
        if not value.isdigit():
            raise ValueError(f"VECFIX_WARMUP_WORKERS must be a whole number >= 0, got {value!r}")
        return int(value)
    cores = usable_cores()
    if cores < 2:
        return 0
    return max(cores - 1 - int(busy_cores(sample) + 0.5), 0)


def order(groups: Sequence[_Group]) -> list[_Group]:
    """The order in which worker processes take ``groups`` from the front while this
    process takes them from the back (:func:`warmup`): the message builders' first (they
    share the framing kernels, compiled once a process: a worker takes them all), then the
    longest first, so that this process, once its own compile is done, is left the
    shortest ones and both sides end close together whatever the CPU.

    Examples
    --------
    >>> from vecfix._warmup import _GROUPS, order
    >>> names = [g.name for g in order(_GROUPS)]
    >>> names[:4] == ["mass_quotes", "incremental", "snapshots", "quotes"]
    True
    >>> sorted(names) == sorted(g.name for g in _GROUPS)
    True
    """
    return sorted(groups, key=lambda g: (not g.framed, -g.seconds))


def claim(folder: str, group: _Group, who: str) -> bool:
    """Take ``group`` for ``who`` (a name file in ``folder``, made only if none is there:
    one process compiles each group); False if another process has it, or ``folder`` is
    gone.

    Examples
    --------
    >>> import tempfile
    >>> from vecfix._warmup import _GROUPS, claim
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     claim(folder, _GROUPS[0], "worker"), claim(folder, _GROUPS[0], "here")
    (True, False)
    """
    try:
        fd = os.open(os.path.join(folder, group.name), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except OSError:  # FileExistsError: taken; another error: the folder is not usable
        return False
    try:
        os.write(fd, who.encode())
    finally:
        os.close(fd)
    return True


#: The suffix of the file a worker leaves in the claims folder once a group it claimed is
#: compiled into the cache (:func:`finished`).
_DONE = ".done"


def finished(folder: str, group: _Group) -> None:
    """Say in ``folder`` that ``group``'s kernels are in the cache: :func:`warmup` loads
    them without waiting for the worker process to end (its exit takes a tenth of a
    second or two).

    Examples
    --------
    >>> import tempfile
    >>> from vecfix._warmup import _GROUPS, _all_finished, claim, claims, finished
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = claim(folder, _GROUPS[0], "worker")
    ...     before = _all_finished(folder, _GROUPS[:1])
    ...     finished(folder, _GROUPS[0])
    ...     before, _all_finished(folder, _GROUPS[:1]), claims(folder)[_GROUPS[0].name]
    (False, True, 'worker')
    """
    with open(os.path.join(folder, group.name + _DONE), "wb"):
        pass


def _all_finished(folder: str, groups: Sequence[_Group]) -> bool:
    return all(os.path.exists(os.path.join(folder, g.name + _DONE)) for g in groups)


def claims(folder: str) -> dict[str, str]:
    """Who took each group so far, by group name (see :func:`claim`)."""
    taken = {}
    for name in os.listdir(folder):
        if name.endswith(_DONE):
            continue
        with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
            taken[name] = f.read()
    return taken


#: Who compiled each cold group in this process's last :func:`warmup` with workers
#: (``"here"`` or a worker's process id), for tests and diagnostics.
last_claims: dict[str, str] = {}


def _start(
    groups: Sequence[_Group], nice: int = 0, folder: str | None = None
) -> subprocess.Popen[bytes] | None:
    """A worker process compiling ``groups`` into the on-disk cache, in order, ``nice``
    steps below this process's priority (``os.nice``; where it exists); with a ``folder``,
    only those it :func:`claim` s there. None if it cannot start."""
    import numba

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, VECFIX_NUMBA_CACHE="1")
    cache_dir = numba.config.CACHE_DIR  # type: ignore[attr-defined]
    if cache_dir:  # set in code rather than in the environment, perhaps
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    name = os.path.basename(sys.executable or "").lower()
    if getattr(sys, "frozen", False) or not name.startswith(("python", "pypy")):
        return None  # an embedding program or a frozen app: it would not run ``-c``
    try:
        return subprocess.Popen(
            [sys.executable, "-c", _WORKER_CODE, root, f"nice={nice}", f"claims={folder or ''}"]
            + [g.name for g in groups],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None


def _worker(args: Sequence[str]) -> int:
    """A worker process's work: the names of the groups to run, in order, and the options
    ``nice=N`` and ``claims=FOLDER`` (then only the groups it can :func:`claim` there; the
    cache must be on)."""
    import gc
    import warnings

    from . import _coldstart, _jit

    if not _jit.CACHE:
        return 2
    # It compiles, then ends: no need to collect the compiler's garbage cycles, which
    # costs a tenth of a compile (a process that goes on pauses it only while it compiles:
    # vecfix._jit.gc_paused), and none at exit while the collector is off.
    gc.disable()
    _coldstart.ENABLED = False  # compile the block kernel here, never run the scalar one
    warnings.simplefilter("ignore")  # a cache warning here is the main process's to give
    options = dict(a.split("=", 1) for a in args if "=" in a)
    names = [a for a in args if "=" not in a]
    steps, folder = int(options.get("nice", "0")), options.get("claims", "")
    if steps and hasattr(os, "nice"):
        os.nice(steps)
    for name in names:
        group = _BY_NAME[name]
        if not folder or claim(folder, group, str(os.getpid())):
            group.run()
            if folder:
                finished(folder, group)
    return 0


def _wait(
    workers: Sequence[subprocess.Popen[bytes]],
    timeout: float,
    folder: str | None = None,
    groups: Sequence[_Group] = (),
) -> None:
    """Wait up to ``timeout`` seconds in all for ``workers``, or with a claims ``folder``
    until they have :func:`finished` ``groups`` (those they claimed), whichever comes
    first; kill those running past the time."""
    deadline = time.monotonic() + timeout
    while folder is not None and time.monotonic() < deadline:
        if _all_finished(folder, groups) or all(p.poll() is not None for p in workers):
            return
        time.sleep(_POLL)
    for proc in workers:
        try:
            proc.wait(max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def warmup(*, everything: bool = True) -> float:
    """Compile vecfix's kernels now, so that no later call pays for compiling.

    With Numba's on-disk cache warm this only loads compiled code (well under a second);
    cold, it compiles (several seconds). Cold and with idle cores, worker processes compile
    part of the kernels into the on-disk cache at the same time as this process compiles
    the rest, and this process then loads theirs; with the cache off
    (``VECFIX_NUMBA_CACHE=0``) or when a worker fails, this process compiles everything
    itself. ``VECFIX_WARMUP_WORKERS`` sets the worker count (``0``: none; by default one
    per idle core, see :func:`worker_count`). Call it at start-up in latency-sensitive
    services. Without it, a first call on an empty cache runs a scalar kernel while a
    worker compiles the block kernel (the cold tier, :mod:`vecfix._coldstart`); this ends
    that: it waits for such a worker, then loads what it wrote.

    Parameters
    ----------
    everything : bool, default True
        Also compile the kernels of the decimal-text parser, the Arrow/bytes output
        methods and :mod:`vecfix.fix`; ``False`` compiles only :func:`format_fixed`'s (a
        worker, if one may start, takes the widest-row kernel of per-row exponents while
        this process compiles the others).

    Returns
    -------
    float
        Seconds it took.

    Examples
    --------
    >>> import vecfix
    >>> seconds = vecfix.warmup()
    """
    start = time.perf_counter()
    sample = start_sample()  # runs while the imports and the cache checks do
    import numba

    from . import _coldstart, _jit

    _coldstart.settle()  # a cold tier's worker compiling format_fixed's kernels: wait for it
    groups = _GROUPS if everything else (_BY_NAME["layouts"],)
    mine: list[_Group] = list(groups)
    shared: list[_Group] = []  # taken by the workers from the front, by this process from the back
    workers: list[subprocess.Popen[bytes]] = []
    folder: str | None = None
    try:
        if _jit.CACHE and not numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
            kernels = _dispatchers("_kernels.fixed", _FORMAT_KERNELS)
            on_disk = all(hasattr(getattr(k, "_cache", None), "_cache_file") for k in kernels)
            cold = [g for g in groups if _cold(g)] if on_disk else []  # else none to share
            count = worker_count(sample) if cold else 0
            if count:
                import tempfile

                folder = tempfile.mkdtemp(prefix="vecfix-warmup-")
                shared = order(cold)
                for _ in range(count):
                    proc = _start(shared, folder=folder)
                    if proc is not None:
                        workers.append(proc)
                mine = [g for g in groups if g not in cold]  # those only load
        small = _format_calls()
        for group in mine:
            group.run()
        done_here = []
        for group in reversed(shared):  # the shortest first, until the workers' meet them
            if workers and not claim(str(folder), group, "here"):
                break
            group.run()
            done_here.append(group)
        theirs = [g for g in shared if g not in done_here]
        _wait(workers, WORKER_TIMEOUT, folder, theirs)
        for group in theirs:  # loads what the workers wrote; compiles what they did not
            group.run()
        if everything:
            _public_calls(small)
    finally:
        for proc in workers:  # an exception here: no worker outlives the call
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if folder is not None:
            last_claims.clear()
            last_claims.update(claims(folder))
            import shutil

            shutil.rmtree(folder, ignore_errors=True)
    return time.perf_counter() - start
