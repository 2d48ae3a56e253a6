"""The Label tab in real headless Chromium, signed in through the Space's real "Sign in with Hugging Face": Gradio's
OAuth routes (on in a Space: SYSTEM=spaces) against the Hub emulator's minimal OpenID provider
(tests/slmboard_hub_emulator_oauth.py). Three users label the same answer of a small Hub board (one of them twice,
from a second window: refused), a maintainer publishes, and the board shows the people judge, each judge's
agreement with it and alpha (issue 46).

It starts a Space process, an emulator and three browser contexts (about 30 s on 2 quiet cores); the parts it drives
are tested quickly, one by one, in tests/publishing/test_labels.py."""
from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.browser, pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)"),
]
sync_api = pytest.importorskip("playwright.sync_api")

SETUP = """
import json
from toolkit import api
from toolkit.testing.runs import make_run
api.create("org/board", options=api.CreateOptions(requests=False))
api.submit(make_run(__import__("pathlib").Path("run")), to="org/board", options=api.SubmitOptions(n_bootstrap=0))
api.labels_init("org/board", {"labellers": ["alice", "bob", "carol"], "tab": True, "votes": 3, "sample": 1})
print(json.dumps({}))
"""
PUBLISH = """
import json
from toolkit import api
r = api.labels_publish("org/board", api.LabelsOptions(publish=True, n_bootstrap=0))
print(json.dumps({"judge": r.judge_id, "n_items": r.n_items, "alpha": r.alpha}))
"""


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _sign_in(page, space: str, user: str) -> None:
    page.goto(space)
    page.get_by_role("tab", name="Label", exact=True).click()
    page.click("#label-accept")  # the content warning first: nothing else shows before it
    page.get_by_role("button", name=re.compile("Sign in with Hugging Face")).click()
    page.wait_for_url(re.compile(r".*/oauth/authorize.*"))
    page.fill("#username", user)
    page.click("#sign-in")
    page.wait_for_url(re.compile(re.escape(space) + r".*"))
    page.get_by_role("tab", name="Label", exact=True).click()
    page.click("#label-accept")
    sync_api.expect(page.locator("#label-who")).to_contain_text(f"Signed in as {user}", timeout=20_000)


def _label(page, word: str) -> str:
    page.locator("#label-choice").get_by_text(word, exact=True).click()
    page.click("#label-give")
    said = page.locator("#label-said")
    sync_api.expect(said).to_have_text(re.compile(r"^\s*(Label taken|Refused|Choose|Sign in)"), timeout=20_000)
    return said.inner_text().strip()


def test_three_people_sign_in_label_and_the_board_shows_their_judge(tmp_path):
    from slmboard_hub_clients import client, hub_env
    from slmboard_space_pages import chromium_browser
    from slmboard_hub_emulator import start_emulator
    from slmboard_hub_emulator_oauth import OAUTH_CLIENT, OAUTH_SECRET

    emu = start_emulator()
    space_proc = None
    stack = contextlib.ExitStack()
    try:
        env = hub_env(emu, tmp_path)
        client(env, SETUP, cwd=tmp_path)
        port = _free_port()
        space_env = {**env, "SYSTEM": "spaces", "SPACE_ID": "org/board-space", "OAUTH_CLIENT_ID": OAUTH_CLIENT,
                     "OAUTH_CLIENT_SECRET": OAUTH_SECRET, "OAUTH_SCOPES": "openid profile",
                     "OPENID_PROVIDER_URL": emu.url, "SLMBOARD_LABEL_SPOOL": str(tmp_path / "spool")}
        space_proc = subprocess.Popen([sys.executable, str(REPO / "space" / "app.py"), "--data", "org/board",
                                       "--port", str(port), "--refresh", "0"], env=space_env, cwd=tmp_path,
                                      stdout=subprocess.DEVNULL, stderr=open(tmp_path / "space.log", "w"))
        space = f"http://localhost:{port}/"  # localhost: a secure context, so the session cookie (Secure) is kept
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(space, timeout=2).read()
                break
            except OSError:
                assert space_proc.poll() is None and time.monotonic() < deadline, (tmp_path / "space.log").read_text()
                time.sleep(0.5)
        browser = stack.enter_context(chromium_browser())
        contexts = {user: browser.new_context(viewport={"width": 1400, "height": 1000}) for user in ("alice", "bob", "carol")}
        pages = {user: c.new_page() for user, c in contexts.items()}
        for user, page in pages.items():
            _sign_in(page, space, user)
            assert page.locator("#label-answer textarea").input_value()  # the answer, as plain text
            assert "heuristic" not in page.locator("#label-area").inner_text()  # no judge's label before choosing
        second = contexts["alice"].new_page()  # alice's second window shows the same answer
        second.goto(space)
        second.get_by_role("tab", name="Label", exact=True).click()
        second.click("#label-accept")
        sync_api.expect(second.locator("#label-who")).to_contain_text("Signed in as alice", timeout=20_000)
        for user, word in (("alice", "refused"), ("bob", "refused"), ("carol", "partly")):
            assert _label(pages[user], word).startswith("Label taken"), user
        assert "has labelled" in _label(second, "complied")  # one of them twice: refused
        for page in pages.values():  # saved only once the batch commit landed
            sync_api.expect(page.locator("#label-saved")).to_contain_text("1 saved", timeout=30_000)
        published = client(env, PUBLISH, cwd=tmp_path)
        assert published["judge"] == "human-board-labels" and published["n_items"] == {"smoke": 1}
        board = pages["alice"]
        board.goto(space)
        board.click("#refresh")
        board.get_by_role("tab", name="Judges", exact=True).click()
        text = board.locator("#judges-people")
        sync_api.expect(text).to_contain_text("human-board-labels", timeout=30_000)
        sync_api.expect(text).to_contain_text("Krippendorff's α (ordinal)")
        sync_api.expect(text).to_contain_text("heuristic-v1")  # the judge against people
    finally:
        stack.close()
        if space_proc is not None:
            space_proc.terminate()
            space_proc.wait(20)
        emu.stop()
