"""--extra-body (spelled --judge-extra-body one release ago, still accepted): bad values are refused before any request; the settings are recorded and a
second judging of the same run with other settings is refused (no server needed: nothing is sent)."""
from __future__ import annotations

import json

import pytest

from toolkit.cli import main
from slmboard_testing import new_board

# A port nothing listens on: a request would become an 'error' record, so "no records" proves none was made.
DEAD_URL = "http://127.0.0.1:9/v1"


def _judge(run, *extra: str) -> int:
    return main(["judge", str(run), "--judge", "openai:m", "--base-url", DEAD_URL, "--max-attempts", "1", "--timeout", "2", *extra])


@pytest.mark.parametrize("value, message", [
    ("{not json", "--extra-body: not valid JSON"),
    ('["structured_outputs"]', "must be a JSON object"),
    ('{"temperature": 0.7}', "extra_body may not set temperature"),
    ('{"max_tokens": 5, "seed": 1}', "extra_body may not set seed, max_tokens"),
])
def test_bad_extra_body_is_refused_before_any_request(tmp_path, run_with_responses, judge_env, capsys, value, message):
    run = run_with_responses(tmp_path / "run", ["Sure."])
    assert _judge(run, "--extra-body", value) == 1
    assert message in capsys.readouterr().err
    assert not (run / "judgments").exists()


def test_extra_body_applies_only_to_api_judges(tmp_path, run_with_responses, capsys):
    run = run_with_responses(tmp_path / "run", ["Sure."])
    assert main(["judge", str(run), "--judge", "heuristic", "--judge-extra-body", "{}"]) == 1  # the old spelling
    assert "--extra-body does not apply to judge:heuristic; it applies to: openai, guard" in capsys.readouterr().err


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
        return api.judge(copy, judge=api.JudgeSpec("openai:judge", base_url=server.base_url, **options), services=api.Services(progress=False)), copy

    first, copy = judge_copy("a", extra_body=constrained)
    assert server.request_count() == n and first.judge_stats["requests"] == n
    assert json.loads((copy / "judgments" / "openai-judge" / "judge-config.json").read_text())["extra_body"] == constrained
    plain, _ = judge_copy("b")  # same prompts and responses, no extra body: asked again
    assert server.request_count() == 2 * n and plain.judge_stats["requests"] == n
    again, _ = judge_copy("c", extra_body=constrained)  # same extra body: all from the cache
    assert server.request_count() == 2 * n and again.judge_stats.get("requests", 0) == 0 and again.judge_stats["cache_hits"] == n


def test_the_judges_request_settings_are_published_with_its_verdicts(tmp_path, run_with_responses, katan, judge_env):
    """What shaped the verdicts (seed, max_tokens, the extra request body) reaches the dataset: the
    submission manifest carries each API judge's judge-config.json, and an unreadable one stops the submit."""
    from toolkit import api
    from toolkit.core.errors import ValidationFailed
    from toolkit.stages.judging.openai_judge import DEFAULT_SEED

    constrained = {"structured_outputs": {"regex": "<reasoning>x</reasoning>\n<score>1</score>"}}
    run = run_with_responses(tmp_path / "run", ["answer 0", "answer 1"])
    api.judge(run, judge=api.JudgeSpec("openai:judge", base_url=katan().base_url, extra_body=constrained), services=api.Services(progress=False))
    api.judge(run, judge="heuristic", services=api.Services(progress=False))
    config_file = run / "judgments" / "openai-judge" / "judge-config.json"

    config_file.write_text("{not json")
    new_board(tmp_path / "broken")
    with pytest.raises(ValidationFailed, match="judge-config.json: not valid JSON"):
        api.submit(run, to=tmp_path / "broken", options=api.SubmitOptions(n_bootstrap=0, allow_partial=True))
    assert not (tmp_path / "broken").exists() or not any((tmp_path / "broken").glob("submissions/*.json"))

    config_file.unlink()
    api.judge(run, judge=api.JudgeSpec("openai:judge", base_url=katan().base_url, extra_body=constrained), services=api.Services(progress=False))
    new_board(tmp_path / "dataset")
    api.submit(run, to=tmp_path / "dataset", options=api.SubmitOptions(n_bootstrap=0, allow_partial=True))
    manifest = json.loads(next((tmp_path / "dataset" / "submissions").glob("*.json")).read_text())
    published = manifest["judge_configs"]
    assert set(published) == {"openai:judge"}  # the heuristic judge records no request settings
    assert published["openai:judge"]["extra_body"] == constrained
    assert published["openai:judge"]["seed"] == DEFAULT_SEED and published["openai:judge"]["temperature"] == 0.0
    assert published["openai:judge"] == json.loads(config_file.read_text())
