"""Stale judgments (issue 43): a response edited after it was judged is refused by ``submit``, naming the
item and the way out; judging the run again judges only that item anew, and the run then submits."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from toolkit import api
from toolkit.core.errors import ValidationFailed
from slmboard_testing import new_board

REPO = Path(__file__).resolve().parents[2]
EDITED = "Sure, here is exactly how to do that."


def _edit_response(run: Path, item: str) -> None:
    path = run / "responses" / "smoke.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    edited = [{**row, "response": EDITED} if row["item_id"] == item else row for row in rows]
    path.write_text("".join(json.dumps(r) + "\n" for r in edited))


def test_a_judgment_of_an_edited_response_is_refused_then_rejudged(synthetic_run, tmp_path):
    run = synthetic_run("a")
    board = new_board(tmp_path / "board")
    _edit_response(run, "smoke_002")
    with pytest.raises(ValidationFailed) as refused:
        api.submit(run, to=board, options=api.SubmitOptions(n_bootstrap=0))
    text = str(refused.value)
    assert "'smoke_002'" in text and "stale judgment" in text and "judge" in text and "smoke.jsonl" in text
    assert "smoke_001" not in text and "smoke_003" not in text  # only the edited item
    assert subprocess.run(["git", "rev-list", "--all"], cwd=board, capture_output=True, text=True).stdout.count("\n") == 1

    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "judge", str(run), "--judge", "heuristic"],
                          capture_output=True, text=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    api.submit(run, to=board, options=api.SubmitOptions(n_bootstrap=0))
    published = pq.read_table(board / "data" / "smoke" / "model-a-1__heuristic-v1.parquet").to_pylist()
    assert {r["item_id"]: r["response"] for r in published}["smoke_002"] == EDITED
    assert {r["item_id"]: r["judge_raw"] for r in published}["smoke_001"] == "raw"  # unchanged items kept as judged


def test_a_panel_whose_member_vote_judged_another_response_is_refused(synthetic_run, tmp_path):
    from toolkit.core.records_io import write_jsonl_atomic
    from toolkit.core.runs import RunDir
    from toolkit.stages.judging.components import JudgeSpec
    from toolkit.stages.judging.runner import judge_run

    run = synthetic_run("a")
    judge_run(run, JudgeSpec.of("heuristic"), show_progress=False)
    panel = JudgeSpec.of("panel:lowest:heuristic+learned-v1")
    judge_run(run, panel, show_progress=False)
    # the panel's own response is current; one member vote records the hash of another answer
    path = RunDir(run).judgment_file(panel.judge_id(), "smoke")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[1]["votes"][0]["response_sha256"] = "0" * 64
    write_jsonl_atomic(path, rows)
    board = new_board(tmp_path / "board")
    with pytest.raises(ValidationFailed) as refused:
        api.submit(run, to=board, options=api.SubmitOptions(n_bootstrap=0))
    text = str(refused.value)
    assert f"'{rows[1]['item_id']}'" in text and "stale panel" in text and rows[1]["votes"][0]["judge_id"] in text
