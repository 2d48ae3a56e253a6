"""Take README's screenshot (docs/images/space_leaderboard.png): the demo board's landing view in headless Chromium.

    slmboard demo --no-serve && python tools/readme_screenshot.py demo-output/dataset docs/images/space_leaderboard.png

Needs Debian's /usr/bin/chromium (driven by Playwright, as tests/space does). Waits until the page shows the
XSTest view judged by people with its caption, so the picture is the view a visitor lands on.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def main(dataset: str, out: str, width: int = 1600, height: int = 1100) -> None:
    from playwright.sync_api import expect, sync_playwright

    from space.app import start

    app, url = start(Path(dataset), "127.0.0.1", None, quiet=True)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(url, wait_until="load")
            expect(page.locator("#suite-select input")).to_have_value("xstest", timeout=60_000)
            expect(page.locator("#caption")).to_contain_text("What moves", timeout=60_000)
            expect(page.locator("#scores-ci img").first).to_be_visible(timeout=60_000)
            page.wait_for_timeout(1000)
            page.screenshot(path=out, full_page=False)
            browser.close()
    finally:
        app.close()


if __name__ == "__main__":
    main(*sys.argv[1:3])
