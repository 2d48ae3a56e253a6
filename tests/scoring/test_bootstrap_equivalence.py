"""The pattern-count bootstrap must agree with the straightforward one (resample item ids, gather rows)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from toolkit.data.reading import leaderboard

BENCH = Path(__file__).resolve().parents[2] / "bench" / "recompute.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_recompute", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pattern_bootstrap_matches_naive_row_resampling():
    rng = np.random.default_rng(5)
    rows = []
    for m, p in {"a": [0.2, 0.5, 0.3], "b": [0.3, 0.3, 0.4], "c": [0.5, 0.2, 0.3], "d": [0.1, 0.8, 0.1]}.items():
        for i in range(400):
            score = float(rng.choice([0.0, 0.5, 1.0], p=p)) if rng.random() > 0.02 else None
            rows.append({"suite": "s", "judge_id": "j", "model_id": m, "item_id": f"i{i:03d}", "score": score})
    frame = pd.DataFrame(rows)
    fast = leaderboard(frame, n_bootstrap=3000, seed=0).set_index("model_id").sort_index()
    naive = load_bench().naive_bootstrap(frame, n_resamples=3000, seed=1)[("s", "j")]  # (2, models) sorted by id
    # Two independent Monte-Carlo estimates of the same percentiles: equal up to simulation noise.
    assert fast["s_raw_lo"].to_numpy() == pytest.approx(naive[0], abs=0.006)
    assert fast["s_raw_hi"].to_numpy() == pytest.approx(naive[1], abs=0.006)
