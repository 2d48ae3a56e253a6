"""Consistency of a leaderboard (paper 1, RQ1/RQ3): do suites, and ambiguity policies, agree on the order?

- :func:`suite_rank_correlations` — Kendall τ_b and Spearman ρ between every two (suite, judge)
  leaderboards over the models they share (paper 1: "rankings vary across suites").
- :func:`policy_rank_correlations` — the same between every two ambiguity treatments (the six
  policies and S_adj) within one (suite, judge) (paper 1 Fig 4).
- :func:`suite_instability` — a suite's instability = mean rank_range over its models (SPEC).

Inputs are leaderboard tables (:func:`toolkit.data.reading.leaderboard`). A pair with fewer
than ``min_models`` common models, or with a constant column, gets NaN statistics and a ``note``
saying why — never an unexplained NaN.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd

from schemas import POLICIES

MIN_MODELS = 3
TREATMENTS: tuple[str, ...] = tuple(f"score_{p}" for p in POLICIES) + ("s_adj",)
_CORR_COLUMNS = ["n_models", "kendall_tau", "kendall_p", "spearman_rho", "spearman_p", "note"]


def correlate(x: np.ndarray, y: np.ndarray, min_models: int = MIN_MODELS) -> dict:
    """Kendall τ_b and Spearman ρ of two score vectors over the entries defined in both."""
    from scipy import stats

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y = x[ok], y[ok]
    out = {"n_models": int(ok.sum()), "kendall_tau": np.nan, "kendall_p": np.nan, "spearman_rho": np.nan, "spearman_p": np.nan, "note": ""}
    if len(x) < min_models:
        out["note"] = f"too few models with both scores ({len(x)} < {min_models})"
        return out
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        out["note"] = "a score is constant over these models: rank correlation undefined"
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tau = stats.kendalltau(x, y)
        rho = stats.spearmanr(x, y)
    out.update(kendall_tau=float(tau.statistic), kendall_p=float(tau.pvalue), spearman_rho=float(rho.statistic), spearman_p=float(rho.pvalue))
    return out


def suite_rank_correlations(board: pd.DataFrame, metric: str = "s_raw", min_models: int = MIN_MODELS) -> pd.DataFrame:
    """One row per pair of (suite, judge) leaderboards: rank agreement of ``metric`` over shared models."""
    _need(board, ["suite", "judge_id", "model_id", metric])
    wide = board.pivot_table(index="model_id", columns=["suite", "judge_id"], values=metric, aggfunc="first")
    rows = []
    for a, b in itertools.combinations(sorted(wide.columns), 2):
        res = correlate(wide[a].to_numpy(), wide[b].to_numpy(), min_models)
        rows.append({"suite_a": a[0], "judge_a": a[1], "suite_b": b[0], "judge_b": b[1], "metric": metric, **res})
    return pd.DataFrame(rows, columns=["suite_a", "judge_a", "suite_b", "judge_b", "metric"] + _CORR_COLUMNS)


def policy_rank_correlations(board: pd.DataFrame, treatments: tuple[str, ...] = TREATMENTS, min_models: int = MIN_MODELS) -> pd.DataFrame:
    """Within each (suite, judge): rank agreement between every two ambiguity treatments."""
    _need(board, ["suite", "judge_id", "model_id", *treatments])
    rows = []
    for (suite, judge), block in board.groupby(["suite", "judge_id"], sort=True):
        for a, b in itertools.combinations(treatments, 2):
            res = correlate(block[a].to_numpy(dtype=np.float64, na_value=np.nan), block[b].to_numpy(dtype=np.float64, na_value=np.nan), min_models)
            rows.append({"suite": suite, "judge_id": judge, "treatment_a": a, "treatment_b": b, **res})
    return pd.DataFrame(rows, columns=["suite", "judge_id", "treatment_a", "treatment_b"] + _CORR_COLUMNS)


def suite_instability(board: pd.DataFrame) -> pd.DataFrame:
    """Per (suite, judge): mean / max rank_range over its ranked models, mean AR, models ranked."""
    _need(board, ["suite", "judge_id", "model_id", "rank_range", "ar"])
    rows = []
    for (suite, judge), block in board.groupby(["suite", "judge_id"], sort=True):
        rr = block["rank_range"].to_numpy(dtype=np.float64, na_value=np.nan)
        rr = rr[~np.isnan(rr)]
        ar = block["ar"].to_numpy(dtype=np.float64, na_value=np.nan)
        rows.append({
            "suite": suite,
            "judge_id": judge,
            "n_models": len(block),
            "n_ranked": len(rr),
            "instability": float(rr.mean()) if len(rr) else np.nan,
            "max_rank_range": float(rr.max()) if len(rr) else np.nan,
            "mean_ar": float(np.nanmean(ar)) if np.any(~np.isnan(ar)) else np.nan,
            "note": "" if len(rr) else "no model has a defined rank",
        })
    return pd.DataFrame(rows, columns=["suite", "judge_id", "n_models", "n_ranked", "instability", "max_rank_range", "mean_ar", "note"])


def _need(board: pd.DataFrame, columns) -> None:
    missing = [c for c in columns if c not in board.columns]
    if missing:
        raise ValueError(f"leaderboard lacks column(s): {', '.join(missing)}")
