"""The evaluation requests of a board on the Space's Submit tab: the queue (a table) and the form that files a
request through the same API as `slmboard request`, with the Space's token on behalf of the logged-in user.

No ``from __future__ import annotations`` here: Gradio reads the ``gr.OAuthProfile | None`` annotation of
:func:`file_request` to inject the logged-in user (None when nobody is logged in, or the Space has no login).
"""
import os
from typing import Optional

import gradio as gr
import pandas as pd

from space.data import md_escape
from space.timed_table import TimedTable

COLUMNS = ["status", "model", "commit", "requested by", "filed", "detail"]
CACHE_SECONDS = 30.0


def requests_table(board: str) -> pd.DataFrame:
    from toolkit.outputs.requests import list_requests

    rows = []
    for r in list_requests(board):
        detail = (f"submission {r.submission_id}" if r.status == "finished" else r.reason or "" if r.status == "failed"
                  else f"worker {r.worker}, heartbeat {r.heartbeat}" if r.status == "running"
                  else f"pull request #{r.pull_request}" if r.pull_request else "")
        rows.append([r.status, r.model, r.commit[:12], r.who, r.when, detail])
    return pd.DataFrame(rows, columns=COLUMNS).astype(str)


class RequestsCache(TimedTable):
    """The queue, read at most every CACHE_SECONDS (a burst of visitors makes one read); a filed request clears it."""

    def __init__(self):
        super().__init__(requests_table, COLUMNS, CACHE_SECONDS,
                         lambda exc: str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


def login_available() -> bool:
    """A deployed Space with `hf_oauth: true` (the Hub sets OAUTH_CLIENT_ID) and Gradio's OAuth extras installed."""
    if not os.environ.get("OAUTH_CLIENT_ID"):
        return False
    try:
        import authlib  # noqa: F401
    except ImportError:
        return False
    return True


def file_request(board: Optional[str], model: str, profile: Optional[gr.OAuthProfile], cache: RequestsCache) -> str:
    """File ``model`` on ``board`` for the logged-in user; one line of Markdown (escaped) saying what happened."""
    from toolkit.core.errors import SlmboardError
    from toolkit.outputs.requests import file_request as file_it

    if board is None:
        return "This Space shows a local dataset folder; requests go to a board on the Hub."
    if profile is None:
        return (f"Log in with Hugging Face to file a request, or file it from a terminal: slmboard request ORG/NAME "
                f"\\-\\-to {md_escape(board)}")
    try:
        filed = file_it((model or "").strip(), board, who=profile.username)  # as api.request_evaluation
    except SlmboardError as exc:
        return f"Refused: {md_escape(str(exc).splitlines()[0])}"
    cache.clear(board)
    r = filed.request
    return (f"Requested **{md_escape(r.model)}** at commit `{r.commit[:12]}` for {md_escape(r.who)}; "
            "a worker of this board will evaluate it.")


def build_form(board_of, cache: RequestsCache):
    """The form's components inside the current Blocks context; ``board_of()`` names the board (None: a local folder)."""
    with gr.Row():
        if login_available():
            gr.LoginButton()
        model = gr.Textbox(label="Model (ORG/NAME or ORG/NAME@REVISION)", elem_id="request-model", scale=4)
        button = gr.Button("Request an evaluation", elem_id="request-button", scale=1)
    said = gr.Markdown("", elem_id="request-result")

    def on_click(model_id: str, profile: Optional[gr.OAuthProfile] = None) -> str:
        return file_request(board_of(), model_id, profile, cache)

    button.click(on_click, inputs=[model], outputs=[said])
    return said
