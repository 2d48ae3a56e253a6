"""slmboard export: per-item results in other tools' formats (Every Eval Ever; Hub eval results)."""
from __future__ import annotations

import sys


def run_eee(a) -> int:
    from .. import api

    r = api.export_eee(a.data, out=a.out, n_bootstrap=a.bootstrap, seed=a.seed)
    print(f"wrote {len(r.aggregates)} EEE aggregate file(s) and {r.n_samples} sample line(s) to {r.out}")
    return 0


def run_eval_results(a) -> int:
    from .. import api
    from ..scoring.primary_judge import parse_primary_judge_flags

    r = api.export_eval_results(a.data, out=a.out, dataset_id=a.dataset_id,
                                primary_judges=parse_primary_judge_flags(a.primary_judge), push=a.push)
    for note in r.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"wrote eval results of {len(r.files)} model(s) to {r.out}")
    if not a.push:
        return 0
    for outcome in r.pushed:
        print(f"  {outcome.status:<12} {outcome.model_id}" + (f"  {outcome.url}" if outcome.url else "")
              + (f"  ({outcome.message})" if outcome.message else ""))
    failed = [o for o in r.pushed if not o.ok]
    if failed:
        print(f"{len(failed)} of {len(r.pushed)} model repo(s) got no pull request", file=sys.stderr)
        return 1
    return 0


def register(sub) -> None:
    p = sub.add_parser("export", help="write results in other tools' formats (eee, eval-results)")
    formats = p.add_subparsers(dest="format", required=True, metavar="FORMAT")
    e = formats.add_parser("eee", help="Every Eval Ever 0.3.0: one aggregate + samples file per (model, suite, judge)")
    e.add_argument("data", help="dataset folder, run folder, record file, or Hub dataset ORG/NAME[@REV]")
    e.add_argument("--out", required=True, help="folder to write DIR/<suite>/<org>/<model>/<uuid>.json into")
    e.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the intervals (0 = none)")
    e.add_argument("--seed", type=int, default=0)
    e.set_defaults(func=run_eee)
    r = formats.add_parser("eval-results", help="Hugging Face .eval_results/slmboard.yaml per model (optionally as PRs)")
    r.add_argument("data", help="dataset folder or Hub dataset ORG/NAME[@REV]")
    r.add_argument("--out", required=True, help="folder to write <org>/<model>/.eval_results/slmboard.yaml into")
    r.add_argument("--dataset-id", default=None,
                   help="the leaderboard's Hub dataset id (default: DATA when it is a Hub dataset)")
    r.add_argument("--primary-judge", action="append", default=[], metavar="SUITE=JUDGE",
                   help="judge whose S_adj a suite reports (default: the dataset card's choice, else the rule)")
    r.add_argument("--push", action="store_true", help="open one pull request per model repo on the Hub")
    r.set_defaults(func=run_eval_results)
