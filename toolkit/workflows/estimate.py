"""``evaluate --estimate``: what generate → judge would cost for one model, before anything runs; nothing is written.

Generation: the prompts of each suite the run folder does not answer yet, and their new tokens bounded by each
suite's ``max_new_tokens``; hours at the seconds per new token of this run's ``cost.json`` (a resumed run), else the
recorded bench figure (said which). Judging: one request an answer (answers unknown yet, so no cache can answer);
the judge's input tokens are its rubric around each prompt, counted as ``judge --estimate`` counts them, plus the
answers, at most ``max_new_tokens`` each (in the model's tokens); its output tokens bounded by ``max_tokens``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.core.runs import RunDir
from toolkit.core.usage import GENERATION, read_cost
from toolkit.stages.judging.estimate import BENCH_RATES, JudgingEstimate, estimate_inputs, estimate_lines


@dataclass
class EvaluationEstimate:
    prompts: dict[str, int] = field(default_factory=dict)  # suite -> prompts still to answer
    answered: int = 0  # answers the run folder holds already (resumed, not generated again)
    output_tokens_bound: int = 0
    hours: float | None = None
    hours_from: str = ""
    judging: JudgingEstimate | None = None
    answers_bound: int = 0  # the answers' tokens the judge reads besides its rubric (≤, in the model's tokens)


def estimate_evaluation(out: str | Path, judge, generation, prices: dict) -> EvaluationEstimate:
    from toolkit.stages.generation.runner import suite_max_new_tokens
    from toolkit.stages.judging.base import JudgeInput
    from toolkit.stages.judging.estimate import judge_for_estimate
    from toolkit.stages.suites import load_items

    run = RunDir(out)
    items = load_items(generation.suites, data_dir=generation.data_dir, limit=generation.limit)
    done = {(f.stem, str(row.get("item_id"))) for f in run.response_files() for row in _rows(f)}
    todo = [i for i in items if (i.suite, i.item_id) not in done]
    e = EvaluationEstimate(answered=len(items) - len(todo))
    for item in todo:
        e.prompts[item.suite] = e.prompts.get(item.suite, 0) + 1
        e.output_tokens_bound += suite_max_new_tokens(item.suite, generation.max_new_tokens)
    e.hours, e.hours_from = _generation_hours(run, e.output_tokens_bound)
    judge_obj = judge_for_estimate(judge)
    # the rubric around each prompt with a one-character answer: what the judge reads besides the answer itself
    inputs = [JudgeInput(suite=i.suite, item_id=i.item_id, prompt=i.prompt, response=".", gold=i.gold,
                         category=i.category) for i in todo]
    e.judging = estimate_inputs(judge_obj, inputs, JudgingEstimate(judge_obj.judge_id, per_suite=dict(e.prompts)),
                                prices, run)
    if e.judging.requests:  # answers are not cached yet: the bound is every answer at its cap
        e.answers_bound = e.output_tokens_bound
        j = e.judging
        if j.usd_bound is not None:
            j.usd_bound += e.answers_bound * j.price.input_per_1m / 1e6
    return e


def _rows(path: Path):
    from toolkit.core.records_io import iter_jsonl

    return [row for _, row in iter_jsonl(path) if isinstance(row, dict)]


def _generation_hours(run: RunDir, new_tokens: int) -> tuple[float | None, str]:
    earlier = read_cost(run).get(GENERATION)
    if earlier and earlier.output_tokens:
        rate = earlier.seconds / earlier.output_tokens
        return new_tokens * rate / 3600, f"{rate * 1000:.1f} ms a new token in {run.cost_file}"
    if BENCH_RATES.is_file():
        bench = json.loads(BENCH_RATES.read_text(encoding="utf-8"))
        rate = bench.get("generation_seconds_per_token")
        if rate:
            return new_tokens * rate / 3600, (f"{rate * 1000:.1f} ms a new token, the recorded bench figure "
                                              f"({bench.get('generation_source', bench.get('source', 'bench/cost.py'))})")
    return None, "no earlier rate: no cost.json of this run, no bench figure"


def evaluation_lines(e: EvaluationEstimate) -> list[str]:
    """What ``evaluate --estimate`` prints."""
    suites = ", ".join(f"{s} {n}" for s, n in e.prompts.items()) or "none"
    hours = "unknown" if e.hours is None else f"≤ {e.hours:.4f} h"
    lines = [f"estimate generation (nothing written): {sum(e.prompts.values())} prompt(s) to answer ({suites}); "
             f"{e.answered} answered already",
             f"  new tokens ≤ {e.output_tokens_bound:,} (max_new_tokens); time {hours} ({e.hours_from})"]
    if e.judging is not None:
        judged = estimate_lines(e.judging)
        lines += judged[:3] + ([f"  + the answers: ≤ {e.answers_bound:,} more input tokens (max_new_tokens, in the "
                                "model's tokens; counted in the cost bound)"] if e.answers_bound else []) + judged[3:]
    return lines
