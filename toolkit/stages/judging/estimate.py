"""``judge --estimate``: what judging a run would cost, before a request is sent; nothing is written.

The items are those :func:`.runner.judge_run` would judge (done ones skipped, earlier API failures judged again, a
failed request never sent); the requests those the cache does not answer. Input tokens are counted as the server
counts them (:mod:`.token_counts`: a vLLM server's own ``/tokenize``, no generation; the OpenAI API's models with
tiktoken; else a byte bound or unknown, said so, never guessed). Output tokens are bounded by each request's
``max_tokens``.
Hours: at the mean request seconds of this judge in the run's ``cost.json``, else the recorded bench figure
(``data/prices/bench_rates.json``, written by ``bench/cost.py``), divided by the judge's concurrency.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from schemas.usage import Price

from toolkit.core.errors import NothingToJudge
from toolkit.core.runs import RunDir
from toolkit.core.stage_engine import read_records
from toolkit.core.usage import dollars
from .base import Judge, JudgeInput, make_judge
from .components import JudgeSpec
from .fitness import suite_kind_of
from .prices import judge_prices
from .token_counts import UPPER_BOUND, count_prompt_tokens
from .records import JudgeResult, read_responses

BENCH_RATES = Path(__file__).resolve().parent / "data" / "prices" / "bench_rates.json"


@dataclass
class JudgingEstimate:
    judge_id: str
    items: int = 0  # items judging would write a record for
    not_sent: int = 0  # of them, judged without a request (a failed answer; AIR-Bench's empty answer)
    cache_hits: int = 0
    requests: int = 0
    prompt_tokens: int | None = 0  # None: the server cannot count them
    counted_by: str = "none"
    output_tokens_bound: int = 0
    hours: float | None = None
    hours_from: str = "no earlier rate"
    usd_bound: float | None = None
    price: Price | None = None
    per_suite: dict[str, int] = field(default_factory=dict)


def estimate_judging(run_dir: str | Path, judge: "str | Judge", suites: Sequence[str] | None = None,
                     retry_errors: bool = True, prices: dict | None = None) -> JudgingEstimate:
    from .runner import JudgingStage

    from toolkit.core.usage import run_cost

    run = RunDir(run_dir)
    run.load_config()
    run_cost(run)  # a damaged ledger is named here as judging would name it
    files = [f for f in run.response_files() if not suites or f.stem in set(suites)]
    if not files:
        raise NothingToJudge(f"{run.root}: no responses to judge; generate responses into this run folder first")
    judge_obj = judge if isinstance(judge, Judge) else judge_for_estimate(judge)
    judge_prices(judge_obj, prices or {})  # a price for another judge is refused before anything is read
    stage = JudgingStage(run, judge_obj, 32, retry_errors, JudgeResult(run.root, judge_obj.judge_id))
    out = JudgingEstimate(judge_obj.judge_id)
    pending = []
    for path in files:
        responses = read_responses(path)
        kind = suite_kind_of(path.stem, (r.gold for r in responses), (r.gold_choice for r in responses))
        if kind not in judge_obj.fits:
            continue
        done = {stage.record_key(r) for _, r in read_records(stage.output_file(path.stem), stage.record_type)
                if stage.keep_on_resume(r)}
        todo = [r for r in responses if stage.task_key(r) not in done]
        out.per_suite[path.stem] = len(todo)
        pending += todo
    inputs = [None if r.request_error is not None else
              JudgeInput(suite=r.suite, item_id=r.item_id, prompt=r.prompt, response=r.response, gold=r.gold,
                         category=r.category, gold_choice=r.gold_choice, choice=r.choice) for r in pending]
    return estimate_inputs(judge_obj, inputs, out, prices or {}, run)


def estimate_inputs(judge: Judge, inputs: Sequence[JudgeInput | None], out: JudgingEstimate, prices: dict,
                    run: RunDir | None) -> JudgingEstimate:
    """Fill ``out`` for judging ``inputs`` (None: an item whose request failed, judged without a request)."""
    price, batch_price = judge_prices(judge, prices)
    out.items = len(inputs)
    bodies = _request_bodies(judge, inputs, out)
    out.requests = len(bodies)
    out.output_tokens_bound = sum(int(b.get("max_tokens") or 0) for b in bodies)
    if bodies:
        out.prompt_tokens, out.counted_by = count_prompt_tokens(judge, bodies)
    elif hasattr(judge, "chat_body"):
        out.counted_by = "no request to count"
    out.price = batch_price if getattr(judge, "batch_api", False) and batch_price else price
    if out.price is not None and out.prompt_tokens is not None:
        out.usd_bound = (out.prompt_tokens * out.price.input_per_1m + out.output_tokens_bound * out.price.output_per_1m) / 1e6
    out.hours, out.hours_from = _hours(run, judge, out.requests if hasattr(judge, "chat_body") else out.items)
    return out


def judge_for_estimate(judge: "str | JudgeSpec") -> Judge:
    """The judge, reading its cache only where one exists already (an estimate writes nothing, not even an empty
    cache file)."""
    from .cache import JudgmentCache, default_cache_path

    spec = JudgeSpec.of(judge)
    if not getattr(spec.options, "cache", False):
        return make_judge(spec)
    path = Path(spec.options.cache_file) if getattr(spec.options, "cache_file", None) else default_cache_path()
    built = make_judge(JudgeSpec.of(spec, cache=False))
    built.cache = JudgmentCache(path) if path.is_file() else None
    return built


def _request_bodies(judge: Judge, inputs: Sequence[JudgeInput | None], out: JudgingEstimate) -> list[dict]:
    """The request bodies judging would send (an LLM judge); a local judge sends none."""
    if not hasattr(judge, "chat_body"):
        out.not_sent = sum(x is None for x in inputs)
        return []
    bodies = []
    cache = getattr(judge, "cache", None)
    for item in inputs:
        if item is None:
            out.not_sent += 1
            continue
        rubric, body = judge.chat_body(item)
        if rubric.fmt == "air" and not item.response.strip():
            out.not_sent += 1  # scored without a request
            continue
        if cache is not None and cache.get(judge.judge_id, judge.cache_rubric_key(rubric), item.prompt, item.response):
            out.cache_hits += 1
            continue
        bodies.append(body)
    return bodies


def _hours(run: RunDir | None, judge: Judge, requests: int) -> tuple[float | None, str]:
    """Hours for ``requests`` at an earlier rate: this judge's in the run's cost.json, else the bench figure."""
    from toolkit.core.usage import read_cost

    concurrency = max(1, int(getattr(judge, "concurrency", 1) or 1))
    earlier = read_cost(run).get(judge.judge_id) if run is not None else None
    sent = earlier.items - earlier.cache_hits if earlier else 0
    if earlier and sent > 0:
        rate = earlier.seconds / sent
        return requests * rate / concurrency / 3600, (f"{rate:.3f} s a request in {run.cost_file} "
                                                        f"(÷ concurrency {concurrency})")
    if BENCH_RATES.is_file():
        bench = json.loads(BENCH_RATES.read_text(encoding="utf-8"))
        rate = bench.get("llm_judge_seconds_per_request") if hasattr(judge, "chat_body") else None
        if rate:
            return requests * rate / concurrency / 3600, (f"{rate:.3f} s a request, the recorded bench figure "
                                                            f"({bench.get('source', 'bench/cost.py')}; ÷ concurrency "
                                                            f"{concurrency})")
    return None, "no earlier rate: no cost.json of this judge, no bench figure"


def estimate_lines(e: JudgingEstimate) -> list[str]:
    """What ``judge --estimate`` prints."""
    suites = ", ".join(f"{s} {n}" for s, n in e.per_suite.items()) or "none"
    bound = "≤ " if e.counted_by.startswith(UPPER_BOUND) else ""
    tokens = "unknown" if e.prompt_tokens is None else f"{bound}{e.prompt_tokens:,}"
    hours = "unknown" if e.hours is None else f"{e.hours:.4f} h"
    if e.price is None:
        money = "no price known (give one with --price JUDGE=IN_PER_1M,OUT_PER_1M)"
    elif e.usd_bound is None:
        money = "unknown (input tokens unknown)"
    else:
        money = f"≤ {dollars(e.usd_bound)} at ${e.price.input_per_1m}/{e.price.output_per_1m} per 1M ({e.price.source})"
    if e.counted_by == "none":  # a judge of its own (no server): no request, no token
        return [f"estimate {e.judge_id} (nothing written): {e.items} item(s) to judge ({suites}) on this machine",
                f"  time {hours} ({e.hours_from})"]
    return [f"estimate {e.judge_id} (nothing written): {e.items} item(s) to judge ({suites})",
            f"  requests {e.requests} (cache answers {e.cache_hits}, judged without a request {e.not_sent})",
            f"  input tokens {tokens} (counted by {e.counted_by}); output tokens ≤ {e.output_tokens_bound:,} (max_tokens)",
            f"  time {hours} ({e.hours_from})",
            f"  cost {money}"]
