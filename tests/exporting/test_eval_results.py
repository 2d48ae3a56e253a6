"""`slmboard export eval-results`: one .eval_results/slmboard.yaml per model, written with huggingface_hub's
EvalResultEntry and read back with its parser; values = S_adj under each suite's primary judge,
computed here by plain loops."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from huggingface_hub import parse_eval_result_entries

from slmboard_export_fixtures import expected_board, two_judge_run, write_records
from toolkit import api
from slmboard_testing import new_board

REPO = Path(__file__).resolve().parents[2]


def entries_of(path: Path) -> dict:
    return {e.task_id: e for e in parse_eval_result_entries(yaml.safe_load(path.read_text()))}


def test_values_are_s_adj_under_the_primary_judge(tmp_path):
    data = write_records(tmp_path / "items.jsonl")
    out = tmp_path / "er"
    r = api.export_eval_results(data, out, options=api.EvalResultsOptions(dataset_id="org/board"))
    want = expected_board()
    # the rule: on sst heuristic-v1 covers 3 models, openai:gpt-4o-mini 2 -> heuristic-v1
    assert r.primary_judges == {"sst": "heuristic-v1", "xstest": "heuristic-v1"}
    assert sorted(r.files) == ["org/model-a", "org/model-b", "solo"]
    a = entries_of(out / "org/model-a/.eval_results/slmboard.yaml")
    assert set(a) == {"sst", "xstest"}
    for suite, entry in a.items():
        expected = want[(suite, "heuristic-v1", "org/model-a")]
        assert entry.value == pytest.approx(expected["s_adj"], abs=1e-12)
        assert entry.dataset_id == "org/board" and entry.source_url == "https://huggingface.co/datasets/org/board"
        assert f"S_raw {expected['s_raw']:.4f}" in entry.notes and f"AR {expected['ar']:.4f}" in entry.notes
        assert "judge heuristic-v1" in entry.notes and "rubric r-test" in entry.notes
    assert (out / "unknown/solo/.eval_results/slmboard.yaml").is_file()


def test_primary_judge_flag_changes_the_value_and_undefined_s_adj_gets_no_entry(tmp_path):
    data = write_records(tmp_path / "items.jsonl")
    out = tmp_path / "er"
    r = api.export_eval_results(data, out, options=api.EvalResultsOptions(dataset_id="org/board", primary_judges={"sst": "openai:gpt-4o-mini"}))
    want = expected_board()
    a = entries_of(out / "org/model-a/.eval_results/slmboard.yaml")
    assert a["sst"].value == pytest.approx(want[("sst", "openai:gpt-4o-mini", "org/model-a")]["s_adj"])
    b = entries_of(out / "org/model-b/.eval_results/slmboard.yaml")
    assert set(b) == {"xstest"}  # every sst judgment of model-b by that judge failed: no S_adj, no entry
    assert "solo" not in r.files and any("solo" in n for n in r.notes)  # solo has no openai judgments


def test_card_records_the_primary_judge_the_export_uses(synthetic_run, tmp_path):
    ds = tmp_path / "ds"
    new_board(ds)
    api.submit(two_judge_run(synthetic_run), to=ds, options=api.SubmitOptions(n_bootstrap=0, primary_judges={"smoke": "openai:judge-x"}))
    r = api.export_eval_results(ds, tmp_path / "er", options=api.EvalResultsOptions(dataset_id="org/board"))
    assert r.primary_judges == {"smoke": "openai:judge-x"}
    entry = entries_of(tmp_path / "er/org/model-a/.eval_results/slmboard.yaml")["smoke"]
    assert "judge openai:judge-x" in entry.notes
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ds, capture_output=True, text=True).stdout.strip()
    assert entry.dataset_revision == head


def test_local_data_needs_a_dataset_id_and_nothing_is_written(tmp_path):
    data = write_records(tmp_path / "items.jsonl")
    out = tmp_path / "er"
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "export", "eval-results", str(data), "--out", str(out)],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 1 and "--dataset-id" in proc.stderr and not out.exists()
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "export", "eval-results", str(data), "--out", str(out),
                           "--dataset-id", "org/board", "--primary-judge", "sst=nobody"],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 1 and "nobody" in proc.stderr and not out.exists()
