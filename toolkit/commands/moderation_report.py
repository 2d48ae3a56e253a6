"""slmboard moderation-report: moderator reliability metrics from ModerationRecords."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags


def run(a, flags: OptionFlags) -> int:
    options = api.ModerationReportOptions(**flags.given(a))
    r = api.moderation_report(a.data, a.out, options, services_of(a))
    board = r.ranking()
    cols = ["rank", "moderator_id", "n", "macro_f1", "far", "miss", "error_direction", "ece", "aurc"]
    print(board[cols].to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    counts = r.parse_failures.set_index("moderator_id")
    for mod in board.loc[board["ece"].isna() & board["aurc"].isna(), "moderator_id"]:
        if mod in counts.index and counts.loc[mod, "no_logprob"] > 0:  # why its calibration columns are empty
            print(f"{mod}: ece and aurc are NaN: {counts.loc[mod, 'no_logprob']} of {counts.loc[mod, 'n_records']} "
                  "records carry no token-logprob confidence (p_flag_logprob), which calibration and risk-coverage need")
    failed = r.parse_failures[r.parse_failures["no_decision"] > 0]
    for _, row in failed.iterrows():
        print(f"{row['moderator_id']}: {row['no_decision']} of {row['n_records']} records without a decision "
              "(parse failures; left out of the metrics)")
    print(f"wrote {len(r.files)} files to {r.out} (moderators.csv: {len(r.table)} rows)")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", help="ModerationRecords: .jsonl / .parquet file, run folder, dataset folder or Hub dataset ORG/NAME")
    p.add_argument("--out", required=True, help="folder for moderators.csv, the other tables and the figures")
    flags = OptionFlags(p).add_model(api.ModerationReportOptions, "moderation-report")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags))
