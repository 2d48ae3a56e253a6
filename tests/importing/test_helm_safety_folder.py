"""A whole HELM Safety runs folder of one model, as HELM's main branch wrote it in August 2024
(tests/importing/fixtures/helm_2024: harm_bench, simple_safety_tests, bbq, anthropic_red_team; every safety
annotation has ``claude_score`` and ``gpt_score``, a key no release's table knows), imported in one command.

Expected scores are fixtures/helm_real/judge_server.py's rule applied here to each request prompt and completion
(the same server answered both of HELM's judges, each by its own rule), not read from the importer.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from importing_helpers import FIXTURES, tree_digest
from toolkit.cli import main
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunDir

RUNS = FIXTURES / "helm_2024" / "runs"
sys.path.insert(0, str(FIXTURES / "helm_real"))
import judge_server  # noqa: E402  (the judges' rule, to compute the expected scores)

CLAUDE = "anthropic/claude-3-5-sonnet-20240620"  # what that HELM's annotators asked (harm_bench_annotator.py)
GPT = "openai/gpt-4o-2024-05-13"
SUITE_OF = {"harm_bench": "harmbench", "simple_safety_tests": "sst", "bbq": "bbq"}  # anthropic_red_team: none
ONE_COMMAND = ["--skip-unmatched", "--judge-model", f"claude={CLAUDE}"]


def folder_of(scenario: str) -> Path:
    (folder,) = [p.parent for p in RUNS.glob(f"{scenario}:*/run_spec.json")]
    return folder


def states(folder: Path) -> list[dict]:
    return json.loads((folder / "scenario_state.json").read_text(encoding="utf-8"))["request_states"]


def expected_scores() -> dict[tuple[str, str], dict[str, float | None]]:
    """(judge id, suite) -> prompt -> score, from the judge server's rule per HELM judge."""
    out: dict[tuple[str, str], dict[str, float | None]] = {}
    for scenario in ("harm_bench", "simple_safety_tests"):
        for state in states(folder_of(scenario)):
            answer = state["result"]["completions"][0]["text"]
            for key, model in (("claude", CLAUDE), ("gpt", GPT)):
                _, score, _ = judge_server.judge(state["request"]["prompt"], answer, model.split("/")[1], json_reply=True)
                out.setdefault((f"helm:{scenario}:{model}", SUITE_OF[scenario]), {})[state["instance"]["input"]["text"]] = score
    return out


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, str]:
    from importing_helpers import SHARED

    bench = SHARED / "benchmarks"
    if not (bench / "harmbench").is_dir():
        pytest.skip(f"benchmark mirror not found under {bench}")
    out = tmp_path_factory.mktemp("helm2024") / "run"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["import", "helm", str(RUNS), *ONE_COMMAND, "--data-dir", str(bench), "--out", str(out)])
    assert code == 0
    return out, buf.getvalue()


def test_fixture_is_a_helm_safety_folder_with_keys_no_release_wrote():
    scenarios = {p.parent.name.split(":")[0] for p in RUNS.glob("*/run_spec.json")}
    assert scenarios == {"harm_bench", "simple_safety_tests", "bbq", "anthropic_red_team"}
    models = {json.loads((p.parent / "run_spec.json").read_text())["adapter_spec"]["model"] for p in RUNS.glob("*/run_spec.json")}
    assert len(models) == 1
    for scenario in ("harm_bench", "simple_safety_tests", "anthropic_red_team"):
        for state in states(folder_of(scenario)):
            (annotation,) = state["annotations"].values()
            assert {"claude_score", "claude_reasoning", "gpt_score", "gpt_reasoning"} <= set(annotation)
    scores = expected_scores()
    # the two judges differ somewhere, so a key mapped to the wrong model cannot pass
    assert any(scores[(f"helm:{s}:{CLAUDE}", SUITE_OF[s])] != scores[(f"helm:{s}:{GPT}", SUITE_OF[s])]
               for s in ("harm_bench", "simple_safety_tests"))


def test_the_folder_imports_in_one_command_and_validates(imported):
    """The issue's "done when": --skip-unmatched and --judge-model, one command, and the run validates."""
    run, printed = imported
    red_team = folder_of("anthropic_red_team")
    n_red = len(states(red_team))
    assert f"skipped {red_team} (HELM scenario anthropic_red_team): {n_red} row(s)" in printed
    assert main(["validate", str(run)]) == 0
    config = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert sorted(config["suites"]) == ["bbq", "harmbench", "sst"]
    (entry,) = config["imports"]
    assert entry["options"]["judge_models"] == [f"claude={CLAUDE}"] and entry["options"]["skip_unmatched"] is True
    assert entry["skipped"] == [{"origin": f"{red_team} (HELM scenario anthropic_red_team)", "rows": n_red,
                                 "why": "says no suite slmboard has"}]
    # items the source lacks: only for the suites it has (no xstest, no red team)
    assert sorted(entry["missing_items"]) == ["bbq", "harmbench", "sst"]
    assert not any("anthropic_red_team" in j for j in entry["judges"])


def test_each_judge_key_is_its_model_with_the_servers_scores(imported):
    run, _ = imported
    entry = json.loads((run / "run.json").read_text(encoding="utf-8"))["imports"][0]
    want = expected_scores()
    judges = {j: info for j, info in entry["judges"].items() if j != "helm:exact_match"}
    assert sorted(judges) == sorted(j for j, _ in want)
    for (judge, suite), scores in want.items():
        info = judges[judge]
        assert info["suites"] == [suite]
        assert info["judge_key"] == ("claude" if CLAUDE in judge else "gpt")
        assert info["judge_model_from"] == ("judge_models option" if CLAUDE in judge else
                                            "slmboard's table of HELM 0.5 judge models (HELM records only the key)")
        got = {r["prompt"]: r for _, r in iter_jsonl(RunDir(run).judgment_file(judge, suite))}
        assert {p: r["score"] for p, r in got.items()} == scores, judge
        assert all(r["judge_status"] == ("ok" if r["score"] is not None else "parse_error") for r in got.values())
    assert entry["judges"]["helm:exact_match"]["suites"] == ["bbq"]


def test_an_unknown_judge_key_is_refused_naming_the_key_and_the_flag(benchmarks, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["import", "helm", str(RUNS), "--skip-unmatched", "--data-dir", str(benchmarks), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    state = folder_of("anthropic_red_team") / "scenario_state.json"  # the first folder in order
    assert f"{state}:1:request_states[0].annotations.anthropic_red_team.claude_score: judge key 'claude' is not in" in err
    assert "name it with judge_models 'claude=ORG/MODEL' (judge_models is --judge-model on the command line)" in err
    assert "unknown-model" not in err and not out.exists()


def test_a_folder_of_no_suite_is_refused_without_skip_unmatched(benchmarks, tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["import", "helm", str(RUNS), "--judge-model", f"claude={CLAUDE}", "--data-dir", str(benchmarks), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists()
    assert f"{folder_of('anthropic_red_team')} (HELM scenario anthropic_red_team): 4 row(s)" in err
    assert "pass --skip-unmatched to leave them out, or pass --suites NAME if they are one" in err


def test_judge_model_overrides_the_table_and_an_unused_key_is_refused(benchmarks, tmp_path, capsys):
    source = folder_of("simple_safety_tests")
    out = tmp_path / "run"
    assert main(["import", "helm", str(source), "--judge-model", f"claude={CLAUDE}", "--judge-model", "gpt=openai/gpt-4o-mini",
                 "--data-dir", str(benchmarks), "--out", str(out)]) == 0
    judges = json.loads((out / "run.json").read_text(encoding="utf-8"))["imports"][0]["judges"]
    assert sorted(judges) == [f"helm:simple_safety_tests:{CLAUDE}", "helm:simple_safety_tests:openai/gpt-4o-mini"]
    assert {info["judge_model_from"] for info in judges.values()} == {"judge_models option"}
    capsys.readouterr()
    for bad, message in ((["--judge-model", "llama=meta/llama-3"], "judge_models names key(s) 'llama', which no annotation"),
                         (["--judge-model", "claude"], "judge_models 'claude': expected KEY=MODEL")):
        assert main(["import", "helm", str(source), "--judge-model", f"claude={CLAUDE}", *bad, "--data-dir", str(benchmarks),
                     "--out", str(tmp_path / "bad")]) == 1
        err = capsys.readouterr().err
        assert message in err and "(judge_models is --judge-model on the command line)" in err
        assert not (tmp_path / "bad").exists()


def test_suite_applies_only_to_parts_that_say_none_and_no_judge_goes_without_suites(benchmarks, tmp_path, capsys):
    # --suite files the red-team folder under harmbench: its prompts are no harmbench items, so they are refused ...
    out = tmp_path / "run"
    assert main(["import", "helm", str(RUNS), "--suite", "harmbench", "--judge-model", f"claude={CLAUDE}",
                 "--data-dir", str(benchmarks), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "4 source row(s) match no suite item" in err and "prompt is not a harmbench item" in err and not out.exists()
    # ... and, skipped as unmatched, leave no judge behind: the red-team annotators judged nothing that was imported
    assert main(["import", "helm", str(RUNS), "--suite", "harmbench", *ONE_COMMAND, "--data-dir", str(benchmarks),
                 "--out", str(out)]) == 0
    entry = json.loads((out / "run.json").read_text(encoding="utf-8"))["imports"][0]
    assert entry["judges"] and all(info["suites"] for info in entry["judges"].values())
    assert not any("anthropic_red_team" in j for j in entry["judges"])
    assert sorted(entry["missing_items"]) == ["bbq", "harmbench", "sst"]
    # a source that says its suite is never filed under another
    before = tree_digest(tmp_path / "other")
    assert main(["import", "helm", str(folder_of("harm_bench")), "--suite", "sst", *ONE_COMMAND, "--data-dir", str(benchmarks),
                 "--out", str(tmp_path / "other")]) == 1
    err = capsys.readouterr().err
    assert "suite 'sst' applies to sources that do not say their suite; this helm source says harmbench" in err
    assert "(suite is --suites on the command line)" in err and tree_digest(tmp_path / "other") == before


def reworded_copy(tmp_path: Path) -> tuple[Path, dict]:
    """A copy of a real HELM harm_bench run folder (crfm-helm 0.5.16, fixtures/helm_real) whose first instance is
    worded otherwise, as HELM's pre-release HarmBench wording was (not reproducible offline: HELM reads the same
    CSV the suite does, see the fixtures' PROVENANCE.md). Its id is still the suite's BehaviorID."""
    (folder,) = [p.parent for p in (FIXTURES / "helm_real" / "runs").glob("harm_bench:*/run_spec.json")]
    target = tmp_path / "runs" / folder.name
    shutil.copytree(folder, target)
    path = target / "scenario_state.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    first = doc["request_states"][0]
    first["instance"]["input"]["text"] = "Context: " + first["instance"]["input"]["text"]
    path.write_text(json.dumps(doc), encoding="utf-8")
    return target, first


def test_a_reworded_row_whose_id_matches_names_the_way_out(benchmarks, tmp_path, capsys):
    source, first = reworded_copy(tmp_path)
    behavior = first["instance"]["id"]
    out = tmp_path / "run"
    assert main(["import", "helm", str(source), "--data-dir", str(benchmarks), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"scenario_state.json:1 (id {behavior}): " in err
    assert f"prompt is not a harmbench item; its id {behavior!r} is one but the wording differs" in err
    assert "keep the source wording with accept_reworded, or match every row by id with id_map" in err
    assert "(pass --skip-unmatched to leave them out)" in err
    assert "(accept_reworded is --accept-reworded, id_map is --id-map on the command line)" in err
    assert not out.exists()
    # the printed report of --skip-unmatched names the flag too
    assert main(["import", "helm", str(source), "--skip-unmatched", "--data-dir", str(benchmarks), "--out", str(out)]) == 0
    assert "but the wording differs (--accept-reworded keeps it)" in capsys.readouterr().out
    shutil.rmtree(out)
    # and --accept-reworded imports it under the suite's prompt, the source wording kept beside it
    assert main(["import", "helm", str(source), "--accept-reworded", "--data-dir", str(benchmarks), "--out", str(out)]) == 0
    assert "reworded 1" in capsys.readouterr().out
    rec = next(r for _, r in iter_jsonl(RunDir(out).response_file("harmbench")) if r["item_id"] == behavior)
    assert json.loads(rec["item_metadata"])["source_prompt"] == first["instance"]["input"]["text"] != rec["prompt"]
    assert rec["response"] == first["result"]["completions"][0]["text"]
