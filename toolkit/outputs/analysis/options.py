"""What ``analyze`` is told besides the records and the output folder (:func:`toolkit.api.analyze`). Pydantic only."""
from __future__ import annotations

from typing import Optional

from toolkit.core.registry import Options, option
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP

__all__ = ["AnalyzeOptions"]


class AnalyzeOptions(Options):
    submissions: Optional[str] = option(None, help="folder of submission manifests (*.json) for the metadata "
                                                   "correlations, e.g. submissions/", metavar="SUBMISSIONS")
    n_bootstrap: int = option(N_BOOTSTRAP, help="paired bootstrap resamples for the leaderboard (0 = none)",
                              flag="--bootstrap", ge=0, metavar="N")
    seed: int = option(0, help="seed of the bootstrap, the prompt sample and the prediction splits")
    max_prompts: Optional[int] = option(None, help="compute the 12 metrics on a seeded sample of at most N prompts "
                                                   "per suite", ge=1, metavar="MAX_PROMPTS")
    metrics: bool = option(True, help="compute the 12 metrics (they need torch and spaCy; without them: "
                                      "leaderboard, consistency, BBQ and figures only)")
    unseen_k: Optional[int] = option(None, help="models held out in the unseen-model transfer (default: 6/26 of the "
                                                "models)", ge=1, metavar="UNSEEN_K")
