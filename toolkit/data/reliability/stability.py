"""How stable the moderator rankings are, and which moderator is cheapest where (paper §3, App. B, Fig. 9).

Rankings compare moderators on the *same* items: only (benchmark, item_id) pairs that every
moderator decided count here (the paper's intersection rule).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from . import metrics as M
from .report import moderator_key

RANKED_METRICS = ("macro_f1", "error_direction", "ece", "aurc")
#: Higher is better for macro-F1; lower is better for ECE and AURC; error direction is ranked by value.
_ASCENDING = {"macro_f1": False, "ece": True, "aurc": True, "error_direction": False}
DEFAULT_PREVALENCES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
DEFAULT_COST_RATIOS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)


def common_items(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows restricted to the (benchmark, item_id) pairs every moderator decided; adds ``moderator``."""
    f = frame[frame["decision"].notna()].assign(moderator=lambda x: moderator_key(x))
    n_mod = f["moderator"].nunique()
    counts = f.groupby(["benchmark", "item_id"])["moderator"].nunique()
    keep = counts[counts == n_mod].index
    return f.set_index(["benchmark", "item_id"]).loc[keep].reset_index()


def pooled_metrics(f: pd.DataFrame) -> pd.DataFrame:
    """Per moderator: macro_f1, error_direction, ece, aurc over the given rows."""
    rows = []
    for moderator, g in f.groupby("moderator", sort=True):
        y = (g["gold"] == "flag").to_numpy()
        d = (g["decision"] == "flag").to_numpy()
        row = {"moderator": moderator, **M.decision_metrics(y, d)}
        if g["p_flag_logprob"].notna().all():
            p = g["p_flag_logprob"].to_numpy(dtype=float)
            conf, corr = M.confidence(p), M.correct_by_p(y, p)
            row["ece"], row["aurc"] = M.ece(conf, corr), M.aurc(conf, corr)
        else:
            row["ece"] = row["aurc"] = math.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("moderator")


def _spearman(a: pd.Series, b: pd.Series) -> float:
    from scipy.stats import spearmanr

    joined = pd.concat([a, b], axis=1).dropna()
    if len(joined) < 3 or joined.iloc[:, 0].nunique() < 2 or joined.iloc[:, 1].nunique() < 2:
        return math.nan
    return float(spearmanr(joined.iloc[:, 0], joined.iloc[:, 1]).statistic)


def _compare(full: pd.DataFrame, part: pd.DataFrame) -> dict[str, float]:
    out = {f"rho_{m}": _spearman(full[m], part[m]) for m in RANKED_METRICS}
    same_sign = np.sign(full["error_direction"]) == np.sign(part["error_direction"].reindex(full.index))
    out["error_direction_sign_kept"] = float(same_sign.mean())
    return out


def leave_one_benchmark_out(frame: pd.DataFrame) -> pd.DataFrame:
    """For each benchmark dropped: Spearman ρ of each ranked metric vs all benchmarks, and the share
    of moderators whose error-direction sign is unchanged."""
    f = common_items(frame)
    full = pooled_metrics(f)
    rows = []
    for b in sorted(f["benchmark"].unique()):
        rest = f[f["benchmark"] != b]
        if rest.empty:
            continue
        rows.append({"dropped_benchmark": b, **_compare(full, pooled_metrics(rest))})
    return pd.DataFrame(rows)


def subsample_stability(
    frame: pd.DataFrame, sizes=(50, 100, 150), n_repeats: int = 100, seed: int = 0
) -> pd.DataFrame:
    """Draw ``n`` items per benchmark (the same items for every moderator), recompute, compare with
    the full ranking; mean over repeats. Sizes above a benchmark's item count take all its items."""
    f = common_items(frame)
    full = pooled_metrics(f)
    rng = np.random.default_rng(seed)
    key = (f["benchmark"] + "\x1f" + f["item_id"]).to_numpy()  # one string per (benchmark, item)
    items = {b: np.unique(key[(f["benchmark"] == b).to_numpy()]) for b in f["benchmark"].unique()}
    rows = []
    for n in sizes:
        results = []
        for _ in range(n_repeats):
            picks = [ids if n >= len(ids) else rng.choice(ids, size=n, replace=False) for ids in items.values()]
            results.append(_compare(full, pooled_metrics(f[np.isin(key, np.concatenate(picks))])))
        mean = pd.DataFrame(results).mean(numeric_only=True).to_dict()
        rows.append({"n_per_benchmark": n, "repeats": n_repeats, **mean})
    return pd.DataFrame(rows)


def cost_curves(
    table: pd.DataFrame,
    prevalences=DEFAULT_PREVALENCES,
    cost_ratios=DEFAULT_COST_RATIOS,
) -> pd.DataFrame:
    """Expected cost per item, π·λ·miss + (1 − π)·far, for each moderator's pooled row over a grid
    of prevalence π and cost ratio λ (a miss costs λ false alarms); ``best`` marks the cheapest."""
    pooled = table[table["benchmark"] == "pooled"]
    rows = []
    for pi in prevalences:
        for lam in cost_ratios:
            for _, r in pooled.iterrows():
                rows.append({"moderator_id": r["moderator_id"], "prevalence": pi, "cost_ratio": lam,
                             "expected_cost": M.expected_cost(r["far"], r["miss"], pi, lam)})
    out = pd.DataFrame(rows, columns=["moderator_id", "prevalence", "cost_ratio", "expected_cost"])
    if not out.empty:
        best = out.groupby(["prevalence", "cost_ratio"])["expected_cost"].transform("min")
        out["best"] = np.isclose(out["expected_cost"], best)
    else:
        out["best"] = pd.Series(dtype=bool)
    return out
