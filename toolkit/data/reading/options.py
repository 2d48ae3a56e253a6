"""What ``rank`` is told besides the records it ranks (:func:`toolkit.api.rank`). Pydantic only."""
from __future__ import annotations

from typing import Optional

from toolkit.core.registry import Options, option
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP

__all__ = ["RankOptions"]


class RankOptions(Options):
    n_bootstrap: int = option(N_BOOTSTRAP, help="paired bootstrap resamples (0 = no intervals)", flag="--bootstrap",
                              ge=0, metavar="N")
    seed: int = option(0, help="bootstrap seed")
    suite_totals: Optional[dict[str, int]] = option(None, help="items per suite the coverage column counts against "
                                                               "(default: the totals the dataset's manifests record)",
                                                    cli=False)
