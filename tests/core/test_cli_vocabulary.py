"""One CLI vocabulary (issue 22): the same flag for the same option on every command, help on every option,
a bad flag answered by the subcommand, judges read back by the name they were run with, judge ids with a
pattern, and runs that cannot be compared with reported results said to be so."""
from __future__ import annotations

import argparse
import json

import pytest

from toolkit import api
from toolkit.cli import build_parser, main
from toolkit.core.records_io import write_jsonl_atomic
from slmboard_testing import new_board


def _subparsers(parser: argparse.ArgumentParser, path=("slmboard",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _subparsers(sub, path + (name,))


def _commands() -> dict[str, argparse.ArgumentParser]:
    return {" ".join(path[1:]): p for path, p in _subparsers(build_parser())}


def test_every_option_has_help_text():
    missing = [(cmd, a.option_strings or a.dest) for cmd, p in _commands().items() for a in p._actions
               if not isinstance(a, (argparse._HelpAction, argparse._VersionAction))
               and (a.help is None or (a.help != argparse.SUPPRESS and not a.help.strip()))]
    assert missing == []


def _flags(parser: argparse.ArgumentParser, visible: bool = True) -> dict[str, argparse.Action]:
    return {o: a for a in parser._actions for o in a.option_strings
            if o.startswith("--") and (not visible or a.help != argparse.SUPPRESS)}


def test_suites_on_every_command_that_takes_suites_old_spellings_hidden():
    cmds = _commands()
    for cmd in ("generate", "judge", "evaluate", "moderate", "import"):
        assert "--suites" in _flags(cmds[cmd]), cmd
        assert not {"--suite", "--benchmarks"} & set(_flags(cmds[cmd])), cmd  # not shown
    parser = build_parser()
    assert parser.parse_args(["moderate", "--benchmarks", "xstest"]).suites == "xstest"
    assert parser.parse_args(["import", "table", "x.csv", "--out", "o", "--suite", "xstest"]).suites == "xstest"
    assert parser.parse_args(["generate", "--out", "o", "--suite", "sst"]).suites == "sst"


def test_one_way_to_point_any_component_at_an_endpoint():
    cmds = _commands()
    for cmd in ("generate", "judge", "moderate", "evaluate", "recompute"):
        flags = _flags(cmds[cmd])
        for flag in ("--base-url", "--api-key-env"):
            assert flag in flags and flags[flag].metavar in ("URL", "VAR"), (cmd, flag)
    assert {"--judge-base-url", "--judge-api-key-env"} <= set(_flags(cmds["evaluate"]))  # its second component
    assert "--served-model" not in _flags(cmds["moderate"]) and "--model-dir" not in _flags(cmds["moderate"])


def test_evaluate_takes_every_option_generate_and_judge_take():
    cmds = _commands()
    evaluate = set(_flags(cmds["evaluate"]))
    # --estimate and --price keep their names on evaluate: one estimate of the whole run, prices of its judge
    judge_only = set(_flags(cmds["judge"])) - {"--suites", "--judge", "--keep-errors", "--token", "--help", "--estimate",
                                               "--price"}
    assert set(_flags(cmds["generate"])) - {"--help"} <= evaluate
    assert {f.replace("--no-", "--no-judge-") if f.startswith("--no-") else "--judge-" + f[2:] for f in judge_only} <= evaluate
    assert {"--judge", "--keep-errors", "--primary-judge", "--allow-partial", "--no-gate", "--estimate", "--price"} <= evaluate


def test_help_agrees_with_the_code():
    from toolkit.stages.moderation.suite import LIST_VERSION

    moderate = _flags(_commands()["moderate"])
    assert f"packaged {LIST_VERSION} lists" in moderate["--lists-dir"].help
    judge_help = _flags(_commands()["judge"])["--judge"].help
    assert all(name in judge_help for name in api.JUDGES)  # bbq included: the help is the registry
    generate = _commands()["generate"].format_help()
    assert "openai:<model>" in generate and "model_id=NAME" not in generate


def test_help_names_each_component_once_and_by_its_kind_where_names_clash():
    import re

    for cmd, parser in _commands().items():
        for action in parser._actions:
            owners = re.findall(r"\[([^\]]*)\]$", " ".join((action.help or "").split()))
            for listed in owners:
                names = [n.strip() for n in listed.split(",")]
                assert len(names) == len(set(names)), (cmd, action.option_strings, listed)
    moderate = _commands()["moderate"]
    titles = [g.title for g in moderate._action_groups]
    assert "moderator and judge options" in titles
    base_url = " ".join(_flags(moderate)["--base-url"].help.split())
    assert "[moderator openai, judge openai, judge guard]" in base_url


def test_a_bad_flag_gets_the_subcommands_usage_and_the_closest_flag(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["judge", str(tmp_path), "--base-ulr", "http://x"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("usage: slmboard judge ")
    assert "unrecognized argument --base-ulr; did you mean --base-url?" in err
    with pytest.raises(SystemExit):  # the required --out is missing too: still the flag, still this command
        main(["generate", "--suits", "smoke"])
    err = capsys.readouterr().err
    assert err.startswith("usage: slmboard generate ") and "did you mean --suites?" in err
    with pytest.raises(SystemExit):  # a nested subcommand answers for itself
        main(["export", "eee", str(tmp_path), "--out", str(tmp_path / "o"), "--bootstrapp", "0"])
    assert "usage: slmboard export eee" in capsys.readouterr().err


def test_a_flag_the_chosen_component_does_not_take_is_refused_naming_who_takes_it(tmp_path, capsys):
    from slmboard_testing import make_run

    make_run(tmp_path / "r", judged=False)
    assert main(["judge", str(tmp_path / "r"), "--judge", "heuristic", "--base-url", "http://127.0.0.1:9/v1"]) == 1
    err = capsys.readouterr().err
    assert "--base-url does not apply to judge:heuristic; it applies to: openai, guard" in err
    assert not (tmp_path / "r" / "judgments").exists()


def test_the_judge_name_is_accepted_where_the_judge_is_read_back(tmp_path, capsys):
    from slmboard_testing import make_item_row

    rows = [make_item_row(f"i{k}", s, judge_id=j) for k, s in enumerate((1.0, 0.5, 0.0)) for j in ("heuristic-v1", "human")]
    write_jsonl_atomic(tmp_path / "items.jsonl", rows)
    assert main(["agreement", str(tmp_path / "items.jsonl"), "--judges", "human,heuristic", "--out", str(tmp_path / "a")]) == 0
    assert json.loads((tmp_path / "a" / "agreement.json").read_text())  # written
    from toolkit.data.scoring.primary_judge import choose_primary_judges
    import pandas as pd

    board = pd.DataFrame({"suite": ["smoke"] * 2, "judge_id": ["heuristic-v1", "human"], "model_id": ["m"] * 2,
                          "n_failed": [0, 0]})
    assert choose_primary_judges(board, {"smoke": "heuristic"})["smoke"].judge_id == "heuristic-v1"


def test_judge_prints_the_id_it_wrote_and_that_it_is_not_comparable(tmp_path, capsys):
    from slmboard_testing import make_run

    make_run(tmp_path / "r", judged=False)
    assert main(["judge", str(tmp_path / "r"), "--judge", "heuristic"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("judge heuristic-v1: judged 3")
    assert "not comparable with reported results: judge heuristic-v1" in out.err


def test_a_judge_id_has_a_pattern(tmp_path, capsys):
    from slmboard_testing import make_item_row
    from schemas import ItemRecord

    with pytest.raises(ValueError, match="judge id"):
        ItemRecord(**make_item_row("i1", 1.0, judge_id="human<b>x</b>"))
    from toolkit.stages.suites import load_items

    src = tmp_path / "t.csv"  # one row that matches a smoke item: only the judge id is wrong
    src.write_text(f'prompt,response,label\n"{load_items("smoke", limit=1)[0].prompt}",No.,safe\n')
    rc = main(["import", "table", str(src), "--out", str(tmp_path / "run"), "--suites", "smoke", "--model-id", "org/m",
               "--judge-column", "human<b>x</b>=label", "--skip-unmatched"])
    err = capsys.readouterr().err
    assert rc == 1 and "judge id 'human<b>x</b>' must match" in err and "--judge-column on the command line" in err
    assert not (tmp_path / "run").exists()


def test_submit_names_allow_partial_and_describes_model_json(tmp_path, capsys):
    from slmboard_testing import make_run

    run = make_run(tmp_path / "r")
    cfg = json.loads((run / "run.json").read_text())
    cfg["limit"] = None  # three of the thirty smoke items, not declared as a --limit run: a partial run
    (run / "run.json").write_text(json.dumps(cfg))
    new_board(tmp_path / "ds")
    assert main(["submit", str(run), "--to", str(tmp_path / "ds")]) == 1
    err = capsys.readouterr().err
    assert "canonical smoke item(s) missing" in err and "(allow_partial is --allow-partial on the command line)" in err
    assert main(["submit", str(run), "--to", str(tmp_path / "ds"), "--allow-partial"]) == 0
    err = capsys.readouterr().err
    assert "model.json, written before it is submitted: a JSON object of manifest fields ({\"family\"" in err


def test_model_json_may_not_restate_what_submit_takes_from_the_run(tmp_path, capsys):
    from slmboard_testing import make_run

    run = make_run(tmp_path / "r")
    (run / "model.json").write_text(json.dumps({"family": "SmolLM2", "model_id": "someone/else"}))
    new_board(tmp_path / "ds")
    assert main(["submit", str(run), "--to", str(tmp_path / "ds")]) == 1
    err = capsys.readouterr().err
    assert "model.json: model_id cannot be set here" in err and "Traceback" not in err
    assert not (tmp_path / "ds" / "submissions").exists()  # the created board holds no submission


def test_smoke_and_heuristic_runs_are_marked_in_the_output_and_the_card(tmp_path, capsys):
    from slmboard_testing import make_run

    demo_like = make_run(tmp_path / "demo")
    new_board(tmp_path / "ds")
    assert main(["submit", str(demo_like), "--to", str(tmp_path / "ds"), "--bootstrap", "0"]) == 0
    err = capsys.readouterr().err
    assert "not comparable with reported results: suite smoke" in err and "judge heuristic-v1" in err
    card = (tmp_path / "ds" / "README.md").read_text()
    assert "## Not comparable with reported results" in card
    assert "- suite smoke: " in card and "- judge heuristic-v1: " in card
    header = card.split("---")[1]
    assert "not_comparable:" in header

    reported = make_run(tmp_path / "real", scores={"x1": 1.0, "x2": 0.0}, suite="xstest", judge_id="openai:gpt-4o")
    new_board(tmp_path / "ds2")
    assert main(["submit", str(reported), "--to", str(tmp_path / "ds2"), "--bootstrap", "0"]) == 0
    assert "not comparable" not in capsys.readouterr().err
    card = (tmp_path / "ds2" / "README.md").read_text()
    assert "Not comparable" not in card and "not_comparable" not in card


def _readme_commands() -> list[list[str]]:
    """Every `slmboard ...` command in the shell blocks of README.md and docs/ (the docs runner's reading)."""
    from slmboard_docs_runner import blocks, command_lines, doc_pages

    return [argv[1:] for page in doc_pages() for block in blocks(page) if block.lang == "bash"
            for argv in command_lines(block.code) if argv[0] == "slmboard"]


def test_every_flag_the_readme_writes_exists_on_its_command():
    commands = _commands()
    checked = 0
    for argv in _readme_commands():
        name = argv[0] + (f" {argv[1]}" if argv[0] in ("export", "space", "suites") else "")
        assert name in commands, argv
        flags = _flags(commands[name])
        for token in argv:
            if token.startswith("--"):
                assert token.split("=")[0] in flags, (argv, token)
                checked += 1
    assert checked > 50
