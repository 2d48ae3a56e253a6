"""A judge id is made once, from the judge's registered template, and never parsed back on its way to a record."""
from __future__ import annotations

import json

import pytest

from slmboard_testing import make_run
from toolkit.stages.judging import lookup
from toolkit.stages.judging.components import JUDGES, judge_id_of
from toolkit.stages.judging.components import GuardJudgeOptions, MDJudgeOptions, OpenAIJudgeOptions


def test_every_judge_writes_the_id_its_template_makes(monkeypatch):
    from toolkit.stages.judging.guard import GuardJudge
    from toolkit.stages.judging.mdjudge import MDJudge
    from toolkit.stages.judging.openai_judge import OpenAIJudge

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert OpenAIJudge(OpenAIJudgeOptions(model="gpt-x", cache=False)).judge_id == judge_id_of("openai", "gpt-x") == "openai:gpt-x"
    assert GuardJudge(GuardJudgeOptions(model="lg3", cache=False)).judge_id == judge_id_of("guard", "lg3") == "guard:lg3"
    assert MDJudge().judge_id == judge_id_of("mdjudge") == "mdjudge"
    assert MDJudge(MDJudgeOptions(model="/m/folder")).judge_id == judge_id_of("mdjudge", "/m/folder")
    with pytest.raises(ValueError):
        judge_id_of("openai")  # its id needs the served model's name
    with pytest.raises(ValueError):
        judge_id_of("heuristic", "x")  # it takes none


def test_a_constructor_default_is_the_options_model_default(monkeypatch):
    from toolkit.stages.judging.components import GuardJudgeOptions, OpenAIJudgeOptions
    from toolkit.stages.judging.guard import GuardJudge
    from toolkit.stages.judging.openai_judge import OpenAIJudge

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    judge, guard = OpenAIJudge(OpenAIJudgeOptions(model="m", cache=False)), GuardJudge(GuardJudgeOptions(model="m", cache=False))
    defaults = OpenAIJudgeOptions.model_fields
    assert (judge.concurrency, judge.max_tokens, judge.timeout, judge.seed) == tuple(
        defaults[k].default for k in ("concurrency", "max_tokens", "timeout", "seed"))
    assert guard.max_tokens == GuardJudgeOptions.model_fields["max_tokens"].default != judge.max_tokens


def test_judging_from_the_command_line_never_parses_the_id_back(tmp_path, monkeypatch, capsys):
    """From the flag to the record and the printed caveat, the id is the one the judge was built with; the
    function that reads an id back into a judge is never called."""
    from toolkit.cli import main

    def parsed_back(spec_or_id):
        raise AssertionError(f"the id {spec_or_id!r} was parsed back into a judge")

    monkeypatch.setattr(lookup, "judge_component", parsed_back)
    run = make_run(tmp_path / "run", judged=False)
    assert main(["judge", str(run), "--judge", "heuristic"]) == 0
    printed = capsys.readouterr()
    assert "judge heuristic-v1: judged 3" in printed.out
    assert "judge heuristic-v1: offline surface rules" in printed.out + printed.err  # the caveat, from the spec
    written = {json.loads(line)["judge_id"] for f in (run / "judgments").rglob("*.jsonl") for line in f.open()}
    assert written == {JUDGES.get("heuristic").extra["judge_id"]}
