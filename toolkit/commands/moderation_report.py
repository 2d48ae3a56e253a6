"""slmboard moderation-report: moderator reliability metrics from ModerationRecords."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def run(a) -> int:
    from toolkit import api

    options = api.ModerationReportOptions(n_bootstrap=a.n_bootstrap, n_splits=a.n_splits, seed=a.seed,
                                          stability_repeats=a.stability_repeats, figures=not a.no_figures)
    r = api.moderation_report(a.data, a.out, options, services_of(a))
    board = r.ranking()
    cols = ["rank", "moderator_id", "n", "macro_f1", "far", "miss", "error_direction", "ece", "aurc"]
    print(board[cols].to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    failed = r.parse_failures[r.parse_failures["no_decision"] > 0]
    for _, row in failed.iterrows():
        print(f"{row['moderator_id']}: {row['no_decision']} of {row['n_records']} records without a decision "
              "(parse failures; left out of the metrics)")
    print(f"wrote {len(r.files)} files to {r.out} (moderators.csv: {len(r.table)} rows)")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    from toolkit import api

    p.add_argument("data", help="ModerationRecords: .jsonl / .parquet file, run folder, dataset folder or Hub dataset ORG/NAME")
    p.add_argument("--out", required=True, help="folder for moderators.csv, the other tables and the figures")
    p.add_argument("--bootstrap", dest="n_bootstrap", type=int, default=api.MODERATION_N_BOOTSTRAP, metavar="N",
                   help=f"bootstrap resamples for the 95%% bounds (default {api.MODERATION_N_BOOTSTRAP})")
    p.add_argument("--splits", dest="n_splits", metavar="SPLITS", type=int, default=20, help="random fit/eval halves for temperature scaling")
    p.add_argument("--stability-repeats", type=int, default=100, help="subsample draws per size (n = 50, 100, 150)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap, the splits and the subsamples")
    p.add_argument("--no-figures", action="store_true", help="write the tables only (no matplotlib)")
    add_token_argument(p)
    p.set_defaults(func=run)
