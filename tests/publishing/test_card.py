"""The dataset card: rendered by huggingface_hub.DatasetCard, Hub metadata, gating, primary judges,
generated schema tables, licences, citations, how to load; eval.yaml beside it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from huggingface_hub import DatasetCard

from schemas import ItemRecord, LeaderboardRow, ModerationRecord
from toolkit import api
from toolkit.core.errors import SlmboardError
from toolkit.outputs.publishing.card import render_card, schema_table
from slmboard_export_fixtures import two_judge_run
from slmboard_testing import new_board

REPO = Path(__file__).resolve().parents[2]


def header_of(path: Path) -> dict:
    return yaml.safe_load(path.read_text().split("---", 2)[1])


def test_card_of_a_published_folder(synthetic_run, tmp_path):
    ds = tmp_path / "ds"
    new_board(ds)
    api.submit(synthetic_run("a"), to=ds, options=api.SubmitOptions(n_bootstrap=0))
    text = render_card(ds, repo_id="org/board")
    header = yaml.safe_load(text.split("---", 2)[1])
    names = [c["config_name"] for c in header["configs"]]
    assert names[0] == "smoke" and header["configs"][0]["default"] is True
    assert {"leaderboard", "submissions"} <= set(names)
    assert header["configs"][0]["data_files"] == [{"split": "test", "path": "data/smoke/*.parquet"}]
    for model in (ItemRecord, ModerationRecord, LeaderboardRow):  # every field of every schema, generated
        for field in model.model_fields:
            assert f"| `{field}` |" in text, (model.__name__, field)
    assert schema_table(ItemRecord) in text
    assert 'load_dataset("org/board", "smoke", split="test")' in text
    for must in ("| `smoke` | toolkit/stages/suites/data/smoke.jsonl", "@inproceedings{shaik2026benchmarking",
                 "@misc{hu2026safetyflag", "| `model-a-1` |", "| `smoke` | `heuristic-v1` | the only judge of this suite |"):
        assert must in text
    assert (ds / "README.md").read_text() == render_card(ds)  # what submit wrote is the rendered card
    assert render_card(ds) == render_card(ds)  # deterministic


def test_hub_metadata_parses_back_with_huggingface_hub(synthetic_run, tmp_path):
    ds = tmp_path / "ds"
    new_board(ds)
    api.submit(synthetic_run("a"), to=ds, options=api.SubmitOptions(n_bootstrap=0))
    card = DatasetCard.load(ds / "README.md")
    data = card.data
    assert data.license == "other" and data.license_name == "slmboard-per-suite" and data.license_link == "LICENSE.md"
    assert "| `smoke` | Apache-2.0 |" in (ds / "LICENSE.md").read_text()  # the link resolves, per-suite licences
    assert data.task_categories == ["text-generation", "text-classification"]
    assert data.size_categories == ["n<1K"]  # 3 item rows
    assert data.source_datasets == ["original"]  # smoke was written for slmboard
    assert data.annotations_creators == ["machine-generated"]
    assert data.language_creators == ["found", "machine-generated"]
    assert data.pretty_name == "slmboard: SLM safety judgments"
    assert {"safety", "leaderboard", "llm-as-judge"} <= set(data.tags)
    block = data.to_dict()["slmboard"]
    assert block["gated"] is True and block["primary_judges"] == {"smoke": "heuristic-v1"}
    assert block["suites"]["smoke"]["license"] == "Apache-2.0"
    assert "harmful" in data.to_dict()["extra_gated_prompt"]
    assert any(v == "checkbox" for v in data.to_dict()["extra_gated_fields"].values())
    assert "**gated**" in card.text


def test_source_datasets_carry_revisions():
    from toolkit.outputs.publishing.card import _source_dataset, suite_sources

    sources = suite_sources(["airbench", "xstest", "nope"])
    assert _source_dataset(sources["airbench"]) == "stanford-crfm/air-bench-2024@976d9fbb0f52bce704dcbef5bd7a2652e65f2a21"
    assert "d7bb5bd738c1fcbc36edd83d5e7d1b71a3e2d84d" in _source_dataset(sources["xstest"])
    assert sources["nope"]["license"] == "unknown"


def test_primary_judge_flag_is_recorded_kept_by_recompute_and_checked(synthetic_run, tmp_path):
    ds = tmp_path / "ds"
    new_board(ds)
    api.submit(two_judge_run(synthetic_run), to=ds, options=api.SubmitOptions(n_bootstrap=0))
    # unset: both judges cover one model with no failures -> first by name
    assert header_of(ds / "README.md")["slmboard"]["primary_judges"] == {"smoke": "heuristic-v1"}
    api.recompute(ds, options=api.RecomputeOptions(n_bootstrap=0, primary_judges={"smoke": "openai:judge-x"}))
    block = header_of(ds / "README.md")["slmboard"]
    assert block["primary_judges"] == {"smoke": "openai:judge-x"}
    assert block["primary_judge_overrides"] == {"smoke": "openai:judge-x"}
    assert "maintainer" in block["primary_judge_reasons"]["smoke"]
    # a later submission without the flag keeps the maintainer's choice
    api.submit(two_judge_run(synthetic_run, "b", model_id="org/model-b", submission_id="model-b-1"), to=ds, options=api.SubmitOptions(n_bootstrap=0))
    assert header_of(ds / "README.md")["slmboard"]["primary_judges"] == {"smoke": "openai:judge-x"}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ds, capture_output=True, text=True).stdout
    with pytest.raises(SlmboardError, match="has no records"):
        api.recompute(ds, options=api.RecomputeOptions(n_bootstrap=0, primary_judges={"smoke": "typo-judge"}))
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=ds, capture_output=True, text=True).stdout == head
    assert subprocess.run(["git", "status", "--porcelain"], cwd=ds, capture_output=True, text=True).stdout == ""


def test_no_gate_is_recorded_and_kept(synthetic_run, tmp_path):
    ds = tmp_path / "ds"
    new_board(ds, gate=False)  # gating is the board's, chosen by `create --no-gate`
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "submit", str(synthetic_run("a")), "--to", str(ds),
                           "--bootstrap", "0", "--primary-judge", "smoke=heuristic-v1"],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    header = header_of(ds / "README.md")
    assert header["slmboard"]["gated"] is False and "extra_gated_prompt" not in header
    api.recompute(ds, options=api.RecomputeOptions(n_bootstrap=0))
    header = header_of(ds / "README.md")
    assert header["slmboard"]["gated"] is False and "extra_gated_fields" not in header
    assert header["slmboard"]["primary_judge_overrides"] == {"smoke": "heuristic-v1"}
    assert "without gating" in (ds / "README.md").read_text()


def test_eval_yaml_lists_one_task_per_suite(synthetic_run, tmp_path):
    ds = tmp_path / "ds"
    new_board(ds)
    api.submit(synthetic_run("a"), to=ds, options=api.SubmitOptions(n_bootstrap=0))
    doc = yaml.safe_load((ds / "eval.yaml").read_text())
    assert doc["evaluation_framework"] == "slmboard" and doc["name"] and doc["description"]
    assert doc["tasks"] == [{"id": "smoke", "config": "smoke", "split": "test"}]
    # the task's config and split are the ones the card declares
    configs = {c["config_name"]: c for c in header_of(ds / "README.md")["configs"]}
    assert configs["smoke"]["data_files"][0]["split"] == "test"
