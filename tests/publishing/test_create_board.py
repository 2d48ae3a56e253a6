"""Boards are created on purpose (issue 31): `slmboard create` writes board.yaml and the card; submit keeps to
the recipe (each set field one line), a created board with no submission is a board; the same on the Hub emulator."""
from __future__ import annotations

import subprocess

import pytest
import yaml

from slmboard_hub_clients import cli, hub_env
from slmboard_hub_emulator import start_emulator
from toolkit import api
from toolkit.core.errors import BadOption, BoardExists, BoardRecipeRefused
from toolkit.core.dataset_layout import BOARD_FILE


def git_log(root) -> list[str]:
    return subprocess.run(["git", "log", "--format=%s"], cwd=root, capture_output=True, text=True, check=True).stdout.split("\n")[:-1]


def test_create_writes_the_recipe_and_the_card_and_is_a_board(tmp_path, capsys):
    board = tmp_path / "board"
    r = api.create(board, options=api.CreateOptions(suites=["smoke"], judges="heuristic-v1", limit=3, gate=False))
    assert r.created
    assert yaml.safe_load((board / BOARD_FILE).read_text()) == {
        "version": 1, "suites": ["smoke"], "judges": ["heuristic-v1"], "limits": {"items": 3}, "gated": False}
    assert "gated: false" in (board / "README.md").read_text()
    assert api.rank(board, options=api.RankOptions(n_bootstrap=0)).attrs["no_submissions_yet"]
    report = api.validate(board)
    assert report.ok and report.no_submissions_yet
    assert git_log(board) == ["Create the board (board.yaml, dataset card)"]


def test_create_again_is_refused_unless_the_recipe_is_identical(tmp_path):
    board = tmp_path / "board"
    api.create(board, options=api.CreateOptions(suites=["smoke"]))
    again = api.create(board, options=api.CreateOptions(suites=["smoke"]))
    assert not again.created and len(git_log(board)) == 1
    with pytest.raises(BoardExists, match="already a board with another recipe"):
        api.create(board, options=api.CreateOptions(suites=["smoke", "xstest"]))
    assert yaml.safe_load((board / BOARD_FILE).read_text())["suites"] == ["smoke"]


def test_create_on_a_board_published_before_board_yaml_is_refused(tmp_path, synthetic_run):
    board = tmp_path / "old"
    api.create(board)
    subprocess.run(["git", "rm", "-q", BOARD_FILE], cwd=board, check=True)  # a board as published before board.yaml
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "old"], cwd=board, check=True)
    api.submit(synthetic_run("a"), to=board, options=api.SubmitOptions(n_bootstrap=0))  # a board without board.yaml takes submissions as today
    with pytest.raises(BoardExists, match="published before board.yaml"):
        api.create(board)
    assert not (board / BOARD_FILE).exists()


@pytest.mark.parametrize("recipe, needle", [
    ({"suites": ["xstest"]}, "suite(s) smoke are not on this board"),
    ({"judges": ["openai-x"]}, "judge(s) heuristic-v1 are not on this board"),
    ({"limit": 10}, "limits.items 10"),
    ({"max_new_tokens": 7}, "decoding max_new_tokens is"),
])
def test_submit_keeps_to_each_set_field_of_the_recipe(recipe, needle, tmp_path, synthetic_run):
    board = tmp_path / "board"
    api.create(board, options=api.CreateOptions(**recipe))
    with pytest.raises(BoardRecipeRefused, match="does not fit the board's board.yaml") as caught:
        api.submit(synthetic_run("a"), to=board, options=api.SubmitOptions(n_bootstrap=0))
    assert needle in str(caught.value) and "\n" not in str(caught.value)
    assert len(git_log(board)) == 1 and not (board / "submissions").exists()  # nothing written


def test_a_fitting_run_lands_on_a_created_board_and_gating_stays_the_boards(tmp_path, synthetic_run):
    board = tmp_path / "board"
    api.create(board, options=api.CreateOptions(suites=["smoke"], judges=["heuristic-v1"], limit=3, gate=False))
    run = synthetic_run("a")
    with pytest.raises(BadOption, match="gating is a property of the board") as caught:
        api.submit(run, to=board, options=api.SubmitOptions(n_bootstrap=0, gate=False))
    assert caught.value.param == "gate"
    api.submit(run, to=board, options=api.SubmitOptions(n_bootstrap=0))
    table = api.rank(board, options=api.RankOptions(n_bootstrap=0))
    assert len(table) == 1 and not table.attrs["no_submissions_yet"]
    assert "gated: false" in (board / "README.md").read_text()


def test_cli_create_and_the_no_submissions_line(tmp_path):
    env = {"PYTHONPATH": str(__import__("pathlib").Path(__file__).resolve().parents[2])}
    import os
    import sys

    env = {**os.environ, **env}
    run = lambda *a: subprocess.run([sys.executable, "-m", "toolkit.cli", *a], cwd=tmp_path, env=env, capture_output=True, text=True)
    made = run("create", "./b", "--suites", "smoke")
    assert made.returncode == 0 and made.stdout.startswith("created the board b"), made.stderr
    ranked = run("rank", "./b", "--bootstrap", "0")
    assert ranked.stdout.strip() == "no submissions yet (a board created with `slmboard create`)"
    assert run("validate", "./b").stdout.strip() == "./b: a board with no submissions yet: OK"
    bare = run("create", "my-board")
    assert bare.returncode == 1 and "ambiguous" in bare.stderr and not (tmp_path / "my-board").exists()


@pytest.fixture(scope="module")
def emulator():
    emu = start_emulator()
    yield emu
    emu.stop()


def test_create_and_submit_on_the_hub_emulator(emulator, tmp_path, synthetic_run):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", "org/created", "--suites", "smoke", "--no-gate")
    again = cli(env, "create", "hf://datasets/org/created@main", "--suites", "smoke", "--no-gate")
    assert "nothing changed" in again.stdout
    empty = cli(env, "rank", "org/created@main", "--bootstrap", "0")
    assert empty.stdout.strip() == "no submissions yet (a board created with `slmboard create`)"
    refused = cli(env, "submit", str(synthetic_run("a")), "--to", "org/created", "--no-gate", "--bootstrap", "0", check=False)
    assert refused.returncode == 1 and "gating is a property of the board" in refused.stderr
    cli(env, "submit", str(synthetic_run("a")), "--to", "hf://datasets/org/created@main", "--bootstrap", "0")
    # org/created@main is the same dataset to rank, export and submit (it was a folder ./org/created@main to submit)
    assert "org/model-a" in cli(env, "rank", "org/created@main", "--bootstrap", "0").stdout
    cli(env, "export", "eee", "org/created@main", "--out", str(tmp_path / "eee"), "--bootstrap", "0")
    assert any((tmp_path / "eee").rglob("*.json"))
    cli(env, "submit", str(synthetic_run("b", model_id="org/model-b", submission_id="model-b-1")), "--to", "org/created@main",
        "--bootstrap", "0")
    assert "org/model-b" in cli(env, "rank", "hf://datasets/org/created@main", "--bootstrap", "0").stdout
    typo = cli(env, "submit", str(synthetic_run("c", model_id="org/model-c", submission_id="model-c-1")), "--to", "org/craeted",
               "--bootstrap", "0", check=False)
    assert typo.returncode == 1 and "hf://datasets/org/craeted: no such dataset; create the board first with `slmboard " \
        "create org/craeted`" in typo.stderr, typo.stderr


def test_submit_to_a_revision_that_is_not_a_branch_is_refused(emulator, tmp_path, synthetic_run):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", "org/revs")
    head = cli(env, "validate", "--help").returncode  # the CLI runs; now the commit of main:
    code = ("from huggingface_hub import HfApi; print(HfApi().dataset_info('org/revs').sha)")
    sha = subprocess.run([__import__("sys").executable, "-c", code], env=env, capture_output=True, text=True).stdout.strip()
    assert head == 0 and len(sha) == 40
    refused = cli(env, "submit", str(synthetic_run("a")), "--to", f"hf://datasets/org/revs@{sha}", "--bootstrap", "0", check=False)
    assert refused.returncode == 1 and f"'{sha}' is not a branch of the dataset" in refused.stderr, refused.stderr
    assert "committed onto a branch (main)" in refused.stderr
