"""Crash safety and concurrency of `slmboard submit` into the local dataset folder.

kill -9 at seeded random moments: the folder is never left half committed (HEAD holds a submission
whole or not at all), and re-running the same command lands it exactly once.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from slmboard_testing import make_run

pytestmark = pytest.mark.slow
TRIALS = 20


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def _committed_files(root: Path) -> set[str]:
    return set(_git(root, "ls-tree", "-r", "--name-only", "HEAD").split())


def _submit_cmd(run: Path, dataset: Path) -> list[str]:
    return [sys.executable, "-m", "toolkit.cli", "submit", str(run), "--to", str(dataset), "--bootstrap", "50"]


def _assert_whole_or_absent(dataset: Path, sid: str) -> bool:
    files = _committed_files(dataset)
    manifest = f"submissions/{sid}.json"
    data = {f for f in files if f.startswith("data/smoke/") and f.split("/")[-1].startswith(f"{sid}__")}
    if manifest in files:
        entries = json.loads(_git(dataset, "show", f"HEAD:{manifest}"))["record_files"]
        assert {e["path"] for e in entries} == data, "manifest and committed data files disagree"
        return True
    assert not data, f"data files of {sid} committed without its manifest: {data}"
    return False


def test_kill_9_submit_at_random_moments_then_resume(tmp_path):
    rng = random.Random(1337)
    dataset = tmp_path / "dataset"
    subprocess.run(_submit_cmd(make_run(tmp_path / "seed"), dataset), check=True, capture_output=True)
    # How long one submit takes here, to spread the kill moments over its whole life.
    started = time.perf_counter()
    subprocess.run(_submit_cmd(make_run(tmp_path / "timing", model_id="org/timing", submission_id="timing-1"), dataset),
                   check=True, capture_output=True)
    duration = time.perf_counter() - started
    killed_mid_run = 0
    for trial in range(TRIALS):
        sid = f"trial-{trial}"
        run = make_run(tmp_path / sid, model_id=f"org/model-{trial}", submission_id=sid)
        proc = subprocess.Popen(_submit_cmd(run, dataset), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, duration))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            killed_mid_run += 1
        proc.wait()
        landed = _assert_whole_or_absent(dataset, sid)
        again = subprocess.run(_submit_cmd(run, dataset), capture_output=True, text=True)
        if landed:
            assert again.returncode == 1 and "already" in again.stderr
        else:
            assert again.returncode == 0, again.stderr
        assert _assert_whole_or_absent(dataset, sid)
    assert killed_mid_run >= TRIALS // 2, f"only {killed_mid_run} kills hit a running submit"
    # Final state: clean tree, every submission once, every file matching its manifest hash.
    assert _git(dataset, "status", "--porcelain") == ""
    manifests = sorted((dataset / "submissions").glob("*.json"))
    assert len(manifests) == TRIALS + 2
    for m in manifests:
        for entry in json.loads(m.read_text())["record_files"]:
            assert hashlib.sha256((dataset / entry["path"]).read_bytes()).hexdigest() == entry["sha256"]
    board = subprocess.run([sys.executable, "-m", "toolkit.cli", "rank", str(dataset), "--quiet", "--bootstrap", "0",
                            "--out", str(tmp_path / "lb")], capture_output=True, text=True)
    assert board.returncode == 0, board.stderr
    import pandas as pd

    assert len(pd.read_csv(tmp_path / "lb" / "leaderboard.csv")) == TRIALS + 2


def test_two_concurrent_submits_to_one_folder_both_land(tmp_path):
    dataset = tmp_path / "dataset"
    runs = [make_run(tmp_path / f"r{i}", model_id=f"org/m{i}", submission_id=f"m{i}-1") for i in range(2)]
    procs = [subprocess.Popen(_submit_cmd(r, dataset), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in runs]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert len(_git(dataset, "log", "--format=%H").split()) == 2
    assert {"submissions/m0-1.json", "submissions/m1-1.json"} <= _committed_files(dataset)
    assert _git(dataset, "status", "--porcelain") == ""
