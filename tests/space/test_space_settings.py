"""`serve` passes its settings to the app (no environment variable read at import time), and the
terminal tables and the Space share one set of labels (schemas.display)."""
from __future__ import annotations

import os

import pandas as pd


def test_serve_passes_refresh_to_the_app(monkeypatch, tmp_path):
    import space.app
    from toolkit import cli

    seen = {}
    monkeypatch.setattr(space.app, "launch", lambda data, host, port, block, settings: seen.update(
        data=data, refresh=settings.refresh_seconds) or "http://x")
    monkeypatch.delenv("SLMBOARD_REFRESH_SECONDS", raising=False)
    assert cli.main(["serve", str(tmp_path), "--refresh", "7"]) == 0
    assert seen == {"data": str(tmp_path), "refresh": 7.0}
    assert "SLMBOARD_REFRESH_SECONDS" not in os.environ
    assert cli.main(["serve", str(tmp_path)]) == 0 and seen["refresh"] == 300.0


def test_refresh_zero_builds_no_timer(tmp_path, make_dataset):
    import gradio as gr

    from space.app import build_app
    from space.state import Settings

    root = make_dataset(tmp_path / "ds")
    timers = lambda demo: [b for b in demo.blocks.values() if isinstance(b, gr.Timer)]  # noqa: E731
    assert timers(build_app(root, Settings(refresh_seconds=0, warm=False))) == []
    assert [t.value for t in timers(build_app(root, Settings(refresh_seconds=5, warm=False)))] == [5]


def test_terminal_and_space_share_labels(tmp_path, make_dataset):
    from rich.console import Console

    from schemas import POLICIES
    from schemas.display import POLICY_SHORT, S_ADJ_EXPLANATION
    from toolkit.data.board_figures import rank_sensitivity_figure
    from space.texts import DEFINITIONS
    from toolkit.outputs.terminal import print_leaderboard

    board = pd.read_parquet(make_dataset(tmp_path / "ds") / "data" / "leaderboard" / "leaderboard.parquet")
    board["rank_ub"] = board["rank_raw"]  # the terminal prints every LeaderboardRow column; the fixture omits this one
    console = Console(record=True, width=400)
    print_leaderboard(board, console=console)
    text = console.export_text()
    assert S_ADJ_EXPLANATION in text
    assert all(POLICY_SHORT[p] in text for p in POLICIES) and "p.25" in text and "p_low" not in text
    assert S_ADJ_EXPLANATION.split(" = ", 1)[1] in DEFINITIONS
    ticks = [t.get_text() for t in rank_sensitivity_figure(board[board.suite == "smoke"]).axes[0].get_xticklabels()]
    assert ticks == [f"{p}\n({POLICY_SHORT[p]})" for p in POLICIES]


def test_the_queue_summarises_its_event_log_rarely(running_app, dataset):
    """Gradio's default summarises up to 10,000 logged events (a pandas group-by) after every event, a
    cost that grows with uptime; the Space asks for it once per 1,000 events."""
    demo, _ = running_app(dataset, with_app=True)
    assert demo._queue.ANAYLTICS_CACHE_FREQUENCY == 1000
