"""slmboard evaluate: generate → judge → submit for a new SLM in one command (each step resumable);
with --models, for every model of a board at once."""
from __future__ import annotations

import sys

from .executor_options import add_executor_arguments, executor_kwargs
from .generate import add_generation_arguments, batch_size_arg


def run(a) -> int:
    from .. import api

    if a.models:
        return run_board(a)
    r = api.evaluate(a.out, to=a.to, suites=a.suites, judge=a.judge, model=a.model, model_args=a.model_args,
                     data_dir=a.data_dir, limit=a.limit, batch_size=batch_size_arg(a.batch_size),
                     max_new_tokens=a.max_new_tokens, submission_id=a.submission_id, submitter=a.submitter,
                     n_bootstrap=a.bootstrap, create_pr=a.create_pr, **executor_kwargs(a))
    for note in r.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"published {r.n_records} record(s) of {r.submission_id} to {r.pr_url or r.dataset} (commit {r.revision[:12]})")
    return 0


def run_board(a) -> int:
    """Every model of the models file; one line per model, exit 1 when any failed (the others are published)."""
    from .. import api
    from ..errors import BadOption

    for param in ("model_args", "submission_id"):
        if getattr(a, param):
            raise BadOption(f"{param} names one model; with a models file, write it in each entry", param=param)
    board = api.evaluate_models(a.models, a.out, to=a.to, suites=a.suites, judge=a.judge, model=a.model, data_dir=a.data_dir,
                                limit=a.limit, batch_size=batch_size_arg(a.batch_size), max_new_tokens=a.max_new_tokens,
                                submitter=a.submitter, n_bootstrap=a.bootstrap, create_pr=a.create_pr, **executor_kwargs(a))
    for m in board.models:
        if m.failed:
            print(f"{m.name}: FAILED: {m.error_text()}", file=sys.stderr)
            continue
        r = m.submitted
        retried = "".join(f"; shard {s.shard} started {s.attempt} times (resumed from its records)" for s in m.retried())
        if m.phase == "published":
            print(f"{m.name}: published {r.n_records} record(s) of {r.submission_id} to {r.pr_url or r.dataset} "
                  f"(commit {r.revision[:12]}){retried}")
        else:
            print(f"{m.name}: {m.phase} in {r.dataset} (submission {r.submission_id}){retried}")
        for note in r.notes:
            print(f"note: {m.name}: {note}", file=sys.stderr)
    n_ok = len(board.models) - len(board.failed)
    print(f"board: {n_ok} of {len(board.models)} model(s) done in {board.seconds:.1f}s on {board.executor}")
    return 1 if board.failed else 0


def register(sub) -> None:
    p = sub.add_parser("evaluate", help="generate → judge → submit a model (or every model of --models) in one command (resumable)")
    p.add_argument("--out", required=True, help="run folder (re-running the command resumes it); with --models, the folder "
                                                "holding one run folder per model")
    p.add_argument("--to", required=True, help="dataset folder, hf://datasets/ORG/NAME or ORG/NAME")
    p.add_argument("--models", default=None, metavar="FILE",
                   help="a YAML models file: one entry per model (model, model_args, revision, submission_id, ...); "
                        "the whole board in one command")
    p.add_argument("--judge", default="heuristic")
    p.add_argument("--submitter", default=None)
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--create-pr", action="store_true", help="Hub only: open a pull request")
    add_generation_arguments(p)
    add_executor_arguments(p)
    p.set_defaults(func=run)
