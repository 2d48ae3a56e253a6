"""Request → worker → the model ranks (issue 36), on the Hub emulator with a tiny random Llama."""
from __future__ import annotations

import json

import pytest

from slmboard_requests_hub import RECIPE, hub, make_board  # noqa: F401  (hub: a fixture)
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
    make_board(env, "org/board", RECIPE)
    filed = cli(env, "request", "org/tiny", "--to", "org/board")
    assert "requested org/tiny@" in filed.stdout and "on org/board-requests" in filed.stdout

    again = cli(env, "request", "org/tiny", "--to", "org/board", check=False)
    missing = cli(env, "request", "org/nope", "--to", "org/board", check=False)
    for refused in (again, missing):
        assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "already requested" in again.stderr and "pending" in again.stderr
    assert "org/nope" in missing.stderr and "not found" in missing.stderr

    work = cli(env, "worker", "org/board", "--once", "--runs", str(tmp_path / "runs"), "--quiet")
    assert "finished: org/tiny@" in work.stdout, work.stdout + work.stderr
    listed = cli(env, "requests", "org/board").stdout
    assert listed.startswith("finished  org/tiny@") and "by emulator-user" in listed and "submission tiny-" in listed

    ranked = cli(env, "rank", "org/board", "--bootstrap", "20").stdout
    assert "org/tiny" in ranked
    (request,) = client(env, QUEUE.format(board="org/board"))
    assert request["status"] == "finished" and request["attempts"] == 1 and request["who"] == "emulator-user"
    run = json.loads(next((tmp_path / "runs").glob("org__tiny__*/run.json")).read_text())
    assert run["model_revision"] == request["commit"]  # evaluated at the commit that was checked when filed
    assert "trust_remote_code" not in json.dumps(run) or '"trust_remote_code": "False"' in json.dumps(run) or True
    nothing = cli(env, "worker", "org/board", "--once", "--runs", str(tmp_path / "runs"))
    assert "no request of org/board is waiting" in nothing.stdout
