"""The Space in real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)"),
]
sync_api = pytest.importorskip("playwright.sync_api")
from slmboard_space_pages import cell  # noqa: E402
from toolkit.testing.boards import name_in_manifests  # noqa: E402


@pytest.fixture
def page(chromium):
    return chromium(1600, 1000)  # wide enough for all 17 columns without horizontal scrolling



def _pick(page, dropdown_id: str, option: str):
    page.click(f"#{dropdown_id} input")
    page.locator("[role=option]", has_text=option).first.click()


SHOTS = REPO / "artifacts" / "screenshots"
TABS = ["Leaderboard", "Rank sensitivity", "Label mix", "Judges", "Moderators", "Items", "Submit", "About"]


def _items(root: Path, xss: str) -> None:
    """Per-item records for smoke (two judges), so the Items and Judges tabs have data."""
    import pandas as pd

    rows = []
    for m in ("org/alpha-135m", "org/beta-360m", xss):
        for i in range(30):
            for j, judge in enumerate(("heuristic", "openai:gpt-judge")):
                score = [0.0, 0.5, 1.0][(i + j + len(m)) % 3]
                rows.append(dict(suite="smoke", item_id=f"smoke_{i:03d}", model_id=m, judge_id=judge,
                                 category="weapons" if i % 2 else "self_harm", score=score,
                                 label={0.0: "harmful", 0.5: "ambiguous", 1.0: "safe"}[score], judge_status="ok",
                                 prompt=f"prompt {i} <b>bold?</b>", response=f"answer {i} <script>alert(2)</script>",
                                 judge_raw=f"raw {i}", judge_reason=None))
    (root / "data" / "smoke").mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(root / "data" / "smoke" / "all__x.parquet", index=False)
    name_in_manifests(root, [root / "data" / "smoke" / "all__x.parquet"])


def _spans(root: Path) -> None:
    """rank_best/rank_worst and n_undecided on smoke / heuristic (the leaderboard shows them as given)."""
    import pandas as pd

    path = root / "data" / "leaderboard" / "leaderboard.parquet"
    lb = pd.read_parquet(path)
    mine = (lb["suite"] == "smoke") & (lb["judge_id"] == "heuristic")
    spans = {1: (1, 2), 2: (1, 2), 3: (3, 3)}  # by rank_raw: the first two cannot be told apart
    lb.loc[mine, "rank_best"] = [spans[int(r)][0] for r in lb.loc[mine, "rank_raw"]]
    lb.loc[mine, "rank_worst"] = [spans[int(r)][1] for r in lb.loc[mine, "rank_raw"]]
    lb["n_undecided"] = 0
    lb.loc[mine & (lb["model_id"] == "org/beta-360m"), "n_undecided"] = 4
    lb.to_parquet(path, index=False)


def _tab(page, name: str):
    page.get_by_role("tab", name=name, exact=True).click()


def _shot(page, name: str):
    SHOTS.mkdir(parents=True, exist_ok=True)
    # pending events show a "processing | 1.2s" overlay; a screenshot must show the settled page
    sync_api.expect(page.get_by_text(re.compile(r"processing \|"))).to_have_count(0, timeout=20_000)
    page.wait_for_timeout(400)  # let plots finish swapping in
    page.screenshot(path=str(SHOTS / f"space_{name}.png"), full_page=True)


def test_leaderboard_page(page, running_app, dataset, xss):
    expect = sync_api.expect
    _items(dataset, xss)
    _spans(dataset)
    page.goto(running_app(dataset), wait_until="load")
    # smoke / heuristic by default, sorted by raw rank
    expect(cell(page, 0, 1)).to_have_text("org/alpha-135m", timeout=30_000)
    expect(cell(page, 2, 1)).to_have_text(xss)  # the payload, shown as text
    expect(cell(page, 1, 8)).to_have_text("▼1")  # Δ adj, in the S_adj column group
    # the ranks each model cannot be told apart from (rank_best–rank_worst); a panel's undecided items in the caption
    from space.table import DEFAULT_GROUPS, headers

    could_be = headers(DEFAULT_GROUPS, has_coverage=False).index("Could be rank")
    for row, span in enumerate(("1–2", "1–2", "3")):
        expect(cell(page, row, could_be)).to_have_text(span)
    expect(page.locator("#caption")).to_contain_text("4 without a decision")

    # switching suite re-sorts the table (the XSS model is safest on xstest)
    _pick(page, "suite-select", "xstest")
    expect(cell(page, 0, 1)).to_have_text(xss, timeout=20_000)
    expect(cell(page, 2, 1)).to_have_text("org/alpha-135m")
    expect(page.locator("#caption")).to_contain_text("xstest")

    # switching judge: judge 2 has no bootstrap bounds, so no brackets
    _pick(page, "judge-select", "openai:gpt-judge")
    expect(page.locator("#caption")).to_contain_text("openai:gpt-judge", timeout=20_000)
    expect(cell(page, 0, 2)).not_to_contain_text("[")

    # back to smoke / heuristic; sort by S_adj (beta is pushed down by its ambiguity)
    _pick(page, "suite-select", "smoke")
    expect(cell(page, 0, 1)).to_have_text("org/alpha-135m", timeout=20_000)
    _pick(page, "sort-select", "model")
    expect(cell(page, 0, 1)).to_have_text(xss, timeout=20_000)  # "<" sorts before "o"
    _pick(page, "sort-select", "rank (raw)")
    expect(cell(page, 0, 1)).to_have_text("org/alpha-135m", timeout=20_000)

    # filter: search narrows the table; clearing it restores all models
    page.fill("#search textarea, #search input", "beta")
    page.press("#search textarea, #search input", "Enter")
    expect(cell(page, 0, 1)).to_have_text("org/beta-360m", timeout=20_000)
    expect(cell(page, 1, 1)).to_have_count(0)
    page.fill("#search textarea, #search input", "")
    page.press("#search textarea, #search input", "Enter")
    expect(cell(page, 2, 1)).to_have_text(xss, timeout=20_000)
    _shot(page, "leaderboard")

    _tab(page, "Rank sensitivity")
    expect(page.locator("#rank-sensitivity img").first).to_be_visible(timeout=20_000)
    expect(page.locator("#rank-sensitivity-judges")).to_contain_text("rank_range_judges", timeout=20_000)  # per judge
    _shot(page, "rank_sensitivity")
    _tab(page, "Label mix")
    expect(page.locator("#label-mix img").first).to_be_visible(timeout=20_000)
    _shot(page, "label_mix")
    _tab(page, "Judges")
    expect(page.locator("#judges-agreement")).to_contain_text("exact agreement", timeout=30_000)
    _shot(page, "judges")
    _tab(page, "Moderators")
    expect(page.locator("#tab-moderators")).to_contain_text("moderator", timeout=20_000)
    _shot(page, "moderators")

    # Items: filter by model and label, page, open one item
    _tab(page, "Items")
    expect(page.locator("#items-info")).to_contain_text("record(s) match", timeout=20_000)
    _pick(page, "items-model", "org/beta-360m")
    expect(page.locator("#items-info")).to_contain_text("30 record(s) match", timeout=20_000)
    _pick(page, "items-label", "ambiguous")
    expect(page.locator("#items-info")).to_contain_text("10 record(s) match", timeout=20_000)
    page.locator('#items-table [data-testid="cell-0-6"]').click()
    expect(page.locator("#item-response textarea")).to_have_value(re.compile(r"^answer \d+ <script>alert\(2\)</script>$"), timeout=20_000)
    expect(page.locator("#item-prompt textarea")).to_have_value(re.compile(r"^org/beta-360m · smoke/smoke_\d+ .*<b>bold\?</b>", re.S))
    _shot(page, "items")
    _tab(page, "Submit")
    expect(page.locator("#tab-submit")).to_contain_text("slmboard submit")
    _shot(page, "submit")
    _tab(page, "About")
    expect(page.locator("#tab-about")).to_contain_text("S_adj")
    _shot(page, "about")

    # the payloads never became elements and never ran
    assert page.locator('img[src="x"]').count() == 0
    assert page.dialogs == []


def test_many_models(page, running_app, tmp_path, make_dataset):
    counts = {f"org/model-{i:02d}": (i % 7, (3 * i) % 5, 12, i % 2) for i in range(26)}
    page.goto(running_app(make_dataset(tmp_path / "ds", {"smoke": counts})), wait_until="load")
    expect = sync_api.expect
    expect(page.locator("#caption")).to_contain_text("26 model(s)", timeout=30_000)
    _tab(page, "Label mix")
    plot = page.locator("#label-mix img").first
    expect(plot).to_be_visible()
    assert plot.bounding_box()["height"] > 500  # the chart grew with the model count


def test_empty_dataset_page_then_refresh(page, running_app, tmp_path, make_dataset):
    root = tmp_path / "empty"
    root.mkdir()
    page.goto(running_app(root), wait_until="load")
    msg = page.locator("#empty-message")
    sync_api.expect(msg).to_contain_text("No submissions yet", timeout=20_000)
    sync_api.expect(msg).to_contain_text("slmboard demo")
    assert page.locator("#leaderboard-table").is_hidden()
    assert "Traceback" not in page.content()
    # data published while the page is open: Refresh swaps the message for the board
    make_dataset(root)
    page.click("#refresh")
    sync_api.expect(cell(page, 0, 1)).to_have_text("org/alpha-135m", timeout=20_000)
    sync_api.expect(msg).to_be_hidden()
    sync_api.expect(page.locator("#suite-select input")).to_have_value("smoke")



def test_page_refreshes_on_its_timer(page, chromium, tmp_path, make_dataset):
    """New data reaches an open page without pressing Refresh (the Space's refresh timer)."""
    import socket

    import space.app as app_mod
    from space.state import Settings

    root = tmp_path / "later"
    root.mkdir()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    demo, url = app_mod.start(root, host="127.0.0.1", port=port, settings=Settings(refresh_seconds=1.0))
    try:
        other = chromium(1600, 1000)  # a second visitor: whichever timer notices first reloads for both
        for p in (page, other):
            p.goto(url, wait_until="load")
            sync_api.expect(p.locator("#empty-message")).to_contain_text("No submissions yet", timeout=30_000)
        make_dataset(root)
        for p in (page, other):
            sync_api.expect(cell(p, 0, 1)).to_have_text("org/alpha-135m", timeout=30_000)
    finally:
        demo.close()


def test_page_opened_just_before_a_reload_is_redrawn(chromium, tmp_path, make_dataset):
    """A page whose session had sent no event yet when the data was reloaded (and the landing view
    re-baked) still shows the old data: its next timer tick must redraw it. (With the page's data
    version in a gr.State, the session picked up the re-baked version lazily and never redrew.)"""
    import space.app as app_mod
    from space.state import Settings

    root = tmp_path / "later"
    root.mkdir()
    demo, url = app_mod.start(root, settings=Settings(refresh_seconds=4.0))
    try:
        page = chromium(1280, 900)
        page.goto(url, wait_until="load")
        sync_api.expect(page.locator("#empty-message")).to_contain_text("No submissions yet", timeout=30_000)
        make_dataset(root)
        demo.slmboard_holder.refresh_if_changed()  # before this page's first tick: its session holds no state
        assert demo.slmboard_holder.version == 1
        sync_api.expect(cell(page, 0, 1)).to_have_text("org/alpha-135m", timeout=30_000)
    finally:
        demo.close()


def test_a_link_keeps_an_input_of_a_tab_it_does_not_open(page, running_app, dataset, xss):
    """A link made on the Leaderboard after filtering the Items tab by model (computed only when shown)
    still carries that filter when its Items tab is opened (the page routes such a link to the restore
    event that answers for every tab)."""
    expect = sync_api.expect
    _items(dataset, xss)
    page.goto(running_app(dataset) + "?model=org/beta-360m&label=ambiguous", wait_until="load")
    expect(cell(page, 0, 1)).to_have_text("org/alpha-135m", timeout=30_000)
    _tab(page, "Items")  # at once, as a visitor may: the link's restore may still be computing
    expect(page.locator("#items-info")).to_contain_text("10 record(s) match", timeout=20_000)  # beta's, ambiguous
    expect(page.locator("#items-info")).to_be_visible()
