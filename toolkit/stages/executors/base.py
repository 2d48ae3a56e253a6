"""Where the work of a fanned-out run executes: one small interface, one registry.

An :class:`Executor` runs a job (a module-level function and its picklable arguments) somewhere
and hands back a :class:`concurrent.futures.Future` of its result. The driver (``toolkit.workflows.fanout``)
decides *what* runs -- one job per (model, shard), a local-model judge -- and an executor decides
*where*: ``local`` runs the jobs one after another in this process, ``ray`` runs each as a Ray task
with its resources declared, retried by Ray when its worker or node dies.

A job must be safe to run again after being killed at any moment: the fan-out's jobs are the
resumable stages (``toolkit.core.stage_engine``), so a retried job resumes from the records it already wrote.
This module imports nothing heavy.
"""
from __future__ import annotations

import abc
import contextvars
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable, Optional, TypeVar

from toolkit.core.defaults import DEFAULT_EXECUTOR
from toolkit.core.errors import ExecutorError, SlmboardError
from toolkit.core.registry import Options, Registry, option

R = TypeVar("R")

__all__ = ["Executor", "ExecutorError", "Resources", "EXECUTORS", "make_executor", "run_in_thread", "FanoutOptions",
           "DEFAULT_EXECUTOR"]


@dataclass(frozen=True)
class Resources:
    """What one job needs on the node it runs on (the ray executor declares it; local runs it here)."""

    cpus: float = 1.0
    gpus: float = 0.0

    def __post_init__(self) -> None:
        if self.cpus <= 0:
            raise SlmboardError(f"a task needs more than 0 CPUs, got {self.cpus}", param="cpus_per_task")
        if self.gpus < 0:
            raise SlmboardError(f"a task cannot need {self.gpus} GPUs", param="gpus_per_task")


class Executor(abc.ABC):
    """Runs jobs and returns futures; ``with make_executor(...) as ex:`` closes it."""

    name: str

    @abc.abstractmethod
    def submit(self, fn: Callable[..., R], *args: Any, resources: Resources, label: str) -> "Future[R]":
        """Start ``fn(*args)`` where ``resources`` fit; ``label`` names the job in logs and errors."""

    def has_gpus(self) -> bool:
        """Whether a job may ask for GPUs here (decides the default GPUs of a model's jobs)."""
        return False

    def describe(self) -> str:
        """One line for the user: where the jobs run."""
        return self.name

    def close(self) -> None:
        """Release what the executor holds; jobs still running are abandoned (their records stay)."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_in_thread(fn: Callable[..., R], *args: Any, name: str = "slmboard-job") -> "Future[R]":
    """``fn(*args)`` in a daemon thread, as a Future: Ctrl-C in the driver never waits for it (what it
    appended stays on disk and the next run resumes it, as after any kill)."""
    future: Future[R] = Future()
    # in the caller's context: a command's Hub token (toolkit.core.hub_access) reaches the submit it starts here
    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(settle, future, fn, args), name=name, daemon=True).start()
    return future


def settle(future: "Future[R]", fn: Callable[..., R], args: tuple) -> None:
    """Run ``fn(*args)`` for ``future`` (unless it was cancelled): its result or its exception goes to the future."""
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(fn(*args))
    except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
        future.set_exception(exc)


class RayOptions(Options):
    address: Optional[str] = option(None, help="a running Ray cluster (on the command line: --ray-address)", cli=False)
    max_retries: int = option(3, help="times Ray runs a task again when its worker or node dies", ge=0, cli=False)


#: name -> executor, built with its own options.
EXECUTORS: Registry = Registry("executor")
EXECUTORS.add("local", "this process, the jobs one after another", "toolkit.stages.executors.local:LocalExecutor")
EXECUTORS.add("ray", "one Ray task per model and shard, retried when its worker or node dies (extra [ray])",
              "toolkit.stages.executors.ray_executor:RayExecutor", RayOptions)


def make_executor(name: str, **options: Any) -> Executor:
    """Build the executor ``name`` with its checked options; :class:`~toolkit.core.errors.UnknownComponent` lists the
    valid names, :class:`~toolkit.core.errors.BadOption` names an option it does not take."""
    return EXECUTORS.get(name).build(options)


class FanoutOptions(Options):
    """Where a run's work runs and what each job needs: ``generate`` and ``evaluate`` (their ``fanout``
    and ``EvaluationOptions.execution`` objects)."""

    executor: str = option(DEFAULT_EXECUTOR, help="where the work runs: local (this process; default) or ray (one Ray "
                                                  "task per model and shard, retried when its worker or node dies; "
                                                  "extra [ray])", choices=EXECUTORS)
    ray_address: Optional[str] = option(None, help="a running Ray cluster (host:port, or auto); default $RAY_ADDRESS, "
                                                   "else a cluster on this machine for this command", metavar="ADDR")
    shards: Optional[int] = option(None, help="split each model's items into N shard jobs (generate --shard K/N each), "
                                              "merged when all are complete; default: the N already in the run folder, "
                                              "else 1", ge=1, metavar="N")
    gpus_per_task: Optional[float] = option(None, help="GPUs each task declares (e.g. 2 for tensor-parallel vLLM); default "
                                                       "1 when the cluster has GPUs and the model runs in the task, else 0",
                                            ge=0, metavar="K")
    cpus_per_task: Optional[float] = option(None, help="CPUs each task declares (default 1)", gt=0, metavar="N")


#: The node a job runs on, as its executor names it (a Ray node id); the host name otherwise.
_NODE: dict[str, str] = {}


def node_name() -> str:
    """Where the current job runs (recorded with each shard attempt)."""
    import socket

    return _NODE.get("id") or socket.gethostname()
