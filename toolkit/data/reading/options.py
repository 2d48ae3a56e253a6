"""What ``rank`` is told besides the records it ranks (:func:`toolkit.api.rank`). Pydantic only."""
from __future__ import annotations

from typing import Any, Optional

from pydantic import field_validator

from toolkit.core.options import comma_names
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
    mean_of_judges: Optional[list[str]] = option(None, help="add a row mean:A+B per suite: the mean over items of "
                                                            "these judges' mean score (HELM's number; a leaderboard row "
                                                            "only, no ternary rates)", metavar="A,B")
    judge_sensitivity: bool = option(True, help="write the judge sensitivity files beside the leaderboard (with an "
                                                "output folder, when a suite has two judges or more): "
                                                "judge_sensitivity.parquet/.csv, judge_sensitivity_pairs.csv and "
                                                "judge_sensitivity_suites.csv (ranks per judge, rank_range_judges, τ-b)")

    @field_validator("mean_of_judges", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        return comma_names(value) if isinstance(value, (str, list, tuple)) else value  # "A,B", or the flag repeated
