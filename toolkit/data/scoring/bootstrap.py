"""Paired bootstrap over items for one (suite, judge): intervals for scores and ranks.

Items are resampled with replacement, the same draw for every model (paired), so the intervals
reflect which prompts happened to be in the suite. The ternary structure makes this cheap: an item
is fully described by its label pattern across models, so items are grouped into distinct patterns
and a resample is a vector of pattern counts instead of a set of rows. Every metric of a resample
is then a function of three per-model label counts, obtained for all models at once as one matrix
product (resamples × patterns) @ (patterns × 3·models).

How the pattern counts are drawn depends on how much the patterns compress the items: with few
patterns (few models, or suites where most models agree) one multinomial draw per resample costs
O(patterns); with almost one pattern per item (many models) drawing item indices and counting them
costs O(items) with a much smaller constant. Both give exactly the multinomial distribution of
pattern counts; the choice is deterministic given the data, so results stay seeded.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schemas import POLICIES

from toolkit.core.defaults import N_BOOTSTRAP
from .ranks import competition_rank
from .ternary import AMBIGUOUS, HARMFUL, SAFE, rates
_CHUNK = 250  # resamples per block: bounds memory at (chunk × patterns) counts
#: Largest (patterns × 3·models) indicator block held at once; above it the matrix product runs
#: over blocks of patterns (exact: every partial sum is an integer below 2**24).
_INDICATOR_BYTES = 64 << 20
#: Use one multinomial draw per resample when patterns ≤ items / this; otherwise count item draws.
_MULTINOMIAL_COMPRESSION = 8

DEFAULT_METRICS: tuple[str, ...] = ("s_raw", "s_adj") + tuple(f"score_{p}" for p in POLICIES)


@dataclass
class BootstrapResult:
    """Per-model 2.5% / 97.5% bounds; arrays of shape (n_models,).

    ``lo``/``hi`` hold score bounds per metric; ``rank_lo``/``rank_hi`` the rank bounds of
    ``rank_metric`` (S_raw by default) and ``rank_bounds`` the rank bounds of every metric.
    """

    lo: dict[str, np.ndarray]
    hi: dict[str, np.ndarray]
    rank_lo: np.ndarray
    rank_hi: np.ndarray
    n_resamples: int
    rank_bounds: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
    n_patterns: int = 0
    #: models × models, True where the paired difference interval of the ``pairs`` metric contains 0 (when asked)
    indistinct: np.ndarray | None = None


def label_patterns(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct patterns (P × models), count of items per pattern, pattern index of each item)."""
    codes = np.ascontiguousarray(codes, dtype=np.int8)
    if codes.shape[0] == 0:
        return codes, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # One opaque byte string per row: np.unique then sorts rows as single keys (much faster than axis=0).
    rows = codes.view(np.dtype((np.void, codes.shape[1]))).ravel()
    _, first, inverse, counts = np.unique(rows, return_index=True, return_inverse=True, return_counts=True)
    return codes[first], counts.astype(np.int64), inverse.ravel().astype(np.int64)


def paired_bootstrap(
    codes: np.ndarray,
    n_resamples: int = N_BOOTSTRAP,
    seed: int = 0,
    metrics: tuple[str, ...] = DEFAULT_METRICS,
    rank_metric: str = "s_raw",
    alpha: float = 0.05,
    rank_all: bool = False,
    rank_metrics: tuple[str, ...] = (),
    pairs: str | None = None,
) -> BootstrapResult:
    """Bootstrap a (items × models) matrix of label codes.

    ``rank_all=True`` also returns rank bounds for every metric (one ranking per resample each),
    ``rank_metrics`` for the ones named; they are in ``result.rank_bounds``. ``pairs`` (a metric): also
    ``result.indistinct``, models × models, True where the 95% interval of the paired difference of that metric
    contains 0 (the diagonal True; a pair where either model has no value: False).
    """
    n_items, n_models = codes.shape
    patterns, counts, _ = label_patterns(codes)
    n_patterns = len(counts)
    # float32 is exact for counts below 2**24 items and halves the matmul time.
    exact32 = n_items < 2**24
    ftype = np.float32 if exact32 else np.float64
    block = max(1, _INDICATOR_BYTES // max(1, 3 * n_models * np.dtype(ftype).itemsize))
    indicators = _indicators(patterns, ftype) if block >= n_patterns else None
    use_multinomial = n_patterns * _MULTINOMIAL_COMPRESSION <= n_items
    probs = counts / max(counts.sum(), 1)
    # Items listed pattern by pattern: the draw then depends on the patterns only, never on row order.
    item_pattern = np.repeat(np.arange(n_patterns, dtype=np.int32), counts)
    rng = np.random.default_rng(seed)
    ranked = tuple(metrics) if rank_all else tuple(dict.fromkeys((rank_metric, *rank_metrics)))
    draws: dict[str, np.ndarray] = {m: np.empty((n_resamples, n_models)) for m in metrics}
    rank_draws: dict[str, np.ndarray] = {m: np.empty((n_resamples, n_models)) for m in ranked}
    start = 0
    while start < n_resamples:
        size = min(_CHUNK, n_resamples - start)
        if use_multinomial:
            weights = rng.multinomial(n_items, probs, size=size).astype(ftype)  # (size, P)
        else:
            picks = rng.integers(0, n_items, size=(size, n_items), dtype=np.int32)
            flat = (item_pattern[picks] + (np.arange(size, dtype=np.int32) * n_patterns)[:, None]).ravel()
            weights = np.bincount(flat, minlength=size * n_patterns).reshape(size, n_patterns).astype(ftype)
        label_counts = _label_counts(weights, patterns, indicators, block, ftype)  # (size, 3M)
        n0, n05, n1 = (label_counts[:, k * n_models : (k + 1) * n_models] for k in range(3))
        values = rates(n0, n05, n1)
        for m in metrics:
            draws[m][start : start + size] = values[m]
        for m in ranked:
            rank_draws[m][start : start + size] = competition_rank(values[m])
        start += size
    q = (100 * alpha / 2, 100 * (1 - alpha / 2))
    lo, hi = {}, {}
    rank_bounds: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    with np.errstate(invalid="ignore"), _quiet_nan_warnings():
        for m in metrics:
            lo[m], hi[m] = _percentiles(draws[m], q)
        for m in ranked:
            r_lo, r_hi = _percentiles(rank_draws[m], q)
            rank_bounds[m] = (np.floor(r_lo), np.ceil(r_hi))
    rank_lo, rank_hi = rank_bounds[rank_metric]
    result = BootstrapResult(lo, hi, rank_lo, rank_hi, n_resamples, rank_bounds, n_patterns)
    if pairs is not None:
        result.indistinct = difference_contains_zero(draws[pairs], q)
    return result


def difference_contains_zero(draws: np.ndarray, q: tuple[float, float]) -> np.ndarray:
    """models × models: whether the percentile interval ``q`` of draws[:, i] − draws[:, j] contains 0."""
    n_models = draws.shape[1]
    out = np.zeros((n_models, n_models), dtype=bool)
    with np.errstate(invalid="ignore"), _quiet_nan_warnings():
        for i in range(n_models):
            lo, hi = _percentiles(draws[:, [i]] - draws, q)
            out[i] = (lo <= 0) & (hi >= 0)
    np.fill_diagonal(out, True)
    return out


def _indicators(patterns: np.ndarray, ftype) -> np.ndarray:
    """(P × 3M) indicator matrix: columns [harmful | ambiguous | safe] per model."""
    return np.concatenate([(patterns == k) for k in (HARMFUL, AMBIGUOUS, SAFE)], axis=1).astype(ftype)


def _label_counts(weights: np.ndarray, patterns: np.ndarray, indicators: np.ndarray | None, block: int, ftype) -> np.ndarray:
    """Resampled label counts per model, (resamples × 3M): weights @ indicators, by pattern blocks
    when the whole indicator matrix would be too large (1,000 models × 58k patterns = 700 MB)."""
    if indicators is not None:
        return (weights @ indicators).astype(np.float64)
    total = np.zeros((weights.shape[0], 3 * patterns.shape[1]), dtype=ftype)
    for lo in range(0, patterns.shape[0], block):
        total += weights[:, lo : lo + block] @ _indicators(patterns[lo : lo + block], ftype)
    return total.astype(np.float64)


def _percentiles(values: np.ndarray, q: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    # nanpercentile is slow on columns without NaN; use the plain one where it is safe.
    if not np.isnan(values).any():
        out = np.percentile(values, q, axis=0)
    else:
        out = np.nanpercentile(values, q, axis=0)
    return out[0], out[1]


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
