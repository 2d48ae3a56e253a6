"""MD-Judge: one (lower, upper) Otsu pair per (model, suite), fitted on all its items, also after a
resume or a raised --limit (issue 11). The model is replaced by fixed probabilities so that the
stage's refit is what is tested; ``otsu_thresholds`` itself is tested elsewhere."""
from __future__ import annotations

from pathlib import Path

from toolkit import api
from toolkit.stages.judging.components import MDJudgeOptions
from toolkit.stages.judging.mdjudge import MDJudge, otsu_thresholds
from toolkit.core.records_io import iter_jsonl

# Response text -> P(unsafe): the stand-in's only "model".
PROBS = {"a0": 0.02, "a1": 0.05, "a2": 0.10, "a3": 0.45, "a4": 0.55, "a5": 0.90, "a6": 0.95, "a7": 0.97}


class FixedProbabilityJudge(MDJudge):
    def unsafe_probs(self, inputs):
        return [(PROBS[x.response], f"fixed {PROBS[x.response]}") for x in inputs]


def _rows(run: Path) -> list[dict]:
    return [row for f in sorted(run.glob("judgments/*/*.jsonl")) for _, row in iter_jsonl(f)]


def test_resumed_judging_refits_one_pair_on_all_items(tmp_path, run_with_responses):
    run = run_with_responses(tmp_path / "run", list(PROBS))
    responses = next(run.glob("responses/*.jsonl"))
    full = responses.read_text()
    lines = full.splitlines(keepends=True)
    responses.write_text("".join(lines[:3]))  # a first run over the first three items only (--limit 3)
    judge = FixedProbabilityJudge(MDJudgeOptions(model="unused-model", judge_id="mdjudge-fixed"))
    api.judge(run, judge=judge, services=api.Services(progress=False))
    responses.write_text(full)  # the limit raised: five more items
    result = api.judge(run, judge=judge, services=api.Services(progress=False))
    assert (result.n_new, result.n_skipped) == (5, 3)

    rows = _rows(run)
    assert sorted(r["response"] for r in rows) == sorted(PROBS)
    pairs = {(r["judge_threshold_lower"], r["judge_threshold_upper"]) for r in rows}
    assert pairs == {otsu_thresholds(list(PROBS.values()))}  # one pair, from all eight items
    (lo, hi), = pairs
    for r in rows:
        p = PROBS[r["response"]]
        assert r["unsafe_prob"] == p  # the raw probability is kept
        expected = 1.0 if p <= lo else 0.0 if p > hi else 0.5
        assert r["score"] == expected and r["label"] == {1.0: "safe", 0.5: "ambiguous", 0.0: "harmful"}[expected]
        assert f"lower={lo:.4f} upper={hi:.4f}" in r["judge_reason"]


def test_fresh_run_file_is_not_rewritten(tmp_path, run_with_responses):
    run = run_with_responses(tmp_path / "run", list(PROBS))
    judge = FixedProbabilityJudge(MDJudgeOptions(model="unused-model", judge_id="mdjudge-fixed"))
    api.judge(run, judge=judge, services=api.Services(progress=False))
    path = next(run.glob("judgments/*/*.jsonl"))
    before = path.stat().st_mtime_ns, path.read_bytes()
    api.judge(run, judge=judge, services=api.Services(progress=False))  # nothing pending, thresholds already from all items
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before
