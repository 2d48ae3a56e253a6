"""What each request costs the server around its function (space/sessions.py, space/api.py): a Gradio session
renders a block's config when it is first read, with the same configs and event results as Gradio's own
session, and the table endpoint, formatted once per data version, follows a data change."""
from __future__ import annotations

import asyncio

from gradio.state_holder import SessionState


def _app(dataset):
    from space.app import build_app
    from space.state import Settings

    return build_app(dataset, Settings(warm=False, refresh_seconds=0))


def _gradios_own(demo) -> SessionState:
    from space import sessions

    sessions.uninstall()
    try:
        return SessionState(demo)
    finally:
        sessions.install()


def test_a_session_renders_configs_when_read_the_same_as_gradios_own(dataset):
    demo = _app(dataset)
    own, lazy = _gradios_own(demo), SessionState(demo)
    assert dict.__len__(lazy.config_values) == 0  # nothing rendered when the session opens
    assert set(vars(lazy)) == set(vars(own))
    some = next(iter(dict(own.config_values)))
    assert lazy.config_values[some] == own.config_values[some] and dict.__len__(lazy.config_values) == 1
    # the deep-link route walks every config: all of them, the same, in the page's order
    assert list(lazy.components) == list(own.components)
    assert list(lazy.config_values) == list(own.config_values)


def test_an_event_answers_and_updates_the_session_as_with_gradios_own(dataset):
    demo = _app(dataset)
    page = demo.slmboard_page
    restore = page.restore_event("items")
    fn = next(f for f in demo.fns.values() if getattr(f.fn, "__qualname__", "").endswith("restore_event.<locals>.run")
              and len(f.outputs) == len(page.restore_at["items"]))
    args = ["suite=smoke&judge=heuristic&tab=items&label=ambiguous", None, None, "leaderboard",
            *(p.default for p in page.params)]
    own, lazy = _gradios_own(demo), SessionState(demo)
    out_own = asyncio.run(demo.postprocess_data(fn, restore(*args), own))
    out_lazy = asyncio.run(demo.postprocess_data(fn, restore(*args), lazy))
    assert out_lazy == out_own
    touched = [o._id for o in fn.outputs]
    assert all(lazy.config_values[i] == own.config_values[i] for i in touched)
    assert list(lazy.components) == list(own.components)


def test_the_table_endpoint_follows_a_data_change(dataset, make_dataset):
    demo = _app(dataset)
    table = next(f.fn for f in demo.fns.values() if f.api_name == "table")
    before = table("smoke", "heuristic")
    assert len(before["data"]) == 3 and table("smoke", "heuristic") == before
    make_dataset(dataset, {"smoke": {"org/only-one": (1, 1, 8, 0)}})
    demo.slmboard_holder.reload()
    after = table("smoke", "heuristic")
    assert [row[before["headers"].index("Model")] for row in after["data"]] == ["org/only-one"]
