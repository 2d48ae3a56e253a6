"""A real two-node Ray cluster on this machine for the fan-out tests (Ray's own ``cluster_utils.Cluster``).

The head and the second node are separate raylets (their own worker processes), one CPU each, no
dashboard, a small object store and a short temporary folder of their own; the nodes inherit this
process's environment (offline Hugging Face, the package on ``sys.path``). Stopped by its handle,
never by process name.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from typing import Iterator

#: Per node: one CPU (the machine has two, shared), 80 MiB of object store (jobs return small results).
NODE_ARGS = dict(num_cpus=1, object_store_memory=80 * 1024 * 1024)
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "RAY_USAGE_STATS_ENABLED": "0", "TOKENIZERS_PARALLELISM": "false"}


@contextmanager
def two_node_cluster() -> Iterator[object]:
    """Yield a started ``ray.cluster_utils.Cluster`` with two live nodes; ``.address`` is what ``--ray-address`` takes."""
    from ray.cluster_utils import Cluster

    saved = {k: os.environ.get(k) for k in OFFLINE_ENV}
    os.environ.update(OFFLINE_ENV)  # the raylets, and so every worker, start with these
    # A short root: Ray's unix sockets live under it and a socket path has at most 107 bytes.
    temp = tempfile.mkdtemp(prefix="slmray-", dir="/tmp")
    # Adding a node writes the head's address into Ray's *default* temp folder whatever temp_dir says, and
    # fails on a fresh machine where no Ray ever ran (no /tmp/ray): make it.
    from ray._common.utils import get_default_ray_temp_dir

    os.makedirs(get_default_ray_temp_dir(), exist_ok=True)
    cluster = Cluster(initialize_head=True, shutdown_at_exit=True,
                      head_node_args=dict(NODE_ARGS, include_dashboard=False, temp_dir=temp))
    try:
        cluster.add_node(**NODE_ARGS)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        cluster.shutdown()
        shutil.rmtree(temp, ignore_errors=True)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
