"""Rank sensitivity tab: each model's rank under each ambiguity policy (rows as filtered on the Leaderboard tab)."""
from __future__ import annotations

import gradio as gr

from toolkit.data.board_figures import RANK_SENSITIVITY_COLUMNS, rank_sensitivity_figure
from space.tabs.base import Ctx, TabView
from space.tabs.leaderboard import FILTER_KEYS, shown_rows


def build(ctx: Ctx) -> TabView:
    plot = gr.Plot(None, label="Rank per ambiguity policy", format="png", elem_id="rank-sensitivity")

    def update(suite, judge, values):
        rows = shown_rows(ctx.holder.board, suite, judge, values)
        return (ctx.holder.plots.get("rank_sensitivity", rows, RANK_SENSITIVITY_COLUMNS,
                                     rank_sensitivity_figure),)

    return TabView("sensitivity", [], [plot], update, reads=set(FILTER_KEYS), lazy=True, memo=True)
