"""Judges tab: agreement of every pair of judges of the suite (paper 1 Table 5), each pair's
confusion matrix, and the same rates per model — which models do the judges disagree on?"""
from __future__ import annotations

import gradio as gr
import pandas as pd

from space.agreement import PER_MODEL_COLUMNS, SCORE_NAMES, judge_pairs, pair_stats, per_model
from space.data import md_escape
from space.tabs.base import Ctx, TabView


def pct(v) -> str:
    return "—" if v is None or v != v else f"{100 * float(v):.1f}%"


def num(v) -> str:
    return "—" if v is None or v != v else f"{float(v):.3f}"


def confusion_title(a: str, b: str) -> str:
    return f"Confusion: {a} (rows) × {b} (columns)"


def agreement_markdown(frame: pd.DataFrame, suite: str | None, judges: list[str]) -> str:
    """Every pair's rates and its confusion matrix (rows judge A, columns judge B), as Markdown."""
    if not suite:
        return "No suite selected."
    if len(judges) < 2:
        return (f"Suite **{md_escape(suite)}** has records from {len(judges)} judge(s); agreement needs two judges "
                "that scored the same items.")
    lines = [f"### Judge agreement on **{md_escape(suite)}**", "",
             "| judge A | judge B | paired items | exact agreement | weighted κ | boundary (0.5 vs 0/1) | "
             "contradiction (0 vs 1) | AR A | AR B | failed A | failed B |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    matrices = []
    for a, b in judge_pairs(judges):
        s = pair_stats(frame, a, b)
        if s is None:
            lines.append(f"| {md_escape(a)} | {md_escape(b)} | 0 (no item scored by both) | | | | | | | | |")
            continue
        lines.append("| " + " | ".join([md_escape(a), md_escape(b), str(s["n"]), pct(s["exact_agreement"]),
                                         num(s["kappa_linear"]), pct(s["boundary_rate"]), pct(s["contradiction_rate"]),
                                         pct(s["ar_a"]), pct(s["ar_b"]), str(s["n_failed_a"]), str(s["n_failed_b"])]) + " |")
        matrices.append((a, b, s["confusion"]))
    for a, b, m in matrices:
        lines += ["", f"#### {md_escape(confusion_title(a, b))}", "",
                  f"| {md_escape(a)} ↓ / {md_escape(b)} → | " + " | ".join(SCORE_NAMES) + " |", "|---|---|---|---|"]
        lines += [f"| {name} | " + " | ".join(str(int(v)) for v in row) + " |" for name, row in zip(SCORE_NAMES, m)]
    return "\n".join(lines)


def per_model_table(frame: pd.DataFrame, judges: list[str]) -> pd.DataFrame:
    parts = [per_model(frame, a, b) for a, b in judge_pairs(judges)]
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=PER_MODEL_COLUMNS)
    out = table.astype(object)
    for col in ("exact", "boundary", "contradiction"):
        out[col] = [pct(v) for v in table[col]]
    out["κ_linear"] = [num(v) for v in table["κ_linear"]]
    out["paired items"] = [str(int(v)) for v in table["paired items"]]
    return out.astype(str) if len(out) else pd.DataFrame(columns=PER_MODEL_COLUMNS)


def trust_markdown() -> str:
    """The offline judges' cards (toolkit/stages/judging/judge_cards.py): measured agreement with people, not typed."""
    from toolkit.stages.judging.judge_cards import render_cards

    return ("Each offline judge measured against people's labels on answers it was not trained on "
            "(figures written by the judges' training benches; LLM judges get theirs from `slmboard agreement`).\n\n"
            + render_cards())


def build(ctx: Ctx) -> TabView:
    with gr.Accordion("How far to trust this judge: offline judges vs people", open=False):
        gr.Markdown(trust_markdown(), elem_id="judges-trust")
    md = gr.Markdown("Open this tab to compute judge agreement for the selected suite.", elem_id="judges-agreement")
    gr.Markdown("#### Per model: where do the judges disagree?")
    table = gr.Dataframe(pd.DataFrame(columns=PER_MODEL_COLUMNS), datatype="str", interactive=False,
                         elem_id="judges-per-model", show_label=False, max_height=1600)

    def update(suite, judge, values):
        h = ctx.holder
        frame = h.items.suite_frame(suite)
        judges = sorted(str(j) for j in frame["judge_id"].dropna().unique())
        note = f"\n\n**Records not shown:** {md_escape(h.items.error)}" if h.items.error else ""
        return agreement_markdown(frame, suite, judges) + note, per_model_table(frame, judges)

    return TabView("judges", [], [md, table], update, lazy=True, memo=True)
