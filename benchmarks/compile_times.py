"""Where a cold ``vecfix.warmup()`` spends its time: each kernel's compile, and Numba's passes.

Runs ``warmup()`` in a fresh process on an empty Numba cache with no worker process
(``VECFIX_WARMUP_WORKERS=0``: everything compiles here, one kernel after the other) and
records Numba's compile events (``numba.core.event``): for each kernel its compile time
with the kernels it calls (``incl``) and without them (``own``), in the order they
compiled (a kernel another one calls is indented under it), then the passes' own time
summed over all kernels (``native_lowering`` includes LLVM's optimisation and machine
code). Usage::

    PYTHONPATH=$PWD python benchmarks/compile_times.py

Wall-clock seconds: on a busy machine they stretch, so compare runs made side by side.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

CHILD = r"""
import json, time
from collections import defaultdict
from numba.core import event

compiles, passes, stack, pass_stack = [], defaultdict(float), [], []
t0 = time.perf_counter()


class Compiles(event.Listener):
    def on_start(self, ev):
        fn = ev.data["dispatcher"].py_func
        stack.append([f"{fn.__module__}.{fn.__qualname__}", time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, start, inner = stack.pop()
        took = time.perf_counter() - start
        if stack:
            stack[-1][2] += took
        compiles.append((name, start - t0, took, took - inner, len(stack)))


class Passes(event.Listener):
    def on_start(self, ev):
        pass_stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev):
        start, inner = pass_stack.pop()
        took = time.perf_counter() - start
        if pass_stack:
            pass_stack[-1][1] += took
        passes[ev.data["name"].split(" [")[0]] += took - inner


event.register("numba:compile", Compiles())
event.register("numba:run_pass", Passes())
import vecfix

start = time.perf_counter()
vecfix.warmup()
print(json.dumps({"warmup": time.perf_counter() - start, "compiles": compiles,
                  "passes": passes}))
"""


def _by_group(compiles: list) -> dict[str, float]:
    """Compile seconds of each of ``vecfix._warmup``'s kernel groups: its kernels' times
    with the kernels they call (``"framing"``: the message builders' shared kernels,
    ``"format"``: ``format_fixed``'s first calls)."""
    from vecfix import _warmup

    owner = {(f"vecfix.{g.module}", k): g.name for g in _warmup._GROUPS for k in g.kernels}
    owner.update({("vecfix._kernels.fix", k): "framing" for k in _warmup._FRAMING})
    owner.update({("vecfix._kernels.fixed", k): "format" for k in _warmup._FORMAT_KERNELS})
    groups: dict[str, float] = defaultdict(float)
    for name, _at, incl, _own, depth in compiles:
        module, _, kernel = name.rpartition(".")
        if depth == 0 and (module, kernel) in owner:
            groups[owner[module, kernel]] += incl
    return dict(sorted(groups.items(), key=lambda kv: -kv[1]))


def main() -> int:
    """Run the child, print its tables; returns the exit status."""
    with tempfile.TemporaryDirectory(prefix="vecfix-compile-times-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, VECFIX_WARMUP_WORKERS="0")
        env["VECFIX_NUMBA_CACHE"] = "1"
        done = subprocess.run(
            [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=False
        )
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        return done.returncode
    out = json.loads(done.stdout.strip().splitlines()[-1])
    compiles = sorted(out["compiles"], key=lambda c: c[1])
    print(f"warmup() {out['warmup']:.2f} s in one process, empty cache\n")
    print(f"{'kernel':60} {'at':>6} {'incl':>6} {'own':>6}")
    by_module: dict[str, float] = defaultdict(float)
    for name, at, incl, own, depth in compiles:
        if not name.startswith("vecfix."):
            continue  # Numba's own overloads (min, max, iinfo): inside their caller's time
        print(f"{'  ' * depth + name:60} {at:6.2f} {incl:6.2f} {own:6.2f}")
        by_module[name.rsplit(".", 1)[0]] += own
    print(f"\nown compile time by module (total {sum(c[3] for c in compiles):.2f} s):")
    for module, seconds in sorted(by_module.items(), key=lambda kv: -kv[1]):
        print(f"    {module:40} {seconds:6.2f}")
    print("\nby warm-up group (kernels with those they call; cf. vecfix._warmup's order):")
    for group, seconds in _by_group(compiles).items():
        print(f"    {group:40} {seconds:6.2f}")
    print("\nNumba passes, own time over all kernels:")
    for name, seconds in sorted(out["passes"].items(), key=lambda kv: -kv[1])[:10]:
        print(f"    {name:40} {seconds:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
