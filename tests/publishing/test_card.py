"""The dataset card: YAML configs, generated schema tables, licences, citations, how to load."""
from __future__ import annotations

import yaml

from schemas import ItemRecord, LeaderboardRow, ModerationRecord
from toolkit import api
from toolkit.publishing.card import render_card, schema_table


def test_card_of_a_published_folder(synthetic_run, tmp_path):
    ds = tmp_path / "ds"
    api.submit(synthetic_run("a"), to=ds, n_bootstrap=0)
    text = render_card(ds, repo_id="org/board")
    header = yaml.safe_load(text.split("---", 2)[1])
    names = [c["config_name"] for c in header["configs"]]
    assert names[0] == "smoke" and header["configs"][0]["default"] is True
    assert {"leaderboard", "submissions"} <= set(names)
    assert header["configs"][0]["data_files"] == [{"split": "test", "path": "data/smoke/*.parquet"}]
    for model in (ItemRecord, ModerationRecord, LeaderboardRow):  # every field of every schema, generated
        for field in model.model_fields:
            assert f"| `{field}` |" in text, (model.__name__, field)
    assert schema_table(ItemRecord) in text
    assert 'load_dataset("org/board", "smoke", split="test")' in text
    for must in ("HarmBench (MIT)", "@inproceedings{shaik2026benchmarking", "@misc{hu2026safetyflag", "| `model-a-1` |"):
        assert must in text
    assert (ds / "README.md").read_text() == render_card(ds)  # what submit wrote is the rendered template
