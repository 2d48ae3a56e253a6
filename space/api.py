"""Named API endpoints of the Space (gradio_client / HTTP): raw numbers, the displayed table,
one page of items, judge agreement. Registered inside the Blocks by build_app."""
from __future__ import annotations

import gradio as gr

from space import versions
from space.data import records
from space.items import ALL
from space.memo import Memo
from space.state import PAGE_SIZE, Holder
from space.table import format_table


TABLE_ENTRIES = 256  # (data version, version shown, suite, judge): a few hundred rows of strings each


def register(holder: Holder) -> None:
    tables = Memo(TABLE_ENTRIES)

    def leaderboard(suite: str, judge: str) -> list[dict]:
        """Leaderboard rows (all columns, raw numbers) for one suite and judge, by raw rank."""
        return records(holder.board.rows(suite, judge))

    def leaderboard_table(suite: str, judge: str) -> dict:
        """The table as displayed: {"headers": [...], "data": [[str, ...], ...]}."""
        def compute():
            t = format_table(holder.board.rows(suite, judge), links=False)
            return list(t.columns), t.values.tolist()

        # the same for every visitor until the data changes: formatted once (keys carry the data version)
        headers, data = tables.get((holder.version, versions.shown(), suite, judge), compute)
        return {"headers": list(headers), "data": [list(row) for row in data]}

    def suites() -> dict:
        """{suite: [judge, ...]} for every suite in the data."""
        b = holder.board
        return {s: b.judges(s) for s in b.suites()}

    def primary_judges() -> dict:
        """{suite: {"judge": id, "reason": why}}: the judge each suite is shown under by default."""
        return {s: {"judge": j, "reason": why} for s, (j, why) in holder.board.primary.items()}

    def reload() -> dict:
        """Re-read the data folder (what the Refresh button does); returns {suite: [judge, ...]}."""
        holder.reload()
        return suites()

    def items(suite: str, model: str = ALL, label: str = ALL, category: str = ALL, page: int = 1,
              judge: str = ALL) -> dict:
        """One page of per-item records: {"total": n, "rows": [...]}."""
        rows, total = holder.items.page(suite, model, judge, label, category, int(page), PAGE_SIZE)
        return {"total": total, "rows": records(rows)}

    def judges(suite: str) -> str:
        """Judge agreement for a suite (Markdown), computed from its per-item records."""
        from space.tabs.judges import agreement_markdown, board_training

        frame = holder.items.suite_frame(suite)
        judges = sorted(str(j) for j in frame["judge_id"].dropna().unique())
        return agreement_markdown(frame, suite, judges, board_training(holder.board, judges))

    gr.api(leaderboard, api_name="leaderboard")
    gr.api(reload, api_name="reload")
    gr.api(leaderboard_table, api_name="table")
    gr.api(suites, api_name="suites")
    gr.api(primary_judges, api_name="primary_judges")
    gr.api(items, api_name="items")
    gr.api(judges, api_name="judges")
