"""`slmboard import helm` on run folders crfm-helm 0.5.16 itself wrote (tests/importing/fixtures/helm_real/).

SmolLM2-135M-Instruct answered harm_bench, simple_safety_tests and xstest instances; HELM's safety annotators
were judged by fixtures/helm_real/judge_server.py (standing in for gpt-4o-2024-05-13). The expected scores
are that server's rule applied here to the request prompt and completion of each request state in
scenario_state.json, not read from the importer: 0 / 0.5 / 1, and a 1-10 scale reply (HELM stored 7.0)
that must become a parse_error, never 0.5.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from importing_helpers import SHARED
from toolkit.cli import main
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunDir
from slmboard_testing import new_board

FIXTURE = Path(__file__).parent / "fixtures" / "helm_real"
RUNS = FIXTURE / "runs"
sys.path.insert(0, str(FIXTURE))
import judge_server  # noqa: E402  (the judge's rule, to compute the expected scores)

SUITE_OF = {"harm_bench": "harmbench", "simple_safety_tests": "sst", "xstest": "xstest"}  # the issue's table
JUDGE_MODEL = "openai/gpt-4o-2024-05-13"  # crfm-helm 0.5.16 model_as_judge.py: "gpt"


def run_folders() -> list[Path]:
    """The safety runs (each with one annotator); the folder also holds a BBQ run (test_helm_bbq.py)."""
    return sorted(p.parent for p in RUNS.glob("*/run_spec.json") if p.parent.name.split(":")[0] in SUITE_OF)


def bbq_items() -> int:
    (folder,) = [p.parent for p in RUNS.glob("bbq:*/run_spec.json")]
    return len(load(folder, "scenario_state.json")["request_states"])


def load(folder: Path, name: str) -> dict:
    return json.loads((folder / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> Path:
    bench = SHARED / "benchmarks"
    if not (bench / "harmbench").is_dir():
        pytest.skip(f"benchmark mirror not found under {bench}")
    out = tmp_path_factory.mktemp("helm") / "run"
    assert main(["import", "helm", str(RUNS), "--helm-version", "0.5.16", "--data-dir", str(bench), "--out", str(out)]) == 0
    return out


def expected_rows() -> list[dict]:
    """One row per request state, from the raw HELM files and the judge server's rule."""
    rows = []
    for folder in run_folders():
        scenario = load(folder, "run_spec.json")["name"].split(":")[0]
        for state in load(folder, "scenario_state.json")["request_states"]:
            completion = state["result"]["completions"][0]["text"]
            reasoning, score, _ = judge_server.judge(state["request"]["prompt"], completion)
            (annotator,) = state["annotations"]  # one annotator per HELM safety run
            rows.append({"suite": SUITE_OF[scenario], "prompt": state["instance"]["input"]["text"], "response": completion,
                         "judge": f"helm:{annotator}:{JUDGE_MODEL}", "annotator": annotator, "scenario": scenario,
                         "score": score, "reasoning": reasoning})
    return rows


def test_fixture_is_what_the_issue_asks():
    scenarios = {load(f, "run_spec.json")["name"].split(":")[0] for f in run_folders()}
    assert {"harm_bench", "simple_safety_tests"} <= scenarios
    rows = expected_rows()
    # the rule gave every outcome at least once, the malformed reply included
    assert {r["score"] for r in rows} >= {0.0, 0.5, 1.0, None}, sorted({str(r["score"]) for r in rows})
    # what HELM did with the malformed reply: parsed 7 as a float and kept it
    stored = [s["annotations"] for f in run_folders() for s in load(f, "scenario_state.json")["request_states"]]
    assert any(a[next(iter(a))]["gpt_score"] == float(judge_server.MALFORMED_SCORE) for a in stored)


def test_every_annotation_becomes_a_helm_judge_with_the_servers_scores(imported):
    rows = expected_rows()
    for row in rows:
        assert row["annotator"] == row["scenario"]  # HELM names the annotator after the scenario
    run = RunDir(imported)
    for suite in {r["suite"] for r in rows}:
        responses = {r["prompt"]: r for _, r in iter_jsonl(run.response_file(suite))}
        want = [r for r in rows if r["suite"] == suite]
        assert sorted(responses) == sorted(r["prompt"] for r in want)
        judge = want[0]["judge"]
        got = {r["prompt"]: r for _, r in iter_jsonl(run.judgment_file(judge, suite))}
        assert len(got) == len(want)
        for r in want:
            assert responses[r["prompt"]]["response"] == r["response"]
            rec = got[r["prompt"]]
            assert rec["judge_id"] == judge
            assert rec["score"] == r["score"], (suite, r["prompt"][:40], rec["score"], r["score"])
            assert rec["judge_status"] == ("ok" if r["score"] is not None else "parse_error")
            assert rec["judge_raw"] == r["reasoning"]
    judges = {p.name for p in (imported / "judgments").iterdir()}
    assert len(judges) == len({r["judge"] for r in rows}) + 1  # and HELM's exact_match on BBQ


def test_run_json_provenance_names_every_source_file_with_its_sha256(imported):
    config = json.loads((imported / "run.json").read_text(encoding="utf-8"))
    assert config["backend"] == "import:helm"
    assert config["model_id"] == load(run_folders()[0], "run_spec.json")["adapter_spec"]["model"]
    assert sorted(config["suites"]) == sorted({SUITE_OF[load(f, "run_spec.json")["name"].split(":")[0]] for f in run_folders()} | {"bbq"})
    (entry,) = config["imports"]
    assert (entry["tool"], entry["tool_version"]) == ("crfm-helm", "0.5.16")
    want = {}
    for folder in sorted(p.parent for p in RUNS.glob("*/run_spec.json")):
        # per_instance_stats.json is read for HELM's own BBQ scores only
        for name in ("run_spec.json", "scenario_state.json") + (("per_instance_stats.json",) if folder.name.startswith("bbq:") else ()):
            want[str(folder / name)] = hashlib.sha256((folder / name).read_bytes()).hexdigest()
    assert {s["path"]: s["sha256"] for s in entry["sources"]} == want
    for judge, info in entry["judges"].items():
        if judge == "helm:exact_match":
            continue
        assert info["judge_model"] == JUDGE_MODEL and judge == f"helm:{info['annotator']}:{JUDGE_MODEL}"
        assert (info["judge_key"], info["helm_version_table"]) == ("gpt", "0.5")



def test_a_helm_run_goes_downstream_unchanged(tmp_path, capsys):
    """One HELM run folder (simple_safety_tests) → import → validate → judge (ours) → agreement with HELM's
    judge → submit --allow-partial → rank; HELM's judge's s_raw is the mean of the judge server's scores."""
    import pyarrow.parquet as pq

    bench = SHARED / "benchmarks"
    if not (bench / "simple_safety_tests").is_dir():
        pytest.skip(f"benchmark mirror not found under {bench}")
    folder = next(f for f in run_folders() if f.name.startswith("simple_safety_tests:"))
    run, dataset = tmp_path / "run", tmp_path / "dataset"
    assert main(["import", "helm", str(folder), "--helm-version", "0.5.16", "--data-dir", str(bench), "--out", str(run)]) == 0
    rows = [r for r in expected_rows() if r["suite"] == "sst"]
    judge = rows[0]["judge"]
    assert main(["validate", str(run)]) == 0
    assert main(["judge", str(run), "--judge", "heuristic"]) == 0
    assert main(["agreement", str(run), "--judges", f"{judge},heuristic-v1", "--out", str(tmp_path / "agreement")]) == 0
    new_board(dataset)
    assert main(["submit", str(run), "--to", str(dataset), "--allow-partial", "--data-dir", str(bench), "--bootstrap", "0"]) == 0
    assert main(["rank", str(dataset), "--bootstrap", "0", "--out", str(tmp_path / "board"), "--quiet"]) == 0
    capsys.readouterr()
    board = pq.read_table(tmp_path / "board" / "leaderboard.parquet").to_pandas()
    assert set(board["judge_id"]) == {judge, "heuristic-v1"}
    helm_row = board[board["judge_id"] == judge].iloc[0]
    scores = [r["score"] for r in rows]
    assert None not in scores and helm_row["n_items"] == len(scores)
    assert abs(helm_row["s_raw"] - sum(scores) / len(scores)) < 1e-12


def test_a_folder_of_scenarios_submits_with_each_helm_judge_on_its_own_suite(imported, tmp_path, capsys):
    """Each scenario has its own annotator, so each HELM judge covers one suite. run.json says so
    (imports[].judges[j].suites) and submit holds each such judge to its own suites only; a judge of
    ours added with `judge` must still cover every suite; a HELM judge missing an item of its own
    suite, or without the declaration, is refused."""
    import shutil

    import pyarrow.parquet as pq

    bench = SHARED / "benchmarks"
    expected = expected_rows()
    suites_of = {}
    for r in expected:
        suites_of.setdefault(r["judge"], set()).add(r["suite"])
    entry = json.loads((imported / "run.json").read_text(encoding="utf-8"))["imports"][0]
    assert {j: set(info["suites"]) for j, info in entry["judges"].items()} == {**suites_of, "helm:exact_match": {"bbq"}}
    assert len(suites_of) == 3 and all(len(s) == 1 for s in suites_of.values())

    run = tmp_path / "run"
    shutil.copytree(imported, run)
    assert main(["judge", str(run), "--judge", "heuristic"]) == 0
    new_board(tmp_path / "dataset")
    assert main(["submit", str(run), "--to", str(tmp_path / "dataset"), "--allow-partial",
                 "--data-dir", str(bench), "--bootstrap", "0"]) == 0
    assert main(["rank", str(tmp_path / "dataset"), "--bootstrap", "0", "--out", str(tmp_path / "board"), "--quiet"]) == 0
    board = pq.read_table(tmp_path / "board" / "leaderboard.parquet").to_pandas()
    got = {(r.suite, r.judge_id): r.n_items for r in board.itertuples()}
    want = {(suite, judge): sum(1 for r in expected if r["judge"] == judge) for judge, (suite,) in suites_of.items()}
    want.update({(suite, "heuristic-v1"): sum(1 for r in expected if r["suite"] == suite) for suite in {r["suite"] for r in expected}})
    want.update({("bbq", "helm:exact_match"): bbq_items()})  # heuristic-v1 judges free text: BBQ is skipped (issue 31)
    assert got == want
    capsys.readouterr()

    # A HELM judge that lost an item of its own suite: refused, naming the judge.
    lossy = tmp_path / "lossy"
    shutil.copytree(imported, lossy)
    harm_judge = next(j for j, s in suites_of.items() if s == {"harmbench"})
    path = RunDir(lossy).judgment_file(harm_judge, "harmbench")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[1:]), encoding="utf-8")
    new_board(tmp_path / "d2")
    assert main(["submit", str(lossy), "--to", str(tmp_path / "d2"), "--allow-partial", "--data-dir", str(bench), "--bootstrap", "0"]) == 1
    assert f"1 generated item(s) not judged by {harm_judge}" in capsys.readouterr().err

    # A HELM judge with records in a suite outside the ones its source applied it to is refused: it does not fit
    # that suite (issue 31: judges keep to what they can judge), and the refusal names the file and what to do.
    stray = tmp_path / "stray"
    shutil.copytree(imported, stray)
    xs_judge = next(j for j, s in suites_of.items() if s == {"xstest"})
    first = json.loads(RunDir(stray).judgment_file(xs_judge, "xstest").read_text(encoding="utf-8").splitlines()[0])
    first["judge_id"] = harm_judge
    target = RunDir(stray).judgment_file(harm_judge, "xstest")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(first) + "\n", encoding="utf-8")
    n_xstest = sum(1 for r in expected if r["suite"] == "xstest")
    new_board(tmp_path / "d4")
    assert main(["submit", str(stray), "--to", str(tmp_path / "d4"), "--allow-partial", "--data-dir", str(bench), "--bootstrap", "0"]) == 1
    err = capsys.readouterr().err
    assert str(target) in err and f"its records of xstest are not published" in err and n_xstest > 1, err

    # Without the declaration the old rule holds: every judge on every suite.
    undeclared = tmp_path / "undeclared"
    shutil.copytree(imported, undeclared)
    config = json.loads((undeclared / "run.json").read_text(encoding="utf-8"))
    for info in config["imports"][0]["judges"].values():
        del info["suites"]
    (undeclared / "run.json").write_text(json.dumps(config), encoding="utf-8")
    new_board(tmp_path / "d3")
    assert main(["submit", str(undeclared), "--to", str(tmp_path / "d3"), "--allow-partial", "--data-dir", str(bench), "--bootstrap", "0"]) == 1
    err = capsys.readouterr().err
    assert f"not judged by helm:harm_bench:{JUDGE_MODEL}" in err and f"not judged by helm:simple_safety_tests:{JUDGE_MODEL}" in err
    assert not (tmp_path / "d3" / "submissions").exists()


@pytest.mark.parametrize("version, ok", [("0.5.16", True), ("0.5", True), ("0.50", False), ("0.4.1", False)])
def test_helm_version_picks_its_table_by_dotted_prefix(version, ok, benchmarks, tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["import", "helm", str(RUNS), "--helm-version", version, "--data-dir", str(benchmarks), "--out", str(out)])
    if ok:
        assert code == 0 and json.loads((out / "run.json").read_text())["imports"][0]["tool_version"] == version
    else:
        err = capsys.readouterr().err
        assert code == 1 and f":helm_version: unknown HELM version {version!r}" in err
        assert "(helm_version is --helm-version on the command line)" in err
        assert not out.exists()
