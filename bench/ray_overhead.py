"""What `--executor ray` costs over a plain local run of the same work, side by side in one run.

    .venv/bin/python bench/ray_overhead.py --out bench/results/ray_overhead.md
    .venv/bin/python bench/ray_overhead.py --limit 8 --max-new-tokens 32 --pairs 1   # a quick look

Workload (default): the demo's -- the 30 smoke prompts, the embedded SmolLM2-135M-Instruct, float32,
greedy, <= 512 new tokens, each run into a fresh run folder, each a fresh `slmboard generate` process
timed from start to exit (imports, model load, generation, merge). Paths, in turn (A B A B ...):

- local: `slmboard generate` (this process; no executor, no shards) -- the baseline;
- ray, cluster running: `--executor ray --ray-address ADDR --cpus-per-task 2`, a one-node Ray cluster
  (2 CPUs, no dashboard) started once by this script, as a cluster is started once for many commands;
  the task declares both cores, so torch gets the same two threads as the local run;
- ray, own cluster (once, at the end): `--executor ray --cpus-per-task 2` without an address: the
  command starts a cluster on this machine and stops it.

Overhead = ray wall / local wall of the same pair (the median over pairs). Every ray run's records are
compared with the local run's (equal apart from nothing: same decoding, same batch). Load averages are
printed beside each run: the machine may be shared.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "RAY_USAGE_STATS_ENABLED": "0",
       "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def timed(cmd: list[str], out: Path) -> dict:
    started, load_before = time.perf_counter(), load()
    proc = subprocess.run(cmd + ["--out", str(out)], capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr[-3000:]}")
    line = proc.stdout.strip().splitlines()[-1]  # "generated N response(s), ... in S s → RUN"
    return {"wall": wall, "load": f"{load_before} → {load()}", "line": line, "records": records(out)}


def records(run: Path) -> dict:
    return {(p.stem, json.loads(x)["item_id"]): json.loads(x) for p in sorted((run / "responses").glob("*.jsonl"))
            for x in p.read_text(encoding="utf-8").splitlines()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=None, help="smoke prompts (default: all 30, the demo)")
    ap.add_argument("--max-new-tokens", type=int, default=None, help="default: the suite's (512, the demo)")
    ap.add_argument("--pairs", type=int, default=2, help="local/ray pairs on the running cluster")
    ap.add_argument("--out", type=Path, default=None, help="also write the report (markdown) here")
    a = ap.parse_args()

    from ray.cluster_utils import Cluster

    base = [sys.executable, "-m", "toolkit.cli", "generate", "--suites", "smoke"]
    base += ["--limit", str(a.limit)] if a.limit else []
    base += ["--max-new-tokens", str(a.max_new_tokens)] if a.max_new_tokens else []
    work = Path(tempfile.mkdtemp(prefix="ray-overhead-"))
    os.environ.update(ENV)  # the cluster's workers start with it (offline, this checkout importable)
    temp = tempfile.mkdtemp(prefix="slmray-", dir="/tmp")
    cluster = Cluster(initialize_head=True, head_node_args=dict(num_cpus=2, include_dashboard=False, temp_dir=temp,
                                                                object_store_memory=100 * 1024 * 1024))
    rows, ratios = [], []
    try:
        ray_cmd = base + ["--executor", "ray", "--ray-address", cluster.address, "--cpus-per-task", "2"]
        for i in range(a.pairs):
            local = timed(base, work / f"local-{i}")
            ray = timed(ray_cmd, work / f"ray-{i}")
            assert ray["records"] == local["records"], "the ray run's records differ from the local run's"
            ratios.append(ray["wall"] / local["wall"])
            rows += [("local", i, local), ("ray, cluster running", i, ray)]
            print(f"pair {i}: local {local['wall']:.1f}s, ray {ray['wall']:.1f}s, ratio {ratios[-1]:.3f}", flush=True)
    finally:
        cluster.shutdown()
        shutil.rmtree(temp, ignore_errors=True)
    own = timed(base + ["--executor", "ray", "--cpus-per-task", "2"], work / "ray-own")
    assert own["records"] == rows[0][2]["records"]
    rows.append(("ray, own cluster", 0, own))
    report(a, rows, ratios, own["wall"] / statistics.median(r[2]["wall"] for r in rows if r[0] == "local"))
    shutil.rmtree(work, ignore_errors=True)


def report(a, rows, ratios, own_ratio: float) -> None:
    n = len(rows[0][2]["records"])
    lines = [f"# --executor ray overhead ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs)", "",
             f"Workload: {n} smoke prompts, max_new_tokens {a.max_new_tokens or 'suite default (512)'}; records of every "
             "ray run equal to the local run's.", "",
             "| path | pair | wall s | load (1/5/15 min) before → after | the command's own line |", "|---|---|---|---|---|"]
    lines += [f"| {path} | {i} | {r['wall']:.1f} | {r['load']} | {r['line']} |" for path, i, r in rows]
    lines += ["", f"ray / local, cluster running: {', '.join(f'{x:.3f}' for x in ratios)} "
                  f"(median **{statistics.median(ratios):.3f}**, i.e. {100 * (statistics.median(ratios) - 1):+.1f}%)",
              f"ray / local (median local), the command starting its own cluster: **{own_ratio:.3f}**"]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
