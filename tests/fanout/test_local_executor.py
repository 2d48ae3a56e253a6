"""The same fan-out on the `local` executor (no Ray): shard jobs in this process, merged, judged, submitted."""
from __future__ import annotations

import json

import pytest

from toolkit import api
from toolkit.workflows.fanout import read_attempts
from slmboard_testing import new_board

pytestmark = pytest.mark.slow


def test_evaluate_in_shards_on_the_local_executor_publishes_once_and_resumes(tmp_path):
    run, dataset = tmp_path / "run", tmp_path / "dataset"
    steps = api.EvaluationOptions(generation=api.GenerationRunOptions(suites="smoke", limit=3, max_new_tokens=4),
                                  submission=api.SubmitOptions(n_bootstrap=20),
                                  execution=api.FanoutOptions(executor="local", shards=2))
    quiet = api.Services(progress=False)
    new_board(dataset)
    first = api.evaluate(run, dataset, options=steps, services=quiet)
    assert first.submission_id == json.loads((run / "run.json").read_text())["submission_id"]
    assert first.n_records == 3 and (dataset / "submissions" / f"{first.submission_id}.json").is_file()
    judged = (run / "judgments" / "heuristic-v1" / "smoke.jsonl").read_text().splitlines()
    assert sorted(json.loads(x)["item_id"] for x in judged) == ["smoke_001", "smoke_002", "smoke_003"]

    again = api.evaluate(run, dataset, options=steps, services=quiet)  # complete shards, judged run, published: nothing redone
    assert again.revision == "already-published" and "already in" in again.notes[0]
    assert [len(read_attempts(run, k, 2)) for k in range(2)] == [1, 1]
