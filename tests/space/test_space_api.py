"""The running Space, queried through gradio_client (its named API endpoints)."""
from __future__ import annotations

import httpx
import pandas as pd
import pytest

gradio_client = pytest.importorskip("gradio_client")


def _client(url):
    return gradio_client.Client(url, verbose=False)


def test_named_endpoints(running_app, dataset, xss):
    client = _client(running_app(dataset))
    names = set(client.view_api(print_info=False, return_format="dict")["named_endpoints"])
    assert {"/leaderboard", "/table", "/suites", "/reload"} <= names

    assert client.predict(api_name="/suites") == {
        "smoke": ["heuristic", "openai:gpt-judge"], "xstest": ["heuristic", "openai:gpt-judge"]}

    rows = client.predict("smoke", "heuristic", api_name="/leaderboard")
    assert [(r["model_id"], r["rank_raw"], r["rank_adj"], r["delta_adj"]) for r in rows] == [
        ("org/alpha-135m", 1, 1, 0), ("org/beta-360m", 2, 3, -1), (xss, 3, 2, 1)]
    assert rows[0]["s_raw"] == pytest.approx(0.85) and rows[0]["s_adj"] == pytest.approx(0.85 * 0.9)
    assert {r["suite"] for r in rows} == {"smoke"} and {r["judge_id"] for r in rows} == {"heuristic"}

    rows = client.predict("xstest", "heuristic", api_name="/leaderboard")
    assert [r["model_id"] for r in rows] == [xss, "org/beta-360m", "org/alpha-135m"]
    assert rows[1]["n_failed"] == 2

    table = client.predict("smoke", "heuristic", api_name="/table")
    data = pd.DataFrame(table["data"], columns=table["headers"])
    assert list(data["Model"]) == ["org/alpha-135m", "org/beta-360m", xss]  # the raw string, not markup
    assert list(data["Δ adj"]) == ["0", "▼1", "▲1"]
    assert data["S_raw"][0] == "0.850 [0.800, 0.900]"
    assert list(data["Rank pessimistic"]) == ["1", "2", "3"] and list(data["Rank optimistic"]) == ["2", "1", "3"]

    assert client.predict("nope", "heuristic", api_name="/leaderboard") == []


def test_reload_picks_up_new_data(running_app, tmp_path, make_dataset):
    root = tmp_path / "ds"
    client = _client(running_app(root))  # nothing there yet
    assert client.predict(api_name="/suites") == {}
    make_dataset(root, {"smoke": {"org/only-one": (1, 1, 8, 0)}})
    assert client.predict(api_name="/reload") == {"smoke": ["heuristic", "openai:gpt-judge"]}
    rows = client.predict("smoke", "heuristic", api_name="/leaderboard")
    assert len(rows) == 1 and rows[0]["rank_raw"] == 1 and rows[0]["rank_range"] == 0


def test_empty_dataset_friendly_message(running_app, tmp_path):
    """(3) an empty dataset folder serves a page whose message explains what to do."""
    (tmp_path / "empty").mkdir()
    url = running_app(tmp_path / "empty")
    page = httpx.get(url, timeout=30)
    assert page.status_code == 200
    config = httpx.get(url.rstrip("/") + "/config", timeout=30).json()
    props = {c["props"].get("elem_id"): c["props"] for c in config["components"]}
    assert props["empty-message"]["visible"] is True
    assert "No submissions yet" in props["empty-message"]["value"]
    assert "slmboard demo" in props["empty-message"]["value"]
    assert props["suite-select"]["visible"] is False
    assert _client(url).predict("smoke", "heuristic", api_name="/leaderboard") == []
