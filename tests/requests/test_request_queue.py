"""Request → worker → the model ranks (issue 36), on the Hub emulator with a tiny random Llama; two workers
started together on one request evaluate it once."""
from __future__ import annotations

import json

import pytest

from slmboard_requests_hub import worker
from slmboard_hub_clients import cli, client, hub_env

pytestmark = pytest.mark.slow

QUEUE = """
    import json
    from toolkit.workflows.requests import list_requests
    print(json.dumps([r.model_dump(mode="json") for r in list_requests({board!r})]))
"""


def test_request_worker_then_the_model_ranks(hub, tmp_path):
    emu, _ = hub
    env = hub_env(emu, tmp_path)
    created = cli(env, "create", "org/board", "--suites", "smoke", "--judges", "heuristic", "--limit", "2",
                  "--max-new-tokens", "8")
    assert "requests for evaluations go to org/board-requests" in created.stdout, created.stdout
    filed = cli(env, "request", "org/tiny", "--to", "org/board")
    assert "requested org/tiny@" in filed.stdout and "on org/board-requests" in filed.stdout

    again = cli(env, "request", "org/tiny", "--to", "org/board", check=False)
    missing = cli(env, "request", "org/nope", "--to", "org/board", check=False)
    for refused in (again, missing):
        assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "already requested" in again.stderr and "pending" in again.stderr
    assert "org/nope" in missing.stderr and "not found" in missing.stderr

    # two workers at once, one request: one claim lands, the other is refused (412), reads again, finds none waiting
    a, b = worker(env, "org/board", tmp_path / "runs"), worker(env, "org/board", tmp_path / "runs-b")
    outs = [p.communicate(timeout=300)[0] for p in (a, b)]
    assert [p.returncode for p in (a, b)] == [0, 0], outs
    assert sum("finished: org/tiny@" in s for s in outs) == 1 and sum("is waiting" in s for s in outs) == 1, outs
    listed = cli(env, "requests", "org/board").stdout
    assert listed.startswith("finished  org/tiny@") and "by emulator-user" in listed and "submission tiny-" in listed

    ranked = cli(env, "rank", "org/board", "--bootstrap", "20").stdout
    assert "org/tiny" in ranked
    (request,) = client(env, QUEUE.format(board="org/board"))
    assert request["status"] == "finished" and request["attempts"] == 1 and request["who"] == "emulator-user"
    (folder,) = [*(tmp_path / "runs").glob("*/org__tiny__*"), *(tmp_path / "runs-b").glob("*/org__tiny__*")]  # run once
    run = json.loads((folder / "run.json").read_text())
    assert run["model_revision"] == request["commit"]  # evaluated at the commit that was checked when filed
    subs = client(env, 'import json; from huggingface_hub import HfApi; print(json.dumps('
                       '[f for f in HfApi().list_repo_files("org/board", repo_type="dataset") if f.startswith("submissions/")]))')
    assert len(subs) == 1  # evaluated and published once


def test_a_worker_with_the_ray_executor_evaluates_a_request_on_a_local_ray(hub, tmp_path):
    """`slmboard worker --executor ray` (no --ray-address: Ray starts on this machine): the request is evaluated
    through the fan-out's Ray path and published; the request says finished."""
    pytest.importorskip("ray", reason="needs ray (pip install 'slmboard[ray]')")
    emu, _ = hub
    env = hub_env(emu, tmp_path)
    cli(env, "create", "org/ray-board", "--suites", "smoke", "--judges", "heuristic", "--limit", "2",
        "--max-new-tokens", "8")
    cli(env, "request", "org/tiny-b", "--to", "org/ray-board")
    proc = worker(env, "org/ray-board", tmp_path / "runs", "--executor", "ray")
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, (out, err[-3000:])
    assert "finished: org/tiny-b@" in out, out
    (request,) = client(env, QUEUE.format(board="org/ray-board"))
    assert request["status"] == "finished" and request["submission_id"], request
    assert "org/tiny-b" in cli(env, "rank", "org/ray-board", "--bootstrap", "0").stdout
    # generated in a Ray task: the shard's attempt names the Ray node it ran on (a 56-hex node id)
    import re
    (attempts,) = (tmp_path / "runs").glob("*/org__tiny-b__*/.shards/*/attempts.jsonl")
    nodes = [json.loads(line)["node"] for line in attempts.read_text().splitlines()]
    assert nodes and all(re.fullmatch(r"[0-9a-f]{56}", n) for n in nodes), nodes
