"""slmboard rank: recompute the leaderboard from per-item records."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def run(a) -> int:
    from toolkit import api
    from toolkit.outputs.terminal import print_leaderboard

    table = api.rank(a.data[0] if len(a.data) == 1 else a.data, a.out, api.RankOptions(n_bootstrap=a.n_bootstrap, seed=a.seed,
                                                                              mean_of_judges=a.mean_of_judges,
                                                                              judge_sensitivity=not a.no_judge_sensitivity),
                     services_of(a))
    if not a.quiet:
        print_leaderboard(table)
    for line in table.attrs.get("left_out", []):
        print(line)
    if a.out:
        print(f"wrote {a.out}/leaderboard.parquet and {a.out}/leaderboard.csv ({len(table)} rows)")
        if table.attrs.get("judge_sensitivity_files"):
            print(f"wrote {a.out}/judge_sensitivity.parquet/.csv, judge_sensitivity_pairs.csv and "
                  "judge_sensitivity_suites.csv (ranks per judge)")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    from toolkit import api

    p.add_argument("data", nargs="+", help=".jsonl/.parquet of ItemRecords, run folder(s), a dataset folder or a Hub "
                                           "dataset id (ORG/NAME, hf://datasets/ORG/NAME, optional @revision)")
    p.add_argument("--out", default=None, help="write leaderboard.parquet and leaderboard.csv here")
    p.add_argument("--bootstrap", dest="n_bootstrap", type=int, default=api.N_BOOTSTRAP, metavar="N",
                   help=f"paired bootstrap resamples (0 = no intervals; default {api.N_BOOTSTRAP})")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.add_argument("--mean-of-judges", default=None, metavar="A,B",
                   help="add a row mean:A+B per suite: the mean over items of these judges' mean score (HELM's number; "
                        "a leaderboard row only, no ternary rates)")
    p.add_argument("--no-judge-sensitivity", action="store_true",
                   help="with --out: do not write the judge sensitivity files (ranks per judge, rank_range_judges, "
                        "τ-b), written by default when a suite has two judges or more")
    p.add_argument("--quiet", action="store_true", help="do not print the table")
    add_token_argument(p)
    p.set_defaults(func=run)
