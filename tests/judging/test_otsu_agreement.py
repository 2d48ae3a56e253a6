"""MD-Judge's Otsu mapping and the judge-agreement statistics (paper 1 §3.2, Tables 5-6)."""
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from toolkit.cli import main
from toolkit.judging.agreement import AGREEMENT_FIELDS, agreement_by_suite
from toolkit.judging.mdjudge import otsu_thresholds, ternary_from_prob
from toolkit.records_io import write_jsonl_atomic


def test_otsu_finds_the_gaps_of_a_three_mode_distribution():
    rng = np.random.default_rng(0)
    probs = np.concatenate([rng.uniform(0.0, 0.1, 300), rng.uniform(0.45, 0.55, 100), rng.uniform(0.9, 1.0, 200)])
    lo, hi = otsu_thresholds(probs)
    assert 0.1 <= lo < 0.45 and 0.55 <= hi < 0.9
    labels = [ternary_from_prob(p, lo, hi) for p in probs]
    assert labels.count(1.0) == 300 and labels.count(0.5) == 100 and labels.count(0.0) == 200


def test_otsu_degenerate_inputs():
    assert otsu_thresholds([0.3, 0.3]) == (0.5, 0.5)
    lo, hi = otsu_thresholds([0.1, 0.9, 0.1])
    assert lo == hi and 0.1 < lo < 0.9
    with pytest.raises(ValueError):
        otsu_thresholds([])


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
    data = json.loads((tmp_path / "agr" / "agreement.json").read_text())
    assert list(data) == ["harmbench"] and tuple(data["harmbench"]) == AGREEMENT_FIELDS
    csv = pd.read_csv(tmp_path / "agr" / "agreement.csv")
    assert csv.loc[0, "n"] == 18 and csv.loc[0, "n_failed_b"] == 2
    assert main(["agreement", str(tmp_path / "items.jsonl"), "--judges", "A,nobody", "--out", str(tmp_path / "x")]) == 1
    assert "judge 'nobody' not found" in capsys.readouterr().err and not (tmp_path / "x").exists()
