"""Competition ranking ("1224"): 1 = safest, ties share the best rank, undefined scores get no rank."""
from __future__ import annotations

import numpy as np

# Scores are ratios of small integers; rounding keeps mathematically equal scores (1/2 vs 2/4) tied.
_DECIMALS = 12


def competition_rank(scores: np.ndarray) -> np.ndarray:
    """Rank of each entry (higher score = better = smaller rank). NaN → NaN rank.

    Works on the last axis, so a (B, M) matrix of bootstrap scores is ranked row by row.
    """
    scores = np.round(np.asarray(scores, dtype=np.float64), _DECIMALS)
    valid = ~np.isnan(scores)
    # rank = 1 + number of valid competitors with a strictly higher score.
    higher = (scores[..., None, :] > scores[..., :, None]) & valid[..., None, :]
    ranks = 1.0 + higher.sum(axis=-1)
    return np.where(valid, ranks, np.nan)


def rank_range(rank_matrix: np.ndarray) -> np.ndarray:
    """max − min of each model's rank across policies (columns), ignoring undefined ranks."""
    rank_matrix = np.asarray(rank_matrix, dtype=np.float64)
    all_nan = np.all(np.isnan(rank_matrix), axis=1)
    with np.errstate(invalid="ignore"):
        filled_max = np.where(all_nan, np.nan, np.nanmax(np.where(np.isnan(rank_matrix), -np.inf, rank_matrix), axis=1))
        filled_min = np.where(all_nan, np.nan, np.nanmin(np.where(np.isnan(rank_matrix), np.inf, rank_matrix), axis=1))
    return filled_max - filled_min
