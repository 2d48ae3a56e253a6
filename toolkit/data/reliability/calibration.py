"""Temperature scaling as Safety-Flag's ``analysis/rigor_analysis.py`` (block B1.4, @ d0da355) does it.

Per moderator, on its items pooled over benchmarks: 20 random 50/50 splits drawn from
``numpy.random.default_rng(seed + 100)`` (the release's SEED = 0); on each split T is the value of
``linspace(0.3, 20, 800)`` with the lowest NLL of gold on the fit half (logits of p clipped at
1e-6), and ECE is measured on the other half before and after dividing the logits by T.
Reported: T mean and sd (ddof 1), held-out ECE before (``ece_heldout``) and after
(``ece_scaled``), and the mean of the per-split reduction factors before / after.

p_T = sigmoid(logit(p) / T) with T > 0 keeps the logit's sign (no decision changes) and is
strictly monotone in |logit| (the confidence order is kept); only the confidence values move.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .metrics import confidence, ece

#: The release's grid of temperatures and its logit clip.
T_GRID = np.linspace(0.3, 20.0, 800)
LOGIT_CLIP = 1e-6
N_SPLITS = 20
SEED_OFFSET = 100  # rigor_analysis.py: default_rng(SEED + 100)


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=float), LOGIT_CLIP, 1.0 - LOGIT_CLIP)
    return np.log(p / (1.0 - p))


def apply_temperature(p: np.ndarray, temperature: float) -> np.ndarray:
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature!r}")
    p = np.asarray(p, dtype=float)
    out = 1.0 / (1.0 + np.exp(-logit(p) / temperature))
    # Exactly 0.5 stays exactly 0.5 (logit 0): the tie rule "flag iff p >= 0.5" is unaffected.
    out[p == 0.5] = 0.5
    return out


def nll(y: np.ndarray, q: np.ndarray) -> float:
    """NLL of gold under q = P(flag), each term clipped at 1e-9 as the release does."""
    y = np.asarray(y, dtype=float)
    q = np.asarray(q, dtype=float)
    return float(-np.mean(y * np.log(np.clip(q, 1e-9, 1)) + (1 - y) * np.log(np.clip(1 - q, 1e-9, 1))))


def fit_temperature(y: np.ndarray, p: np.ndarray) -> float:
    """The first T of ``T_GRID`` with the lowest NLL of gold under sigmoid(logit(p) / T).

    All 800 temperatures at once (one row each); ``argmin`` returns the first minimum, as the
    release's loop with a strict ``<`` does."""
    z = logit(p)
    y = np.asarray(y, dtype=float)
    q = 1.0 / (1.0 + np.exp(-z[None, :] / T_GRID[:, None]))
    losses = -np.mean(y * np.log(np.clip(q, 1e-9, 1)) + (1 - y) * np.log(np.clip(1 - q, 1e-9, 1)), axis=1)
    return float(T_GRID[int(np.argmin(losses))])


@dataclass
class ScalingResult:
    temperature: float  # mean of the per-split temperatures
    temperature_sd: float = math.nan  # their sd (ddof 1)
    ece_heldout: float = math.nan  # held-out ECE before scaling, mean over splits
    ece_scaled: float = math.nan  # held-out ECE after scaling, mean over splits
    reduction: float = math.nan  # nanmean over splits of before / after (NaN where after <= 1e-9)
    temperatures: list[float] = field(default_factory=list)


def temperature_scaling(
    y: np.ndarray, p: np.ndarray, correct: np.ndarray, n_splits: int = N_SPLITS, seed: int = 0
) -> ScalingResult:
    """Fit T on a random half, compare held-out ECE before and after; ``n_splits`` splits.

    ``y``: gold flag; ``p``: P(flag); ``correct``: whether the decision is right (scaling changes no
    decision). The items' order matters for the splits: pass them in the report's pooled order.
    """
    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    correct = np.asarray(correct, dtype=float)
    n = y.size
    if n < 2:
        return ScalingResult(math.nan)
    rng = np.random.default_rng(seed + SEED_OFFSET)
    z = logit(p)
    conf_before = confidence(p)
    temps, before, after, ratio = [], [], [], []
    for _ in range(n_splits):
        perm = rng.permutation(n)
        fit, held = perm[: n // 2], perm[n // 2:]
        t = fit_temperature(y[fit], p[fit])
        q = 1.0 / (1.0 + np.exp(-z[held] / t))
        e_before = ece(conf_before[held], correct[held])
        e_after = ece(confidence(q), correct[held])
        temps.append(t)
        before.append(e_before)
        after.append(e_after)
        ratio.append(e_before / e_after if e_after > 1e-9 else math.nan)
    ratios = np.array(ratio)
    return ScalingResult(
        temperature=float(np.mean(temps)),
        temperature_sd=float(np.std(temps, ddof=1)) if n_splits > 1 else math.nan,
        ece_heldout=float(np.mean(before)),
        ece_scaled=float(np.mean(after)),
        reduction=float(np.nanmean(ratios)) if np.isfinite(ratios).any() else math.nan,
        temperatures=temps,
    )
