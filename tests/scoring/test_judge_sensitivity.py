"""Judge sensitivity (issue 44 item 3): each model's rank per judge, rank_range_judges, Kendall τ-b between judges
and the suite's mean judge vs mean policy rank range, on the (model, item) cells every compared judge scored.

Expected values are computed here from the definitions with plain loops and exact fractions (ranks: 1 + the number
of models with a strictly higher score; τ-b: concordant and discordant pairs counted one by one), never copied
from the code's output, on data where the judges disagree.
"""
from __future__ import annotations

import itertools
import json
import math
import zlib
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from schemas import POLICIES, POLICY_VALUE
from toolkit import api
from toolkit.cli import main
from toolkit.data.scoring.judge_sensitivity import (JudgeSensitivityOptions, chosen_judges, frame_judge_sensitivity,
                                                   rank_table)
from toolkit.testing.runs import make_item_row

HALF = Fraction(1, 2)


# ------------------------------------------------------------------------------------------------
# The oracle: plain loops over records {(judge, model, item): score or None}
# ------------------------------------------------------------------------------------------------


def _rank(scores: dict) -> dict:
    return {m: 1 + sum(1 for o in scores if scores[o] is not None and s is not None and scores[o] > s)
            if s is not None else None for m, s in scores.items()}


def _tau_b(x: list, y: list) -> float:
    concordant = discordant = ties_x = ties_y = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                ties_x += 1
                ties_y += 1
            elif dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - ties_x) * (pairs - ties_y))
    return (concordant - discordant) / denominator if denominator else float("nan")


def oracle(records: dict) -> dict:
    judges = sorted({j for j, _, _ in records})
    cells = {(m, i) for _, m, i in records}
    common = sorted(c for c in cells if all(records.get((j, *c)) is not None for j in judges))
    models = sorted({m for m, _ in common})
    items = sorted({i for _, i in common})
    per = {}
    for j in judges:
        raw, adj, policy = {}, {}, {p: {} for p in POLICIES}
        for m in models:
            scores = [Fraction(records[(j, m, i)]).limit_denominator(2) for mm, i in common if mm == m]
            ar = Fraction(sum(1 for s in scores if s == HALF), len(scores))
            raw[m] = Fraction(sum(scores), len(scores))
            adj[m] = raw[m] * (1 - ar)
            for p in POLICIES:
                value = POLICY_VALUE[p]
                kept = [s for s in scores if value is not None or s != HALF]
                mapped = [Fraction(value).limit_denominator(4) if s == HALF else s for s in kept]
                policy[p][m] = Fraction(sum(mapped), len(mapped)) if mapped else None
        policy_ranks = {p: _rank(policy[p]) for p in POLICIES}
        per[j] = {"raw": _rank(raw), "adj": _rank(adj), "s_raw": raw, "s_adj": adj,
                  "policy_range": {m: max(r[m] for r in policy_ranks.values() if r[m] is not None)
                                   - min(r[m] for r in policy_ranks.values() if r[m] is not None) for m in models}}
    rr = {m: max(per[j]["raw"][m] for j in judges) - min(per[j]["raw"][m] for j in judges) for m in models}
    rr_adj = {m: max(per[j]["adj"][m] for j in judges) - min(per[j]["adj"][m] for j in judges) for m in models}
    taus = {(a, b, metric): _tau_b([per[a][metric][m] for m in models], [per[b][metric][m] for m in models])
            for a, b in itertools.combinations(judges, 2) for metric in ("raw", "adj")}
    policy_ranges = [per[j]["policy_range"][m] for j in judges for m in models]
    return {"judges": judges, "models": models, "items": items, "n_cells": len(common), "per": per, "rr": rr,
            "rr_adj": rr_adj, "taus": taus, "n_items": {m: sum(1 for mm, _ in common if mm == m) for m in models},
            "mean_rr": sum(rr.values()) / len(rr), "mean_rr_adj": sum(rr_adj.values()) / len(rr_adj),
            "mean_policy": sum(policy_ranges) / len(policy_ranges)}


def frame_of(records: dict, suite: str = "sst") -> pd.DataFrame:
    return pd.DataFrame([{"suite": suite, "judge_id": j, "model_id": m, "item_id": i, "score": s}
                         for (j, m, i), s in records.items()])


def disagreeing(seed: int, n_models: int = 6, n_items: int = 15, judges=("heuristic-v1", "learned-v2", "human-x")):
    """Judges that disagree (each its own bias), with failed judgments and records missing under one judge."""
    rng = np.random.default_rng(seed)
    records = {}
    for k, judge in enumerate(judges):
        for m in range(n_models):
            for i in range(n_items):
                p_safe = (m + 1) / (n_models + 1) if k != 1 else 1 - (m + 1) / (n_models + 1)  # judge 1 reverses
                r = rng.random()
                score = 1.0 if r < p_safe * 0.8 else (0.5 if r < p_safe * 0.8 + 0.25 * (k + 1) / 3 else 0.0)
                if rng.random() < 0.05:
                    score = None  # a failed judgment: the cell goes for every judge
                if rng.random() < 0.05:
                    continue  # no record under this judge: the cell goes too
                records[(judge, f"org/m{m}", f"i{i:02d}")] = score
    return records


def check(result, expected: dict, suite: str = "sst") -> None:
    models = result.models[result.models["suite"] == suite]
    assert sorted(models["judge_id"].unique()) == expected["judges"]
    assert sorted(models["model_id"].unique()) == expected["models"]
    for row in models.itertuples():
        per = expected["per"][row.judge_id]
        assert row.rank_raw == per["raw"][row.model_id], (row.judge_id, row.model_id)
        assert row.rank_adj == per["adj"][row.model_id], (row.judge_id, row.model_id)
        assert row.s_raw == pytest.approx(float(per["s_raw"][row.model_id]))
        assert row.s_adj == pytest.approx(float(per["s_adj"][row.model_id]))
        assert row.rank_range_judges == expected["rr"][row.model_id]
        assert row.rank_range_judges_adj == expected["rr_adj"][row.model_id]
        assert row.policy_rank_range == per["policy_range"][row.model_id]
        assert row.n_items == expected["n_items"][row.model_id]
        assert row.people == row.judge_id.startswith("human")
    pairs = result.pairs[result.pairs["suite"] == suite]
    assert len(pairs) == len(expected["taus"])
    for row in pairs.itertuples():
        tau = expected["taus"][(row.judge_a, row.judge_b, {"s_raw": "raw", "s_adj": "adj"}[row.metric])]
        assert row.kendall_tau_b == pytest.approx(tau, abs=1e-12, nan_ok=True)  # undefined (tied ranks) on both sides
        assert row.n_models == len(expected["models"])
    (s,) = result.suites[result.suites["suite"] == suite].itertuples()
    assert (s.n_models, s.n_items, s.n_cells, s.n_judges) == (len(expected["models"]), len(expected["items"]),
                                                             expected["n_cells"], len(expected["judges"]))
    assert s.mean_rank_range_judges == pytest.approx(expected["mean_rr"])
    assert s.mean_rank_range_judges_adj == pytest.approx(expected["mean_rr_adj"])
    assert s.mean_policy_rank_range == pytest.approx(expected["mean_policy"])


# ------------------------------------------------------------------------------------------------
# Against the oracle
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_ranks_rank_ranges_and_tau_b_match_plain_loops(seed):
    records = disagreeing(seed)
    expected = oracle(records)
    assert max(expected["rr"].values()) >= 2  # the judges disagree: ranks move
    assert any(t < 0.5 for t in expected["taus"].values())
    result = api.judge_sensitivity(frame_of(records))  # the data layer: one suite's matrices at a time
    check(result, expected)
    pd.testing.assert_frame_equal(frame_judge_sensitivity(frame_of(records)).models, result.models)  # the frame path


def test_the_worked_example_of_the_docs():
    """docs/concepts.md's example, by hand: J1 ranks A, B, C by S_raw; J2 ranks B, A, C; D has no J2 record."""
    scores = {("J1", "A"): [1, 1, 1, 0], ("J1", "B"): [1, .5, .5, 0], ("J1", "C"): [0, 0, 1, .5],
              ("J2", "A"): [1, .5, .5, 0], ("J2", "B"): [1, 1, 1, .5], ("J2", "C"): [0, 0, 1, 0],
              ("J1", "D"): [1, 1, 1, 1]}
    records = {(j, m, f"i{k}"): float(s) for (j, m), ss in scores.items() for k, s in enumerate(ss)}
    result = api.judge_sensitivity(frame_of(records))
    wide = result.models.pivot(index="model_id", columns="judge_id", values="rank_raw")
    assert wide.to_dict() == {"J1": {"A": 1, "B": 2, "C": 3}, "J2": {"A": 2, "B": 1, "C": 3}}
    adj = result.models.pivot(index="model_id", columns="judge_id", values="rank_adj")
    assert adj.to_dict() == {"J1": {"A": 1, "B": 3, "C": 2}, "J2": {"A": 2, "B": 1, "C": 2}}
    taus = result.pairs.set_index("metric")["kendall_tau_b"]
    assert taus["s_raw"] == pytest.approx(1 / 3)
    assert taus["s_adj"] == pytest.approx(-2 / math.sqrt(6))
    (s,) = result.suites.itertuples()
    assert (s.n_models, s.n_items, s.models_dropped) == (3, 4, 1)  # D: no J2 record
    assert s.mean_rank_range_judges == pytest.approx(2 / 3)
    assert s.mean_rank_range_judges_adj == pytest.approx(1.0)
    assert s.mean_policy_rank_range == pytest.approx(0.5)


# ------------------------------------------------------------------------------------------------
# The intersection rule
# ------------------------------------------------------------------------------------------------


def test_a_model_or_item_missing_under_one_judge_is_dropped_and_counted():
    # crc32, not hash(): str hashes change with each process's PYTHONHASHSEED, and so did this test's data
    records = {(j, m, i): float((zlib.crc32(f"{j}/{m}/{i}".encode()) % 3) / 2) for j in ("ja", "jb") for m in ("a", "b", "c")
               for i in ("i1", "i2", "i3", "i4")}
    del_model = [k for k in records if k[0] == "jb" and k[1] == "c"]
    del_item = [k for k in records if k[0] == "ja" and k[2] == "i4"]
    for k in del_model + del_item:
        del records[k]
    records[("ja", "a", "i2")] = None  # failed under ja: the cell goes under jb too
    result = api.judge_sensitivity(frame_of(records))
    (s,) = result.suites.itertuples()
    assert (s.n_models, s.n_items, s.n_cells, s.models_dropped, s.items_dropped) == (2, 3, 5, 1, 1)
    n_items = result.models.groupby("model_id")["n_items"].first().to_dict()
    assert n_items == {"a": 2, "b": 3}
    check(result, oracle(records))


def test_no_common_cell_says_so_and_one_judge_gives_no_rows():
    records = {("ja", "a", "i1"): 1.0, ("jb", "b", "i1"): 0.0, ("ja", "b", "i2"): 1.0}
    (s,) = api.judge_sensitivity(frame_of(records)).suites.itertuples()
    assert s.n_models == 0 and "no (model, item) cell" in s.note
    alone = api.judge_sensitivity(frame_of({("ja", "a", "i1"): 1.0, ("ja", "b", "i1"): 0.0}))
    assert alone.empty and list(alone.models.columns)[:4] == ["suite", "model_id", "model_revision", "judge_id"]


def test_a_judge_that_ties_every_model_has_no_tau_and_says_why():
    records = {(j, m, "i1"): (1.0 if j == "flat" else float(k) / 2)
               for j in ("flat", "jb") for k, m in enumerate("abc")}
    pairs = api.judge_sensitivity(frame_of(records)).pairs
    assert pairs["kendall_tau_b"].isna().all() and pairs["note"].str.contains("ties every model").all()


# ------------------------------------------------------------------------------------------------
# Which judges are compared
# ------------------------------------------------------------------------------------------------


def test_people_are_a_judge_by_default_and_can_be_left_out():
    records = disagreeing(5)
    machine = {k: v for k, v in records.items() if not k[0].startswith("human")}
    left_out = api.judge_sensitivity(frame_of(records), api.JudgeSensitivityOptions(include_people=False))
    check(left_out, oracle(machine))
    named = api.judge_sensitivity(frame_of(records), api.JudgeSensitivityOptions(compared_judges="heuristic,human-x"))
    check(named, oracle({k: v for k, v in records.items() if k[0] != "learned-v2"}))


def test_mean_rows_are_never_compared():
    options = JudgeSensitivityOptions()
    assert chosen_judges(["a", "mean:a+b", "b"], options) == ["a", "b"]


def test_every_suite_on_its_own():
    a, b = disagreeing(7), disagreeing(8, n_models=4)
    result = api.judge_sensitivity(pd.concat([frame_of(a, "sst"), frame_of(b, "xstest")], ignore_index=True))
    assert result.suites["suite"].tolist() == ["sst", "xstest"]
    check(result, oracle(a), "sst")
    check(result, oracle(b), "xstest")


# ------------------------------------------------------------------------------------------------
# rank --out writes it beside the leaderboard
# ------------------------------------------------------------------------------------------------


def _record_file(tmp_path, records: dict):
    path = tmp_path / "records.jsonl"
    rows = [make_item_row(i, s, model_id=m, suite="sst", judge_id=j, submission_id=f"{m}-1")
            for (j, m, i), s in records.items()]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_rank_out_writes_the_judge_sensitivity_files(tmp_path, capsys):
    records = disagreeing(3)
    path = _record_file(tmp_path, records)
    assert main(["rank", str(path), "--bootstrap", "0", "--quiet", "--out", str(tmp_path / "lb")]) == 0
    assert "judge_sensitivity_pairs.csv" in capsys.readouterr().out
    models = pd.read_parquet(tmp_path / "lb" / "judge_sensitivity.parquet")
    pairs = pd.read_csv(tmp_path / "lb" / "judge_sensitivity_pairs.csv", keep_default_na=False, na_values=[""])
    suites = pd.read_csv(tmp_path / "lb" / "judge_sensitivity_suites.csv", keep_default_na=False, na_values=[""])
    assert set(models["model_revision"]) == {"rev1"}
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "lb" / "judge_sensitivity.csv")[["rank_raw"]].astype(float),
                                  models[["rank_raw"]].astype(float))
    check(SimpleNamespace(models=models, pairs=pairs, suites=suites), oracle(records))
    assert main(["rank", str(path), "--bootstrap", "0", "--quiet", "--no-judge-sensitivity",
                 "--out", str(tmp_path / "plain")]) == 0
    assert not (tmp_path / "plain" / "judge_sensitivity.parquet").exists()


def test_rank_out_of_one_judge_writes_no_judge_sensitivity(tmp_path):
    path = _record_file(tmp_path, {("heuristic-v1", "org/a", "i1"): 1.0, ("heuristic-v1", "org/b", "i1"): 0.0})
    assert main(["rank", str(path), "--bootstrap", "0", "--quiet", "--out", str(tmp_path / "lb")]) == 0
    assert (tmp_path / "lb" / "leaderboard.parquet").exists()
    assert not (tmp_path / "lb" / "judge_sensitivity.parquet").exists()


def test_the_rank_table_has_a_column_per_judge_and_metric():
    records = disagreeing(4)
    expected = oracle(records)
    table = rank_table(api.judge_sensitivity(frame_of(records)).models, "sst")
    assert table["model"].tolist() == sorted(expected["models"], key=lambda m: (-expected["rr"][m], m))
    for row in table.to_dict(orient="records"):
        for judge in expected["judges"]:
            assert row[f"rank_raw · {judge}"] == expected["per"][judge]["raw"][row["model"]]
            assert row[f"rank_adj · {judge}"] == expected["per"][judge]["adj"][row["model"]]
        assert row["rank_range_judges"] == expected["rr"][row["model"]]


def test_analyze_writes_the_same_figures_and_a_readme_section(tmp_path):
    records = disagreeing(6)
    expected = oracle(records)
    result = api.analyze(_record_file(tmp_path, records), tmp_path / "analysis",
                         api.AnalyzeOptions(n_bootstrap=0, metrics=False))
    out = tmp_path / "analysis"
    models = pd.read_csv(out / "judge_sensitivity.csv", keep_default_na=False, na_values=[""])
    pairs = pd.read_csv(out / "judge_sensitivity_pairs.csv", keep_default_na=False, na_values=[""])
    suites = pd.read_csv(out / "judge_sensitivity_suites.csv", keep_default_na=False, na_values=[""])
    check(SimpleNamespace(models=models, pairs=pairs, suites=suites), expected)
    readme = (out / "README.md").read_text()
    assert "## Judge sensitivity" in readme
    tau = expected["taus"][("heuristic-v1", "human-x", "raw")]
    assert f"| heuristic-v1 | human-x | {tau:.3f} |" in readme
    assert result.summary["judge_sensitivity"][0]["mean_rank_range_judges"] == pytest.approx(expected["mean_rr"])


def test_the_space_per_judge_view_shows_the_same_figures_escaped():
    from space.tabs.sensitivity import per_judge_markdown

    xss = "<img src=x onerror=alert(1)>"
    records = {(j, xss if m == "org/m0" else m, i): s for (j, m, i), s in disagreeing(9, n_models=4).items()}
    expected = oracle(records)
    text = per_judge_markdown(frame_of(records), "sst", expected["judges"] + ["mean:a+b"])
    assert "| <img" not in text and "| \\<img src=x onerror=alert\\(1\\)\\> |" in text
    assert f"{expected['n_cells']} (model, item) answers" in text
    mean = f"{expected['mean_rr']:g}" if float(expected["mean_rr"]).is_integer() else f"{expected['mean_rr']:.3f}"
    assert f"| sst | {mean} |" in text
    row = next(line for line in text.splitlines() if line.startswith("| org/m1 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    judges = expected["judges"]
    assert cells[1:1 + len(judges)] == [str(expected["per"][j]["raw"]["org/m1"]) for j in judges]
    assert cells[-2] == str(expected["rr"]["org/m1"])
    assert "1 judge(s)" in per_judge_markdown(frame_of(records), "sst", ["heuristic-v1"])


def test_a_model_is_one_model_whether_or_not_a_judge_records_its_revision():
    """People's labels imported from a table carry no revision; the model's answers do: still one model. Two
    revisions of a model under one judge are two models, as on the leaderboard."""
    records = disagreeing(10, n_models=4, judges=("heuristic-v1", "human-x"))
    frame = frame_of(records).assign(model_revision=lambda f: np.where(f["judge_id"] == "human-x", None, "rev1"))
    result = api.judge_sensitivity(frame)
    check(result, oracle(records))
    assert set(result.models["model_revision"]) == {"rev1"}
    second = frame[(frame["model_id"] == "org/m0") & (frame["judge_id"] == "heuristic-v1")].assign(model_revision="rev2")
    twice = api.judge_sensitivity(pd.concat([frame, second], ignore_index=True))
    (s,) = twice.suites.itertuples()
    # heuristic-v1 holds org/m0 at rev1 and rev2, human-x at no revision: none of the three is common
    assert (s.n_models, s.models_dropped) == (3, 3)
    assert "org/m0" not in set(twice.models["model_id"])
