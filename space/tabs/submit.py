"""Submit tab: the exact commands to submit, and the submission queue (open pull requests of the
Hub dataset with the latest `slmboard review` result)."""
from __future__ import annotations

import gradio as gr

from space.tabs.base import Ctx, TabView
from space.texts import SUBMIT_MD


def build(ctx: Ctx) -> TabView:
    gr.Markdown(SUBMIT_MD)
    return TabView("submit")
