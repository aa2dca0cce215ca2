"""The notebooks in ``notebooks/`` run from top to bottom, and are stored without outputs.

Each is executed with nbclient in a fresh ``python3`` kernel that imports this checkout's
vecfix (``PYTHONPATH``), in a temporary folder, with matplotlib's Agg backend. The
notebooks assert their own claims (counts of wrong ties, scientific notation), so a claim
that stops being true fails here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_notebooks_are_there():
    assert {p.name for p in NOTEBOOKS} >= {"quickstart.ipynb", "why-exact.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    stale = [i for i, c in enumerate(code) if c.outputs or c.execution_count is not None]
    assert not stale, f"{path.name}: code cells {stale} hold outputs; clear them before commit"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_colon_introduces_something(path):
    """A line of prose that ends with a colon is followed by what it introduces (a blank
    line before a list, or the end of the cell before the code), not by the next
    sentence: there a full stop belongs."""
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        for line, after in zip(lines, [*lines[1:], ""], strict=True):
            assert not (line.endswith(":") and after.strip()), (path.name, i, line, after)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_top_to_bottom(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    path_var = os.environ.get("PYTHONPATH")
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT) + (os.pathsep + path_var if path_var else ""),
        MPLBACKEND="Agg",
    )
    client = nbclient.NotebookClient(nb, timeout=180, kernel_name="python3")
    client.execute(env=env, cwd=str(tmp_path))
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]  # fmt: skip
    assert not errors
    assert all(c.execution_count for c in nb.cells if c.cell_type == "code")
