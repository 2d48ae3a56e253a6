"""The leaderboard table as displayed: formatting of every cell, column groups that can be shown or
hidden, and model ids as links (pure pandas; no gradio, testable alone).

Escaping: every cell is a string. The Model column is Markdown built only from `md_escape`d text
and, for ids shaped like a Hub repo id (letters, digits, `._-` and one `/`), a link to the model
page; nothing else in the table is Markdown.
"""
from __future__ import annotations

import re
from typing import Any

import pandas as pd

from schemas import POLICIES
from schemas.display import as_number, cost_cell, coverage_text
from space.data import md_escape
from toolkit.data.scoring.identity import model_label, models_with_several_revisions

DIGITS = 3  # scores: ranks are computed at full precision, so 2 digits would show false ties
DASH = "—"
HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
HUB_MODEL_URL = "https://huggingface.co/{}"

#: Column groups in display order; "intervals" adds brackets to the score cells instead of columns.
GROUPS = ("raw", "adjusted", "policy ranks", "intervals", "coverage", "details")
DEFAULT_GROUPS = ("raw", "adjusted", "policy ranks", "intervals", "coverage")
GROUP_COLUMNS: dict[str, list[str]] = {
    "raw": ["S_raw", "HCR", "AR", "SRR"],
    "adjusted": ["S_adj", "Rank adj", "Δ adj"],
    "policy ranks": [*(f"Rank {p}" for p in POLICIES), "Rank range", "Rank UB", "Could be rank"],
    "coverage": ["Coverage"],
    "details": ["Scored", "Failed", "Undecided", "Revision", "Cost"],
}
# px per column (wrapped headers and cells): the Model column wraps long ids instead of cutting them
WIDTHS = {"Rank": 48, "Model": 230, "S_raw": 150, "S_adj": 150, "HCR": 58, "AR": 54, "SRR": 58, "Rank adj": 52,
          "Δ adj": 50, "Rank range": 56, "Rank UB": 52, "Could be rank": 60, "Coverage": 92, "Scored": 58, "Failed": 54,
          "Undecided": 70, "Revision": 96, "Cost": 150}
POLICY_WIDTH = 78


def fmt_score(v: Any, lo: Any = None, hi: Any = None) -> str:
    v, lo, hi = as_number(v), as_number(lo), as_number(hi)
    if v is None:
        return DASH
    if lo is None or hi is None:
        return f"{v:.{DIGITS}f}"
    return f"{v:.{DIGITS}f} [{lo:.{DIGITS}f}, {hi:.{DIGITS}f}]"


def fmt_rank(v: Any) -> str:
    v = as_number(v)
    return DASH if v is None else str(int(v))


def fmt_delta(v: Any) -> str:
    v = as_number(v)
    if v is None:
        return DASH
    v = int(v)
    return f"▲{v}" if v > 0 else f"▼{-v}" if v < 0 else "0"


def fmt_rank_span(best: Any, worst: Any) -> str:
    """The ranks a model cannot be told apart from (rank_best..rank_worst): "2–4", "1" when it stands alone,
    a dash when the row has none (no bootstrap, or a board ranked before the columns existed)."""
    best, worst = as_number(best), as_number(worst)
    if best is None or worst is None:
        return DASH
    return str(int(best)) if int(best) == int(worst) else f"{int(best)}–{int(worst)}"


def fmt_share(v: Any) -> str:
    v = as_number(v)
    return DASH if v is None else f"{100 * v:.1f}%"


def fmt_coverage(v: Any) -> str:
    """'100%' for a complete run, '62.5% (partial)' for a run that judged only part of the suite."""
    return coverage_text(v, dash=DASH)


def model_cell(model_id: str, revision: Any = None, several: bool = False) -> str:
    """Markdown for the Model column: a Hub id links to its model page, with the revision as the
    link title (shown on hover); any other id is shown as escaped text. ``several``: the model has rows
    at more than one revision, so the text names this row's revision too."""
    text = md_escape(model_label(model_id, revision, {model_id} if several else set()))
    if not HUB_ID.match(model_id):
        return text
    title = f' "revision {revision}"' if isinstance(revision, str) and re.fullmatch(r"[\w.-]+", revision) else ""
    return f"[{text}]({HUB_MODEL_URL.format(model_id)}{title})"


def headers(groups: tuple[str, ...] | list[str] = DEFAULT_GROUPS, has_coverage: bool = True) -> list[str]:
    cols = ["Rank", "Model"]
    for g in GROUPS:
        if g in groups and g in GROUP_COLUMNS and (g != "coverage" or has_coverage):
            cols += GROUP_COLUMNS[g]
    return cols


def column_widths(cols: list[str]) -> list[int]:
    return [WIDTHS.get(c, POLICY_WIDTH) for c in cols]


def _cells(r: dict, ci: bool, links: bool = True, several: set[str] = frozenset()) -> dict[str, str]:
    def score(k):
        return fmt_score(r[k], r.get(f"{k}_lo"), r.get(f"{k}_hi")) if ci else fmt_score(r[k])

    rev = r.get("model_revision")
    model = str(r["model_id"])
    cells = {"Rank": fmt_rank(r["rank_raw"]),
             "Model": model_cell(model, rev, model in several) if links else model_label(model, rev, several),
             "S_raw": score("s_raw"), "HCR": fmt_share(r["hcr"]), "AR": fmt_share(r["ar"]), "SRR": fmt_share(r["srr"]),
             "S_adj": score("s_adj"), "Rank adj": fmt_rank(r["rank_adj"]), "Δ adj": fmt_delta(r["delta_adj"]),
             "Rank range": fmt_rank(r["rank_range"]), "Rank UB": fmt_rank(r.get("rank_ub")),
             "Could be rank": fmt_rank_span(r.get("rank_best"), r.get("rank_worst")),
             "Coverage": fmt_coverage(r.get("coverage")), "Scored": fmt_rank(r["n_scored"]),
             "Failed": fmt_rank(r["n_failed"]), "Undecided": fmt_rank(as_number(r.get("n_undecided")) or 0), "Revision": str(rev)[:12] if isinstance(rev, str) else DASH,
             # what this row's judge cost the submission (its manifest's cost, through the submissions index)
             "Cost": cost_cell(r.get("cost"), str(r.get("judge_id")), dash=DASH)}
    cells.update({f"Rank {p}": fmt_rank(r[f"rank_{p}"]) for p in POLICIES})
    return cells


def has_coverage(rows: pd.DataFrame) -> bool:
    return "coverage" in rows.columns and pd.to_numeric(rows["coverage"], errors="coerce").notna().any()


def format_table(rows: pd.DataFrame, groups: tuple[str, ...] | list[str] = DEFAULT_GROUPS,
                 links: bool = True) -> pd.DataFrame:
    """The display table: all strings. The Model column is Markdown (see the module docstring);
    ``links=False`` gives the plain ids instead (API answers, which are data, not markup)."""
    cols = headers(groups, has_coverage(rows))
    ci = "intervals" in groups
    several = models_with_several_revisions(rows)
    out = [[c[k] for k in cols] for c in (_cells(r, ci, links, several) for r in rows.to_dict(orient="records"))]
    return pd.DataFrame(out, columns=cols, dtype=object)


def export_table(rows: pd.DataFrame, groups: tuple[str, ...] | list[str] = DEFAULT_GROUPS) -> pd.DataFrame:
    """What the download buttons write: the visible rows and column groups as raw numbers
    (model ids as plain text), in display order."""
    keep = ["rank_raw", "model_id", "model_revision"]
    raw = {"raw": ["s_raw", "hcr", "ar", "srr"], "adjusted": ["s_adj", "rank_adj", "delta_adj"],
           "policy ranks": [*(f"rank_{p}" for p in POLICIES), "rank_range", "rank_ub", "rank_best", "rank_worst"],
           "coverage": ["coverage"], "details": ["n_items", "n_scored", "n_failed", "n_undecided", "cost"]}
    for g in GROUPS:
        if g in groups and g in raw:
            keep += raw[g]
        if g == "intervals" and g in groups:
            keep += [c for c in ("s_raw_lo", "s_raw_hi", "s_adj_lo", "s_adj_hi") if c in rows.columns]
    keep = [c for c in dict.fromkeys(keep) if c in rows.columns]
    if not has_coverage(rows) and "coverage" in keep:
        keep.remove("coverage")
    return rows[keep].reset_index(drop=True)
