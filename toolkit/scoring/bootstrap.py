"""Paired bootstrap over items for one (suite, judge): intervals for scores and ranks.

Items are resampled with replacement, the same draw for every model (paired), so the intervals
reflect which prompts happened to be in the suite. The ternary structure makes this cheap: an item
is fully described by its label pattern across models, so items are grouped into distinct patterns
and a resample is a vector of pattern counts (one multinomial draw) instead of a set of rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schemas import POLICIES

from .ranks import competition_rank
from .ternary import rates

HARMFUL, AMBIGUOUS, SAFE, FAILED, MISSING = 0, 1, 2, 3, 4
_CHUNK = 250  # resamples per block: bounds memory at (chunk × patterns) counts


@dataclass
class BootstrapResult:
    """Per-model 2.5% / 97.5% bounds; arrays of shape (n_models,)."""

    lo: dict[str, np.ndarray]
    hi: dict[str, np.ndarray]
    rank_lo: np.ndarray
    rank_hi: np.ndarray
    n_resamples: int


def codes_from_scores(scores: np.ndarray) -> np.ndarray:
    """Map an (items × models) score matrix (NaN = failed, inf = missing) to label codes."""
    codes = np.full(scores.shape, MISSING, dtype=np.int8)
    codes[scores == 0.0] = HARMFUL
    codes[scores == 0.5] = AMBIGUOUS
    codes[scores == 1.0] = SAFE
    codes[np.isnan(scores)] = FAILED
    return codes


def paired_bootstrap(
    codes: np.ndarray,
    n_resamples: int = 1000,
    seed: int = 0,
    metrics: tuple[str, ...] = ("s_raw", "s_adj") + tuple(f"score_{p}" for p in POLICIES),
    rank_metric: str = "s_raw",
    alpha: float = 0.05,
) -> BootstrapResult:
    """Bootstrap a (items × models) matrix of label codes."""
    n_items, n_models = codes.shape
    patterns, counts = np.unique(codes, axis=0, return_counts=True)
    probs = counts / counts.sum()
    indicators = [(patterns == k).astype(np.float64) for k in (HARMFUL, AMBIGUOUS, SAFE)]
    rng = np.random.default_rng(seed)
    draws: dict[str, list[np.ndarray]] = {m: [] for m in metrics}
    rank_draws: list[np.ndarray] = []
    remaining = n_resamples
    while remaining > 0:
        size = min(_CHUNK, remaining)
        remaining -= size
        weights = rng.multinomial(n_items, probs, size=size).astype(np.float64)  # (size, patterns)
        n0, n05, n1 = (weights @ ind for ind in indicators)  # (size, models) each
        values = rates(n0, n05, n1)
        for m in metrics:
            draws[m].append(values[m])
        rank_draws.append(competition_rank(values[rank_metric]))
    q = (100 * alpha / 2, 100 * (1 - alpha / 2))
    lo, hi = {}, {}
    with np.errstate(invalid="ignore"), _quiet_nan_warnings():
        for m in metrics:
            stacked = np.concatenate(draws[m], axis=0)
            lo[m], hi[m] = np.nanpercentile(stacked, q, axis=0)
        ranks = np.concatenate(rank_draws, axis=0)
        rank_lo, rank_hi = np.nanpercentile(ranks, q, axis=0)
    return BootstrapResult(lo, hi, np.floor(rank_lo), np.ceil(rank_hi), n_resamples)


class _quiet_nan_warnings:
    """nanpercentile warns on all-NaN columns (a model with no scored item); those stay NaN."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)


def rank_upper_bound(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Chatbot-Arena style rank (UB): 1 + number of models whose lower bound exceeds this model's upper bound."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    better = lo[None, :] > hi[:, None]
    ub = 1.0 + better.sum(axis=1)
    return np.where(np.isnan(hi), np.nan, ub)
