"""Judges keep to what they can judge (issue 31): a run with BBQ and a free-text suite, answered by a real model,
judged with --judge heuristic has no heuristic BBQ records and says so; submit records each judge's kinds and
refuses records of a judge on a suite it cannot judge."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from slmboard_suite_fixtures import write_bbq
from toolkit import api
from toolkit.core.errors import ValidationFailed
from toolkit.stages.judging.components import JUDGES
from toolkit.stages.suites import SUITES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bbq_and_smoke_run(tmp_path_factory):
    """smoke (free text, gold labels) and BBQ (multiple choice) answered by the embedded SmolLM2."""
    from toolkit.stages.generation import make_backend
    from toolkit.stages.generation.components import GenerationRunOptions

    root = tmp_path_factory.mktemp("fit")
    write_bbq(root / "data", None, per_category=1)
    run = root / "run"
    api.generate(run, model=make_backend("hf", {}, GenerationRunOptions(batch_size=4)),
                 options=api.GenerationRunOptions(suites=["smoke", "bbq"], data_dir=root / "data", limit=3, max_new_tokens=4),
                 services=api.Services(progress=False))
    return run


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolkit.cli", *args], capture_output=True, text=True, cwd=ROOT)


def copy_run(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_every_suite_and_judge_declares_its_kinds():
    assert {name: SUITES.get(name).extra["kind"] for name in ("smoke", "sst", "xstest", "bbq")} == {
        "smoke": "free-text-gold", "sst": "free-text", "xstest": "free-text-gold", "bbq": "multiple-choice"}
    assert JUDGES.get("bbq").extra["fits"] == ("multiple-choice",)
    from toolkit.stages.judging.heuristic import HeuristicJudge
    from toolkit.stages.judging.multiple_choice import MultipleChoiceJudge

    # the class (the judge's contract) and its registry entry say the same
    assert HeuristicJudge.fits == JUDGES.get("heuristic").extra["fits"] == ("free-text", "free-text-gold")
    assert MultipleChoiceJudge.fits == JUDGES.get("bbq").extra["fits"]


def test_heuristic_skips_bbq_and_says_so(bbq_and_smoke_run, tmp_path):
    run = copy_run(bbq_and_smoke_run, tmp_path / "run")
    proc = cli("judge", str(run), "--judge", "heuristic")
    assert proc.returncode == 0, proc.stderr
    assert "bbq: skipped — heuristic-v1 judges free-text answers; use --judge bbq" in proc.stdout.splitlines()
    assert not (run / "judgments" / "heuristic-v1" / "bbq.jsonl").exists()  # nothing written for it
    assert (run / "judgments" / "heuristic-v1" / "smoke.jsonl").is_file()
    assert json.loads((run / "judgments" / "heuristic-v1" / "judge-fits.json").read_text())["fits"] == ["free-text", "free-text-gold"]
    # the bbq judge keeps to BBQ the same way
    result = api.judge(run, judge="bbq", services=api.Services(progress=False))
    assert result.skipped_suites == ["smoke: skipped — bbq-mc-v1 judges multiple-choice answers; use --judge heuristic, "
                                     "learned, openai:MODEL, guard:MODEL, mdjudge"]
    # both judges, each on its own suite, publish; the manifest records what each fits
    dataset = tmp_path / "board"
    api.create(dataset)
    api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    manifest = json.loads(next((dataset / "submissions").glob("*.json")).read_text())
    assert manifest["judge_fits"] == {"bbq-mc-v1": ["multiple-choice"], "heuristic-v1": ["free-text", "free-text-gold"]}
    assert manifest["suite_kinds"] == {"bbq": "multiple-choice", "smoke": "free-text-gold"}
    board = api.rank(dataset, options=api.RankOptions(n_bootstrap=0))
    assert set(zip(board.suite, board.judge_id)) == {("bbq", "bbq-mc-v1"), ("smoke", "heuristic-v1")}


def test_a_judge_that_fits_no_suite_is_refused(bbq_and_smoke_run, tmp_path):
    run = copy_run(bbq_and_smoke_run, tmp_path / "run")
    proc = cli("judge", str(run), "--judge", "heuristic", "--suites", "bbq")
    assert proc.returncode != 0 and not (run / "judgments" / "heuristic-v1").exists()
    assert "heuristic-v1 judges none of the run's suites: bbq: skipped — heuristic-v1 judges free-text answers" in proc.stderr


def test_submit_refuses_heuristic_records_of_bbq(bbq_and_smoke_run, tmp_path):
    """A run judged before judges kept to their suites (heuristic verdicts on BBQ letters) is refused, naming the file."""
    run = copy_run(bbq_and_smoke_run, tmp_path / "run")
    api.judge(run, judge="heuristic", services=api.Services(progress=False))
    api.judge(run, judge="bbq", services=api.Services(progress=False))
    # what the old stage wrote: heuristic verdicts on the BBQ answers, and no recorded fitness
    from toolkit.stages.judging.base import JudgeInput
    from toolkit.stages.judging.heuristic import HeuristicJudge
    from toolkit.stages.judging.runner import item_record, read_responses

    responses = read_responses(run / "responses" / "bbq.jsonl")
    judge = HeuristicJudge()
    verdicts = judge.judge([JudgeInput(r.suite, r.item_id, r.prompt, r.response) for r in responses])
    out = run / "judgments" / "heuristic-v1" / "bbq.jsonl"
    out.write_text("".join(item_record(r, judge, v).model_dump_json() + "\n" for r, v in zip(responses, verdicts)))
    (run / "judgments" / "heuristic-v1" / "judge-fits.json").unlink()
    dataset = tmp_path / "board"
    with pytest.raises(ValidationFailed, match=r"heuristic-v1/bbq.jsonl:judge_id: heuristic-v1 judges free-text answers, "
                                               r"and bbq holds multiple-choice answers"):
        api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    assert not dataset.exists()


def heuristic_bbq_rows(run: Path) -> list[dict]:
    """What the stage wrote before judges kept to their suites: heuristic verdicts on BBQ's letters."""
    from toolkit.stages.judging.base import JudgeInput
    from toolkit.stages.judging.heuristic import HeuristicJudge
    from toolkit.stages.judging.runner import item_record, read_responses

    responses = read_responses(run / "responses" / "bbq.jsonl")
    judge = HeuristicJudge()
    verdicts = judge.judge([JudgeInput(r.suite, r.item_id, r.prompt, r.response) for r in responses])
    return [item_record(r, judge, v).model_dump(mode="json") for r, v in zip(responses, verdicts)]


def test_validate_refuses_a_runs_heuristic_records_of_bbq(bbq_and_smoke_run, tmp_path):
    run = copy_run(bbq_and_smoke_run, tmp_path / "run")
    api.judge(run, judge="heuristic", services=api.Services(progress=False))  # records heuristic-v1's kinds
    assert not api.validate(run).errors
    (run / "judgments" / "heuristic-v1" / "bbq.jsonl").write_text("".join(json.dumps(r) + "\n" for r in heuristic_bbq_rows(run)))
    errors = [str(e) for e in api.validate(run).errors]
    assert errors == [f"{run}/judgments/heuristic-v1/bbq.jsonl:judge_id: its judge judges free-text answers, and these "
                      "records hold multiple-choice answers: a judge's records of a suite it cannot judge are not published"]


def test_published_unfit_records_stay_in_the_data_and_out_of_the_board(bbq_and_smoke_run, tmp_path):
    """A dataset holding heuristic verdicts on BBQ (published by hand, beside a manifest that records the judge's
    kinds): rank, recompute and the Space leave the pair out with one line; the records stay."""
    import hashlib
    import subprocess as sp

    from space.data import load_board
    from toolkit.outputs.publishing.submit import _parquet_bytes

    run = copy_run(bbq_and_smoke_run, tmp_path / "run")
    api.judge(run, judge="heuristic", services=api.Services(progress=False))
    api.judge(run, judge="bbq", services=api.Services(progress=False))
    dataset = tmp_path / "board"
    api.create(dataset)
    api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    manifest_path = next((dataset / "submissions").glob("*.json"))
    manifest = json.loads(manifest_path.read_text())
    rel = f"data/bbq/{manifest['submission_id']}__heuristic-v1.parquet"
    data = _parquet_bytes(heuristic_bbq_rows(run))
    (dataset / rel).write_bytes(data)
    manifest["record_files"].append({"path": rel, "sha256": hashlib.sha256(data).hexdigest(), "n_rows": 11,
                                     "suite": "bbq", "judge_id": "heuristic-v1"})
    manifest_path.write_text(json.dumps(manifest, indent=2))
    sp.run(["git", "add", "-A"], cwd=dataset, check=True)
    sp.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "by hand"], cwd=dataset, check=True)
    note = ("bbq · heuristic-v1: left out of the leaderboard — heuristic-v1 judges free-text answers, bbq holds "
            "multiple-choice answers (its records stay in the data)")
    proc = cli("rank", str(dataset), "--bootstrap", "0")
    assert proc.returncode == 0, proc.stderr
    assert note in proc.stdout.splitlines() and "heuristic-v1" in proc.stdout  # smoke's row is still there
    board = api.rank(dataset, options=api.RankOptions(n_bootstrap=0))
    assert ("bbq", "heuristic-v1") not in set(zip(board.suite, board.judge_id)) and ("bbq", "bbq-mc-v1") in set(zip(board.suite, board.judge_id))
    # validate refuses such a manifest (new ones are not published), the Space leaves the pair out
    assert any("heuristic-v1 judges free-text answers, and bbq holds multiple-choice answers" in str(e)
               for e in api.validate(dataset).errors)
    # a leaderboard file written before the pair was left out (as an older toolkit did) still holds it
    (run / "judgments" / "heuristic-v1" / "bbq.jsonl").write_text("".join(json.dumps(r) + "\n" for r in heuristic_bbq_rows(run)))
    from toolkit.data.reading import write_leaderboard
    old_board = api.rank(run, options=api.RankOptions(n_bootstrap=0))
    assert ("bbq", "heuristic-v1") in set(zip(old_board.suite, old_board.judge_id))
    write_leaderboard(old_board, dataset / "data" / "leaderboard")
    shown = load_board(dataset)
    assert ("bbq", "heuristic-v1") not in set(zip(shown.leaderboard.suite, shown.leaderboard.judge_id))
    assert shown.left_out == [note]
    sp.run(["git", "checkout", "--", "."], cwd=dataset, check=True)
    (dataset / "data" / "leaderboard" / "leaderboard.csv").unlink()
    result = api.recompute(dataset, options=api.RecomputeOptions(n_bootstrap=0))
    assert result.left_out == [note]
    assert (dataset / rel).is_file()  # the records stay
    import pandas as pd
    published = pd.read_parquet(dataset / "data" / "leaderboard" / "leaderboard.parquet")
    assert ("bbq", "heuristic-v1") not in set(zip(published.suite, published.judge_id))


def test_a_manifest_from_before_fitness_records_is_ranked_and_said_to_be_unchecked(bbq_and_smoke_run, tmp_path):
    """An older toolkit published heuristic verdicts on BBQ with a manifest that records no fitness: nothing
    can say the pair is unfit, so it is still ranked, and rank says, pair by pair, that it went unchecked."""
    import hashlib
    import subprocess as sp

    from toolkit.outputs.publishing.submit import _parquet_bytes

    run = copy_run(bbq_and_smoke_run, tmp_path / "run")
    api.judge(run, judge="heuristic", services=api.Services(progress=False))
    dataset = tmp_path / "board"
    api.create(dataset)
    api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0, allow_partial=True))
    manifest_path = next((dataset / "submissions").glob("*.json"))
    manifest = json.loads(manifest_path.read_text())
    rel = f"data/bbq/{manifest['submission_id']}__heuristic-v1.parquet"
    data = _parquet_bytes(heuristic_bbq_rows(run))
    (dataset / rel).parent.mkdir(exist_ok=True)
    (dataset / rel).write_bytes(data)
    manifest["record_files"].append({"path": rel, "sha256": hashlib.sha256(data).hexdigest(), "n_rows": 11,
                                     "suite": "bbq", "judge_id": "heuristic-v1"})
    manifest["judge_fits"], manifest["suite_kinds"] = {}, {}  # as written before fitness was recorded
    manifest_path.write_text(json.dumps(manifest, indent=2))
    sp.run(["git", "add", "-A"], cwd=dataset, check=True)
    sp.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "older toolkit"], cwd=dataset, check=True)
    proc = cli("rank", str(dataset), "--bootstrap", "0")
    assert proc.returncode == 0, proc.stderr
    assert ("bbq · heuristic-v1: ranked unchecked — its submission's manifest predates judge fitness records, so "
            "nothing says heuristic-v1 can judge bbq's kind of item") in proc.stdout.splitlines()
    board = api.rank(dataset, options=api.RankOptions(n_bootstrap=0))
    assert ("bbq", "heuristic-v1") in set(zip(board.suite, board.judge_id))


def test_a_suite_no_judge_of_the_run_fits_is_named_at_submit(bbq_and_smoke_run, tmp_path):
    run = copy_run(bbq_and_smoke_run, tmp_path / "run")
    api.judge(run, judge="heuristic", services=api.Services(progress=False))
    api.create(tmp_path / "board")
    result = api.submit(run, to=tmp_path / "board", options=api.SubmitOptions(n_bootstrap=0, allow_partial=True))
    assert ("suite bbq: no judge of the run can judge it (multiple-choice); its responses are not published — judge it "
            "with --judge bbq and submit again") in result.notes
    assert not list((tmp_path / "board" / "data").glob("bbq/*"))
