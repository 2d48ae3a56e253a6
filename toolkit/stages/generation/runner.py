"""Run a model on suites → ResponseRecords, resumably (re-running the same command skips done items)."""
from __future__ import annotations

import datetime as _dt
import json
import math
import re
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

from schemas import GenerationConfig, ResponseRecord, sha256_text

from toolkit import __version__
from toolkit.core.choices import parse_choice
from toolkit.core.defaults import DEFAULT_BACKEND
from toolkit.core.errors import BadOption, SlmboardError
from toolkit.core.runs import RunConfig, RunDir, RunMismatch
from toolkit.core.stage_engine import WHOLE_GROUP, Stage, run_stage
from toolkit.stages.suites import SUITES, SuiteItem, get_suite, load_items, sampled_suites
from .backends import Backend, Completion
from .components import BackendSpec, GenerationRunOptions
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
MC_LETTERS = ("A", "B", "C")

#: One generation task: a suite item and the decoding it is answered with.
Task = tuple[SuiteItem, GenerationConfig]


@dataclass
class GenerateResult:
    run_dir: Path
    config: RunConfig
    n_new: int
    n_skipped: int
    seconds: float
    n_output_tokens: int
    #: the run's cost.json after this call ("generation" and each judge id -> schemas.usage.StageCost)
    cost: dict = field(default_factory=dict)


def default_submission_id(model_id: str, revision: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", model_id.split("/")[-1]).strip("-.") or "model"
    rev = re.sub(r"[^A-Za-z0-9]+", "", revision.split(":")[-1])[:8] or "rev"
    return f"{name[:100]}-{rev}"


def suite_max_new_tokens(suite: str, max_new_tokens: int | None = None) -> int:
    """The new-token cap of one suite: an explicit ``max_new_tokens``, else the suite's paper setting."""
    return max_new_tokens or SUITE_DECODING.get(suite, {}).get("max_new_tokens", DEFAULT_MAX_NEW_TOKENS)


def suite_decoding(suite: str, gen: GenerationConfig, max_new_tokens: int | None = None) -> GenerationConfig:
    """The decoding config of one suite: the run's, with the suite's paper settings; an explicit
    ``max_new_tokens`` wins over the suite default (the seed never changes)."""
    decoding = SUITE_DECODING.get(suite, {})
    return gen.model_copy(
        update={
            "max_new_tokens": suite_max_new_tokens(suite, max_new_tokens),
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


class GenerationStage(Stage[Task, ResponseRecord]):
    """Items -> ResponseRecords in ``RUN/responses/<suite>.jsonl``; one group per suite.

    Each suite's pending items go to the backend at once (sorted by length: less padding, same
    greedy outputs); :meth:`Backend.generate_stream` chunks them and yields answers as they finish,
    and each is appended the moment it exists.
    """

    record_type = ResponseRecord
    unit = "item"
    batching = WHOLE_GROUP

    def __init__(self, run: RunDir, config: RunConfig, backend: Backend, mode: str) -> None:
        self.run, self.config, self.backend, self.mode = run, config, backend, mode
        self.description = f"generate {config.model_id}"
        self.n_tokens = 0

    def output_file(self, group: str) -> Path:
        return self.run.response_file(group)

    def group_of(self, task: Task) -> str:
        return task[0].suite

    def task_key(self, task: Task) -> str:
        return task[0].item_id

    def check_resume(self, group: str, records: Sequence[ResponseRecord]) -> None:
        modes = {json.loads(r.item_metadata).get("mc_mode") for r in records if r.item_metadata and '"mc_mode"' in r.item_metadata}
        if _multiple_choice(group) and modes - {self.mode}:
            raise RunMismatch(
                f"{self.output_file(group)} holds {group} answers in mode {', '.join(sorted(modes))}; "
                f"this run asks for mode {self.mode}: use another run folder"
            )

    def process(self, batch: list[Task], progress: Callable[[int], None]) -> Iterator[list[ResponseRecord]]:
        suite, gen = batch[0][0].suite, batch[0][1]
        mc_mode = self.mode if _multiple_choice(suite) else None
        prompts = [item.prompt for item, _ in batch]
        if mc_mode == "loglikelihood":
            size = gen.batch_size or 8
            for start in range(0, len(batch), size):
                began = time.perf_counter()
                completions, extras = _answer_by_loglikelihood(self.backend, prompts[start : start + size])
                share = (time.perf_counter() - began) / max(1, len(completions))
                chunk = [item for item, _ in batch[start : start + size]]
                self.record_usage([(item, replace(c, seconds=share)) for item, c in zip(chunk, completions)])
                yield [_response_record(self.config, item, gen, c, mc_mode, x)
                       for item, c, x in zip(chunk, completions, extras)]
            return
        seen: set[int] = set()
        last = time.perf_counter()
        for index, completion in self.backend.generate_stream(prompts, gen.max_new_tokens, gen.seed):
            if index in seen or not 0 <= index < len(batch):
                raise SlmboardError(f"backend {self.backend.name} streamed answer index {index} twice or out of range")
            seen.add(index)
            self.n_tokens += completion.n_output_tokens or 0
            now = time.perf_counter()
            # a streaming backend's answer took the time since the one before (the stream's share of the batch)
            self.record_usage([(batch[index][0], completion if completion.seconds is not None
                                else replace(completion, seconds=now - last))])
            last = now
            yield [_response_record(self.config, batch[index][0], gen, completion, mc_mode)]
        if len(seen) != len(batch):
            raise SlmboardError(f"backend {self.backend.name} returned {len(seen)} completions for {len(batch)} prompts")

    def progress_note(self, seconds: float) -> str | None:
        return f"{self.n_tokens / max(seconds, 1e-9):.0f} tok/s"

    def record_usage(self, answered: list[tuple[SuiteItem, Completion]]) -> None:
        """One ledger row per answer, appended before its record (:mod:`toolkit.core.usage`); a backend that sends
        requests to a server (no accelerator of its own) made one per answer."""
        from schemas.usage import UsageRecord

        from toolkit.core.usage import append_usage

        rows = [UsageRecord(stage="generation", producer=self.backend.name, suite=item.suite, item_id=item.item_id,
                            prompt_tokens=c.n_prompt_tokens, output_tokens=c.n_output_tokens,
                            tokens_from="backend" if c.n_output_tokens is not None else "none",
                            seconds=round(c.seconds or 0.0, 6), requests=0 if self.backend.uses_accelerator else 1,
                            device=self.config.generation.device) for item, c in answered]
        append_usage(self.run.generation_usage_file, rows)


def _multiple_choice(suite: str) -> bool:
    return suite in SUITES and SUITES.get(suite).load().multiple_choice


def warn_remote_code(spec: BackendSpec) -> None:
    """One line before a model whose repository's own code may run is loaded (run.json records the option)."""
    if getattr(spec.options, "trust_remote_code", None) is True:
        print("warning: trust_remote_code=true: the model repository's own Python code will run on this machine "
              "(recorded in run.json model_args)", file=sys.stderr)


def generate(
    out: str | Path,
    model: BackendSpec | str = DEFAULT_BACKEND,
    model_args: str | dict[str, str] | None = None,
    options: GenerationRunOptions | None = None,
    backend: Backend | None = None,
    show_progress: bool = True,
) -> GenerateResult:
    """Generate responses for every (pending) item of the run's suites into the run folder ``out``.

    ``model`` / ``model_args`` name the backend (``backend`` replaces both with a built one); ``options`` is the
    run (None: the defaults): its ``shard="K/N"`` keeps shard K of a deterministic N-way partition (see
    :mod:`.shards`); its ``mode`` says how multiple-choice suites (BBQ) are answered: ``generate`` (the answer
    letter is parsed from a greedy completion; unmapped answers are kept and counted) or ``loglikelihood`` (the
    option with the highest log-probability); its ``concurrency`` = prompts in flight at once (``hf``: rows of
    the continuous batch; ``openai``: requests), recorded as the batch size.
    """
    run_options = options or GenerationRunOptions()
    spec = BackendSpec.combine(model, model_args)  # checked before anything loads
    warn_remote_code(spec)
    shard_kn = parse_shard(run_options.shard)
    # Fails fast on unknown suites / missing files, before the (slow) model load.
    items = select_shard(load_items(run_options.suites, data_dir=run_options.data_dir, limit=run_options.limit), shard_kn)
    run = RunDir(out)
    from toolkit.core.usage import run_cost

    run_cost(run)  # a damaged usage ledger or cost.json stops the run before the model loads
    batch_size, concurrency = run_options.batch_size, run_options.concurrency
    backend = backend or spec.build(run_options)
    if concurrency is not None:
        if concurrency < 1:
            raise BadOption(f"concurrency must be at least 1, got {concurrency}", param="concurrency")
        backend.set_concurrency(concurrency)
        batch_size = None  # the rows / requests in flight are what the records' batch size means
    max_new_tokens = run_options.max_new_tokens
    fresh = _run_config(backend, items, spec.model_args(), batch_size, max_new_tokens, run_options.submission_id,
                        run_options.limit, shard_kn)
    fresh.suite_samples = sampled_suites(run_options.data_dir, fresh.suites)
    config = _resume_config(run, fresh)
    run.save_config(config)
    tasks = [(item, suite_decoding(item.suite, config.generation, max_new_tokens)) for item in items]
    # Similar lengths batch together: less padding, same outputs (greedy, per-row attention masks).
    order = {s: i for i, s in reversed(list(enumerate(t[0].suite for t in tasks)))}
    tasks.sort(key=lambda t: (order[t[0].suite], t[1].max_new_tokens, len(t[0].prompt)))
    stage = GenerationStage(run, config, backend, run_options.mode)
    result = run_stage(stage, tasks, show_progress=show_progress)
    from toolkit.core.usage import write_cost

    cost = write_cost(run)
    return GenerateResult(run.root, config, result.n_written, result.n_skipped, result.seconds, stage.n_tokens, cost)


def _run_config(backend: Backend, items: list[SuiteItem], args: dict[str, str], batch_size: int | str | None,
                max_new_tokens: int | None, submission_id: str | None, limit: int | None,
                shard_kn: tuple[int, int] | None) -> RunConfig:
    """The run.json of a new run: the model as the backend describes it, the run's decoding and suites."""
    suite_names = list(dict.fromkeys(i.suite for i in items))
    desc = backend.describe()
    gen = GenerationConfig(
        temperature=0.0,
        max_new_tokens=max_new_tokens or DEFAULT_MAX_NEW_TOKENS,
        seed=DEFAULT_SEED,
        chat_template_sha256=desc.chat_template_sha256,
        backend=backend.name,
        dtype=desc.dtype,
        batch_size=backend.default_batch_size() if batch_size in (None, "auto") else int(batch_size),
        device=desc.device,
        do_sample=False,
    )
    return RunConfig(
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


def _resume_config(run: RunDir, config: RunConfig) -> RunConfig:
    """A new run's config, or the folder's own widened to this call (same model, decoding and shard only)."""
    if not run.exists():
        return config
    previous = run.load_config()
    if previous.identity() != config.identity():
        raise RunMismatch(
            f"{run.root} holds a run of {previous.model_id}@{previous.model_revision} with other settings; "
            "use another output folder (a run folder holds one model and one decoding config)"
        )
    if previous.shard != config.shard:
        raise RunMismatch(
            f"{run.root} holds shard {previous.shard or 'none'}, not shard {config.shard or 'none'}; "
            "use another output folder per shard"
        )
    # A resumed run may cover more items (a larger --limit); run.json records the widest.
    widest = None if previous.limit is None or config.limit is None else max(previous.limit, config.limit)
    resumed = previous.model_copy(update={"suites": sorted(set(previous.suites) | set(config.suites)), "limit": widest})
    resumed.suite_revisions.update(config.suite_revisions)
    # this call's data folder says whether its suites come from a sample; the others keep what they had
    resumed.suite_samples = {**{s: v for s, v in previous.suite_samples.items() if s not in config.suites},
                             **config.suite_samples}
    return resumed


def _response_record(
    config: RunConfig, item: SuiteItem, gen: GenerationConfig, completion: Completion, mc_mode: str | None = None,
    extra: dict | None = None,
) -> ResponseRecord:
    """One record; suite metadata goes to ``item_metadata`` (JSON), multiple-choice answers to choice/correct."""
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
