"""kill -9 during a local submit, proved to land mid-write (issue 43): the submission's files are staged
outside data/ (in .git/slmboard-staged) until just before its commit, so at the kill nothing of it is under
data/, and ``load_dataset(folder)`` and ``rank`` show the board as it was."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from robustness._kill import child_pids, freeze_look_kill, reap, start_quiet, wait_for, wait_gone
from slmboard_testing import make_run, new_board

pytestmark = pytest.mark.slow
STAGED = Path(".git") / "slmboard-staged"


def _submit(run: Path, board: Path, bootstrap: str) -> list[str]:
    return [sys.executable, "-m", "toolkit.cli", "submit", str(run), "--to", str(board), "--bootstrap", bootstrap]


def _rank_models(board: Path, out: Path) -> list[str]:
    import pandas as pd

    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "rank", str(board), "--quiet", "--bootstrap", "0",
                           "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return sorted(pd.read_csv(out / "leaderboard.csv")["model_id"])


def test_kill_9_while_a_submission_is_staged_leaves_readers_the_board_as_it_was(tmp_path):
    from datasets import load_dataset

    board = new_board(tmp_path / "board")
    subprocess.run(_submit(make_run(tmp_path / "seed"), board, "0"), check=True, capture_output=True)
    for attempt in range(5):  # a child that got past its staging before it was frozen is a miss: again
        sid = f"killed-{attempt}"
        run = make_run(tmp_path / sid, model_id=f"org/killed-{attempt}", submission_id=sid)
        proc = start_quiet(_submit(run, board, "3000"))  # a long rebuild: the staged files wait for it
        try:
            staged = lambda: any((board / STAGED).rglob(f"{sid}__*.parquet")) if (board / STAGED).is_dir() else False
            if not wait_for(staged, proc, timeout=300):
                continue
            alive, seen = freeze_look_kill(proc, lambda: {
                "staged": sorted(p.name for p in (board / STAGED).rglob("*") if p.is_file()),
                "in_data": sorted(p.name for p in (board / "data").rglob(f"{sid}__*")),
                "children": child_pids(proc.pid)})
        finally:
            reap(proc)
        wait_gone(seen["children"])
        if alive and seen["staged"]:
            break
    else:
        pytest.fail("five submits all got past their staging before the kill")
    assert f"{sid}__heuristic-v1.parquet" in seen["staged"] and seen["in_data"] == []  # the kill landed mid-write
    assert not any((board / "data").rglob(f"{sid}__*")) and not (board / "submissions" / f"{sid}.json").exists()

    items = load_dataset(str(board), "smoke", split="test", cache_dir=str(tmp_path / "hf-cache"))
    assert sorted(set(items["model_id"])) == ["org/model-a"]
    assert _rank_models(board, tmp_path / "lb") == ["org/model-a"]
    # the next write cleans up, and the killed submission lands whole
    again = subprocess.run(_submit(run, board, "0"), capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert not (board / STAGED).exists()
    assert _rank_models(board, tmp_path / "lb2") == ["org/killed-" + sid.split("-")[1], "org/model-a"]
