"""slmboard analyze: paper 1's diagnostics (metrics, AR correlations, prediction, metadata, figures)."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags


def run(a, flags: OptionFlags) -> int:
    options = api.AnalyzeOptions(**flags.given(a))
    summary = api.analyze(a.data, a.out, options, services_of(a, progress=not a.quiet))
    print(f"wrote {len(summary.files)} files to {a.out} (see {a.out}/README.md)")
    for note in summary.notes:
        print(f"  note: {note}")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", help=".jsonl/.parquet of ItemRecords, a run folder, a dataset folder or a Hub dataset ORG/NAME")
    p.add_argument("--out", required=True, help="folder for the tables, figures and summary (replaced as a whole)")
    flags = OptionFlags(p).add_model(api.AnalyzeOptions, "analyze")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags))
