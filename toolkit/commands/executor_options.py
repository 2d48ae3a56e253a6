"""The flags of a run that fans out (``generate``, ``evaluate``): where its jobs run and what each needs."""
from __future__ import annotations

import argparse


def add_executor_arguments(p: argparse.ArgumentParser) -> None:
    from ..executors import EXECUTORS

    g = p.add_argument_group("fan-out (a Ray cluster, or shards in this process)")
    g.add_argument("--executor", default="local", choices=EXECUTORS.names(),
                   help="where the work runs: local (this process; default) or ray (one Ray task per model and shard, "
                        "retried when its worker or node dies; extra [ray])")
    g.add_argument("--ray-address", default=None, metavar="ADDR",
                   help="a running Ray cluster (host:port, or auto); default $RAY_ADDRESS, else a cluster on this machine "
                        "for this command")
    g.add_argument("--shards", type=int, default=None, metavar="N",
                   help="split each model's items into N shard jobs (generate --shard K/N each), merged when all are "
                        "complete; default: the N already in the run folder, else 1")
    g.add_argument("--gpus-per-task", type=float, default=None, metavar="K",
                   help="GPUs each task declares (e.g. 2 for tensor-parallel vLLM); default 1 when the cluster has GPUs "
                        "and the model runs in the task, else 0")
    g.add_argument("--cpus-per-task", type=float, default=None, metavar="N", help="CPUs each task declares (default 1)")


def executor_kwargs(a: argparse.Namespace) -> dict:
    return dict(executor=a.executor, shards=a.shards, ray_address=a.ray_address, gpus_per_task=a.gpus_per_task,
                cpus_per_task=a.cpus_per_task)
