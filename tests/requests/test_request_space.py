"""The Space's Submit tab files a request through the same API for the logged-in user and lists the queue;
what it shows is escaped (no request field or refusal becomes markup)."""
from __future__ import annotations

import re

import pytest

from slmboard_hub_clients import client, hub_env
from slmboard_requests_hub import RECIPE, make_board

pytestmark = pytest.mark.slow


def test_the_submit_tab_files_for_the_logged_in_user_and_shows_the_queue_escaped(hub, tmp_path):
    emu, _ = hub
    env = hub_env(emu, tmp_path)
    make_board(env, "org/space-board", RECIPE)
    got = client(env, """
        import json
        import gradio as gr
        from space.request_form import RequestsCache, file_request, requests_table
        cache = RequestsCache()
        alice = gr.OAuthProfile({"preferred_username": "alice", "name": "Alice", "picture": "", "profile": ""})
        out = {
            "logged_out": file_request("org/space-board", "org/tiny", None, cache),
            "markup": file_request("org/space-board", "<img src=x onerror=alert(1)>", alice, cache),
            "filed": file_request("org/space-board", "org/tiny", alice, cache),
            "again": file_request("org/space-board", "org/tiny", alice, cache),
            "table": requests_table("org/space-board").to_dict(orient="records"),
        }
        print(json.dumps(out))
    """)
    assert got["logged_out"].startswith("Log in with Hugging Face")
    assert got["markup"].startswith("Refused:") and "\\<img" in got["markup"]
    assert not re.search(r"(?<!\\)[<>]", got["markup"])  # every angle bracket escaped: shown, never markup
    assert got["filed"].startswith("Requested **org/tiny** at commit") and "for alice" in got["filed"]
    assert got["again"].startswith("Refused:") and "already requested" in got["again"]
    (row,) = got["table"]
    assert row["status"] == "pending" and row["model"] == "org/tiny" and row["requested by"] == "alice"
