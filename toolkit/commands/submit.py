"""slmboard submit: validate a run, then publish it to a dataset (one commit)."""
from __future__ import annotations


def run(a) -> int:
    from .. import api

    r = api.submit(a.run, to=a.to, submitter=a.submitter, n_bootstrap=a.bootstrap)
    print(f"published {r.n_records} record(s) of {r.submission_id} to {r.dataset} (commit {r.revision[:12]})")
    return 0


def register(sub) -> None:
    p = sub.add_parser("submit", help="validate a run, then publish it to a dataset folder (one commit)")
    p.add_argument("run", help="run folder")
    p.add_argument("--to", required=True, help="dataset folder (a git repository; created if missing)")
    p.add_argument("--submitter", default=None)
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the leaderboard intervals")
    p.set_defaults(func=run)
