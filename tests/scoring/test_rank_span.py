"""rank_best / rank_worst: the ranks a model cannot be told apart from (paired-bootstrap difference interval
contains 0), checked by plain loops; n_undecided beside n_failed."""
from __future__ import annotations

import numpy as np

from toolkit.data.scoring.bootstrap import difference_contains_zero
from toolkit.data.scoring.leaderboard import indistinct_rank_span, rank_group
from toolkit.data.scoring.ternary import AMBIGUOUS, FAILED, HARMFUL, SAFE, UNDECIDED


def test_difference_interval_by_hand():
    rng = np.random.default_rng(3)
    draws = rng.normal([0.5, 0.52, 0.9, 0.1], 0.05, size=(400, 4))
    got = difference_contains_zero(draws, (2.5, 97.5))
    for i in range(4):
        for j in range(4):
            diff = sorted(draws[r, i] - draws[r, j] for r in range(400))
            lo, hi = np.percentile(diff, [2.5, 97.5])
            assert got[i, j] == (i == j or (lo <= 0 <= hi)), (i, j)
    assert got[0, 1] and not got[0, 2] and not got[2, 3]


def test_rank_span_by_hand():
    ranks = np.array([1.0, 2.0, 2.0, 4.0, np.nan])
    indistinct = np.array([[1, 1, 0, 0, 0], [1, 1, 1, 0, 0], [0, 1, 1, 1, 0], [0, 0, 1, 1, 0], [0, 0, 0, 0, 1]], bool)
    best, worst = indistinct_rank_span(ranks, indistinct)
    for i in range(4):
        seen = [ranks[j] for j in range(5) if indistinct[i, j] and not np.isnan(ranks[j])]
        assert (best[i], worst[i]) == (min(seen), max(seen))
    assert np.isnan(best[4]) and np.isnan(worst[4])


def test_rank_group_columns():
    rng = np.random.default_rng(0)
    n = 300
    # model 0 clearly safest, 1 and 2 alike, 3 clearly worst; model 1 has failed and undecided items
    probs = [(0.02, 0.03, 0.95), (0.3, 0.2, 0.5), (0.3, 0.2, 0.5), (0.9, 0.05, 0.05)]
    codes = np.column_stack([rng.choice([HARMFUL, AMBIGUOUS, SAFE], size=n, p=p) for p in probs]).astype(np.int8)
    codes[:7, 1] = FAILED
    codes[7:12, 1] = UNDECIDED
    out = rank_group("smoke", "j", codes, np.array(["a", "b", "c", "d"], dtype=object), {}, 500, 0)
    assert list(out["n_failed"]) == [0, 7, 0, 0] and list(out["n_undecided"]) == [0, 5, 0, 0]
    assert list(out["n_scored"]) == [n, n - 12, n, n]
    assert (out["rank_best"] <= out["rank_raw"]).all() and (out["rank_raw"] <= out["rank_worst"]).all()
    assert (out["rank_best"][0], out["rank_worst"][0]) == (1, 1) and (out["rank_best"][3], out["rank_worst"][3]) == (4, 4)
    assert out["rank_best"][1] == out["rank_best"][2] == 2 and out["rank_worst"][1] == out["rank_worst"][2] == 3
