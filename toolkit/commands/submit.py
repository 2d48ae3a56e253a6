"""slmboard submit: validate a run, then publish it to a dataset (one commit)."""
from __future__ import annotations

import sys


def run(a) -> int:
    from .. import api
    from ..scoring.primary_judge import parse_primary_judge_flags

    r = api.submit(a.run, to=a.to, submitter=a.submitter, n_bootstrap=a.bootstrap, data_dir=a.data_dir,
                   create_pr=a.create_pr, xet=False if a.no_xet else None,
                   allow_partial=a.allow_partial,
                   primary_judges=parse_primary_judge_flags(a.primary_judge) or None, gate=False if a.no_gate else None)
    for note in r.notes:
        print(f"note: {note}", file=sys.stderr)
    where = f"pull request {r.pr_url}" if r.pr_url else f"{r.dataset}"
    print(f"published {r.n_records} record(s) of {r.submission_id} to {where} (commit {r.revision[:12]}"
          + (f", {r.attempts} attempts" if r.attempts > 1 else "") + ")")
    return 0


def register(sub) -> None:
    p = sub.add_parser("submit", help="validate a run, then publish it to a dataset folder or Hub dataset (one commit)")
    p.add_argument("run", help="run folder")
    p.add_argument("--to", required=True,
                   help="dataset: a folder (git repository; created if missing), hf://datasets/ORG/NAME or ORG/NAME")
    p.add_argument("--submitter", default=None)
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the leaderboard intervals")
    p.add_argument("--data-dir", default=None,
                   help="local mirror of the benchmark files, to check the item set against each suite's canonical list")
    p.add_argument("--allow-partial", action="store_true",
                   help="publish a run that lacks suite items (e.g. an import of a capped HELM run); the manifest lists them")
    p.add_argument("--create-pr", action="store_true", help="Hub only: open a pull request instead of committing to main")
    p.add_argument("--no-xet", action="store_true", help="Hub only: upload through classic LFS (same as HF_HUB_DISABLE_XET=1)")
    # -- dataset card choices (export helper, issue 13) --
    p.add_argument("--primary-judge", action="append", default=[], metavar="SUITE=JUDGE",
                   help="the judge SUITE is shown under by default (recorded in the dataset card; repeatable)")
    p.add_argument("--no-gate", action="store_true",
                   help="do not gate a Hub dataset this creates (records hold harmful completions; recorded in the card)")
    p.set_defaults(func=run)
