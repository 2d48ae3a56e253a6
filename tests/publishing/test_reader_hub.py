"""`slmboard rank ORG/NAME` and `agreement ORG/NAME` read a Hub dataset through the one reader
(real huggingface_hub client against the Hub emulator, as tests/publishing/test_submit_hub.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from slmboard_hub_clients import hub_env, cli
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
