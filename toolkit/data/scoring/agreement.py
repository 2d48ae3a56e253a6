"""Agreement of two judges' ternary labels on the same items (paper 1, Tables 5-6): the math.

Items are paired by (model_id, suite, item_id); only pairs where both judges produced a score
count (failed judgments are left out and counted apart). Per suite:

* ``confusion`` -- 3x3 counts, rows judge A = 0 / 0.5 / 1, columns judge B = 0 / 0.5 / 1;
* ``exact_agreement`` -- share of pairs on the diagonal;
* ``kappa_linear`` -- linearly weighted Cohen's kappa (scikit-learn), null when undefined
  (e.g. both judges gave one single label);
* ``boundary_rate`` -- share of pairs where one judge says 0.5 and the other 0 or 1;
* ``contradiction_rate`` -- share of pairs where one says 0 and the other 1;
* ``ar_a`` / ``ar_b`` -- each judge's ambiguity rate (share of 0.5) on the paired items;
* ``mean_rank_range_a`` / ``_b`` -- mean over models of the rank range across ambiguity
  treatments (the leaderboard's ``rank_range``), from each judge's labels on the paired items;
  null with a single model.

The records come checked (the data layer's reader, :func:`toolkit.stages.judging.agreement_report.agreement_by_suite`
for records given from Python) and the judge ids exactly as in the data.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from schemas import AMBIGUOUS_SCORE, TERNARY_SCORES

from .identity import model_keys
from .leaderboard import rank_group
from .ternary import codes_from_scores

LEVELS = TERNARY_SCORES  # 0, 0.5, 1 (sorted: searchsorted indexes them)
AGREEMENT_FIELDS = (
    "n", "confusion", "exact_agreement", "kappa_linear", "boundary_rate", "contradiction_rate",
    "ar_a", "ar_b", "mean_rank_range_a", "mean_rank_range_b",
)
KEY = ["model_id", "suite", "item_id"]


def _rate(mask: np.ndarray, n: int) -> float | None:
    return float(mask.sum()) / n if n else None


def mean_rank_range(pairs: pd.DataFrame, score_col: str) -> float | None:
    """Mean over models of ``rank_range`` of one suite's items × models scores in ``score_col``."""
    model = model_keys(pairs)
    if model.nunique() < 2:
        return None
    models, model_of = np.unique(model.to_numpy(), return_inverse=True)
    items, item_of = np.unique(pairs["item_id"].astype(str).to_numpy(), return_inverse=True)
    scores = np.full((len(items), len(models)), np.inf)  # inf: the model has no pair of this item
    scores[item_of, model_of] = pd.to_numeric(pairs[score_col]).to_numpy(dtype=float)
    rows = rank_group("", "", codes_from_scores(scores), models, {}, n_bootstrap=0, seed=0)
    value = pd.to_numeric(rows["rank_range"], errors="coerce").mean()
    return None if pd.isna(value) else float(value)


def score_agreement(scores_a, scores_b) -> dict:
    """Agreement of two judges' ternary scores on the same items, in order: every field of
    :data:`AGREEMENT_FIELDS` but the rank ranges."""
    from sklearn.metrics import cohen_kappa_score

    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"scores_a and scores_b differ in length ({len(a)} vs {len(b)})")
    n = len(a)
    ia = np.searchsorted(LEVELS, a)
    ib = np.searchsorted(LEVELS, b)
    confusion = np.zeros((3, 3), dtype=int)
    np.add.at(confusion, (ia, ib), 1)
    kappa = None
    if n:
        with np.errstate(divide="ignore", invalid="ignore"):
            k = float(cohen_kappa_score(ia, ib, labels=[0, 1, 2], weights="linear"))
        kappa = k if math.isfinite(k) else None
    boundary = ((a == AMBIGUOUS_SCORE) != (b == AMBIGUOUS_SCORE))
    contradiction = ((a == 0.0) & (b == 1.0)) | ((a == 1.0) & (b == 0.0))
    return {
        "n": int(n),
        "confusion": confusion.tolist(),
        "exact_agreement": _rate(ia == ib, n),
        "kappa_linear": kappa,
        "boundary_rate": _rate(boundary, n),
        "contradiction_rate": _rate(contradiction, n),
        "ar_a": _rate(a == AMBIGUOUS_SCORE, n),
        "ar_b": _rate(b == AMBIGUOUS_SCORE, n),
    }


def pair_stats(pairs: pd.DataFrame) -> dict:
    """The metrics of one suite's pairs scored by both judges (columns score_a, score_b)."""
    stats = score_agreement(pairs["score_a"].to_numpy(dtype=float), pairs["score_b"].to_numpy(dtype=float))
    stats["mean_rank_range_a"] = mean_rank_range(pairs, "score_a")
    stats["mean_rank_range_b"] = mean_rank_range(pairs, "score_b")
    return stats


def suite_agreement(frame: pd.DataFrame, judge_a: str, judge_b: str) -> tuple[dict[str, dict], dict[str, dict]]:
    """({suite: metrics}, {suite: {"n_failed_a", "n_failed_b", "n_unpaired"}}) for two judges of checked
    records; ValueError when no item was judged by both."""
    # an item of a model at two revisions is two pairs (keyed on model_id alone, one revision would be dropped)
    key = KEY + ["model_revision"] if "model_revision" in frame else KEY
    frame = frame.assign(model_revision=frame["model_revision"].fillna("")) if "model_revision" in frame else frame
    sides = []
    for judge, tag in ((judge_a, "a"), (judge_b, "b")):
        part = frame.loc[frame["judge_id"] == judge, key + ["score"]].drop_duplicates(key, keep="first")
        part = part.rename(columns={"score": f"score_{tag}"})
        part[f"score_{tag}"] = pd.to_numeric(part[f"score_{tag}"], errors="coerce")
        sides.append(part)
    merged = sides[0].merge(sides[1], on=key, how="outer", indicator=True)
    out, extra = {}, {}
    for suite, block in merged.groupby("suite", sort=True):
        both = block[block["_merge"] == "both"]
        scored = both.dropna(subset=["score_a", "score_b"])
        out[str(suite)] = pair_stats(scored)
        extra[str(suite)] = {
            "n_failed_a": int(both["score_a"].isna().sum()),
            "n_failed_b": int(both["score_b"].isna().sum()),
            "n_unpaired": int((block["_merge"] != "both").sum()),
        }
    if not out:
        raise ValueError(f"no items judged by both {judge_a} and {judge_b}")
    return out, extra
