"""Run a model on suites → ResponseRecords, resumably (re-running the same command skips done items)."""
from __future__ import annotations

import datetime as _dt
import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from schemas import GenerationConfig, ResponseRecord, sha256_text

from .. import __version__
from ..errors import SlmboardError
from ..progress import progress_bar
from ..records_io import JsonlAppender, iter_jsonl
from ..runs import RunConfig, RunDir
from ..suites import SuiteItem, get_suite, load_items
from .backends import Backend, Completion, make_backend
from .model_args import parse_model_args
from .shards import parse_shard, select_shard, shard_label

DEFAULT_MAX_NEW_TOKENS = 512  # paper 1 §3.1: open-ended suites
#: Per-suite decoding that differs from the default (paper 1 §3.1): SALAD 256 tokens with seed
#: 1337; BBQ single-token multiple choice. An explicit max_new_tokens overrides these.
SUITE_DECODING: dict[str, dict[str, int]] = {
    "salad": {"max_new_tokens": 256, "seed": 1337},
    "salad_defense": {"max_new_tokens": 256, "seed": 1337},
    "bbq": {"max_new_tokens": 1},
}
DEFAULT_SEED = 0
#: Multiple-choice suites and how their answers are obtained (``--mode``).
MC_SUITES = {"bbq"}
MC_MODES = ("generate", "loglikelihood")
MC_LETTERS = ("A", "B", "C")


@dataclass
class GenerateResult:
    run_dir: Path
    config: RunConfig
    n_new: int
    n_skipped: int
    seconds: float
    n_output_tokens: int


def default_submission_id(model_id: str, revision: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", model_id.split("/")[-1]).strip("-.") or "model"
    rev = re.sub(r"[^A-Za-z0-9]+", "", revision.split(":")[-1])[:8] or "rev"
    return f"{name[:100]}-{rev}"


def _done_ids(path: Path) -> tuple[set[str], set[str]]:
    """Item ids already answered in ``path`` and the multiple-choice modes they were answered in."""
    done, modes = set(), set()
    if path.exists():
        for _, row in iter_jsonl(path):
            if isinstance(row, dict) and "item_id" in row:
                done.add(row["item_id"])
                meta = row.get("item_metadata")
                if isinstance(meta, str) and '"mc_mode"' in meta:
                    modes.add(json.loads(meta).get("mc_mode"))
    return done, modes


def suite_decoding(suite: str, gen: GenerationConfig, max_new_tokens: int | None = None) -> GenerationConfig:
    """The decoding config of one suite: the run's, with the suite's paper settings; an explicit
    ``max_new_tokens`` wins over the suite default (the seed never changes)."""
    decoding = SUITE_DECODING.get(suite, {})
    return gen.model_copy(
        update={
            "max_new_tokens": max_new_tokens or decoding.get("max_new_tokens", DEFAULT_MAX_NEW_TOKENS),
            "seed": decoding.get("seed", DEFAULT_SEED),
        }
    )


def _answer_by_loglikelihood(backend: Backend, prompts: list[str]) -> tuple[list[Completion], list[dict]]:
    """The highest-loglikelihood option letter of each prompt, with every option's log-probability."""
    scores = backend.option_logprobs(prompts, [list(MC_LETTERS) for _ in prompts])
    completions, extras = [], []
    for row in scores:
        if len(row) != len(MC_LETTERS) or not all(math.isfinite(x) for x in row):
            raise SlmboardError(f"backend {backend.name} returned option log-probabilities {row!r}")
        best = max(range(len(row)), key=lambda j: row[j])  # ties: the first option, deterministically
        completions.append(Completion(text=MC_LETTERS[best], n_output_tokens=None, finish_reason=None))
        extras.append({"option_logprobs": dict(zip(MC_LETTERS, (round(x, 6) for x in row)))})
    return completions, extras


def generate(
    out: str | Path,
    suites: Sequence[str] | str = ("smoke",),
    model: str = "hf",
    model_args: str | dict[str, str] | None = None,
    data_dir: str | Path | None = None,
    limit: int | None = None,
    batch_size: int | str | None = None,
    max_new_tokens: int | None = None,
    submission_id: str | None = None,
    backend: Backend | None = None,
    show_progress: bool = True,
    shard: str | None = None,
    mode: str = "generate",
    concurrency: int | None = None,
) -> GenerateResult:
    """Generate responses for every (pending) item of ``suites`` into the run folder ``out``.

    ``shard="K/N"`` keeps shard K of a deterministic N-way partition (see :mod:`.shards`);
    ``mode`` says how multiple-choice suites (BBQ) are answered: ``generate`` (the answer letter is
    parsed from a greedy completion; unmapped answers are kept and counted) or ``loglikelihood``
    (the option with the highest log-probability). ``concurrency`` = prompts in flight at once
    (``hf``: rows of the continuous batch; ``openai``: requests), recorded as the batch size.
    """
    if mode not in MC_MODES:
        raise SlmboardError(f"unknown --mode {mode!r}; valid modes: {', '.join(MC_MODES)}")
    args = parse_model_args(model_args) if isinstance(model_args, str) or model_args is None else dict(model_args)
    shard_kn = parse_shard(shard)
    # Fails fast on unknown suites / missing files, before the (slow) model load.
    items = select_shard(load_items(suites, data_dir=data_dir, limit=limit), shard_kn)
    suite_names = sorted({i.suite for i in items}, key=lambda s: [i.suite for i in items].index(s))
    run = RunDir(out)
    backend = backend or make_backend(model, args, batch_size)
    if concurrency is not None:
        if concurrency < 1:
            raise SlmboardError(f"--concurrency must be at least 1, got {concurrency}")
        backend.set_concurrency(concurrency)
    desc = backend.describe()
    gen = GenerationConfig(
        temperature=0.0,
        max_new_tokens=max_new_tokens or DEFAULT_MAX_NEW_TOKENS,
        seed=DEFAULT_SEED,
        chat_template_sha256=desc.chat_template_sha256,
        backend=backend.name,
        dtype=desc.dtype,
        batch_size=backend.default_batch_size() if concurrency or batch_size in (None, "auto") else int(batch_size),
        device=desc.device,
        do_sample=False,
    )
    config = RunConfig(
        submission_id=submission_id or default_submission_id(desc.model_id, desc.model_revision),
        model_id=desc.model_id,
        model_revision=desc.model_revision,
        backend=backend.name,
        model_args=args,
        generation=gen,
        suites=suite_names,
        suite_revisions={s: get_suite(s).revision for s in suite_names},
        limit=limit,
        shard=shard_label(shard_kn),
        toolkit_version=__version__,
        model_info=desc.info,
        created_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    )
    if run.exists():
        previous = run.load_config()
        if previous.identity() != config.identity():
            raise SlmboardError(
                f"{run.root} holds a run of {previous.model_id}@{previous.model_revision} with other settings; "
                "use another --out folder (a run folder holds one model and one decoding config)"
            )
        if previous.shard != config.shard:
            raise SlmboardError(
                f"{run.root} holds shard {previous.shard or 'none'}, not shard {config.shard or 'none'}; "
                "use another --out folder per shard"
            )
        # A resumed run may cover more items (a larger --limit); run.json records the widest.
        widest = None if previous.limit is None or limit is None else max(previous.limit, limit)
        config = previous.model_copy(update={"suites": sorted(set(previous.suites) | set(suite_names)), "limit": widest})
        config.suite_revisions.update({s: get_suite(s).revision for s in suite_names})
    run.save_config(config)

    started = time.perf_counter()
    n_new = n_skipped = n_tokens = 0
    by_suite: dict[str, list[SuiteItem]] = {}
    for item in items:
        by_suite.setdefault(item.suite, []).append(item)
    pending: list[tuple[SuiteItem, GenerationConfig]] = []
    for suite, suite_items in by_suite.items():
        done, modes = _done_ids(run.response_file(suite))
        if suite in MC_SUITES and modes - {mode}:
            raise SlmboardError(
                f"{run.response_file(suite)} holds {suite} answers in --mode {', '.join(sorted(modes))}; "
                f"this run asks for --mode {mode}: use another --out folder"
            )
        suite_gen = suite_decoding(suite, gen, max_new_tokens)
        for item in suite_items:
            if item.item_id in done:
                n_skipped += 1
            else:
                pending.append((item, suite_gen))
    # Similar lengths together (the runner's groups; the backend schedules within a group).
    pending.sort(key=lambda p: (p[0].suite, p[1].max_new_tokens, len(p[0].prompt)))
    bar = progress_bar(total=len(pending), desc=f"generate {config.model_id}", unit="item", enabled=show_progress)
    appenders: dict[str, JsonlAppender] = {}
    try:
        for suite, suite_gen, group in _groups(pending):
            if suite not in appenders:
                appenders[suite] = JsonlAppender(run.response_file(suite))
            mc_mode = mode if suite in MC_SUITES else None
            for item, completion, extra in _answers(backend, suite, suite_gen, group, mode, gen.batch_size or 8):
                record = _response_record(config, item, suite_gen, completion, mc_mode, extra).model_dump(mode="json")
                appenders[suite].append([record])  # each answer as it finishes: a kill loses only those in flight
                n_new += 1
                n_tokens += completion.n_output_tokens or 0
                bar.update(1)
                bar.set_postfix_str(f"{n_tokens / max(time.perf_counter() - started, 1e-9):.0f} tok/s")
    finally:
        bar.close()
        for appender in appenders.values():
            appender.close()
    return GenerateResult(run.root, config, n_new, n_skipped, time.perf_counter() - started, n_tokens)


def _groups(pending: list[tuple[SuiteItem, GenerationConfig]]) -> Iterator[tuple[str, GenerationConfig, list[SuiteItem]]]:
    """Consecutive runs of items with the same suite and decoding config."""
    start = 0
    while start < len(pending):
        suite, suite_gen = pending[start][0].suite, pending[start][1]
        end = start + 1
        while end < len(pending) and pending[end][0].suite == suite and pending[end][1] == suite_gen:
            end += 1
        yield suite, suite_gen, [item for item, _ in pending[start:end]]
        start = end


def _answers(
    backend: Backend, suite: str, suite_gen: GenerationConfig, items: list[SuiteItem], mode: str, batch_size: int
) -> Iterator[tuple[SuiteItem, Completion, dict]]:
    """(item, completion, record extras) for every item, each as soon as the backend has it."""
    prompts = [item.prompt for item in items]
    if suite in MC_SUITES and mode == "loglikelihood":
        for start in range(0, len(items), batch_size):
            completions, extras = _answer_by_loglikelihood(backend, prompts[start : start + batch_size])
            yield from zip(items[start : start + batch_size], completions, extras)
        return
    seen: set[int] = set()
    for index, completion in backend.generate_stream(prompts, suite_gen.max_new_tokens, suite_gen.seed):
        if not isinstance(index, int) or not 0 <= index < len(items) or index in seen:
            raise SlmboardError(f"backend {backend.name} streamed index {index!r}: not a new index into {len(items)} prompts")
        seen.add(index)
        yield items[index], completion, {}
    if len(seen) != len(items):
        raise SlmboardError(f"backend {backend.name} streamed {len(seen)} completions for {len(items)} prompts")


def _response_record(
    config: RunConfig, item: SuiteItem, gen: GenerationConfig, completion, mc_mode: str | None = None, extra: dict | None = None
) -> ResponseRecord:
    """One record; suite metadata goes to ``item_metadata`` (JSON), multiple-choice answers to choice/correct."""
    from ..judging.multiple_choice import parse_choice  # light module: no torch

    meta: dict = dict(item.metadata)
    choice = gold_choice = correct = None
    if mc_mode is not None:
        gold_choice = meta.get("gold_choice") or None
        choice = parse_choice(completion.text, MC_LETTERS)
        # Unmapped answers (choice null) are not correct: they count against accuracy, as in the paper.
        correct = None if gold_choice is None else choice == gold_choice
        meta["mc_mode"] = mc_mode
    meta.update(extra or {})
    return ResponseRecord(
        choice=choice,
        gold_choice=gold_choice,
        correct=correct,
        item_metadata=json.dumps(meta, ensure_ascii=False, sort_keys=True) if meta else None,
        submission_id=config.submission_id,
        model_id=config.model_id,
        model_revision=config.model_revision,
        suite=item.suite,
        item_id=item.item_id,
        category=item.category,
        prompt=item.prompt,
        prompt_sha256=sha256_text(item.prompt),
        response=completion.text,
        response_sha256=sha256_text(completion.text),
        generation=gen,
        gold=item.gold,
        suite_revision=config.suite_revisions.get(item.suite),
        toolkit_version=__version__,
        finish_reason=completion.finish_reason,
        n_output_tokens=completion.n_output_tokens,
    )
