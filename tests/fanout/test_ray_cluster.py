"""`--executor ray` on a real two-node Ray cluster (head + a second raylet) with the embedded SmolLM2.

- two suites x two shards give records identical to a plain local run, and the shards ran on both nodes;
- a worker process killed (SIGKILL) mid-task: Ray retries the task, which resumes from its own records
  (records existed before the kill and after it; none lost, none twice);
- the driver killed mid-run: the same command again resumes what is missing;
- a board of three variants of the tiny model: generate → judge → submit in one command, all three on
  the board; a fourth entry that fails is reported and does not stop the others;
- the second node killed mid-task: its task runs again on the head node and resumes;
- a local-model judge (MD-Judge) goes to the cluster as a task of its own.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from toolkit.stages.executors.base import RayOptions

pytest.importorskip("ray", reason="the ray extra is not installed")

from slmboard_ray_cluster import OFFLINE_ENV, two_node_cluster  # noqa: E402
from slmboard_suite_fixtures import write_salad  # noqa: E402
from slmboard_testing import new_board  # noqa: E402

from toolkit import api  # noqa: E402
from toolkit.workflows.fanout import read_attempts, shard_dir  # noqa: E402
from toolkit.stages.suites import load_items  # noqa: E402

pytestmark = pytest.mark.slow

SUITES = "smoke,salad"
LIMIT = 4  # smoke 4 + salad 3 (the fixture's rows) = 7 items; shard 0 has 4, shard 1 has 3
GEN = dict(suites=SUITES, limit=LIMIT, max_new_tokens=6, batch_size=2)
QUIET = api.Services(progress=False)


def ray_shards(cluster) -> api.FanoutOptions:
    """Two shard jobs on the test cluster."""
    return api.FanoutOptions(executor="ray", ray_address=cluster.address, shards=2)
ENV = {**os.environ, **OFFLINE_ENV}


@pytest.fixture(scope="module")
def cluster():
    with two_node_cluster() as c:
        yield c


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("suites")
    write_salad(root)
    return root


@pytest.fixture(scope="module")
def local_records(tmp_path_factory, data_dir) -> dict[tuple[str, str], dict]:
    """The plain local run (this process, no shards, no executor) the fanned-out runs must equal."""
    run = tmp_path_factory.mktemp("local") / "run"
    api.generate(run, options=api.GenerationRunOptions(data_dir=data_dir, **GEN), services=QUIET)
    return records(run)


def records(run: Path) -> dict[tuple[str, str], dict]:
    out = {}
    for path in sorted((run / "responses").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            assert (row["suite"], row["item_id"]) not in out, f"{row['item_id']} twice in {path}"
            out[row["suite"], row["item_id"]] = row
    return out


def but_batch_size(rows: dict[tuple[str, str], dict]) -> dict[tuple[str, str], dict]:
    """Records with the recorded batch size blanked (the kill tests answer one prompt at a time)."""
    return {key: {**row, "generation": {**row["generation"], "batch_size": None}} for key, row in rows.items()}


def expected_keys(data_dir: Path, limit: int = LIMIT) -> set[tuple[str, str]]:
    return {(i.suite, i.item_id) for i in load_items(SUITES, data_dir=data_dir, limit=limit)}


def count_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def shard_lines(run: Path, k: int, n: int = 2) -> int:
    return sum(count_lines(p) for p in (shard_dir(run, k, n) / "responses").glob("*.jsonl"))


def drive_in_thread(run: Path, data_dir: Path, cluster) -> tuple[threading.Thread, dict]:
    """`generate --executor ray --shards 2`, one answer at a time (batch 1), driven from a thread of this process."""
    outcome: dict = {}

    def drive() -> None:
        try:
            outcome["result"] = api.generate(run, options=api.GenerationRunOptions(data_dir=data_dir, **{**GEN, "batch_size": 1}),
                                             fanout=ray_shards(cluster), services=QUIET)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            outcome["error"] = exc

    driver = threading.Thread(target=drive, daemon=True)
    driver.start()
    return driver, outcome


def test_two_suites_two_shards_equal_a_local_run(cluster, data_dir, local_records, tmp_path):
    run = tmp_path / "run"
    result = api.generate(run, options=api.GenerationRunOptions(data_dir=data_dir, **GEN), fanout=ray_shards(cluster),
                          services=QUIET)
    assert result.n_new == 7 and result.n_skipped == 0
    assert records(run) == local_records  # every field of every record, byte for byte as JSON
    assert set(local_records) == expected_keys(data_dir)
    nodes = {read_attempts(run, k, 2)[0]["node"] for k in range(2)}
    assert len(nodes) == 2, f"the two shards ran on one node: {nodes}"  # the second node did work
    merged = json.loads((run / "run.json").read_text())
    assert merged["shard"] is None and merged["limit"] == LIMIT and sorted(merged["suites"]) == ["salad", "smoke"]

    again = api.generate(run, options=api.GenerationRunOptions(data_dir=data_dir, **GEN), fanout=ray_shards(cluster),
                         services=QUIET)
    assert (again.n_new, again.n_skipped) == (0, 7)  # complete shards: no job, no model load
    assert [len(read_attempts(run, k, 2)) for k in range(2)] == [1, 1]


def test_worker_killed_mid_task_is_retried_and_resumes(cluster, data_dir, local_records, tmp_path):
    """One answer at a time (batch 1) in shard 0; its worker is SIGKILLed once it has written some."""
    run = tmp_path / "run"
    driver, outcome = drive_in_thread(run, data_dir, cluster)
    deadline = time.monotonic() + 600
    while not (read_attempts(run, 0, 2) and shard_lines(run, 0) >= 1):
        assert driver.is_alive(), outcome
        assert time.monotonic() < deadline, "shard 0 wrote nothing in 600 s"
        time.sleep(0.02)
    victim = read_attempts(run, 0, 2)[0]["pid"]
    os.kill(victim, signal.SIGKILL)
    time.sleep(0.5)  # the dead worker's last append is whole or absent; count what it left
    before = shard_lines(run, 0)
    prefix = {p.name: p.read_bytes() for p in (shard_dir(run, 0, 2) / "responses").glob("*.jsonl")}
    assert 1 <= before < 4, f"the kill must land mid-task: shard 0 had {before} of its 4 records"

    driver.join(timeout=600)
    assert not driver.is_alive() and "error" not in outcome, outcome
    attempts = read_attempts(run, 0, 2)
    assert len(attempts) == 2 and attempts[1]["pid"] != victim  # Ray ran the task again, in another worker
    assert shard_lines(run, 0) == 4 and shard_lines(run, 1) == 3  # shard 0: the records before the kill + the rest
    after = {p.name: p.read_bytes() for p in (shard_dir(run, 0, 2) / "responses").glob("*.jsonl")}
    assert all(after[name].startswith(kept) for name, kept in prefix.items())  # what the killed worker wrote stays as it was
    got = records(run)  # raises on an item written twice
    assert set(got) == expected_keys(data_dir)  # none lost
    assert outcome["result"].n_new == 7 - before and outcome["result"].n_skipped == before
    assert but_batch_size(got) == but_batch_size(local_records)  # the same answers (batch 1 here, 2 there: exact fp32)


def test_driver_killed_then_the_same_command_resumes(cluster, data_dir, tmp_path):
    run = tmp_path / "run"
    cmd = [sys.executable, "-m", "toolkit.cli", "generate", "--out", str(run), "--suites", SUITES, "--data-dir", str(data_dir),
           "--limit", "6", "--max-new-tokens", "6", "--batch-size", "1", "--executor", "ray", "--ray-address", cluster.address,
           "--shards", "2"]
    total = len(expected_keys(data_dir, 6))  # smoke 6 + salad 3
    with open(tmp_path / "first.log", "wb") as log:
        driver = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=ENV)
        try:
            deadline = time.monotonic() + 600
            while shard_lines(run, 0) + shard_lines(run, 1) < 1:
                assert driver.poll() is None, (tmp_path / "first.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "no records in 600 s"
                time.sleep(0.02)
            driver.send_signal(signal.SIGKILL)
            driver.wait(timeout=60)
        finally:
            if driver.poll() is None:
                driver.kill()
                driver.wait(timeout=60)
    assert driver.returncode == -signal.SIGKILL
    at_kill = shard_lines(run, 0) + shard_lines(run, 1)
    assert 1 <= at_kill < total and not (run / "run.json").exists()  # mid-run: nothing merged yet

    again = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=900)
    assert again.returncode == 0, again.stderr[-3000:]
    line = again.stdout.strip().splitlines()[-1]
    n_new, n_skipped = (int(line.split(" response(s)")[0].split()[-1]), int(line.split("skipped ")[1].split()[0]))
    assert n_new + n_skipped == total and n_skipped >= at_kill and n_new < total  # resumed, not redone
    assert set(records(run)) == expected_keys(data_dir, 6)  # complete, nothing twice


def test_a_board_of_three_models_in_one_command(cluster, tmp_path):
    """generate → judge → submit for three variants of the tiny model; a fourth, broken entry fails alone."""
    from datasets import load_dataset

    from toolkit.stages.generation.embedded import dense_model_dir

    weights, _ = dense_model_dir()
    models = tmp_path / "models.yaml"
    models.write_text(
        "models:\n"
        "  - submission_id: smol-embedded\n"
        f"  - model_args: pretrained={weights},model_id=smol-org/smol-fp32\n"
        "    submission_id: smol-fp32\n"
        f"  - model_args: pretrained={weights},model_id=smol-org/smol-bf16,dtype=bfloat16\n"
        "    submission_id: smol-bf16\n"
        f"  - model_args: pretrained={tmp_path / 'no-such-model'}\n"
        "    submission_id: smol-missing\n", encoding="utf-8")
    dataset = new_board(tmp_path / "dataset")
    cmd = [sys.executable, "-m", "toolkit.cli", "evaluate", "--models", str(models), "--out", str(tmp_path / "runs"),
           "--to", str(dataset), "--suites", "smoke", "--limit", "3", "--max-new-tokens", "6", "--bootstrap", "50",
           "--executor", "ray", "--ray-address", cluster.address]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=1200)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-3000:]  # one model failed ...
    assert "smol-missing: FAILED: no such folder" in proc.stderr  # a missing local folder is never tried as a Hub id
    for sid in ("smol-embedded", "smol-fp32", "smol-bf16"):  # ... and the three others were published
        assert f"{sid}: published 3 record(s) of {sid}" in proc.stdout, proc.stdout
    assert "board: 3 of 4 model(s) done" in proc.stdout

    board = load_dataset(str(dataset), "leaderboard", split="test", cache_dir=str(tmp_path / "hf-cache")).to_pandas()
    assert sorted(board["model_id"].unique()) == ["HuggingFaceTB/SmolLM2-135M-Instruct", "smol-org/smol-bf16", "smol-org/smol-fp32"]
    assert set(board["n_items"]) == {3}
    items = load_dataset(str(dataset), "smoke", split="test", cache_dir=str(tmp_path / "hf-cache")).to_pandas()
    assert sorted(items.groupby("submission_id").size().items()) == [("smol-bf16", 3), ("smol-embedded", 3), ("smol-fp32", 3)]
    assert {d for d in items["generation"].map(lambda g: g["dtype"])} == {"float32", "bfloat16"}

    again = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=1200)  # resumes: nothing generated twice
    assert "smol-embedded: already published" in again.stdout, again.stdout + again.stderr[-2000:]
    assert all(len(read_attempts(tmp_path / "runs" / sid, 0, 1)) == 1 for sid in ("smol-embedded", "smol-fp32", "smol-bf16"))


def test_node_killed_mid_task_its_task_resumes_on_the_other_node(cluster, data_dir, local_records, tmp_path):
    """The second node's raylet and workers are killed (Ray's Cluster.remove_node, not gracefully) while its
    shard is half written; Ray runs the task again on the head node, which resumes from the shard's records."""
    run = tmp_path / "run"
    second = next(iter(cluster.worker_nodes))
    driver, outcome = drive_in_thread(run, data_dir, cluster)
    on_second = lambda k: any(a["node"] == second.node_id for a in read_attempts(run, k, 2))  # noqa: E731
    deadline = time.monotonic() + 600
    while not any(on_second(k) and shard_lines(run, k) >= 1 for k in range(2)):
        assert driver.is_alive(), outcome
        assert time.monotonic() < deadline, "no shard wrote on the second node in 600 s"
        time.sleep(0.02)
    k = next(k for k in range(2) if on_second(k))
    cluster.remove_node(second, allow_graceful=False)
    time.sleep(0.5)
    before, total = shard_lines(run, k), (4, 3)[k]
    assert 1 <= before < total, f"the node must die mid-task: shard {k} had {before} of its {total} records"

    driver.join(timeout=900)
    assert not driver.is_alive() and "error" not in outcome, outcome
    attempts = read_attempts(run, k, 2)
    assert [a["node"] == second.node_id for a in attempts] == [True, False]  # retried once, on the surviving node
    assert shard_lines(run, k) == total
    got = records(run)  # raises on an item written twice
    assert set(got) == expected_keys(data_dir)
    assert but_batch_size(got) == but_batch_size(local_records)


def test_a_local_model_judge_runs_as_a_ray_task(cluster, tmp_path):
    """MD-Judge (here with the embedded SmolLM2 as its stand-in model) loads a model: the board sends it to the
    cluster as a task of its own, after the run's shards; an API or heuristic judge stays in the driver."""
    from toolkit.stages.executors.ray_executor import RayExecutor
    from toolkit.workflows.fanout import AfterGeneration, ModelRun, run_board
    from toolkit.workflows.fanout.board import judge_runs_a_model
    from toolkit.stages.executors import Resources
    from toolkit.stages.generation.components import GenerationRunOptions
    from toolkit.workflows.fanout.plan import model_job
    from toolkit.stages.generation.embedded import dense_model_dir

    class Recording(RayExecutor):
        labels: list[str] = []

        def submit(self, fn, *args, resources, label):
            self.labels.append(label)
            return super().submit(fn, *args, resources=resources, label=label)

    judge = f"mdjudge:{dense_model_dir()[0]}"
    assert judge_runs_a_model(judge) and not judge_runs_a_model("heuristic")
    job = model_job("hf", None, GenerationRunOptions(suites="smoke", limit=2, max_new_tokens=4))
    run = ModelRun("smol", tmp_path / "run", job, 1, Resources())
    with Recording(RayOptions(address=cluster.address)) as ex:
        result = run_board([run], ex, load_items("smoke", limit=2), AfterGeneration(judge=judge, judge_on_executor=True),
                           show_progress=False)
    outcome = result.models[0]
    assert Recording.labels == ["generate smol 0/1", "judge smol"]
    assert not outcome.failed, outcome.error_text()
    assert outcome.phase == "judged" and outcome.judged.n_new == 2
    rows = [json.loads(x) for x in next((tmp_path / "run" / "judgments").glob("*/smoke.jsonl")).read_text().splitlines()]
    # The stand-in is no MD-Judge: its first token may be neither 'safe' nor 'unsafe' (a parse error, recorded as such).
    assert len(rows) == 2 and all(r["judge_id"] == judge and r["judge_status"] in ("ok", "parse_error") for r in rows)


def test_no_address_starts_a_ray_of_its_own_beside_a_running_cluster(cluster):
    """No address and no $RAY_ADDRESS: the executor starts a one-node Ray for the command, even while another
    cluster on this machine is the one Ray's own address file names (a bare ray.init() would join that cluster,
    and die when it stops: the request worker's flake in CI, beside this file's cluster)."""
    from ray._private.utils import read_ray_address

    assert read_ray_address() == cluster.address  # the trap is set: Ray's address file names the test cluster
    env = {k: v for k, v in ENV.items() if k != "RAY_ADDRESS"}
    code = ("from toolkit.stages.executors.ray_executor import RayExecutor\n"
            "with RayExecutor() as ex: print(ex.describe())")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().startswith("ray (1 node(s)"), out.stdout  # not the test cluster's two nodes
