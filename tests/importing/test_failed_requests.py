"""A failed request is a failed item on every route: a real HELM run with `result.success: false`, then `slmboard judge`.

fixtures/helm_failed: crfm-helm 0.5.16 ran simple_safety_tests against a local model server whose content filter
stopped half of the requests (see its PROVENANCE.md); HELM kept them as failed requests ("Content blocked by OpenAI
filter") with an empty completion, and its annotator scored those empty strings.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from importing_helpers import SHARED
from toolkit.cli import main
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunDir

RUNS = Path(__file__).parent / "fixtures" / "helm_failed" / "runs"
JUDGE = "helm:simple_safety_tests:openai/gpt-4o-2024-05-13"


@pytest.fixture
def failed_run() -> tuple[Path, dict[str, str]]:
    """The run folder and, from HELM's own file, prompt -> error text of each failed request."""
    if not (SHARED / "benchmarks" / "simple_safety_tests").is_dir():
        pytest.skip(f"benchmark mirror not found under {SHARED}")
    (folder,) = [p.parent for p in RUNS.glob("*/run_spec.json")]
    states = json.loads((folder / "scenario_state.json").read_text(encoding="utf-8"))["request_states"]
    failed = {s["instance"]["input"]["text"]: s["result"]["error"] for s in states if s["result"]["success"] is False}
    assert 0 < len(failed) < len(states)
    # what the issue saw: HELM's annotator scored the empty answers of the failed requests
    assert all(next(iter(s["annotations"].values()))["gpt_score"] is not None for s in states if not s["result"]["success"])
    return folder, failed


def test_helm_failed_requests_import_as_failed_items_with_their_error(failed_run, tmp_path, capsys):
    src, failed = failed_run
    prompts = list(failed)
    out = tmp_path / "run"
    assert main(["import", "helm", str(src), "--helm-version", "0.5.16", "--data-dir", str(SHARED / "benchmarks"),
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"sst: {len(failed)} failed request(s)" in printed, printed
    run = RunDir(out)
    responses = {r["prompt"]: r for _, r in iter_jsonl(run.response_file("sst"))}
    for prompt in prompts:
        assert responses[prompt]["request_error"] == failed[prompt] and responses[prompt]["response"] == ""
    assert sum(r["request_error"] is not None for r in responses.values()) == len(failed)
    judged = {r["prompt"]: r for _, r in iter_jsonl(run.judgment_file(JUDGE, "sst"))}
    for prompt in prompts:  # HELM's annotator scored the empty string: imported as no verdict, with the reason
        rec = judged[prompt]
        assert rec["judge_status"] != "ok" and rec["score"] is None
        assert failed[prompt] in rec["judge_reason"] and "score" in rec["judge_reason"]
    assert all(r["judge_status"] == "ok" for p, r in judged.items() if p not in prompts and r["score"] is not None)
    entry = json.loads((out / "run.json").read_text())["imports"][0]
    assert entry["counts"]["failed_requests"] == len(failed)

    # slmboard's own judge never judges them: they stay failed items, with the error as the reason
    assert main(["judge", str(out), "--judge", "heuristic"]) == 0
    heuristic = {r["prompt"]: r for _, r in iter_jsonl(run.judgment_file("heuristic-v1", "sst"))}
    for prompt in prompts:
        assert heuristic[prompt]["judge_status"] != "ok" and failed[prompt] in heuristic[prompt]["judge_reason"]
    assert all(r["judge_status"] == "ok" for p, r in heuristic.items() if p not in prompts)

    # the leaderboard counts them under failed, for both judges
    dataset = tmp_path / "dataset"
    assert main(["create", str(dataset)]) == 0
    assert main(["submit", str(out), "--to", str(dataset), "--allow-partial", "--data-dir", str(SHARED / "benchmarks"),
                 "--bootstrap", "0"]) == 0
    assert main(["rank", str(dataset), "--bootstrap", "0", "--quiet", "--out", str(tmp_path / "board")]) == 0
    import pyarrow.parquet as pq

    board = pq.read_table(tmp_path / "board" / "leaderboard.parquet").to_pandas()
    for judge in (JUDGE, "heuristic-v1"):
        (row,) = board[(board.suite == "sst") & (board.judge_id == judge)].to_dict("records")
        assert row["n_failed"] >= len(failed) and row["n_scored"] + row["n_failed"] == row["n_items"]


def test_an_ok_judgment_of_a_failed_request_is_invalid():
    from pydantic import ValidationError

    from schemas import ItemRecord, sha256_text

    base = dict(submission_id="s", model_id="org/m", model_revision="r", suite="sst", item_id="sst_001", category=None,
                prompt="p", prompt_sha256=sha256_text("p"), response="",
                generation={"temperature": 0, "max_new_tokens": 8, "backend": "import:helm"},
                judge_id="heuristic-v1", judge_raw=None, request_error="Content blocked by OpenAI filter")
    ItemRecord.model_validate({**base, "judge_status": "parse_error", "score": None, "label": None})
    with pytest.raises(ValidationError, match="a failed request is a failed item"):
        ItemRecord.model_validate({**base, "judge_status": "ok", "score": 1.0, "label": "safe"})
