"""Items tab: a paginated browser of per-item records (naturally sorted ids) filtered by model,
label and category; click a row to read the prompt, the response and the judge output."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from space.items import ALL, LABELS, LIST_COLUMNS, list_view
from space.state import PAGE_SIZE
from space.tabs.base import Ctx, Param, TabView


def _page(s: str) -> int:
    try:
        return max(1, int(s))
    except ValueError:
        return 1


def detail_texts(r: dict) -> tuple[str, str, str]:
    judge_text = str(r.get("judge_raw") or "")
    if r.get("judge_reason"):
        judge_text += f"\n\nreason: {r['judge_reason']}"
    head = f"{r.get('model_id')} · {r.get('suite')}/{r.get('item_id')} · {r.get('judge_id')} → {r.get('label') or 'failed'}"
    return f"{head}\n\n{r.get('prompt') or ''}", str(r.get("response") or ""), judge_text


def build(ctx: Ctx) -> TabView:
    with gr.Row():
        model = gr.Dropdown([ALL], value=ALL, label="Model", elem_id="items-model")
        label = gr.Dropdown([ALL, *LABELS], value=ALL, label="Label", elem_id="items-label")
        cat = gr.Dropdown([ALL], value=ALL, label="Category", elem_id="items-category")
        page = gr.Number(1, label="Page", precision=0, minimum=1, elem_id="items-page")
        prev = gr.Button("◀ Prev", scale=0, min_width=80, elem_id="items-prev")
        nxt = gr.Button("Next ▶", scale=0, min_width=80, elem_id="items-next")
    info = gr.Markdown("", elem_id="items-info")
    table = gr.Dataframe(pd.DataFrame(columns=LIST_COLUMNS), datatype="str", interactive=False,
                         elem_id="items-table", show_label=False, max_height=600)
    rows_state = gr.State([])
    with gr.Row():
        d_prompt = gr.Textbox(label="Prompt", lines=6, interactive=False, elem_id="item-prompt")
        d_response = gr.Textbox(label="Response", lines=6, interactive=False, elem_id="item-response")
        d_judge = gr.Textbox(label="Judge output", lines=6, interactive=False, elem_id="item-judge")

    def update(suite, judge, values):
        store = ctx.holder.items
        models, cats = store.models(suite), store.categories(suite)
        m = values.get("model") if values.get("model") in models else ALL
        c = values.get("category") if values.get("category") in cats else ALL
        lab = values.get("label") if values.get("label") in LABELS else ALL
        n = int(values.get("page") or 1)
        rows, total = store.page(suite, m, judge, lab, c, n, PAGE_SIZE)
        pages = max(1, -(-total // PAGE_SIZE))
        text = f"{total} record(s) match; page {min(n, pages)} of {pages}. Click a row to read it in full."
        if store.error:
            text += f" Records not shown: {store.error}"
        return (gr.update(choices=[ALL, *models], value=m), gr.update(choices=[ALL, *cats], value=c),
                list_view(rows), rows.to_dict(orient="records"), text, "", "", "")

    def open_item(rows, evt: gr.SelectData):
        i = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
        if not rows or i is None or i >= len(rows):
            return "", "", ""
        return detail_texts(rows[i])

    table.select(open_item, [rows_state], [d_prompt, d_response, d_judge], api_visibility="private")
    params = [Param("model", model, ALL, per_suite=True), Param("label", label, ALL),
              Param("category", cat, ALL, per_suite=True), Param("page", page, 1, parse=_page, per_suite=True)]
    view = TabView("items", params, [model, cat, table, rows_state, info, d_prompt, d_response, d_judge], update, lazy=True,
                   memo=True, details=3)
    view.pager = (prev, nxt, page)  # the app wires them: a step changes `page`, then the usual update
    return view
