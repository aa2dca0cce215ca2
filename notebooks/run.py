"""Run the notebooks and store them with their outputs: ``python notebooks/run.py [NAME ...]``.

Each notebook (all of ``notebooks/*.ipynb``, or the NAMEs given, e.g. ``quickstart``) runs
top to bottom in a fresh ``python3`` kernel that imports this checkout's vecfix
(``PYTHONPATH``), in an empty temporary folder, with matplotlib's inline backend (plots are
stored as PNG); then it is written back with its outputs. Never edit outputs by hand: run
this after changing a notebook or anything it shows, and commit the result.
``tests/test_notebooks.py`` runs them the same way (:func:`execute`) and compares the outputs
with the stored ones, except in cells tagged ``live`` (timings, and plots of them), where
the libraries that print them are the versions that made them (stored in the notebook's
metadata, ``vecfix.versions``: an older pandas or polars prints a table differently).
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
from pathlib import Path
from importlib import metadata
from typing import Any

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: The tag of a cell whose outputs are a measurement (they differ from run to run).
LIVE = "live"
#: The libraries whose versions decide how the outputs print.
PRINTERS = ("numpy", "pandas", "polars", "pyarrow", "ipykernel")


def versions() -> dict[str, str]:
    """Python's version (major.minor) and those of :data:`PRINTERS`, as installed here
    (the kernel runs in this environment)."""
    found = {"python": ".".join(platform.python_version_tuple()[:2])}
    for name in PRINTERS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def execute(path: Path, cwd: Path, timeout: int = 600) -> Any:
    """Run the notebook at ``path`` in the folder ``cwd``; return it with its outputs.

    An error in a cell raises :class:`nbclient.exceptions.CellExecutionError`.
    """
    nb = nbformat.read(path, as_version=4)
    path_var = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + path_var if path_var else ""))
    env.pop("MPLBACKEND", None)  # the kernel's inline backend: plots become PNG outputs
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False)
    client.execute(env=env, cwd=str(cwd))
    nb.metadata["vecfix"] = {"versions": versions()}
    return nb


def main(argv: list[str]) -> int:
    names = set(argv)
    paths = [p for p in sorted(HERE.glob("*.ipynb")) if not names or p.stem in names]
    if names - {p.stem for p in paths}:
        print(f"run.py: no notebook named {sorted(names - {p.stem for p in paths})}")
        return 2
    for path in paths:
        with tempfile.TemporaryDirectory() as folder:
            nb = execute(path, Path(folder))
        nbformat.validate(nb)
        nbformat.write(nb, path)
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
