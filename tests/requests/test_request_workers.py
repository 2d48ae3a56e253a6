"""A worker killed mid-generation: another sharing the run storage reclaims its request once the heartbeat is
stale and finishes it, with no record lost or written twice."""
from __future__ import annotations

import json
import os
import signal
import time

import pytest

from slmboard_hub_clients import cli, client, hub_env
from slmboard_requests_hub import RECIPE, make_board, worker

pytestmark = pytest.mark.slow

STATE = """
    import json
    from huggingface_hub import HfApi
    from toolkit.workflows.requests import list_requests
    subs = [f for f in HfApi().list_repo_files({board!r}, repo_type="dataset") if f.startswith("submissions/")]
    print(json.dumps({{"requests": [r.model_dump(mode="json") for r in list_requests({board!r})], "submissions": subs}}))
"""


def _lines(path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_worker_killed_mid_generation_is_reclaimed_and_resumed_without_loss(hub, tmp_path):
    emu, _ = hub
    env = hub_env(emu, tmp_path)
    n = 16  # answered answered one row at a time: the kill lands between records
    make_board(env, "org/kill", {**RECIPE, "decoding": {"max_new_tokens": 32}, "limits": {"items": n},
                                 "requests": {"stale_after_s": 2}})
    cli(env, "request", "org/tiny", "--to", "org/kill")
    runs = tmp_path / "shared-runs"
    first = worker(env, "org/kill", runs, "--batch-size", "1", "--heartbeat", "0.5")
    deadline = time.monotonic() + 240
    responses = None
    while time.monotonic() < deadline and first.poll() is None:
        found = list(runs.glob("*/org__tiny__*/responses/smoke.jsonl"))
        if found and len(_lines(found[0])) >= 3:
            responses = found[0]
            break
        time.sleep(0.02)
    assert responses is not None, first.communicate()
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    at_kill = _lines(responses)
    assert 3 <= len(at_kill) < n  # the kill landed mid-generation
    state = client(env, STATE.format(board="org/kill"))
    assert state["requests"][0]["status"] == "running" and not state["submissions"]

    time.sleep(2.5)  # the heartbeat goes stale
    second = cli(env, "worker", "org/kill", "--once", "--runs", str(runs), "--quiet")
    assert "finished: org/tiny@" in second.stdout, second.stdout + second.stderr
    after = _lines(responses)
    ids = [json.loads(x)["item_id"] for x in after]
    assert len(ids) == n == len(set(ids))  # none lost, none twice
    assert after[: len(at_kill) - 1] == at_kill[: len(at_kill) - 1]  # what was written before the kill was kept
    state = client(env, STATE.format(board="org/kill"))
    (request,) = state["requests"]
    assert request["status"] == "finished" and request["attempts"] == 2 and len(state["submissions"]) == 1
    assert any("reclaimed by" in line and "resuming from" in line for line in request["log"]), request["log"]
