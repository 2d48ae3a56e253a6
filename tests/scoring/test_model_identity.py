"""A leaderboard row is a model at a revision (issue 31): the duplicate key is (model id, model revision, suite,
judge, item); the same revision twice is a duplicate; two revisions of one model are two rows, shown with their
revision wherever a model has more than one."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from slmboard_testing import make_item_row
from toolkit import api
from toolkit.core.errors import ValidationFailed

ROOT = Path(__file__).resolve().parents[2]
REV_A, REV_B = "a" * 40, "b" * 40


def records(model_revision: str, submission_id: str, scores: dict[str, float], model_id: str = "org/model-a") -> list[dict]:
    return [make_item_row(i, s, model_id=model_id, submission_id=submission_id, model_revision=model_revision)
            for i, s in scores.items()]


def test_two_revisions_are_two_rows_and_one_revision_twice_is_a_duplicate(tmp_path):
    rows = (records(REV_A, "a-1", {"i1": 1.0, "i2": 1.0}) + records(REV_B, "a-2", {"i1": 0.0, "i2": 0.0})
            + records("c" * 40, "other-1", {"i1": 0.5, "i2": 1.0}, model_id="org/model-c"))
    board = api.rank(pd.DataFrame(rows), n_bootstrap=0)
    got = {(r.model_id, r.model_revision): r.s_raw for r in board.itertuples()}
    assert got == {("org/model-a", REV_A): 1.0, ("org/model-a", REV_B): 0.0, ("org/model-c", "c" * 40): 0.75}
    ranks = {(r.model_id, r.model_revision): r.rank_raw for r in board.itertuples()}
    assert ranks == {("org/model-a", REV_A): 1, ("org/model-c", "c" * 40): 2, ("org/model-a", REV_B): 3}
    twice = records(REV_A, "a-1", {"i1": 1.0}) + records(REV_A, "a-2", {"i1": 0.0})
    with pytest.raises(ValidationFailed, match=r"duplicate record: \(model_id, model_revision, suite, judge_id, item_id\) = "
                                               r"\('org/model-a', 'a{40}', 'smoke', 'heuristic-v1', 'i1'\)"):
        api.rank(pd.DataFrame(twice), n_bootstrap=0)


def test_rank_and_the_space_name_the_revision_where_a_model_has_several(synthetic_run, tmp_path):
    scores = {"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.0}
    dataset = tmp_path / "board"
    api.create(dataset)
    api.submit(synthetic_run("a1", model_revision=REV_A, scores=scores), to=dataset, n_bootstrap=0)
    api.submit(synthetic_run("a2", submission_id="model-a-2", model_revision=REV_B,
                             scores={"smoke_001": 1.0, "smoke_002": 1.0, "smoke_003": 1.0}), to=dataset, n_bootstrap=0)
    api.submit(synthetic_run("c", model_id="org/model-c", submission_id="model-c-1", scores=scores), to=dataset, n_bootstrap=0)
    # the same revision again under a new submission id is a duplicate: refused, nothing written
    with pytest.raises(ValidationFailed, match="duplicate record"):
        api.submit(synthetic_run("a3", submission_id="model-a-3", model_revision=REV_A, scores=scores), to=dataset,
                   n_bootstrap=0)
    assert not (dataset / "submissions" / "model-a-3.json").exists()
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "rank", str(dataset), "--bootstrap", "0"],
                          capture_output=True, text=True, cwd=ROOT, env={"COLUMNS": "250", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert f"org/model-a@{REV_A[:12]}" in proc.stdout and f"org/model-a@{REV_B[:12]}" in proc.stdout
    assert "org/model-c@" not in proc.stdout and "org/model-c" in proc.stdout  # one revision: the id alone

    from space.data import load_board
    from space.table import format_table

    board = load_board(dataset)
    shown = format_table(board.rows("smoke", "heuristic-v1"), links=False)
    assert sorted(shown["Model"]) == [f"org/model-a@{REV_A[:12]}", f"org/model-a@{REV_B[:12]}", "org/model-c"]
    linked = format_table(board.rows("smoke", "heuristic-v1"))
    assert any(REV_B[:12] in cell and "huggingface.co/org/model-a" in cell for cell in linked["Model"])
