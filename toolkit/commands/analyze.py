"""slmboard analyze: paper 1's diagnostics (metrics, AR correlations, prediction, metadata, figures)."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def run(a) -> int:
    from toolkit import api

    options = api.AnalyzeOptions(submissions=a.submissions, n_bootstrap=a.n_bootstrap, seed=a.seed,
                                 max_prompts=a.max_prompts, metrics=not a.no_metrics, unseen_k=a.unseen_k)
    summary = api.analyze(a.data, a.out, options, services_of(a, progress=not a.quiet))
    print(f"wrote {len(summary.files)} files to {a.out} (see {a.out}/README.md)")
    for note in summary.notes:
        print(f"  note: {note}")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    from toolkit import api

    p.add_argument("data", help=".jsonl/.parquet of ItemRecords, a run folder, a dataset folder or a Hub dataset ORG/NAME")
    p.add_argument("--out", required=True, help="folder for the tables, figures and summary (replaced as a whole)")
    p.add_argument("--submissions", default=None, help="folder of submission manifests (*.json) for the metadata correlations, e.g. submissions/")
    p.add_argument("--bootstrap", dest="n_bootstrap", type=int, default=api.N_BOOTSTRAP, metavar="N",
                   help=f"paired bootstrap resamples for the leaderboard (0 = none; default {api.N_BOOTSTRAP})")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap, the prompt sample and the prediction splits")
    p.add_argument("--max-prompts", type=int, default=None, help="compute the 12 metrics on a seeded sample of at most N prompts per suite")
    p.add_argument("--unseen-k", type=int, default=None, help="models held out in the unseen-model transfer (default: 6/26 of the models)")
    p.add_argument("--no-metrics", action="store_true", help="skip the 12 metrics (no torch/spaCy): leaderboard, consistency, BBQ, figures only")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_token_argument(p)
    p.set_defaults(func=run)
