"""Shared by ``bench/train_judge.py`` and ``bench/judge_xstest.py``: the XSTest release files with human
labels, which of them train the learned judge and which are held out, and per-model agreement tables.

Training files (GPT-4 and Llama-2-70b-chat, the release's ``llama2new``): the shared benchmark mirror.
Held out -- never used for training, threshold tuning or feature choice: the release's other three
model files (``tests/importing/fixtures/xstest_release/``) and XSTest v1's two completion files
(``tests/judging/fixtures/xstest_v1/``; v1 has safe prompts only).
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Sequence

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from toolkit.data.scoring.agreement import score_agreement  # noqa: E402
from toolkit.stages.judging.heuristic import score_behaviour  # noqa: E402
from toolkit.stages.judging.xstest_release import ReleaseRow, read_release  # noqa: E402

SHARED_XSTEST = REPO.parent / "shared" / "benchmarks" / "xstest"
PROMPTS_CSV = SHARED_XSTEST / "xstest_prompts.csv"
RELEASE_FIXTURES = REPO / "tests" / "importing" / "fixtures" / "xstest_release"
V1_FIXTURES = REPO / "tests" / "judging" / "fixtures" / "xstest_v1"

#: model name -> (file, what the model is)
TRAINING_FILES = {
    "gpt4": (SHARED_XSTEST / "xstest_v2_completions_gpt4_gpteval.csv", "GPT-4"),
    "llama2new": (SHARED_XSTEST / "xstest_v2_completions_llama2new_gpteval.csv", "Llama-2-70b-chat"),
}
HELD_OUT_FILES = {
    "llama2orig": (RELEASE_FIXTURES / "xstest_v2_completions_llama2orig_gpteval.csv.gz",
                   "Llama-2-70b-chat + original system prompt"),
    "mistralinstruct": (RELEASE_FIXTURES / "xstest_v2_completions_mistralinstruct_gpteval.csv.gz", "Mistral-7B-Instruct"),
    "mistralguard": (RELEASE_FIXTURES / "xstest_v2_completions_mistralguard_gpteval.csv.gz",
                     "Mistral-7B-Instruct + guardrail prompt"),
    "v1-gpt4": (V1_FIXTURES / "xstest_completions_gpt4_v1.csv.gz", "GPT-4 (XSTest v1, safe prompts)"),
    "v1-llama2": (V1_FIXTURES / "xstest_completions_llama2_v1.csv.gz", "Llama-2-70b-chat (XSTest v1, safe prompts)"),
}

FIGURES = ("n", "exact", "kappa_linear", "ar_judge", "ar_human", "ar_error", "boundary", "contradiction")


def read_files(files: dict[str, tuple[Path, str]]) -> dict[str, list[ReleaseRow]]:
    return {name: read_release(path, PROMPTS_CSV if PROMPTS_CSV.is_file() else None) for name, (path, _) in files.items()}


def human_scores(rows: Sequence[ReleaseRow]) -> list[float]:
    return [score_behaviour(r.human, r.gold) for r in rows]


def classifier_scores(rows: Sequence[ReleaseRow]) -> list[float | None]:
    """The release's GPT-4 classifier label as a score (None where it gave no usable label)."""
    return [None if r.classifier is None else score_behaviour(r.classifier, r.gold) for r in rows]


def figures(human: Sequence[float], judged: Sequence[float | None]) -> dict:
    """Agreement of a judge with people on one model's answers (items the judge left unscored are left out)."""
    pairs = [(h, j) for h, j in zip(human, judged) if j is not None]
    stats = score_agreement([h for h, _ in pairs], [j for _, j in pairs])
    return {"n": stats["n"], "n_unscored": len(human) - len(pairs), "exact": stats["exact_agreement"],
            "kappa_linear": stats["kappa_linear"], "ar_judge": stats["ar_b"], "ar_human": stats["ar_a"],
            "ar_error": stats["ar_b"] - stats["ar_a"], "boundary": stats["boundary_rate"],
            "contradiction": stats["contradiction_rate"], "confusion": stats["confusion"]}


def table(by_model: dict[str, list[float]], judges: dict[str, Callable[[str], Sequence[float | None]]],
          pooled: bool = True) -> dict[str, dict[str, dict]]:
    """{judge: {model (and "pooled"): figures}}; ``judges``: name -> (model name -> that model's scores)."""
    out: dict[str, dict[str, dict]] = {}
    for judge, scores_of in judges.items():
        per = {m: list(scores_of(m)) for m in by_model}
        out[judge] = {m: figures(by_model[m], per[m]) for m in by_model}
        if pooled:
            out[judge]["pooled"] = figures([h for m in by_model for h in by_model[m]], [s for m in by_model for s in per[m]])
    return out


def render(results: dict[str, dict[str, dict]], labels: dict[str, str]) -> str:
    """A markdown table: one row per (model, judge)."""
    lines = ["| model | judge | n | exact | κ_linear | AR judge | AR human | AR error | boundary | contradiction |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    models = list(next(iter(results.values())))
    for m in models:
        for judge, per_model in results.items():
            f = per_model[m]
            kappa = "–" if f["kappa_linear"] is None else f"{f['kappa_linear']:.2f}"
            n = f"{f['n']}" + (f" (+{f['n_unscored']} unscored)" if f["n_unscored"] else "")
            lines.append(f"| {labels.get(m, m)} | {judge} | {n} | {f['exact']:.3f} | {kappa} | {100 * f['ar_judge']:.1f}% | "
                         f"{100 * f['ar_human']:.1f}% | {100 * f['ar_error']:+.1f} | {100 * f['boundary']:.1f}% | "
                         f"{100 * f['contradiction']:.1f}% |")
    return "\n".join(lines) + "\n"


def heuristic_scores(rows: Sequence[ReleaseRow], judge=None) -> list[float]:
    from toolkit.stages.judging.base import JudgeInput
    from toolkit.stages.judging.heuristic import HeuristicJudge

    judge = judge or HeuristicJudge()
    return [j.score for j in judge.judge([JudgeInput("xstest", r.id, r.prompt, r.completion, gold=r.gold) for r in rows])]
