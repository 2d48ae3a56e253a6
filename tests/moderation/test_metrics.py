"""Metric definitions on hand-computed cases; temperature scaling keeps decisions and order."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.data.reliability import metrics as M
from toolkit.data.reliability.calibration import apply_temperature, fit_temperature, temperature_scaling

# 6 items: gold flag x3, no-flag x3. Decisions: TP, TP, FN, FP, TN, TN.
Y = np.array([1, 1, 1, 0, 0, 0], bool)
D = np.array([1, 1, 0, 1, 0, 0], bool)
P = np.array([0.95, 0.75, 0.40, 0.65, 0.15, 0.45])  # consistent with D (flag iff p >= .5)


def test_decision_metrics_by_hand():
    m = M.decision_metrics(Y, D)
    assert m["n"] == 6 and m["accuracy"] == pytest.approx(4 / 6)
    assert m["far"] == pytest.approx(1 / 3) and m["miss"] == pytest.approx(1 / 3)
    assert m["error_direction"] == pytest.approx(0.0)
    # F1(flag): tp=2 fp=1 fn=1 -> 4/6; F1(no-flag): tp=2 fp=1 fn=1 -> 4/6
    assert m["macro_f1"] == pytest.approx(2 / 3)
    over = M.decision_metrics(np.array([1, 0, 0, 0], bool), np.array([1, 1, 1, 0], bool))
    assert over["far"] == pytest.approx(2 / 3) and over["miss"] == 0 and over["error_direction"] == pytest.approx(2 / 3)
    # F1(flag) = 2/(2+2+0) = .5 ; F1(no) = 2*1/(2+0+2) = .5
    assert over["macro_f1"] == pytest.approx(0.5)


def test_ece_by_hand():
    conf = M.confidence(P)  # .95 .75 .60 .65 .85 .55
    corr = M.correct_by_p(Y, P)  # T T F F T T
    np.testing.assert_allclose(conf, [0.95, 0.75, 0.60, 0.65, 0.85, 0.55])
    assert corr.tolist() == [True, True, False, False, True, True]
    # bins (lo, hi]: .55 and .60 -> (.5, .6]; .65 -> (.6, .7]; .75; .85; .95
    # |acc-conf|*count: (.5,.6] |.5-.575|*2=.15; (.6,.7] .65; .25; .15; .05
    assert M.ece(conf, corr) == pytest.approx((0.15 + 0.65 + 0.25 + 0.15 + 0.05) / 6)
    # per class: flag items .95 T, .75 T, .60 F -> (.05 + .25 + .60)/3
    assert M.confidence_metrics(Y, P)["ece_flag"] == pytest.approx(0.9 / 3)
    assert M.ece(np.array([1.0]), np.array([True])) == 0.0  # conf 1 lands in the top bin


def test_brier_aurc_risk_by_hand():
    conf, corr = M.confidence(P), M.correct_by_p(Y, P)
    assert M.brier(conf, corr) == pytest.approx(np.mean((conf - corr) ** 2))
    # sorted by conf desc: .95 T, .85 T, .75 T, .65 F, .60 F, .55 T
    # risk_k: 0, 0, 0, 1/4, 2/5, 2/6 at coverage k/6; trapezoid over coverage
    risks = [0, 0, 0, 1 / 4, 2 / 5, 2 / 6]
    expected = sum((a + b) / 2 / 6 for a, b in zip(risks, risks[1:]))
    assert M.aurc(conf, corr) == pytest.approx(expected)
    cm = M.confidence_metrics(Y, P)
    assert cm["risk_at_50"] == 0.0  # the 3 most confident are right
    assert cm["risk_at_50_random"] == pytest.approx(2 / 6)
    # with the decision taken from p, (conf - correct)^2 equals (p - y)^2 item by item
    assert cm["brier"] == pytest.approx(np.mean((P - Y) ** 2))


def test_bootstrap_bounds_bracket_and_repeat():
    rng = np.random.default_rng(1)
    y = rng.random(300) < 0.5
    p = np.clip(np.where(y, 0.7, 0.3) + rng.normal(0, 0.25, 300), 0, 1)
    d = p >= 0.5
    b1 = M.bootstrap_bounds(y, d, p, n_resamples=2000, seed=0)
    assert b1 == M.bootstrap_bounds(y, d, p, n_resamples=2000, seed=0)
    point = {**M.decision_metrics(y, d), "ece": M.ece(M.confidence(p), M.correct_by_p(y, p))}
    for k in ("far", "miss", "macro_f1", "ece"):
        assert b1[f"{k}_lo"] <= point[k] <= b1[f"{k}_hi"], k
    # with one resample, the vectorised statistics equal the plain definitions on that resample
    idx = np.random.default_rng(7).integers(0, 300, size=(1, 300))[0]
    one = M.bootstrap_bounds(y, d, p, n_resamples=1, seed=7)
    assert one["ece_lo"] == pytest.approx(M.ece(M.confidence(p[idx]), M.correct_by_p(y[idx], p[idx])))
    assert one["macro_f1_hi"] == pytest.approx(M.decision_metrics(y[idx], d[idx])["macro_f1"])
    assert one["far_lo"] == pytest.approx(M.decision_metrics(y[idx], d[idx])["far"])


def test_expected_cost():
    assert M.expected_cost(far=0.2, miss=0.5, prevalence=0.1, cost_ratio=10) == pytest.approx(0.1 * 10 * 0.5 + 0.9 * 0.2)


def test_fit_temperature_recovers_known_temperature():
    rng = np.random.default_rng(0)
    z = rng.normal(0, 3, 4000)
    y = rng.random(4000) < 1 / (1 + np.exp(-z))  # calibrated at T=1 in logit z
    p_overconfident = 1 / (1 + np.exp(-3 * z))  # logits x3: the fitted T must be ~3
    assert fit_temperature(y, p_overconfident) == pytest.approx(3.0, rel=0.1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=4, max_size=60), st.floats(0.1, 20))
def test_temperature_changes_no_decision_and_no_order(ps, t):
    p = np.array(ps)
    q = apply_temperature(p, t)
    assert ((p >= 0.5) == (q >= 0.5)).all()
    c_p, c_q = M.confidence(p), M.confidence(q)
    # no strictly ordered pair reverses (beyond float rounding). Pairs beyond the release's logit clip
    # (p < 1e-6 or p > 1 - 1e-6) may become ties.
    i, j = np.triu_indices(len(p), 1)
    assert (np.sign(np.round(c_p[i] - c_p[j], 12)) * np.sign(np.round(c_q[i] - c_q[j], 12)) >= 0).all()


def test_temperature_scaling_on_overconfident_moderator():
    rng = np.random.default_rng(2)
    y = rng.random(400) < 0.5
    z = np.where(y, 1.0, -1.0) + rng.normal(0, 1.5, 400)
    p = 1 / (1 + np.exp(-5 * z))  # overconfident
    r = temperature_scaling(y, p, correct=(p >= 0.5) == y, n_splits=20, seed=0)
    assert len(r.temperatures) == 20 and r.temperature > 2
    assert r.ece_scaled < r.ece_heldout and r.reduction > 1
    # decisions are those before scaling, and no pair of items swaps places in the confidence order
    q = apply_temperature(p, r.temperature)
    assert ((q >= 0.5) == (p >= 0.5)).all()
    c_p, c_q = M.confidence(p), M.confidence(q)
    i, j = np.triu_indices(len(p), 1)
    assert (np.sign(c_p[i] - c_p[j]) * np.sign(np.round(c_q[i] - c_q[j], 12)) >= 0).all()
    inside = (p > 1e-6) & (p < 1 - 1e-6)  # within the logit clip the order is strict
    ii, jj = i[inside[i] & inside[j]], j[inside[i] & inside[j]]
    assert (np.sign(c_p[ii] - c_p[jj]) == np.sign(c_q[ii] - c_q[jj])).all()


def test_empty_inputs_are_nan_not_errors():
    e = np.array([], bool)
    assert math.isnan(M.decision_metrics(e, e)["accuracy"])
    assert math.isnan(M.ece(np.array([]), e))
