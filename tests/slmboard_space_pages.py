"""Reading the Space's page in real Chromium (playwright), shared by the browser tests."""
from __future__ import annotations

import json
import re


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
