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


def main(argv: Sequence[str] | None = None) -> int:
    from .errors import SlmboardError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except SlmboardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (KeyError, ValueError) as exc:  # unknown suite / judge / bad option: messages list the valid values
        if os.environ.get("SLMBOARD_DEBUG"):
            raise
        msg = exc.args[0] if exc.args else str(exc)
        print(f"error: {msg}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; re-run the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
