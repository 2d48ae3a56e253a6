"""Model metadata outcomes are per (model, judge): two judges' AR and scores are never averaged together."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from toolkit.outputs.analysis.metadata import FEATURES, metadata_correlations, model_outcomes

# (model, suite, judge, AR, S_raw): judge j2 sees only one suite of org/a and disagrees with j1 a lot,
# so a pooled mean over judges differs from either judge's own mean.
BOARD = [
    ("org/a", "sst", "j1", 0.2, 0.9), ("org/a", "harmbench", "j1", 0.4, 0.5), ("org/a", "sst", "j2", 0.9, 0.1),
    ("org/b", "sst", "j1", 0.1, 0.8), ("org/b", "harmbench", "j1", 0.3, 0.6), ("org/b", "sst", "j2", 0.5, 0.4),
    ("org/b", "harmbench", "j2", 0.7, 0.2),
    ("org/c", "sst", "j1", 0.6, 0.3), ("org/c", "harmbench", "j1", 0.0, 1.0), ("org/c", "sst", "j2", 0.05, 0.95),
    ("org/d", "sst", "j1", 0.5, 0.5), ("org/d", "sst", "j2", 0.35, 0.6), ("org/d", "harmbench", "j2", float("nan"), 0.7),
]
PARAMS = {"org/a": 135e6, "org/b": 360e6, "org/c": 1.7e9, "org/d": 500e6}


def _board() -> pd.DataFrame:
    return pd.DataFrame(BOARD, columns=["model_id", "suite", "judge_id", "ar", "s_raw"])


def _expected() -> dict[tuple[str, str], tuple[float, float, int]]:
    """(model, judge) -> (mean AR, mean S_raw, suites), by plain loops over rows with an AR."""
    sums: dict[tuple[str, str], list] = {}
    for model, suite, judge, ar, s in BOARD:
        if math.isnan(ar):
            continue
        acc = sums.setdefault((model, judge), [0.0, 0.0, set()])
        acc[0] += ar
        acc[1] += s
        acc[2].add(suite)
    return {k: (a / len(ss), b / len(ss), len(ss)) for k, (a, b, ss) in sums.items()}


def test_model_outcomes_are_per_judge():
    got = model_outcomes(_board())
    expected = _expected()
    assert len(got) == len(expected) == 8
    for row in got.itertuples():
        ar, score, n = expected[(row.model_id, row.judge_id)]
        assert (row.ar, row.score, row.n_suites) == (pytest.approx(ar), pytest.approx(score), n)
    # Pooling both judges would give another number for org/a: (0.2 + 0.4 + 0.9) / 3 = 0.5, not 0.3 or 0.9.
    a = got.set_index(["model_id", "judge_id"]).loc["org/a"]
    assert a.loc["j1", "ar"] == pytest.approx(0.3) and a.loc["j2", "ar"] == pytest.approx(0.9)


def _pearson(x: list[float], y: list[float]) -> float:
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy)


def test_metadata_correlations_one_block_per_judge():
    features = pd.DataFrame([{"model_id": m, **{f: 1.0 for f, _ in FEATURES}, "params": p} for m, p in PARAMS.items()])
    table = metadata_correlations(features, model_outcomes(_board()))
    assert len(table) == 2 * len(FEATURES) and set(table["judge_id"]) == {"j1", "j2"}
    expected = _expected()
    models = sorted(PARAMS)
    for judge in ("j1", "j2"):
        row = table[(table["judge_id"] == judge) & (table["feature"] == "params")].iloc[0]
        x = [PARAMS[m] for m in models]
        assert row["n_models"] == 4
        assert row["r_ar"] == pytest.approx(_pearson(x, [expected[(m, judge)][0] for m in models]))
        assert row["r_score"] == pytest.approx(_pearson(x, [expected[(m, judge)][1] for m in models]))
    # The judges' correlations differ: a pooled table could not hold both.
    r = table[table["feature"] == "params"].set_index("judge_id")["r_ar"]
    assert not np.isclose(r["j1"], r["j2"])
