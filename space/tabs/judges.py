"""Judges tab: at the top every judge against people's labels (κ_linear, exact, AR error, contradiction, the
judges' error correlation and n_eff); then agreement of every pair of judges of the suite (paper 1 Table 5), each
pair's confusion matrix, and the same rates per model — which models do the judges disagree on?"""
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


TABLE_COLUMNS = [*PER_MODEL_COLUMNS, "training data of"]


def _row(a: str, b: str, s: dict) -> str:
    return "| " + " | ".join([md_escape(a), md_escape(b), str(s["n"]), pct(s["exact_agreement"]),
                              num(s["kappa_linear"]), pct(s["boundary_rate"]), pct(s["contradiction_rate"]),
                              pct(s["ar_a"]), pct(s["ar_b"]), str(s["n_failed_a"]), str(s["n_failed_b"])]) + " |"


def training_note(frame: pd.DataFrame, trained: dict[str, dict[str, str]]) -> list[str]:
    """What each judge was trained on among this suite's models (read from the judge's card)."""
    models = set(frame["model_id"].astype(str))
    lines = []
    for judge, found in sorted(trained.items()):
        here = {m: f for m, f in found.items() if m in models}
        if here:
            listed = ", ".join(f"{md_escape(m)} ({md_escape(f)})" for m, f in here.items())
            lines.append(f"**Training data.** {md_escape(judge)} was trained on the answers of {listed}, as its card "
                         "lists them: its agreement on those models is not a held-out result. The rows *held out* "
                         "below leave them out; the per-model table marks them.")
    return lines


def agreement_markdown(frame: pd.DataFrame, suite: str | None, judges: list[str],
                       trained: dict[str, dict[str, str]] | None = None) -> str:
    """Every pair's rates and its confusion matrix (rows judge A, columns judge B), as Markdown; ``trained``
    ({judge: {model: file}}): the models a judge was trained on, marked and left out of a *held out* row."""
    if not suite:
        return "No suite selected."
    trained = trained or {}
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
        lines.append(_row(a, b, s))
        matrices.append((a, b, s["confusion"]))
        seen = set(trained.get(a, {})) | set(trained.get(b, {}))
        held = frame[~frame["model_id"].astype(str).isin(seen)] if seen else None
        h = pair_stats(held, a, b) if held is not None and len(held) else None
        if h is not None:
            tag = f" (held out: {held['model_id'].nunique()} model(s))"
            lines.append(_row(a + (tag if a in trained else ""), b + (tag if b in trained else ""), h))
    notes = training_note(frame, trained)
    if notes:
        lines += ["", *notes]
    for a, b, m in matrices:
        lines += ["", f"#### {md_escape(confusion_title(a, b))}", "",
                  f"| {md_escape(a)} ↓ / {md_escape(b)} → | " + " | ".join(SCORE_NAMES) + " |", "|---|---|---|---|"]
        lines += [f"| {name} | " + " | ".join(str(int(v)) for v in row) + " |" for name, row in zip(SCORE_NAMES, m)]
    return "\n".join(lines)


def per_model_table(frame: pd.DataFrame, judges: list[str], trained: dict[str, dict[str, str]] | None = None) -> pd.DataFrame:
    trained = trained or {}
    parts = [per_model(frame, a, b) for a, b in judge_pairs(judges)]
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=PER_MODEL_COLUMNS)
    out = table.astype(object)
    out["training data of"] = [", ".join(j for j in (a, b) if m in trained.get(j, {}))
                               for a, b, m in zip(table["judge A"], table["judge B"], table["model"])]
    for col in ("exact", "boundary", "contradiction"):
        out[col] = [pct(v) for v in table[col]]
    out["κ_linear"] = [num(v) for v in table["κ_linear"]]
    out["paired items"] = [str(int(v)) for v in table["paired items"]]
    return out.astype(str) if len(out) else pd.DataFrame(columns=TABLE_COLUMNS)


def board_training(board, judges: list[str]) -> dict[str, dict[str, str]]:
    """{judge: {model: training file}} on this board (none when its manifests cannot be read)."""
    from space.training import training_models

    try:
        manifests = board.dataset.manifests if board.dataset is not None else []
    except Exception:  # a bad manifest is reported elsewhere; the tab still shows agreement
        manifests = []
    return training_models(manifests, judges)


def trust_markdown() -> str:
    """The offline judges' cards (toolkit/stages/judging/judge_cards.py): measured agreement with people, not typed."""
    from toolkit.stages.judging.judge_cards import render_cards

    return ("Each offline judge measured against people's labels on answers it was not trained on "
            "(figures written by the judges' training benches; LLM judges get theirs from `slmboard agreement`).\n\n"
            + render_cards())


def people_markdown(frame: pd.DataFrame, suite: str | None) -> str:
    """Every judge of the suite against each people judge of it (toolkit.data.scoring.against_people), as Markdown."""
    from toolkit.data.scoring.against_people import against_people

    if not suite:
        return ""
    blocks = against_people(frame).get(suite, {}) if len(frame) else {}
    if not blocks:
        return (f"### Every judge against people\n\nSuite **{md_escape(suite)}** has no people's labels (a judge "
                "whose id is named human or people, e.g. human-xstest): nothing to measure the judges against.")
    lines = []
    for people, block in blocks.items():
        lines += [f"### Every judge against people: **{md_escape(people)}** on {md_escape(suite)}", "",
                  "On the items both scored: κ_linear (linear-weighted Cohen's κ on 0 / 0.5 / 1), exact agreement, "
                  "AR error (the judge's ambiguity rate − people's) and contradiction (one says 0, the other 1).", "",
                  "| judge | items both scored | κ_linear | exact | AR error | contradiction |", "|---|---|---|---|---|---|"]
        for judge, m in block["judges"].items():
            lines.append(f"| {md_escape(judge)} | {m['n']} | {num(m['kappa_linear'])} | {pct(m['exact_agreement'])} | "
                         f"{100 * m['ar_error']:+.1f} pts | {pct(m['contradiction_rate'])} |")
        for panel in block["panels_with_people"]:
            lines.append(f"| {md_escape(panel)} (holds {md_escape(people)}'s labels: left out) | | | | | |")
        corr = block["error_correlation"]
        if corr["pairs"]:
            lines += ["", "**Error correlation**: φ between two judges' “disagrees with people” on the items all three "
                      "scored.", "", "| judge A | judge B | items | φ |", "|---|---|---|---|"]
            lines += [f"| {md_escape(x['judge_a'])} | {md_escape(x['judge_b'])} | {x['n']} | {num(x['phi'])} |"
                      for x in corr["pairs"]]
            lines += ["", f"Mean φ = {num(corr['mean_phi'])} over {corr['n_judges']} judges: they are worth "
                      f"n_eff = {num(corr['n_eff'])} independent judges (n_eff = n / (1 + (n − 1)·mean φ))."]
        lines.append("")
    return "\n".join(lines).rstrip()


def alpha_markdown(root, suite: str | None) -> str:
    """People's agreement with each other on the suite (Krippendorff's alpha of each people judge's votes)."""
    from toolkit.data.reading.people import people_agreement

    rows = [p for p in people_agreement(root) if p.suite == suite] if root and suite else []
    return "\n".join(f"People's agreement with each other, **{md_escape(p.judge_id)}**: Krippendorff's α (ordinal) = "
                     f"{num(p.alpha)} on {p.n_items} answers labelled by {p.n_people} people." for p in rows)


def build(ctx: Ctx) -> TabView:
    people_md = gr.Markdown("", elem_id="judges-people")
    with gr.Accordion("How far to trust this judge: offline judges vs people", open=False):
        gr.Markdown(trust_markdown(), elem_id="judges-trust")
    md = gr.Markdown("Open this tab to compute judge agreement for the selected suite.", elem_id="judges-agreement")
    gr.Markdown("#### Per model: where do the judges disagree?")
    table = gr.Dataframe(pd.DataFrame(columns=TABLE_COLUMNS), datatype="str", interactive=False,
                         elem_id="judges-per-model", show_label=False, max_height=1600)

    def update(suite, judge, values):
        h = ctx.holder
        frame = h.items.suite_frame(suite)
        judges = sorted(str(j) for j in frame["judge_id"].dropna().unique())
        note = f"\n\n**Records not shown:** {md_escape(h.items.error)}" if h.items.error else ""
        trained = board_training(h.board, judges)
        alpha = alpha_markdown(getattr(h.board, "data_dir", None), suite)
        return (people_markdown(frame, suite) + (f"\n\n{alpha}" if alpha else ""), agreement_markdown(frame, suite, judges, trained) + note,
                per_model_table(frame, judges, trained))

    return TabView("judges", [], [people_md, md, table], update, lazy=True, memo=True)
