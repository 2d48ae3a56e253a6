"""Publishing to a Hub dataset: the real huggingface_hub / datasets client code against the Hub
emulator (tests/slmboard_hub_emulator.py) on 127.0.0.1 — real client, emulated server.

huggingface_hub reads HF_ENDPOINT when it is imported, so every client here runs in a subprocess
whose environment points at the emulator (HF_HOME in tmp, a dummy token, classic LFS uploads).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from slmboard_hub_clients import hub_env, cli, client
from slmboard_hub_emulator import start_emulator
from toolkit.core.errors import BadOption
from toolkit.outputs.publishing.hub import parse_target
from toolkit.core.runs import RunDir

REPO = Path(__file__).resolve().parents[2]
DATASET = "org/board"


@pytest.fixture
def emulator():
    emu = start_emulator(commit_delay=0.3)  # a slow commit widens the window two submitters race in
    yield emu
    emu.stop()





READ_BACK = """
    import json, os
    from datasets import load_dataset
    from huggingface_hub import HfApi, snapshot_download
    api = HfApi()
    cache = os.path.join(os.environ["HF_HOME"], "ds-cache-" + str(os.getpid()))
    items = load_dataset("org/board", "smoke", split="test", cache_dir=cache)
    board = load_dataset("org/board", "leaderboard", split="test", cache_dir=cache).to_pandas()
    subs = load_dataset("org/board", "submissions", split="test", cache_dir=cache)
    snap = snapshot_download("org/board", repo_type="dataset")
    commits = api.list_repo_commits("org/board", repo_type="dataset")
    print(json.dumps({
        "n_items": len(items), "models": sorted(set(items["model_id"])),
        "board_models": sorted(board["model_id"]), "subs": sorted(subs["submission_id"]),
        "n_commits": len(commits), "snap": snap,
        "manifests": {f: json.load(open(os.path.join(snap, "submissions", f))) for f in os.listdir(os.path.join(snap, "submissions"))},
    }))
"""


def test_to_accepts_folder_hf_url_and_repo_id(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (parse_target("hf://datasets/org/name").repo_id, parse_target("hf://datasets/org/name").revision) == ("org/name", None)
    assert parse_target("org/name@main").repo_id == "org/name" and parse_target("org/name@main").revision == "main"
    assert parse_target(tmp_path / "x").path == tmp_path / "x"
    assert parse_target("./org/name").path == Path("org/name")
    (tmp_path / "demo-output").mkdir()
    with pytest.raises(BadOption, match="ambiguous: demo-output/ is a folder here"):
        parse_target("demo-output/dataset")  # a folder or a Hub dataset? neither is guessed
    with pytest.raises(BadOption, match="ambiguous"):
        parse_target("my-board")


def test_two_submissions_land_on_the_hub_and_load_dataset_reads_them(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    run_a = synthetic_run("a")
    run_b = synthetic_run("b", model_id="org/model-b", submission_id="model-b-1", scores={"smoke_001": 0.5, "smoke_002": 0.5, "smoke_003": None})
    cli(env, "create", f"hf://datasets/{DATASET}")
    out_a = cli(env, "submit", str(run_a), "--to", f"hf://datasets/{DATASET}", "--bootstrap", "50")
    out_b = cli(env, "submit", str(run_b), "--to", DATASET, "--bootstrap", "50")
    assert "hf://datasets/org/board" in out_a.stdout
    got = client(env, READ_BACK)
    assert got["n_items"] == 6 and got["models"] == ["org/model-a", "org/model-b"]
    assert got["board_models"] == ["org/model-a", "org/model-b"] and got["subs"] == ["model-a-1", "model-b-1"]
    assert got["n_commits"] == 4  # the repo's initial commit, `create`'s, one per submission
    readme = Path(got["snap"], "README.md").read_text()
    assert "config_name: smoke" in readme and 'load_dataset("org/board"' in readme
    # tokens never reach what we print or publish
    for text in (out_a.stdout, out_a.stderr, out_b.stdout, out_b.stderr):
        assert emulator.token not in text
    for path in Path(got["snap"]).rglob("*"):
        if path.is_file():
            assert emulator.token.encode() not in path.read_bytes(), path
    assert emulator.stats()["lfs_put"] >= 2  # parquet went through the classic LFS upload


def test_concurrent_submitters_both_land_and_nothing_is_overwritten(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", DATASET)
    cli(env, "submit", str(synthetic_run("seed", model_id="org/seed", submission_id="seed-1")), "--to", DATASET, "--bootstrap", "0")
    runs = [synthetic_run(f"r{i}", model_id=f"org/model-{i}", submission_id=f"model-{i}-1") for i in range(2)]
    procs = [subprocess.Popen([sys.executable, "-m", "toolkit.cli", "submit", str(r), "--to", DATASET, "--bootstrap", "0"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in runs]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    stats = emulator.stats()
    # create (the board and its requests dataset), the seed, the two concurrent submitters
    assert stats["commit"] == 5
    assert stats["commit_412"] + stats["commit_409"] >= 1, stats  # they did collide, and retried
    got = client(env, READ_BACK)
    assert got["subs"] == ["model-0-1", "model-1-1", "seed-1"]
    assert got["board_models"] == ["org/model-0", "org/model-1", "org/seed"]
    assert got["n_items"] == 9
    import hashlib

    for manifest in got["manifests"].values():  # every per-item file is still the one its manifest names
        for rf in manifest["record_files"]:
            assert hashlib.sha256(Path(got["snap"], rf["path"]).read_bytes()).hexdigest() == rf["sha256"]


def test_create_pr_leaves_main_untouched(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", DATASET)
    cli(env, "submit", str(synthetic_run("a")), "--to", DATASET, "--bootstrap", "0")
    out = cli(env, "submit", str(synthetic_run("b", model_id="org/model-b", submission_id="model-b-1")), "--to", DATASET,
              "--bootstrap", "0", "--create-pr")
    assert "/discussions/1" in out.stdout
    got = client(env, """
        import json
        from huggingface_hub import HfApi
        api = HfApi()
        print(json.dumps({"main": api.list_repo_files("org/board", repo_type="dataset"),
                          "pr": api.list_repo_files("org/board", repo_type="dataset", revision="refs/pr/1")}))
    """)
    assert "submissions/model-b-1.json" not in got["main"]
    assert "submissions/model-b-1.json" in got["pr"] and "submissions/model-a-1.json" in got["pr"]


def test_invalid_run_commits_nothing_and_names_file_row_field(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", DATASET)
    cli(env, "submit", str(synthetic_run("a")), "--to", DATASET, "--bootstrap", "0")
    bad = synthetic_run("bad", model_id="org/model-c", submission_id="model-c-1")
    jfile = RunDir(bad).judgment_file("heuristic-v1", "smoke")
    lines = jfile.read_text().splitlines()
    lines[1] = lines[1].replace('"score": 0.5', '"score": 0.3')
    jfile.write_text("\n".join(lines) + "\n")
    before = emulator.stats()["commit"]
    proc = cli(env, "submit", str(bad), "--to", DATASET, "--bootstrap", "0", check=False)
    assert proc.returncode == 1 and f"{jfile}:2:score" in proc.stderr
    assert emulator.stats()["commit"] == before
    assert emulator.token not in proc.stderr


def test_wrong_token_fails_cleanly_without_leaking_it(emulator, synthetic_run, tmp_path):
    cli(hub_env(emulator, tmp_path), "create", DATASET)
    env = {**hub_env(emulator, tmp_path), "HF_TOKEN": "hf_wrongtokenABCDEFGH12345"}
    proc = cli(env, "submit", str(synthetic_run("a")), "--to", DATASET, "--bootstrap", "0", check=False)
    assert proc.returncode == 1, proc.stdout
    assert "hf_wrongtokenABCDEFGH12345" not in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr


def test_recompute_on_the_hub_commits_rebuilt_files(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", DATASET)
    cli(env, "submit", str(synthetic_run("a")), "--to", DATASET, "--bootstrap", "0")
    out = cli(env, "recompute", f"hf://datasets/{DATASET}", "--bootstrap", "0", "--rejudge", "2")
    assert "recomputed 1 leaderboard row(s)" in out.stdout and "model-a-1" in out.stdout
    got = client(env, """
        import json
        from huggingface_hub import HfApi
        api = HfApi()
        files = api.list_repo_files("org/board", repo_type="dataset")
        print(json.dumps({"files": files, "n": len(api.list_repo_commits("org/board", repo_type="dataset"))}))
    """)
    assert "data/audit/rejudge.json" in got["files"] and any(f.startswith("figures/") for f in got["files"])
    assert got["n"] == 4  # initial, create, submit, recompute


@pytest.mark.hub
@pytest.mark.skipif(not (os.environ.get("SLMBOARD_LIVE_HUB") == "1" and os.environ.get("HF_TOKEN")),
                    reason="live Hub: set SLMBOARD_LIVE_HUB=1, HF_TOKEN and SLMBOARD_LIVE_DATASET=org/name")
def test_live_hub_submit(synthetic_run, tmp_path):
    dataset = os.environ.get("SLMBOARD_LIVE_DATASET")
    if not dataset:
        pytest.skip("set SLMBOARD_LIVE_DATASET=org/name (a scratch dataset you own)")
    run = synthetic_run("live", submission_id=f"live-{os.getpid()}")
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "submit", str(run), "--to", dataset, "--bootstrap", "0",
                           "--create-pr"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert os.environ["HF_TOKEN"] not in proc.stdout + proc.stderr
