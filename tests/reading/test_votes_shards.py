"""One schema change (votes, no_decision): a board holding a shard written before it (no votes column) and one
after (a panel's votes and no_decision items) reads through load_dataset and rank."""
from __future__ import annotations

import json

from slmboard_testing import make_item_row, make_run, new_board
from toolkit import api
from toolkit.core.arrow_schemas import ITEM_RECORD_SCHEMA
from toolkit.core.records_io import write_jsonl_atomic
from toolkit.core.runs import RunDir
from toolkit.data.reading import leaderboard
from toolkit.stages.judging.components import JudgeSpec
from toolkit.stages.judging.runner import judge_run

ITEMS = {"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.0}


def test_board_with_shards_before_and_after_votes(tmp_path, monkeypatch):
    import importlib

    submitting = importlib.import_module("toolkit.outputs.publishing.submit")

    board = new_board(tmp_path / "board")
    old = make_run(tmp_path / "old", ITEMS, model_id="org/model-a", submission_id="model-a-1")
    before = ITEM_RECORD_SCHEMA.remove(ITEM_RECORD_SCHEMA.get_field_index("votes"))
    original = submitting._parquet_bytes

    def published_before(rows, schema=ITEM_RECORD_SCHEMA):  # as shards were written before the change: no votes
        if schema is ITEM_RECORD_SCHEMA:
            rows, schema = [{k: v for k, v in r.items() if k != "votes"} for r in rows], before
        return original(rows, schema)

    monkeypatch.setattr(submitting, "_parquet_bytes", published_before)
    api.submit(old, board, api.SubmitOptions(n_bootstrap=0))
    monkeypatch.undo()
    new = make_run(tmp_path / "new", ITEMS, model_id="org/model-b", submission_id="model-b-1", judged=True)
    run = RunDir(new)
    prompts = {json.loads(l)["item_id"]: json.loads(l)["prompt"] for l in run.response_file("smoke").read_text().splitlines()}
    for member, scores in (("imported-a", [1.0, 0.0, 0.0]), ("imported-b", [1.0, 1.0, 0.0])):
        write_jsonl_atomic(run.judgment_file(member, "smoke"),
                           [make_item_row(i, s, judge_id=member, model_id="org/model-b", submission_id="model-b-1",
                                          prompt=prompts[i]) for i, s in zip(ITEMS, scores)])
        run.record_judge_fits(member, ["free-text", "free-text-gold"])
    panel = JudgeSpec.of("panel:majority:imported-b+imported-a")
    judge_run(new, panel, show_progress=False)
    api.submit(new, board, api.SubmitOptions(n_bootstrap=0))
    import pyarrow.parquet as pq

    shards = sorted((board / "data").rglob("*.parquet"))
    with_votes = [("votes" in pq.read_schema(f).names) for f in shards if "leaderboard" not in f.name]
    assert True in with_votes and False in with_votes
    table = leaderboard(board, n_bootstrap=0)
    row = table[table["judge_id"] == panel.judge_id()].iloc[0]
    assert (row["n_scored"], row["n_undecided"], row["n_failed"]) == (2, 1, 0)
    assert set(table["model_id"]) == {"org/model-a", "org/model-b"}
    import datasets

    rows = datasets.load_dataset(str(board), "smoke", split="test").to_pandas()
    panel_rows = rows[rows["judge_id"] == panel.judge_id()]
    assert len(panel_rows) == 3 and sorted(panel_rows["judge_status"]) == ["no_decision", "ok", "ok"]
    assert rows[rows["model_id"] == "org/model-a"]["votes"].isna().all()
