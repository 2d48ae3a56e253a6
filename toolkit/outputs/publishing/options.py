"""What ``submit`` (and ``evaluate``), ``recompute`` and ``create`` are told besides the run and the dataset
(:func:`toolkit.api.submit`, :func:`toolkit.api.recompute`, :func:`toolkit.api.create`). Pydantic only."""
from __future__ import annotations

from typing import Any, Optional

from pydantic import field_validator

from toolkit.core.options import comma_names
from toolkit.core.registry import Options, option
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP

__all__ = ["SubmitOptions", "RecomputeOptions", "CreateOptions", "RecipeOptions", "ReleaseOptions"]


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


class RecomputeOptions(Options):
    """What ``recompute`` is told besides the dataset and the maintainer's judge."""

    n_bootstrap: int = option(N_BOOTSTRAP, help="bootstrap resamples for the leaderboard intervals (0 = none)",
                              flag="--bootstrap", ge=0, metavar="N")
    seed: int = option(0, help="seed of the bootstrap and of the re-judged sample")
    commit: bool = option(True, help="commit the files (a local folder; off: write them only)")
    rejudge: int = option(0, help="re-judge N random items of each submission file", ge=0, metavar="N")
    threshold: float = option(0.2, help="flag when the share of disagreeing labels exceeds this")
    xet: Optional[bool] = option(None, help="Hub only: upload through classic LFS (same as HF_HUB_DISABLE_XET=1)",
                                 flag="--no-xet")
    primary_judges: Optional[dict[str, str]] = option(None, help="the judge SUITE is shown under by default (recorded "
                                                      "in the dataset card; repeatable)", flag="--primary-judge",
                                                      metavar="SUITE=JUDGE")
    gate: Optional[bool] = option(None, help="lift the access gate (recorded in the card)", flag="--no-gate")


class CreateOptions(Options):
    """What ``create`` is told besides the board: its recipe's fields (None leaves one unconstrained), the card's
    gate, the Hub dataset's visibility and its requests queue."""

    suites: Optional[list[str]] = option(None, help="the suites a submission may hold (default: any)", metavar="A,B")
    judges: Optional[list[str]] = option(None, help="the judge ids a submission may hold (default: any)", metavar="A,B")
    primary_judges: Optional[dict[str, str]] = option(None, help="the judge a suite is ranked under (repeatable; "
                                                                 "default: chosen by rule)", flag="--primary-judge",
                                                      metavar="SUITE=JUDGE")
    temperature: Optional[float] = option(None, help="decoding every submission must have used")
    max_new_tokens: Optional[int] = option(None, help="decoding every submission must have used", metavar="N")
    limit: Optional[int] = option(None, help="items per suite every run must be generated with", ge=1, metavar="N")
    complete: Optional[bool] = option(None, help="every submission covers each suite's canonical items")
    gate: bool = option(True, help="gate the dataset behind access requests, since records hold harmful "
                                   "completions", flag="--no-gate")
    description: Optional[str] = option(None, help="one line about the board, kept in board.yaml")
    private: bool = option(False, help="a private Hub dataset")
    requests: bool = option(True, help="open a Hub board's requests dataset beside it, so the board takes "
                                       "evaluation requests", flag="--no-requests")
    labels: bool = option(False, help="people label the board's answers: the default labelling policy (board.yaml "
                                      "labels:, as a commit of its own) and the labels dataset beside the board "
                                      "(`slmboard labels BOARD --init` changes the policy)")
    request_policy: Optional[dict[str, Any]] = option(None, help="the policy requests are checked against (board.yaml "
                                                                 "requests:; None: the defaults of RequestPolicy)",
                                                      cli=False)

    @field_validator("suites", "judges", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        return comma_names(value) if isinstance(value, (str, list, tuple)) else value  # "A,B", or the flag repeated

    @field_validator("request_policy", mode="before")
    @classmethod
    def _policy_mapping(cls, value: Any) -> Any:
        return value.model_dump(exclude_unset=True) if hasattr(value, "model_dump") else value


class RecipeOptions(Options):
    """What ``slmboard recipe BOARD`` changes in the board's board.yaml (one commit of its own)."""

    settings: Optional[dict[str, str]] = option(None, help="a recipe field to set (repeatable): suites=A,B, judges=A,B, "
                                                           "decoding.temperature=0, limits.items=N, description=TEXT, "
                                                           "primary_judges.SUITE=JUDGE; null unsets it",
                                                flag="--set", metavar="KEY=VALUE")



class ReleaseOptions(Options):
    """What ``slmboard release BOARD NAME`` is told besides the board and the release's name."""

    notes: Optional[str] = option(None, help="what this release is, in a few words (written into its entry in the "
                                             "dataset card)", metavar="TEXT")
