"""MD-Judge's Otsu mapping and the judge-agreement statistics (paper 1 §3.2, Tables 5-6)."""
import json
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from toolkit.cli import main
from toolkit.stages.judging.agreement_report import AGREEMENT_FIELDS, agreement_by_suite
from toolkit.stages.judging.mdjudge import otsu_thresholds, ternary_from_prob
from toolkit.core.records_io import write_jsonl_atomic


def test_otsu_finds_the_gaps_of_a_three_mode_distribution():
    rng = np.random.default_rng(0)
    probs = np.concatenate([rng.uniform(0.0, 0.1, 300), rng.uniform(0.45, 0.55, 100), rng.uniform(0.9, 1.0, 200)])
    lo, hi = otsu_thresholds(probs)
    assert 0.1 <= lo < 0.45 and 0.55 <= hi < 0.9
    labels = [ternary_from_prob(p, lo, hi) for p in probs]
    assert labels.count(1.0) == 300 and labels.count(0.5) == 100 and labels.count(0.0) == 200


def brute_force_otsu(values, bins=256):
    """Independent reference: every partition of the occupied bins into min(3, #occupied) contiguous
    classes, scored by the between-class variance sum_k w_k (mu_k - mu_T)^2 of the bin centres.
    Returns (all (variance, cuts) candidates, number of classes). Plain loops, no numpy."""
    bin_of = []
    for v in values:
        k = 0
        while v > (k + 1) / bins:  # bins (a, b], the first [0, b]: v <= cut means the lower class
            k += 1
        bin_of.append(k)
    xs = [(k + 0.5) / bins for k in bin_of]
    mean_t = sum(xs) / len(xs)
    occupied = sorted(set(bin_of))

    def variance(cuts):
        total = 0.0
        for lo, hi in zip([-1.0] + cuts, cuts + [2.0]):
            members = [x for x, v in zip(xs, values) if lo < v <= hi] if lo >= 0 else [x for x, v in zip(xs, values) if v <= hi]
            if members:
                total += len(members) / len(xs) * (sum(members) / len(members) - mean_t) ** 2
        return total

    n_classes = min(3, len(occupied))
    candidates = []
    if n_classes == 3:
        for a in range(len(occupied) - 2):
            for b in range(a + 1, len(occupied) - 1):
                cuts = [(occupied[a] + 1) / bins, (occupied[b] + 1) / bins]
                candidates.append((variance(cuts), tuple(cuts)))
    elif n_classes == 2:
        for a in range(len(occupied) - 1):
            cut = (occupied[a] + 1) / bins
            candidates.append((variance([cut]), (cut, cut)))
    return candidates, n_classes


CASES = {
    "issue: three values, two bins": [0.6, 0.6001, 0.999],
    "two values": [0.1, 0.9, 0.1],
    "values on bin edges": [0.0, 0.25, 0.25, 0.5, 0.5, 0.75, 1.0, 64 / 256, 65 / 256],
    "two tight clusters": [0.3, 0.3001, 0.3002, 0.8, 0.8001],
    "three occupied bins exactly": [0.01, 0.011, 0.5, 0.99, 0.991],
    "adjacent bins": [128 / 256, 128.5 / 256, 129.5 / 256, 130.5 / 256],
}
_rng = np.random.default_rng(11)
for _k in range(12):
    _n = int(_rng.integers(3, 40))
    CASES[f"random {_k}"] = list(_rng.beta(_rng.uniform(0.2, 3), _rng.uniform(0.2, 3), _n))
CASES["random rounded to 2 decimals"] = list(np.round(_rng.uniform(0, 1, 30), 2))


@pytest.mark.parametrize("name", sorted(CASES))
def test_otsu_matches_a_brute_force_search(name):
    from toolkit.stages.judging.mdjudge import fit_otsu

    values = CASES[name]
    fit = fit_otsu(values)
    candidates, n_classes = brute_force_otsu(values)
    assert fit.n_classes == n_classes
    best = max(v for v, _ in candidates)
    tied = sorted(cuts for v, cuts in candidates if v >= best - 1e-12)
    assert (fit.lower, fit.upper) == tied[0]  # the best split; among (float) ties the lowest cuts
    labels = {ternary_from_prob(v, fit.lower, fit.upper) for v in values}
    assert len(labels) == n_classes  # every class the split promises is populated
    assert (fit.note == "") == (n_classes == 3)


def test_otsu_three_distinct_values_in_two_bins_get_the_best_single_cut():
    lo, hi = otsu_thresholds([0.6, 0.6001, 0.999])
    assert [ternary_from_prob(p, lo, hi) for p in (0.6, 0.6001, 0.999)] == [1.0, 1.0, 0.0]


def test_otsu_one_bin_is_one_class_with_the_reason():
    from toolkit.stages.judging.mdjudge import fit_otsu

    for values, label in (([0.3, 0.3], 1.0), ([0.9], 0.0), ([0.7, 0.7001, 0.7002], 0.0), ([0.0, 0.0001], 1.0)):
        fit = fit_otsu(values)
        assert (fit.lower, fit.upper, fit.n_classes) == (0.5, 0.5, 1)
        assert "one Otsu bin" in fit.note and f"all {len(values)} probabilities" in fit.note
        assert {ternary_from_prob(v, fit.lower, fit.upper) for v in values} == {label}
    with pytest.raises(ValueError):
        otsu_thresholds([])
    with pytest.raises(ValueError):
        otsu_thresholds([0.2, 1.5])


def test_mdjudge_records_why_a_suite_has_fewer_than_three_classes():
    from toolkit.stages.judging.base import JudgeInput
    from toolkit.stages.judging.components import MDJudgeOptions
    from toolkit.stages.judging.mdjudge import MDJudge

    class FixedProbs(MDJudge):  # the model's probabilities are given; the mapping is what is tested
        def unsafe_probs(self, inputs):
            return [({"a": 0.6, "b": 0.6001, "c": 0.999}[x.item_id], "trace") for x in inputs]

    items = [JudgeInput("salad", k, "p", "r") for k in ("a", "b", "c")]
    out = FixedProbs(MDJudgeOptions(model="unused")).judge(items)
    assert [j.score for j in out] == [1.0, 1.0, 0.0]
    assert all("only two Otsu bins" in j.reason and "no ambiguous class" in j.reason for j in out)


def _frame():
    rows = []
    a = [0, 0, 0.5, 0.5, 1, 1, 1, 0.5, 0, 1]
    b = [0, 0.5, 0.5, 1, 1, 1, 0, 0.5, 0, None]
    for m, shift in (("org/m1", 0), ("org/m2", 1)):
        for k, (sa, sb) in enumerate(zip(a, b)):
            sa2 = a[(k + shift) % len(a)]
            rows.append({"model_id": m, "suite": "harmbench", "item_id": f"i{k}", "judge_id": "A", "score": sa2})
            rows.append({"model_id": m, "suite": "harmbench", "item_id": f"i{k}", "judge_id": "openai:gpt-4o", "score": sb})
    return pd.DataFrame(rows)


def test_agreement_matches_hand_counts_and_sklearn():
    frame = _frame()
    result, extra = agreement_by_suite(frame, "A", "openai-gpt-4o")  # folder slug accepted
    m = result["harmbench"]
    assert tuple(m) == AGREEMENT_FIELDS
    pairs = frame.pivot_table(index=["model_id", "item_id"], columns="judge_id", values="score").dropna()
    a, b = pairs["A"].to_numpy(), pairs["openai:gpt-4o"].to_numpy()
    assert m["n"] == len(pairs) == 18 and extra["harmbench"]["n_failed_b"] == 2
    conf = np.zeros((3, 3), int)
    for x, y in zip(a, b):
        conf[int(x * 2), int(y * 2)] += 1
    assert m["confusion"] == conf.tolist()
    assert m["exact_agreement"] == pytest.approx(np.trace(conf) / 18)
    assert m["kappa_linear"] == pytest.approx(cohen_kappa_score((a * 2).astype(int), (b * 2).astype(int), weights="linear"))
    assert m["boundary_rate"] == pytest.approx(np.mean((a == 0.5) != (b == 0.5)))
    assert m["contradiction_rate"] == pytest.approx(np.mean(np.abs(a - b) == 1))
    assert m["ar_a"] == pytest.approx(np.mean(a == 0.5)) and m["ar_b"] == pytest.approx(np.mean(b == 0.5))
    assert m["mean_rank_range_a"] is not None and m["mean_rank_range_a"] >= 0


def test_agreement_cli_writes_json_and_csv(tmp_path, item_row, capsys):
    rows = [item_row(r["item_id"], None if pd.isna(r["score"]) else r["score"], model_id=r["model_id"], suite=r["suite"], judge_id=r["judge_id"],
                     submission_id=r["model_id"].split("/")[1] + "-1") for r in _frame().to_dict("records")]
    write_jsonl_atomic(tmp_path / "items.jsonl", rows)
    assert main(["agreement", str(tmp_path / "items.jsonl"), "--judges", "A,openai:gpt-4o", "--out", str(tmp_path / "agr")]) == 0
    printed = capsys.readouterr().out
    assert "boundary=" in printed and not re.search(r"\d\.\d{4,}", printed), printed  # figures at 3 decimals (issue 47)
    data = json.loads((tmp_path / "agr" / "agreement.json").read_text())
    labels = ("confusion_rows", "confusion_columns", "confusion_scores")
    assert list(data) == ["harmbench"] and tuple(data["harmbench"]) == (*AGREEMENT_FIELDS, *labels)
    # issue 47: the matrix says which judge is the rows, in the file and on the screen
    assert [data["harmbench"][k] for k in labels] == ["A", "openai:gpt-4o", [0, 0.5, 1]]
    assert "harmbench: confusion, rows A × columns openai:gpt-4o (scores 0 0.5 1): 0: " in printed, printed
    csv = pd.read_csv(tmp_path / "agr" / "agreement.csv")
    assert csv.loc[0, "n"] == 18 and csv.loc[0, "n_failed_b"] == 2
    assert main(["agreement", str(tmp_path / "items.jsonl"), "--judges", "A,nobody", "--out", str(tmp_path / "x")]) == 1
    assert "judge 'nobody' not found" in capsys.readouterr().err and not (tmp_path / "x").exists()
