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

    root = tmp_path_factory.mktemp("fit")
    write_bbq(root / "data", None, per_category=1)
    run = root / "run"
    api.generate(run, suites=["smoke", "bbq"], data_dir=root / "data", limit=3, max_new_tokens=4,
                 backend=make_backend("hf", {}, 4), show_progress=False)
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
    result = api.judge(run, judge="bbq", show_progress=False)
    assert result.skipped_suites == ["smoke: skipped — bbq-mc-v1 judges multiple-choice answers; use --judge heuristic, "
                                     "learned, openai:MODEL, guard:MODEL, mdjudge"]
    # both judges, each on its own suite, publish; the manifest records what each fits
    dataset = tmp_path / "board"
    api.submit(run, to=dataset, n_bootstrap=0)
    manifest = json.loads(next((dataset / "submissions").glob("*.json")).read_text())
    assert manifest["judge_fits"] == {"bbq-mc-v1": ["multiple-choice"], "heuristic-v1": ["free-text", "free-text-gold"]}
    assert manifest["suite_kinds"] == {"bbq": "multiple-choice", "smoke": "free-text-gold"}
    board = api.rank(dataset, n_bootstrap=0)
    assert set(zip(board.suite, board.judge_id)) == {("bbq", "bbq-mc-v1"), ("smoke", "heuristic-v1")}


def test_a_judge_that_fits_no_suite_is_refused(bbq_and_smoke_run, tmp_path):
    run = copy_run(bbq_and_smoke_run, tmp_path / "run")
    proc = cli("judge", str(run), "--judge", "heuristic", "--suites", "bbq")
    assert proc.returncode != 0 and not (run / "judgments" / "heuristic-v1").exists()
    assert "heuristic-v1 judges none of the run's suites: bbq: skipped — heuristic-v1 judges free-text answers" in proc.stderr


def test_submit_refuses_heuristic_records_of_bbq(bbq_and_smoke_run, tmp_path):
    """A run judged before judges kept to their suites (heuristic verdicts on BBQ letters) is refused, naming the file."""
    run = copy_run(bbq_and_smoke_run, tmp_path / "run")
    api.judge(run, judge="heuristic", show_progress=False)
    api.judge(run, judge="bbq", show_progress=False)
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
        api.submit(run, to=dataset, n_bootstrap=0)
    assert not dataset.exists()
