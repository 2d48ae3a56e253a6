"""Paper 1 diagnostics analyse each (suite, judge) on its own (issue 11): a prompt's AR, the AR
correlations and the ambiguity predictors never mix two judges' labels, and adding a second judge
changes none of the first judge's numbers. Synthetic metric rows (no scorer models): fast.
Expected values are computed here with plain loops and textbook formulas."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from toolkit.outputs.analysis import correlations, prediction
from toolkit.outputs.analysis.metrics import ALL_METRICS, OUTPUT_METRICS, PROMPT_METRICS

MODELS = [f"org/m{k}" for k in range(5)]
SUITES = ("air_bench_2024", "harmbench")
N_ITEMS = 14


@pytest.fixture(autouse=True)
def small_classifiers(monkeypatch):
    """Fewer trees: these tests check which rows a predictor sees, not how well it predicts."""
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

    def make(name, seed):
        if name == "random_forest":
            return RandomForestClassifier(n_estimators=10, min_samples_leaf=2, n_jobs=1, random_state=seed)
        return HistGradientBoostingClassifier(max_iter=10, random_state=seed)

    monkeypatch.setattr(prediction, "_make", make)


def metric_rows(judges=("judge-a", "judge-b"), seed=0) -> pd.DataFrame:
    """One row per (model, item, judge) with a score and the 12 metrics; the judges disagree."""
    rng = np.random.default_rng(seed)
    prompt_metric = {(s, i): rng.normal(size=len(PROMPT_METRICS)) for s in SUITES for i in range(N_ITEMS)}
    output_metric = {(m, s, i): rng.normal(size=len(OUTPUT_METRICS)) for m in MODELS for s in SUITES for i in range(N_ITEMS)}
    rows = []
    for judge_index, judge in enumerate(("judge-a", "judge-b")):
        judge_rng = np.random.default_rng(100 + judge_index)  # judge-a's labels never depend on judge-b's
        for suite in SUITES:
            for i in range(N_ITEMS):
                for model in MODELS:
                    p_ambiguous = 0.15 + 0.7 * (i % 3 == 0) if judge_index == 0 else 0.5
                    score = 0.5 if judge_rng.random() < p_ambiguous else float(judge_rng.choice([0.0, 1.0]))
                    if judge_index == 0 and suite == "harmbench" and i == 1 and model == "org/m0":
                        score = None  # a failed judgment: left out of numerator and denominator
                    if judge not in judges:
                        continue
                    row = {"suite": suite, "judge_id": judge, "model_id": model, "item_id": f"{suite}-{i}", "score": score}
                    row.update(zip(PROMPT_METRICS, prompt_metric[(suite, i)]))
                    row.update(zip(OUTPUT_METRICS, output_metric[(model, suite, i)]))
                    rows.append(row)
    return pd.DataFrame(rows)


def test_prompt_level_ar_is_per_judge_and_counts_models_once():
    rows = metric_rows()
    table = correlations.prompt_level_table(rows).set_index(["suite", "judge_id", "item_id"])
    assert len(table) == 2 * len(SUITES) * N_ITEMS
    assert table["n_models"].max() == len(MODELS)  # pooled judges gave 2 × the models
    for (suite, judge, item), got in table.iterrows():
        scores = [r.score for r in rows.itertuples() if (r.suite, r.judge_id, r.item_id) == (suite, judge, item) and r.score is not None
                  and not (isinstance(r.score, float) and math.isnan(r.score))]
        assert got["n_models"] == len(scores)
        assert got["ar"] == pytest.approx(sum(s == 0.5 for s in scores) / len(scores))
        replies = [r for r in rows.itertuples() if (r.suite, r.judge_id, r.item_id) == (suite, judge, item) and not pd.isna(r.score)]
        assert got["output_tokens"] == pytest.approx(sum(r.output_tokens for r in replies) / len(replies))
    assert table.loc[("harmbench", "judge-a", "harmbench-1"), "n_models"] == len(MODELS) - 1


def _pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    r = sxy / math.sqrt(sxx * syy)
    t = r * math.sqrt((n - 2) / (1 - r * r))
    return r, 2 * stats.t.sf(abs(t), n - 2)


def _bh(pvalues):
    m = len(pvalues)
    order = sorted(range(m), key=lambda k: pvalues[k])
    q = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        k = order[rank - 1]
        running = min(running, pvalues[k] * m / rank)
        q[k] = running
    return q


def test_ar_correlations_per_judge_match_hand_computed_pearson_and_bh():
    rows = metric_rows()
    corr = correlations.correlations_by_scope(correlations.prompt_level_table(rows))
    assert set(zip(corr["judge_id"], corr["scope"])) == {(j, s) for j in ("judge-a", "judge-b")
                                                          for s in ("all suites", *(f"suite:{x}" for x in SUITES))}
    for judge in ("judge-a", "judge-b"):
        # the judge's own prompt-level AR, by plain loops over its rows: suites pooled
        prompts = {}
        for r in rows[rows["judge_id"] == judge].itertuples():
            if not pd.isna(r.score):
                prompts.setdefault((r.suite, r.item_id), []).append(r)
        ar = [sum(x.score == 0.5 for x in rs) / len(rs) for rs in prompts.values()]
        got = corr[(corr["judge_id"] == judge) & (corr["scope"] == "all suites")].set_index("metric")
        expected_p = []
        for metric in ALL_METRICS:
            if metric in PROMPT_METRICS:
                x = [getattr(rs[0], metric) for rs in prompts.values()]
            else:
                x = [sum(getattr(v, metric) for v in rs) / len(rs) for rs in prompts.values()]
            r, p = _pearson(x, ar)
            assert got.loc[metric, "n_prompts"] == len(SUITES) * N_ITEMS
            assert got.loc[metric, "pearson_r"] == pytest.approx(r, abs=1e-12)
            assert got.loc[metric, "p_value"] == pytest.approx(p, rel=1e-9)
            expected_p.append(p)
        assert list(got.loc[list(ALL_METRICS), "q_value"]) == pytest.approx(_bh(expected_p), rel=1e-9)


def test_ar_correlations_refuse_a_table_of_two_judges():
    table = correlations.prompt_level_table(metric_rows())
    with pytest.raises(ValueError, match="one judge per call"):
        correlations.ar_correlations(table)


def _without_judge_columns(t: pd.DataFrame) -> pd.DataFrame:
    return t.drop(columns=[c for c in ("judge_id", "test_judge_id") if c in t.columns]).reset_index(drop=True)


def test_a_second_judge_changes_none_of_the_first_judges_numbers():
    both, alone = metric_rows(), metric_rows(judges=("judge-a",))
    p_both, p_alone = correlations.prompt_level_table(both), correlations.prompt_level_table(alone)
    pd.testing.assert_frame_equal(p_both[p_both["judge_id"] == "judge-a"].reset_index(drop=True), p_alone)
    c_both, c_alone = correlations.correlations_by_scope(p_both), correlations.correlations_by_scope(p_alone)
    pd.testing.assert_frame_equal(c_both[c_both["judge_id"] == "judge-a"].reset_index(drop=True), c_alone)
    for fn in (prediction.within_suite, prediction.cross_suite, lambda r, seed=0: prediction.unseen_models(r, k=1, seed=seed)):
        t_both, t_alone = fn(both, seed=0), fn(alone, seed=0)
        assert t_alone["balanced_accuracy"].notna().any()
        pd.testing.assert_frame_equal(t_both[t_both["judge_id"] == "judge-a"].reset_index(drop=True), t_alone)


def test_predictors_train_and_test_on_one_judges_rows():
    rows = metric_rows()
    block_size = len(MODELS) * N_ITEMS  # rows of one (suite, judge), failed judgment included here
    for table in (prediction.within_suite(rows), prediction.unseen_models(rows, k=1)):
        assert set(zip(table["train"].str.split(" ").str[0], table["judge_id"])) == {(s, j) for s in SUITES for j in ("judge-a", "judge-b")}
        assert (table["judge_id"] == table["test_judge_id"]).all()
        assert (table["train_rows"] + table["test_rows"]).le(block_size).all()  # pooled judges gave 2 × the rows
    cross = prediction.cross_suite(rows)
    # both suites are scored by both judges: transfer only within a judge, each direction, two classifiers
    assert sorted(set(zip(cross["judge_id"], cross["test_judge_id"], cross["train"], cross["test"]))) == sorted(
        (j, j, a, b) for j in ("judge-a", "judge-b") for a in SUITES for b in SUITES if a != b)
    assert (cross["train_rows"] == block_size).all() and (cross["test_rows"] == block_size).all()


def test_cross_suite_between_single_judge_suites_keeps_each_suites_own_judge():
    # The paper's setting: SALAD scored by MD-Judge only, the HELM suites by GPT-4o only.
    rows = metric_rows()
    rows = rows[((rows["suite"] == "air_bench_2024") & (rows["judge_id"] == "judge-a"))
                | ((rows["suite"] == "harmbench") & (rows["judge_id"] == "judge-b"))]
    cross = prediction.cross_suite(rows)
    assert sorted(set(zip(cross["judge_id"], cross["train"], cross["test_judge_id"], cross["test"]))) == [
        ("judge-a", "air_bench_2024", "judge-b", "harmbench"), ("judge-b", "harmbench", "judge-a", "air_bench_2024")]
    best = prediction.best_by_balanced_accuracy(cross)
    assert len(best) == 2
