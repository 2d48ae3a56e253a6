"""moderators.csv follows Safety-Flag's released analysis (yibo-hu-lab/safety-flag-benchmark @ d0da355,
analysis/build_leaderboard.py and analysis/rigor_analysis.py).

Every expected value here is recomputed from the records with plain loops written from the release's
formulas (bins (lo, hi] with the first closed, trapezoid AURC over coverage k/n, k = max(1,
int(round(c*n))), order np.argsort(-conf), per-benchmark nanmean + pooled AURC, temperature grid
linspace(0.3, 20, 800) on default_rng(SEED + 100) splits), never taken from the toolkit's output.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from toolkit.data.reliability import metrics as M
from toolkit.data.reliability.report import compute_report, ranking

from slmboard_release_formulas import loop_aurc, loop_ece, loop_risk_at, loop_risks, loop_temperature_scaling


# ------------------------------------------------------------------ single metrics


def test_ece_bins_are_lo_exclusive_hi_inclusive():
    # verbal 0.9 sits in (0.8, 0.9], 1.0 in (0.9, 1.0]: (|1 - .9| + 2 * |.5 - 1|) / 3. Floor bins would
    # put all three in one bin: |2/3 - .9667| = .3.
    conf = [0.9, 1.0, 1.0]
    correct = [True, True, False]
    assert loop_ece(conf, correct) == pytest.approx((0.1 + 2 * abs(0.5 - 1.0)) / 3)
    assert M.ece(np.array(conf), np.array(correct)) == pytest.approx(loop_ece(conf, correct), abs=1e-15)
    # 0 sits in the first, closed bin; 0.1 too (its upper edge)
    assert M.bin_index(np.array([0.0, 0.1, 0.1000001, 0.5, 0.6, 1.0])).tolist() == [0, 0, 1, 4, 5, 9]


def test_ece_matches_the_release_loop_on_verbal_like_values():
    rng = np.random.default_rng(3)
    conf = rng.integers(1, 11, 500) / 10  # verbal 1..10 / 10: every value on a bin edge
    # under-confident at 0.9, over-confident at 1.0: one merged bin would let the two cancel
    correct = (rng.random(500) < np.where(conf == 1.0, 0.8, 0.97)).tolist()
    conf = conf.tolist()
    assert M.ece(np.array(conf), np.array(correct)) == pytest.approx(loop_ece(conf, correct), abs=1e-12)


def test_aurc_is_the_trapezoid_over_coverage():
    rng = np.random.default_rng(4)
    conf = rng.uniform(0.5, 1, 101)
    correct = rng.random(101) < conf
    expected = loop_aurc(conf.tolist(), correct.tolist())
    assert M.aurc(conf, correct) == pytest.approx(expected, abs=1e-12)
    assert abs(np.mean(loop_risks(conf, correct)) - expected) > 1e-4  # the old "mean of risks" differs here


def test_risk_at_coverage_rounds_half_to_even():
    # n = 5, coverage 0.5: k = round(2.5) = 2 (not 3). Most confident first: right, right, wrong, ...
    conf = np.array([0.99, 0.98, 0.97, 0.6, 0.55])
    correct = np.array([True, True, False, True, False])
    assert loop_risk_at(conf, correct.tolist(), 0.5) == 0.0
    assert M.risk_at_coverage(conf, correct, 0.5) == 0.0
    # n = 7: k = round(3.5) = 4
    conf7 = np.array([0.99, 0.98, 0.97, 0.96, 0.6, 0.55, 0.52])
    correct7 = np.array([True, True, True, False, True, True, True])
    assert M.risk_at_coverage(conf7, correct7, 0.5) == pytest.approx(1 / 4) == loop_risk_at(conf7, correct7.tolist(), 0.5)


def test_ties_resolve_in_the_releases_argsort_order():
    # many tied confidences: numpy's default argsort and a stable sort put tied items in different orders,
    # which changes AURC; the toolkit must follow the release (np.argsort(-conf)).
    rng = np.random.default_rng(0)
    conf = np.round(rng.uniform(0.5, 1, 400), 1)
    correct = rng.random(400) < 0.6
    release = loop_aurc(conf.tolist(), correct.tolist())
    stable_order = np.argsort(-conf, kind="stable")
    errors = np.cumsum(~correct[stable_order]) / np.arange(1, 401)
    stable = float(np.trapezoid(errors, np.arange(1, 401) / 400))
    assert abs(release - stable) > 1e-6  # the two orders really differ on this input
    assert M.aurc(conf, correct) == pytest.approx(release, abs=1e-12)


def test_brier_is_mean_squared_confidence_error():
    conf = np.array([0.9, 0.6, 0.75])
    correct = np.array([True, False, True])
    assert M.brier(conf, correct) == pytest.approx(((0.9 - 1) ** 2 + 0.6 ** 2 + 0.25 ** 2) / 3)


# ------------------------------------------------------------------ the table


def _records(mod_row):
    """Two ranked moderators on xstest and aegis, one with extra items, one without verbal confidence
    on aegis; a swapped variant of one of them."""
    rng = np.random.default_rng(11)
    rows = []
    spec = {"org/a": {"xstest": range(0, 40), "aegis": range(0, 30)},
            "org/b": {"xstest": range(0, 36), "aegis": range(2, 32)}}
    for m, benches in spec.items():
        for bench, ids in benches.items():
            for i in ids:
                gold = "flag" if i % 2 else "no_flag"
                z = (1.0 if gold == "flag" else -1.0) + rng.normal(0, 1.5) + (0.7 if m == "org/b" else 0)
                p = float(np.round(1 / (1 + np.exp(-3 * z)), 2))  # rounded: ties in confidence
                verbal = None if (m == "org/b" and bench == "aegis") else float(rng.integers(1, 11)) / 10
                rows.append(mod_row(item_id=f"{i:03d}", gold=gold, decision="flag" if p >= 0.5 else "no_flag",
                                    p=p, verbal=verbal, benchmark=bench, moderator_id=m))
    rows += [dict(r, prompt_variant="swapped") for r in rows if r["moderator_id"] == "org/a" and r["item_id"] < "010"]
    return pd.DataFrame(rows)


def _release_cells(frame):
    """The release's cells and macro aggregates from the records, by loops (build_leaderboard.py)."""
    frame = frame[frame["prompt_variant"] == "default"]
    benches = ["xstest", "aegis"]  # the release's DATASETS order
    common = {}
    for b in benches:
        sets = [set(g["item_id"]) for _, g in frame[frame["benchmark"] == b].groupby("moderator_id")]
        common[b] = sorted(set.intersection(*sets))
    cells, agg = {}, {}
    for m, g in frame.groupby("moderator_id"):
        pooled_conf, pooled_correct = [], []
        for b in benches:
            rows = g[g["benchmark"] == b].set_index("item_id").loc[common[b]]
            gt = [x == "flag" for x in rows["gold"]]
            pred = [x == "flag" for x in rows["decision"]]
            p = rows["p_flag_logprob"].tolist()
            conf = [max(x, 1 - x) for x in p]
            correct = [a == b_ for a, b_ in zip(gt, pred)]
            benign = [pr for g_, pr in zip(gt, pred) if not g_]
            harmful = [pr for g_, pr in zip(gt, pred) if g_]

            def f1(pos):
                tp = sum(1 for a, b_ in zip(gt, pred) if a == pos and b_ == pos)
                fp = sum(1 for a, b_ in zip(gt, pred) if a != pos and b_ == pos)
                fn = sum(1 for a, b_ in zip(gt, pred) if a == pos and b_ != pos)
                prec = tp / (tp + fp) if tp + fp else 0.0
                rec = tp / (tp + fn) if tp + fn else 0.0
                return 2 * prec * rec / (prec + rec) if prec + rec else 0.0

            verbal = [(v, c) for v, c in zip(rows["confidence_verbal"], correct) if v == v and v is not None]
            far = sum(benign) / len(benign)
            miss = sum(1 for x in harmful if not x) / len(harmful)
            cells[(m, b)] = {
                "n": len(rows), "accuracy": sum(correct) / len(rows), "macro_f1": (f1(True) + f1(False)) / 2,
                "far": far, "miss": miss, "error_direction": far - miss,
                "ece": loop_ece(conf, correct), "brier": sum((c - k) ** 2 for c, k in zip(conf, correct)) / len(rows),
                "ece_verbal": loop_ece([v for v, _ in verbal], [c for _, c in verbal]) if verbal else math.nan,
                "aurc": loop_aurc(conf, correct), "risk_at_50": loop_risk_at(conf, correct, 0.5),
            }
            pooled_conf += conf
            pooled_correct += correct
        mean = {k: np.nanmean([cells[(m, b)][k] for b in benches])
                for k in ("accuracy", "macro_f1", "far", "miss", "error_direction", "ece", "ece_verbal", "brier")}
        mean["aurc"] = loop_aurc(pooled_conf, pooled_correct)
        mean["risk_at_50"] = loop_risk_at(pooled_conf, pooled_correct, 0.5)
        agg[m] = mean
    return common, cells, agg


def test_cells_macro_and_pooled_rows_follow_the_release(mod_row):
    frame = _records(mod_row)
    table = compute_report(frame, n_bootstrap=50, n_splits=3)
    common, cells, agg = _release_cells(frame)
    assert [len(common["xstest"]), len(common["aegis"])] == [36, 28]
    for (m, b), want in cells.items():
        row = table[(table["moderator_id"] == m) & (table["benchmark"] == b)].iloc[0]
        for k, v in want.items():
            if isinstance(v, float) and math.isnan(v):
                assert math.isnan(row[k]), (m, b, k)
            else:
                assert row[k] == pytest.approx(v, abs=1e-12), (m, b, k)
    # items left out by the common-item-set rule are counted
    dropped = table.set_index(["moderator_id", "benchmark"])["n_dropped"]
    assert dropped[("org/a", "xstest")] == 4 and dropped[("org/a", "aegis")] == 2
    assert dropped[("org/b", "xstest")] == 0 and dropped[("org/b", "aegis")] == 2
    assert math.isnan(table.set_index(["moderator_id", "benchmark"]).loc[("org/b", "aegis"), "ece_verbal"])
    for m, want in agg.items():
        row = table[(table["moderator_id"] == m) & (table["benchmark"] == "macro")].iloc[0]
        assert row["n"] == 64
        for k, v in want.items():
            assert row[k] == pytest.approx(v, abs=1e-12), (m, k)
    # the pooled row is every metric over all 64 scored items at once
    pooled = table[(table["moderator_id"] == "org/a") & (table["benchmark"] == "pooled")].iloc[0]
    a = frame[(frame["moderator_id"] == "org/a") & (frame["prompt_variant"] == "default")]
    a = a[[(i in common[b]) for b, i in zip(a["benchmark"], a["item_id"])]]
    ok = ((a["gold"] == "flag") == (a["decision"] == "flag")).tolist()
    assert pooled["n"] == 64 and pooled["accuracy"] == pytest.approx(sum(ok) / 64)
    from toolkit.data.reliability.report import common_item_counts

    assert common_item_counts(frame) == {"xstest": 36, "aegis": 28}
    # the swapped variant is scored on the common ids it has (10 xstest + 8 aegis items)
    variant = table[(table["moderator_id"] == "org/a@swapped") & (table["benchmark"] == "pooled")].iloc[0]
    assert variant["n"] == 10 + 8


def test_rank_by_macro_f1_with_shared_ranks(mod_row):
    rows = []
    for m, wrong in (("org/x", {1}), ("org/y", {2}), ("org/z", {1, 2, 3})):
        for i in range(8):
            gold = "flag" if i % 2 else "no_flag"
            right = i not in wrong
            dec = gold if right else ("no_flag" if gold == "flag" else "flag")
            rows.append(mod_row(item_id=i, gold=gold, decision=dec, p=0.8 if dec == "flag" else 0.2, moderator_id=m))
    board = ranking(compute_report(pd.DataFrame(rows), n_bootstrap=10, n_splits=2))
    # x and y each miss one item (same macro-F1): both rank 1, z ranks 3
    assert dict(zip(board["moderator_id"], board["rank"])) == {"org/x": 1, "org/y": 1, "org/z": 3}
    assert (board["benchmark"] == "macro").all()


def test_temperature_scaling_as_rigor_analysis(mod_row):
    rng = np.random.default_rng(5)
    rows = []
    for bench in ("aegis", "xstest"):  # the pooled order is the release's: xstest items before aegis
        for i in range(60):
            gold = "flag" if i % 2 else "no_flag"
            z = (1.0 if gold == "flag" else -1.0) + rng.normal(0, 1.2)
            p = float(1 / (1 + np.exp(-6 * z)))  # overconfident
            rows.append(mod_row(item_id=str(i), gold=gold, decision="flag" if p >= 0.5 else "no_flag", p=p,
                                benchmark=bench))
    frame = pd.DataFrame(rows)
    table = compute_report(frame, n_bootstrap=10, n_splits=20)
    # pooled order: benchmarks as the release lists them, ids sorted as strings
    ordered = pd.concat([frame[frame["benchmark"] == b].assign(k=lambda f: f["item_id"]).sort_values("k")
                         for b in ("xstest", "aegis")])
    y = (ordered["gold"] == "flag").to_numpy()
    p = ordered["p_flag_logprob"].to_numpy()
    want = loop_temperature_scaling(y, p, (p >= 0.5) == y)
    for bench in ("macro", "pooled"):
        row = table[table["benchmark"] == bench].iloc[0]
        for k, v in want.items():
            assert row[k] == pytest.approx(v, rel=1e-9), (bench, k)
    assert want["temperature"] > 2 and want["ece_scaled"] < want["ece_heldout"]


def test_report_summary_names_the_common_item_set(mod_row, tmp_path):
    import json

    from toolkit.stages.moderation.workflow import write_report
    from toolkit.core.records_io import write_jsonl_atomic

    frame = _records(mod_row)
    rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
            for r in frame.to_dict("records")]
    write_jsonl_atomic(tmp_path / "r.jsonl", rows)
    write_report(tmp_path / "r.jsonl", tmp_path / "out", n_bootstrap=10, n_splits=2, stability_repeats=2, figures=False)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["common_items"] == {"aegis": 28, "xstest": 36}
    assert summary["n_dropped"] == {"org/a|aegis": 2, "org/a|xstest": 4, "org/b|aegis": 2,
                                    "org/a@swapped|aegis": 2}
