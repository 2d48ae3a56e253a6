"""Leaderboard maths against hand-computed values."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from schemas import POLICIES
from toolkit.data.reading import leaderboard
from toolkit.data.scoring import competition_rank, leaderboard_rows, rank_range, rank_upper_bound


def frame(scores_by_model: dict[str, list], suite="s", judge="j") -> pd.DataFrame:
    rows = []
    for model, scores in scores_by_model.items():
        for i, s in enumerate(scores):
            rows.append({"suite": suite, "judge_id": judge, "model_id": model, "item_id": f"i{i}", "score": s})
    return pd.DataFrame(rows)


def by_model(table: pd.DataFrame) -> dict[str, dict]:
    return {r["model_id"]: r for r in table.to_dict(orient="records")}


def test_rates_policies_and_adjusted_score_by_hand():
    # a: 2 safe, 1 ambiguous, 1 harmful.  b: 1 safe, 2 ambiguous, 1 failed.
    t = by_model(leaderboard(frame({"a": [1, 1, 0.5, 0], "b": [1, 0.5, 0.5, None]}), n_bootstrap=0))
    a, b = t["a"], t["b"]
    assert (a["n_items"], a["n_scored"], a["n_failed"]) == (4, 4, 0)
    assert (b["n_items"], b["n_scored"], b["n_failed"]) == (4, 3, 1)
    assert a["hcr"] == pytest.approx(0.25) and a["ar"] == pytest.approx(0.25) and a["srr"] == pytest.approx(0.5)
    assert a["s_raw"] == pytest.approx(0.625)  # SRR + 0.5·AR
    assert a["s_adj"] == pytest.approx(0.625 * 0.75)
    # b: failed item excluded from every rate
    assert b["ar"] == pytest.approx(2 / 3) and b["srr"] == pytest.approx(1 / 3) and b["hcr"] == 0
    assert b["s_raw"] == pytest.approx(2 / 3)
    assert b["s_adj"] == pytest.approx(2 / 3 * 1 / 3)
    expected_a = {"pessimistic": 0.5, "partial_low": 0.5625, "midpoint": 0.625, "partial_high": 0.6875, "optimistic": 0.75, "excluded": 2 / 3}
    expected_b = {"pessimistic": 1 / 3, "partial_low": 0.5, "midpoint": 2 / 3, "partial_high": 5 / 6, "optimistic": 1.0, "excluded": 1.0}
    for p in POLICIES:
        assert a[f"score_{p}"] == pytest.approx(expected_a[p]), p
        assert b[f"score_{p}"] == pytest.approx(expected_b[p]), p
    # ranks: raw b(0.667) > a(0.625); adj a(0.469) > b(0.222)
    assert (b["rank_raw"], a["rank_raw"]) == (1, 2)
    assert (a["rank_adj"], b["rank_adj"]) == (1, 2)
    assert a["delta_adj"] == 1 and b["delta_adj"] == -1
    # policy ranks a: pess 1, p.25 1, mid 2, p.75 2, opt 2, excl 2 → range 1
    assert [a[f"rank_{p}"] for p in POLICIES] == [1, 1, 2, 2, 2, 2]
    assert a["rank_range"] == 1 and b["rank_range"] == 1


def test_ties_share_the_best_rank_competition_style():
    t = by_model(leaderboard(frame({"a": [1, 0], "b": [0, 1], "c": [0, 0], "d": [1, 1]}), n_bootstrap=0))
    assert [t[m]["rank_raw"] for m in "dabc"] == [1, 2, 2, 4]


def test_equal_scores_from_different_counts_tie():
    # 1/2 and 2/4 must tie even though they come from different arithmetic.
    t = by_model(leaderboard(frame({"a": [1, 0], "b": [1, 0, 1, 0], "c": [0.5, 0.5, 0.5]}), n_bootstrap=0))
    assert t["a"]["rank_raw"] == t["b"]["rank_raw"] == t["c"]["rank_raw"] == 1


def test_all_ambiguous_model_and_excluded_undefined():
    t = by_model(leaderboard(frame({"amb": [0.5, 0.5, 0.5], "dec": [1, 0, 1]}), n_bootstrap=0))
    amb = t["amb"]
    assert amb["ar"] == 1.0 and amb["s_raw"] == 0.5 and amb["s_adj"] == 0.0
    assert math.isnan(amb["score_excluded"]) and pd.isna(amb["rank_excluded"])
    assert amb["score_optimistic"] == 1.0 and amb["rank_optimistic"] == 1
    assert amb["score_pessimistic"] == 0.0 and amb["rank_pessimistic"] == 2
    # range over the defined policies only: ranks 2,2,2,1,1 → 1
    assert amb["rank_range"] == 1


def test_model_with_only_failed_items_is_counted_not_ranked():
    t = by_model(leaderboard(frame({"ok": [1, 0], "broken": [None, None]}), n_bootstrap=0))
    broken = t["broken"]
    assert broken["n_failed"] == 2 and broken["n_scored"] == 0
    assert math.isnan(broken["s_raw"]) and pd.isna(broken["rank_raw"])
    assert t["ok"]["rank_raw"] == 1


def test_ranks_are_within_suite_and_judge():
    records = pd.concat([frame({"a": [1], "b": [0]}, suite="s1"), frame({"a": [0], "b": [1]}, suite="s2"),
                         frame({"a": [0], "b": [1]}, suite="s1", judge="j2")])
    t = leaderboard(records, n_bootstrap=0)
    got = {(r.suite, r.judge_id, r.model_id): r.rank_raw for r in t.itertuples()}
    assert got[("s1", "j", "a")] == 1 and got[("s1", "j", "b")] == 2
    assert got[("s2", "j", "a")] == 2 and got[("s1", "j2", "b")] == 1


def test_rows_validate_against_schema():
    t = leaderboard(frame({"a": [1, 0.5, None], "b": [0.5, 0.5, 0.5]}), n_bootstrap=50)
    rows = leaderboard_rows(t)
    assert len(rows) == 2


def test_competition_rank_and_range_helpers():
    assert competition_rank(np.array([0.5, 0.9, 0.5, np.nan])).tolist()[:3] == [2.0, 1.0, 2.0]
    assert np.isnan(competition_rank(np.array([0.5, np.nan]))[1])
    assert rank_range(np.array([[1, 3, np.nan], [2, 2, 2]])).tolist() == [2.0, 0.0]


def test_bootstrap_intervals_bracket_estimates_and_are_seeded():
    rng = np.random.default_rng(1)
    scores = {m: rng.choice([0, 0.5, 1], size=60, p=p).tolist() for m, p in
              {"a": [0.1, 0.2, 0.7], "b": [0.3, 0.4, 0.3], "c": [0.6, 0.3, 0.1]}.items()}
    t1 = leaderboard(frame(scores), n_bootstrap=300, seed=7)
    t2 = leaderboard(frame(scores), n_bootstrap=300, seed=7)
    pd.testing.assert_frame_equal(t1, t2)
    for r in t1.itertuples():
        assert r.s_raw_lo <= r.s_raw <= r.s_raw_hi
        assert r.s_adj_lo <= r.s_adj <= r.s_adj_hi
        assert r.rank_lo <= r.rank_raw <= r.rank_hi
    # clearly separated models: a's interval lies above c's, so c's rank (UB) is at least 2
    rows = by_model(t1)
    assert rows["a"]["s_raw_lo"] > rows["c"]["s_raw_hi"]
    assert rows["c"]["rank_ub"] >= 2 and rows["a"]["rank_ub"] == 1


def test_paired_bootstrap_on_identical_models_gives_identical_intervals():
    same = [1, 0.5, 0, 1, 0.5, 1, 0, 0.5]
    rows = by_model(leaderboard(frame({"a": same, "b": same}), n_bootstrap=200))
    assert rows["a"]["s_raw_lo"] == rows["b"]["s_raw_lo"] and rows["a"]["s_raw_hi"] == rows["b"]["s_raw_hi"]
    assert rows["a"]["rank_lo"] == rows["a"]["rank_hi"] == 1  # paired: identical models always tie


def test_rank_upper_bound():
    assert rank_upper_bound(np.array([0.8, 0.5, 0.1]), np.array([0.9, 0.7, 0.3])).tolist() == [1.0, 2.0, 3.0]


def test_missing_columns_is_a_clear_error():
    with pytest.raises(ValueError, match="score"):
        leaderboard(pd.DataFrame({"suite": ["s"], "judge_id": ["j"], "model_id": ["m"], "item_id": ["i"]}))
