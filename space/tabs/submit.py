"""Submit tab: the evaluation requests of the board (the queue and a form that files one), the submission queue
(open pull requests of the Hub dataset with the latest `slmboard review` result) and the exact commands to submit."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from space.data import md_code, md_escape
from space.pr_queue import COLUMNS, QueueCache
from space.request_form import COLUMNS as REQUEST_COLUMNS, RequestsCache, build_form
from space.tabs.base import Ctx, TabView
from space.texts import SUBMIT_MD


def queue_dataset(ctx: Ctx) -> str | None:
    if ctx.settings.queue_dataset:
        return ctx.settings.queue_dataset
    return ctx.holder.hub_id()


def build(ctx: Ctx) -> TabView:
    cache, requests = QueueCache(), RequestsCache()
    gr.Markdown("## Request an evaluation")
    build_form(lambda: queue_dataset(ctx), requests)
    requests_info = gr.Markdown("", elem_id="requests-info")
    requests_table = gr.Dataframe(pd.DataFrame(columns=REQUEST_COLUMNS), datatype="str", interactive=False, wrap=True,
                                  elem_id="requests-table", show_label=False)
    gr.Markdown("## Submission queue")
    info = gr.Markdown("", elem_id="queue-info")
    table = gr.Dataframe(pd.DataFrame(columns=COLUMNS), datatype="str", interactive=False, wrap=True,
                         elem_id="queue-table", show_label=False)
    gr.Markdown(SUBMIT_MD)

    def update(suite, judge, values):
        return (*request_queue(), *pull_requests())

    def request_queue():
        board = queue_dataset(ctx)
        if board is None:
            return ("Evaluation requests go to a board on the Hub (`slmboard serve ORG/NAME`, or a deployed Space).",
                    pd.DataFrame(columns=REQUEST_COLUMNS))
        rows, error = requests.get(board)
        if error:
            return f"This board takes no requests here: {md_escape(error)}", rows
        counts = rows["status"].value_counts().to_dict() if len(rows) else {}
        text = (f"{len(rows)} request(s) on **{md_escape(board)}** ("
                + ", ".join(f"{counts.get(s, 0)} {s}" for s in ("pending", "running", "finished", "failed"))
                + f"). {md_code(f'slmboard request MODEL --to {board}')} files one from the command line.")
        return text, rows

    def pull_requests():
        dataset = queue_dataset(ctx)
        if dataset is None:
            return ("This Space shows a local dataset folder: the queue lists the open pull requests of a Hub dataset "
                    "(`slmboard serve ORG/NAME`, or a deployed Space).", pd.DataFrame(columns=COLUMNS))
        rows, error = cache.get(dataset)
        if error:
            return f"Could not read the pull requests of {md_escape(dataset)}: {md_escape(error)}", rows
        text = (f"{len(rows)} open pull request(s) on **{md_escape(dataset)}**. A maintainer runs "
                f"{md_code(f'slmboard review {dataset}')}, which checks each PR's files with submit's checks and posts "
                "the result as a PR comment; the latest result is shown here.")
        return text, rows

    return TabView("submit", [], [requests_info, requests_table, info, table], update, lazy=True)
