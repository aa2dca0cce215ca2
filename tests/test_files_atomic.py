"""One atomic replace for every path vecfix writes (:func:`vecfix._io.atomic_path`): the new
file is written beside the target, flushed to disk, then renamed over it; a write that fails
part-way leaves an existing file as it was and no temporary file behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from vecfix._io import atomic_path, write_all


def _calls(monkeypatch):
    """Record the fsync and replace calls, in order (each still done)."""
    seen = []
    fsync, replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (seen.append("fsync"), fsync(fd))[1])
    monkeypatch.setattr(
        os, "replace", lambda a, b: (seen.append(("replace", a, b)), replace(a, b))[1]
    )
    return seen


def test_write_all_replaces_a_path_whole_after_fsync(tmp_path, monkeypatch):
    target = tmp_path / "out.fix"
    target.write_bytes(b"old contents, longer than the new")
    os.chmod(target, 0o640)
    inode = target.stat().st_ino
    seen = _calls(monkeypatch)
    assert write_all(target, np.frombuffer(b"35=W\x01", np.uint8)) == 5
    assert target.read_bytes() == b"35=W\x01"
    assert seen[0] == "fsync" and seen[1][0] == "replace" and seen[1][2] == target
    assert target.stat().st_ino != inode  # a new file renamed over it, not truncated in place
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # its permissions kept
    assert [p.name for p in tmp_path.iterdir()] == ["out.fix"]


def test_a_write_that_fails_part_way_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    target = tmp_path / "out.fix"
    target.write_bytes(b"keep")
    written = []

    def fails(fd):  # the data is written, then the flush to disk fails (a full disk, say)
        written.append(os.fstat(fd).st_size)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fails)
    with pytest.raises(OSError, match="No space left"):
        write_all(target, b"35=W\x0135=W\x01")
    assert written == [10]
    assert target.read_bytes() == b"keep"
    assert [p.name for p in tmp_path.iterdir()] == ["out.fix"]


def test_a_new_file_gets_the_umask_permissions_and_a_link_its_target_replaced(tmp_path):
    old = os.umask(0o027)
    try:
        with atomic_path(tmp_path / "new.csv") as tmp:
            with open(tmp, "wb") as f:
                f.write(b"x\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.csv").stat().st_mode) == 0o640
    real = tmp_path / "real.csv"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    write_all(link, b"new\n")
    assert link.is_symlink() and real.read_bytes() == b"new\n"


def test_an_error_in_the_block_removes_the_temporary_file(tmp_path):
    target = tmp_path / "t.parquet"
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(target) as tmp:
            assert os.path.dirname(tmp) == str(tmp_path)
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_vecfix_format_replaces_its_output_through_the_atomic_replace(tmp_path, monkeypatch):
    """``format_file``'s output is flushed to disk and renamed over the old file; a job that
    fails in a later batch (a bad cell 150,000 rows in) leaves the old file as it was."""
    pytest.importorskip("polars")
    from vecfix import NumberFormat
    from vecfix.files import ColumnSpec, DataError, format_file

    src = tmp_path / "in.csv"
    rows = [f"S{i % 7},{i}.5" for i in range(200_000)]
    src.write_text("sym,px\n" + "\n".join(rows) + "\n")
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    seen = _calls(monkeypatch)
    format_file(src, out, [ColumnSpec("px", NumberFormat(scale=2))], progress=False)
    assert out.read_text().splitlines()[:3] == ["sym,px", "S0,0.50", "S1,1.50"]
    assert [c if c == "fsync" else c[::2] for c in seen] == ["fsync", ("replace", out), "fsync"]
    out.write_text("old\n")
    rows[150_000] = "S0,1.5x"
    src.write_text("sym,px\n" + "\n".join(rows) + "\n")
    with pytest.raises(DataError, match=r"1\.5x"):
        format_file(src, out, [ColumnSpec("px", NumberFormat(scale=2))], progress=False)
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "out.csv"]


def test_a_folder_is_replaced_whole_or_left_as_it_was(tmp_path):
    """``folder=True`` (a Parquet dataset): the new folder takes the old one's place only
    when the block ends normally; no stale file of the old one lingers."""
    target = tmp_path / "ds"
    target.mkdir()
    (target / "part.9.parquet").write_bytes(b"old")
    with pytest.raises(OSError, match="worker died"):
        with atomic_path(target, folder=True) as tmp:
            (Path(tmp) / "part.0.parquet").write_bytes(b"half")
            raise OSError("worker died")
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]
    assert [p.name for p in target.iterdir()] == ["part.9.parquet"]
    with atomic_path(target, folder=True) as tmp:
        (Path(tmp) / "part.0.parquet").write_bytes(b"new")
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]
    assert [(p.name, p.read_bytes()) for p in target.iterdir()] == [("part.0.parquet", b"new")]
