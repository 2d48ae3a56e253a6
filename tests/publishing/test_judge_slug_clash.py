"""No two judge ids may share a folder/file slug (``acme:x`` and ``acme/x`` are both ``acme-x``): ``submit`` and
``submit --update`` refuse a clash within the run or with a judge the board publishes, in one line naming both
ids, and write nothing (``judge`` refuses it too: tests/judging/test_panel.py)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from slmboard_testing import make_item_row, make_run
from toolkit import api
from toolkit.core.errors import SlmboardError
from toolkit.core.judge_names import judge_slug, slug_clash
from toolkit.core.records_io import write_jsonl_atomic
from toolkit.core.runs import RunDir

ROOT = Path(__file__).resolve().parents[2]
NO_BOOTSTRAP = api.SubmitOptions(n_bootstrap=0)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolkit.cli", *args], capture_output=True, text=True, cwd=ROOT)


def add_judge(run: Path, judge_id: str, scores=(1.0, 0.0, 0.5)) -> None:
    """The run's smoke answers judged by ``judge_id`` (its folder is the id's slug, as the judging stage writes)."""
    config = RunDir(run).load_config()
    responses = [json.loads(line) for line in RunDir(run).response_file("smoke").read_text().splitlines()]
    rows = [make_item_row(r["item_id"], s, judge_id=judge_id, model_id=config.model_id,
                          submission_id=config.submission_id, prompt=r["prompt"]) for r, s in zip(responses, scores)]
    path = RunDir(run).judgment_file(judge_id, "smoke")
    earlier = [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []
    write_jsonl_atomic(path, earlier + rows)


def test_slug_clash_by_hand():
    assert judge_slug("acme:x") == judge_slug("acme/x") == "acme-x"
    assert slug_clash(["acme:x", "heuristic-v1"]) is None
    assert slug_clash(["acme:x", "acme/x"]) == ("acme:x", "acme/x")  # in sorted order, the later id first
    assert slug_clash(["acme:x"], ["acme/x", "heuristic-v1"]) == ("acme:x", "acme/x")
    assert slug_clash(["acme:x"], ["acme:x"]) is None  # the same id again is no clash


def test_submit_refuses_a_judge_whose_slug_the_board_publishes(tmp_path):
    board = tmp_path / "board"
    api.create(board)
    api.submit(make_run(tmp_path / "a"), to=board, options=NO_BOOTSTRAP)  # heuristic-v1
    other = make_run(tmp_path / "b", model_id="org/model-b", submission_id="model-b-1", judge_id="heuristic:v1")
    before = tree(board)
    with pytest.raises(SlmboardError) as refused:
        api.submit(other, to=board, options=NO_BOOTSTRAP)
    message = str(refused.value)
    assert message == (f"judge ids heuristic:v1 and heuristic-v1 (published in {board} by model-a-1) share the file "
                       "slug heuristic-v1: rename one (no two judge ids may share a slug)")
    assert tree(board) == before
    proc = cli("submit", str(other), "--to", str(board), "--bootstrap", "0")
    assert proc.returncode != 0 and tree(board) == before
    said = [line for line in proc.stderr.splitlines() if "share the file slug" in line]
    assert len(said) == 1 and "heuristic:v1" in said[0] and "heuristic-v1 (published" in said[0], proc.stderr


def test_submit_refuses_two_judges_of_the_run_sharing_a_slug(tmp_path):
    board = tmp_path / "board"
    api.create(board)
    run = make_run(tmp_path / "a", judge_id="acme:x")
    add_judge(run, "acme/x")  # the same folder acme-x: two ids, one file name on the board
    before = tree(board)
    with pytest.raises(SlmboardError, match=r"^judge ids acme:x and acme/x share the file slug acme-x: rename one"):
        api.submit(run, to=board, options=NO_BOOTSTRAP)
    assert tree(board) == before


def test_update_refuses_a_new_judge_whose_slug_the_board_publishes(tmp_path):
    board = tmp_path / "board"
    api.create(board)
    run = make_run(tmp_path / "a")
    api.submit(run, to=board, options=NO_BOOTSTRAP)
    api.submit(make_run(tmp_path / "b", model_id="org/model-b", submission_id="model-b-1", judge_id="acme:x"),
               to=board, options=NO_BOOTSTRAP)
    add_judge(run, "acme/x")
    before = tree(board)
    with pytest.raises(SlmboardError) as refused:
        api.submit(run, to=board, options=api.SubmitOptions(n_bootstrap=0, update=True))
    assert str(refused.value) == (f"judge ids acme/x and acme:x (published in {board} by model-b-1) share the file slug "
                                  "acme-x: rename one (no two judge ids may share a slug)")
    assert tree(board) == before and not (board / "data" / "smoke" / "model-a-1__acme-x.parquet").exists()
    # a judge of its own slug is added as before
    add_judge(run, "acme-y")
    RunDir(run).judgment_file("acme/x", "smoke").unlink()
    api.submit(run, to=board, options=api.SubmitOptions(n_bootstrap=0, update=True))
    assert (board / "data" / "smoke" / "model-a-1__acme-y.parquet").is_file()
