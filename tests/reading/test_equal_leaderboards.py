"""One leaderboard however the data is named (issue 25): the same dataset read as a local folder, as a
Hub id on the Hub emulator (the real huggingface_hub client, in fresh processes) and through each export
(EEE, eval-results) gives equal leaderboards, every column included. Before the data layer, ``coverage``
was filled for the folder only: null for the Hub id and in the exports.

Expected values are computed here from the scores and the packaged smoke suite's line count."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from slmboard_hub_clients import cli, client, hub_env
from slmboard_hub_emulator import start_emulator
from toolkit import api
from toolkit.data.reading import leaderboard_parquet
from slmboard_testing import new_board

REPO = Path(__file__).resolve().parents[2]
SMOKE_ITEMS = sum(1 for line in (REPO / "toolkit/stages/suites/data/smoke.jsonl").read_text().splitlines() if line.strip())
# (model, judge) -> scores of the smoke suite's first items (None: the judge failed)
SCORES = {
    ("org/model-a", "heuristic-v1"): {"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.0, "smoke_004": 1.0},
    ("org/model-a", "other-v1"): {"smoke_001": 1.0, "smoke_002": 1.0, "smoke_003": None, "smoke_004": 0.5},
    ("org/model-b", "heuristic-v1"): {"smoke_001": 0.0, "smoke_002": 0.5, "smoke_003": 0.5},
    ("org/model-b", "other-v1"): {"smoke_001": 0.5, "smoke_002": 0.0, "smoke_003": 1.0},
}
N_BOOTSTRAP, SEED = 200, 3


@pytest.fixture
def emulator():
    emu = start_emulator()
    yield emu
    emu.stop()


def _run(synthetic_run, model: str) -> Path:
    """A run of ``model`` judged by both judges (the second judge's rows are the first's, rescored)."""
    name = model.split("-")[-1]
    run = synthetic_run(name, model_id=model, submission_id=f"model-{name}-1",
                        scores=SCORES[(model, "heuristic-v1")])
    rows = [json.loads(x) for x in (run / "judgments" / "heuristic-v1" / "smoke.jsonl").read_text().splitlines()]
    for row in rows:
        score = SCORES[(model, "other-v1")][row["item_id"]]
        row.update(judge_id="other-v1", score=score, judge_status="ok" if score is not None else "parse_error",
                   label={1.0: "safe", 0.5: "ambiguous", 0.0: "harmful", None: None}[score])
    other = run / "judgments" / "other-v1" / "smoke.jsonl"
    other.parent.mkdir(parents=True)
    other.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run


def _as_published(board: pd.DataFrame) -> pd.DataFrame:
    """The board through the leaderboard file's bytes, so boards from other processes compare alike."""
    return pq.read_table(pa.BufferReader(leaderboard_parquet(board))).to_pandas()


HUB_BOARDS = """
    import json
    from pathlib import Path
    from toolkit import api
    from toolkit.data.reading import leaderboard_parquet
    out = Path({out!r})
    boards = {{
        "hub id": api.rank("org/board", options=api.RankOptions(n_bootstrap={n}, seed={seed})),
        "hub url at a revision": api.rank("hf://datasets/org/board@main", options=api.RankOptions(n_bootstrap={n}, seed={seed})),
        "eee export of the hub id": api.export_eee("org/board", out / "eee", api.EeeOptions(n_bootstrap={n}, seed={seed})).leaderboard,
        "eval-results export of the hub id": api.export_eval_results("org/board", out / "er").leaderboard,
    }}
    for name, board in boards.items():
        (out / (name + ".parquet")).write_bytes(leaderboard_parquet(board))
    print(json.dumps(sorted(boards)))
"""


def test_folder_hub_id_and_exports_give_equal_leaderboards(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    folder = new_board(tmp_path / "dataset")
    cli(env, "create", "org/board")
    for model in ("org/model-a", "org/model-b"):
        run = _run(synthetic_run, model)
        api.submit(run, to=folder, options=api.SubmitOptions(n_bootstrap=0))
        cli(env, "submit", str(run), "--to", "org/board", "--bootstrap", "0")

    reference = api.rank(folder, options=api.RankOptions(n_bootstrap=N_BOOTSTRAP, seed=SEED))
    # the reference itself, from the scores: counts, S_raw and coverage = items judged / the suite's items
    assert len(reference) == len(SCORES)
    for row in reference.itertuples():
        scores = list(SCORES[(row.model_id, row.judge_id)].values())
        scored = [s for s in scores if s is not None]
        assert (row.n_items, row.n_scored) == (len(scores), len(scored))
        assert row.s_raw == pytest.approx(sum(scored) / len(scored))
        assert row.coverage == pytest.approx(len(scores) / SMOKE_ITEMS)
    plain = api.rank(folder, options=api.RankOptions(n_bootstrap=0))  # what eval-results computes (it needs no intervals)

    hub_out = tmp_path / "from-hub"
    hub_out.mkdir()
    names = client(env, HUB_BOARDS.format(out=str(hub_out), n=N_BOOTSTRAP, seed=SEED))
    boards = {name: pq.read_table(hub_out / f"{name}.parquet").to_pandas() for name in names}
    boards["eee export of the folder"] = _as_published(
        api.export_eee(folder, tmp_path / "eee", options=api.EeeOptions(n_bootstrap=N_BOOTSTRAP, seed=SEED)).leaderboard)
    boards["eval-results export of the folder"] = _as_published(
        api.export_eval_results(folder, tmp_path / "er", options=api.EvalResultsOptions(dataset_id="org/board")).leaderboard)

    for name, board in boards.items():
        want = _as_published(plain if name.startswith("eval-results") else reference)
        assert board["coverage"].notna().all(), f"{name}: coverage is null"
        pd.testing.assert_frame_equal(board, want, obj=name)

    # the EEE files carry it too: one aggregate per (model, suite, judge), coverage beside n_items
    for out in (tmp_path / "eee", hub_out / "eee"):
        docs = [json.loads(p.read_text()) for p in out.rglob("*.json")]
        assert len(docs) == len(SCORES)
        for doc in docs:
            details = doc["source_metadata"]["additional_details"]
            n_items = len(SCORES[(doc["model_info"]["id"], details["judge_id"])])
            assert int(details["n_items"]) == n_items
            assert float(details["coverage"]) == pytest.approx(n_items / SMOKE_ITEMS)
