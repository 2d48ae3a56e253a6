"""What the command line prints says what a command-line user types (issue 32 point 6): library parameters become
flags in error lines, every default is in --help (the CLI reference is generated from it), and `rank` piped to a
file keeps every column."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from toolkit.cli import build_parser, cli_wording, flag_hint
from toolkit.commands.options import OptionFlags
from toolkit.core.errors import SlmboardError

REPO = Path(__file__).resolve().parents[2]


def test_parameters_in_an_error_line_become_the_flags_of_the_command():
    exc = SlmboardError("no suite given; pass suite=NAME, or set skip_unmatched; or leave data_dir unset "
                        "(`slmboard suites download` (toolkit.api.download_suites) fetches it)",
                        param=("suite", "skip_unmatched", "data_dir"))
    worded = cli_wording(exc)
    assert worded == ("no suite given; pass --suites NAME, or pass --skip-unmatched; or leave out --data-dir "
                      "(`slmboard suites download` fetches it)")
    assert flag_hint(exc) is None  # every flag is named in the line itself: no "(suite is --suites ...)" tail
    assert flag_hint(SlmboardError("bad value", param="data_dir")) == "data_dir is --data-dir on the command line"


def test_every_flag_with_a_default_says_it_in_its_help():
    import argparse

    missing = []
    for name, sub in build_parser()._subparsers._group_actions[0].choices.items():
        for action in sub._actions:
            if (action.option_strings and action.nargs != 0 and action.help not in (None, argparse.SUPPRESS)
                    and action.default not in (None, argparse.SUPPRESS, "", [], {}, False)
                    and "default" not in action.help):
                missing.append((name, action.option_strings[0]))
    assert missing == []
    serve = next(a for a in build_parser("serve")._subparsers._group_actions[0].choices["serve"]._actions
                 if "--port" in a.option_strings)
    assert serve.default in (None, argparse.SUPPRESS) and "the first free one from 7860" in serve.help  # ServeOptions.port's own default


def test_rank_piped_keeps_its_last_column(tmp_path):
    from slmboard_testing import make_run

    run = make_run(tmp_path / "run")
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "rank", str(run), "--bootstrap", "20"],
                          capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    header = next(line for line in proc.stdout.splitlines() if "S_raw [95% CI]" in line)
    assert header.rstrip().endswith("rank UB ┃"), header


def _error_line(argv, capsys, cwd, monkeypatch) -> str:
    from toolkit.cli import main

    monkeypatch.chdir(cwd)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def test_a_hint_names_the_flag_or_argument_the_users_command_has(tmp_path, capsys, monkeypatch):
    """`request` fills the board from --to, `requests` from its positional BOARD: neither has a --board (issue 47)."""
    (tmp_path / "board").mkdir()
    err = _error_line(["request", "some/model", "--to", "./board"], capsys, tmp_path, monkeypatch)
    assert "(board is --to on the command line)" in err and "--board" not in err
    err = _error_line(["requests", "./board"], capsys, tmp_path, monkeypatch)
    assert "(board is the argument BOARD on the command line)" in err and "--board" not in err
    parser = build_parser("rank")._subparsers._group_actions[0].choices["rank"]
    assert flag_hint(SlmboardError("x", param="data"), parser) == "data is the argument DATA on the command line"


def test_space_deploy_refuses_a_local_folder_in_the_users_words(tmp_path, capsys, monkeypatch):
    err = _error_line(["space", "deploy", "me/space", "--data", "./safety-board"], capsys, tmp_path, monkeypatch)
    assert err.startswith("error: './safety-board': a Space shows a board on the Hub") and "hf://datasets/./" not in err
    assert "`slmboard serve`" in err


def test_a_switch_that_turns_an_option_off_says_so():
    """`demo --no-serve` once read "serve the Space after ranking": a switch whose flag turns a default-on option
    off says what the flag does (the help is derived as "do not " + the field's help, which reads as a verb)."""
    wrong, checked = [], 0
    for name, sub in build_parser()._subparsers._group_actions[0].choices.items():
        run = sub.get_default("func")  # partial(run, flags=OptionFlags, ...): the flags derived from Options fields
        derived = [v for v in getattr(run, "keywords", {}).values() if isinstance(v, OptionFlags)]
        helps = {a.dest: a.help for a in sub._actions}
        for spec in (s for flags in derived for s in flags.flags.values()):
            if spec.kind == "switch" and True in spec.owners.values():  # on by default: the flag turns it off
                checked += 1
                text = helps[spec.dest]
                if not text.startswith("do not ") or "do not do not" in text or "(off:" in text:
                    wrong.append((name, spec.flag, text))
    assert wrong == [] and checked >= 8
    demo = build_parser("demo")._subparsers._group_actions[0].choices["demo"]
    no_serve = next(a for a in demo._actions if "--no-serve" in a.option_strings)
    assert no_serve.help == "do not serve the leaderboard Space once it is ranked" and no_serve.const is False
