"""Reading the Space's page in real Chromium (playwright), shared by the browser tests."""
from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextlib.contextmanager
def chromium_browser():
    """Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright; skips the test when either is missing."""
    import pytest

    if not CHROMIUM.exists():
        pytest.skip("needs /usr/bin/chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def cell(page, row: int, col: int, table: str = "leaderboard-table"):
    # gradio 6's Dataframe is a virtualised grid of divs; cells carry data-testid="cell-R-C"
    return page.locator(f'#{table} [data-testid="cell-{row}-{col}"]')


def column_texts(page, table: str, col: int) -> list[str]:
    loc = page.locator(f'#{table} [data-testid^="cell-"][data-testid$="-{col}"]')
    return [t.strip() for t in loc.all_inner_texts()]


def settle(page, after_ms: int = 300):
    """Wait until no event is processing, then ``after_ms`` more (room for any event still to be sent)."""
    from playwright.sync_api import expect

    expect(page.get_by_text(re.compile(r"processing \|"))).to_have_count(0, timeout=30_000)
    page.wait_for_timeout(after_ms)


def record_events(page) -> list[int]:
    """fn_index of every event the page queues on the server, in order."""
    events: list[int] = []

    def on_request(request):
        if request.method == "POST" and "/gradio_api/queue/join" in request.url:
            events.append(json.loads(request.post_data)["fn_index"])

    page.on("request", on_request)
    return events
