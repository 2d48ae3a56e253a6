"""Names on a board (issue 43): ``create`` checks suites and judges (did-you-mean) and stores them resolved;
``slmboard recipe BOARD --set ...`` changes a recipe as a commit of its own, refusing a change that
published submissions would not meet; an older slmboard meeting a newer recipe says so in one line."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from toolkit import api
from slmboard_testing import new_board

REPO = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolkit.cli", *args], capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})


def _log(board: Path) -> list[str]:
    return subprocess.run(["git", "log", "--format=%s"], cwd=board, capture_output=True, text=True).stdout.splitlines()


def test_create_refuses_unknown_names_with_did_you_mean_and_writes_nothing(tmp_path):
    for flags, said in ((["--suites", "xtest"], "did you mean 'xstest'"), (["--judges", "heuristc"], "did you mean 'heuristic'"),
                        (["--judges", "<img src=x onerror=alert(1)>"], "nor a judge id")):
        proc = _cli("create", str(tmp_path / "b"), *flags)
        assert proc.returncode == 1 and said in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "b").exists()


def test_create_stores_names_resolved(tmp_path):
    board = new_board(tmp_path / "b", suites=["smoke"], judges=["learned", "heuristic", "helm:harm_bench:gpt-4o"],
                      primary_judges={"smoke": "heuristic"})
    recipe = yaml.safe_load((board / "board.yaml").read_text())
    assert recipe["judges"] == ["learned-v3", "heuristic-v1", "helm:harm_bench:gpt-4o"]
    assert recipe["primary_judges"] == {"smoke": "heuristic-v1"}


def test_recipe_changes_by_its_own_commit_and_refuses_what_published_submissions_break(synthetic_run, tmp_path):
    board = new_board(tmp_path / "b", suites=["smoke"])
    api.submit(synthetic_run("a"), to=board, options=api.SubmitOptions(n_bootstrap=0))
    commits = len(_log(board))
    refused = _cli("recipe", str(board), "--set", "judges=learned")
    assert refused.returncode == 1 and "model-a-1" in refused.stderr and "heuristic-v1" in refused.stderr
    assert len(_log(board)) == commits
    changed = _cli("recipe", str(board), "--set", "suites=smoke,xstest", "--set", "judges=heuristic")
    assert changed.returncode == 0, changed.stderr
    assert _log(board)[0].startswith("Change the board's recipe") and len(_log(board)) == commits + 1
    recipe = yaml.safe_load((board / "board.yaml").read_text())
    assert recipe["suites"] == ["smoke", "xstest"] and recipe["judges"] == ["heuristic-v1"]
    typo = _cli("recipe", str(board), "--set", "suites=smoke,xtest")
    assert typo.returncode == 1 and "did you mean 'xstest'" in typo.stderr and len(_log(board)) == commits + 1


def test_an_older_slmboard_meeting_a_newer_recipe_says_which_version_it_needs(synthetic_run, tmp_path):
    board = new_board(tmp_path / "b")
    text = (board / "board.yaml").read_text().replace("version: 1", "version: 7\nwho_may_submit: [org]")
    (board / "board.yaml").write_text(text)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "a newer recipe"], cwd=board, check=True)
    proc = _cli("submit", str(synthetic_run("a")), "--to", str(board), "--bootstrap", "0")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "recipe version 7 needs a newer slmboard" in proc.stderr
