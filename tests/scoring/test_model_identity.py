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
    board = api.rank(pd.DataFrame(rows), options=api.RankOptions(n_bootstrap=0))
    got = {(r.model_id, r.model_revision): r.s_raw for r in board.itertuples()}
    assert got == {("org/model-a", REV_A): 1.0, ("org/model-a", REV_B): 0.0, ("org/model-c", "c" * 40): 0.75}
    ranks = {(r.model_id, r.model_revision): r.rank_raw for r in board.itertuples()}
    assert ranks == {("org/model-a", REV_A): 1, ("org/model-c", "c" * 40): 2, ("org/model-a", REV_B): 3}
    twice = records(REV_A, "a-1", {"i1": 1.0}) + records(REV_A, "a-2", {"i1": 0.0})
    with pytest.raises(ValidationFailed, match=r"duplicate record: \(model_id, model_revision, suite, judge_id, item_id\) = "
                                               r"\('org/model-a', 'a{40}', 'smoke', 'heuristic-v1', 'i1'\)"):
        api.rank(pd.DataFrame(twice), options=api.RankOptions(n_bootstrap=0))


def test_rank_and_the_space_name_the_revision_where_a_model_has_several(synthetic_run, tmp_path):
    scores = {"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.0}
    dataset = tmp_path / "board"
    api.create(dataset)
    api.submit(synthetic_run("a1", model_revision=REV_A, scores=scores), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    api.submit(synthetic_run("a2", submission_id="model-a-2", model_revision=REV_B,
                             scores={"smoke_001": 1.0, "smoke_002": 1.0, "smoke_003": 1.0}), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    api.submit(synthetic_run("c", model_id="org/model-c", submission_id="model-c-1", scores=scores), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    # the same revision again under a new submission id is a duplicate: refused, nothing written
    with pytest.raises(ValidationFailed, match="duplicate record"):
        api.submit(synthetic_run("a3", submission_id="model-a-3", model_revision=REV_A, scores=scores), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
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


def test_every_export_keeps_two_revisions_of_a_model_apart(synthetic_run, tmp_path):
    """Two revisions of one model are two results everywhere the board's numbers go: EEE files and
    the model-page results (merging their records would publish a number neither revision earned)."""
    import json

    import yaml

    dataset = tmp_path / "board"
    api.create(dataset)
    api.submit(synthetic_run("a1", model_revision=REV_A, scores={"smoke_001": 1.0, "smoke_002": 1.0}), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    api.submit(synthetic_run("a2", submission_id="model-a-2", model_revision=REV_B,
                             scores={"smoke_001": 0.0, "smoke_002": 0.0}), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    eee = api.export_eee(dataset, tmp_path / "eee", options=api.EeeOptions(n_bootstrap=0))
    scores = {}
    for path in eee.aggregates:
        doc = json.loads((tmp_path / "eee" / path).read_text())
        revision = doc["model_info"]["additional_details"]["model_revision"]
        assert revision not in scores, f"two aggregate files for revision {revision}"
        scores[revision] = [r["score_details"]["score"] for r in doc["evaluation_results"]
                            if r["evaluation_result_id"].endswith("/s_raw")]
    assert scores == {REV_A: [1.0], REV_B: [0.0]}, scores
    assert eee.n_samples == 4
    pages = api.export_eval_results(dataset, tmp_path / "pages", options=api.EvalResultsOptions(dataset_id="org/board"))

    entries = yaml.safe_load((tmp_path / "pages" / pages.files["org/model-a"]).read_text())
    # one entry per revision, each saying which revision earned its value
    got = sorted((e["notes"].split(";")[0], e["value"]) for e in entries)
    assert got == [(f"model revision {REV_A}", 1.0), (f"model revision {REV_B}", 0.0)], entries


def test_judge_agreement_pairs_each_revision_with_itself(tmp_path):
    """Two judges on a model at two revisions: every item of both revisions is a pair, and a revision's
    score is compared with the other judge's score of the same revision (not of the other one)."""
    from toolkit.stages.judging.agreement_report import agreement_by_suite

    rows = []
    for judge in ("heuristic-v1", "other-v1"):
        rows += [make_item_row(i, 1.0, model_id="org/model-a", submission_id="a-1", model_revision=REV_A,
                               judge_id=judge) for i in ("i1", "i2")]
        rows += [make_item_row(i, 0.0, model_id="org/model-a", submission_id="a-2", model_revision=REV_B,
                               judge_id=judge) for i in ("i1", "i2")]
    stats, extra = agreement_by_suite(pd.DataFrame(rows), "heuristic-v1", "other-v1")
    assert stats["smoke"]["n"] == 4 and stats["smoke"]["exact_agreement"] == 1.0, stats
    assert extra["smoke"]["n_unpaired"] == 0


def test_the_space_agreement_tables_keep_two_revisions_apart():
    """The Judges tab's per-model table has a row per revision, and the disagreement list pairs each revision's
    scores with the same revision's (keyed by model id alone, one revision's records were dropped as duplicates)."""
    from space.agreement import disagreements, per_model

    rows = []
    for judge, a_score in (("heuristic-v1", 1.0), ("other-v1", 0.0)):
        rows += [make_item_row(i, a_score, model_id="org/model-a", submission_id="a-1", model_revision=REV_A,
                               judge_id=judge) for i in ("i1", "i2")]
        rows += [make_item_row(i, 0.5, model_id="org/model-a", submission_id="a-2", model_revision=REV_B,
                               judge_id=judge) for i in ("i1", "i2", "i3")]
    frame = pd.DataFrame(rows)
    table = per_model(frame, "heuristic-v1", "other-v1")
    got = {r["model"]: (r["paired items"], r["exact"]) for _, r in table.iterrows()}
    assert got == {f"org/model-a@{REV_A[:12]}": (2, 0.0), f"org/model-a@{REV_B[:12]}": (3, 1.0)}, table
    differ, one_failed = disagreements(frame, "heuristic-v1", "other-v1")
    assert sorted(differ["model_id"]) == [f"org/model-a@{REV_A[:12]}"] * 2, differ
    assert list(differ["kind"]) == ["contradiction"] * 2 and one_failed.empty
