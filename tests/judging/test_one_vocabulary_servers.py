"""One way to point any component at an OpenAI-compatible server (issue 22 items 1, 5, 8), against a real
server on 127.0.0.1 (llm-katan, echo backend: instant answers)."""
from __future__ import annotations

import json
import re

from toolkit.testing.servers import TEST_API_KEY

from toolkit.cli import build_parser, main
from slmboard_testing import new_board


def test_generate_help_followed_literally_reaches_a_served_model(tmp_path, katan, capsys, monkeypatch):
    """Item 1: `generate --help` names a served model as openai:<model> with --base-url; doing just that works,
    and run.json records the same model_args as lm-eval's spelling would."""
    monkeypatch.setenv("SLMBOARD_TEST_KEY", TEST_API_KEY)
    server = katan()
    help_text = " ".join(build_parser()._subparsers._group_actions[0].choices["generate"].format_help().split())
    assert "a served model openai:<name> with --base-url" in help_text
    assert re.search(r"openai:<model>: any OpenAI- ?compatible chat endpoint", help_text)
    argv = ["generate", "--out", str(tmp_path / "run"), "--model", "openai:judge", "--base-url", server.base_url,
            "--api-key-env", "SLMBOARD_TEST_KEY", "--suites", "smoke", "--limit", "2", "--max-new-tokens", "8"]
    assert main(argv) == 0, capsys.readouterr().err
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    assert config["model_args"] == {"model": "judge", "base_url": server.base_url, "api_key_env": "SLMBOARD_TEST_KEY"}
    assert config["model_id"] == "judge" and "not comparable with reported results: suite smoke" in capsys.readouterr().err
    # lm-eval's spelling of the same options records the same bytes
    assert main(["generate", "--out", str(tmp_path / "run2"), "--model", "openai", "--model-args",
                 f"model=judge,base_url={server.base_url},api_key_env=SLMBOARD_TEST_KEY", "--suites", "smoke",
                 "--limit", "2", "--max-new-tokens", "8"]) == 0
    assert json.loads((tmp_path / "run2" / "run.json").read_text())["model_args"] == config["model_args"]


def test_evaluate_takes_an_api_judge_and_says_what_is_not_comparable(tmp_path, katan, capsys, judge_env):
    """Item 5: evaluate with a model and a judge behind OpenAI-compatible servers (the judge's flags prefixed
    --judge-), printing the judge id it wrote; the smoke suite is marked not comparable, the API judge is not."""
    model_server, judge_server = katan(served_name="smol"), katan(served_name="judge")
    new_board(tmp_path / "ds")
    argv = ["evaluate", "--out", str(tmp_path / "run"), "--to", str(tmp_path / "ds"), "--model", "openai:smol",
            "--base-url", model_server.base_url, "--suites", "smoke", "--limit", "3", "--max-new-tokens", "8",
            "--judge", "openai:judge", "--judge-base-url", judge_server.base_url, "--judge-concurrency", "2",
            "--bootstrap", "0"]
    assert main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr()
    assert "judge openai:judge wrote the judgments" in out.out and "published 3 record(s)" in out.out
    assert "not comparable with reported results: suite smoke" in out.err
    assert "not comparable with reported results: judge" not in out.err
    assert judge_server.request_count() >= 3 and model_server.request_count() >= 3
    config = json.loads((tmp_path / "run" / "judgments" / "openai-judge" / "judge-config.json").read_text())
    assert config["judge_id"] == "openai:judge"
    card = (tmp_path / "ds" / "README.md").read_text()
    assert "- suite smoke: " in card and "- judge " not in card
