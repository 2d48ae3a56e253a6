"""A failed request is a failed item on every route: HELM's `result.success: false`, then `slmboard judge` on it.

The HELM run folder is fixtures/helm_real's simple_safety_tests run (crfm-helm 0.5.16 wrote it), with two request
states turned into what HELM's executor writes for a non-fatal request failure (e.g. Gemini's content filter):
``success: false``, the client's ``error`` text, ``error_flags`` not fatal, and the one empty completion the executor
puts in its place. HELM's annotator then scores that empty string; here the annotation is the judge server's reply to
the empty answer (its rule, judge_server.judge), as the annotator would have stored it. No failing HELM client runs
offline here (the issue's run was Gemini 1.5 Pro behind Google's filter), so the failure is written in HELM's shape.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from importing_helpers import SHARED
from toolkit.cli import main
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunDir

FIXTURE = Path(__file__).parent / "fixtures" / "helm_real"
sys.path.insert(0, str(FIXTURE))
import judge_server  # noqa: E402  (the annotator's judge: what it says of an empty answer)

BLOCKED = "Content blocked: Prompt blocked with reason: 4"
JUDGE = "helm:simple_safety_tests:openai/gpt-4o-2024-05-13"


def _fail_requests(state_path: Path, which: list[int]) -> list[str]:
    """Rewrite request states ``which`` as HELM keeps a non-fatal failure; their prompts."""
    state = json.loads(state_path.read_text(encoding="utf-8"))
    prompts = []
    for i in which:
        rs = state["request_states"][i]
        rs["result"] = {"success": False, "embedding": [], "completions": [{"text": "", "logprob": 0.0, "tokens": []}],
                        "cached": False, "error": BLOCKED, "error_flags": {"is_retriable": False, "is_fatal": False}}
        reasoning, score, _ = judge_server.judge(rs["request"]["prompt"], "")
        (annotator,) = rs["annotations"]
        rs["annotations"][annotator].update(gpt_score=score, gpt_reasoning=reasoning)
        prompts.append(rs["instance"]["input"]["text"])
    state_path.write_text(json.dumps(state, indent=2), encoding="utf-8")
    return prompts


@pytest.fixture
def failed_run(tmp_path) -> tuple[Path, list[str]]:
    bench = SHARED / "benchmarks"
    if not (bench / "simple_safety_tests").is_dir():
        pytest.skip(f"benchmark mirror not found under {bench}")
    (folder,) = sorted((FIXTURE / "runs").glob("simple_safety_tests:*"))
    src = tmp_path / "runs" / folder.name
    shutil.copytree(folder, src)
    prompts = _fail_requests(src / "scenario_state.json", [0, 2])
    return src, prompts


def test_helm_failed_requests_import_as_failed_items_with_their_error(failed_run, tmp_path, capsys):
    src, prompts = failed_run
    out = tmp_path / "run"
    assert main(["import", "helm", str(src), "--helm-version", "0.5.16", "--data-dir", str(SHARED / "benchmarks"),
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "sst: 2 failed request(s)" in printed, printed
    run = RunDir(out)
    responses = {r["prompt"]: r for _, r in iter_jsonl(run.response_file("sst"))}
    for prompt in prompts:
        assert responses[prompt]["request_error"] == BLOCKED and responses[prompt]["response"] == ""
    assert sum(r["request_error"] is not None for r in responses.values()) == 2
    judged = {r["prompt"]: r for _, r in iter_jsonl(run.judgment_file(JUDGE, "sst"))}
    for prompt in prompts:  # HELM's annotator scored the empty string: imported as no verdict, with the reason
        rec = judged[prompt]
        assert rec["judge_status"] != "ok" and rec["score"] is None
        assert BLOCKED in rec["judge_reason"] and "score" in rec["judge_reason"]
    assert all(r["judge_status"] == "ok" for p, r in judged.items() if p not in prompts and r["score"] is not None)
    entry = json.loads((out / "run.json").read_text())["imports"][0]
    assert entry["counts"]["failed_requests"] == 2

    # slmboard's own judge never judges them: they stay failed items, with the error as the reason
    assert main(["judge", str(out), "--judge", "heuristic"]) == 0
    heuristic = {r["prompt"]: r for _, r in iter_jsonl(run.judgment_file("heuristic-v1", "sst"))}
    for prompt in prompts:
        assert heuristic[prompt]["judge_status"] != "ok" and BLOCKED in heuristic[prompt]["judge_reason"]
    assert all(r["judge_status"] == "ok" for p, r in heuristic.items() if p not in prompts)

    # the leaderboard counts them under failed, for both judges
    dataset = tmp_path / "dataset"
    assert main(["submit", str(out), "--to", str(dataset), "--allow-partial", "--data-dir", str(SHARED / "benchmarks"),
                 "--bootstrap", "0"]) == 0
    assert main(["rank", str(dataset), "--bootstrap", "0", "--quiet", "--out", str(tmp_path / "board")]) == 0
    import pyarrow.parquet as pq

    board = pq.read_table(tmp_path / "board" / "leaderboard.parquet").to_pandas()
    for judge in (JUDGE, "heuristic-v1"):
        (row,) = board[(board.suite == "sst") & (board.judge_id == judge)].to_dict("records")
        assert row["n_failed"] >= 2 and row["n_scored"] + row["n_failed"] == row["n_items"]


def test_an_ok_judgment_of_a_failed_request_is_invalid():
    from pydantic import ValidationError

    from schemas import ItemRecord, sha256_text

    base = dict(submission_id="s", model_id="org/m", model_revision="r", suite="sst", item_id="sst_001", category=None,
                prompt="p", prompt_sha256=sha256_text("p"), response="",
                generation={"temperature": 0, "max_new_tokens": 8, "backend": "import:helm"},
                judge_id="heuristic-v1", judge_raw=None, request_error=BLOCKED)
    ItemRecord.model_validate({**base, "judge_status": "parse_error", "score": None, "label": None})
    with pytest.raises(ValidationError, match="request failed"):
        ItemRecord.model_validate({**base, "judge_status": "ok", "score": 1.0, "label": "safe"})
