"""HELM's number beside the ternary ones: ``rank --mean-of-judges A,B`` (a leaderboard row ``mean:A+B``).

Per (suite, model), each item's value is the mean of the named judges' valid scores on it (a failed member: the
mean of the others, as HELM's safety annotators do; none valid: the item is unscored); the row's ``s_raw`` is the
mean of those values over the model's scored items, ranked within the suite, with a paired bootstrap interval
(items resampled, one draw for all models). It is a leaderboard row only, never ItemRecords: its per-item values
are not in {0, 0.5, 1}, so HCR/AR/SRR, S_adj and the ambiguity policies are empty for it.
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence

import numpy as np
import pandas as pd

from toolkit.core.defaults import N_BOOTSTRAP
from toolkit.core.judge_names import MEAN_PREFIX
from toolkit.core.registry import Options, option
from .ranks import competition_rank

__all__ = ["MeanOfJudgesOptions", "mean_row_id", "mean_of_judges_rows"]


class MeanOfJudgesOptions(Options):
    """How ``rank --mean-of-judges`` bootstraps its row (the same resamples and seed as ``rank``'s)."""

    n_bootstrap: int = option(N_BOOTSTRAP, help="paired bootstrap resamples (0 = no interval)", ge=0, metavar="N")
    seed: int = option(0, help="bootstrap seed")


def mean_row_id(judges: Sequence[str]) -> str:
    """The row's judge id: ``mean:`` + the judges sorted, joined by '+' (one set of judges, one id)."""
    return MEAN_PREFIX + ":" + "+".join(sorted(judges))


def mean_of_judges_rows(suite: str, scores: Mapping[str, pd.DataFrame], options: Optional[MeanOfJudgesOptions] = None,
                        ) -> pd.DataFrame:
    """The rows of one suite. ``scores``: judge id -> its records (model_id, item_id, score; NaN = failed)."""
    options = options or MeanOfJudgesOptions()
    frames = [f[["model_id", "item_id", "score"]].assign(score=pd.to_numeric(f["score"], errors="coerce"))
              for f in scores.values()]
    both = pd.concat(frames, ignore_index=True)
    per_item = both.groupby(["model_id", "item_id"], sort=True)["score"].mean()  # NaN-skipping: valid votes only
    matrix = per_item.unstack("model_id")  # items × models; NaN = unscored or missing
    present = both.groupby(["model_id", "item_id"]).size().unstack("model_id").reindex_like(matrix).notna()
    models = np.asarray(matrix.columns, dtype=object)
    values = matrix.to_numpy(dtype=np.float64)
    n_scored = (~np.isnan(values)).sum(axis=0)
    n_items = present.to_numpy().sum(axis=0)
    with np.errstate(invalid="ignore"):
        s_raw = np.nansum(values, axis=0) / np.where(n_scored > 0, n_scored, np.nan)
    out = pd.DataFrame({"suite": suite, "judge_id": mean_row_id(list(scores)), "model_id": models,
                        "n_items": n_items, "n_scored": n_scored, "n_failed": n_items - n_scored, "n_undecided": 0,
                        "s_raw": s_raw})
    out["rank_raw"] = competition_rank(s_raw)
    if options.n_bootstrap > 0 and len(values):
        lo, hi = _interval(values, options.n_bootstrap, options.seed)
        out["s_raw_lo"], out["s_raw_hi"] = lo, hi
    return out


def _interval(values: np.ndarray, n_resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n_items = values.shape[0]
    scored = ~np.isnan(values)
    filled = np.where(scored, values, 0.0)
    draws = np.empty((n_resamples, values.shape[1]))
    for start in range(0, n_resamples, 256):
        size = min(256, n_resamples - start)
        weights = np.stack([np.bincount(rng.integers(0, n_items, n_items), minlength=n_items) for _ in range(size)])
        with np.errstate(invalid="ignore", divide="ignore"):
            draws[start:start + size] = (weights @ filled) / (weights @ scored)
    with np.errstate(invalid="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            lo, hi = np.nanpercentile(draws, [2.5, 97.5], axis=0)
    return lo, hi
