"""The leaderboard figures (the Space's, and the ones `recompute` commits) as matplotlib Figures (Figure, not
pyplot: no global state across threads). Model ids are drawn in full; "$" is escaped so a name is never read as
mathtext."""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from schemas import LABEL_COLORS, POLICIES
from schemas.display import POLICY_SHORT, as_number

#: the columns each figure draws (the key of its cached PNG: space/plot_cache.py)
LABEL_MIX_COLUMNS = ["model_id", "hcr", "ar", "srr"]
RANK_SENSITIVITY_COLUMNS = ["model_id", *(f"rank_{p}" for p in POLICIES)]
SCORES_CI_COLUMNS = ["model_id", *(f"{m}{s}" for m in ("s_raw", "s_adj") for s in ("", "_lo", "_hi"))]


def plot_label(name: str) -> str:
    return str(name).replace("$", r"\$")


Drawing = Callable[[Figure, pd.DataFrame], None]  # draws the rows (one per model) on a figure
FigureOf = Callable[[pd.DataFrame], "Figure | None"]  # the figure of the rows; None for no rows


def _per_model_figure(base_height: float, per_model: float) -> Callable[[Drawing], FigureOf]:
    """Makes a drawing of ``rows`` (one row per model) a figure function: None for no rows, otherwise a 10-inch-wide
    Figure whose height grows with the number of models (1 to dozens), drawn on, with top and right spines hidden."""
    def wrap(draw: Drawing) -> FigureOf:
        def figure(rows: pd.DataFrame) -> Figure | None:
            if rows.empty:
                return None
            fig = Figure(figsize=(10, base_height + per_model * len(rows)), dpi=100, layout="constrained")
            draw(fig, rows)
            for ax in fig.axes:
                ax.spines[["top", "right"]].set_visible(False)
            return fig

        figure.__name__, figure.__qualname__, figure.__doc__ = draw.__name__, draw.__qualname__, draw.__doc__
        return figure

    return wrap


@_per_model_figure(1.3, 0.32)
def label_mix_figure(fig: Figure, rows: pd.DataFrame) -> None:
    """Stacked horizontal bars of harmful / ambiguous / safe shares, one bar per model, in table
    order (rank 1 at the top)."""
    n = len(rows)
    ax = fig.add_subplot()
    y = list(range(n))[::-1]  # first row on top
    left = [0.0] * n
    for label, col in (("harmful", "hcr"), ("ambiguous", "ar"), ("safe", "srr")):
        vals = [(as_number(v) or 0.0) for v in rows[col]]
        ax.barh(y, vals, left=left, color=LABEL_COLORS[label], label=label, height=0.72, edgecolor="white", linewidth=0.5)
        for yi, l0, v in zip(y, left, vals):
            if v >= 0.08:  # only label segments wide enough to hold the text
                ax.text(l0 + v / 2, yi, f"{100 * v:.0f}%", ha="center", va="center", fontsize=8,
                        color="black" if label == "ambiguous" else "white")
        left = [a + b for a, b in zip(left, vals)]
    ax.set_yticks(y, [plot_label(m) for m in rows["model_id"]], fontsize=9)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of scored items")
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False, fontsize=9)


@_per_model_figure(2.5, 0.18)
def rank_sensitivity_figure(fig: Figure, rows: pd.DataFrame) -> None:
    """One line per model: its rank under each ambiguity policy (rank 1 on top)."""
    ax = fig.add_subplot()
    xs = list(range(len(POLICIES)))
    for r in rows.to_dict(orient="records"):
        ys = [as_number(r.get(f"rank_{p}")) for p in POLICIES]
        ax.plot(xs, [float("nan") if y is None else y for y in ys], marker="o", linewidth=1.2, markersize=4,
                label=plot_label(r["model_id"]))
    ax.set_xticks(xs, [f"{p}\n({POLICY_SHORT[p]})" for p in POLICIES], fontsize=8)
    ax.invert_yaxis()
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # ranks are whole numbers
    ax.set_ylabel("rank (1 = safest)")
    ax.set_title("Rank under each treatment of the ambiguous label", fontsize=10)
    if len(rows) <= 30:
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7, frameon=False)


@_per_model_figure(1.4, 0.3)
def scores_ci_figure(fig: Figure, rows: pd.DataFrame) -> None:
    """S_raw and S_adj per model with their 95% bootstrap intervals, side by side, in table order."""
    n = len(rows)
    axes = fig.subplots(1, 2, sharey=True)
    y = np.arange(n)[::-1]
    for ax, metric, title in ((axes[0], "s_raw", "S_raw"), (axes[1], "s_adj", "S_adj")):
        vals, lo, hi = (_numbers(rows, c, n) for c in (metric, f"{metric}_lo", f"{metric}_hi"))
        drawn = ~np.isnan(vals)
        with_ci = drawn & ~np.isnan(lo) & ~np.isnan(hi)
        # one call per kind of point, not one per model: the same pixels, a fifth of the time to build
        if with_ci.any():
            v = vals[with_ci]
            ax.errorbar(v, y[with_ci], xerr=[v - lo[with_ci], hi[with_ci] - v], fmt="o", color="#1f4e79", capsize=3,
                        markersize=4)
        if (drawn & ~with_ci).any():
            ax.plot(vals[drawn & ~with_ci], y[drawn & ~with_ci], "o", color="#7f8c8d", markersize=4)
        ax.set_xlim(0, 1)
        ax.set_title(f"{title} with 95% interval", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y, [plot_label(m) for m in rows["model_id"]], fontsize=8)


def _numbers(rows: pd.DataFrame, column: str, n: int) -> np.ndarray:
    """The column as floats, NaN where there is no number (or no column)."""
    values = (as_number(v) for v in rows[column]) if column in rows.columns else [None] * n
    return np.array([np.nan if v is None else v for v in values], dtype=float)
