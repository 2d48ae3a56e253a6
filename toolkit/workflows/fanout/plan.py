"""From the options of ``generate`` / ``evaluate`` (or a models file) to the work the board driver runs.

What a user can get wrong in the options -- the models file, the suites, the judge, the executor's
options -- is checked here, before the executor starts; what a run folder already holds (another
model, another shard count) is checked by the board before that model's first job.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from toolkit.core.errors import BadOption
from toolkit.stages.executors.base import DEFAULT_EXECUTOR, EXECUTORS, Executor, Resources, make_executor
from toolkit.stages.generation.backends import BACKENDS, Backend
from toolkit.core.registry import split_spec
from toolkit.stages.generation.runner import GenerateResult
from toolkit.stages.suites import SuiteItem, load_items
from .board import AfterGeneration, BoardResult, ModelOutcome, ModelRun, judge_runs_a_model, run_board
from .models_file import load_models_file


def wants_fanout(executor: str, shards: int | None, ray_address: str | None = None,
                 gpus_per_task: float | None = None, cpus_per_task: float | None = None) -> bool:
    """Whether a call leaves the plain in-process path (another executor, shards, or a task resource)."""
    return executor != DEFAULT_EXECUTOR or shards is not None or any(
        v is not None for v in (ray_address, gpus_per_task, cpus_per_task))


def fanout_refusals(backend: Backend | None = None, shard: str | None = None) -> None:
    """What a fanned-out run cannot take: a live Backend object (jobs build their own) or one shard."""
    if backend is not None:
        raise BadOption("a backend object cannot travel to an executor's jobs; name it with model and model_args",
                        param="backend")
    if shard is not None:
        raise BadOption("shard runs one shard here; shards fans the whole run out: give one of the two", param="shard")


def generation_options(suites: Sequence[str] | str, model: str, model_args: str | dict[str, str] | None,
                       data_dir: str | Path | None, limit: int | None, batch_size: int | str | None,
                       max_new_tokens: int | None, submission_id: str | None, mode: str,
                       concurrency: int | None) -> dict[str, Any]:
    """``generate``'s keyword arguments for one model's jobs: picklable, paths absolute (a job may run
    in another working directory, on another node)."""
    if isinstance(model_args, dict):
        model_args = ",".join(f"{k}={v}" for k, v in model_args.items())
    return dict(suites=[s.strip() for s in suites.split(",") if s.strip()] if isinstance(suites, str) else list(suites),
                model=model, model_args=model_args or "", data_dir=str(Path(data_dir).resolve()) if data_dir else None,
                limit=limit, batch_size=batch_size, max_new_tokens=max_new_tokens, submission_id=submission_id,
                mode=mode, concurrency=concurrency)


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


def board_items(options: dict[str, Any]) -> list[SuiteItem]:
    """The items every model answers (unknown suites and missing files fail here, before any job)."""
    return load_items(options["suites"], data_dir=options["data_dir"], limit=options["limit"])


def single_outcome(result: BoardResult) -> ModelOutcome:
    """The one model of a one-model run; its error raised as it was raised."""
    outcome = result.models[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome


def generate_fanned_out(out: str | Path, options: dict[str, Any], executor: str, shards: int | None,
                        ray_address: str | None, gpus_per_task: float | None, cpus_per_task: float | None,
                        show_progress: bool) -> GenerateResult:
    """``generate`` as shard jobs on ``executor``, merged into ``out``; re-running resumes what is missing."""
    items = board_items(options)
    with open_executor(executor, ray_address) as ex:
        run = ModelRun(Path(out).name, Path(out).resolve(), options, shards,
                       task_resources(ex, options["model"], gpus_per_task, cpus_per_task))
        result = run_board([run], ex, items, AfterGeneration(), show_progress)
    return single_outcome(result).generated


def evaluate_fanned_out(out: str | Path, to: str | Path, options: dict[str, Any], judge: str, submit_options: dict[str, Any],
                        executor: str, shards: int | None, ray_address: str | None, gpus_per_task: float | None,
                        cpus_per_task: float | None, show_progress: bool, models: str | Path | None = None) -> BoardResult:
    """generate → judge → submit for one model (``out`` is its run) or, with ``models``, for every entry
    of a models file (``out`` holds one run folder per entry, named by its submission id)."""
    entries = load_models_file(models).models if models is not None else None
    items = board_items(options)
    after = AfterGeneration(judge=judge, to=str(to), submit_options=submit_options, judge_on_executor=judge_runs_a_model(judge))
    with open_executor(executor, ray_address) as ex:
        if entries is None:
            runs = [ModelRun(Path(out).name, Path(out).resolve(), options, shards,
                             task_resources(ex, options["model"], gpus_per_task, cpus_per_task))]
        else:
            runs = [_entry_run(entry, Path(out), options, shards, ex, gpus_per_task, cpus_per_task) for entry in entries]
        return run_board(runs, ex, items, after, show_progress)


def _entry_run(entry, out: Path, board_options: dict[str, Any], shards: int | None, ex: Executor,
               gpus_per_task: float | None, cpus_per_task: float | None) -> ModelRun:
    """A models-file entry over the command line's options (the entry wins for what it sets)."""
    options = dict(board_options, model=entry.model or board_options["model"], model_args=entry.generate_args(),
                   submission_id=entry.submission_id)
    if entry.batch_size is not None:
        options["batch_size"] = entry.batch_size
    if entry.concurrency is not None:
        options["concurrency"] = entry.concurrency
    resources = task_resources(ex, options["model"], entry.gpus_per_task if entry.gpus_per_task is not None else gpus_per_task,
                               entry.cpus_per_task or cpus_per_task)
    name = entry.run_name()
    return ModelRun(name, (out / name).resolve(), options, shards, resources)
