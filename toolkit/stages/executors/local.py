"""The ``local`` executor: every job in this process, one at a time, in the order submitted.

One at a time because a job loads a model: two models side by side on one machine would only fight
over its memory and cores. The jobs run in one daemon thread so that the driver keeps drawing its
progress bars (and Ctrl-C is never held up by a job; what it appended stays and is resumed).
"""
from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable, TypeVar

from toolkit.core.registry import NoOptions
from .base import Executor, Resources, settle

R = TypeVar("R")


class LocalExecutor(Executor):
    name = "local"
    #: what a board run here says it ran on (also a one-model evaluate, which runs its steps in this process)
    description = "local (this process, one job at a time)"

    def __init__(self, options: NoOptions | None = None) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._worker = threading.Thread(target=self._work, name="slmboard-local-executor", daemon=True)
        self._worker.start()

    def submit(self, fn: Callable[..., R], *args: Any, resources: Resources, label: str) -> "Future[R]":
        future: Future[R] = Future()
        self._jobs.put((future, fn, args))
        return future

    def describe(self) -> str:
        return self.description

    def close(self) -> None:
        self._jobs.put(None)  # the worker stops after the job it is running

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            settle(*job)
