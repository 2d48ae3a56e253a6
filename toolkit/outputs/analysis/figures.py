"""Figures of paper 1 as matplotlib Figures (the Space shows them; `analyze` saves them as PNG).

Every function takes tables (a leaderboard, item records, the analysis tables) and returns a
:class:`matplotlib.figure.Figure`; nothing here imports torch. When a table holds nothing to draw,
the figure says so in its body instead of raising.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from schemas import LABEL_COLORS, POLICIES

TREATMENT_LABELS = {
    "pessimistic": "0.5→0",
    "partial_low": "0.5→0.25",
    "midpoint": "0.5→0.5",
    "partial_high": "0.5→0.75",
    "optimistic": "0.5→1",
    "excluded": "excluded",
}


def _figure(width: float = 7.0, height: float = 4.5):
    from matplotlib.figure import Figure  # no pyplot: no global state, safe in a server thread

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _empty(message: str):
    fig = _figure(6, 2)
    ax = fig.add_subplot()
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True)
    return fig


def _select(board: pd.DataFrame, suite: str, judge: str | None) -> pd.DataFrame:
    block = board[board["suite"] == suite]
    if judge is not None:
        block = block[block["judge_id"] == judge]
    return block


def rank_trajectories(board: pd.DataFrame, suite: str, judge: str | None = None):
    """Paper Fig 4: each model's rank (1 = safest) under the six treatments of the 0.5 label."""
    block = _select(board, suite, judge)
    if block.empty:
        return _empty(f"no leaderboard rows for suite {suite!r}" + (f" and judge {judge!r}" if judge else ""))
    fig = _figure(8, 5)
    ax = fig.add_subplot()
    x = np.arange(len(POLICIES))
    for _, row in block.sort_values("rank_raw").iterrows():
        ranks = np.array([row[f"rank_{p}"] for p in POLICIES], dtype=np.float64)
        ax.plot(x, ranks, marker="o", linewidth=1.2, label=str(row["model_id"]).split("/")[-1])
    ax.set_xticks(x, [TREATMENT_LABELS[p] for p in POLICIES])
    ax.invert_yaxis()
    ax.set_ylabel("rank (1 = safest)")
    ax.set_title(f"Rank under ambiguity treatments — {suite}" + (f" ({judge})" if judge else ""))
    if len(block) <= 30:
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    return fig


def label_mix(board: pd.DataFrame, suite: str, judge: str | None = None):
    """Paper Fig 2: HCR / AR / SRR per model as stacked bars, with the mean score overlaid."""
    block = _select(board, suite, judge).dropna(subset=["ar"])
    if block.empty:
        return _empty(f"no scored leaderboard rows for suite {suite!r}")
    block = block.sort_values("s_raw")
    names = [str(m).split("/")[-1] for m in block["model_id"]]
    fig = _figure(8, max(3, 0.3 * len(block) + 1.5))
    ax = fig.add_subplot()
    left = np.zeros(len(block))
    for col, label in (("hcr", "harmful"), ("ar", "ambiguous"), ("srr", "safe")):
        vals = block[col].to_numpy(dtype=np.float64)
        ax.barh(names, vals, left=left, color=LABEL_COLORS[label], label=f"{label} ({col.upper()})")
        left += vals
    ax.plot(block["s_raw"].to_numpy(dtype=np.float64), names, "k|", markersize=12, label="mean score S_raw")
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of scored items")
    ax.set_title(f"Label mix per model — {suite}")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=4, frameon=False)
    return fig


def score_distributions(records: pd.DataFrame, judge: str | None = None):
    """Paper Fig 3: per suite, the share of items scored 0 / 0.5 / 1 (and failed); MD-Judge-style
    unsafe probabilities get their own histogram panel when records carry them. ``judge`` keeps
    that judge's records only (`analyze` draws one figure per judge: shares never mix judges)."""
    if judge is not None:
        records = records[records["judge_id"] == judge]
    if records.empty:
        return _empty("no item records" + (f" of judge {judge!r}" if judge else ""))
    suites = sorted(records["suite"].unique())
    has_prob = "unsafe_prob" in records.columns and records["unsafe_prob"].notna().any()
    fig = _figure(8, 4)
    axes = fig.subplots(1, 2 if has_prob else 1, squeeze=False)[0]
    ax = axes[0]
    width = 0.2
    x = np.arange(len(suites))
    score = records["score"].astype("float64")
    for k, (value, label) in enumerate(((0.0, "harmful"), (0.5, "ambiguous"), (1.0, "safe"), (None, "failed"))):
        shares = []
        for s in suites:
            sc = score[records["suite"] == s]
            shares.append(float(sc.isna().mean() if value is None else (sc == value).mean()))
        ax.bar(x + (k - 1.5) * width, shares, width, label=label, color=LABEL_COLORS.get(label, "#34495e"))
    ax.set_xticks(x, suites, rotation=30, ha="right")
    ax.set_ylabel("share of records")
    ax.set_title("Score distribution per suite" + (f" ({judge})" if judge else ""))
    ax.legend(fontsize=7)
    if has_prob:
        p = records["unsafe_prob"].dropna().to_numpy(dtype=np.float64)
        axes[1].hist(p, bins=20, range=(0, 1), color="#7f8c8d")
        axes[1].set_xlabel("judge unsafe probability (raw)")
        axes[1].set_title("Raw unsafe probabilities")
    return fig


def metric_associations(prompt_table: pd.DataFrame, correlations: pd.DataFrame, scope: str = "all suites", top: int = 3,
                        judge: str | None = None):
    """Paper Fig 5: prompt-level AR against the strongest FDR-kept positive (top row) and negative
    (bottom row) metrics; one point per prompt. ``judge`` keeps that judge's prompts and
    correlations (AR of two judges is never drawn together)."""
    if judge is not None:
        prompt_table = prompt_table[prompt_table["judge_id"] == judge]
        correlations = correlations[correlations["judge_id"] == judge]
    kept = correlations[(correlations["scope"] == scope) & correlations["kept"]]
    pos = kept[kept["pearson_r"] > 0].sort_values("pearson_r", ascending=False).head(top)
    neg = kept[kept["pearson_r"] < 0].sort_values("pearson_r").head(top)
    if pos.empty and neg.empty:
        return _empty(f"no metric is associated with prompt-level AR at q < 0.05 ({scope}{', ' + judge if judge else ''})")
    table = prompt_table if scope == "all suites" else prompt_table[prompt_table["suite"] == scope.split(":", 1)[1]]
    fig = _figure(3.2 * top, 6)
    axes = fig.subplots(2, top, squeeze=False)
    for r, chosen in enumerate((pos, neg)):
        for c in range(top):
            ax = axes[r][c]
            if c >= len(chosen):
                ax.axis("off")
                continue
            row = chosen.iloc[c]
            ax.scatter(table[row["metric"]], table["ar"], s=6, alpha=0.5)
            ax.set_xlabel(row["metric"])
            ax.set_ylabel("prompt-level AR")
            ax.set_title(f"r = {row['pearson_r']:.2f}, q = {row['q_value']:.1e}", fontsize=9)
    fig.suptitle(f"Strongest metric–AR associations ({scope}{', ' + judge if judge else ''})")
    return fig


def scores_with_ci(board: pd.DataFrame, suite: str, judge: str | None = None, metric: str = "s_raw"):
    """Scores with 95% bootstrap whiskers (``<metric>_lo``/``_hi``) and rank (UB) in the labels."""
    block = _select(board, suite, judge).dropna(subset=[metric])
    if block.empty:
        return _empty(f"no {metric} values for suite {suite!r}")
    lo_col, hi_col = f"{metric}_lo", f"{metric}_hi"
    has_ci = lo_col in block.columns and block[lo_col].notna().any()
    block = block.sort_values(metric)
    names = []
    for _, r in block.iterrows():
        ub = r.get("rank_ub")
        names.append(str(r["model_id"]).split("/")[-1] + (f"  (UB {int(ub)})" if ub is not None and not pd.isna(ub) else ""))
    vals = block[metric].to_numpy(dtype=np.float64)
    fig = _figure(7, max(3, 0.3 * len(block) + 1.5))
    ax = fig.add_subplot()
    if has_ci:
        lo = block[lo_col].to_numpy(dtype=np.float64)
        hi = block[hi_col].to_numpy(dtype=np.float64)
        ax.errorbar(vals, names, xerr=[vals - lo, hi - vals], fmt="o", capsize=3)
    else:
        ax.plot(vals, names, "o")
        ax.text(0.01, 0.01, "no bootstrap intervals in this table", transform=ax.transAxes, fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel(metric + (" with 95% bootstrap interval" if has_ci else ""))
    ax.set_title(f"{metric} per model — {suite}")
    return fig
