"""``slmboard`` command line: a thin shell over :mod:`toolkit.api` (one module per command in ``commands/``)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from . import __version__


def build_parser() -> argparse.ArgumentParser:
    from .commands import register_all

    parser = argparse.ArgumentParser(prog="slmboard", description="Ambiguity-aware safety evaluation and leaderboards for small language models.")
    parser.add_argument("--version", action="version", version=f"slmboard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    register_all(sub)
    return parser


#: Python parameters whose CLI flag is not ``--`` + the name with dashes.
PARAM_FLAGS = {"judge_a": "--judges", "judge_b": "--judges", "commit": "--no-commit",
               "judge_columns": "--judge-column", "judge_models": "--judge-model",
               "data": "--source-data",  # moderate / build_moderation_list: benchmark -> source export
               "build_moderation_list": "--build-list",  # an api function a message names, not a parameter
               }


def _flag(param: str) -> str:
    return PARAM_FLAGS.get(param, "--" + param.replace("_", "-"))


def flag_hint(exc: BaseException) -> str | None:
    """What to do on the command line about a library error (library messages name no flags)."""
    from .errors import SlmboardError
    from .publishing.submit import AlreadyPublished
    from .runs import NotARun, RunMismatch

    if isinstance(exc, SlmboardError) and exc.param:
        params = (exc.param,) if isinstance(exc.param, str) else exc.param
        return ", ".join(f"{p} is {_flag(p)}" for p in params) + " on the command line"
    if isinstance(exc, AlreadyPublished):
        return "generate with another --submission-id, or submit to another dataset"
    if isinstance(exc, RunMismatch):
        return "pass another --out folder"
    if isinstance(exc, NotARun):
        return "create it with `slmboard generate --out FOLDER`"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    from .errors import SlmboardError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except SlmboardError as exc:  # every error meant for a user; anything else is a bug and shows its traceback
        if os.environ.get("SLMBOARD_DEBUG"):
            raise
        hint = flag_hint(exc)
        print(f"error: {exc}" + (f" ({hint})" if hint else ""), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; re-run the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
