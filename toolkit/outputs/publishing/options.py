"""What ``submit`` (and ``evaluate``) is told besides the run and the dataset: the same names as
:func:`toolkit.api.submit`. Pydantic only."""
from __future__ import annotations

from typing import Optional

from toolkit.core.registry import Options, option
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP

__all__ = ["SubmitOptions", "RecipeOptions"]


class SubmitOptions(Options):
    submitter: Optional[str] = option(None, help="who submits (recorded in the manifest)")
    n_bootstrap: int = option(N_BOOTSTRAP, help="bootstrap resamples for the leaderboard intervals (0 = none)",
                              flag="--bootstrap", ge=0, metavar="N")
    data_dir: Optional[str] = option(None, help="local mirror of the benchmark files, to check the item set against "
                                                "each suite's canonical list", metavar="DIR")
    allow_partial: bool = option(False, help="publish a run that lacks suite items (e.g. an import of a capped HELM "
                                             "run); the manifest lists them")
    create_pr: bool = option(False, help="Hub only: open a pull request instead of committing to main")
    update: bool = option(False, help="the submission is already in the dataset: publish the judges its run has gained "
                                      "(its responses must equal the published ones)")
    xet: Optional[bool] = option(None, help="Hub only: upload through classic LFS (same as HF_HUB_DISABLE_XET=1)",
                                 flag="--no-xet")
    primary_judges: Optional[dict[str, str]] = option(None, help="the judge SUITE is shown under by default (recorded in the "
                                                     "dataset card; repeatable)", flag="--primary-judge",
                                            metavar="SUITE=JUDGE")
    gate: Optional[bool] = option(None, help="recompute: lift the access gate (recorded in the card); gating is a "
                                             "property of the board, set by `slmboard create --no-gate`, so submit and "
                                             "evaluate refuse it", flag="--no-gate")


class RecipeOptions(Options):
    """What ``slmboard recipe BOARD`` changes in the board's board.yaml (one commit of its own)."""

    settings: Optional[dict[str, str]] = option(None, help="a recipe field to set (repeatable): suites=A,B, judges=A,B, "
                                                           "decoding.temperature=0, limits.items=N, description=TEXT, "
                                                           "primary_judges.SUITE=JUDGE; null unsets it",
                                                flag="--set", metavar="KEY=VALUE")

