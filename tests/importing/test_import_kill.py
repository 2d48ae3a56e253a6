"""kill -9 during `slmboard import` into a new run folder: the staging folder it leaves is removed by the next import.

The kill is proved to land inside the write: the child is frozen (SIGSTOP) once its staging folder exists,
and it must still be alive, the staging folder still there and ``--out`` still absent at that moment; only
then is it SIGKILLed. Re-running the same command removes that staging folder (its owner is dead) and
writes the run. Staging folders of live processes, of other hosts or without an owner tag are never touched.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolkit.stages.importing.staging import make_staging, owner_tag, remove_stale_staging
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunDir

REPO = Path(__file__).resolve().parents[2]


def _import_cmd(gpteval: Path, benchmarks: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "toolkit.cli", "import", "table", str(gpteval), "--suite", "xstest",
            "--data-dir", str(benchmarks), "--model-id", "openai/gpt-4-0613", "--out", str(out),
            "--columns", "prompt=prompt,response=completion", "--judge-column", "human-xstest=final_label",
            "--judge-column", "gpt4-xstest=gpt4_label", "--labels", "refusal", "--skip-unmatched"]


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def _staging(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.import-*"))


def _kill_while_staging(cmd: list[str], out: Path) -> dict | None:
    """Run ``cmd``; once its staging folder exists freeze it, note what is there, SIGKILL it.
    None when the child was past the rename (a miss)."""
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not _staging(out) and proc.poll() is None:
            assert time.monotonic() < deadline, "the import never made a staging folder"
            time.sleep(0.0005)
        if proc.poll() is not None:
            return None
        os.kill(proc.pid, signal.SIGSTOP)
        state = {"pid": proc.pid, "alive": proc.poll() is None, "staging": _staging(out), "out_exists": out.exists()}
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return state if state["alive"] and state["staging"] and not state["out_exists"] else None


def test_sigkill_mid_write_leaves_staging_and_the_rerun_removes_it(gpt4_gpteval, benchmarks, tmp_path):
    out = tmp_path / "runs" / "gpt4"
    cmd = _import_cmd(gpt4_gpteval, benchmarks, out)
    for _ in range(5):  # a child that renamed before the freeze is a miss: its run is removed, again
        state = _kill_while_staging(cmd, out)
        if state is not None:
            break
        shutil.rmtree(out, ignore_errors=True)
    assert state is not None, "five kills all came after the rename"
    # The kill landed mid-write: the child was alive, the staging folder existed and --out did not.
    assert len(state["staging"]) == 1
    left = state["staging"][0]
    assert left.is_dir() and not out.exists(), "a SIGKILLed import leaves its staging folder (the garbage to clean)"
    assert f".{state['pid']}." in left.name, left.name  # the owner tag names the killed process

    again = subprocess.run(cmd, env=_env(), capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert f"removed {left}" in again.stderr and f"pid {state['pid']}" in again.stderr
    assert _staging(out) == [] and not left.exists()
    rows = [r for _, r in iter_jsonl(RunDir(out).response_file("xstest"))]
    assert len(rows) == len({r["item_id"] for r in rows}) == 449  # the release file less v2-195 (reworded)
    for judge in ("human-xstest", "gpt4-xstest"):
        assert len(list(iter_jsonl(RunDir(out).judgment_file(judge, "xstest")))) == 449


def test_only_staging_folders_of_dead_processes_on_this_host_are_removed(tmp_path):
    if owner_tag().endswith(".0"):
        pytest.skip("no /proc start times here: a reused pid cannot be told apart")
    out = tmp_path / "run"
    live = make_staging(out)  # this test process: alive
    dead_proc = subprocess.Popen([sys.executable, "-c", "pass"])
    dead_proc.wait()
    dead = tmp_path / f".run.import-{owner_tag(os.getpid()).split('.')[0]}.{dead_proc.pid}.1-abc"
    # this host, this pid, but another start time: the pid was reused by another process
    reused = tmp_path / f".run.import-{owner_tag().rsplit('.', 1)[0]}.{int(owner_tag().rsplit('.', 1)[1]) + 1}-def"
    other_host = tmp_path / f".run.import-00000000.{dead_proc.pid}.1-ghi"
    untagged = tmp_path / ".run.import-x1y2z3"  # the name earlier versions used: owner unknown
    other_run = tmp_path / f".run2.import-{owner_tag().split('.')[0]}.{dead_proc.pid}.1-jkl"
    for folder in (dead, reused, other_host, untagged, other_run):
        folder.mkdir()
        (folder / "responses").mkdir()
    removed = remove_stale_staging(out)
    assert sorted(s.path for s in removed) == sorted([dead, reused])
    assert not dead.exists() and not reused.exists()
    for kept in (live, other_host, untagged, other_run):
        assert kept.is_dir(), kept


def test_staging_folder_gets_the_mode_of_a_plain_folder(tmp_path):
    """The staging folder becomes the run folder: not mkdtemp's 0700."""
    plain = tmp_path / "plain"
    plain.mkdir()
    staging = make_staging(tmp_path / "run")
    assert staging.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777


def test_an_import_into_an_existing_run_also_removes_dead_staging(benchmarks, tmp_path, capsys):
    from toolkit.cli import main

    helm = next((Path(__file__).parent / "fixtures" / "helm_real" / "runs").glob("simple_safety_tests:*"))
    out = tmp_path / "run"
    args = ["import", "helm", str(helm), "--helm-version", "0.5.16", "--data-dir", str(benchmarks), "--out", str(out)]
    assert main(args) == 0
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stale = tmp_path / f".run.import-{owner_tag().split('.')[0]}.{gone.pid}.1-xyz"
    (stale / "responses").mkdir(parents=True)
    capsys.readouterr()
    assert main(args) == 0  # same source: the run is left as it is, the dead import's folder removed
    assert f"removed {stale}" in capsys.readouterr().err and not stale.exists()
