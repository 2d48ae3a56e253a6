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

from slmboard_hub_clients import cli, hub_env, client
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
    cli(env, "create", DATASET, "--no-gate")
    cli(env, "submit", str(make_run(home / "first")), "--to", DATASET, "--bootstrap", "0")
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


@pytest.mark.parametrize("command", ["submit", "rank", "review"])
def test_a_hub_host_that_does_not_resolve_is_one_line(command, published, home):
    """No DNS for the Hub's host (httpx2's ConnectError from a name lookup) was an 86-90-line traceback."""
    no_host = type("NoHost", (), {"url": "http://nonexistent.invalid", "token": "hf_unusedtoken0123"})
    proc = cli(hub_env(no_host, home / f"dns-{command}"), *commands(published)[command], check=False, timeout=120)
    assert_one_line(proc, DATASET, "cannot reach the Hub at http://nonexistent.invalid", "HF_ENDPOINT")


def test_create_with_hf_hub_offline_says_what_it_needs_not_a_download(home):
    """Quickstart's `slmboard create my-org/my-board` with HF_HUB_OFFLINE set said "not in the local cache; unset
    HF_HUB_OFFLINE to download it": create downloads nothing; it needs the Hub, or a local folder board."""
    env = {**hub_env(emulator_at(closed_port()), home / "offline-create"), "HF_HUB_OFFLINE": "1"}
    proc = cli(env, "create", "my-org/my-board", check=False, timeout=120)
    line = assert_one_line(proc, "dataset my-org/my-board", "writing a Hub dataset needs the Hub",
                           "slmboard create ./my-board")
    assert "download" not in line


# (injected status and rule, the typed error the one Hub access module raises)
TYPED = [
    (404, {"path_prefix": "/api/datasets/org/board"}, "HubRepoNotFound"),
    (403, {"path_prefix": "/api/datasets/org/board", "code": "GatedRepo", "message": "Access to this dataset is gated"}, "HubGated"),
    (429, {"path_prefix": "/api/datasets/org/board"}, "HubRateLimited"),
]


@pytest.mark.parametrize("status,rule,kind", TYPED, ids=[k for _, _, k in TYPED])
def test_hub_failures_are_typed_and_carry_repo_and_revision(status, rule, kind, emulator, published, home, inject):
    inject(status, **rule)
    code = ("import json; from toolkit import api\n"
            "try:\n    api.rank('org/board@main', options=api.RankOptions(n_bootstrap=0))\n"
            "except api.SlmboardError as e:\n"
            "    print(json.dumps({'type': type(e).__name__, 'repo': e.repo, 'revision': e.revision, "
            "'hub': isinstance(e, __import__('toolkit.core.errors', fromlist=['x']).HubAccessError)}))")
    out = client(hub_env(emulator, home / f"typed-{status}"), code)
    assert out == {"type": kind, "repo": DATASET, "revision": "main", "hub": True}


def test_a_missing_revision_and_an_unreachable_hub_are_typed(emulator, published, home):
    code = ("import json; from toolkit import api\n"
            "try:\n    api.rank('org/board@no-such-branch', options=api.RankOptions(n_bootstrap=0))\n"
            "except api.SlmboardError as e:\n    print(json.dumps({'type': type(e).__name__, 'revision': e.revision}))")
    assert client(hub_env(emulator, home / "typed-rev"), code) == {"type": "HubRevisionNotFound", "revision": "no-such-branch"}
    no_host = type("NoHost", (), {"url": "http://nonexistent.invalid", "token": "hf_unusedtoken0123"})
    assert client(hub_env(no_host, home / "typed-dns"), code)["type"] == "HubUnreachable"


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
    cli(env, "create", "org/tokened", "--no-gate", "--token", emulator.token)
    args = ("submit", str(run), "--to", "org/tokened", "--bootstrap", "0")
    assert_one_line(cli(env, *args, check=False), "dataset org/tokened", "hf auth login", "--token")
    proc = cli(env, *args, "--token", emulator.token)
    assert "published" in proc.stdout and emulator.token not in proc.stdout + proc.stderr
    refused = cli(env, "space", "deploy", SPACE, "--data", "org/tokened", check=False)
    assert_one_line(refused, "space org/board-space", "hf auth login")
    deployed = cli(env, "space", "deploy", SPACE, "--data", "org/tokened", "--token", emulator.token)
    assert deployed.stdout.strip().splitlines()[-1].endswith(f"/spaces/{SPACE}")
    assert emulator.token not in deployed.stdout + deployed.stderr


@pytest.fixture
def xet_storage_down(emulator, home):
    """The Hub answers and hands out Xet write tokens, but its Xet storage service is a closed port; the client
    takes the Xet path (hf_xet installed, HF_HUB_DISABLE_XET unset), with hf_xet's retries cut to one."""
    def set_cas(url):
        request = urllib.request.Request(f"{emulator.url}/_emulator/xet", json.dumps({"cas_url": url}).encode(),
                                         {"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()

    set_cas(f"http://127.0.0.1:{closed_port()}")
    env = {k: v for k, v in hub_env(emulator, home / "xet").items() if k != "HF_HUB_DISABLE_XET"}
    yield {**env, "HF_XET_CLIENT_RETRY_MAX_ATTEMPTS": "1", "HF_XET_CLIENT_RETRY_BASE_DELAY": "10ms"}
    set_cas(None)


def _head(emulator, dataset: str) -> str | None:
    try:
        with urllib.request.urlopen(f"{emulator.url}/api/datasets/{dataset}/revision/main", timeout=10) as r:
            return json.loads(r.read())["sha"]
    except urllib.error.HTTPError as exc:
        assert exc.code == 404, exc
        return None


def test_a_failed_xet_upload_is_named_and_create_leaves_no_empty_dataset(emulator, home, xet_storage_down):
    """`create` makes the dataset, then its first commit's upload fails on the Xet path: one line naming the Xet
    storage and the classic-LFS way round, and the dataset it made is gone again (the name stays free)."""
    proc = cli(xet_storage_down, "create", "org/xet-board", check=False, timeout=120)
    assert_one_line(proc, "dataset org/xet-board", "Xet storage failed", "HF_HUB_DISABLE_XET=1")
    assert "cannot reach the Hub" not in proc.stderr
    assert _head(emulator, "org/xet-board") is None
    env = {**xet_storage_down, "HF_HUB_DISABLE_XET": "1"}  # the advice works: the same create through classic LFS
    cli(env, "create", "org/xet-board", timeout=120)
    assert _head(emulator, "org/xet-board") is not None


def test_a_failed_xet_upload_on_submit_is_named_and_the_board_is_unchanged(emulator, published, home, xet_storage_down):
    before = _head(emulator, DATASET)
    proc = cli(xet_storage_down, *commands(published)["submit"], check=False, timeout=120)
    assert_one_line(proc, "dataset org/board", "Xet storage failed", "HF_HUB_DISABLE_XET=1")
    assert _head(emulator, DATASET) == before


def test_error_lines_name_the_datasets_files_never_our_temporary_folders(emulator, home):
    """A dataset whose published manifest lost a field: submit, submit --update and recompute read it from a
    snapshot in a temporary folder of ours; their errors name the file as the dataset's (ORG/NAME/PATH), as rank
    does, and no line shows the temporary folder (gone once the command ends)."""
    import tempfile

    env = hub_env(emulator, home / "broken")
    first = make_run(home / "broken-first", model_id="org/model-c", submission_id="model-c-1")
    cli(env, "create", "org/broken", "--no-gate")
    cli(env, "submit", str(first), "--to", "org/broken", "--bootstrap", "0")
    client(env, """
        import json
        from huggingface_hub import HfApi
        api = HfApi()
        path = api.hf_hub_download("org/broken", "submissions/model-c-1.json", repo_type="dataset")
        manifest = json.load(open(path))
        del manifest["model_revision"]
        api.upload_file(path_or_fileobj=json.dumps(manifest).encode(), path_in_repo="submissions/model-c-1.json",
                        repo_id="org/broken", repo_type="dataset")
        print("{}")
    """)
    second = make_run(home / "broken-second", model_id="org/model-d", submission_id="model-d-1")
    for args in (("submit", str(second), "--to", "org/broken", "--bootstrap", "0"),
                 ("submit", str(first), "--to", "org/broken", "--update", "--bootstrap", "0"),
                 ("recompute", "org/broken", "--bootstrap", "0"), ("rank", "org/broken", "--bootstrap", "0")):
        proc = cli(env, *args, check=False)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert "org/broken/submissions/model-c-1.json:model_revision: required field is missing" in proc.stderr, proc.stderr
        assert tempfile.gettempdir() + "/slmboard-" not in proc.stderr, (args[:2], proc.stderr)
