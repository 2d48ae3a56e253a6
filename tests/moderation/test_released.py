"""Safety-Flag's released per-item outputs (Llama-3.1-8B on XSTest) → ModerationRecords → report.

The report's numbers must agree with what the released fields imply, recomputed here with plain
loops straight from the JSON by the release's formulas (no toolkit metric code): verdict = solo.answer_lp,
confidence = solo.conf_lp, verbal = solo.gen_conf / 10, temperature scaling on solo.flag_prob.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from toolkit.cli import main

from slmboard_release_formulas import loop_ece, loop_temperature_scaling

REL = "safety-flag/results/Llama-3.1-8B__xstest.jsonl"


@pytest.fixture
def released(shared_benchmarks):
    path = shared_benchmarks / REL
    return path, [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _implied(rows):
    """Every figure from the raw fields by the release's formulas (build_leaderboard.py @ d0da355), loops."""
    gold = [r["gt"] == "(A)" for r in rows]
    pred = [r["solo"]["answer_lp"] == "(A)" for r in rows]
    conf = [r["solo"]["conf_lp"] for r in rows]
    correct = [g == p for g, p in zip(gold, pred)]
    n = len(rows)
    fp = sum(p and not g for g, p in zip(gold, pred))
    fn = sum(g and not p for g, p in zip(gold, pred))
    tp = sum(g and p for g, p in zip(gold, pred))
    tn = n - fp - fn - tp
    order = np.argsort(-np.array(conf))  # the release's order, ties included
    errs, risks = 0, []
    for k, i in enumerate(order, start=1):
        errs += not correct[i]
        risks.append(errs / k)
    f1 = lambda a, b, c: 2 * a / (2 * a + b + c)  # noqa: E731
    return {
        "n": n, "accuracy": (tp + tn) / n, "far": fp / (fp + tn), "miss": fn / (fn + tp),
        "macro_f1": (f1(tp, fp, fn) + f1(tn, fn, fp)) / 2,
        "ece": loop_ece(conf, correct),
        "ece_flag": loop_ece([c for c, g in zip(conf, gold) if g], [k for k, g in zip(correct, gold) if g]),
        "ece_noflag": loop_ece([c for c, g in zip(conf, gold) if not g], [k for k, g in zip(correct, gold) if not g]),
        "brier": sum((c - k) ** 2 for c, k in zip(conf, correct)) / n,
        "aurc": sum((risks[k] + risks[k + 1]) / 2 / n for k in range(n - 1)),
        "risk_at_50": risks[max(1, int(round(0.5 * n))) - 1], "risk_at_50_random": 1 - sum(correct) / n,
    }, gold, conf


def test_released_fields_are_consistent(released):
    _, rows = released
    for r in rows:  # conf_lp is the confidence of answer_lp, as the release documents
        s = r["solo"]
        assert s["conf_lp"] == pytest.approx(max(s["flag_prob"], 1 - s["flag_prob"]), abs=1e-12)
        assert (s["answer_lp"] == "(A)") == (s["flag_prob"] >= 0.5)


def test_report_agrees_with_released_fields(released, tmp_path, capsys):
    path, rows = released
    run = tmp_path / "run"
    assert main(["moderate", "--import-released", str(path), "--out", str(run)]) == 0
    assert main(["moderation-report", str(run), "--out", str(tmp_path / "rep")]) == 0
    table = pd.read_csv(tmp_path / "rep" / "moderators.csv")
    assert table["benchmark"].tolist() == ["xstest", "macro", "pooled"]
    implied, gold, conf = _implied(rows)
    for _, row in table.iterrows():
        assert row["moderator_id"] == "Llama-3.1-8B" and row["n_dropped"] == 0
        for k, v in implied.items():
            if row["benchmark"] == "macro" and k in ("ece_flag", "ece_noflag"):
                continue  # not averaged on the macro row
            assert row[k] == pytest.approx(v, abs=1e-12), (row["benchmark"], k)
    # the values the mirror's notes state for this file
    assert implied["accuracy"] == pytest.approx(0.515) and implied["far"] == pytest.approx(0.97)
    pooled = table.iloc[2]
    assert pooled["far_lo"] <= pooled["far"] <= pooled["far_hi"]
    assert pooled["ece_lo"] <= pooled["ece"] <= pooled["ece_hi"]
    # temperature scaling as rigor_analysis.py: items in the release's order (ids sorted as strings)
    ordered = sorted(rows, key=lambda r: str(r["id"]))
    want = loop_temperature_scaling([r["gt"] == "(A)" for r in ordered], [r["solo"]["flag_prob"] for r in ordered],
                                    [(r["gt"] == "(A)") == (r["solo"]["answer_lp"] == "(A)") for r in ordered])
    for bench in ("macro", "pooled"):
        row = table[table["benchmark"] == bench].iloc[0]
        for k, v in want.items():
            assert row[k] == pytest.approx(v, rel=1e-9), (bench, k)
    assert want["temperature"] > 1 and want["ece_scaled"] < want["ece_heldout"]  # overconfident, as the paper finds
    # verbalized ECE: gen_conf / 10 wherever the release has one (build_leaderboard.py's ece_verbalized)
    with_verbal = [r for r in rows if r["solo"].get("gen_conf") is not None]
    expect = loop_ece([r["solo"]["gen_conf"] / 10 for r in with_verbal],
                      [(r["solo"]["answer_lp"] == "(A)") == (r["gt"] == "(A)") for r in with_verbal])
    verbal = pd.read_csv(tmp_path / "rep" / "verbal_ece.csv").iloc[0]
    assert verbal["n"] == len(with_verbal)
    assert verbal["ece_verbal"] == pytest.approx(expect, abs=1e-12)
    assert table["ece_verbal"].tolist() == pytest.approx([expect] * 3, abs=1e-12)
    # the reliability table behind the figure sums to the same ECE
    rel = pd.read_csv(tmp_path / "rep" / "reliability.csv")
    assert rel["count"].sum() == 200
    assert (rel["count"] * (rel["accuracy"] - rel["confidence"]).abs()).sum() / 200 == pytest.approx(implied["ece"])
    for png in ("reliability.png", "risk_coverage.png", "cost_map.png"):
        assert (tmp_path / "rep" / png).read_bytes()[:4] == b"\x89PNG"
