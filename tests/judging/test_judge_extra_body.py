"""--judge-extra-body: bad values are refused before any request; the settings are recorded and a
second judging of the same run with other settings is refused (no server needed: nothing is sent)."""
from __future__ import annotations

import json

import pytest

from toolkit.cli import main

# A port nothing listens on: a request would become an 'error' record, so "no records" proves none was made.
DEAD_URL = "http://127.0.0.1:9/v1"


def _judge(run, *extra: str) -> int:
    return main(["judge", str(run), "--judge", "openai:m", "--base-url", DEAD_URL, "--max-attempts", "1", "--timeout", "2", *extra])


@pytest.mark.parametrize("value, message", [
    ("{not json", "--judge-extra-body: not valid JSON"),
    ('["structured_outputs"]', "must be a JSON object"),
    ('{"temperature": 0.7}', "extra_body may not set temperature"),
    ('{"max_tokens": 5, "seed": 1}', "extra_body may not set seed, max_tokens"),
])
def test_bad_extra_body_is_refused_before_any_request(tmp_path, run_with_responses, judge_env, capsys, value, message):
    run = run_with_responses(tmp_path / "run", ["Sure."])
    assert _judge(run, "--judge-extra-body", value) == 1
    assert message in capsys.readouterr().err
    assert not (run / "judgments").exists()


def test_extra_body_applies_only_to_api_judges(tmp_path, run_with_responses, capsys):
    run = run_with_responses(tmp_path / "run", ["Sure."])
    assert main(["judge", str(run), "--judge", "heuristic", "--judge-extra-body", "{}"]) == 1
    assert "--judge-extra-body apply to openai" in capsys.readouterr().err


def test_other_settings_on_a_judged_run_are_refused(tmp_path, run_with_responses, judge_env, capsys):
    run = run_with_responses(tmp_path / "run", ["Sure."])
    folder = run / "judgments" / "openai-m"
    folder.mkdir(parents=True)
    recorded = {"judge_id": "openai:m", "model": "m", "rubric_version": "x", "temperature": 0.0, "seed": 0,
                "max_tokens": 256, "air_templates": None, "extra_body": {"structured_outputs": {"regex": "a|b"}}}
    (folder / "judge-config.json").write_text(json.dumps(recorded))
    assert _judge(run, "--judge-extra-body", '{"structured_outputs": {"regex": "c"}}') == 1
    err = capsys.readouterr().err
    assert "judge-config.json" in err and "extra_body" in err and "rubric_version" in err
    assert sorted(p.name for p in folder.iterdir()) == ["judge-config.json"]  # no records written
    assert json.loads((folder / "judge-config.json").read_text()) == recorded  # left as it was


def test_extra_body_is_part_of_the_cache_key(tmp_path, run_with_responses, katan, judge_env):
    """A reply made under a constraint is another verdict: it is never served for an unconstrained request."""
    import shutil

    from toolkit import api

    n, constrained = 4, {"structured_outputs": {"regex": "<reasoning>x</reasoning>\n<score>1</score>"}}
    run = run_with_responses(tmp_path / "run", [f"answer {k}" for k in range(n)])
    server = katan()

    def judge_copy(name: str, **options):
        copy = tmp_path / name
        shutil.copytree(run, copy)
        return api.judge(copy, judge="openai:judge", base_url=server.base_url, show_progress=False, **options), copy

    first, copy = judge_copy("a", extra_body=constrained)
    assert server.request_count() == n and first.judge_stats["requests"] == n
    assert json.loads((copy / "judgments" / "openai-judge" / "judge-config.json").read_text())["extra_body"] == constrained
    plain, _ = judge_copy("b")  # same prompts and responses, no extra body: asked again
    assert server.request_count() == 2 * n and plain.judge_stats["requests"] == n
    again, _ = judge_copy("c", extra_body=constrained)  # same extra body: all from the cache
    assert server.request_count() == 2 * n and again.judge_stats.get("requests", 0) == 0 and again.judge_stats["cache_hits"] == n
