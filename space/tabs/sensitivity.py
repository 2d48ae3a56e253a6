"""Rank sensitivity tab: each model's rank under each ambiguity policy (rows as filtered on the Leaderboard tab)."""
from __future__ import annotations

import gradio as gr

from space.figures import rank_sensitivity_figure
from space.tabs.base import Ctx, TabView
from space.tabs.leaderboard import FILTER_KEYS, shown_rows


def build(ctx: Ctx) -> TabView:
    plot = gr.Plot(None, label="Rank per ambiguity policy", format="png", elem_id="rank-sensitivity")

    def update(suite, judge, values):
        return (rank_sensitivity_figure(shown_rows(ctx.holder.board, suite, judge, values)),)

    return TabView("sensitivity", [], [plot], update, reads=set(FILTER_KEYS), lazy=True)
