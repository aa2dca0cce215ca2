"""Every code block of README.md runs, so the README cannot drift from the code.

* the first block that runs the tests is exactly the two newcomer commands (a usage
  example may come before it);
* ``pycon`` blocks run as doctests, ``python`` blocks are executed, both in one namespace,
  in order, in a temporary folder;
* ``shell`` blocks run line by line through ``python -m vecfix`` in a temporary folder;
* ``text`` and ``console`` blocks (sample output, contributor commands) are not executed;
* the semantics table is checked row by row against vecfix and against the independent
  reference in ``tests/reference.py``.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from reference import reference_fixed

import vecfix

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
BLOCKS = [(m.group(1).strip(), m.group(2), README.count("\n", 0, m.start()) + 1)
          for m in FENCE.finditer(README)]  # fmt: skip
EXECUTED = {"python", "pycon", "shell"}
SHOWN = {"text", "console"}
NEWCOMER = 'python -m pip install -e ".[test]" && python -m vecfix demo\npython -m pytest\n'


def _newcomer_block() -> int:
    """The index of the first block that runs the tests."""
    return next(i for i, (_, body, _) in enumerate(BLOCKS) if "pytest" in body)


def test_first_block_that_runs_the_tests_is_the_two_commands():
    info, body, _ = BLOCKS[_newcomer_block()]
    assert info == ""
    assert body == NEWCOMER
    assert README.count(NEWCOMER) == 1


def test_every_other_block_says_what_it_is():
    for i, (info, _, line) in enumerate(BLOCKS):
        if i != _newcomer_block():
            assert info in EXECUTED | SHOWN, f"README line {line}: info string {info!r}"
    assert {info for info, _, _ in BLOCKS} >= {"python", "pycon", "shell"}


def test_a_new_user_meets_format_fixed_first():
    """The first screen: what goes in and what comes out, then a column formatted, before
    install and set-up; the whole page short enough to read."""
    lines = README.splitlines()
    first = next(i for i, line in enumerate(lines) if "format_fixed(" in line)
    assert first < 40
    assert first < README[: README.index("## Install")].count("\n")
    assert len(lines) <= 350


def test_python_and_pycon_blocks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    globs: dict = {"__name__": "readme"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    ran = 0
    for info, body, line in BLOCKS:
        if info == "python":
            exec(compile(body, f"README.md:{line}", "exec"), globs)
        elif info == "pycon":
            test = parser.get_doctest(body, globs, f"README.md:{line}", "README.md", line)
            result = runner.run(test, clear_globs=False)
            globs.update(test.globs)  # DocTest works on a copy: carry names to the next block
            assert result.failed == 0, f"README.md line {line}: see the doctest report above"
        else:
            continue
        ran += 1
    assert ran >= 5


def test_shell_blocks(tmp_path):
    path_var = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + path_var if path_var else ""))
    commands = [
        (line, cmd)
        for info, body, line in BLOCKS
        if info == "shell"
        for cmd in body.splitlines()
        if cmd.strip() and not cmd.lstrip().startswith("#")
    ]
    assert commands
    for line, cmd in commands:
        argv = shlex.split(cmd)
        assert argv[0] == "vecfix", f"README line {line}: shell blocks run vecfix only"
        r = subprocess.run(
            [sys.executable, "-m", "vecfix", *argv[1:]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, f"README line {line}: {cmd}\n{r.stdout}\n{r.stderr}"
    pq = pytest.importorskip("pyarrow.parquet")
    t = pq.read_table(tmp_path / "prices.parquet")
    px, e9 = t["price"].to_pylist(), t["price_e9"].to_pylist()
    assert all(p is None or (p.count(".") == 1 and len(p.split(".")[1]) == 1) for p in px)
    assert all(e is None or (e.count(".") == 1 and len(e.split(".")[1]) == 4) for e in e9)


def semantics_rows() -> list[tuple[int, int, int, str]]:
    section = README.split("## Semantics", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"-?\d+", cells[0]):
            rows.append((int(cells[0]), int(cells[1]), int(cells[2]), cells[3].strip("`")))
    return rows


@pytest.mark.filterwarnings("ignore::vecfix.SentinelWarning")  # (int64 max and min rows)
def test_semantics_table():
    rows = semantics_rows()
    assert len(rows) >= 15
    for c, e, s, text in rows:
        assert reference_fixed(c, e, s) == text, (c, e, s)
        assert vecfix.format_fixed([c], e, s).to_list() == [text], (c, e, s)


def test_speed_is_ratios_from_one_run_on_a_named_machine():
    """The README gives ratios against the peers, names the machine and points at the
    tables, which benchmarks/README.md holds with the command that made them."""
    start, end = "<!-- speed:start -->", "<!-- speed:end -->"
    speed = README.split(start, 1)[1].split(end, 1)[0]
    assert "Machine:" in speed and "benchmarks/README.md" in speed and "×" in speed
    bench = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    start, end = "<!-- benchmark-table:start -->", "<!-- benchmark-table:end -->"
    assert bench.count(start) == 1 and bench.count(end) == 1
    table = bench.split(start, 1)[1].split(end, 1)[0]
    assert "Command: `" in table and "pytest benchmarks --benchmark-enable" in table
    assert "| vecfix.format_fixed |" in table
