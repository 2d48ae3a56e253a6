"""What the command line prints says what a command-line user types (issue 32 point 6): library parameters become
flags in error lines, every default is in --help (the CLI reference is generated from it), and `rank` piped to a
file keeps every column."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from toolkit.cli import build_parser, cli_wording, flag_hint
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
