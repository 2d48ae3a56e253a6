"""Every Hub failure of a command ends in one line naming the repo and what to do (exit 1, no
traceback), and ``--token`` reaches the Hub calls of the commands that make them.

One Hub emulator serves the module (each CLI call is a subprocess of a few seconds); a failure is
injected with its ``POST /_emulator/fail`` hook, "no network" is a port that was just closed.
"""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from slmboard_hub_clients import cli, hub_env
from slmboard_hub_emulator import start_emulator
from slmboard_testing import make_run

DATASET = "org/board"
SPACE = "org/board-space"


@pytest.fixture(scope="module")
def emulator():
    emu = start_emulator()
    yield emu
    emu.stop()


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("hub-failures")


@pytest.fixture(scope="module")
def published(emulator, home):
    """DATASET holds one submission; the run returned is a second one, which no failing command may publish."""
    env = hub_env(emulator, home)
    cli(env, "submit", str(make_run(home / "first")), "--to", DATASET, "--bootstrap", "0", "--no-gate")
    return make_run(home / "second", model_id="org/model-b", submission_id="model-b-1")


@pytest.fixture
def inject(emulator):
    """inject(status, path_prefix, **rule): the emulator answers the matching requests with ``status``."""
    def _inject(status: int, path_prefix: str, **rule) -> None:
        _post(emulator, {"status": status, "path_prefix": path_prefix, **rule})

    yield _inject
    _post(emulator, {"clear": True})


def _post(emulator, body: dict) -> None:
    request = urllib.request.Request(f"{emulator.url}/_emulator/fail", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).read()


def closed_port() -> int:
    """A port nothing listens on: bound, then closed (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_one_line(proc, *needles: str) -> str:
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def emulator_at(port: int):
    """What hub_env needs of an emulator, for an address where none runs."""
    return type("NoEmulator", (), {"url": f"http://127.0.0.1:{port}", "token": "hf_unusedtoken0123"})


def commands(run) -> dict[str, tuple[str, ...]]:
    return {"submit": ("submit", str(run), "--to", DATASET, "--bootstrap", "0"),
            "review": ("review", DATASET, "--no-comment"),
            "space deploy": ("space", "deploy", SPACE, "--data", DATASET),
            "rank": ("rank", DATASET, "--bootstrap", "0", "--quiet"),
            "submit --create-pr": ("submit", str(run), "--to", DATASET, "--bootstrap", "0", "--create-pr")}


@pytest.mark.parametrize("command", ["submit", "review", "space deploy", "rank"])
def test_no_network_is_one_line_naming_the_repo(command, published, home):
    env = {**hub_env(emulator_at(closed_port()), home / command)}
    proc = cli(env, *commands(published)[command], check=False, timeout=120)
    assert_one_line(proc, DATASET, "cannot reach the Hub", "check the network connection")


# (command, status, where it is injected, what the line says)
FAILURES = [
    ("submit", 401, {"path_prefix": "/api/datasets/org/board/commit", "method": "POST"}, ["dataset org/board", "HTTP 401", "hf auth login", "--token"]),
    ("review", 401, {"path_prefix": "/api/datasets/org/board/discussions"}, ["org/board", "hf auth login", "--token"]),
    ("rank", 403, {"path_prefix": "/api/datasets/org/board", "code": "GatedRepo", "message": "Access to this dataset is gated"},
     ["dataset org/board is gated", "accept the conditions on http://127.0.0.1:"]),
    ("submit", 403, {"path_prefix": "/api/datasets/org/board/commit", "method": "POST"},
     ["dataset org/board", "HTTP 403", "ask its owner for write access", "--create-pr"]),
    ("space deploy", 403, {"path_prefix": "/api/spaces/org/board-space/commit", "method": "POST"},
     ["space org/board-space", "HTTP 403", "ask its owner for write access"]),
    ("rank", 404, {"path_prefix": "/api/datasets/org/board"}, ["org/board", "no such dataset on the Hub", "ORG/NAME"]),
    ("submit", 429, {"path_prefix": "/api/repos/create"}, ["dataset org/board", "HTTP 429", "wait a few minutes and retry"]),
    ("submit --create-pr", 403, {"path_prefix": "/api/datasets/org/board/commit", "method": "POST",
                                 "message": "Discussions are disabled for this repo"},
     ["dataset org/board", "refused the pull request", "Discussions are disabled", "ask its owner"]),
]


@pytest.mark.parametrize("command,status,rule,needles", FAILURES, ids=[f"{c}-{s}" for c, s, _, _ in FAILURES])
def test_hub_status_is_one_line_with_advice(command, status, rule, needles, emulator, published, home, inject):
    inject(status, **rule)
    proc = cli(hub_env(emulator, home / f"{command}-{status}"), *commands(published)[command], check=False, timeout=120)
    assert_one_line(proc, *needles)


def test_missing_revision_and_missing_dataset_are_named_and_nothing_is_created(emulator, home):
    env = hub_env(emulator, home / "missing")
    assert_one_line(cli(env, "rank", f"{DATASET}@no-such-branch", "--bootstrap", "0", check=False),
                    "dataset org/board@no-such-branch: revision not found", "branch, tag, commit")
    assert_one_line(cli(env, "recompute", "org/missing", "--bootstrap", "0", check=False),
                    "dataset org/missing: not found on the Hub", "ORG/NAME")
    with pytest.raises(urllib.error.HTTPError):  # recompute never creates a dataset under a mistyped name
        urllib.request.urlopen(f"{emulator.url}/api/datasets/org/missing", timeout=10)


def test_conflicting_commits_after_the_retries_say_try_again(emulator, published, home, inject):
    """412 on every commit: the publisher retries (its back-off sleeps skipped here), then one line."""
    inject(412, "/api/datasets/org/board/commit", method="POST")
    code = ("import sys, toolkit.outputs.publishing.hub as hub; hub.time.sleep = lambda s: None; "
            "from toolkit.cli import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, *commands(published)["submit"]], env=hub_env(emulator, home / "412"),
                          capture_output=True, text=True, timeout=120)
    assert_one_line(proc, "dataset org/board", "HTTP 412", "8 attempts", "try again")


def test_token_flag_reaches_the_hub_and_is_never_printed(emulator, home):
    """HF_TOKEN unset and no saved login: without --token the write is refused in one line; with it, it lands."""
    env = {k: v for k, v in hub_env(emulator, home / "token").items() if k != "HF_TOKEN"}
    run = make_run(home / "token-run", model_id="org/model-t", submission_id="model-t-1")
    args = ("submit", str(run), "--to", "org/tokened", "--bootstrap", "0", "--no-gate")
    assert_one_line(cli(env, *args, check=False), "dataset org/tokened", "hf auth login", "--token")
    proc = cli(env, *args, "--token", emulator.token)
    assert "published" in proc.stdout and emulator.token not in proc.stdout + proc.stderr
    refused = cli(env, "space", "deploy", SPACE, "--data", "org/tokened", check=False)
    assert_one_line(refused, "space org/board-space", "hf auth login")
    deployed = cli(env, "space", "deploy", SPACE, "--data", "org/tokened", "--token", emulator.token)
    assert deployed.stdout.strip().splitlines()[-1].endswith(f"/spaces/{SPACE}")
    assert emulator.token not in deployed.stdout + deployed.stderr
