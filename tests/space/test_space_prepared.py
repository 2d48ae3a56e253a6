"""What a shared link costs the server (space/prepared.py, space/signatures.py): a restored view is
computed once per (data version, query), each tab's restore event answers for that tab's components
only, the leaderboard's views of every (suite, judge, sort) are prepared per data version, and the
cached signatures leave Gradio's configs unchanged."""
from __future__ import annotations

import json
from collections import Counter

from space.views import SORTS


def _app(dataset, warm=False):
    from space.app import build_app
    from space.state import Settings

    demo = build_app(dataset, Settings(warm=warm, refresh_seconds=0))
    calls: Counter = Counter()
    for view in demo.slmboard_views:
        if view.update is not None:
            view.update = (lambda f, key: lambda *a: (calls.update([key]), f(*a))[1])(view.update, view.key)
    return demo, demo.slmboard_page, calls


def _page_state(page) -> list:
    """What a freshly opened page sends with its restore event: the baked landing inputs."""
    return [None, None, "leaderboard", *(p.default for p in page.params)]


def test_a_shared_link_is_computed_once_per_data_version(dataset):
    demo, page, calls = _app(dataset)
    query = "suite=xstest&judge=openai:gpt-judge&sort=model&tab=judges"
    restore = page.restore_event("judges")
    first = restore(query, *_page_state(page))
    for _ in range(3):  # a burst of visitors on the one link
        again = restore(query, *_page_state(page))
        assert len(again) == len(first)
    assert calls["judges"] == 1 and calls["leaderboard"] == 2  # the table's view and the figure's, once each
    page.holder.reload()  # a new data version: computed again
    restore(query, *_page_state(page))
    assert calls["judges"] == 2


def test_each_tabs_restore_event_answers_for_that_tab_only(dataset):

    demo, page, _ = _app(dataset)
    config = demo.get_config_file()
    ids = {c["id"]: c.get("props", {}).get("elem_id") for c in config["components"]}
    by_trigger = {ids[t[0]]: d for d in config["dependencies"] for t in d["targets"] if d.get("backend_fn") and t[0] in ids}

    def outputs(elem_id):
        return {ids[o] for o in by_trigger[elem_id]["outputs"]}

    leaderboard, items = outputs("query-in-leaderboard"), outputs("query-in-items")
    assert {"leaderboard-table", "caption", "scores-ci", "suite-select", "judge-select", "sort-select"} <= leaderboard
    assert not {"items-table", "judges-agreement", "dis-table"} & leaderboard  # other tabs' components
    assert {"items-table", "items-model", "items-info", "leaderboard-table"} <= items
    assert not {"item-prompt", "empty-message", "tab-request", "judges-agreement"} & items
    assert len(by_trigger["query-in-items"]["outputs"]) < len(page.restore_out) - 10
    # a link that also sets an input of a tab it does not open goes to the restore event of every tab
    assert {"items-model", "dis-judge-a", "judges-agreement", "leaderboard-table"} <= outputs("query-in-all")


def test_the_leaderboards_views_are_prepared_per_data_version(dataset):
    demo, page, calls = _app(dataset, warm=True)
    page.preparing.join(120)
    prepared = calls["leaderboard"]
    board = page.holder.board
    assert prepared >= len(board.suites()) * 2  # table and figure of (suite, judge, sort)s, in the background
    restore = page.restore_event("leaderboard")
    for suite in board.suites():
        for judge in board.judges(suite):
            for sort in SORTS:
                restore(f"suite={suite}&judge={judge}&sort={sort}", *_page_state(page))
    assert calls["leaderboard"] == prepared  # every link of a (suite, judge, sort) found its views ready


def test_kept_signatures_leave_gradios_configs_unchanged(dataset):
    from space import signatures

    demo, _, _ = _app(dataset)
    kept = json.dumps(demo.get_config_file(), sort_keys=True, default=str)
    signatures.uninstall()
    try:
        plain = json.dumps(demo.get_config_file(), sort_keys=True, default=str)
    finally:
        signatures.install()
    assert kept == plain


def test_the_process_exits_cleanly_while_views_are_being_prepared(dataset):
    """A daemon thread still drawing a figure when the interpreter finalizes aborted the process (exit
    134, "terminate called without an active exception"): the preparation is stopped at exit."""
    import subprocess
    import sys
    import textwrap

    from tests.space.conftest import REPO, free_port

    script = textwrap.dedent(f"""
        import sys, threading
        sys.path.insert(0, {str(REPO)!r})
        from space.app import start
        demo, _ = start({str(dataset)!r}, port={free_port()})
        demo.close()
        print(sorted(t.name for t in threading.enumerate()))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert "slmboard-prepare-views" in done.stdout  # the fault is there: preparing when the process exits
    assert done.returncode == 0, done.stderr[-2000:]
