"""The Space's first screen and its version selector (issue 49 items 3 and 4), in real headless Chromium.

A board folder with a release: tag v1 holds two models, the latest commit a third. The first screen has no empty
file box (it appears once Download made files) and no Family filter (no submission names a family); the Version
selector switches to v1, the address keeps it (``?version=v1``), a reload shows v1 again; a version the board has
no tag for is dropped (and never reaches the page as markup)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)")]
sync_api = pytest.importorskip("playwright.sync_api")
from slmboard_space_pages import column_texts, settle  # noqa: E402

expect = sync_api.expect
TWO = {"org/alpha-135m": (2, 2, 16, 0), "org/beta-360m": (1, 10, 9, 1)}
THREE = {**TWO, "org/gamma-1b": (0, 1, 19, 0)}


def _commit(root: Path, message: str, tag: str | None = None) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", message], cwd=root, check=True, capture_output=True)
    if tag:
        subprocess.run([*git, "tag", tag], cwd=root, check=True, capture_output=True)


def _board(make_dataset, root: Path, counts: dict) -> None:
    make_dataset(root, {"smoke": counts}, judges=("heuristic",))
    subs = root / "data" / "submissions" / "submissions.parquet"
    pd.read_parquet(subs).assign(family=None).to_parquet(subs, index=False)  # no submission names a family


def _pick(page, dropdown_id: str, option: str):
    page.click(f"#{dropdown_id} input")
    page.locator("[role=option]", has_text=option).first.click()


def test_first_screen_and_a_release_kept_in_the_address(chromium, running_app, make_dataset, tmp_path):
    root = tmp_path / "board"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    _board(make_dataset, root, TWO)
    _commit(root, "two models", tag="v1")
    _board(make_dataset, root, THREE)
    _commit(root, "a third model")
    url = running_app(root)
    page = chromium(1280, 900)
    page.goto(url, wait_until="load")
    models = lambda: sorted(column_texts(page, "leaderboard-table", 1))  # noqa: E731

    # the first screen: the latest board, said so; no empty file box, no filter without values
    expect(page.locator("#version-select input")).to_have_value("latest", timeout=30_000)
    expect(page.locator("#judge-note")).to_contain_text("Version shown: latest (releases: v1)")
    settle(page)
    assert models() == sorted(THREE)
    expect(page.locator("#download-files")).to_be_hidden()
    expect(page.locator("#family-filter")).to_be_hidden()
    expect(page.locator("#size-filter")).to_be_visible()

    # switch to the release: its table, said on the page and kept in the address
    _pick(page, "version-select", "v1")
    expect(page.locator("#judge-note")).to_contain_text("Version shown: release v1", timeout=20_000)
    expect(page).to_have_url(f"{url}?version=v1", timeout=20_000)
    settle(page)
    assert models() == sorted(TWO)

    # the address again (a reader's link, a reload): the same version
    page.reload(wait_until="load")
    expect(page.locator("#version-select input")).to_have_value("v1", timeout=30_000)
    expect(page.locator("#judge-note")).to_contain_text("Version shown: release v1")
    settle(page)
    assert models() == sorted(TWO)
    page.click("#download-table")  # the file box appears once there are files: v1's table
    expect(page.locator("#download-files a").first).to_be_visible(timeout=20_000)
    csv = page.request.get(page.locator("#download-files a").first.get_attribute("href")).text()
    assert "org/beta-360m" in csv and "org/gamma-1b" not in csv

    # a version the board has no tag for is dropped like any unknown query value, never rendered
    page.goto(f"{url}?version=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E", wait_until="load")
    expect(page.locator("#version-select input")).to_have_value("latest", timeout=30_000)
    settle(page)
    expect(page).to_have_url(url)  # dropped from the address too
    assert models() == sorted(THREE) and page.dialogs == []
    assert page.locator("#judge-note img").count() == 0


def test_releases_are_held_least_recently_used_and_listed_newest_first(make_dataset, tmp_path):
    from space.versions import Releases, release_names

    root = tmp_path / "board"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    for n, tag in enumerate(("v1", "v2", "v3"), start=1):
        _board(make_dataset, root, dict(list(THREE.items())[:n]))
        _commit(root, f"{n} model(s)", tag=tag)
    # the card's order (the releases it lists, newest first), then the other tags; names not tagged are dropped
    assert release_names(root, [{"name": "v1"}, {"name": "v3"}, {"name": "gone"}]) == ["v3", "v1", "v2"]
    assert release_names(f"{root}@v1", []) == []  # a board served at a revision is pinned there
    held = Releases(keep=2)
    sizes = {name: held.get(root, name)[0].leaderboard["model_id"].nunique() for name in ("v1", "v2")}
    assert sizes == {"v1": 1, "v2": 2}
    first = held.get(root, "v1")[0]
    held.get(root, "v3")  # v2 was used least recently: it goes
    assert held.held() == ["v1", "v3"] and held.get(root, "v1")[0] is first
