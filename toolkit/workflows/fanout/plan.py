"""From the options of ``generate`` / ``evaluate`` (or a models file) to the work the board driver runs.

What a user can get wrong in the options -- the models file, the suites, the judge, the executor's
options -- is checked here, before the executor starts; what a run folder already holds (another
model, another shard count) is checked by the board before that model's first job.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from toolkit.core.errors import BadOption
from toolkit.stages.executors.base import DEFAULT_EXECUTOR, EXECUTORS, Executor, FanoutOptions, Resources, make_executor
from toolkit.stages.generation.backends import BACKENDS, Backend
from toolkit.stages.generation.components import BackendSpec, GenerationRunOptions
from toolkit.core.registry import split_spec
from toolkit.stages.generation.runner import GenerateResult
from toolkit.stages.suites import SuiteItem, load_items
from .board import AfterGeneration, BoardResult, ModelOutcome, ModelRun, judge_runs_a_model, run_board
from .models_file import load_models_file
from .shard_runs import ModelJob


def wants_fanout(fanout: FanoutOptions) -> bool:
    """Whether a call leaves the plain in-process path (another executor, shards, or a task resource)."""
    return fanout.executor != DEFAULT_EXECUTOR or any(
        v is not None for v in (fanout.shards, fanout.ray_address, fanout.gpus_per_task, fanout.cpus_per_task))


def fanout_refusals(backend: Backend | None = None, shard: str | None = None) -> None:
    """What a fanned-out run cannot take: a live Backend object (jobs build their own) or one shard."""
    if backend is not None:
        raise BadOption("a backend object cannot travel to an executor's jobs; name it with model and model_args",
                        param="backend")
    if shard is not None:
        raise BadOption("shard runs one shard here; shards fans the whole run out: give one of the two", param="shard")


def model_job(model: BackendSpec | str, model_args: str | Mapping[str, Any] | None, options: GenerationRunOptions) -> ModelJob:
    """One model's jobs: the model as its backend's name and lm-eval ``model_args`` (checked here, before any job
    starts), the suites' data folder absolute (a job may run in another working directory, on another node)."""
    spec = BackendSpec.combine(model, model_args)
    args = ",".join(f"{k}={v}" for k, v in spec.model_args().items())
    data_dir = str(Path(options.data_dir).resolve()) if options.data_dir else None
    return ModelJob(spec.name, args, options.model_copy(update={"data_dir": data_dir}))


def open_executor(executor: str, ray_address: str | None) -> Executor:
    """The executor named (its options checked); ``ray_address`` belongs to the ray executor only."""
    EXECUTORS.get(executor)  # an unknown name lists the valid ones
    if executor != "ray" and ray_address is not None:
        raise BadOption(f"ray_address applies to the ray executor, not to {executor!r}", param="ray_address")
    return make_executor(executor, address=ray_address) if executor == "ray" else make_executor(executor)


def task_resources(executor: Executor, model: str, gpus_per_task: float | None, cpus_per_task: float | None) -> Resources:
    """One GPU per task when the cluster has GPUs and the backend runs the model itself (not an API)."""
    if gpus_per_task is None:
        factory = BACKENDS.get(split_spec(model)[0]).load()  # "hf", "openai:<served model>", ...
        on_accelerator = factory.uses_accelerator if isinstance(factory, type) and issubclass(factory, Backend) else True
        gpus_per_task = 1.0 if on_accelerator and executor.has_gpus() else 0.0
    return Resources(cpus=cpus_per_task or 1.0, gpus=gpus_per_task)


def board_items(job: ModelJob) -> list[SuiteItem]:
    """The items every model answers (unknown suites and missing files fail here, before any job)."""
    return load_items(job.options.suites, data_dir=job.options.data_dir, limit=job.options.limit)


def single_outcome(result: BoardResult) -> ModelOutcome:
    """The one model of a one-model run; its error raised as it was raised."""
    outcome = result.models[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome


def generate_fanned_out(out: str | Path, job: ModelJob, fanout: FanoutOptions, show_progress: bool) -> GenerateResult:
    """``generate`` as shard jobs on ``fanout.executor``, merged into ``out``; re-running resumes what is missing."""
    items = board_items(job)
    with open_executor(fanout.executor, fanout.ray_address) as ex:
        run = ModelRun(Path(out).name, Path(out).resolve(), job, fanout.shards,
                       task_resources(ex, job.model, fanout.gpus_per_task, fanout.cpus_per_task))
        result = run_board([run], ex, items, AfterGeneration(), show_progress)
    return single_outcome(result).generated


def evaluate_fanned_out(out: str | Path, to: str | Path, job: ModelJob, judge: str, submit_options: dict[str, Any],
                        fanout: FanoutOptions, show_progress: bool, models: str | Path | None = None) -> BoardResult:
    """generate → judge → submit for one model (``out`` is its run) or, with ``models``, for every entry
    of a models file (``out`` holds one run folder per entry, named by its submission id)."""
    entries = load_models_file(models).models if models is not None else None
    items = board_items(job)
    after = AfterGeneration(judge=judge, to=str(to), submit_options=submit_options, judge_on_executor=judge_runs_a_model(judge))
    gpus, cpus = fanout.gpus_per_task, fanout.cpus_per_task
    with open_executor(fanout.executor, fanout.ray_address) as ex:
        if entries is None:
            runs = [ModelRun(Path(out).name, Path(out).resolve(), job, fanout.shards, task_resources(ex, job.model, gpus, cpus))]
        else:
            runs = [_entry_run(entry, Path(out), job, fanout.shards, ex, gpus, cpus) for entry in entries]
        return run_board(runs, ex, items, after, show_progress)


def _entry_run(entry, out: Path, board: ModelJob, shards: int | None, ex: Executor,
               gpus_per_task: float | None, cpus_per_task: float | None) -> ModelRun:
    """A models-file entry over the command line's options (the entry wins for what it sets)."""
    update: dict[str, Any] = {"submission_id": entry.submission_id}
    if entry.batch_size is not None:
        update["batch_size"] = entry.batch_size
    if entry.concurrency is not None:
        update["concurrency"] = entry.concurrency
    job = ModelJob(entry.model or board.model, entry.generate_args(), board.options.model_copy(update=update))
    resources = task_resources(ex, job.model, entry.gpus_per_task if entry.gpus_per_task is not None else gpus_per_task,
                               entry.cpus_per_task or cpus_per_task)
    name = entry.run_name()
    return ModelRun(name, (out / name).resolve(), job, shards, resources)
