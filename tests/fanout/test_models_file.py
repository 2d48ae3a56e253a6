"""The models file of `evaluate --models`: refused before anything is scheduled, naming line, entry and field."""
from __future__ import annotations

import argparse

import pytest

from slmboard_badinput import MODELS_FILE_CASES
from toolkit.cli import build_parser, main
from toolkit.core.errors import ValidationFailed
from toolkit.workflows.fanout import ModelEntry, load_models_file
from toolkit.workflows.fanout.models_file import BOARD_OPTIONS


@pytest.mark.parametrize("case", MODELS_FILE_CASES, ids=lambda c: c.name)
def test_bad_models_file_is_refused_before_anything_runs(case, tmp_path, capsys):
    models = tmp_path / "models.yaml"
    models.write_text(case.text, encoding="utf-8")
    # A Ray address nobody listens on: had the command connected (or scheduled) first, it would fail there instead.
    rc = main(["evaluate", "--models", str(models), "--out", str(tmp_path / "runs"), "--to", str(tmp_path / "dataset"),
               "--executor", "ray", "--ray-address", "127.0.0.1:9"])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err
    lines = [line.strip() for line in err.splitlines()]
    assert any(line.startswith(case.locator(str(models))) and case.message in line for line in lines), err
    assert "(models is --models on the command line)" in err
    assert not (tmp_path / "runs").exists() and not (tmp_path / "dataset").exists()


def test_every_problem_of_a_file_is_listed_at_once(tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text("models:\n  - modle_args: x\n  - model: nope\n    suites: smoke\n", encoding="utf-8")
    with pytest.raises(ValidationFailed) as exc:
        load_models_file(models)
    where = sorted(f"{e.row}:{e.field}" for e in exc.value.errors)
    assert where == ["2:entry 1: modle_args", "3:entry 2: model", "4:entry 2: suites"]


def test_a_good_file_gives_each_model_its_options_and_run(tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text(
        "models:\n"
        "  - model_args: pretrained=HuggingFaceTB/SmolLM2-360M-Instruct,dtype=bfloat16\n"
        "    revision: 0123abcd\n"
        "  - model: openai\n"
        "    model_args: model=my-slm,base_url=http://10.0.0.5:8000/v1\n"
        "    submission_id: my-slm-v2\n"
        "    concurrency: 16\n"
        "    gpus_per_task: 0\n", encoding="utf-8")
    first, second = load_models_file(models).models
    assert first.generate_args() == "pretrained=HuggingFaceTB/SmolLM2-360M-Instruct,dtype=bfloat16,revision=0123abcd"
    assert first.run_name() == "SmolLM2-360M-Instruct-0123abcd" and first.model is None  # the command line's --model
    assert second.run_name() == "my-slm-v2" and second.model == "openai" and second.concurrency == 16
    assert second.gpus_per_task == 0.0


def _dests(command: str) -> set[str]:
    """The command's long flags as a file spells them (``--model-args`` -> ``model_args``)."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {o[2:].replace("-", "_") for a in sub.choices[command]._actions for o in a.option_strings if o.startswith("--")}


def test_entry_options_are_spelled_as_the_command_line_spells_them():
    """One vocabulary: every entry option is a flag of `generate` (revision is model_args' own key), and every
    option the file refuses as board-wide is a flag of `evaluate`."""
    assert set(ModelEntry.model_fields) - {"revision"} <= _dests("generate")
    assert set(BOARD_OPTIONS) <= _dests("evaluate")


def _readme_block(marker: str) -> str:
    from slmboard_testing import doc_texts

    text = next(text for _, text in doc_texts() if f"<!-- {marker}" in text)  # README.md or docs/reference/ray.md
    after = text.split(f"<!-- {marker}", 1)[1]
    return after.split("```", 2)[1].split("\n", 1)[1]  # the fenced block after the marker, without its language


def test_the_readme_models_file_is_valid_and_its_commands_parse(tmp_path):
    import shlex

    models = tmp_path / "models.yaml"
    models.write_text(_readme_block("models-file-example"), encoding="utf-8")
    entries = load_models_file(models).models
    assert [e.run_name() for e in entries] == ["smollm2-360m", "qwen2.5-7b", "my-slm-v2"]
    assert entries[1].gpus_per_task == 2 and entries[2].model == "openai:my-slm"
    commands = [line for line in _readme_block("fanout-commands").splitlines() if line.startswith("slmboard ")]
    assert len(commands) == 2
    for line in commands:  # every command and flag exists and every value parses (a cluster is not at hand here)
        args = build_parser().parse_args(shlex.split(line)[1:])
        assert args.executor == "ray"
