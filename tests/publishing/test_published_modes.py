"""Files of a published dataset are readable by a web server or a colleague on the same machine: 0644, folders 0755
under the usual umask 022, as a plain open or mkdir makes them (issue 47: mkstemp's 0600 stayed on every file)."""
from __future__ import annotations

import os
import stat

import pytest

from toolkit.cli import main
from toolkit.core.records_io import atomic_write_text

from slmboard_testing import make_run


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_published_board_is_0644_files_in_0755_folders(tmp_path, monkeypatch, umask_022):
    monkeypatch.chdir(tmp_path)
    make_run(tmp_path / "runs" / "a")
    assert main(["create", "./board"]) == 0
    assert main(["submit", "runs/a", "--to", "./board"]) == 0
    published = [p for p in (tmp_path / "board").rglob("*") if ".git" not in p.relative_to(tmp_path / "board").parts]
    files = [p for p in published if p.is_file()]
    assert len(files) >= 8  # card, board.yaml, leaderboard, per-item parquet, submissions ...
    assert {p.relative_to(tmp_path).as_posix(): oct(_mode(p)) for p in files if _mode(p) != 0o644} == {}
    assert {p.relative_to(tmp_path).as_posix(): oct(_mode(p)) for p in published
            if p.is_dir() and _mode(p) != 0o755} == {}


def test_an_atomic_write_follows_the_umask_and_replaces_in_place(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "a.txt", "one")
        assert _mode(tmp_path / "a.txt") == 0o640
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").read_text() == "one" and [p.name for p in tmp_path.iterdir()] == ["a.txt"]
