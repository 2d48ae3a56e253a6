#!/usr/bin/env python
"""The offline judges vs human labels on XSTest answers: cross-validation (from the card) and held out.

1. **Cross-validation** on the training files (GPT-4, Llama-2-70b-chat): the figures bench/train_judge.py
   stored in the shipped card (folds by prompt; learned-v1 predicted each answer with weights fitted
   without that prompt), beside heuristic-v1 and the release's GPT-4 classifier on the same answers.
2. **Held out** (never used for training, threshold tuning or feature choice): the release's
   Llama-2-70b-chat + original system prompt, Mistral-7B-Instruct and Mistral-7B-Instruct + guardrail
   files, and XSTest v1's GPT-4 and Llama-2 files (safe prompts only). Each judge judges every answer
   here, through the judges' own classes.

Figures per model: exact agreement of the ternary scores with the human-implied ones, linearly
weighted kappa, each side's ambiguity rate (AR, share of 0.5) and the judge's AR error, boundary
(0.5 vs 0/1) and contradiction (0 vs 1) rates (toolkit.data.scoring.agreement.score_agreement).
The GPT-4 classifier has no label for some Mistral answers (prose instead of a label): those are left
out of its row and counted as unscored. Also printed: the issue's goal on held-out v2 models (pooled
kappa >= 0.75, every model >= 0.60, AR within 3 points of people's), as measured, without tuning.

Usage: ``.venv/bin/python bench/judge_xstest.py [--out bench/results/judges_xstest.md]``
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import xstest_eval as xe  # noqa: E402

from toolkit.stages.judging.base import JudgeInput  # noqa: E402
from toolkit.stages.judging.learned import LearnedJudge  # noqa: E402

V2_HELD_OUT = ("llama2orig", "mistralinstruct", "mistralguard")


def learned_scores(rows, judge: LearnedJudge, batch: int = 32) -> list[float]:
    inputs = [JudgeInput("xstest", r.id, r.prompt, r.completion, gold=r.gold) for r in rows]
    return [j.score for k in range(0, len(inputs), batch) for j in judge.judge(inputs[k:k + batch])]


def held_out(judge: LearnedJudge) -> tuple[dict, dict]:
    rows = xe.read_files(xe.HELD_OUT_FILES)
    scores: dict[str, dict[str, list]] = {"learned-v1": {}, "heuristic-v1": {}}
    for model, model_rows in rows.items():
        t = time.perf_counter()
        scores["learned-v1"][model] = learned_scores(model_rows, judge)
        scores["heuristic-v1"][model] = xe.heuristic_scores(model_rows)
        print(f"{model}: {len(model_rows)} answers judged by both in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    judges = {
        "learned-v1": scores["learned-v1"].__getitem__,
        "heuristic-v1": scores["heuristic-v1"].__getitem__,
        "GPT-4 classifier (release)": lambda m: xe.classifier_scores(rows[m]),
    }
    v2 = xe.table({m: xe.human_scores(rows[m]) for m in V2_HELD_OUT}, judges)
    v1_models = [m for m in rows if m not in V2_HELD_OUT]
    v1 = xe.table({m: xe.human_scores(rows[m]) for m in v1_models},
                  {k: v for k, v in judges.items() if not k.startswith("GPT-4")})
    return v2, v1


def goal_lines(v2: dict) -> list[str]:
    learned = v2["learned-v1"]
    per = [m for m in learned if m != "pooled"]
    pooled_ok = learned["pooled"]["kappa_linear"] >= 0.75
    each_ok = all(learned[m]["kappa_linear"] >= 0.60 for m in per)
    ar_ok = all(abs(learned[m]["ar_error"]) <= 0.03 for m in per)
    return [
        f"- pooled κ_linear ≥ 0.75: {learned['pooled']['kappa_linear']:.2f} — {'met' if pooled_ok else 'not met'}",
        "- every model κ_linear ≥ 0.60: " + ", ".join(f"{m} {learned[m]['kappa_linear']:.2f}" for m in per)
        + f" — {'met' if each_ok else 'not met'}",
        "- AR within 3 points of people's: " + ", ".join(f"{m} {100 * learned[m]['ar_error']:+.1f}" for m in per)
        + f" — {'met' if ar_ok else 'not met'}",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=None, help="also write the markdown here")
    args = ap.parse_args(argv)
    judge = LearnedJudge()
    labels = {m: d for m, (_, d) in {**xe.TRAINING_FILES, **xe.HELD_OUT_FILES}.items()}
    cv = judge.card["cross_validation"]
    v2, v1 = held_out(judge)
    text = "\n".join([
        f"### Cross-validation on the training answers ({cv['folds']} folds grouped by {cv['grouped_by']}; "
        f"weights {judge.card_sha256[:12]})", "", xe.render(cv["results"], labels),
        "### Held out: the release's other three models (never used for training, tuning or feature choice)", "",
        xe.render(v2, labels),
        "### Held out: XSTest v1 (safe prompts only; no GPT-4 classifier labels in that release)", "",
        xe.render(v1, labels),
        "Issue 24's goal on the held-out v2 models, as measured:", "", *goal_lines(v2), "",
    ])
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
