"""Disagreements tab: the (model, item) pairs two chosen judges both scored with different scores
(boundary = 0.5 vs 0/1, contradiction = 0 vs 1), items where exactly one of them failed listed
apart, and for a chosen item every judge's verdict and reasoning side by side."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from space.agreement import KINDS, disagreements
from space.items import KEY
from space.tabs.base import Ctx, Param, TabView

LIST = ["item_id", "model_id", "judge A", "judge B", "kind"]
VERDICT_COLUMNS = ["judge", "label", "score", "status", "reason", "judge output"]


def _fmt(v) -> str:
    return "failed" if v is None or v != v else f"{float(v):g}"


def listing(pairs: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"item_id": pairs["item_id"].astype(str), "model_id": pairs["model_id"].astype(str),
                         "judge A": [_fmt(v) for v in pairs["score_a"]], "judge B": [_fmt(v) for v in pairs["score_b"]],
                         "kind": pairs["kind"].astype(str)}, columns=LIST).astype(str)


def verdicts(ctx: Ctx, suite: str, model: str, item: str) -> tuple[pd.DataFrame, str, str]:
    """Every judge's record of (model, item): label, score, reasoning; plus the prompt and response."""
    store = ctx.holder.items
    f = store.suite_frame(suite)
    rows = f[(f["model_id"] == model) & (f["item_id"] == item)]
    text = store.text(suite, rows[KEY].astype(str))
    merged = rows.astype({c: "object" for c in KEY}).merge(text.astype({c: "object" for c in KEY}), on=KEY, how="left")
    table = pd.DataFrame({"judge": merged["judge_id"].astype(str),
                          "label": [v if isinstance(v, str) else "failed" for v in merged["label"]],
                          "score": [_fmt(v) for v in merged["score"]],
                          "status": [str(v) if isinstance(v, str) else "—" for v in merged["judge_status"]],
                          "reason": [str(v) if isinstance(v, str) else "" for v in merged.get("judge_reason", [])],
                          "judge output": [str(v) if isinstance(v, str) else "" for v in merged.get("judge_raw", [])]},
                         columns=VERDICT_COLUMNS)
    first = merged.iloc[0] if len(merged) else {}
    prompt = f"{model} · {suite}/{item}\n\n{first.get('prompt') or ''}" if len(merged) else ""
    return table.astype(str), prompt, str(first.get("response") or "") if len(merged) else ""


def default_pair(judges: list[str]) -> tuple[str | None, str | None]:
    """The pair the tab opens on: people against slmboard's offline judge where the suite has both,
    else the first two judges by name."""
    from space.moves import offline_judges
    from toolkit.core.judge_names import is_people_judge

    people = next((j for j in judges if is_people_judge(j)), None)
    offline = offline_judges(judges)
    if people is not None and offline:
        return people, offline[0]
    return (judges[0] if judges else None), (judges[1] if len(judges) > 1 else None)


def build(ctx: Ctx) -> TabView:
    with gr.Row():
        judge_a = gr.Dropdown([], label="Judge A", elem_id="dis-judge-a")
        judge_b = gr.Dropdown([], label="Judge B", elem_id="dis-judge-b")
        kind = gr.Radio(list(KINDS), value=KINDS[0], label="Disagreement", elem_id="dis-kind")
    info = gr.Markdown("", elem_id="dis-info")
    table = gr.Dataframe(pd.DataFrame(columns=LIST), datatype="str", interactive=False, elem_id="dis-table",
                         show_label=False, max_height=500)
    gr.Markdown("#### One of the two judges failed (not counted as a disagreement)")
    failed = gr.Dataframe(pd.DataFrame(columns=LIST), datatype="str", interactive=False, elem_id="dis-failed",
                          show_label=False, max_height=300)
    gr.Markdown("#### Every judge's verdict on the selected item (click a row above)")
    side = gr.Dataframe(pd.DataFrame(columns=VERDICT_COLUMNS), datatype="str", interactive=False, wrap=True,
                        elem_id="dis-verdicts", show_label=False)
    with gr.Row():
        prompt = gr.Textbox(label="Prompt", lines=5, interactive=False, elem_id="dis-prompt")
        response = gr.Textbox(label="Response", lines=5, interactive=False, elem_id="dis-response")
    suite_state = gr.State(None)

    def update(suite, judge, values):
        frame = ctx.holder.items.suite_frame(suite)
        judges = sorted(str(j) for j in frame["judge_id"].dropna().unique())
        first_a, first_b = default_pair(judges)
        a = values.get("ja") if values.get("ja") in judges else first_a
        rest = [j for j in judges if j != a]
        b = values.get("jb") if values.get("jb") in rest else (first_b if first_b in rest else (rest[0] if rest else None))
        k = values.get("kind") if values.get("kind") in KINDS else KINDS[0]
        if a is None or b is None:
            empty = pd.DataFrame(columns=LIST)
            return (gr.update(choices=judges, value=a), gr.update(choices=judges, value=b), "This suite needs two judges.",
                    empty, empty, suite)
        dis, one = disagreements(frame, a, b, k)
        text = (f"{len(dis)} (model, item) pair(s) where **both** judges scored and the scores differ ({k}); "
                f"{len(one)} where exactly one failed.")
        return (gr.update(choices=judges, value=a), gr.update(choices=judges, value=b), text, listing(dis),
                listing(one), suite)

    def open_pair(suite, listing_value, evt: gr.SelectData):
        i = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
        data = listing_value if isinstance(listing_value, pd.DataFrame) else pd.DataFrame(listing_value)
        if i is None or i >= len(data):
            return pd.DataFrame(columns=VERDICT_COLUMNS), "", ""
        return verdicts(ctx, suite, str(data.iloc[i]["model_id"]), str(data.iloc[i]["item_id"]))

    for t in (table, failed):
        t.select(open_pair, [suite_state, t], [side, prompt, response], api_visibility="private")
    params = [Param("ja", judge_a, None, per_suite=True), Param("jb", judge_b, None, per_suite=True),
              Param("kind", kind, KINDS[0])]
    return TabView("disagreements", params, [judge_a, judge_b, info, table, failed, suite_state], update, lazy=True,
                   memo=True)
