"""Reliability diagrams, risk-coverage curves and the cost map (matplotlib; no torch).

The ``*_table`` functions give the plotted numbers as frames (also written as CSV by the report
and read by the Space tab), so a figure never shows a number the tables do not contain.
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd

from . import metrics as M
from .report import POOLED, scored_items


def _scored(frame: pd.DataFrame) -> pd.DataFrame:
    """The report's scored items (common item set) that carry a logprob confidence."""
    f = scored_items(frame)
    return f[f["p_flag_logprob"].notna()]


def reliability_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Pooled reliability bins per moderator: bin, lo, hi, count, confidence, accuracy."""
    rows = []
    for moderator, g in _scored(frame).groupby("moderator", sort=True):
        y = (g["gold"] == "flag").to_numpy()
        p = g["p_flag_logprob"].to_numpy(dtype=float)
        for b in M.reliability_bins(M.confidence(p), M.correct_by_p(y, p)):
            rows.append({"moderator_id": moderator, **b})
    return pd.DataFrame(rows, columns=["moderator_id", "bin", "lo", "hi", "count", "confidence", "accuracy"])


def risk_coverage_table(frame: pd.DataFrame, points: int = 50) -> pd.DataFrame:
    """Pooled risk-coverage curve per moderator, sampled at ``points`` coverages (plus k = n)."""
    rows = []
    for moderator, g in _scored(frame).groupby("moderator", sort=True):
        y = (g["gold"] == "flag").to_numpy()
        p = g["p_flag_logprob"].to_numpy(dtype=float)
        cov, risk = M.risk_coverage(M.confidence(p), M.correct_by_p(y, p))
        idx = np.unique(np.clip(np.round(np.linspace(0, len(cov) - 1, points)).astype(int), 0, len(cov) - 1))
        for i in idx:
            rows.append({"moderator_id": moderator, "coverage": float(cov[i]), "risk": float(risk[i])})
    return pd.DataFrame(rows, columns=["moderator_id", "coverage", "risk"])


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return buf.getvalue()


def reliability_figure(rel: pd.DataFrame):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.2, 4.2))
    ax = fig.add_subplot()
    ax.plot([0.5, 1], [0.5, 1], ls="--", color="grey", lw=1, label="perfect calibration")
    for moderator, g in rel.groupby("moderator_id", sort=True):
        ax.plot(g["confidence"], g["accuracy"], marker="o", label=str(moderator))
    ax.set(xlabel="confidence of the decided option", ylabel="accuracy", xlim=(0.45, 1.02), ylim=(-0.02, 1.02),
           title="Reliability diagram (token-logprob confidence)")
    ax.legend(fontsize=7, loc="upper left")
    return fig


def risk_coverage_figure(rc: pd.DataFrame, table: pd.DataFrame | None = None):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.2, 4.2))
    ax = fig.add_subplot()
    for moderator, g in rc.groupby("moderator_id", sort=True):
        line, = ax.plot(g["coverage"], g["risk"], label=str(moderator))
        if table is not None:
            r = table[(table["moderator_id"] == moderator) & (table["benchmark"] == POOLED)]
            if len(r):  # random abstention keeps the overall error rate at every coverage
                ax.axhline(float(r["risk_at_50_random"].iloc[0]), color=line.get_color(), ls=":", lw=1)
    ax.set(xlabel="coverage (share decided automatically)", ylabel="error rate among decided items",
           title="Risk-coverage (dotted: random abstention)", xlim=(0, 1.01), ylim=(0, None))
    ax.legend(fontsize=7)
    return fig


def cost_map_figure(costs: pd.DataFrame):
    """Which moderator has the lowest expected cost at each (prevalence π, cost ratio λ)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.2, 4.2))
    ax = fig.add_subplot()
    best = costs[costs["best"]].drop_duplicates(["prevalence", "cost_ratio"])
    pis = sorted(costs["prevalence"].unique())
    lams = sorted(costs["cost_ratio"].unique())
    names = sorted(costs["moderator_id"].unique())
    grid = np.full((len(lams), len(pis)), np.nan)
    for _, r in best.iterrows():
        grid[lams.index(r["cost_ratio"]), pis.index(r["prevalence"])] = names.index(r["moderator_id"])
    ax.imshow(grid, origin="lower", aspect="auto", cmap="tab10", vmin=0, vmax=9)
    for i in range(len(lams)):
        for j in range(len(pis)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, str(int(grid[i, j]) + 1), ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(pis)), [f"{p:g}" for p in pis], fontsize=7)
    ax.set_yticks(range(len(lams)), [f"{x:g}" for x in lams], fontsize=7)
    ax.set(xlabel="prevalence of harmful content π", ylabel="cost of a miss / cost of a false alarm λ",
           title="Cheapest moderator: " + "; ".join(f"{i + 1}={n}" for i, n in enumerate(names))[:120])
    return fig


def render_all(frame: pd.DataFrame, table: pd.DataFrame) -> dict[str, bytes]:
    from .stability import cost_curves

    out = {}
    rel = reliability_table(frame)
    if len(rel):
        out["reliability.png"] = _png(reliability_figure(rel))
        out["risk_coverage.png"] = _png(risk_coverage_figure(risk_coverage_table(frame), table))
    costs = cost_curves(table)
    if len(costs):
        out["cost_map.png"] = _png(cost_map_figure(costs))
    return out
