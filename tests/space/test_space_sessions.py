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


def _restore_fn(demo):
    page = demo.slmboard_page
    return next(f for f in demo.fns.values() if getattr(f.fn, "__qualname__", "").endswith("restore_event.<locals>.run")
                and len(f.outputs) == len(page.restore_at["items"]))


def _link_inputs(demo, query: str) -> list:
    return [query, None, None, "leaderboard", *(p.default for p in demo.slmboard_page.params)]


def test_events_answer_and_update_the_session_as_with_gradios_own(dataset):
    demo = _app(dataset)
    fn = _restore_fn(demo)
    own, lazy = _gradios_own(demo), SessionState(demo)
    # two events on one session (inputs read and outputs written through it): the second one updates what the
    # first rendered
    for query in ("suite=smoke&judge=heuristic&tab=items&label=ambiguous", "suite=xstest&tab=items&label=safe"):
        out_own = asyncio.run(demo.process_api(fn, _link_inputs(demo, query), state=own))
        out_lazy = asyncio.run(demo.process_api(fn, _link_inputs(demo, query), state=lazy))
        assert out_lazy["data"] == out_own["data"]
        assert all(lazy.config_values[o._id] == own.config_values[o._id] for o in fn.outputs)

    def page_blocks(session):  # the events also add blocks of their own (new ids in each session): not compared
        return [c for c in session.components if c["id"] in demo.blocks]

    assert len(list(lazy.components)) == len(list(own.components)) and page_blocks(lazy) == page_blocks(own)


def test_argument_specs_are_read_once_per_component_class(dataset, monkeypatch):
    import inspect

    demo = _app(dataset)
    fn = _restore_fn(demo)
    asyncio.run(demo.process_api(fn, _link_inputs(demo, "tab=items&label=safe"), state=SessionState(demo)))
    read = []
    real = inspect.getfullargspec
    monkeypatch.setattr(inspect, "getfullargspec", lambda f: (read.append(f), real(f))[1])
    out = asyncio.run(demo.process_api(fn, _link_inputs(demo, "tab=items&label=ambiguous"), state=SessionState(demo)))
    assert len(out["data"]) == len(fn.outputs)
    assert read == []  # every output's component built again, no argument spec read again


def test_the_table_endpoint_follows_a_data_change(dataset, make_dataset):
    demo = _app(dataset)
    table = next(f.fn for f in demo.fns.values() if f.api_name == "table")
    before = table("smoke", "heuristic")
    assert len(before["data"]) == 3 and table("smoke", "heuristic") == before
    make_dataset(dataset, {"smoke": {"org/only-one": (1, 1, 8, 0)}})
    demo.slmboard_holder.reload()
    after = table("smoke", "heuristic")
    assert [row[before["headers"].index("Model")] for row in after["data"]] == ["org/only-one"]
