"""The driver of fanned-out work: every (model, shard) job scheduled at once, then per model, as its
shards complete, merge → judge → submit; one model's failure is recorded and the others go on.

The driver itself runs no model: shard jobs and local-model judges (a judge whose capabilities say
``local_model``, e.g. MD-Judge) go to the executor; API judges run in driver threads (their own
request pools, as ``slmboard judge`` runs them); submissions run one at a time (one dataset).
"""
from __future__ import annotations

import threading
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from toolkit.core.errors import SlmboardError
from toolkit.stages.executors.base import Executor, ExecutorError, Resources, run_in_thread
from toolkit.stages.generation.runner import GenerateResult
from toolkit.stages.suites import SuiteItem
from .shard_runs import ModelJob, ShardJob, ShardOutcome, done_items, merge_shards, prepare_shards, run_shard, shard_dir, shard_items
from .watch import BoardProgress, LineCounter

if TYPE_CHECKING:
    from toolkit.stages.judging.runner import JudgeResult
    from toolkit.outputs.publishing.submit import SubmitResult

#: Seconds between two looks at the records on disk (the progress bars).
POLL_S = 0.5


@dataclass
class ModelRun:
    """One model of the work: its run folder, how it is generated, into how many shards, on what."""

    name: str
    run_dir: Path
    model: ModelJob
    shards: int | None
    resources: Resources


@dataclass(frozen=True)
class AfterGeneration:
    """What happens to each merged run: judged with ``judge`` (None: not judged; on the executor when
    ``judge_on_executor``, see :func:`judge_runs_a_model`), then submitted to ``to`` (None: kept)."""

    judge: str | None = None
    to: str | None = None
    submit_options: dict[str, Any] = field(default_factory=dict)
    judge_on_executor: bool = False


@dataclass
class ModelOutcome:
    name: str
    run_dir: Path
    phase: str = "waiting"
    shards: list[ShardOutcome] = field(default_factory=list)
    generated: GenerateResult | None = None
    judged: JudgeResult | None = None
    submitted: SubmitResult | None = None
    error: BaseException | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None

    def error_text(self) -> str:
        """One line for a SlmboardError; the traceback of anything else (a bug shows where it is)."""
        if self.error is None or isinstance(self.error, SlmboardError):
            return str(self.error or "")
        return "".join(traceback.format_exception(self.error)).rstrip()

    def retried(self) -> list[ShardOutcome]:
        """Shards whose job started more than once (its worker or node died, or a driver was killed)."""
        return [s for s in self.shards if s.attempt > 1]


@dataclass
class BoardResult:
    executor: str
    models: list[ModelOutcome]
    seconds: float

    @property
    def failed(self) -> list[ModelOutcome]:
        return [m for m in self.models if m.failed]


def judge_job(run_dir: str, judge: str) -> JudgeResult:
    """Judge one merged run (on a worker for a local-model judge, in a driver thread otherwise)."""
    from toolkit.stages.judging.runner import judge_run

    return judge_run(run_dir, judge=judge, show_progress=False)


def judge_runs_a_model(judge: str) -> bool:
    """Whether ``judge`` runs a model in its own process (so an executor places it); building it here
    also refuses a bad judge spec before any job starts."""
    from toolkit.stages.judging.base import make_judge

    return make_judge(judge).capabilities.local_model


def run_board(runs: Sequence[ModelRun], executor: Executor, items: list[SuiteItem], after: AfterGeneration,
              show_progress: bool = True) -> BoardResult:
    """Run every model's shards on ``executor`` at once, then merge, judge and submit each as it completes."""
    return _Driver(list(runs), executor, items, after).run(show_progress)


class _Driver:
    def __init__(self, runs: list[ModelRun], executor: Executor, items: list[SuiteItem], after: AfterGeneration) -> None:
        self.runs, self.executor, self.items, self.after = runs, executor, items, after
        self.outcomes = [ModelOutcome(r.name, r.run_dir) for r in runs]
        self.pending: dict[Future, tuple[int, str]] = {}
        self.n_shards = [0] * len(runs)
        self.unsettled = [0] * len(runs)
        self.shard_errors: list[list[tuple[str, BaseException]]] = [[] for _ in runs]
        self.counter = LineCounter()
        self.publish_lock = threading.Lock()
        self.started = time.perf_counter()

    def run(self, show_progress: bool) -> BoardResult:
        for i in range(len(self.runs)):
            self._start(i)
        progress = BoardProgress([r.name for r in self.runs], [len(self.items)] * len(self.runs),
                                 [self._on_disk(i) for i in range(len(self.runs))], show_progress)
        try:
            while self.pending:
                done, _ = wait(list(self.pending), timeout=POLL_S, return_when=FIRST_COMPLETED)
                for future in done:
                    i, step = self.pending.pop(future)
                    self._settle(i, step, future)
                self._draw(progress)
            self._draw(progress)
        finally:
            progress.close()
        return BoardResult(self.executor.describe(), self.outcomes, time.perf_counter() - self.started)

    # ---- generation: one job per shard not yet complete ----------------------------------------
    def _start(self, i: int) -> None:
        run = self.runs[i]
        try:
            n, plan_id = prepare_shards(run.run_dir, run.shards, run.model)
        except Exception as exc:  # noqa: BLE001 - this model fails, the others go on
            return self._fail(i, exc)
        self.n_shards[i] = n
        for k, wanted in enumerate(shard_items(self.items, n)):
            if wanted <= done_items(shard_dir(run.run_dir, k, n)):  # complete: no job, no model load
                self.outcomes[i].shards.append(ShardOutcome(f"{k}/{n}", 0, len(wanted), 0.0, 0, 0, ""))
                continue
            job = ShardJob(str(run.run_dir), k, n, plan_id, run.model)
            future = self.executor.submit(run_shard, job, resources=run.resources, label=f"generate {run.name} {k}/{n}")
            self.pending[future] = (i, f"shard {k}/{n}")
            self.unsettled[i] += 1
        self.outcomes[i].phase = "generating"
        if not self.unsettled[i]:
            self._merge(i)

    def _settle(self, i: int, step: str, future: Future) -> None:
        try:
            value = future.result()
        except Exception as exc:  # noqa: BLE001 - recorded for this model only
            if step.startswith("shard"):
                self.shard_errors[i].append((step, exc))
                return self._shard_settled(i)
            return self._fail(i, exc)
        outcome = self.outcomes[i]
        if step.startswith("shard"):
            outcome.shards.append(value)
            self._shard_settled(i)
        elif step == "judge":
            outcome.judged = value
            self._publish(i) if self.after.to else self._finish(i, "judged")
        else:
            outcome.submitted = value
            self._finish(i, "already published" if value.revision == "already-published" else "published")

    def _shard_settled(self, i: int) -> None:
        self.unsettled[i] -= 1
        if self.unsettled[i]:
            return  # the other shards keep running: what they write is kept for the next run
        errors = self.shard_errors[i]
        if not errors:
            return self._merge(i)
        if len({str(exc) for _, exc in errors}) == 1:
            return self._fail(i, errors[0][1])
        self._fail(i, ExecutorError("; ".join(f"{step}: {exc}" for step, exc in errors)))

    # ---- per model, once its shards are complete -------------------------------------------------
    def _merge(self, i: int) -> None:
        run, outcome = self.runs[i], self.outcomes[i]
        outcome.phase = "merging"
        try:
            _, config = merge_shards(run.run_dir, self.n_shards[i], run.model.options.data_dir)
        except Exception as exc:  # noqa: BLE001
            return self._fail(i, exc)
        shards = outcome.shards
        outcome.generated = GenerateResult(run.run_dir, config, sum(s.n_new for s in shards), sum(s.n_skipped for s in shards),
                                           time.perf_counter() - self.started, sum(s.n_output_tokens for s in shards))
        if not self.after.judge:
            return self._finish(i, "generated")
        outcome.phase = "judging"
        if self.after.judge_on_executor:
            gpus = 1.0 if self.executor.has_gpus() else 0.0
            future = self.executor.submit(judge_job, str(run.run_dir), self.after.judge,
                                          resources=Resources(cpus=run.resources.cpus, gpus=gpus), label=f"judge {run.name}")
        else:
            future = run_in_thread(judge_job, str(run.run_dir), self.after.judge, name=f"judge {run.name}")
        self.pending[future] = (i, "judge")

    def _publish(self, i: int) -> None:
        self.outcomes[i].phase = "submitting"
        self.pending[run_in_thread(self._submit_one, i, name=f"submit {self.runs[i].name}")] = (i, "submit")

    def _submit_one(self, i: int) -> SubmitResult:
        from toolkit.outputs.publishing.submit import submit_unless_published

        with self.publish_lock:  # one dataset: one commit at a time
            return submit_unless_published(self.runs[i].run_dir, self.after.to, **self.after.submit_options)

    def _finish(self, i: int, phase: str) -> None:
        self.outcomes[i].phase = phase

    def _fail(self, i: int, exc: BaseException) -> None:
        self.outcomes[i].error = exc
        self.outcomes[i].phase = "failed"

    # ---- progress --------------------------------------------------------------------------------
    def _on_disk(self, i: int) -> int:
        n = self.n_shards[i]
        if not n:
            return 0
        return self.counter.count(sorted(self.runs[i].run_dir.glob(f".shards/*-of-{n}/responses/*.jsonl")))

    def _draw(self, progress: BoardProgress) -> None:
        for i, outcome in enumerate(self.outcomes):
            phase = outcome.phase
            if phase == "generating":
                phase = f"generating, {self.n_shards[i] - self.unsettled[i]}/{self.n_shards[i]} shard(s) done"
            progress.show(i, self._on_disk(i), phase)
