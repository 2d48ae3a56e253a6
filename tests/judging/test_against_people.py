"""Every judge against people (issue 44 item 5) and the primary-judge rule (item 7).

The expected figures are recomputed here from their definitions with plain loops over (people, judge) score pairs:
κ_linear from the observed and expected linear disagreement (and scikit-learn's cohen_kappa_score as a second
oracle), exact agreement, AR error, contradiction, φ as Pearson's r of two 0/1 lists, n_eff = k / (1 + (k − 1)·ρ̄).
The records are real ItemRecords read through `slmboard agreement DATA` (no --judges) and the API.
"""
from __future__ import annotations

import csv
import json
import math
import random

import pandas as pd
import pytest

from slmboard_testing import kappa_linear_by_hand, make_item_row
from toolkit import api
from toolkit.cli import main
from toolkit.core.judge_names import is_built_judge, is_people_judge, panel_members
from toolkit.core.records_io import write_jsonl_atomic
from toolkit.data.scoring.primary_judge import choose_primary_judges

PEOPLE = "human-xstest"
PANEL = "panel:majority:heuristic-v1+human-xstest"  # holds people's labels: left out against them
JUDGES = ("gpt4-xstest", "heuristic-v1", "learned-v1")
MODELS = ("org/alpha", "org/beta", "org/gamma")
N_ITEMS = 30
LEVELS = (0.0, 0.5, 1.0)


def _scores(seed: int = 11) -> dict[tuple[str, str, str], float | None]:
    """{(judge, model, item): score}: each judge copies people's label on ~60% of items (more for gpt4), guesses
    otherwise; gpt4 fails on two items, learned-v1 has no record of one."""
    rng = random.Random(seed)
    out = {}
    for m in MODELS:
        for i in range(N_ITEMS):
            item = f"xstest_{i:03d}"
            people = rng.choice(LEVELS)
            out[(PEOPLE, m, item)] = people
            for judge, keep in (("gpt4-xstest", 0.75), ("heuristic-v1", 0.55), ("learned-v1", 0.6), (PANEL, 0.8)):
                out[(judge, m, item)] = people if rng.random() < keep else rng.choice(LEVELS)
            if m == "org/beta" and i in (4, 9):
                out[("gpt4-xstest", m, item)] = None
            if m == "org/gamma" and i == 2:
                del out[("learned-v1", m, item)]
    return out


def _write(path, scores, extra_rows=()):
    rows = [make_item_row(item, s, model_id=m, suite="xstest", judge_id=j, submission_id=m.split("/")[1] + "-1")
            for (j, m, item), s in scores.items()]
    write_jsonl_atomic(path, rows + list(extra_rows))
    return path


def _pairs(scores, a, b):
    """(a's score, b's score) on every (model, item) both scored."""
    out = []
    for (j, m, item), s in scores.items():
        if j == a and s is not None and scores.get((b, m, item)) is not None:
            out.append((s, scores[(b, m, item)]))
    return out


def _pearson(x, y):
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sx = math.sqrt(sum((a - mx) ** 2 for a in x))
    sy = math.sqrt(sum((b - my) ** 2 for b in y))
    return sxy / (sx * sy)


def _expected(scores):
    figures = {}
    for judge in JUDGES:
        p = _pairs(scores, PEOPLE, judge)
        n = len(p)
        figures[judge] = {
            "n": n, "kappa_linear": kappa_linear_by_hand(p), "exact_agreement": sum(x == y for x, y in p) / n,
            "ar_error": sum(y == 0.5 for _, y in p) / n - sum(x == 0.5 for x, _ in p) / n,
            "contradiction_rate": sum({x, y} == {0.0, 1.0} for x, y in p) / n}
    phis = {}
    for i, a in enumerate(JUDGES):
        for b in JUDGES[i + 1:]:
            wa, wb = [], []
            for (j, m, item), s in scores.items():
                if j != PEOPLE or s is None:
                    continue
                sa, sb = scores.get((a, m, item)), scores.get((b, m, item))
                if sa is None or sb is None:
                    continue
                wa.append(1.0 if sa != s else 0.0)
                wb.append(1.0 if sb != s else 0.0)
            phis[(a, b)] = (len(wa), _pearson(wa, wb))
    rho = sum(v for _, v in phis.values()) / len(phis)
    return figures, phis, rho, len(JUDGES) / (1 + (len(JUDGES) - 1) * rho)


def test_every_judge_against_people_by_the_definitions(tmp_path, capsys):
    scores = _scores()
    data = _write(tmp_path / "items.jsonl", scores)
    out = tmp_path / "out"
    assert main(["agreement", str(data), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    figures, phis, rho, n_eff = _expected(scores)
    block = json.loads((out / "against_people.json").read_text())["xstest"][PEOPLE]
    assert set(block["judges"]) == set(JUDGES)
    for judge, want in figures.items():
        got = block["judges"][judge]
        assert got["n"] == want["n"], judge
        for key in ("kappa_linear", "exact_agreement", "ar_error", "contradiction_rate"):
            assert got[key] == pytest.approx(want[key], abs=1e-12), (judge, key)
        assert f"{judge} against {PEOPLE}: n={want['n']} kappa_w={want['kappa_linear']:.3f}" in printed
    assert figures["gpt4-xstest"]["n"] == len(MODELS) * N_ITEMS - 2 and figures["learned-v1"]["n"] == len(MODELS) * N_ITEMS - 1
    corr = block["error_correlation"]
    got_pairs = {(x["judge_a"], x["judge_b"]): (x["n"], x["phi"]) for x in corr["pairs"]}
    assert set(got_pairs) == set(phis)
    for pair, (n, value) in phis.items():
        assert got_pairs[pair][0] == n and got_pairs[pair][1] == pytest.approx(value, abs=1e-12), pair
    assert corr["n_judges"] == 3
    assert corr["mean_phi"] == pytest.approx(rho, abs=1e-12) and corr["n_eff"] == pytest.approx(n_eff, abs=1e-12)
    # the CSVs hold the same figures, one row per judge and one per pair
    rows = {r["judge"]: r for r in csv.DictReader((out / "against_people.csv").open())}
    assert float(rows["heuristic-v1"]["kappa_linear"]) == pytest.approx(figures["heuristic-v1"]["kappa_linear"])
    assert rows[PANEL]["panel_with_people"] == "True" and rows[PANEL]["kappa_linear"] == ""
    pair_rows = list(csv.DictReader((out / "error_correlation.csv").open()))
    assert len(pair_rows) == 3 and float(pair_rows[0]["n_eff"]) == pytest.approx(n_eff)


def test_kappa_agrees_with_scikit_learn():
    from sklearn.metrics import cohen_kappa_score

    scores = _scores(seed=3)
    frame = pd.DataFrame([{"suite": "xstest", "judge_id": j, "model_id": m, "item_id": i, "score": s}
                          for (j, m, i), s in scores.items()])
    from toolkit.data.scoring.against_people import against_people

    result = against_people(frame)["xstest"][PEOPLE]["judges"]
    for judge in JUDGES:
        p = _pairs(scores, PEOPLE, judge)
        oracle = cohen_kappa_score([str(x) for x, _ in p], [str(y) for _, y in p], labels=["0.0", "0.5", "1.0"],
                                   weights="linear")
        assert result[judge]["kappa_linear"] == pytest.approx(oracle, abs=1e-12), judge


def test_a_panel_with_people_is_marked_and_left_out_only_against_those_people(tmp_path):
    scores = _scores()
    # a second suite whose people are someone else: there the same panel is a judge like any other
    other = {("people-raters" if j == PEOPLE else j, m, i.replace("xstest", "harm")): s for (j, m, i), s in scores.items()}
    rows = [make_item_row(i, s, model_id=m, suite="harm", judge_id=j, submission_id=m.split("/")[1] + "-1")
            for (j, m, i), s in other.items()]
    rows += [make_item_row(i, 1.0, model_id=m, suite="harm", judge_id=PEOPLE, submission_id=m.split("/")[1] + "-1")
             for (j, m, i), s in other.items() if j == "people-raters"]
    data = _write(tmp_path / "items.jsonl", scores, rows)
    result, paths = api.agreement_with_people(data, tmp_path / "out")
    xstest = result["xstest"][PEOPLE]
    assert xstest["panels_with_people"] == [PANEL]
    assert PANEL not in xstest["judges"]
    assert all(PANEL not in (x["judge_a"], x["judge_b"]) for x in xstest["error_correlation"]["pairs"])
    harm = result["harm"]
    assert set(harm) == {PEOPLE, "people-raters"}  # two people judges: each gets its own block
    assert harm["people-raters"]["panels_with_people"] == [] and PANEL in harm["people-raters"]["judges"]
    assert harm[PEOPLE]["panels_with_people"] == [PANEL] and "people-raters" in harm[PEOPLE]["judges"]
    want = _pairs({(j, m, i): s for (j, m, i), s in other.items()}, "people-raters", PANEL)
    assert harm["people-raters"]["judges"][PANEL]["n"] == len(want)
    # three judges, the panel and the other people's labels
    assert harm["people-raters"]["error_correlation"]["n_judges"] == 5
    assert [p.name for p in paths] == ["against_people.json", "against_people.csv", "error_correlation.csv"]


def test_a_suite_without_people_is_left_out_and_data_without_any_is_refused(tmp_path, capsys):
    scores = _scores()
    smoke = [make_item_row(f"smoke_{k}", 1.0, judge_id=j) for k in range(3) for j in ("heuristic-v1", "learned-v1")]
    result, _ = api.agreement_with_people(_write(tmp_path / "a.jsonl", scores, smoke))
    assert list(result) == ["xstest"]
    write_jsonl_atomic(tmp_path / "b.jsonl", smoke)
    with pytest.raises(api.BadOption, match="no judge of the data is people's labels .*judges present: heuristic-v1, "
                                            "learned-v1") as info:
        api.agreement_with_people(tmp_path / "b.jsonl", tmp_path / "none")
    assert info.value.param == "data" and not (tmp_path / "none").exists()
    assert main(["agreement", str(tmp_path / "b.jsonl"), "--out", str(tmp_path / "none")]) == 1
    assert "people's labels" in capsys.readouterr().err and not (tmp_path / "none").exists()


def test_phi_is_null_when_a_judge_never_departs_from_people(tmp_path):
    """A judge that copies people exactly has a constant "disagrees" indicator: its φ is undefined (null), and
    ρ̄ and n_eff are over the defined pairs only."""
    scores = _scores()
    for (j, m, i), s in list(scores.items()):
        if j == "learned-v1":
            scores[(j, m, i)] = scores[(PEOPLE, m, i)]
    result, _ = api.agreement_with_people(_write(tmp_path / "items.jsonl", scores))
    corr = result["xstest"][PEOPLE]["error_correlation"]
    phis = {(x["judge_a"], x["judge_b"]): x["phi"] for x in corr["pairs"]}
    assert phis[("gpt4-xstest", "learned-v1")] is None and phis[("heuristic-v1", "learned-v1")] is None
    only = phis[("gpt4-xstest", "heuristic-v1")]
    assert corr["mean_phi"] == pytest.approx(only) and corr["n_eff"] == pytest.approx(3 / (1 + 2 * only))
    assert result["xstest"][PEOPLE]["judges"]["learned-v1"]["exact_agreement"] == 1.0


@pytest.mark.parametrize("judge_id, people", [("human-xstest", True), ("human", True), ("people:raters", True),
                                              ("people-xstest", True), ("humaneval-judge", False),
                                              ("heuristic-v1", False), ("gpt4-xstest", False),
                                              (PANEL, False), ("mean:human-xstest+heuristic-v1", False)])
def test_one_function_says_which_judges_are_people(judge_id, people):
    assert is_people_judge(judge_id) is people


def test_panel_members_read_from_the_id():
    assert panel_members(PANEL) == ["heuristic-v1", "human-xstest"]
    assert panel_members("human-xstest") == [] and panel_members("panel-like-name") == []


def _board(rows):
    return pd.DataFrame(rows, columns=["suite", "judge_id", "model_id", "n_failed"])


def test_the_primary_judge_rule_never_picks_a_panel_a_mean_row_or_people():
    # the panel, the mean row and people cover three models, the plain judges two: most models would pick them
    rows = [("x", j, m, 0) for j in (PANEL, "mean:gpt4-xstest+heuristic-v1", PEOPLE) for m in MODELS]
    rows += [("x", "heuristic-v1", m, 1) for m in MODELS[:2]] + [("x", "gpt4-xstest", m, 0) for m in MODELS[:2]]
    chosen = choose_primary_judges(_board(rows))["x"]
    assert chosen.judge_id == "gpt4-xstest" and "fewest failed" in chosen.reason
    only = [r for r in rows if r[1] == "heuristic-v1"] + [r for r in rows if is_built_judge(r[1])]
    assert choose_primary_judges(_board(only))["x"].reason.startswith("the only judge the rule may pick")
    # a suite with none but these gets no primary judge from the rule ...
    built = [r for r in rows if is_built_judge(r[1])]
    assert choose_primary_judges(_board(built)) == {}
    # ... and any of them only when the maintainer names it
    for judge in (PANEL, "mean:gpt4-xstest+heuristic-v1", PEOPLE):
        picked = choose_primary_judges(_board(rows), {"x": judge})["x"]
        assert picked.judge_id == judge and "maintainer" in picked.reason
