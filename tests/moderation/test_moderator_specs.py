"""Moderators are named like every component: ``NAME[:ARGUMENT]`` with checked options (issue 25 item 2)."""
from __future__ import annotations

import pytest

from toolkit import api
from toolkit.cli import main
from toolkit.core.errors import BadOption


def test_a_judge_moderator_carries_a_typed_judge_spec():
    spec = api.ModeratorSpec("judge", judge=api.JudgeSpec("heuristic"), moderator_id="h")
    moderator = spec.build()
    assert moderator.moderator_id == "h" and moderator.judge.judge_id == "heuristic-v1"
    assert api.ModeratorSpec("judge", judge="bbq").build().judge.judge_id == "bbq-mc-v1"  # a spec string is parsed
    with pytest.raises(BadOption, match="judge 'heuristic' has no option 'base_url'"):
        api.ModeratorSpec("judge", judge=api.JudgeSpec("heuristic", base_url="http://127.0.0.1:9/v1"))


def test_moderator_options_are_refused_by_name():
    with pytest.raises(BadOption) as exc:
        api.ModeratorSpec("openai", base_url="http://127.0.0.1:9/v1")
    assert exc.value.param == "model" and "needs its model: openai:<model>" in str(exc.value)
    with pytest.raises(BadOption) as exc:
        api.ModeratorSpec("openai:smol")
    assert exc.value.param == "base_url" and "option 'base_url' is required" in str(exc.value)
    with pytest.raises(BadOption) as exc:
        api.ModeratorSpec("guard:/models/lg3", guard="llama_guard_9")
    assert exc.value.param == "guard" and "must be one of llama_guard_3, shieldgemma, wildguard" in str(exc.value)
    with pytest.raises(BadOption, match="has no option 'served_model'"):
        api.ModeratorSpec("openai:smol", base_url="http://127.0.0.1:9/v1", served_model="x")


def test_moderate_refuses_a_flag_neither_the_moderator_nor_its_judge_takes(tmp_path, capsys):
    argv = ["moderate", "--out", str(tmp_path / "r"), "--model", "judge", "--judge", "heuristic", "--suites", "xstest",
            "--base-url", "http://127.0.0.1:9/v1"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "--base-url does not apply to moderator backend:judge / judge:heuristic" in err
    assert not (tmp_path / "r").exists()


def test_the_old_spellings_of_a_moderators_model_still_work_and_say_so(tmp_path, capsys):
    # (a benchmark name that does not exist stops the command before any weights load; the model folder
    # must exist, or it is refused first: tests/badinput/test_missing_folders.py)
    (tmp_path / "lg3").mkdir()
    argv = ["moderate", "--out", str(tmp_path / "r"), "--model", "guard", "--guard", "llama_guard_3",
            "--model-dir", str(tmp_path / "lg3"), "--suites", "nope"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"--model-dir is deprecated; name the model as --model guard:{tmp_path / 'lg3'}" in err
    assert "unknown moderation benchmark 'nope'" in err
    assert main(["moderate", "--out", str(tmp_path / "r"), "--model", "guard:/x", "--model-dir", "/y"]) == 1
    assert "--model-dir and --model guard:/x both name the model" in capsys.readouterr().err
