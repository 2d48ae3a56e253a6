"""`recompute` (maintainers) and `evaluate` (generate → judge → submit in one command)."""
from __future__ import annotations

import json
import subprocess

import pandas as pd
import pyarrow.parquet as pq

from toolkit import api
from slmboard_testing import CannedBackend, new_board


def git_log(root):
    return subprocess.run(["git", "log", "--format=%s"], cwd=root, capture_output=True, text=True, check=True).stdout.splitlines()


def test_recompute_ignores_a_tampered_aggregate_and_commits(synthetic_run, tmp_path):
    ds = tmp_path / "ds"
    new_board(ds)
    api.submit(synthetic_run("a"), to=ds, options=api.SubmitOptions(n_bootstrap=0))
    api.submit(synthetic_run("b", model_id="org/model-b", submission_id="model-b-1",
                             scores={"smoke_001": 0.0, "smoke_002": 0.0, "smoke_003": 0.5}), to=ds, options=api.SubmitOptions(n_bootstrap=0))
    lb_path = ds / "data" / "leaderboard" / "leaderboard.parquet"
    honest = pd.read_parquet(lb_path)
    forged = honest.copy()
    forged.loc[forged.model_id == "org/model-b", "s_raw"] = 1.0  # someone edits the aggregate
    forged.to_parquet(lb_path, index=False)
    subprocess.run(["git", "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "forge"], cwd=ds, check=True)
    r = api.recompute(ds, judge="heuristic", options=api.RecomputeOptions(n_bootstrap=0, rejudge=3, threshold=0.0))
    rebuilt = pd.read_parquet(lb_path)
    b = rebuilt[rebuilt.model_id == "org/model-b"].iloc[0]
    assert b.s_raw == honest[honest.model_id == "org/model-b"].iloc[0].s_raw != 1.0
    assert git_log(ds)[0].startswith("Recompute leaderboard")
    assert r.figures and (ds / r.figures[0]).is_file()
    audit = json.loads((ds / "data" / "audit" / "rejudge.json").read_text())
    assert {a["submission_id"] for a in audit} == {"model-a-1", "model-b-1"}
    assert all(a["n_sampled"] == 3 and a["maintainer_judge"] for a in audit)
    assert r.flagged  # threshold 0: any disagreement between the synthetic labels and the heuristic is flagged
    # Running it again (no --rejudge: the audit file is left as it is) recomputes identical files,
    # so it makes no commit at all — not an empty one — and reports the unchanged head.
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ds, capture_output=True, text=True, check=True).stdout.strip()
    n = len(git_log(ds))
    again = api.recompute(ds, options=api.RecomputeOptions(n_bootstrap=0))
    assert len(git_log(ds)) == n and again.revision == head
    assert subprocess.run(["git", "status", "--porcelain"], cwd=ds, capture_output=True, text=True, check=True).stdout == ""


def test_evaluate_chains_generate_judge_submit_and_resumes(tmp_path):
    ds, out = tmp_path / "ds", tmp_path / "run"
    new_board(ds)
    r = api.evaluate(out, to=ds, model=CannedBackend(), options=api.EvaluationOptions(generation=api.GenerationRunOptions(suites=["smoke"], limit=4), submission=api.SubmitOptions(n_bootstrap=0)), services=api.Services(progress=False))
    assert r.n_records == 4 and (ds / "submissions" / f"{r.submission_id}.json").is_file()
    rows = pq.read_table(ds / "data" / "smoke").to_pylist()
    assert {x["model_id"] for x in rows} == {"org/canned-1m"} and len(rows) == 4
    again = api.evaluate(out, to=ds, model=CannedBackend(), options=api.EvaluationOptions(generation=api.GenerationRunOptions(suites=["smoke"], limit=4), submission=api.SubmitOptions(n_bootstrap=0)), services=api.Services(progress=False))
    assert again.revision == "already-published" and len(git_log(ds)) == 2  # create + the one submission


def test_rejudge_sample_reads_the_same_rows_as_sampling_the_whole_file(tmp_path, monkeypatch):
    """The audit's rows are those random.sample would draw from the whole file (same seed), read from
    only the row groups that hold them."""
    import random

    import pyarrow as pa

    from toolkit.outputs.publishing import recompute as rc

    n = 1000
    rows = [{"submission_id": "s-1", "model_id": "org/m", "suite": "smoke", "item_id": f"i{i:04d}", "prompt": f"p{i}",
             "response": f"r{i}", "judge_id": "heuristic-v1", "score": (0.0, 0.5, 1.0, None)[i % 4], "gold": None,
             "category": f"c{i % 7}"} for i in range(n)]
    path = tmp_path / "items.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=64)  # 16 row groups
    decoded = []
    real_iter = pq.ParquetFile.iter_batches
    monkeypatch.setattr(pq.ParquetFile, "iter_batches",
                        lambda self, *a, **k: (decoded.extend(k["row_groups"]), real_iter(self, *a, **k))[1])
    for seed, k in ((0, 5), (7, 3), (11, 40)):
        want = random.Random(seed).sample(rows, k)  # what reading the whole file and sampling it gives
        decoded.clear()
        got = rc._read_rows(path, random.Random(seed).sample(range(n), k))
        assert got == want
        assert sorted(decoded) == sorted({int(r["item_id"][1:]) // 64 for r in want})


def test_an_audit_with_a_judge_that_does_not_fit_the_suite_is_skipped_and_said(tmp_path, capsys):
    """Issue 47: `recompute --rejudge 20 --judge heuristic` "audited" BBQ's letters with heuristic-v1 (it judges
    free text): "0.0% of 3 sampled items disagree". A judge that does not fit a suite audits nothing there."""
    from slmboard_testing import make_run
    from toolkit.cli import main

    data = tmp_path / "suite-data"
    api.download_suites(data, api.SuiteDownloadOptions(suites="bbq", sample=True))
    run = make_run(tmp_path / "run", suite="bbq", judge_id="lm-eval:acc", scores={"a": 1.0, "b": 0.0, "c": 1.0})
    board = new_board(tmp_path / "board")
    api.submit(run, to=board, options=api.SubmitOptions(data_dir=str(data), allow_partial=True, n_bootstrap=0))
    capsys.readouterr()
    assert main(["recompute", str(board), "--rejudge", "20", "--judge", "heuristic", "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert "bbq lm-eval:acc: not audited — heuristic-v1 judges free-text answers; use --judge bbq" in out, out
    assert "sampled items disagree" not in out
    audit = json.loads((board / "data" / "audit" / "rejudge.json").read_text())
    assert [(e["n_compared"], e["flagged"]) for e in audit] == [(0, False)], audit
