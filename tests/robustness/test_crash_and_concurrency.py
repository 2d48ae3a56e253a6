"""Crash safety and concurrency of `slmboard submit` into the local dataset folder.

kill -9 while a submission is being written: the folder is never left half committed (HEAD holds a
submission whole or not at all), and re-running the same command lands it exactly once. Each kill
is proved to land inside the write: the child's in-flight marker (.git/slmboard-inflight, created
before the first file is written and removed after the commit) exists when the child is frozen
(SIGSTOP) and killed; the moment inside that window is seeded, and half the kills come inside the
git phase (after the first git lock appears), where staging and committing happen.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from robustness._kill import child_pids, freeze_look_kill, reap, wait_for, wait_gone
from robustness._zygote import Zygote
from slmboard_testing import make_run, new_board

pytestmark = pytest.mark.slow
TRIALS = 20


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def _committed_files(root: Path) -> set[str]:
    return set(_git(root, "ls-tree", "-r", "--name-only", "HEAD").split())


def _submit_args(run: Path, dataset: Path) -> list[str]:
    return ["submit", str(run), "--to", str(dataset), "--bootstrap", "50"]


def _submit_cmd(run: Path, dataset: Path) -> list[str]:
    return [sys.executable, "-m", "toolkit.cli", *_submit_args(run, dataset)]


@pytest.fixture(scope="module")
def zygote():
    """The kill trials' submits are forked from one pre-imported parent (robustness/_zygote.py)."""
    parent = Zygote(preload=("toolkit.api", "toolkit.outputs.publishing.submit"))
    yield parent
    parent.close()


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


INFLIGHT = Path(".git") / "slmboard-inflight"
GIT_LOCK = Path(".git") / "index.lock"  # held while `git add` / `git commit` run


def _inflight_window(zygote: Zygote, run: Path, dataset: Path) -> tuple[float, float]:
    """Seconds the in-flight marker exists during one uninterrupted submit, and how many of them are
    the git phase (from the first git lock inside the window to the marker's removal)."""
    proc = zygote.start(_submit_args(run, dataset), dict(os.environ))
    assert wait_for(lambda: (dataset / INFLIGHT).exists(), proc, timeout=120)
    started, git_started = time.perf_counter(), None
    while (dataset / INFLIGHT).exists():
        if git_started is None and (dataset / GIT_LOCK).exists():
            git_started = time.perf_counter()
        time.sleep(0.001)
    ended = time.perf_counter()
    assert proc.wait(timeout=300) == 0
    assert git_started is not None, "no git command seen while the submission was in flight"
    return ended - started, ended - git_started


def _kill_inside_write(zygote: Zygote, run: Path, dataset: Path, delay: float, in_git: bool) -> dict | None:
    """Submit, and ``delay`` s after the in-flight marker appears (``in_git``: after the first git
    command inside it starts, i.e. while files are staged and committed) freeze and kill the child.
    Returns what was there at the kill, or None when the child was no longer writing (a miss)."""
    proc = zygote.start(_submit_args(run, dataset), dict(os.environ))
    try:
        if not wait_for(lambda: (dataset / INFLIGHT).exists(), proc, timeout=120):
            return None
        if in_git and not wait_for(lambda: (dataset / GIT_LOCK).exists(), proc, timeout=120):
            return None
        time.sleep(delay)
        alive, state = freeze_look_kill(proc, lambda: {
            "inflight": (dataset / INFLIGHT).exists(), "children": child_pids(proc.pid),
            # a submission's files are staged in .git/slmboard-staged, then moved into data/ just before its commit
            "files_written": sum(len(list((dataset / where).rglob(f"{run.name}__*"))) for where in
                                 ("data", ".git/slmboard-staged") if (dataset / where).exists())})
        state["alive"] = alive
    finally:
        reap(proc)
    # A git child of the killed submit (add, commit) runs on and may still change HEAD: let it end first.
    wait_gone(state["children"])
    return state if state["alive"] and state["inflight"] else None


def test_kill_9_submit_while_writing_then_resume(tmp_path, zygote):
    rng = random.Random(1337)
    dataset = new_board(tmp_path / "dataset")
    subprocess.run(_submit_cmd(make_run(tmp_path / "seed"), dataset), check=True, capture_output=True)
    window, git_phase = _inflight_window(zygote, make_run(tmp_path / "timing", model_id="org/timing", submission_id="timing-1"), dataset)
    kills, submitted = [], 2
    for trial in range(TRIALS):
        # Half the kills while files are written, half inside the short git phase (staging + commit),
        # where a non-atomic commit would leave half a submission in HEAD.
        in_git = trial % 2 == 1
        delay = rng.uniform(0.0, git_phase if in_git else window - git_phase)
        for attempt in range(4):  # a child that committed before the kill is a miss: again, earlier
            sid = f"trial-{trial}-{attempt}"
            run = make_run(tmp_path / sid, model_id=f"org/model-{trial}-{attempt}", submission_id=sid)
            state = _kill_inside_write(zygote, run, dataset, delay * (0.5 ** attempt), in_git)
            submitted += 1
            if state is not None:
                break
            assert _assert_whole_or_absent(dataset, sid)  # a miss landed whole
        assert state is not None, f"trial {trial}: four kills all came after the commit"
        kills.append(state)
        landed = _assert_whole_or_absent(dataset, sid)
        again = zygote.run(_submit_args(run, dataset), dict(os.environ))
        if landed:
            assert again.returncode == 1 and "already" in again.stderr
        else:
            assert again.returncode == 0, again.stderr
        assert _assert_whole_or_absent(dataset, sid)
    assert len(kills) == TRIALS
    # Every kill came inside the write window (marker present, child alive); some after data files were written.
    assert all(k["alive"] and k["inflight"] for k in kills) and any(k["files_written"] for k in kills)
    # Final state: clean tree, every submission once, every file matching its manifest hash.
    assert _git(dataset, "status", "--porcelain") == ""
    manifests = sorted((dataset / "submissions").glob("*.json"))
    assert len(manifests) == submitted
    for m in manifests:
        for entry in json.loads(m.read_text())["record_files"]:
            assert hashlib.sha256((dataset / entry["path"]).read_bytes()).hexdigest() == entry["sha256"]
    board = subprocess.run([sys.executable, "-m", "toolkit.cli", "rank", str(dataset), "--quiet", "--bootstrap", "0",
                            "--out", str(tmp_path / "lb")], capture_output=True, text=True)
    assert board.returncode == 0, board.stderr
    import pandas as pd

    assert len(pd.read_csv(tmp_path / "lb" / "leaderboard.csv")) == submitted


def test_two_concurrent_submits_to_one_folder_both_land(tmp_path):
    dataset = new_board(tmp_path / "dataset")
    runs = [make_run(tmp_path / f"r{i}", model_id=f"org/m{i}", submission_id=f"m{i}-1") for i in range(2)]
    procs = [subprocess.Popen(_submit_cmd(r, dataset), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in runs]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert len(_git(dataset, "log", "--format=%H").split()) == 3  # create + one commit per submitter
    assert {"submissions/m0-1.json", "submissions/m1-1.json"} <= _committed_files(dataset)
    assert _git(dataset, "status", "--porcelain") == ""



_FIRST_WRITER = """
import sys, time
from pathlib import Path
from toolkit.outputs.publishing import LocalFolderHub
root, go, index = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
def write(folder):
    (folder / f"f{index}.txt").write_text(index)
    return [f"f{index}.txt"]
while not go.exists():  # every writer reaches the repository's creation at the same moment
    time.sleep(0.001)
print(LocalFolderHub(root).commit(f"writer {index}", write).revision)
"""


def test_first_writers_racing_to_create_the_folder_all_land(tmp_path):
    # The CI failure this guards: two first submitters both ran `git init` into the same folder and one
    # died on "File exists". Eight writers released together, over several fresh folders.
    # A git template of many files makes each `git init` slow, so the writers' inits overlap every time.
    template = tmp_path / "template"
    (template / "hooks").mkdir(parents=True)
    for n in range(2000):
        (template / "hooks" / f"sample{n}").write_text("#")
    env = {**os.environ, "GIT_TEMPLATE_DIR": str(template)}
    writers = 8
    for trial in range(3):
        root, go = tmp_path / f"dataset{trial}", tmp_path / f"go{trial}"
        procs = [subprocess.Popen([sys.executable, "-c", _FIRST_WRITER, str(root), str(go), str(i)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(writers)]
        time.sleep(3)  # imports done: the writers are polling for the go file
        go.touch()
        outs = [p.communicate(timeout=120) for p in procs]
        assert all(p.returncode == 0 for p in procs), [err[-300:] for _, err in outs if err]
        assert len({out.strip() for out, _ in outs}) == writers
        assert len(_git(root, "log", "--format=%H").split()) == writers
        assert _committed_files(root) == {f"f{i}.txt" for i in range(writers)}
        assert _git(root, "status", "--porcelain") == ""
    assert not [p.name for p in tmp_path.iterdir() if ".init-" in p.name]  # no scratch folder left
