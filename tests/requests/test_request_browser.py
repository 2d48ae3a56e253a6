"""The Space's Submit tab in real headless Chromium, on the Hub emulator: a visitor signs in, types a model id into
the form and submits; the page lists the request as pending; `slmboard worker --once` evaluates it and the model
ranks. A model that does not exist is refused in one line on the page.

Signing in: the form shows Gradio's LoginButton when OAUTH_CLIENT_ID is set and Gradio's OAuth extras are installed
(space/request_form.py, login_available). Off a Space (no SPACE_ID) Gradio itself serves mocked login routes that put
the profile of the server's token (whoami, here the emulator's account) in the session: the browser goes through
the same button, redirect and session cookie as on a Space, and the form reads the profile the same way. The code
under test has no hook for this; only the server's environment differs from a deployment.
"""
from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from slmboard_hub_clients import cli, hub_env
from slmboard_space_pages import cell, chromium_browser

pytestmark = pytest.mark.slow
# the Space's login needs Gradio's OAuth extras (gradio[oauth]; the dev extra installs them)
pytest.importorskip("authlib", reason="needs Gradio's OAuth extras: pip install 'gradio[oauth]'")
pytest.importorskip("itsdangerous", reason="needs Gradio's OAuth extras: pip install 'gradio[oauth]'")

BOARD = "org/form-board"
USER = "emulator-user"  # the account whoami gives the emulator's token (tests/slmboard_hub_emulator.py)


@pytest.fixture
def chromium():
    """A page in real headless Chromium, as the tests of tests/space open theirs."""
    with chromium_browser() as browser:
        yield browser.new_page(viewport={"width": 1280, "height": 900})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def space(hub, tmp_path):
    """`slmboard serve BOARD` in its own process (huggingface_hub reads HF_ENDPOINT at import), with login enabled
    as the Hub enables it on a Space with `hf_oauth: true`; yields (url, env)."""
    emu, _ = hub
    env = hub_env(emu, tmp_path)
    cli(env, "create", BOARD, "--suites", "smoke", "--judges", "heuristic", "--limit", "2", "--max-new-tokens", "8")
    port = _free_port()
    server_env = {**env, "OAUTH_CLIENT_ID": "test-client", "GRADIO_ANALYTICS_ENABLED": "False"}
    server_env.pop("SPACE_ID", None)  # off a Space: Gradio's mocked login routes, not hf.co
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "toolkit.cli", "serve", BOARD, "--port", str(port), "--refresh", "0"],
                            env=server_env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            try:
                urllib.request.urlopen(url, timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()[-3000:]
                time.sleep(0.3)
        yield url, env
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def _submit(page, model: str):
    page.locator("#request-model textarea, #request-model input").first.fill(model)
    page.locator("#request-button").click()


def test_the_form_in_chromium_files_a_request_the_worker_then_evaluates(chromium, space, tmp_path):
    from playwright.sync_api import expect

    url, env = space
    page = chromium
    page.goto(url + "?tab=submit")
    page.get_by_role("tab", name="Submit", exact=True).click()
    result = page.locator("#request-result")

    _submit(page, "org/tiny")  # nobody signed in yet: the form files nothing
    expect(result).to_contain_text("Log in with Hugging Face to file a request", timeout=20_000)

    page.get_by_role("button", name="Sign in with Hugging Face").click()  # Gradio's login: redirect, session cookie
    page.wait_for_load_state()
    page.get_by_role("tab", name="Submit", exact=True).click()
    expect(page.get_by_role("button", name=f"Logout ({USER})")).to_be_visible(timeout=20_000)

    _submit(page, "org/does-not-exist")
    expect(result).to_contain_text("Refused:", timeout=20_000)
    refusal = result.inner_text().strip()
    assert len(refusal.splitlines()) == 1 and "org/does-not-exist" in refusal and "not found" in refusal, refusal

    _submit(page, "org/tiny")
    expect(result).to_contain_text("Requested org/tiny at commit", timeout=20_000)
    assert f"for {USER}" in result.inner_text()
    page.get_by_role("tab", name="Leaderboard", exact=True).click()  # the queue is read again when its tab opens
    page.get_by_role("tab", name="Submit", exact=True).click()
    expect(page.locator("#requests-info")).to_contain_text("1 request(s)", timeout=20_000)
    expect(page.locator("#requests-info")).to_contain_text("1 pending")
    # the queue's one row: status, model, commit, requested by (space/request_form.py COLUMNS)
    for col, text in ((0, "pending"), (1, "org/tiny"), (3, USER)):
        expect(cell(page, 0, col, "requests-table")).to_have_text(text)

    done = cli(env, "worker", BOARD, "--once", "--runs", str(tmp_path / "runs"), "--quiet")
    assert "finished: org/tiny@" in done.stdout, done.stdout + done.stderr
    listed = cli(env, "requests", BOARD).stdout
    assert listed.startswith("finished  org/tiny@") and f"by {USER}" in listed, listed
    ranked = cli(env, "rank", BOARD, "--bootstrap", "20").stdout
    assert "org/tiny" in ranked, ranked
