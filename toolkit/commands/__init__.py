"""One module per ``slmboard`` sub-command. Each defines ``register(parser)``, which adds the command's arguments
to the parser made for it here.

Only the command being run is built in full (its module imported, its component registries loaded for
their flags); the others are a name and a line of help, so ``slmboard rank`` or ``slmboard --help`` never
loads what ``judge`` needs. ``build_parser()`` without a command builds them all (the docs and tests walk it).
"""
from __future__ import annotations

from importlib import import_module

#: Sub-commands in the order `slmboard --help` shows them: (module, command, one line of help).
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("generate", "generate", "run a model on suites → response records (resumable)"),
    ("merge", "merge", "combine --shard K/N run folders into one run (checks completeness)"),
    ("import_", "import", "turn another tool's results (table, eee, lm-eval, inspect, helm) into a run folder"),
    ("suites", "suites", "list the suites (kind, items, source, pinned revision, licence) or download their data"),
    ("tasks", "tasks", "print the folder of slmboard's suites as another tool's tasks (lm-eval)"),
    ("model_path", "model-path", "print the embedded model's folder (dense weights, tokenizer) for another tool "
                                 "(lm_eval --model_args pretrained=...)"),
    ("judge", "judge", "add judgments to a run (never regenerates)"),
    ("validate", "validate", "check record files, run folders, datasets and manifests; exit 1 on any error"),
    ("create", "create", "create a board (dataset folder or Hub dataset): its recipe board.yaml and its card"),
    ("recipe", "recipe", "change a board's recipe (board.yaml) on purpose, as a commit of its own"),
    ("release", "release", "name the board as it is now (BOARD@NAME): its entry in the card, one commit, a tag"),
    ("submit", "submit", "validate a run, then publish it to a dataset folder or Hub dataset (one commit)"),
    ("evaluate", "evaluate", "generate → judge → submit a model in one command (resumable)"),
    ("recompute", "recompute", "(maintainers) rebuild leaderboard and figures from per-item records; commit"),
    ("request", "request", "ask a board to evaluate a Hub model (checked against the board's request policy)"),
    ("worker", "worker", "(maintainers) evaluate a board's requests: claim, generate → judge → submit, close"),
    ("requests", "requests", "list a board's evaluation requests (pending, running, finished, failed)"),
    ("labels", "labels", "people label the board's own answers: the policy and labels dataset (--init), an offline "
                         "round (--export, --from), progress, the board's people judge (--publish)"),
    ("rank", "rank", "recompute the leaderboard from per-item records"),
    ("export", "export", "write results in other tools' formats (one subcommand per export format)"),
    ("analyze", "analyze", "diagnostics of paper 1: metrics, AR correlations, ambiguity prediction, figures"),
    ("agreement", "agreement", "agreement between two judges (confusion, weighted kappa, boundary/contradiction rates), "
                               "or, without --judges, every judge against people's labels"),
    ("moderate", "moderate", "run a moderator on the flag / do-not-flag suite (paper 2)"),
    ("moderation_report", "moderation-report", "moderator reliability report (paper 2) → DIR/moderators.csv + figures"),
    ("serve", "serve", "start the leaderboard Space locally on a dataset folder or Hub dataset"),
    ("space", "space", "manage the leaderboard's Hugging Face Space"),
    ("review", "review", "run submit's checks on each open pull request of a Hub dataset and post the result as a "
                         "PR comment (maintainers)"),
    ("demo", "demo", "the embedded default's smoke run beside the XSTest release's five models: generate → judge → validate → submit → import → rank → serve"),
)


def register_all(subparsers, command: str | None = None) -> None:
    """Every command (``command``: only that one in full)."""
    for module, name, text in COMMANDS:
        parser = subparsers.add_parser(name, help=text)
        if command is None or command == name:
            import_module(f"{__name__}.{module}").register(parser)


def add_token_argument(parser) -> None:
    """``--token`` of every command that talks to the Hub (its value reaches each Hub call as ``token=``;
    left out, huggingface_hub resolves it as it always does)."""
    parser.add_argument("--token", default=None, metavar="TOKEN",
                        help="Hugging Face token (default: HF_TOKEN or the token saved by `hf auth login`)")


def services_of(args, progress: bool = True):
    """The services of a command's API call: its ``--token`` (when it has one) and whether to draw progress bars."""
    from toolkit import api

    return api.Services(token=getattr(args, "token", None), progress=progress)
