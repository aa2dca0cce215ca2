"""Which engine runs a call, decided in one place: the compiled kernels, or plain Python.

The kernels (:mod:`vecfix._kernels`) format a million rows in milliseconds, but a process
pays to get them: importing Numba and loading the compiled code from its on-disk cache
(about 0.3 s), or, the first time on a machine, compiling it (seconds). Plain Python
(:mod:`decimal`, :mod:`vecfix._python`) needs neither and does a row in a few
microseconds. So a process starts in Python and switches to the kernels once the Python
work it has done would have paid for loading them (a ski-rental rule: never more than
twice the cost of the better choice in hindsight), or at once for a call large enough to
pay for them alone. A cron job formatting 100 rows never imports Numba; a notebook
formatting a million rows loads the kernels on its first call.

The first time on a machine (no compiled kernels in the cache), the kernels compile in a
background process (:func:`warmup` in a child; at most one per cache directory at a
time, by an OS lock on a file, which the OS lets go when its holder ends) while this
process carries on in Python; once the child has filled the cache it leaves a *ready*
stamp, and the next call here loads the kernels from it. A call too large for Python in
the meantime waits for the child instead.

``VECFIX_ENGINE`` overrides the rule: ``python`` (never the kernels), ``kernels`` (always),
``auto`` (the default). Tests use it to run each behaviour through both engines.

This module imports no Numba: it is what lets ``import vecfix`` and small calls stay cheap.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import gc
import hashlib
import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import _tuning

#: The kernel modules :func:`warmup` compiles, most used first (the child that fills a
#: cold cache compiles them in this order).
KERNEL_MODULES = ("fixed", "text", "fix", "fixtick", "fixread", "fixcolumns", "utc")

_LOCK = threading.Lock()
_IMPORT_LOCK = threading.RLock()
_state: dict = {"loaded": False, "budget": _tuning.KERNEL_LOAD_COST, "mode": "auto"}
_WARNED: set[str] = set()


def _mode(value: str | None) -> str:
    mode = (value or "auto").strip().lower() or "auto"
    if mode not in ("auto", "python", "kernels"):
        raise ValueError(f"VECFIX_ENGINE must be auto, python or kernels, got {value!r}")
    return mode


_state["mode"] = _mode(os.environ.get("VECFIX_ENGINE"))


def kernels_for(rows: int, spend: bool = True) -> bool:
    """Whether a call of ``rows`` rows runs on the compiled kernels (True) or in plain
    Python (False). Once the kernels are loaded, always True (unless forced otherwise).
    ``spend=False``: a job's rows to come, in calls that will ask again (a file's
    batches): the kernels are loaded now if the job needs them, and nothing is spent of
    the plain-Python budget otherwise.

    Examples
    --------
    >>> from vecfix._engine import forced, kernels_for
    >>> with forced("python"):
    ...     kernels_for(10_000_000)
    False
    """
    mode = _state["mode"]
    if mode == "python":
        return False
    if _state["loaded"]:
        return True
    cost = rows * _tuning.PYTHON_ROW_COST
    if mode == "auto":
        with _LOCK:
            if cost <= _state["budget"]:  # small work: Python pays less than the kernels
                if spend:
                    _state["budget"] -= cost
                return False
        if not ready("fixed") and cost < _tuning.KERNEL_COMPILE_COST and compiling():
            return False  # a child fills the cache meanwhile: Python until it has
    load()
    return True


def loaded() -> bool:
    """Whether every call runs on the kernels now: they are loaded, and not forced off."""
    return bool(_state["loaded"]) and _state["mode"] != "python"


def load() -> None:
    """Load the kernels that format rows, from the cache, or compile them here (waiting
    first for a child that is compiling them into the cache)."""
    if _state["loaded"]:
        return
    if _state["mode"] == "auto":
        _wait_for_child()
    import_kernels("fixed")
    _state["loaded"] = True


def import_kernels(name: str) -> Any:
    """Import the kernel module ``vecfix._kernels.<name>``: its kernels compile, or load
    from the cache, as it is imported. A cache that cannot be read (corrupted on disk, say)
    is left aside with a warning, and the kernels compile in memory: never an error.
    Threads asking at once wait for the one importing it (until it is done, the module
    is in ``sys.modules`` half made)."""
    with _IMPORT_LOCK:
        return _import_kernels(name)


def _import_kernels(name: str) -> Any:
    module = f"vecfix._kernels.{name}"
    if module in sys.modules:
        return sys.modules[module]
    try:
        with gc_paused():
            imported = importlib.import_module(module)
        stamp = _stamp(name)  # the module's kernels are in the cache now
        if stamp is not None and not stamp.exists():
            with contextlib.suppress(OSError):
                stamp.touch()
        return imported
    except Exception as exc:
        if cache_dir() is None:
            raise
        warn_once(
            "cache-read",
            f"vecfix: the compiled kernels cached in {cache_dir()} could not be read"
            f" ({type(exc).__name__}: {exc}); they are compiled in memory instead (seconds,"
            " not correctness). Delete that directory to cache them afresh.",
        )
    _tuning.NUMBA_CACHE = False
    cache_dir.cache_clear()
    for stale in [m for m in sys.modules if m.startswith("vecfix._kernels.")]:
        del sys.modules[stale]
    with gc_paused():
        return importlib.import_module(module)


@contextlib.contextmanager
def forced(engine: str) -> Iterator[None]:
    """Run the block as if ``VECFIX_ENGINE`` were ``engine`` (for tests and benchmarks)."""
    before = _state["mode"]
    _state["mode"] = _mode(engine)
    try:
        yield
    finally:
        _state["mode"] = before


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block (unless it is off already).

    Numba's compiler makes objects with reference cycles by the hundred thousand, and the
    collector, running as they pile up, walks the whole heap again and again: 2.3 s of a
    14.8 s compile of every kernel, 0.8 s with it paused (measured with ``gc.callbacks``).
    Kernels are compiled, and loaded, inside this.

    Examples
    --------
    >>> import gc
    >>> with gc_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


# --------------------------------------------------------------- the on-disk cache


@functools.cache
def sources_digest() -> str:
    """A SHA-256 of vecfix's ``.py`` files (names and contents) and of the Numba install
    that compiles them (:func:`numba_install`).

    Numba stamps a cached kernel with its own source file only; a kernel that inlines a
    helper from another module would keep stale code when only that module changed. And
    its cache index holds one Numba version: two environments (or an upgrade) sharing a
    folder would each find the other's index, then compile in the foreground, where a
    ``ready`` stamp promised a load. The kernels' cache directory is named after this
    digest instead (:func:`cache_dir`), so any change to either compiles afresh.
    """
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256(numba_install().encode())
    for file in sorted(root.rglob("*.py")):
        digest.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def numba_install() -> str:
    """Which Numba would compile the kernels, without importing it: its package's file
    and that file's modification time (a reinstall changes it)."""
    spec = importlib.util.find_spec("numba")
    origin = spec.origin if spec is not None and spec.origin else ""
    try:
        return f"{origin}:{os.stat(origin).st_mtime_ns}"
    except OSError:
        return origin


@functools.cache
def cache_dir() -> Path | None:
    """Where the kernels' compiled code is cached: ``vecfix-<digest>`` under
    ``NUMBA_CACHE_DIR`` if set, else under vecfix's ``__pycache__``, else under the user's
    cache directory; the first one that can be written. None when caching is off
    (``VECFIX_NUMBA_CACHE=0``, ``NUMBA_DISABLE_JIT=1``) or no directory can be written
    (said once, with a :class:`RuntimeWarning`: the kernels then compile in memory)."""
    if not _tuning.NUMBA_CACHE or _jit_disabled():
        return None
    given = os.environ.get("NUMBA_CACHE_DIR")
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vecfix"
    bases = [Path(given)] if given else [Path(__file__).resolve().parent / "__pycache__", user]
    problems = []
    for base in bases:
        path = base / f"vecfix-{sources_digest()[:16]}"
        try:
            path.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=path):
                pass
        except OSError as exc:
            problems.append(f"{base}: {exc.strerror or exc}")
            continue
        return path
    warn_once(
        "cache",
        "vecfix: no directory to cache compiled kernels in; they are compiled in memory in"
        " each process (seconds, not correctness). Point NUMBA_CACHE_DIR at a writable"
        f" directory. Tried {'; '.join(problems)}",
    )
    return None


def _jit_disabled() -> bool:
    """``NUMBA_DISABLE_JIT`` as Numba reads it (``numba.core.config``: ``int(value)``, a
    value that is no int taken as 0 with a warning), without importing Numba.

    >>> import os
    >>> [_jit_disabled() for os.environ["NUMBA_DISABLE_JIT"] in ("1", " 2 ", "false", "00")]
    [True, True, False, False]
    >>> del os.environ["NUMBA_DISABLE_JIT"]
    """
    value = os.environ.get("NUMBA_DISABLE_JIT")
    try:
        return value is not None and int(value) != 0
    except ValueError:
        return False


def warn_once(key: str, text: str) -> None:
    """A :class:`RuntimeWarning` said once per process for ``key``."""
    with _LOCK:
        if key in _WARNED:
            return
        _WARNED.add(key)
    warnings.warn(text, RuntimeWarning, stacklevel=3)


#: The lines of ``/proc/cpuinfo`` that say which CPU it is (x86, then Arm), not its state.
_CPUINFO = {b"vendor_id", b"cpu family", b"model", b"model name", b"stepping", b"flags"}
_CPUINFO |= {b"CPU implementer", b"CPU architecture", b"CPU variant", b"CPU part", b"Features"}


@functools.cache
def _cpu() -> str:
    """The CPU Numba compiles for, hashed: ``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES`` if
    set, else the kernel's description of it (Linux's ``/proc/cpuinfo``: its model and
    flags, read in a millisecond where importing LLVM's bindings to ask takes 30 ms), else
    LLVM's name and features of the host CPU."""
    name, features = os.environ.get("NUMBA_CPU_NAME"), os.environ.get("NUMBA_CPU_FEATURES")
    if not (name or features):
        try:
            with open("/proc/cpuinfo", "rb") as f:  # (its first processor's block)
                block = f.read(1 << 16).partition(b"\n\n")[0].splitlines()
        except OSError:
            block = []
        described = [line for line in block if line.partition(b":")[0].strip() in _CPUINFO]
        if described:
            return hashlib.sha256(b"\n".join(described)).hexdigest()[:12]
    from llvmlite import binding

    name = name or binding.get_host_cpu_name()
    features = features or binding.get_host_cpu_features().flatten()
    return hashlib.sha256(f"{name}:{features}".encode()).hexdigest()[:12]


def _stamp(name: str) -> Path | None:
    where = cache_dir()
    return None if where is None else where / f"ready-{name}-{_cpu()}"


def ready(name: str = "fixed") -> bool:
    """Whether the kernels of ``vecfix._kernels.<name>`` are compiled in the cache for
    this CPU (a process imported them there and left a stamp), so that loading them costs
    a fraction of a second. True when there is nothing to compile
    (``NUMBA_DISABLE_JIT=1``)."""
    if _jit_disabled():
        return True
    stamp = _stamp(name)
    return stamp is not None and stamp.exists()


def cold() -> bool:
    """Whether this process is on the first run on a machine: it has not loaded the
    kernels, chooses its engine itself (``auto``), and the cache it would load them from
    holds none for this CPU yet (a child compiles them, or will)."""
    return (
        _state["mode"] == "auto"
        and not _state["loaded"]
        and (cache_dir() is not None and not ready("fixed"))
    )


# ------------------------------------------------------------- compiling, in a child


def _lock_path() -> Path | None:
    where = cache_dir()
    return None if where is None else where / "compiling.lock"


def compiling() -> bool:
    """Whether a child process is filling the cache now: one started here unless one
    (of any process) holds the lock already. False when there is no cache to fill."""
    lock = _lock_path()
    if lock is None:
        return False
    if _held(lock):
        return True
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys, vecfix._engine as e; sys.exit(e.child())"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # it outlives this process if it must: the cache stays
    )
    deadline = time.monotonic() + 5
    while child.poll() is None and not _held(lock) and time.monotonic() < deadline:
        time.sleep(0.005)  # until it holds the lock (or has given up)
    return _held(lock)


def _held(lock: Path) -> bool:
    """Whether a process holds ``lock`` now: an OS lock (``flock``) on the file, which the
    OS lets go when its holder ends, however it ends; asked by taking it for an instant."""
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:  # a file system without locks: no compile is known to run
        return False
    finally:
        os.close(fd)  # (lets go of the instant's lock)
    return False


def _wait_for_child() -> None:
    """Wait while a child compiles into the cache (then this process loads its work), for
    at most :data:`~vecfix._tuning.COMPILE_LOCK_LIFE` seconds (a compile that hangs)."""
    lock = _lock_path()
    deadline = time.monotonic() + _tuning.COMPILE_LOCK_LIFE
    while lock is not None and _held(lock) and not ready("fixed"):
        if time.monotonic() > deadline:
            return
        time.sleep(0.05)


def warmup() -> None:
    """Compile every kernel into Numba's on-disk cache now, or load them from it.

    Later processes then load them in a fraction of a second. ``vecfix`` calls this in a
    background process the first time it runs on a machine; call it yourself to pay the
    compile (tens of seconds) at a time of your choosing, e.g. when building a container
    image. Safe to call in several processes at once.

    Examples
    --------
    >>> import vecfix
    >>> vecfix.warmup()
    """
    for name in KERNEL_MODULES:
        import_kernels(name)  # (each leaves its stamp)
    _state["loaded"] = True


def child() -> int:
    """The background compile: take the lock (an OS lock on ``compiling.lock``, held until
    this process ends, then :func:`warmup` (each kernel module leaves its stamp as it is
    done: the format kernels first). Another process holding the lock for longer than a
    moment (not :func:`_held` asking) is compiling: this one ends."""
    lock = _lock_path()
    if lock is None:
        return 1
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    deadline = time.monotonic() + 0.5
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:  # another process compiles
                os.close(fd)
                return 0
            time.sleep(0.01)
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())  # (who holds it, for a person to see)
    try:
        warmup()
    finally:
        os.close(fd)  # the lock goes with it (and with this process, should it die)
    return 0
