"""slmboard evaluate: generate → judge → submit for a new SLM in one command (each step resumable)."""
from __future__ import annotations

import sys

from .generate import add_generation_arguments, batch_size_arg


def run(a) -> int:
    from .. import api

    r = api.evaluate(a.out, to=a.to, suites=a.suites, judge=a.judge, model=a.model, model_args=a.model_args,
                     data_dir=a.data_dir, limit=a.limit, batch_size=batch_size_arg(a.batch_size),
                     max_new_tokens=a.max_new_tokens, submission_id=a.submission_id, submitter=a.submitter,
                     n_bootstrap=a.bootstrap, create_pr=a.create_pr)
    for note in r.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"published {r.n_records} record(s) of {r.submission_id} to {r.pr_url or r.dataset} (commit {r.revision[:12]})")
    return 0


def register(sub) -> None:
    p = sub.add_parser("evaluate", help="generate → judge → submit a model in one command (resumable)")
    p.add_argument("--out", required=True, help="run folder (re-running the command resumes it)")
    p.add_argument("--to", required=True, help="dataset folder, hf://datasets/ORG/NAME or ORG/NAME")
    p.add_argument("--judge", default="heuristic", help="judge spec, as for `judge` (default: the offline heuristic judge)")
    p.add_argument("--submitter", default=None)
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--create-pr", action="store_true", help="Hub only: open a pull request")
    add_generation_arguments(p)
    p.set_defaults(func=run)
