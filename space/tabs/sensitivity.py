"""Rank sensitivity tab: each model's rank under each ambiguity policy (rows as filtered on the Leaderboard tab), and
per judge: each model's rank under each judge of the suite, rank_range_judges, τ-b between judges and the suite's
mean judge vs mean policy rank range (:mod:`toolkit.data.scoring.judge_sensitivity`, on the suite's records)."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from toolkit.data.board_figures import RANK_SENSITIVITY_COLUMNS, rank_sensitivity_figure
from space.data import md_escape
from space.tabs.base import Ctx, TabView
from space.tabs.leaderboard import FILTER_KEYS, shown_rows


def _num(value) -> str:
    if value is None or value != value:
        return "—"
    return f"{float(value):g}" if float(value).is_integer() else f"{float(value):.3f}"


def per_judge_markdown(frame: pd.DataFrame, suite: str | None, judges: list[str]) -> str:
    """The per judge view of one suite as Markdown, from its checked records and the judges its leaderboard shows
    (a judge left out of the leaderboard is left out here; ``mean:`` rows are no judge of records)."""
    from toolkit.data.scoring.judge_sensitivity import (JudgeSensitivityOptions, chosen_judges,
                                                        frame_judge_sensitivity, rank_table)

    if not suite:
        return "No suite selected."
    compared = chosen_judges([j for j in judges if j in set(frame["judge_id"].astype(str))], JudgeSensitivityOptions())
    if len(compared) < 2:
        return (f"Suite **{md_escape(suite)}** has records from {len(compared)} judge(s) here: ranks per judge need "
                "two judges that scored the same items.")
    result = frame_judge_sensitivity(frame, JudgeSensitivityOptions(compared_judges=compared))
    (s,) = result.suites.itertuples()
    lines = [f"### Per judge on **{md_escape(suite)}**", "",
             f"On the {s.n_cells} (model, item) answers every judge scored: {s.n_models} model(s), {s.n_items} "
             f"item(s) ({s.models_dropped} model(s) and {s.items_dropped} item(s) not scored by every judge left "
             "out). All the suite's models, whatever the Leaderboard tab's filters.", "",
             "| | mean rank range over judges (S_raw) | (S_adj) | mean rank range over policies |", "|---|---|---|---|",
             f"| {md_escape(suite)} | {_num(s.mean_rank_range_judges)} | {_num(s.mean_rank_range_judges_adj)} | "
             f"{_num(s.mean_policy_rank_range)} |", "", "| judge A | judge B | τ-b (S_raw) | τ-b (S_adj) | note |",
             "|---|---|---|---|---|"]
    for (a, b), block in result.pairs.groupby(["judge_a", "judge_b"], sort=True):
        tau = block.set_index("metric")["kendall_tau_b"]
        note = "; ".join(dict.fromkeys(n for n in block["note"] if n))
        lines.append(f"| {md_escape(a)} | {md_escape(b)} | {_num(tau.get('s_raw'))} | {_num(tau.get('s_adj'))} | "
                     f"{md_escape(note)} |")
    table = rank_table(result.models, suite)
    lines += ["", "| " + " | ".join(md_escape(c) for c in table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(md_escape(v) if isinstance(v, str) else _num(v) for v in row) + " |"
              for row in table.itertuples(index=False)]
    return "\n".join(lines)


def build(ctx: Ctx) -> TabView:
    plot = gr.Plot(None, label="Rank per ambiguity policy", format="png", elem_id="rank-sensitivity")
    judges_md = gr.Markdown("Open this tab to rank the suite's models per judge.", elem_id="rank-sensitivity-judges")

    def update(suite, judge, values):
        rows = shown_rows(ctx.holder.board, suite, judge, values)
        h = ctx.holder
        note = f"\n\n**Records not shown:** {md_escape(h.items.error)}" if h.items.error else ""
        per_judge = per_judge_markdown(h.items.suite_frame(suite), suite, h.board.judges(suite)) + note
        return (h.plots.get("rank_sensitivity", rows, RANK_SENSITIVITY_COLUMNS, rank_sensitivity_figure), per_judge)

    return TabView("sensitivity", [], [plot, judges_md], update, reads=set(FILTER_KEYS), lazy=True, memo=True)
