"""`slmboard rank`'s terminal table shows how much of its suite each row covers: a partial run
(3 of smoke's 30 items) reads "3/30 (partial)" and a footnote says its scores are not comparable."""
from __future__ import annotations

from slmboard_testing import make_run, new_board
from toolkit import api
from toolkit.cli import main

SMOKE_TOTAL = 30


def test_rank_table_marks_a_partial_run(tmp_path, capsys):
    dataset = tmp_path / "dataset"
    new_board(dataset)
    api.submit(make_run(tmp_path / "run"), to=dataset, options=api.SubmitOptions(n_bootstrap=0))  # 3 of the smoke suite's items
    capsys.readouterr()
    assert main(["rank", str(dataset), "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "org/model-a" in line and "3/30" in line)
    assert "(partial)" in row
    assert "coverage" in out and "cover only part of their suite" in out


def test_complete_rows_carry_no_partial_marker():
    from schemas.display import coverage_text

    assert coverage_text(1.0, SMOKE_TOTAL) == "30/30"
    assert coverage_text(0.1, 3) == "3/30 (partial)"
    assert coverage_text(0.625) == "62.5% (partial)"  # what the Space shows without item counts
    assert coverage_text(None, 3) == "—"
