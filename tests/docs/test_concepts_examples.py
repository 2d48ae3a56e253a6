"""The worked examples of docs/concepts.md, recomputed with toolkit.data.scoring.

Expected values come from the page only: each block marked ``<!-- example: NAME -->`` has lines
``given k = v; ...`` (inputs) and ``gives k = v; ...`` (expected results); values are JSON
(``null`` = a failed item). Changing a number on the page makes its test fail.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from toolkit.data.scoring import competition_rank, paired_bootstrap, rank_group, rank_range, rank_upper_bound, rates
from toolkit.data.scoring.bootstrap import label_patterns
from toolkit.data.scoring.primary_judge import choose_primary_judges
from toolkit.data.scoring.ternary import codes_from_scores
from schemas import POLICIES

PAGE = Path(__file__).resolve().parents[2] / "docs" / "concepts.md"
BLOCK = re.compile(r"<!-- example: ([\w-]+) -->\s*\n```text\n(.*?)\n```", re.S)


def _pairs(text: str) -> dict:
    out = {}
    for part in text.split(";"):
        key, _, value = part.partition("=")
        out[key.strip()] = json.loads(value.strip())
    return out


def _examples() -> dict[str, tuple[dict, dict]]:
    found = {}
    for name, body in BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        given, gives = {}, {}
        for line in body.splitlines():
            kind, _, rest = line.strip().partition(" ")
            {"given": given, "gives": gives}[kind].update(_pairs(rest))
        found[name] = (given, gives)
    return found


EXAMPLES = _examples()


def _check(actual: dict, gives: dict) -> None:
    assert set(gives) <= set(actual), f"page names results the test does not compute: {set(gives) - set(actual)}"
    for key, expected in gives.items():
        if isinstance(expected, (int, float)):
            assert actual[key] == pytest.approx(expected, abs=5e-7), key
        else:
            assert actual[key] == expected, key


def _per_model(given: dict) -> dict[str, dict]:
    models: dict[str, dict] = {}
    for key, value in given.items():
        model, _, field = key.partition(".")
        models.setdefault(model, {})[field] = value
    return models


#: issue 44: judge panels, no decision, HELM's mean of judges, ranks that cannot be told apart
JUDGE_AXIS = {"panel-votes", "no-decision", "mean-of-judges", "rank-span"}


def test_every_example_is_on_the_page():
    assert set(EXAMPLES) == {"rates", "policies", "ranks", "patterns", "degenerate-interval", "rank-ub", "coverage",
                             "primary-judge", "judge-sensitivity", "against-people"} | JUDGE_AXIS


def test_rates():
    given, gives = EXAMPLES["rates"]
    scores = [0.0] * given["n_harmful"] + [0.5] * given["n_ambiguous"] + [1.0] * given["n_safe"] + [np.nan] * given["n_failed"]
    codes = codes_from_scores(np.array(scores))[:, None]
    row = rank_group("s", "j", codes, np.array(["m"]), {}, n_bootstrap=0, seed=0).iloc[0]
    _check({k: float(row[k]) for k in ("n_scored", "hcr", "ar", "srr", "s_raw", "s_adj")}, gives)


def test_policies():
    given, gives = EXAMPLES["policies"]
    values = rates(given["n_harmful"], given["n_ambiguous"], given["n_safe"])
    _check({f"score_{p}": float(values[f"score_{p}"]) for p in POLICIES}, gives)


def test_ranks():
    given, gives = EXAMPLES["ranks"]
    models = _per_model(given)
    names = sorted(models)
    n0, n05, n1 = (np.array([models[m][k] for m in names]) for k in ("n_harmful", "n_ambiguous", "n_safe"))
    values = rates(n0, n05, n1)
    ranks = {"rank_raw": competition_rank(values["s_raw"]), "rank_adj": competition_rank(values["s_adj"])}
    for p in POLICIES:
        ranks[f"rank_{p}"] = competition_rank(values[f"score_{p}"])
    ranks["delta_adj"] = ranks["rank_raw"] - ranks["rank_adj"]
    ranks["rank_range"] = rank_range(np.column_stack([ranks[f"rank_{p}"] for p in POLICIES]))
    actual = {}
    for i, m in enumerate(names):
        actual[f"{m}.s_raw"] = float(values["s_raw"][i])
        actual[f"{m}.s_adj"] = float(values["s_adj"][i])
        for key, arr in ranks.items():
            actual[f"{m}.{key}"] = float(arr[i])
    _check(actual, gives)


def test_patterns():
    given, gives = EXAMPLES["patterns"]
    codes = codes_from_scores(np.array(given["items"], dtype=float))
    patterns, counts, _ = label_patterns(codes)
    # counts listed on the page in the order of the patterns' label codes; compare as a multiset too
    _check({"n_patterns": len(patterns), "pattern_counts": sorted(int(c) for c in counts)}, gives)


def test_degenerate_interval():
    given, gives = EXAMPLES["degenerate-interval"]
    codes = codes_from_scores(np.array(given["scores"], dtype=float))[:, None]
    result = paired_bootstrap(codes, n_resamples=given["n_resamples"], seed=given["seed"])
    actual = {}
    for m in ("s_raw", "s_adj"):
        actual[f"{m}_lo"], actual[f"{m}_hi"] = float(result.lo[m][0]), float(result.hi[m][0])
    _check(actual, gives)


def test_rank_ub():
    given, gives = EXAMPLES["rank-ub"]
    models = _per_model(given)
    names = sorted(models)
    ub = rank_upper_bound(np.array([models[m]["lo"] for m in names]), np.array([models[m]["hi"] for m in names]))
    _check({f"{m}.rank_ub": float(ub[i]) for i, m in enumerate(names)}, gives)


def test_coverage():
    given, gives = EXAMPLES["coverage"]
    scores = np.array([np.nan if s is None else s for s in given["scores"]], dtype=float)
    codes = codes_from_scores(scores)[:, None]
    row = rank_group("s", "j", codes, np.array(["m"]), {}, n_bootstrap=0, seed=0, suite_total=given["suite_total"]).iloc[0]
    _check({k: float(row[k]) for k in ("n_items", "n_scored", "n_failed", "coverage")}, gives)


def test_primary_judge():
    given, gives = EXAMPLES["primary-judge"]
    board = pd.DataFrame(given["rows"], columns=["suite", "judge_id", "model_id", "n_failed"])
    chosen = choose_primary_judges(board)
    (suite,) = chosen
    _check({"primary": chosen[suite].judge_id}, gives)


def test_panel_votes():
    from toolkit.stages.judging.panel_id import panel_vote

    given, gives = EXAMPLES["panel-votes"]
    actual = {}
    for rule in ("majority", "majority-or-ambiguous", "unanimous-or-ambiguous", "lowest"):
        actual[rule.replace("-", "_")] = [panel_vote(rule, [(f"m{k}", s) for k, s in enumerate(v)])[0] for v in given["votes"]]
    actual["majority_min_valid_2"] = [panel_vote("majority", [(f"m{k}", s) for k, s in enumerate(v)], 2)[0] for v in given["votes"]]
    _check(actual, gives)


def test_no_decision():
    from toolkit.data.scoring.ternary import UNDECIDED

    given, gives = EXAMPLES["no-decision"]
    codes = codes_from_scores(np.array([np.nan if s is None else s for s in given["scores"]], dtype=float))
    codes[[i for i, st in enumerate(given["statuses"]) if st == "no_decision"]] = UNDECIDED
    row = rank_group("s", "j", codes[:, None], np.array(["m"]), {}, n_bootstrap=0, seed=0).iloc[0]
    _check({k: float(row[k]) for k in ("n_items", "n_scored", "n_undecided", "n_failed", "s_raw", "ar")}, gives)


def test_mean_of_judges():
    from toolkit.data.scoring.mean_of_judges import MeanOfJudgesOptions, mean_of_judges_rows

    given, gives = EXAMPLES["mean-of-judges"]
    frames = {j: pd.DataFrame({"model_id": "m", "item_id": [f"i{k}" for k in range(len(v))],
                               "score": [np.nan if s is None else s for s in v]}) for j, v in given.items()}
    row = mean_of_judges_rows("s", frames, MeanOfJudgesOptions(n_bootstrap=0)).iloc[0]
    _check({k: float(row[k]) for k in ("s_raw", "n_scored", "n_failed")}, gives)


def test_rank_span():
    from toolkit.data.scoring.leaderboard import indistinct_rank_span

    given, gives = EXAMPLES["rank-span"]
    names = given["models"]
    indistinct = np.eye(len(names), dtype=bool)
    for a, b in given["indistinct"]:
        indistinct[names.index(a), names.index(b)] = indistinct[names.index(b), names.index(a)] = True
    best, worst = indistinct_rank_span(np.array(given["ranks"], dtype=float), indistinct)
    actual = {}
    for i, m in enumerate(names):
        actual[f"{m}.rank_best"], actual[f"{m}.rank_worst"] = float(best[i]), float(worst[i])


def test_judge_sensitivity():
    from toolkit import api

    given, gives = EXAMPLES["judge-sensitivity"]
    records = pd.DataFrame([{"suite": "s", "judge_id": key.split(".")[0], "model_id": key.split(".")[1],
                             "item_id": f"i{k}", "score": float(score)}
                            for key, scores in given.items() for k, score in enumerate(scores)])
    result = api.judge_sensitivity(records)
    (suite,) = result.suites.to_dict(orient="records")
    models = result.models.sort_values(["judge_id", "model_id"])
    actual = {k: suite[k] for k in ("n_models", "n_items", "models_dropped", "mean_rank_range_judges",
                                    "mean_rank_range_judges_adj", "mean_policy_rank_range")}
    for judge, block in models.groupby("judge_id"):
        actual[f"{judge}.rank_raw"] = block["rank_raw"].tolist()
        actual[f"{judge}.rank_adj"] = block["rank_adj"].tolist()
        actual["rank_range_judges"] = block["rank_range_judges"].tolist()
        actual["rank_range_judges_adj"] = block["rank_range_judges_adj"].tolist()
    taus = result.pairs.set_index("metric")["kendall_tau_b"]
    actual["tau_b_raw"], actual["tau_b_adj"] = float(taus["s_raw"]), float(taus["s_adj"])


def test_against_people():
    from toolkit.data.scoring.against_people import against_people

    given, gives = EXAMPLES["against-people"]
    rows = [{"suite": "s", "judge_id": judge, "model_id": "m", "item_id": str(i), "score": float(v)}
            for judge, key in (("human-x", "people"), ("a", "judge_a"), ("b", "judge_b")) for i, v in enumerate(given[key])]
    block = against_people(pd.DataFrame(rows))["s"]["human-x"]
    actual = {f"{j}.{k}": v for j, m in block["judges"].items() for k, v in m.items()}
    actual.update(phi=block["error_correlation"]["pairs"][0]["phi"], n_eff=block["error_correlation"]["n_eff"])
    _check(actual, gives)
