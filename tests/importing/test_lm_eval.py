"""`slmboard import lm-eval` on files lm-evaluation-harness wrote with slmboard's shipped tasks (SmolLM2 on XSTest /
SST / BBQ); the shipped tasks themselves, a live run and a mixed run's publishing: test_lm_eval_tasks.py."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from importing_helpers import FIXTURES
from toolkit.cli import main
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunDir

LM_EVAL_RUN = FIXTURES / "lm_eval" / "run"
MODEL = ["--model-id", "HuggingFaceTB/SmolLM2-135M-Instruct", "--model-revision", "gguf-q4_1-sha256:b179c9523d0e6a0f"]


def samples(folder: Path, task: str) -> list[dict]:
    path = next(folder.rglob(f"samples_{task}_*.jsonl"))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def rows(run: Path, suite: str, judge: str | None = None) -> list[dict]:
    path = RunDir(run).judgment_file(judge, suite) if judge else RunDir(run).response_file(suite)
    return [r for _, r in iter_jsonl(path)]


@pytest.fixture
def lm_eval_run() -> Path:
    if not any(LM_EVAL_RUN.rglob("results_*.json")):
        pytest.skip("lm-eval fixture missing; regenerate with tests/importing/fixtures/lm_eval/regenerate.py")
    return LM_EVAL_RUN


def test_generative_tasks_become_responses_matched_on_the_doc(lm_eval_run, benchmarks, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["import", "lm-eval", str(lm_eval_run), *MODEL, "--data-dir", str(benchmarks), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "unmatched 0" in text
    import csv

    mirror = {"xstest": {f"xstest_{r['id']}": r for r in csv.DictReader(open(benchmarks / "xstest" / "xstest_prompts.csv", encoding="utf-8"))},
              "sst": {r["id"]: r for r in csv.DictReader(open(benchmarks / "simple_safety_tests" / "simple_safety_tests.csv", encoding="utf-8"))}}
    results = json.loads(next(lm_eval_run.rglob("results_*.json")).read_text(encoding="utf-8"))
    for suite, task, prompt_column in (("xstest", "slmboard_xstest", "prompt"), ("sst", "slmboard_sst", "prompts_final")):
        got = {r["item_id"]: r for r in rows(out, suite)}
        want = samples(lm_eval_run, task)
        assert len(got) == len(want) > 0
        for s in want:
            rec = got[s["doc"]["id"]]
            assert rec["prompt"] == s["doc"]["prompt"] == mirror[suite][rec["item_id"]][prompt_column]  # the item lm-eval sent
            assert rec["response"] == s["filtered_resps"][0]
            assert json.loads(rec["item_metadata"])["lm_eval_prompt_hash"] == s["prompt_hash"]
            # the chat template lm-eval applied, as slmboard's own runner records it
            assert rec["generation"]["chat_template_sha256"] == results["chat_template_sha"] is not None
            if suite == "xstest":
                assert rec["gold"] == mirror["xstest"][rec["item_id"]]["label"]
    config = json.loads((out / "run.json").read_text())
    assert config["backend"] == "import:lm-eval" and config["imports"][0]["tool"] == "lm-evaluation-harness"
    assert config["generation"]["max_new_tokens"] == samples(lm_eval_run, "slmboard_xstest")[0]["arguments"]["gen_args_0"]["arg_1"]["max_gen_toks"]


def test_bbq_multiple_choice_keeps_choice_correct_and_lm_evals_accuracy(lm_eval_run, benchmarks, tmp_path):
    out = tmp_path / "run"
    assert main(["import", "lm-eval", str(lm_eval_run), *MODEL, "--data-dir", str(benchmarks), "--out", str(out)]) == 0
    records = {r["item_id"]: r for r in rows(out, "bbq", "lm-eval:acc")}
    assert not RunDir(out).judgment_file("lm-eval:acc", "xstest").exists()  # a judge only where the source has it
    want = samples(lm_eval_run, "slmboard_bbq")
    assert len(records) == len(want) > 0
    labels = {f"Age:{d['example_id']}": d["label"] for d in map(json.loads, (benchmarks / "bbq" / "data" / "Age.jsonl").open(encoding="utf-8"))}
    for s in want:
        rec = records[s["doc"]["id"]]
        logliks = [float(r[0]) for r in s["filtered_resps"]]  # lm-eval writes them as text
        best = "ABC"[logliks.index(max(logliks))]
        gold = "ABC"[labels[rec["item_id"]]]  # BBQ's own label, from the mirrored file
        assert s["target"] == str(labels[rec["item_id"]])  # what lm-eval scored against
        assert rec["choice"] == rec["response"] == best
        assert rec["gold_choice"] == gold and rec["correct"] == (best == gold)
        assert rec["score"] == s["acc"] == (1.0 if best == gold else 0.0)  # lm-eval's own accuracy agrees
        assert json.loads(rec["item_metadata"])["option_logprobs"]["A"] == round(logliks[0], 6)


OUTPUT_FILE_RUN = FIXTURES / "lm_eval" / "output_file"  # lm_eval --output_path smol.json: smol_<date>.json


def test_the_layout_of_output_path_name_json_imports(benchmarks, tmp_path, capsys):
    (results,) = OUTPUT_FILE_RUN.glob("smol_*.json")
    out = tmp_path / "run"
    assert main(["import", "lm-eval", str(OUTPUT_FILE_RUN), *MODEL, "--data-dir", str(benchmarks), "--out", str(out),
                 "--skip-unmatched"]) == 0
    capsys.readouterr()
    config = json.loads((out / "run.json").read_text())
    assert sorted(config["suites"]) == ["bbq", "sst"]
    assert [s["path"] for s in config["imports"][0]["sources"]][0] == str(results)
    for suite, task in (("sst", "slmboard_sst"), ("bbq", "slmboard_bbq")):
        assert len(rows(out, suite)) == len(samples(OUTPUT_FILE_RUN, task))
    assert config["suite_generation"]["sst"]["max_new_tokens"] == 8  # --gen_kwargs max_gen_toks=8 of that run


@pytest.fixture
def two_runs(lm_eval_run, tmp_path) -> Path:
    """One folder holding both runs: the default layout's (2026-12-03) and the --output_path NAME.json one (2026-12-06)."""
    folder = tmp_path / "lm-eval-out"
    folder.mkdir()
    for path in [*next(lm_eval_run.iterdir()).iterdir(), *OUTPUT_FILE_RUN.iterdir()]:
        (folder / path.name).write_bytes(path.read_bytes())
    return folder


def test_of_several_runs_the_newest_is_imported_and_said(two_runs, benchmarks, tmp_path, capsys):
    (newest,) = two_runs.glob("smol_*.json")
    out = tmp_path / "run"
    assert main(["import", "lm-eval", str(two_runs), *MODEL, "--data-dir", str(benchmarks), "--out", str(out),
                 "--skip-unmatched"]) == 0
    assert f"2 lm-eval results files under {two_runs}; importing the newest, {newest}" in capsys.readouterr().out
    assert sorted(json.loads((out / "run.json").read_text())["suites"]) == ["bbq", "sst"]  # not the older run's xstest


def test_a_named_results_file_picks_that_run(two_runs, benchmarks, tmp_path, capsys):
    (older,) = two_runs.glob("results_*.json")
    out = tmp_path / "run"
    assert main(["import", "lm-eval", str(older), *MODEL, "--data-dir", str(benchmarks), "--out", str(out),
                 "--skip-unmatched"]) == 0
    assert "importing the newest" not in capsys.readouterr().out
    config = json.loads((out / "run.json").read_text())
    assert sorted(config["suites"]) == ["bbq", "sst", "xstest"]
    assert all(s["path"].startswith(str(two_runs)) and "2026-12-03" in s["path"] for s in config["imports"][0]["sources"])
