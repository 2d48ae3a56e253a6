"""An imported (partial) run goes through judge → agreement → submit --allow-partial → rank unchanged."""
from __future__ import annotations

import csv
import json

import pandas as pd
import pyarrow.parquet as pq

from importing_helpers import read_csv_rows, tree_digest
from test_table import canonical, expected_refusal_score
from toolkit.cli import main
from toolkit.data.reading import open_data


def test_imported_subset_is_judged_compared_published_partially_and_ranked(gpt4_gpteval, benchmarks, tmp_path, capsys):
    rows = read_csv_rows(gpt4_gpteval)
    subset = rows[:24] + [r for r in rows if r["id"] == "v2-195"]
    src = tmp_path / "subset.csv"
    with open(src, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(subset)
    run, dataset = tmp_path / "runs" / "gpt4", tmp_path / "my-dataset"
    assert main(["import", "table", str(src), "--suite", "xstest", "--data-dir", str(benchmarks), "--model-id",
                 "openai/gpt-4-0613", "--out", str(run), "--columns", "prompt=prompt,response=completion",
                 "--judge-column", "human-xstest=final_label", "--judge-column", "gpt4-xstest=gpt4_label",
                 "--labels", "refusal", "--skip-unmatched"]) == 0
    assert main(["judge", str(run), "--judge", "heuristic"]) == 0
    assert main(["agreement", str(run), "--judges", "human-xstest,heuristic-v1", "--out", str(tmp_path / "agreement")]) == 0
    agreement = json.loads((tmp_path / "agreement" / "agreement.json").read_text())
    assert "xstest" in json.dumps(agreement)
    capsys.readouterr()

    # Without --allow-partial, submit refuses the run as it always has; nothing is published.
    assert main(["submit", str(run), "--to", str(dataset), "--data-dir", str(benchmarks), "--bootstrap", "0"]) == 1
    assert "426 of the 450 canonical xstest item(s) missing" in capsys.readouterr().err
    assert tree_digest(dataset) == tree_digest(tmp_path / "nothing")

    assert main(["submit", str(run), "--to", str(dataset), "--allow-partial", "--data-dir", str(benchmarks), "--bootstrap", "0"]) == 0
    manifest = json.loads(next((dataset / "submissions").glob("*.json")).read_text())
    kept_ids = {f"xstest_{r['id'].removeprefix('v2-')}" for r in rows[:24]}
    all_ids = {f"xstest_{n}" for n in canonical(benchmarks)}
    assert manifest["partial"] is True and manifest["suite_totals"] == {"xstest": 450}
    assert set(manifest["missing_items"]["xstest"]) == all_ids - kept_ids
    assert open_data(dataset).suite_totals() == {"xstest": 450}  # what the leaderboard is given

    assert main(["rank", str(dataset), "--bootstrap", "0", "--out", str(tmp_path / "board"), "--quiet"]) == 0
    board = pq.read_table(tmp_path / "board" / "leaderboard.parquet").to_pandas()
    assert set(board["judge_id"]) == {"human-xstest", "gpt4-xstest", "heuristic-v1"}
    human = board[board["judge_id"] == "human-xstest"].iloc[0]
    prompts = canonical(benchmarks)
    expected = [expected_refusal_score(r["final_label"], prompts[r["id"].removeprefix("v2-")]["label"]) for r in rows[:24]]
    assert human["n_items"] == 24
    assert abs(human["s_raw"] - sum(expected) / len(expected)) < 1e-12
    if "coverage" in board.columns:  # interface 4 (the reader's leaderboard column) present
        assert abs(human["coverage"] - 24 / 450) < 1e-12
    published_board = pq.read_table(dataset / "data" / "leaderboard" / "leaderboard.parquet").to_pandas()
    if "coverage" in published_board.columns:
        assert set(published_board["coverage"].round(12)) == {round(24 / 450, 12)}
    published = pd.concat([pq.read_table(p).to_pandas() for p in (dataset / "data" / "xstest").glob("*.parquet")])
    assert set(published["item_id"]) == kept_ids
