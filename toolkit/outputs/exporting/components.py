"""The export formats users name (``slmboard export FORMAT``), with their typed options, registered once.

Each format is a function ``export(data, out, **options)`` returning its typed result (with
``report_lines()`` and ``ok`` for the command line), imported on first use. This module imports
pydantic and the scoring defaults only.
"""
from __future__ import annotations

from typing import Optional

from toolkit.core.registry import Options, Registry, option
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP

__all__ = ["EXPORT_FORMATS", "EeeOptions", "EvalResultsOptions"]


class EeeOptions(Options):
    n_bootstrap: int = option(N_BOOTSTRAP, help="bootstrap resamples for the intervals (0 = none)", flag="--bootstrap",
                              ge=0, metavar="N")
    seed: int = option(0, help="bootstrap seed")


class EvalResultsOptions(Options):
    dataset_id: Optional[str] = option(None, help="the leaderboard's Hub dataset id (default: DATA when it is a Hub "
                                                  "dataset)", metavar="ORG/NAME")
    primary_judges: Optional[dict[str, str]] = option(None, help="judge whose S_adj a suite reports (repeatable; default: the "
                                                     "dataset card's choice, else the rule)", flag="--primary-judge",
                                            metavar="SUITE=JUDGE")
    push: bool = option(False, help="open one pull request per model repo on the Hub")


EXPORT_FORMATS: Registry = Registry("export format")
EXPORT_FORMATS.add("eee", "Every Eval Ever 0.3.0: one aggregate + samples file per (model, suite, judge)",
                   "toolkit.outputs.exporting.eee:export_eee", EeeOptions)
EXPORT_FORMATS.add("eval-results", "Hugging Face .eval_results/slmboard.yaml per model (optionally as pull requests)",
                   "toolkit.outputs.exporting.push:export_and_push", EvalResultsOptions)
