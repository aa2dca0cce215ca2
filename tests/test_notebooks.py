"""The notebooks in ``notebooks/`` are stored with the outputs of their last run, and a run
now gives the same outputs.

``python notebooks/run.py`` runs them and stores the outputs (plots as PNG); the tests run
them the same way (its :func:`execute`: a fresh ``python3`` kernel that imports this
checkout's vecfix, in a temporary folder) and compare each cell's text outputs with the
stored ones, except in cells tagged ``live`` (timings), where the libraries that print
them (pandas, polars...) are the versions that made the stored outputs (CI's pass on the
oldest versions runs the notebooks without comparing). The notebooks assert their own
claims (counts of wrong ties, scientific notation), so a claim that stops being true fails
here, and so does a stored output that no longer matches the code (run ``run.py`` again).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
_spec = importlib.util.spec_from_file_location("notebooks_run", ROOT / "notebooks" / "run.py")
assert _spec is not None and _spec.loader is not None
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)

#: The most a stored notebook may weigh (its PNGs are small: low dpi).
MAX_BYTES = 150_000


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def texts(cell) -> list[str]:
    """A cell's text outputs: what it printed to stdout, and the text of its results."""
    out = []
    for o in cell.outputs:
        if o.output_type == "stream" and o.name == "stdout":
            out.append(o.text)
        elif o.output_type in ("execute_result", "display_data"):
            out.append(o.data.get("text/plain", ""))
    return out


def test_the_notebooks_are_there():
    assert {p.name for p in NOTEBOOKS} >= {"quickstart.ipynb", "why-exact.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_with_the_outputs_of_one_run(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = code_cells(nb)
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), (
        f"{path.name}: not stored from one run top to bottom; run python notebooks/run.py"
    )
    assert sum(bool(c.outputs) for c in code) >= len(code) // 2
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors
    assert path.stat().st_size <= MAX_BYTES


def test_the_plots_are_stored_as_small_pngs():
    nb = nbformat.read(ROOT / "notebooks" / "why-exact.ipynb", as_version=4)
    pngs = [
        o.data["image/png"]
        for c in code_cells(nb)
        for o in c.outputs
        if o.output_type == "display_data" and "image/png" in o.data
    ]
    assert len(pngs) == 2
    assert all(1_000 < len(png) <= 60_000 for png in pngs)  # base64 text


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
def test_a_run_gives_the_stored_outputs_and_writes_nothing_where_it_runs(path, tmp_path):
    (tmp_path / "already-here.txt").write_text("a file the notebook must leave alone\n")
    before = sorted((p.relative_to(tmp_path), p.stat().st_mtime_ns) for p in tmp_path.rglob("*"))
    ran = run.execute(path, tmp_path, timeout=300)
    after = sorted((p.relative_to(tmp_path), p.stat().st_mtime_ns) for p in tmp_path.rglob("*"))
    assert after == before  # every file it writes goes to a temporary folder of its own
    stored = code_cells(nbformat.read(path, as_version=4))
    fresh = code_cells(ran)
    assert [c.source for c in fresh] == [c.source for c in stored]
    assert not [o for c in fresh for o in c.outputs if o.output_type == "error"]
    made_by = nbformat.read(path, as_version=4).metadata.get("vecfix", {}).get("versions")
    assert made_by, f"{path.name}: no vecfix.versions in its metadata; run notebooks/run.py"
    if made_by != run.versions():
        pytest.skip(f"outputs stored with {made_by}, not compared under {run.versions()}")
    for i, (new, old) in enumerate(zip(fresh, stored, strict=True)):
        if run.LIVE in new.metadata.get("tags", []):
            continue  # a measurement: different on every run
        assert texts(new) == texts(old), (
            f"{path.name} code cell {i} ({new.source.splitlines()[0]!r}) printed something"
            " else than is stored: run python notebooks/run.py and commit the result"
        )
