"""Leaderboard tab: filters, column groups, the table, downloads and the S_raw/S_adj interval plot."""
from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr
import pandas as pd

from space.data import Board, md_escape
from space.moves import what_moves
from toolkit.data.board_figures import SCORES_CI_COLUMNS, scores_ci_figure
from space.table import DEFAULT_GROUPS, GROUPS, column_widths, export_table, format_table
from space.tabs.base import Ctx, Param, TabView
from space.texts import DEFINITIONS
from space.views import SIZES, SORTS, TUNED, families, filter_rows, sort_rows, with_metadata

FILTER_KEYS = ("family", "size", "tuned", "q", "sort", "cols")
CSS = ("#leaderboard-table { font-size: 12.5px; } #leaderboard-table * { font-size: inherit; } "
       # full model ids: wrap inside the cell, never cut with an ellipsis
       "#leaderboard-table td, #leaderboard-table th { white-space: normal !important; overflow-wrap: anywhere; "
       "text-overflow: clip !important; } "
       "#leaderboard-table td .cell-wrap, #leaderboard-table td span, #leaderboard-table td div "
       "{ white-space: normal !important; overflow: visible !important; text-overflow: clip !important; } ")


def shown_rows(board: Board, suite, judge, values: dict) -> pd.DataFrame:
    """The leaderboard rows after the tab's filters and sort (shared with the figure tabs)."""
    rows = board.rows(suite, judge)
    held = families(board.submissions)  # a family the board does not hold (a shared link's) filters nothing
    return sort_rows(filter_rows(with_metadata(rows, board.submissions), [f for f in values.get("family") or [] if f in held],
                                 values.get("size") or "any", values.get("tuned") or "any", values.get("q") or ""),
                     values.get("sort") or "rank (raw)")


def caption(board: Board, suite, judge, rows: pd.DataFrame, shown: int, moves: str = "") -> str:
    if board.empty:
        return board.message or ""
    if rows.empty:
        return f"No rows for suite {md_escape(suite or '?')} and judge {md_escape(judge or '?')}."
    n_items = int(pd.to_numeric(rows["n_items"], errors="coerce").max())
    failed = int(pd.to_numeric(rows["n_failed"], errors="coerce").fillna(0).sum())
    undecided = int(pd.to_numeric(rows["n_undecided"], errors="coerce").fillna(0).sum())  # an optional column of the board
    # a panel's items without a decision are neither failed nor scored: said beside the failed ones
    no_decision = f", {undecided} without a decision (a judge panel's rule)" if undecided else ""
    filt = "" if shown == len(rows) else f" Showing {shown} after filters."
    left_out = "".join(f"\n\n{md_escape(line)}" for line in board.left_out_of(suite))
    text = (f"**{md_escape(suite or '')}** judged by **{md_escape(judge or '')}**: {len(rows)} model(s), "
            f"up to {n_items} items each, {failed} failed judgment(s){no_decision} in total.{filt}{left_out}")
    smoke = smoke_note(suite)
    return text + (f"\n\n{smoke}" if smoke else "") + (f"\n\n{md_escape(moves)}" if moves else "")


def smoke_note(suite) -> str:
    """A suite written for demos and tests (not comparable with reported results) says so above its table."""
    from toolkit.stages.suites import SUITES

    if suite not in SUITES or SUITES.get(suite).comparable:
        return ""
    return f"*Smoke run* (not comparable with reported results): {md_escape(SUITES.get(suite).summary)}"


def table_update(rows: pd.DataFrame, groups, visible: bool = True) -> dict:
    t = format_table(rows, groups)
    # Model is Markdown (escaped text or a link to the Hub model page); every other cell is text
    types = ["markdown" if c == "Model" else "str" for c in t.columns]
    return gr.update(value=t, headers=list(t.columns), datatype=types, column_widths=column_widths(list(t.columns)),
                     visible=visible)


def build(ctx: Ctx) -> list[TabView]:
    board = ctx.holder.board
    with gr.Row():
        # a filter with no values (no submission names a family) is hidden, not shown empty
        family = gr.Dropdown(families(board.submissions), value=[], multiselect=True, label="Family", elem_id="family-filter",
                             visible=bool(families(board.submissions)))
        size = gr.Dropdown(list(SIZES), value="any", label="Size", elem_id="size-filter")
        tuned = gr.Dropdown(list(TUNED), value="any", label="Tuning", elem_id="tuned-filter")
        search = gr.Textbox(label="Search model", placeholder="e.g. smol", elem_id="search")
        sort = gr.Dropdown(list(SORTS), value="rank (raw)", label="Sort by", elem_id="sort-select")
    cols = gr.CheckboxGroup(list(GROUPS), value=list(DEFAULT_GROUPS), label="Column groups", elem_id="column-groups")
    cap = gr.Markdown("", elem_id="caption")
    table = gr.Dataframe(pd.DataFrame(), datatype="str", interactive=False, max_height=1200, pinned_columns=2,
                         wrap=True, visible=not board.empty, elem_id="leaderboard-table", label="Leaderboard", show_label=False)
    with gr.Row():
        download = gr.Button("Download table (CSV + parquet)", scale=0, min_width=260, elem_id="download-table")
        # shown once Download made the files: an empty file box would take a third of the first screen
        files = gr.File(label="Current table", file_count="multiple", interactive=False, elem_id="download-files", height=90,
                        visible=False)
    plot = gr.Plot(None, label="S_raw and S_adj with 95% intervals", format="png", elem_id="scores-ci")
    gr.Markdown(DEFINITIONS)

    def update(suite, judge, values):
        b = ctx.holder.board
        rows = b.rows(suite, judge)
        shown = shown_rows(b, suite, judge, values)
        moves = what_moves(rows, ctx.holder.items.suite_frame(suite), judge) if len(rows) > 1 else ""
        held = families(b.submissions)
        return (table_update(shown, values.get("cols") or [], visible=not b.empty),
                caption(b, suite, judge, rows, len(shown), moves),
                gr.update(choices=held, visible=bool(held),  # a family the board does not hold (a link's) is dropped
                          value=[f for f in values.get("family") or [] if f in held]))

    def update_plot(suite, judge, values):
        rows = shown_rows(ctx.holder.board, suite, judge, values)
        return (ctx.holder.plots.get("scores_ci", rows, SCORES_CI_COLUMNS, scores_ci_figure),)

    def write_files(suite, judge, *vals):
        values = dict(zip(FILTER_KEYS, vals))
        b = ctx.holder.board
        table = export_table(shown_rows(b, suite, judge, values), values["cols"] or [])
        folder = Path(tempfile.mkdtemp(prefix="slmboard-table-"))
        stem = f"leaderboard_{suite}_{judge}".replace("/", "_").replace(":", "_")
        table.to_csv(folder / f"{stem}.csv", index=False)
        table.to_parquet(folder / f"{stem}.parquet", index=False)
        return gr.update(value=[str(folder / f"{stem}.csv"), str(folder / f"{stem}.parquet")], visible=True)

    params = [Param("family", family, [], parse=lambda s: [x for x in s.split(",") if x]),
              Param("size", size, "any"), Param("tuned", tuned, "any"), Param("q", search, ""),
              Param("sort", sort, "rank (raw)", prepare=tuple(SORTS)),
              Param("cols", cols, list(DEFAULT_GROUPS), parse=lambda s: [x for x in s.split(",") if x in GROUPS])]
    view = TabView("leaderboard", params, [table, cap, family], update, memo=True)
    view.download = (download, files, write_files)  # wired by the app (needs the shared selectors)
    # the interval plot follows the table in a second event, so the table shows first (the landing view has
    # both baked into the page, see space/landing.py; a restored view computes both in one event)
    figure = TabView("leaderboard", [], [plot], update_plot, reads=set(FILTER_KEYS), deferred=True, memo=True)
    return [view, figure]
