"""Temperature scaling: one scalar per moderator, fitted by NLL on a random half, 20 splits.

p_T = sigmoid(logit(p) / T) with T > 0. Dividing a logit by a positive number keeps its sign (so
no decision changes) and is strictly monotone in |logit| (so the confidence order is kept); only
the confidence values move. Evaluation is on the held-out half of each split.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .metrics import confidence, correct_by_p, ece

#: Probabilities of exactly 0 or 1 (fp rounding of very confident logprobs) are clipped here so
#: that their logits are finite; the clip keeps their side of 0.5 and their order among others.
_EPS = 1e-12
T_BOUNDS = (0.05, 100.0)


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=float), _EPS, 1.0 - _EPS)
    return np.log(p) - np.log1p(-p)


def apply_temperature(p: np.ndarray, temperature: float) -> np.ndarray:
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature!r}")
    z = logit(p) / temperature
    out = 1.0 / (1.0 + np.exp(-z))
    # Exactly 0.5 stays exactly 0.5 (logit 0): the tie rule "flag iff p >= 0.5" is unaffected.
    out[np.asarray(p) == 0.5] = 0.5
    return out


def nll(y: np.ndarray, p: np.ndarray) -> float:
    p = np.clip(np.asarray(p, dtype=float), _EPS, 1.0 - _EPS)
    y = np.asarray(y, dtype=float)
    return float(-np.mean(y * np.log(p) + (1.0 - y) * np.log1p(-p)))


def fit_temperature(y: np.ndarray, p: np.ndarray) -> float:
    """The T that minimises the NLL of gold under sigmoid(logit(p)/T) (bounded 1-d search on log T)."""
    from scipy.optimize import minimize_scalar

    z = logit(p)
    y = np.asarray(y, dtype=float)

    def loss(log_t: float) -> float:
        s = z / math.exp(log_t)
        # log(1 + e^{-s}) etc. written stably: NLL = mean(softplus(s) - y*s)
        return float(np.mean(np.logaddexp(0.0, s) - y * s))

    res = minimize_scalar(loss, bounds=(math.log(T_BOUNDS[0]), math.log(T_BOUNDS[1])), method="bounded",
                          options={"xatol": 1e-6})
    return float(math.exp(res.x))


@dataclass
class ScalingResult:
    temperature: float  # mean of the per-split fitted temperatures
    temperatures: list[float] = field(default_factory=list)
    ece_before: float = math.nan  # held-out ECE before scaling, mean over splits
    ece_scaled: float = math.nan  # held-out ECE after scaling, mean over splits
    #: group -> held-out ECE after scaling, mean over the splits where the group had held-out items
    ece_scaled_by_group: dict[str, float] = field(default_factory=dict)


def temperature_scaling(
    y: np.ndarray,
    p: np.ndarray,
    groups: np.ndarray | None = None,
    n_splits: int = 20,
    seed: int = 0,
) -> ScalingResult:
    """Fit T on a random half, evaluate ECE on the other half; repeat ``n_splits`` times.

    ``groups`` (e.g. the benchmark of each item) also yields the held-out scaled ECE per group,
    each split's temperature applied to that group's held-out items.
    """
    y = np.asarray(y, dtype=bool)
    p = np.asarray(p, dtype=float)
    n = y.size
    if n < 2:
        return ScalingResult(math.nan)
    rng = np.random.default_rng(seed)
    temps, before, after = [], [], []
    per_group: dict[str, list[float]] = {}
    for _ in range(n_splits):
        perm = rng.permutation(n)
        fit, held = perm[: n // 2], perm[n // 2:]
        t = fit_temperature(y[fit], p[fit])
        temps.append(t)
        ps = apply_temperature(p[held], t)
        before.append(ece(confidence(p[held]), correct_by_p(y[held], p[held])))
        after.append(ece(confidence(ps), correct_by_p(y[held], ps)))
        if groups is not None:
            g_held = np.asarray(groups)[held]
            for g in np.unique(g_held):
                m = g_held == g
                per_group.setdefault(str(g), []).append(ece(confidence(ps[m]), correct_by_p(y[held][m], ps[m])))
    return ScalingResult(
        temperature=float(np.mean(temps)),
        temperatures=temps,
        ece_before=float(np.mean(before)),
        ece_scaled=float(np.mean(after)),
        ece_scaled_by_group={g: float(np.mean(v)) for g, v in per_group.items()},
    )
