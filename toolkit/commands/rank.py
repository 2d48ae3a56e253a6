"""slmboard rank: recompute the leaderboard from per-item records."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags


def run(a, flags: OptionFlags) -> int:
    from toolkit.outputs.terminal import print_leaderboard

    table = api.rank(a.data[0] if len(a.data) == 1 else a.data, a.out, api.RankOptions(**flags.given(a)), services_of(a))
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
    p.add_argument("data", nargs="+", help=".jsonl/.parquet of ItemRecords, run folder(s), a dataset folder or a Hub "
                                           "dataset id (ORG/NAME, hf://datasets/ORG/NAME, optional @revision)")
    p.add_argument("--out", default=None, help="write leaderboard.parquet and leaderboard.csv here")
    flags = OptionFlags(p).add_model(api.RankOptions, "rank")
    p.add_argument("--quiet", action="store_true", help="do not print the table")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags))
