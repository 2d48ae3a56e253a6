"""Where the work of a fanned-out run executes: one small interface, one registry.

An :class:`Executor` runs a job (a module-level function and its picklable arguments) somewhere
and hands back a :class:`concurrent.futures.Future` of its result. The driver (``toolkit.fanout``)
decides *what* runs -- one job per (model, shard), a local-model judge -- and an executor decides
*where*: ``local`` runs the jobs one after another in this process, ``ray`` runs each as a Ray task
with its resources declared, retried by Ray when its worker or node dies.

A job must be safe to run again after being killed at any moment: the fan-out's jobs are the
resumable stages (``toolkit.stage``), so a retried job resumes from the records it already wrote.
This module imports nothing heavy.
"""
from __future__ import annotations

import abc
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from ..errors import SlmboardError
from ..registry import Registry

R = TypeVar("R")

__all__ = ["Executor", "ExecutorError", "Resources", "EXECUTORS", "make_executor", "run_in_thread"]


class ExecutorError(SlmboardError):
    """A job could not run to its end on the executor (its worker kept dying, the cluster is unreachable)."""


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
    threading.Thread(target=settle, args=(future, fn, args), name=name, daemon=True).start()
    return future


def settle(future: "Future[R]", fn: Callable[..., R], args: tuple) -> None:
    """Run ``fn(*args)`` for ``future`` (unless it was cancelled): its result or its exception goes to the future."""
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(fn(*args))
    except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
        future.set_exception(exc)


def _is_executor_class(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, Executor)


#: name -> Executor class, built with its own keyword options (see each class).
EXECUTORS: Registry[type[Executor]] = Registry("executor", _is_executor_class, "an Executor subclass")
EXECUTORS.register_lazy("local", "toolkit.executors.local:LocalExecutor")
EXECUTORS.register_lazy("ray", "toolkit.executors.ray_executor:RayExecutor")


def make_executor(name: str, **options: Any) -> Executor:
    """Build the executor ``name`` with its options; :class:`~toolkit.errors.UnknownComponent` lists the valid names."""
    return EXECUTORS.get(name)(**options)


#: The node a job runs on, as its executor names it (a Ray node id); the host name otherwise.
_NODE: dict[str, str] = {}


def node_name() -> str:
    """Where the current job runs (recorded with each shard attempt)."""
    import socket

    return _NODE.get("id") or socket.gethostname()
