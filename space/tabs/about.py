"""About tab: definitions and citations (static)."""
from __future__ import annotations

import gradio as gr

from space.tabs.base import Ctx, TabView
from space.texts import ABOUT_MD


def build(ctx: Ctx) -> TabView:
    gr.Markdown(ABOUT_MD)
    return TabView("about")
