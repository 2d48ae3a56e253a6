"""Submitting to the embedded hub: a git folder that load_dataset reads like a Hub repo."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from toolkit import api
from toolkit.core.errors import ValidationFailed
from toolkit.outputs.publishing import LocalFolderHub
from toolkit.core.runs import RunDir
from slmboard_testing import new_board


def tree_digest(root: Path) -> str:
    """Hash of every file under root (including .git) — 'byte-identical' made checkable."""
    digest = hashlib.sha256()
    if not root.exists():
        return "absent"
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def git_log(root: Path) -> list[str]:
    out = subprocess.run(["git", "log", "--format=%s"], cwd=root, capture_output=True, text=True, check=True).stdout
    return out.strip().splitlines()


def test_two_submissions_make_two_commits_and_load_dataset_reads_them(synthetic_run, tmp_path):
    from datasets import load_dataset

    run_a = synthetic_run("a", scores={"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.0})
    run_b = synthetic_run("b", model_id="org/model-b", submission_id="model-b-1",
                          scores={"smoke_001": 0.5, "smoke_002": 0.5, "smoke_003": None})
    dataset = tmp_path / "dataset"
    new_board(dataset)
    api.submit(run_a, to=dataset, options=api.SubmitOptions(n_bootstrap=100))
    api.submit(run_b, to=dataset, options=api.SubmitOptions(n_bootstrap=100))
    assert len(git_log(dataset)) == 3  # create + one per submission
    assert subprocess.run(["git", "status", "--porcelain"], cwd=dataset, capture_output=True, text=True).stdout == ""
    for rel in ("README.md", "data/smoke/model-a-1__heuristic-v1.parquet", "data/leaderboard/leaderboard.parquet",
                "data/submissions/submissions.parquet", "submissions/model-a-1.json", "submissions/model-b-1.json"):
        assert (dataset / rel).is_file(), rel
    readme = (dataset / "README.md").read_text()
    assert readme.startswith("---\n") and "configs:" in readme and "config_name: smoke" in readme

    cache = tmp_path / "hf-cache"
    items = load_dataset(str(dataset), "smoke", split="test", cache_dir=str(cache))
    assert len(items) == 6
    assert set(items["model_id"]) == {"org/model-a", "org/model-b"}
    failed = [r for r in items if r["score"] is None]
    assert len(failed) == 1 and failed[0]["judge_status"] == "parse_error"
    board = load_dataset(str(dataset), "leaderboard", split="test", cache_dir=str(cache)).to_pandas()
    a = board[board.model_id == "org/model-a"].iloc[0]
    b = board[board.model_id == "org/model-b"].iloc[0]
    assert a.s_raw == pytest.approx(0.5) and b.s_raw == pytest.approx(0.5) and b.n_failed == 1
    assert a.rank_adj == 1 and b.rank_adj == 2  # b is all-ambiguous: S_adj 0
    # the ranks each model cannot be told apart from, and the undecided count, are columns of the leaderboard config
    assert (a.rank_best, a.rank_worst, b.rank_best, b.rank_worst) == (1, 1, 1, 1)  # equal S_raw: both rank 1
    assert (a.n_undecided, b.n_undecided) == (0, 0)
    subs = load_dataset(str(dataset), "submissions", split="test", cache_dir=str(cache))
    assert sorted(subs["submission_id"]) == ["model-a-1", "model-b-1"]
    # `rank` on the dataset folder recomputes the same leaderboard from the per-item files
    again = api.rank(dataset, options=api.RankOptions(n_bootstrap=100))
    pd.testing.assert_series_equal(again["s_adj"].reset_index(drop=True), board.sort_values(["rank_raw", "model_id"])["s_adj"].reset_index(drop=True), check_names=False)


def test_invalid_run_is_refused_and_dataset_left_byte_identical(synthetic_run, tmp_path, item_row):
    dataset = tmp_path / "dataset"
    new_board(dataset)
    api.submit(synthetic_run("good"), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    before = tree_digest(dataset)
    bad = synthetic_run("bad", model_id="org/model-c", submission_id="model-c-1")
    judgments = RunDir(bad).judgment_file("heuristic-v1", "smoke")
    lines = judgments.read_text().splitlines()
    lines[1] = lines[1].replace('"score": 0.5', '"score": 0.3')
    judgments.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValidationFailed) as info:
        api.submit(bad, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    assert f"{judgments}:2:score" in str(info.value)
    assert tree_digest(dataset) == before


def test_missing_judgments_and_duplicates_are_refused(synthetic_run, tmp_path):
    dataset = tmp_path / "dataset"
    run = synthetic_run("r")
    jfile = RunDir(run).judgment_file("heuristic-v1", "smoke")
    lines = jfile.read_text().splitlines()
    jfile.write_text("\n".join(lines[:2] + [lines[0]]) + "\n")  # smoke_003 dropped, smoke_001 duplicated
    new_board(dataset)
    with pytest.raises(ValidationFailed) as info:
        api.submit(run, to=dataset)
    text = str(info.value)
    assert "duplicate of" in text and "not judged by heuristic-v1: smoke_003" in text
    assert not (dataset / "submissions").exists()  # the created board holds no submission


def test_same_submission_twice_is_refused_without_changes(synthetic_run, tmp_path):
    dataset = tmp_path / "dataset"
    run = synthetic_run("r")
    new_board(dataset)
    api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    before = tree_digest(dataset)
    with pytest.raises(Exception, match="already"):
        api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    assert tree_digest(dataset) == before
    assert len(git_log(dataset)) == 2  # create + the submission, nothing more


def test_half_written_submission_is_rolled_back_by_the_next_writer(synthetic_run, tmp_path):
    dataset = tmp_path / "dataset"
    new_board(dataset)
    api.submit(synthetic_run("a"), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    # Simulate a submitter killed after writing files but before committing.
    (dataset / ".git" / "slmboard-inflight").write_text("12345")
    (dataset / "data" / "smoke" / "zombie.parquet").write_bytes(b"half")
    (dataset / "README.md").write_text("clobbered")
    api.submit(synthetic_run("b", model_id="org/model-b", submission_id="model-b-1"), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    assert not (dataset / "data" / "smoke" / "zombie.parquet").exists()
    assert (dataset / "README.md").read_text().startswith("---")
    assert len(git_log(dataset)) == 3  # create + the two submissions


def test_foreign_uncommitted_changes_block_publishing(synthetic_run, tmp_path):
    dataset = tmp_path / "dataset"
    new_board(dataset)
    api.submit(synthetic_run("a"), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    (dataset / "notes.txt").write_text("mine")
    with pytest.raises(Exception, match="uncommitted changes"):
        api.submit(synthetic_run("b", model_id="org/model-b", submission_id="model-b-1"), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    assert (dataset / "notes.txt").read_text() == "mine"


def test_submit_cli_reports_errors_and_exits_1(synthetic_run, tmp_path):
    run = synthetic_run("r", judged=False)
    dataset = tmp_path / "dataset"
    new_board(dataset)
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "submit", str(run), "--to", str(dataset)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "no judgments" in proc.stderr
    assert not (dataset / "submissions").exists()  # the created board holds no submission


def test_manifest_carries_hashes_of_the_published_files(synthetic_run, tmp_path):
    import json

    dataset = tmp_path / "dataset"
    new_board(dataset)
    api.submit(synthetic_run("r"), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    manifest = json.loads((dataset / "submissions" / "model-a-1.json").read_text())
    assert manifest["record_files"]
    for entry in manifest["record_files"]:
        assert hashlib.sha256((dataset / entry["path"]).read_bytes()).hexdigest() == entry["sha256"]
    assert manifest["toolkit_version"] and manifest["model_revision"] == "rev1"
    assert LocalFolderHub(dataset).head()
    assert api.validate(dataset).ok


def test_the_embedded_model_has_its_metadata_and_another_model_is_told_how_to_add_it(tmp_path):
    """Issue 47: the manifest note named SmolLM2 for every model, was printed for the embedded model itself (whose
    family and tuning are known) and, printed after publishing, did not say that a published manifest stays."""
    import json

    from slmboard_testing import make_run

    smol = make_run(tmp_path / "smol", model_id="HuggingFaceTB/SmolLM2-135M-Instruct", submission_id="smol-1")
    other = make_run(tmp_path / "other", model_id="org/model-a", submission_id="model-a-1")
    board = new_board(tmp_path / "board")
    published = api.submit(smol, to=board)
    assert not [n for n in published.notes if "lacks" in n], published.notes
    manifest = json.loads((board / "submissions" / "smol-1.json").read_text())
    assert (manifest["family"], manifest["tuning"], manifest["instruction_tuned"]) == ("SmolLM2", "instruct", True)
    note = next(n for n in api.submit(other, to=board).notes if "lacks" in n)
    assert "org/model-a" in note and "SmolLM2" not in note and "an update only adds judges" in note
    assert str(other / "model.json") in note


def test_bbq_from_the_packaged_sample_says_so_and_counts_coverage_against_the_age_category(tmp_path):
    """Issue 47: an lm-eval import of BBQ submitted with --data-dir holding the package's sample (Age only) noted
    "(SuiteDataError: ... missing 10 of 11 category files ... (BBQ(BBQOptions(...)) loads a subset)); pass --data-dir"
    although --data-dir was passed, and rank showed its coverage as "–" (no total)."""
    from slmboard_testing import make_run

    data = tmp_path / "suite-data"
    api.download_suites(data, api.SuiteDownloadOptions(suites="bbq", sample=True))
    run = make_run(tmp_path / "lm-eval", suite="bbq", judge_id="lm-eval:acc", model_id="org/model-a",
                   scores={"bbq_age_0001": 1.0, "bbq_age_0002": 0.0})
    board = new_board(tmp_path / "board")
    result = api.submit(run, to=board, options=api.SubmitOptions(data_dir=str(data), allow_partial=True))
    note = next(n for n in result.notes if "bbq" in n)
    assert "slmboard's sample" in note and "Age category (3680 items)" in note, note
    assert not any(word in note for word in ("SuiteDataError", "BBQOptions", "pass --data-dir")), note
    row = api.rank(board).query("suite == 'bbq'").iloc[0]
    assert row["coverage"] == pytest.approx(2 / 3680)


def test_a_pull_request_to_a_local_board_names_the_guide_form_and_the_local_alternative(tmp_path, capsys,
                                                                                          monkeypatch):
    """run-a-leaderboard §3 on a local board: `--create-pr` said "needs a Hub dataset (hf://datasets/org/name)"
    without saying what a local board does instead."""
    from slmboard_testing import make_run
    from toolkit.cli import main

    monkeypatch.chdir(tmp_path)
    make_run(tmp_path / "run")
    new_board(tmp_path / "board")
    assert main(["submit", "run", "--to", "./board", "--create-pr"]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("note:")]
    assert err == ["error: a pull request needs a Hub board (ORG/NAME); the local folder ./board has no pull requests: "
                   "leave out --create-pr and submit to it directly (its checks run before anything is written)"]
