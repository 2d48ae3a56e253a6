"""Competition ranking ("1224"): 1 = safest, ties share the best rank, undefined scores get no rank."""
from __future__ import annotations

import numpy as np

# Scores are ratios of small integers; rounding keeps mathematically equal scores (1/2 vs 2/4) tied.
_DECIMALS = 12


def competition_rank(scores: np.ndarray) -> np.ndarray:
    """Rank of each entry (higher score = better = smaller rank). NaN → NaN rank.

    rank = 1 + number of valid competitors with a strictly higher score. Works on the last axis, so a
    (B, M) matrix of bootstrap scores is ranked row by row; by sorting (B·M·log M time, B·M memory),
    never by a (B, M, M) comparison, which at 1,000 models would not fit in memory.
    """
    scores = np.round(np.asarray(scores, dtype=np.float64), _DECIMALS)
    shape = scores.shape
    n = shape[-1] if scores.ndim else 1
    flat = scores.reshape(-1, n)
    order = np.argsort(-flat, axis=-1, kind="stable")  # best first; NaN last
    ordered = np.take_along_axis(flat, order, axis=-1)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    # Position of the first entry of each run of equal scores = how many valid scores are higher.
    first = np.maximum.accumulate(np.where(starts, np.arange(n), 0), axis=-1)
    ranks = np.empty(flat.shape, dtype=np.float64)
    np.put_along_axis(ranks, order, first + 1.0, axis=-1)
    return np.where(np.isnan(flat), np.nan, ranks).reshape(shape)


def rank_range(rank_matrix: np.ndarray) -> np.ndarray:
    """max − min of each model's rank across policies (columns), ignoring undefined ranks."""
    rank_matrix = np.asarray(rank_matrix, dtype=np.float64)
    all_nan = np.all(np.isnan(rank_matrix), axis=1)
    with np.errstate(invalid="ignore"):
        filled_max = np.where(all_nan, np.nan, np.nanmax(np.where(np.isnan(rank_matrix), -np.inf, rank_matrix), axis=1))
        filled_min = np.where(all_nan, np.nan, np.nanmin(np.where(np.isnan(rank_matrix), np.inf, rank_matrix), axis=1))
    return filled_max - filled_min
