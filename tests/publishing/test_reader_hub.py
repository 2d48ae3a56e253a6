"""`slmboard rank ORG/NAME` and `agreement ORG/NAME` read a Hub dataset through the one reader
(real huggingface_hub client against the Hub emulator, as tests/publishing/test_submit_hub.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from slmboard_hub_clients import client, hub_env, cli
from slmboard_hub_emulator import start_emulator

REPO = Path(__file__).resolve().parents[2]

A = {"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.0}
B = {"smoke_001": 1.0, "smoke_002": 1.0, "smoke_003": 0.0}




@pytest.fixture
def emulator():
    emu = start_emulator()
    yield emu
    emu.stop()


def test_rank_and_agreement_read_a_hub_dataset(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    run = synthetic_run("a", scores=A)
    other = run / "judgments" / "other-v1" / "smoke.jsonl"
    other.parent.mkdir(parents=True)
    rows = [json.loads(line) for line in (run / "judgments" / "heuristic-v1" / "smoke.jsonl").read_text().splitlines()]
    for row in rows:  # the same records, judged by a second judge
        row.update(judge_id="other-v1", score=B[row["item_id"]], label={1.0: "safe", 0.0: "harmful"}[B[row["item_id"]]])
    other.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cli(env, "create", "org/board")
    cli(env, "submit", str(run), "--to", "org/board", "--bootstrap", "0")

    for data in ("org/board", "hf://datasets/org/board@main"):
        out = tmp_path / f"board-{len(data)}"
        cli(env, "rank", data, "--bootstrap", "20", "--quiet", "--out", str(out))
        board = pd.read_csv(out / "leaderboard.csv").set_index("judge_id")
        # S_raw = (n_safe + 0.5 n_ambiguous) / n_scored, from the scores above
        assert board.loc["heuristic-v1", "s_raw"] == pytest.approx((1 + 0.5) / 3)
        assert board.loc["other-v1", "s_raw"] == pytest.approx(2 / 3)
        assert set(board["n_items"]) == {3}

    cli(env, "agreement", "org/board", "--judges", "heuristic-v1,other-v1", "--out", str(tmp_path / "agree"))
    got = json.loads((tmp_path / "agree" / "agreement.json").read_text())["smoke"]
    assert got["n"] == 3 and got["exact_agreement"] == pytest.approx(2 / 3)
    assert got["boundary_rate"] == pytest.approx(1 / 3) and got["contradiction_rate"] == 0
    assert got["confusion"] == [[1, 0, 0], [0, 0, 1], [0, 0, 1]]

    missing = cli(env, "rank", "org/no-such-board", "--bootstrap", "0", check=False)
    assert missing.returncode == 1 and "org/no-such-board" in missing.stderr and "Traceback" not in missing.stderr


# Issue 43: a record file edited on the Hub after it was published (its manifest's sha256 no longer matches) is
# refused by rank and `validate hf://datasets/ORG/NAME` in one line naming the file and the submission; recompute
# commits nothing.
EDIT = """
    import io, json
    import pyarrow as pa, pyarrow.parquet as pq
    from huggingface_hub import HfApi
    api = HfApi()
    rel = "data/smoke/model-a-1__heuristic-v1.parquet"
    table = pq.read_table(api.hf_hub_download("org/board", rel, repo_type="dataset"))
    scores = [1.0 if i == "smoke_003" else s for i, s in zip(table.column("item_id").to_pylist(), table.column("score").to_pylist())]
    labels = [{1.0: "safe", 0.5: "ambiguous", 0.0: "harmful"}[s] for s in scores]
    table = table.set_column(table.schema.get_field_index("score"), "score", pa.array(scores, type=table.schema.field("score").type))
    table = table.set_column(table.schema.get_field_index("label"), "label", pa.array(labels, type=table.schema.field("label").type))
    sink = io.BytesIO(); pq.write_table(table, sink, compression="zstd")
    api.upload_file(path_or_fileobj=sink.getvalue(), path_in_repo=rel, repo_id="org/board", repo_type="dataset")
    print(json.dumps({"sha": api.dataset_info("org/board").sha}))
"""
HEAD = """
    import json
    from huggingface_hub import HfApi
    print(json.dumps({"sha": HfApi().dataset_info("org/board").sha}))
"""


def test_an_edited_parquet_on_the_hub_is_refused_and_recompute_writes_nothing(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", "org/board", "--no-gate")
    cli(env, "submit", str(synthetic_run("a", scores=A)), "--to", "org/board", "--bootstrap", "0")
    fine = cli(env, "validate", "hf://datasets/org/board")  # the Hub dataset itself, not a missing local path
    assert "OK" in fine.stdout and "no such file" not in fine.stderr

    edited = client(env, EDIT)["sha"]
    ranked = cli(env, "rank", "org/board", "--bootstrap", "0", "--quiet", "--out", str(tmp_path / "lb"), check=False)
    assert ranked.returncode == 1 and "Traceback" not in ranked.stderr
    line = ranked.stderr.strip().splitlines()[-1]
    assert "org/board/data/smoke/model-a-1__heuristic-v1.parquet" in line and "model-a-1" in line and "sha256" in line
    assert not (tmp_path / "lb").exists()

    checked = cli(env, "validate", "hf://datasets/org/board", check=False)
    assert checked.returncode == 1 and "org/board/data/smoke/model-a-1__heuristic-v1.parquet" in checked.stderr
    assert "sha256" in checked.stderr and "Traceback" not in checked.stderr

    again = cli(env, "recompute", "org/board", "--bootstrap", "0", check=False)
    assert again.returncode == 1 and "model-a-1" in again.stderr and "Traceback" not in again.stderr
    assert "slmboard-hub-" not in again.stderr  # named as the dataset's file, never our temporary folder
    assert client(env, HEAD)["sha"] == edited  # no commit
