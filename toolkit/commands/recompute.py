"""slmboard recompute: (maintainers) rebuild leaderboard + figures from per-item records; optionally audit by re-judging."""
from __future__ import annotations

import argparse
import sys
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .judge import add_judge_arguments, judge_spec
from .options import OptionFlags


def run(a: argparse.Namespace, judge_flags: OptionFlags, flags: OptionFlags) -> int:
    options = api.RecomputeOptions(rejudge=a.rejudge, threshold=a.threshold, commit=not a.no_commit, seed=a.seed,
                                   **flags.given(a))
    r = api.recompute(a.dataset, judge_spec(a, judge_flags), options, services_of(a))
    print(f"recomputed {r.n_rows} leaderboard row(s) and {len(r.figures)} figure(s) in {r.dataset}"
          + (f" (commit {r.revision[:12]})" if r.revision else " (not committed)"))
    for line in r.left_out:
        print(line)
    for a_ in r.audit:
        if a_.get("skipped"):  # the maintainer's judge does not fit the suite: no audit, said so
            print(f"  skip {a_['submission_id']} {a_['suite']} {a_['submitted_judge']}: not audited — {a_['skipped']}")
            continue
        d = "n/a" if a_["disagreement"] is None else f"{100 * a_['disagreement']:.1f}%"
        print(f"  {'FLAG' if a_['flagged'] else 'ok  '} {a_['submission_id']} {a_['suite']} "
              f"{a_['submitted_judge']} vs {a_['maintainer_judge']}: {d} of {a_['n_compared']} sampled items disagree")
    if r.flagged:
        print(f"{len(r.flagged)} submission file(s) disagree beyond {a.threshold:.0%}; see data/audit/rejudge.json", file=sys.stderr)
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", help="dataset folder, hf://datasets/ORG/NAME or ORG/NAME")
    flags = OptionFlags(p).add_model(api.SubmitOptions, "recompute", exclude={"submitter", "data_dir", "allow_partial",
                                                                              "create_pr", "update"})
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and of the re-judged sample")
    p.add_argument("--no-commit", action="store_true", help="local folder: write the files but do not commit")
    audit = p.add_argument_group("audit by re-judging")
    audit.add_argument("--rejudge", type=int, default=0, metavar="N", help="re-judge N random items of each submission file")
    audit.add_argument("--threshold", type=float, default=0.2, help="flag when the share of disagreeing labels exceeds this")
    add_token_argument(p)
    judge_flags = add_judge_arguments(p)  # the maintainer's judge for --rejudge
    p.set_defaults(func=partial(run, judge_flags=judge_flags, flags=flags))
