"""Moderators tab (paper 2, Safety-Flag): moderators ranked by macro-F1 with FAR / miss / error
direction / ECE / AURC side by side, reliability diagrams, risk-coverage curves and the cost map.

Reads the dataset's ``moderation`` config through the data layer (``toolkit.data.reading``) and computes
the report with ``toolkit.stages.moderation`` (numpy / pandas / scipy; no torch). Every data string
reaches the browser as a Dataframe cell of type "str" or inside a matplotlib PNG: no HTML from data.
"""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from toolkit.core.defaults import MODERATION_N_BOOTSTRAP

POOLED = "pooled"
MACRO = "macro"  # the leaderboard row: mean over benchmarks (AURC, risk pooled), as Safety-Flag's release
HEADERS = ["Rank", "Moderator", "n", "Macro-F1 [95% CI]", "FAR [95% CI]", "Miss [95% CI]", "Error direction",
           "ECE [95% CI]", "ECE verbal", "ECE flag", "ECE no-flag", "AURC", "Risk@50%", "Risk@50% random", "T",
           "ECE held-out", "ECE scaled"]
ABOUT = f"""**Moderator reliability** (Safety-Flag protocol): each moderator decides *flag* / *do not flag* on
balanced items. **FAR** = false alarms / benign items; **Miss** = misses / harmful items; **error direction** =
FAR − Miss (> 0 over-flags, < 0 under-flags). **ECE**: 10 equal-width bins over the confidence of the decided
option (token-logprob), bins (lo, hi]; **ECE verbal**: the same over the 1–10 verbalized confidence / 10. **T**:
one temperature per moderator (mean of 20 half-split fits; changes no decision); **ECE held-out** / **ECE scaled**:
on the other halves before / after scaling. **AURC** and **Risk@50%**: error among the most confident items (lower
is better) vs random abstention. Every moderator is scored on the items all ranked moderators answered. **macro**
(the ranking): mean over benchmarks, AURC and risk pooled; **pooled**: all items at once. Brackets: 95% bootstrap
over items ({MODERATION_N_BOOTSTRAP} resamples; per benchmark and pooled)."""
EMPTY = "No moderator records in this dataset yet (`slmboard moderate`, then submit)."


def _f(v: Any) -> str:
    try:
        v = float(v)
    except (TypeError, ValueError):
        return "—"
    return "—" if math.isnan(v) else f"{v:.3f}"


def _ci(r: pd.Series, k: str) -> str:
    v = _f(r[k])
    return v if v == "—" or _f(r[f"{k}_lo"]) == "—" else f"{v} [{_f(r[f'{k}_lo'])}, {_f(r[f'{k}_hi'])}]"


def load_records(data) -> pd.DataFrame | None:
    """The dataset's ModerationRecords (its ``moderation`` config), None when it has none (or no data)."""
    from toolkit.core.errors import RecordFileError
    from toolkit.data.reading import open_data
    from toolkit.data.reading.moderation import read_moderation

    try:
        files = open_data(data).published_moderation_files()
    except RecordFileError:  # no such folder: nothing to show
        return None
    return read_moderation(files) if files else None


def moderators_view(frame: pd.DataFrame, table: pd.DataFrame, benchmark: str = MACRO) -> pd.DataFrame:
    """Display rows for one benchmark (or macro / pooled), ranked by macro-F1, equal values sharing
    the best rank: all strings."""
    rows = table[table["benchmark"] == benchmark].sort_values("macro_f1", ascending=False, kind="stable")
    ranks = rows["macro_f1"].rank(method="min", ascending=False, na_option="bottom").astype(int)
    out = []
    for rank, (_, r) in zip(ranks, rows.iterrows()):
        out.append([str(rank), str(r["moderator_id"]), str(int(r["n"])), _ci(r, "macro_f1"), _ci(r, "far"),
                    _ci(r, "miss"), _f(r["error_direction"]), _ci(r, "ece"), _f(r["ece_verbal"]), _f(r["ece_flag"]),
                    _f(r["ece_noflag"]), _f(r["aurc"]), _f(r["risk_at_50"]), _f(r["risk_at_50_random"]),
                    _f(r["temperature"]), _f(r["ece_heldout"]), _f(r["ece_scaled"])])
    return pd.DataFrame(out, columns=HEADERS)


def compute(data, n_bootstrap: int = MODERATION_N_BOOTSTRAP):
    """(records, report table) or (None, None) when the dataset has no moderation config."""
    frame = load_records(data)
    if frame is None:
        return None, None
    from toolkit.data.reliability.report import compute_report

    return frame, compute_report(frame, n_bootstrap=n_bootstrap)


def figures(frame: pd.DataFrame, table: pd.DataFrame):
    from toolkit.data.reliability import figures as F
    from toolkit.data.reliability.stability import cost_curves

    rel = F.reliability_table(frame)
    rc = F.risk_coverage_table(frame)
    costs = cost_curves(table)
    return (F.reliability_figure(rel) if len(rel) else None,
            F.risk_coverage_figure(rc, table) if len(rc) else None,
            F.cost_map_figure(costs) if len(costs) else None)


def build_moderators_tab(data) -> None:
    """Add the tab's components to the enclosing gradio Blocks/Tab context."""
    import gradio as gr

    frame, table = compute(data)
    if frame is None:
        gr.Markdown(EMPTY, elem_id="moderators-empty")
        return
    benchmarks = [MACRO, POOLED] + sorted(b for b in table["benchmark"].unique() if b not in (MACRO, POOLED))
    with gr.Row():
        bench_dd = gr.Dropdown(benchmarks, value=MACRO, label="Benchmark", elem_id="moderators-benchmark")
    view = gr.Dataframe(moderators_view(frame, table), headers=HEADERS, datatype="str", interactive=False,
                        elem_id="moderators-table", show_label=False)
    bench_dd.change(lambda b: moderators_view(frame, table, b), inputs=bench_dd, outputs=view)
    gr.Markdown(ABOUT)
    rel, rc, cost = figures(frame, table)
    with gr.Row():
        gr.Plot(rel, label="Reliability diagram", format="png", elem_id="moderators-reliability")
        gr.Plot(rc, label="Risk-coverage", format="png", elem_id="moderators-risk-coverage")
    gr.Plot(cost, label="Cost map: cheapest moderator per prevalence π and cost ratio λ", format="png",
            elem_id="moderators-cost-map")


def build(ctx):
    """The app's tab contract (space/tabs/base.py); this tab reads its data once, at build time."""
    from space.data import md_escape
    from space.tabs.base import TabView

    import gradio as gr

    try:
        board = ctx.holder.board
        build_moderators_tab(board.dataset or board.data_dir)
    except Exception as exc:  # this tab's failure must not take the page down
        gr.Markdown(f"{EMPTY}\n\n(moderators tab failed: {md_escape(type(exc).__name__)}: {md_escape(str(exc))})")
    return TabView("moderators")
