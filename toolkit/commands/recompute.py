"""slmboard recompute: (maintainers) rebuild leaderboard + figures from per-item records; optionally audit by re-judging."""
from __future__ import annotations

import sys


def run(a) -> int:
    from .. import api
    from ..scoring.primary_judge import parse_primary_judge_flags

    r = api.recompute(a.dataset, n_bootstrap=a.bootstrap, rejudge=a.rejudge, judge=a.judge, threshold=a.threshold,
                      seed=a.seed, commit=not a.no_commit, xet=False if a.no_xet else None,
                      primary_judges=parse_primary_judge_flags(a.primary_judge) or None, gate=False if a.no_gate else None)
    print(f"recomputed {r.n_rows} leaderboard row(s) and {len(r.figures)} figure(s) in {r.dataset}"
          + (f" (commit {r.revision[:12]})" if r.revision else " (not committed)"))
    for a_ in r.audit:
        d = "n/a" if a_["disagreement"] is None else f"{100 * a_['disagreement']:.1f}%"
        print(f"  {'FLAG' if a_['flagged'] else 'ok  '} {a_['submission_id']} {a_['suite']} "
              f"{a_['submitted_judge']} vs {a_['maintainer_judge']}: {d} of {a_['n_compared']} sampled items disagree")
    if r.flagged:
        print(f"{len(r.flagged)} submission file(s) disagree beyond {a.threshold:.0%}; see data/audit/rejudge.json", file=sys.stderr)
    return 0


def register(sub) -> None:
    p = sub.add_parser("recompute", help="(maintainers) rebuild leaderboard and figures from per-item records; commit")
    p.add_argument("dataset", help="dataset folder, hf://datasets/ORG/NAME or ORG/NAME")
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--rejudge", type=int, default=0, metavar="N", help="re-judge N random items of each submission file")
    p.add_argument("--judge", default="heuristic", help="the maintainer's judge for --rejudge")
    p.add_argument("--threshold", type=float, default=0.2, help="flag when the share of disagreeing labels exceeds this")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-commit", action="store_true", help="local folder: write the files but do not commit")
    p.add_argument("--no-xet", action="store_true", help="Hub only: classic LFS uploads")
    p.add_argument("--primary-judge", action="append", default=[], metavar="SUITE=JUDGE",
                   help="the judge SUITE is shown under by default (recorded in the dataset card; repeatable)")
    p.add_argument("--no-gate", action="store_true", help="Hub only: lift access gating (recorded in the card)")
    p.set_defaults(func=run)
