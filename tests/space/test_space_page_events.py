"""What opening the Space costs the server, in real headless Chromium: the plain address starts no
queued event (its view is baked into the page), a shared link starts the restore event, a tab is
computed when selected and not again when it is already shown, and a visitor arriving after a
data refresh gets the new data baked into the page (space/landing.py, space/wiring.py)."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
from slmboard_space_pages import cell, record_events, settle  # noqa: E402
expect = sync_api.expect




def _fn_of(url: str, elem_id: str, event: str) -> int:
    """The fn_index of the server function triggered by ``event`` of the component ``elem_id``."""
    import httpx

    config = httpx.get(url.rstrip("/") + "/config", timeout=30).json()
    target = next(c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == elem_id)
    return next(d["id"] for d in config["dependencies"]
                if d.get("backend_fn") and any(t[0] == target and t[1] == event for t in d["targets"]))



def test_plain_address_costs_no_event_and_tabs_compute_once(chromium, running_app, dataset):
    url = running_app(dataset)
    page = chromium(1280, 900)
    events = record_events(page)
    page.goto(url, wait_until="load")
    expect(cell(page, 0, 1)).to_have_text("org/alpha-135m", timeout=30_000)  # the baked landing view
    expect(page.locator("#caption")).to_contain_text("smoke")
    expect(page.locator("#scores-ci img")).to_be_visible()
    settle(page, 1500)
    assert events == []

    on_tab = _fn_of(url, "tab-request", "change")
    page.get_by_role("tab", name="Judges", exact=True).click()
    expect(page.locator("#judges-agreement")).to_be_visible(timeout=20_000)
    settle(page, 1500)
    assert events[0] == on_tab, "selecting a tab computes it"
    n = len(events)
    page.get_by_role("tab", name="Judges", exact=True).click()  # already shown: nothing to compute
    settle(page, 1500)
    assert len(events) == n
    page.get_by_role("tab", name="Leaderboard", exact=True).click()
    settle(page, 1500)
    assert len(events) > n


def test_shared_link_restores_in_one_event(chromium, dataset):
    """A linked view is computed once: the restore event computes the tab the link opens, and the
    tab selection that follows it (the browser selects the tab) computes nothing again."""
    from collections import Counter

    import space.app as app_mod
    from space.state import Settings

    demo, url = app_mod.start(dataset, settings=Settings(refresh_seconds=0))
    try:
        calls: Counter = Counter()
        for view in demo.slmboard_views:
            if view.update is not None:
                view.update = (lambda f, key: lambda *a: (calls.update([key]), f(*a))[1])(view.update, view.key)
        page = chromium(1280, 900)
        events = record_events(page)
        page.goto(url + "?suite=xstest&judge=openai:gpt-judge&sort=model&tab=judges", wait_until="load")
        expect(page.locator("#suite-select input")).to_have_value("xstest", timeout=30_000)
        expect(page.locator("#judge-select input")).to_have_value("openai:gpt-judge")
        expect(page.locator("#judges-agreement")).to_be_visible(timeout=20_000)
        page.get_by_role("tab", name="Leaderboard", exact=True).click()
        expect(cell(page, 0, 1)).to_contain_text("<img", timeout=20_000)  # sorted by model id: "<img..." first
        settle(page, 1500)
        assert events[0] == _fn_of(url, "query-in-judges", "change")  # the restore event of the tab the link opens
        assert events.count(events[0]) == 1
        assert calls["judges"] == 1  # restored once, not again by the tab selection
        assert events.count(_fn_of(url, "tab-request", "change")) == 1  # only the Leaderboard click: the
        # browser's selection of the restored tab starts nothing
        expect(page).to_have_url(re.compile(r"suite=xstest"))
    finally:
        demo.close()


def test_visitor_after_a_refresh_gets_the_new_data(chromium, running_app, tmp_path, make_dataset):
    root = tmp_path / "later"
    root.mkdir()
    url = running_app(root)
    first = chromium(1280, 900)
    first.goto(url, wait_until="load")
    expect(first.locator("#empty-message")).to_contain_text("No submissions yet", timeout=30_000)
    make_dataset(root)
    first.click("#refresh")  # one visitor's Refresh reloads the data for the whole Space
    expect(cell(first, 0, 1)).to_have_text("org/alpha-135m", timeout=20_000)

    later = chromium(1280, 900)
    events = record_events(later)
    later.goto(url, wait_until="load")
    expect(cell(later, 0, 1)).to_have_text("org/alpha-135m", timeout=20_000)
    expect(later.locator("#empty-message")).to_be_hidden()
    settle(later, 1500)
    assert events == []  # served from the re-baked page, not computed for this visitor


def test_refresh_timer_does_not_redraw_a_page_that_is_up_to_date(chromium, tmp_path, make_dataset):
    """The timer re-renders a page only when the data changed since that page was drawn: not after
    the page's own Refresh, not for a page opened after a reload (its baked view is current), and a
    tick with nothing to redraw is one event with nothing chained after it."""
    import sys

    import space.app as app_mod
    from space.state import Settings

    root = tmp_path / "data"
    root.mkdir()
    make_dataset(root)
    # ticks 5 s apart: the Refresh (clicked at once) is over before the first tick, so no tick races it
    # (one that did would carry the version from before the Refresh and redraw once, harmlessly)
    demo, url = app_mod.start(root, settings=Settings(refresh_seconds=5.0))
    make_dataset(root, {"smoke": {"org/alpha-135m": (5, 0, 0, 0)}})  # new data: the Refresh reloads
    try:
        redraws_by_tick = []

        def called_from_tick() -> bool:
            frame = sys._getframe()
            while frame is not None:
                if frame.f_code.co_name == "on_tick":
                    return True
                frame = frame.f_back
            return False

        for view in demo.slmboard_views:
            if view.update is not None:
                view.update = (lambda f, key: lambda *a: (called_from_tick() and redraws_by_tick.append(key), f(*a))[1])(
                    view.update, view.key)
        first = chromium(1280, 900)
        first.goto(url, wait_until="load")
        expect(cell(first, 0, 1)).to_have_text("org/alpha-135m", timeout=30_000)
        first.click("#refresh")
        settle(first, 1500)
        later = chromium(1280, 900)
        events = record_events(later)
        later.goto(url, wait_until="load")
        expect(cell(later, 0, 1)).to_have_text("org/alpha-135m", timeout=30_000)
        first.wait_for_timeout(11_000)  # two ticks or more on each page
        assert demo.slmboard_holder.version == 1
        assert redraws_by_tick == []
        assert len(events) >= 2 and len(set(events)) == 1  # ticks only: nothing chained after them
    finally:
        demo.close()


def test_refresh_with_nothing_new_reloads_nothing(chromium, tmp_path, make_dataset):
    """Anyone can press Refresh on a public Space: with the data unchanged it is a probe, not a reload
    (which would rebuild the Items index); with new data it reloads once."""
    import space.app as app_mod
    from space.state import Settings

    root = tmp_path / "data"
    root.mkdir()
    make_dataset(root)
    demo, url = app_mod.start(root, settings=Settings(refresh_seconds=0))
    try:
        page = chromium(1280, 900)
        page.goto(url, wait_until="load")
        expect(cell(page, 0, 1)).to_have_text("org/alpha-135m", timeout=30_000)
        for _ in range(3):
            page.click("#refresh")
            settle(page)
        assert demo.slmboard_holder.version == 0
        make_dataset(root, {"smoke": {"org/beta-360m": (5, 0, 0, 0)}})
        page.click("#refresh")
        expect(cell(page, 0, 1)).to_have_text("org/beta-360m", timeout=30_000)
        assert demo.slmboard_holder.version == 1
    finally:
        demo.close()
