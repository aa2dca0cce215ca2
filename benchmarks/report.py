"""Turn a pytest-benchmark JSON into the Markdown table of vecfix's README.

Usage::

    python benchmarks/report.py bench.json [more.json ...] [--command "the command that made it"]

Several JSON files (e.g. a second run of ``test_bench_peers.py`` under
``POLARS_MAX_THREADS=1``) are read as one run: their benchmarks are put together, a row
whose label the earlier files already have is left out, and the machine of the first
file is the one shown.

Each benchmark's median time is divided by the rows it formatted (``extra_info["rows"]``)
to give ns/value, and compared with the baseline of its group (``extra_info["baseline"]``,
vecfix itself in every group but "mixed", where it is the uniform case). The minimum time
is shown too: on a shared machine it is the closest to what an idle one would give.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from importlib import metadata

LIBRARIES = ("numpy", "numba", "pyarrow", "polars", "vecfix")
GROUP_ORDER = (
    "peers-1M",
    "price9-1M",
    "mixed",
    "mixed-cold",
    "batch8",
    "threads-1M",
    "threads",
    "numba-versions",
)


def format_seconds(seconds: float) -> str:
    """A duration with a unit that keeps three significant digits.

    Examples
    --------
    >>> format_seconds(0.0421), format_seconds(2.5e-6), format_seconds(812e-9)
    ('42.1 ms', '2.50 µs', '812 ns')
    """
    for unit, size in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= size:
            return f"{_three(seconds / size)} {unit}"
    return f"{_three(seconds / 1e-9)} ns"


def _three(x: float) -> str:
    """Three significant digits (more for numbers of 1000 and up), trailing zeros kept."""
    return f"{x:.0f}" if x >= 99.95 else f"{x:.1f}" if x >= 9.995 else f"{x:.2f}"


def format_ratio(ratio: float) -> str:
    """A ratio to the baseline: two decimals below 10, whole numbers above.

    Examples
    --------
    >>> format_ratio(1.0), format_ratio(3.456), format_ratio(187.4)
    ('1.00×', '3.46×', '187×')
    """
    return f"{ratio:.2f}×" if ratio < 10 else f"{ratio:.0f}×"


def machine_line(machine: dict) -> str:
    """The CPU model and core counts from the JSON's ``machine_info``.

    Examples
    --------
    >>> machine_line({"cpu": {"brand_raw": "AMD EPYC", "count": 2}, "system": "Linux",
    ...               "machine": "x86_64", "usable_cores": 2})
    'AMD EPYC, 2 logical cores (2 usable), Linux x86_64'
    """
    cpu = machine.get("cpu", {})
    model = cpu.get("brand_raw") or machine.get("processor") or "unknown CPU"
    cores = f"{cpu.get('count', '?')} logical cores"
    if "usable_cores" in machine:
        cores += f" ({machine['usable_cores']} usable)"
    where = " ".join(x for x in (machine.get("system"), machine.get("machine")) if x)
    return f"{model}, {cores}, {where}" if where else f"{model}, {cores}"


def versions_line(machine: dict) -> str:
    """Python and library versions: from the JSON, else from this environment.

    Examples
    --------
    >>> versions_line({"versions": {"python": "3.11.7", "numpy": "2.4.6", "numba": "0.68.1",
    ...                "pyarrow": None, "polars": "2.1.0", "vecfix": "0.1.0"}})
    'Python 3.11.7, numpy 2.4.6, numba 0.68.1, pyarrow (not installed), polars 2.1.0, vecfix 0.1.0'
    """
    recorded = machine.get("versions")
    if recorded is None:
        recorded = {"python": machine.get("python_version", "?")}
        for name in LIBRARIES:
            try:
                recorded[name] = metadata.version(name) + " (this environment)"
            except metadata.PackageNotFoundError:
                recorded[name] = None
    parts = [f"Python {recorded.get('python', '?')}"]
    for name in LIBRARIES:
        version = recorded.get(name)
        parts.append(f"{name} {version}" if version else f"{name} (not installed)")
    return ", ".join(parts)


def rows_of(bench: dict) -> list[dict]:
    """One table row per benchmark, with ns/value and the ratio to its group's baseline.

    Examples
    --------
    >>> data = {"benchmarks": [
    ...     {"group": "g", "name": "test_a", "stats": {"median": 0.02},
    ...      "extra_info": {"rows": 1000000, "label": "fast", "baseline": True}},
    ...     {"group": "g", "name": "test_b", "stats": {"median": 0.01},
    ...      "extra_info": {"rows": 10000, "label": "slow", "same_text": False}}]}
    >>> [(r["label"], r["ns_per_value"], r["ratio"]) for r in rows_of(data)]
    [('fast', 20.0, 1.0), ('slow', 1000.0, 50.0)]

    A row's ``versus`` (another benchmark's name) gives it a second ratio, to that row:

    >>> data["benchmarks"][1]["extra_info"]["versus"] = "test_a"
    >>> [(r["label"], r["versus"]) for r in rows_of(data)]
    [('fast', None), ('slow', ('fast', 50.0))]
    """
    rows = []
    for b in bench["benchmarks"]:
        info = b.get("extra_info", {})
        n = int(info.get("rows", 1))
        median = float(b["stats"]["median"])
        fastest = float(b["stats"].get("min", median))
        rows.append(
            {
                "name": b["name"],
                "versus": info.get("versus"),
                "group": b.get("group") or "",
                "label": info.get("label") or b["name"],
                "rows": n,
                "median": median,
                "ns_per_value": median * 1e9 / n,
                "min_ns_per_value": fastest * 1e9 / n,
                "baseline": bool(info.get("baseline")),
                "same_text": info.get("same_text"),
                "note": info.get("first_mismatch", ""),
                "mismatches": info.get("mismatches"),
            }
        )
    for group in {r["group"] for r in rows}:
        members = [r for r in rows if r["group"] == group]
        base = next((r for r in members if r["baseline"]), None)
        for r in members:
            r["ratio"] = r["ns_per_value"] / base["ns_per_value"] if base else None
    by_name = {r["name"]: r for r in rows}
    for r in rows:
        other = by_name.get(r["versus"] or "")
        r["versus"] = (other["label"], r["ns_per_value"] / other["ns_per_value"]) if other else None
    order = {g: i for i, g in enumerate(GROUP_ORDER)}
    rows.sort(key=lambda r: (order.get(r["group"], len(order)), r["group"], r["ns_per_value"]))
    return rows


def _text_cell(r: dict) -> str:
    if r["same_text"] is None:
        return ""
    if r["same_text"]:
        return "yes"
    return f"no: {r['mismatches']:,} rows differ, e.g. {r['note']}"


def markdown(bench: dict, command: str | None = None) -> str:
    """The whole report: machine, versions, command and the table, as Markdown.

    Examples
    --------
    >>> data = {"machine_info": {"cpu": {"brand_raw": "CPU", "count": 1},
    ...                          "versions": {"python": "3.11"}},
    ...         "benchmarks": [{"group": "g", "name": "t", "stats": {"median": 1e-3},
    ...                         "extra_info": {"rows": 1000, "baseline": True}}]}
    >>> print(markdown(data, command="pytest benchmarks"))  # doctest: +NORMALIZE_WHITESPACE
    Machine: CPU, 1 logical cores
    Versions: Python 3.11, numpy (not installed), numba (not installed),
      pyarrow (not installed), polars (not installed), vecfix (not installed)
    Command: `pytest benchmarks`
    <BLANKLINE>
    | group | what | rows/call | median/call | ns/value | min ns/value | ratio | same text |
    |---|---|--:|--:|--:|--:|--:|---|
    | g | t | 1,000 | 1.00 ms | 1000 | 1000 | **1.00×** |  |
    """
    machine = bench.get("machine_info", {})
    if command is None and machine.get("argv"):
        command = shlex.join(machine["argv"])
        if machine.get("pythonpath"):
            command = f"PYTHONPATH={machine['pythonpath']} {command}"
    lines = [f"Machine: {machine_line(machine)}", f"Versions: {versions_line(machine)}"]
    if machine.get("isa"):
        lines.append(f"Kernels compiled for: {machine['isa']}")
    if command:
        lines.append(f"Command: `{command}`")
    lines += [
        "",
        "| group | what | rows/call | median/call | ns/value | min ns/value | ratio | same text |",
        "|---|---|--:|--:|--:|--:|--:|---|",
    ]
    for r in rows_of(bench):
        ratio = "" if r["ratio"] is None else format_ratio(r["ratio"])
        if r["baseline"]:
            ratio = f"**{ratio}**"
        label = r["label"]
        if r["versus"]:
            label += f" ({format_ratio(r['versus'][1])} {r['versus'][0]})"
        lines.append(
            f"| {r['group']} | {label} | {r['rows']:,} | {format_seconds(r['median'])}"
            f" | {_three(r['ns_per_value'])} | {_three(r['min_ns_per_value'])} | {ratio}"
            f" | {_text_cell(r)} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the report for the JSON named on the command line; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="+", help="files written by pytest --benchmark-json=FILE")
    parser.add_argument("--command", help="the command that produced the JSON, to quote")
    args = parser.parse_args(argv)
    runs = []
    for path in args.json:
        with open(path, encoding="utf-8") as f:
            runs.append(json.load(f))
    print(markdown(merge_runs(runs), args.command))
    return 0


def merge_runs(runs: Sequence[dict]) -> dict:
    """One run made of several: the first run's machine, every benchmark whose
    ``(group, label)`` an earlier run did not have.

    Examples
    --------
    >>> a = {"machine_info": {"cpu": {}}, "benchmarks": [
    ...     {"group": "g", "name": "x", "extra_info": {"label": "polars, 2 threads"}}]}
    >>> b = {"machine_info": {}, "benchmarks": [
    ...     {"group": "g", "name": "x", "extra_info": {"label": "polars, 2 threads"}},
    ...     {"group": "g", "name": "x", "extra_info": {"label": "polars, 1 thread"}}]}
    >>> [b["extra_info"]["label"] for b in merge_runs([a, b])["benchmarks"]]
    ['polars, 2 threads', 'polars, 1 thread']
    """
    merged = {"machine_info": runs[0].get("machine_info", {}), "benchmarks": []}
    seen = set()
    for run in runs:
        for b in run["benchmarks"]:
            key = (b.get("group"), b.get("extra_info", {}).get("label") or b["name"])
            if key not in seen:
                seen.add(key)
                merged["benchmarks"].append(b)
    return merged


if __name__ == "__main__":
    sys.exit(main())
