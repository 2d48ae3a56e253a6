"""Fixtures for the Space tests: a dataset folder written with pandas, and a running app."""
from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# `space/` is not an installed package (the wheel ships toolkit + schemas only); tests import it
# from the checkout, as `slmboard serve` does.
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from slmboard_space_pages import chromium_browser  # noqa: E402
from toolkit.testing.boards import XSS, leaderboard_rows, write_dataset  # noqa: E402  (the board writer, shared with bench/)


@pytest.fixture
def chromium():
    """Open pages in real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright):
    ``chromium(width, height, **context_options)``; any alert() lands in ``page.dialogs``."""
    with chromium_browser() as browser:

        def open_page(width: int, height: int, **options):
            pg = browser.new_page(viewport={"width": width, "height": height}, **options)
            pg.dialogs = []
            pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
            return pg

        yield open_page


@pytest.fixture
def dataset(tmp_path) -> Path:
    return write_dataset(tmp_path / "dataset")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def running_app():
    """Start the Space for a data dir on a free port (gradio serves from its own thread);
    yields a starter, closes every app afterwards."""
    from space.app import start

    apps = []

    def _start(data_dir, settings=None, with_app: bool = False):
        demo, url = start(data_dir, host="127.0.0.1", port=free_port(), settings=settings)
        apps.append(demo)
        return (demo, url) if with_app else url

    yield _start
    for demo in apps:
        demo.close()


# With --import-mode=importlib a conftest is not importable by test modules: the helpers
# above reach the tests as fixtures.
@pytest.fixture
def make_dataset():
    return write_dataset


@pytest.fixture
def lb_rows():
    return leaderboard_rows


@pytest.fixture
def xss() -> str:
    return XSS
