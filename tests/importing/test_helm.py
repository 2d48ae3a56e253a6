"""`slmboard import helm` on HELM run folders.

Real HELM *safety* runs (crfm-helm 0.5.16, one ``gpt`` judge) are tested in test_helm_real.py. Here: the
real run folders HELM wrote in ../shared/interop/fixtures/helm/ (format reference: narrative_qa, hellaswag),
and a copy of one whose instances were replaced by SimpleSafetyTests prompts with a HAND-MADE
``annotations`` block in the shape of older crfm-helm 0.5.x (``gpt_*`` and ``llama_*``, ``null`` scores of
unparsed replies), which 0.5.16 cannot write (with one judge, an unparsed reply drops the whole run).
"""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from importing_helpers import SHARED, tree_digest
from toolkit.cli import main
from toolkit.stages.importing import parser_for
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunDir

REAL = SHARED / "interop" / "fixtures" / "helm"
NARRATIVE = REAL / "narrative_qa-model=openai_gpt2"
HELLASWAG = REAL / "commonsense-dataset=hellaswag,method=multiple_choice_joint,model=eleutherai_pythia-1b-v0"
GPT, LLAMA = "helm:simple_safety_tests:openai/gpt-4o-2024-05-13", "helm:simple_safety_tests:meta/llama-3.1-405b-instruct-turbo"
# (gpt_score, llama_score) per request state; None / "x" / 0.7 / a missing key must be parse_error, never 0.5.
SCORES = [(1, 1.0), (0.5, None), (0, "x"), (1.0, 0.7), (0, "missing")]


@pytest.fixture
def real_runs() -> Path:
    if not (NARRATIVE / "scenario_state.json").is_file():
        pytest.skip(f"{NARRATIVE} not found")
    return REAL


def states(folder: Path) -> list[dict]:
    return json.loads((folder / "scenario_state.json").read_text(encoding="utf-8"))["request_states"]


def test_real_run_folders_parse(real_runs):
    """narrative_qa (generation): the instance's text; hellaswag (multiple_choice_joint): HELM's request prompt, the
    question's parts, the chosen option through output_mapping and HELM's own exact_match as a judge."""
    for folder in (NARRATIVE, HELLASWAG):
        spec = json.loads((folder / "run_spec.json").read_text(encoding="utf-8"))
        parsed = parser_for("helm")([folder])
        want = [s for s in states(folder) if s["train_trial_index"] == 0]
        assert [r.response for r in parsed.rows] == [s["result"]["completions"][0]["text"] for s in want]
        assert parsed.model_id == spec["adapter_spec"]["model"]
        assert parsed.generation["max_new_tokens"] == spec["adapter_spec"]["max_tokens"]
        assert parsed.suite is None and {r.suite for r in parsed.rows} == {None}  # no safety scenario
        assert {r.origin for r in parsed.rows} == {f"{folder} (HELM scenario {spec['name'].split(':')[0]})"}
        if folder == NARRATIVE:
            assert [r.prompt for r in parsed.rows] == [s["instance"]["input"]["text"] for s in want]
            assert parsed.scales == {} and all(r.question is None for r in parsed.rows)
            continue
        assert [r.prompt for r in parsed.rows] == [s["request"]["prompt"] for s in want]
        stats = json.loads((folder / "per_instance_stats.json").read_text(encoding="utf-8"))
        exact = {}
        for entry in stats:  # HELM's exact_match per instance, read here with a plain loop
            for stat in entry["stats"]:
                if stat["name"]["name"] == "exact_match" and "perturbation" not in stat["name"]:
                    exact[entry["instance_id"]] = stat["mean"]
        assert list(parsed.scales) == ["helm:exact_match"]
        for row, state in zip(parsed.rows, want):
            options = [ref["output"]["text"] for ref in state["instance"]["references"]]
            correct = next(ref["output"]["text"] for ref in state["instance"]["references"] if "correct" in ref["tags"])
            letter = state["result"]["completions"][0]["text"].strip()  # pythia answered one bare letter each time
            assert row.question.options == tuple(options) and row.question.question == state["instance"]["input"]["text"]
            assert row.question.answer == state["output_mapping"][letter]
            assert row.judgments["helm:exact_match"] == exact[state["instance"]["id"]] == float(row.question.answer == correct)
            assert parsed.scales["helm:exact_match"](row.judgments["helm:exact_match"], None).score == exact[state["instance"]["id"]]
        assert {e for e in exact.values()} == {0.0, 1.0}  # both outcomes occur in this run


def test_folder_of_runs_of_two_models_is_refused(real_runs, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["import", "helm", str(real_runs), "--suite", "sst", "--out", str(out)]) == 1
    assert "import one model at a time" in capsys.readouterr().err and not out.exists()


def safety_copy(tmp_path: Path, benchmarks: Path) -> tuple[Path, list[str]]:
    """The real narrative_qa run folder with SST prompts as inputs and hand-made 0.5.x annotations."""
    folder = tmp_path / "benchmark_output" / "runs" / "v1" / "simple_safety_tests:model=openai_gpt2"
    shutil.copytree(NARRATIVE, folder)
    spec = json.loads((folder / "run_spec.json").read_text(encoding="utf-8"))
    spec["name"] = "simple_safety_tests:model=openai_gpt2"
    (folder / "run_spec.json").write_text(json.dumps(spec), encoding="utf-8")
    prompts = [r["prompts_final"] for r in csv.DictReader(open(benchmarks / "simple_safety_tests" / "simple_safety_tests.csv", encoding="utf-8"))]
    doc = json.loads((folder / "scenario_state.json").read_text(encoding="utf-8"))
    kept = [s for s in doc["request_states"] if s["train_trial_index"] == 0][: len(SCORES)]
    for n, (s, (gpt, llama)) in enumerate(zip(kept, SCORES)):
        s["instance"]["input"]["text"] = prompts[n]
        ann = {"prompt_text": "...", "gpt_score": gpt, "gpt_reasoning": f"gpt reasoning {n}", "llama_reasoning": f"llama reasoning {n}"}
        if llama != "missing":
            ann["llama_score"] = llama
        if llama is None:  # what crfm-helm 0.5.x writes for a reply it could not parse
            ann["llama_reasoning"], ann["llama_response_text"] = None, f"llama reasoning {n}"
        s["annotations"] = {"simple_safety_tests": ann}
    doc["request_states"] = kept
    (folder / "scenario_state.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder.parent, prompts[: len(SCORES)]


def test_annotations_become_helm_judges_scores_kept_failures_parse_errors(real_runs, benchmarks, tmp_path, capsys):
    source, prompts = safety_copy(tmp_path, benchmarks)
    out = tmp_path / "run"
    assert main(["import", "helm", str(source), "--data-dir", str(benchmarks), "--model-id", "openai/gpt2", "--out", str(out)]) == 0
    assert "unmatched 0" in capsys.readouterr().out
    for judge, idx in ((GPT, 0), (LLAMA, 1)):
        got = {r["prompt"]: r for _, r in iter_jsonl(RunDir(out).judgment_file(judge, "sst"))}
        assert len(got) == len(SCORES)
        for n, prompt in enumerate(prompts):
            value = SCORES[n][idx]
            want = float(value) if value in (0, 0.5, 1) and not isinstance(value, str) else None
            rec = got[prompt]
            assert rec["score"] == want, (judge, n, value)
            assert rec["judge_status"] == ("ok" if want is not None else "parse_error")
            assert rec["judge_raw"] == f"{'gpt' if idx == 0 else 'llama'} reasoning {n}"


@pytest.mark.parametrize("damage", ["truncate", "remove", "not_judge"])
def test_bad_helm_folders_are_refused_and_nothing_written(damage, real_runs, benchmarks, tmp_path, capsys):
    source, _ = safety_copy(tmp_path, benchmarks)
    state = next(source.glob("*/scenario_state.json"))
    if damage == "truncate":
        data = state.read_bytes()
        state.write_bytes(data[: len(data) // 2])
        message = f"{state}"
    elif damage == "remove":
        state.unlink()
        message = f"{state}: missing"
    else:
        doc = json.loads(state.read_text(encoding="utf-8"))
        doc["request_states"][0]["annotations"] = {"simple_safety_tests": {"prompt_text": "x"}}
        state.write_text(json.dumps(doc), encoding="utf-8")
        message = f"{state}:1:request_states[0].annotations.simple_safety_tests: no <judge>_score keys"
    out = tmp_path / "run"
    assert main(["import", "helm", str(source), "--data-dir", str(benchmarks), "--model-id", "openai/gpt2", "--out", str(out)]) == 1
    assert message in capsys.readouterr().err
    assert not out.exists()
    assert tree_digest(out) == tree_digest(tmp_path / "nowhere")
