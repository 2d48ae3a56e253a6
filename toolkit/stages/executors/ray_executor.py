"""The ``ray`` executor: each job a Ray task with its resources declared, retried when its worker or node dies.

- ``address``: a running cluster (``ray start --head`` on a SLURM allocation, a KubeRay cluster,
  ``auto`` for one on this machine); None connects to ``$RAY_ADDRESS`` when set, else starts a
  cluster on this machine for the duration of the command (no dashboard).
- Each job is one task: ``num_cpus`` / ``num_gpus`` from its :class:`Resources` (Ray then sets
  ``CUDA_VISIBLE_DEVICES`` and ``OMP_NUM_THREADS`` for it), spread over the nodes (``SPREAD``).
- A task whose worker process or node dies is retried by Ray (``max_retries``); the job resumes from
  the records it already wrote. An error the job raises itself (bad option, run mismatch) is not
  retried: it is the same on every node.
"""
from __future__ import annotations

import logging
import os
from concurrent.futures import Future
from typing import Any, Callable, TypeVar

from toolkit.core.errors import SlmboardError
from toolkit.core.registry import option_default
from .base import _NODE, Executor, ExecutorError, RayOptions, Resources

R = TypeVar("R")

#: Retries of a task whose worker or node died (Ray's own default for tasks).
MAX_RETRIES = option_default(RayOptions, "max_retries")


def _call(fn: Callable[..., R], *args: Any) -> R:
    """What runs on a Ray worker: the job itself (module-level, so Ray pickles it by reference)."""
    import ray

    _NODE["id"] = ray.get_runtime_context().get_node_id()
    return fn(*args)


#: Seconds to wait for a cluster's address to answer before saying it does not (Ray itself retries for minutes).
CONNECT_TIMEOUT_S = 10


def _check_reachable(address: str) -> None:
    """A HOST:PORT (or ray://HOST:PORT) that nothing answers is refused at once, naming it."""
    import socket

    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto", "local": Ray resolves these itself
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise ExecutorError(f"nothing answers at {address} ({exc.strerror or exc}); is the Ray cluster up "
                            "(`ray start` prints its address on the head node)?", param="ray_address") from exc


class RayExecutor(Executor):
    name = "ray"

    def __init__(self, options: RayOptions | None = None) -> None:
        """The executor of ``options`` (its model whole: the cluster's ``address``, the tasks' ``max_retries``)."""
        options = options or RayOptions()
        address, max_retries = options.address, options.max_retries
        try:
            import ray
        except ImportError as exc:
            raise ExecutorError("the ray executor needs Ray: pip install 'slmboard[ray]'", param="executor") from exc
        self._ray = ray
        self.max_retries = max_retries
        self._owns_connection = not ray.is_initialized()  # a notebook's own ray.init() is left alone
        if self._owns_connection:
            self._connect(address)
        self._remote = ray.remote(_call)
        self._refs: dict[int, Any] = {}  # keeps each running task's ObjectRef alive until it is done

    def _connect(self, address: str | None) -> None:
        target = address or os.environ.get("RAY_ADDRESS")
        # Workers' own logs stay in the Ray session folder, and Ray's INFO lines off the progress bars.
        quiet = dict(log_to_driver=bool(os.environ.get("SLMBOARD_DEBUG")), logging_level=logging.WARNING)
        if target:
            _check_reachable(target)
        try:
            if target:
                self._ray.init(address=target, **quiet)
            else:  # a cluster on this machine for this command only: "local", because a bare ray.init()
                # joins the last `ray start` cluster it finds in /tmp/ray, and dies with it
                self._ray.init(address="local", include_dashboard=False, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ExecutorError(f"cannot reach the Ray cluster at {target}: {exc}", param="ray_address") from exc

    def submit(self, fn: Callable[..., R], *args: Any, resources: Resources, label: str) -> "Future[R]":
        ref = self._remote.options(
            num_cpus=resources.cpus, num_gpus=resources.gpus, max_retries=self.max_retries, retry_exceptions=False,
            scheduling_strategy="SPREAD", name=label,
        ).remote(fn, *args)
        out: Future[R] = Future()
        self._refs[id(out)] = ref

        def settle(done: Future) -> None:
            self._refs.pop(id(out), None)
            try:
                out.set_result(done.result())
            except BaseException as exc:  # noqa: BLE001 - translated for the driver
                out.set_exception(self._translate(exc, label))

        ref.future().add_done_callback(settle)
        return out

    def _translate(self, exc: BaseException, label: str) -> BaseException:
        """The job's own SlmboardError as it was raised; a dead worker or node after every retry as one line."""
        exceptions = self._ray.exceptions
        if isinstance(exc, exceptions.RayTaskError):
            cause = exc.cause
            return cause if isinstance(cause, SlmboardError) else exc  # anything else is a bug: keep the traceback
        if isinstance(exc, exceptions.RayError):
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            return ExecutorError(f"{label}: {type(exc).__name__} after {self.max_retries} retries: {first} "
                                 "(what it wrote is kept; re-run the same command to resume)")
        return exc

    def has_gpus(self) -> bool:
        return self._ray.cluster_resources().get("GPU", 0) > 0

    def describe(self) -> str:
        total = self._ray.cluster_resources()
        nodes = [n for n in self._ray.nodes() if n.get("Alive")]
        gpus = f", {total.get('GPU', 0):g} GPU" if total.get("GPU") else ""
        return f"ray ({len(nodes)} node(s), {total.get('CPU', 0):g} CPU{gpus})"

    def close(self) -> None:
        if self._owns_connection and self._ray.is_initialized():
            self._ray.shutdown()  # tasks this driver still owns stop; their records stay for the next run
