"""Label mix tab: harmful / ambiguous / safe shares per model (rows as filtered on the Leaderboard tab)."""
from __future__ import annotations

import gradio as gr

from toolkit.data.board_figures import LABEL_MIX_COLUMNS, label_mix_figure
from space.tabs.base import Ctx, TabView
from space.tabs.leaderboard import FILTER_KEYS, shown_rows


def build(ctx: Ctx) -> TabView:
    plot = gr.Plot(None, label="Label mix per model (share of scored items)", format="png", elem_id="label-mix")

    def update(suite, judge, values):
        rows = shown_rows(ctx.holder.board, suite, judge, values)
        return (ctx.holder.plots.get("label_mix", rows, LABEL_MIX_COLUMNS, label_mix_figure),)

    return TabView("labelmix", [], [plot], update, reads=set(FILTER_KEYS), lazy=True, memo=True)
