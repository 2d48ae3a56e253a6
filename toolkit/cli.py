"""``slmboard`` command line: a thin shell over :mod:`toolkit.api` (one module per command in ``commands/``)."""
from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from typing import Sequence

from toolkit import __version__

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose unknown-flag error is the subcommand's own, with the closest valid flag.

    argparse hands a subcommand's unknown flags back to the top-level parser, which prints the top-level
    usage; here the subcommand that received them refuses them itself."""

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        self._seen = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(args, namespace)
        if self._is_leaf():
            if self._unknown_flags(extras):
                self.error(f"unrecognized arguments: {' '.join(extras)}")
            namespace._parser = self  # the subcommand's own flags name the parameters in error hints
        return namespace, extras

    def error(self, message: str):  # type: ignore[override]
        unknown = self._unknown_flags(getattr(self, "_seen", [])) if self._is_leaf() else []
        if unknown:
            flag = unknown[0]
            close = difflib.get_close_matches(flag, self.visible_flags(), n=1, cutoff=0.5)
            message = f"unrecognized argument {flag}" + (f"; did you mean {close[0]}?" if close else
                                                          f"; see `{self.prog} --help`")
        super().error(message)

    def _check_value(self, action, value):  # type: ignore[override]
        # argparse's "invalid choice" lists the choices; a misspelt command (or any choice) also gets the closest one
        if action.choices is not None and value not in action.choices:
            from toolkit.core.errors import closest

            what = "command" if isinstance(action, argparse._SubParsersAction) else "choice"
            names = [str(c) for c in action.choices]
            guess = closest(str(value), names)
            hint = f" (did you mean {guess!r}?)" if guess else ""
            raise argparse.ArgumentError(action, f"unknown {what} {value!r}{hint}; choose from {', '.join(names)}")
        return super()._check_value(action, value)

    def visible_flags(self) -> list[str]:
        return [o for a in self._actions if a.help != argparse.SUPPRESS for o in a.option_strings if o.startswith("--")]

    def _is_leaf(self) -> bool:
        return not any(isinstance(a, argparse._SubParsersAction) for a in self._actions)

    def _unknown_flags(self, tokens: Sequence[str]) -> list[str]:
        out = []
        for token in tokens:
            if token == "--":
                break
            if not token.startswith("-") or len(token) < 2 or _NEGATIVE_NUMBER.match(token):
                continue
            name = token.split("=", 1)[0]
            exact = name in self._option_string_actions
            prefixed = [o for o in self._option_string_actions if o.startswith(name)] if self.allow_abbrev else []
            if not exact and len(prefixed) != 1:
                out.append(name)
        return out


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``command``, only that subcommand's arguments are built (the others: name and help)."""
    from toolkit.commands import register_all

    parser = Parser(prog="slmboard", description="Ambiguity-aware safety evaluation and leaderboards for small language models.")
    parser.add_argument("--version", action="version", version=f"slmboard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser,
                                help="`slmboard COMMAND --help` for its options")
    register_all(sub, command)
    _show_defaults(parser)
    return parser


def _show_defaults(parser: argparse.ArgumentParser) -> None:
    """Every flag's help says its default (argparse prints none by itself), so `--help` and the CLI reference, which
    is generated from the same help, agree; a help that already words its default is left as it is."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                _show_defaults(sub)
            continue
        default = action.default
        if (not action.option_strings or action.nargs == 0 or action.help in (None, argparse.SUPPRESS)
                or "default" in action.help or default in (None, argparse.SUPPRESS, "", [], {}, False)):
            continue
        action.help += f" (default {default})"


#: Python parameters whose CLI flag is not ``--`` + the name with dashes and that no command's flag names
#: (a command's own flags are found from its parser: an option's dest is the parameter it fills).
PARAM_FLAGS = {"judge_a": "--judges", "judge_b": "--judges", "commit": "--no-commit",
               "judge_columns": "--judge-column", "judge_models": "--judge-model",
               "suite": "--suites",  # import: the one suite a source answers
               "data": "--source-data",  # moderate / build_moderation_list: benchmark -> source export
               "build_moderation_list": "--build-list",  # an api function a message names, not a parameter
               }


def _flag(param: str, parser: argparse.ArgumentParser | None) -> str:
    """The flag or argument of the command the user typed that fills ``param``: an action whose dest is the
    parameter, or that says it fills it (``action.param``: `request --to` is the board); a positional argument by
    the name its usage shows (BOARD)."""
    for action in parser._actions if parser is not None else ():
        if param in (action.dest, getattr(action, "param", None)) and action.help != argparse.SUPPRESS:
            if not action.option_strings:
                return _positional_name(action)
            return max(action.option_strings, key=len)
    return PARAM_FLAGS.get(param, "--" + param.replace("_", "-"))


def _positional_name(action: argparse.Action) -> str:
    return action.metavar if isinstance(action.metavar, str) else action.dest.upper()  # DATA, as the docs write it


def _named(param: str, parser: argparse.ArgumentParser | None) -> str:
    flag = _flag(param, parser)
    return flag if flag.startswith("-") else f"the argument {flag}"


def cli_wording(exc: BaseException, parser: argparse.ArgumentParser | None = None) -> str:
    """A library error's message as a command-line user reads it: ``pass data_dir=DIR`` becomes ``pass --data-dir
    DIR`` (a Python call the message shows is left as it is) and ``set skip_unmatched`` becomes ``pass --skip-unmatched`` for the parameters the error names."""
    message = str(exc)
    for p in _params(exc):
        flag = _flag(p, parser)
        if not flag.startswith("-"):
            continue  # a positional argument: the hint names it
        message = re.sub(rf"\bpass {re.escape(p)}=(?=\S)", f"pass {flag} ", message)  # not inside a Python call
        message = re.sub(rf"\bset {re.escape(p)}\b", f"pass {flag}", message)
        message = re.sub(rf"\bleave {re.escape(p)} unset\b", f"leave out {flag}", message)
    return re.sub(r" \(toolkit\.api\.\w+\)", "", message)  # the Python name of a command the message names


def _params(exc: BaseException) -> tuple[str, ...]:
    param = getattr(exc, "param", None)
    return () if not param else (param,) if isinstance(param, str) else tuple(param)


def flag_hint(exc: BaseException, parser: argparse.ArgumentParser | None = None) -> str | None:
    """What to do on the command line about a library error (library messages name no flags); None when the
    message, as :func:`cli_wording` words it, already names every flag."""
    from toolkit import api

    if isinstance(exc, api.SlmboardError) and exc.param:
        worded = cli_wording(exc, parser)
        params = [p for p in _params(exc) if _flag(p, parser) not in worded]
        if not params:
            return None
        return ", ".join(f"{p} is {_named(p, parser)}" for p in params) + " on the command line"
    if isinstance(exc, api.AlreadyPublished):
        return "generate with another --submission-id, or submit to another dataset"
    if isinstance(exc, api.RunMismatch):
        return "pass another --out folder"
    if isinstance(exc, api.NotARun):
        return "create it with `slmboard generate --out FOLDER`"
    return None


def say_boards_read_for_hub_ids(args: argparse.Namespace, argv: Sequence[str]) -> None:
    """Once per command, for each word the user typed that names a board folder here and also reads as a Hub
    dataset id (``org/board``): the folder is read, and ``hf://datasets/...`` is how the Hub dataset is written.
    Paths a command chooses itself, and run folders (no Hub dataset can be one), are said nothing about."""
    from toolkit.core.dataset_ref import DatasetRef
    from toolkit.core.errors import SlmboardError

    typed, told = {*argv, *(a.partition("=")[2] for a in argv if a.startswith("--"))}, set()
    for name, value in vars(args).items():
        for word in (value if isinstance(value, list) else [value]):
            if name.startswith("_") or not isinstance(word, str) or word not in typed:
                continue
            try:
                ref = DatasetRef.parse(word)
            except (SlmboardError, OSError, ValueError):  # (a long text is no path: ENAMETOOLONG)
                continue  # the command itself refuses what it cannot take, naming its flag
            note = ref.folder_note()
            if note and (folder := ref.path.resolve()) not in told:
                told.add(folder)
                print(f"note: {note}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    from toolkit.core.errors import SlmboardError

    argv = list(sys.argv[1:] if argv is None else argv)
    # the subcommand, built alone ("": none, e.g. `slmboard --help`); top-level flags take no value
    command = next((a for a in argv if not a.startswith("-")), "")
    args = build_parser(command).parse_args(argv)
    try:
        from toolkit import api

        with api.downloads_token(api.Services(token=getattr(args, "token", None))):
            say_boards_read_for_hub_ids(args, argv)
            return args.func(args)
    except SlmboardError as exc:  # every error meant for a user; anything else is a bug and shows its traceback
        if os.environ.get("SLMBOARD_DEBUG"):
            raise
        parser = getattr(args, "_parser", None)
        hint = flag_hint(exc, parser)
        print(f"error: {cli_wording(exc, parser)}" + (f" ({hint})" if hint else ""), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; re-run the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
