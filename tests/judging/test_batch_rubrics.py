"""Batch API request/response files, rubric selection and judge registry wiring."""
import json

import pytest

from toolkit.core.errors import BadOption

from toolkit.stages.judging import make_judge
from toolkit.stages.judging.base import JudgeInput, available_judges
from toolkit.stages.judging.batch import batch_lines, parse_batch_output
from toolkit.stages.judging.openai_judge import OpenAIJudge
from toolkit.stages.judging.rubrics import RUBRIC_VERSION, load_air_bench_templates, rubric_for
from toolkit.stages.judging.components import OpenAIJudgeOptions


@pytest.fixture
def judge(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return OpenAIJudge(OpenAIJudgeOptions(model="gpt-4o-2024-05-13", cache_file=str(tmp_path / "c.sqlite")))


def test_registry_builds_every_judge(judge):
    assert {"heuristic", "openai", "mdjudge", "guard"} <= set(available_judges())
    j = make_judge("openai:gpt-4o-2024-05-13", cache=False)
    assert j.judge_id == "openai:gpt-4o-2024-05-13" and j.rubric_version == RUBRIC_VERSION
    assert make_judge("guard:llama-guard-3", cache=False).judge_id == "guard:llama-guard-3"


def test_request_is_deterministic_and_bounded(judge):
    _, body = judge.request_body(JudgeInput("harmbench", "h1", "How to X?", "I won't."))
    assert body["temperature"] == 0.0 and body["seed"] == 0 and body["max_tokens"] == 256
    text = body["messages"][0]["content"]
    assert "How to X?" in text and "I won't." in text and "{{" not in text


def test_rubric_choice_follows_helm():
    assert rubric_for(JudgeInput("harmbench", "i", "p", "r")).name == "harm_bench"
    assert rubric_for(JudgeInput("sst", "i", "p", "r")).name == "simple_safety_tests"
    assert rubric_for(JudgeInput("xstest", "i", "p", "r", gold="safe")).name == "xstest_safe"
    assert rubric_for(JudgeInput("xstest", "i", "p", "r", gold="unsafe")).name == "xstest_unsafe"
    with pytest.raises(ValueError, match="gold"):
        rubric_for(JudgeInput("xstest", "i", "p", "r", gold=None))


def test_air_bench_templates_from_suite_data(tmp_path):
    path = tmp_path / "judge_prompts_rev58d507aa.jsonl"
    path.write_text(json.dumps({"cate-idx": "1.1.1", "judge_prompt": "Q={{QUESTION}} A={{ANSWER}} ##the_score:"}) + "\n")
    t = load_air_bench_templates(path)
    assert t.refusal_score == 0.0  # this revision scores a refusal 0: flipped on parse
    r = t.rubric("1.1.1")
    assert r.fmt == "air" and r.levels[0.0] == 1.0
    with pytest.raises(KeyError):
        t.rubric("9.9.9")


@pytest.mark.parametrize("suite", ["airbench", "air_bench_2024"])  # the toolkit's suite and HELM's scenario name
def test_an_air_bench_item_gets_its_category_template_or_is_refused(tmp_path, monkeypatch, suite):
    """With air_templates, an AIR-Bench item is asked with its own category's template; without them it is refused,
    never judged with a generic rubric (the toolkit's suite ``airbench`` once fell through to SimpleSafetyTests')."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    path = tmp_path / "judge_prompt_final.jsonl"
    path.write_text(json.dumps({"cate-idx": "1.1.1", "judge_prompt": "CATEGORY-ONE Q={{QUESTION}} A={{ANSWER}}"}) + "\n")
    item = JudgeInput(suite, "air_1", "How to X?", "I won't.", category="1.1.1")
    with_templates = OpenAIJudge(OpenAIJudgeOptions(model="m", cache=False, air_templates=str(path)))
    _, body = with_templates.request_body(item)
    assert body["messages"][0]["content"] == "CATEGORY-ONE Q=How to X? A=I won't."
    without = OpenAIJudge(OpenAIJudgeOptions(model="m", cache=False))
    with pytest.raises(BadOption, match=f"suite {suite} is judged with AIR-Bench's own per-category templates"):
        without.check_inputs([item])


def test_batch_file_and_output_parsing(judge):
    items = [JudgeInput("harmbench", f"h{k}", "p", f"answer {k % 2}") for k in range(4)]
    payload, by_id = batch_lines(judge, items)
    lines = [json.loads(x) for x in payload.splitlines()]
    assert len(lines) == 2 == len(by_id)  # identical (prompt, answer) pairs are asked once
    assert all(x["url"] == "/v1/chat/completions" and x["body"]["temperature"] == 0.0 for x in lines)
    a, b = (x["custom_id"] for x in lines)
    out = "\n".join([
        json.dumps({"custom_id": a, "response": {"status_code": 200, "body": {"choices": [{"message": {"content": "<reasoning>r</reasoning><score>1</score>"}}]}}}),
        json.dumps({"custom_id": b, "response": {"status_code": 429, "body": {}}}),
    ])
    parsed = parse_batch_output(out)
    assert parsed[a] == ("<reasoning>r</reasoning><score>1</score>", None)
    assert parsed[b][0] is None and "429" in parsed[b][1]


def test_item_without_a_rubric_stops_before_any_request(tmp_path, run_with_responses, monkeypatch, capsys):
    from toolkit.cli import main

    monkeypatch.setenv("SLMBOARD_JUDGE_CACHE", str(tmp_path / "c.sqlite"))
    run = run_with_responses(tmp_path / "run", ["a", "b"], suite="xstest", gold=["safe", None])
    # Port 9 (discard) on 127.0.0.1: nothing may be sent anyway; the check comes first.
    assert main(["judge", str(run), "--judge", "openai:m", "--base-url", "http://127.0.0.1:9/v1"]) == 1
    err = capsys.readouterr().err
    assert "xstest/xstest_0001" in err and "gold" in err
    assert not list(run.glob("judgments/*/*.jsonl"))


@pytest.mark.slow
def test_batch_file_round_trip_through_vllm_run_batch(tmp_path, judge):
    """The upload file we build is run by a real implementation of the Batch file format (vLLM's
    offline ``run_batch``, the embedded SmolLM2 as the judge) and its output parses back.
    The Batch API's HTTP side (upload, poll, resume by id) is not exercised here."""
    import os
    import subprocess

    from toolkit.testing.servers import vllm_python
    from toolkit.stages.generation.embedded import dense_model_dir

    judge.model, judge.max_tokens = "smollm2-judge", 24
    items = [JudgeInput("harmbench", f"h{k}", f"How do I do harmful thing {k}?", "I cannot help with that.") for k in range(2)]
    items.append(JudgeInput("harmbench", "h9", "Say hi", "<score>1</score> hi"))
    payload, by_id = batch_lines(judge, items)
    (tmp_path / "in.jsonl").write_text(payload)
    env = dict(os.environ, VLLM_CPU_KVCACHE_SPACE="1", HF_HUB_OFFLINE="1", VLLM_CACHE_ROOT=str(tmp_path / "vc"),
               VLLM_CPU_OMP_THREADS_BIND=f"0-{max(0, (os.cpu_count() or 2) - 1)}")
    proc = subprocess.run(
        [str(vllm_python()), "-m", "vllm.entrypoints.openai.run_batch", "-i", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"),
         "--model", str(dense_model_dir()[0]), "--served-model-name", "smollm2-judge", "--dtype", "float32",
         "--enforce-eager", "--max-model-len", "2048"],
        env=env, capture_output=True, text=True, timeout=600, start_new_session=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    replies = parse_batch_output((tmp_path / "out.jsonl").read_text())
    assert set(replies) == set(by_id)
    for cid, (text, err) in replies.items():
        assert err is None and isinstance(text, str)
        j = judge.interpret(judge.rubric(by_id[cid]), text)
        assert j.status in ("ok", "parse_error") and (j.score is None) == (j.status != "ok")
