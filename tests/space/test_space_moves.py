"""The board's "what moves" caption, the suite a page opens on, and a judge's training data in the Judges tab."""
from __future__ import annotations

import pandas as pd
import pytest
from tests.space.conftest import leaderboard_rows, write_dataset

from schemas import POLICIES


def _frame(scores: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    """{judge: {model: scores by item}} -> per-item records."""
    return pd.DataFrame([dict(model_id=m, suite="xstest", item_id=f"i{i}", judge_id=j, score=s)
                         for j, by_model in scores.items() for m, ss in by_model.items() for i, s in enumerate(ss)])


def test_caption_reports_rank_moves_policy_spans_and_departures_from_people():
    from space.moves import what_moves

    # counts chosen by hand: beta has the most ambiguous answers, so S_adj drops it below alpha
    # S_raw: beta 0.80, alpha 0.75, gamma 0.50; S_adj: alpha 0.75, gamma 0.50, beta 0.48
    rows = leaderboard_rows("xstest", "human-xstest", {"org/alpha": (5, 0, 15, 0), "org/beta": (0, 8, 12, 0),
                                                       "org/gamma": (10, 0, 10, 0)})
    assert list(rows.sort_values("model_id")["rank_raw"]) == [2, 1, 3]
    assert list(rows.sort_values("model_id")["rank_adj"]) == [1, 3, 2]
    people = [0.5] * 4 + [1.0] * 12 + [0.0] * 4
    heuristic = [0.5, 1.0, 1.0, 0.0] + [1.0] * 11 + [0.0] + [0.0] * 4  # 3 of 4 partials called otherwise, 1 contradiction
    frame = _frame({"human-xstest": {"org/beta": people}, "heuristic-v1": {"org/beta": heuristic}})
    text = what_moves(rows, frame, "human-xstest")
    assert text.startswith("What moves: under S_adj ")
    assert "under S_adj beta moves 1 → 3, alpha moves 2 → 1, gamma moves 3 → 2;" in text
    spans = {m: max(r[f"rank_{p}"] for p in POLICIES) - min(r[f"rank_{p}"] for p in POLICIES)
             for m, r in rows.set_index("model_id").iterrows()}
    assert f"{sum(v > 0 for v in spans.values())} model(s) change rank" in text
    # 4 of 20 answers differ: 3 boundary (0.5 vs 0/1), 1 contradiction (1 vs 0)
    assert "heuristic-v1 departs from people on 20% of answers (15% boundary, 5% contradiction" in text
    assert "75% of the 4 partial refusals people marked it calls otherwise" in text
    # a judge that is not an offline stand-in is compared only when it is the one shown
    assert "gpt4" not in what_moves(rows, _frame({"human-xstest": {"org/beta": people},
                                                  "gpt4-xstest": {"org/beta": heuristic}}), "human-xstest")
    assert "gpt4-xstest departs" in what_moves(rows, _frame({"human-xstest": {"org/beta": people},
                                                            "gpt4-xstest": {"org/beta": heuristic}}), "gpt4-xstest")


def test_caption_says_when_nothing_moves_and_is_empty_for_one_model():
    from space.moves import what_moves

    rows = leaderboard_rows("xstest", "heuristic-v1", {"org/a": (0, 0, 20, 0), "org/b": (10, 0, 10, 0)})
    text = what_moves(rows, _frame({"heuristic-v1": {"org/a": [1.0] * 20}}), "heuristic-v1")
    assert text == "What moves: no rank changes under S_adj; no rank changes across the six treatments of “ambiguous”."
    assert what_moves(rows.iloc[:1], pd.DataFrame(columns=["judge_id"]), "heuristic-v1") == ""


def test_page_opens_on_the_suite_with_most_models(tmp_path):
    from space.data import load_board

    counts = {"smoke": {"org/small": (1, 1, 18, 0)},
              "xstest": {f"org/m{i}": (i, 2, 18 - i, 0) for i in range(5)}}
    def board_of(root, *args):
        write_dataset(root, *args)
        for manifest in (root / "submissions").glob("*.json"):  # the fixture's manifests are stubs; the view needs none
            manifest.unlink()
        return load_board(root)

    board = board_of(tmp_path / "ds", counts, ("heuristic",))
    assert board.suites() == ["smoke", "xstest"] and board.default_suite() == "xstest"
    tie = board_of(tmp_path / "tie")  # the fixture's suites have three models each
    assert tie.default_suite() == "smoke"


class _Manifest:
    def __init__(self, model_id: str, digests: list[dict]):
        self.model_id = model_id
        self.run_config = {"imports": [{"sources": digests}]}


def test_training_data_is_read_from_the_judge_card_and_marked_in_the_judges_tab():
    from space.tabs.judges import agreement_markdown, per_model_table
    from space.training import training_models
    from toolkit.stages.judging.cards import training_files

    files = training_files("learned-v1")
    assert len(files) == 2 and all(len(d) == 64 for d in files)
    (gpt4, name), (other, _) = sorted(files.items(), key=lambda kv: kv[1])[:1][0], ("0" * 64, "")
    manifests = [_Manifest("openai/gpt-4-0613", [{"path": "a.csv.gz", "sha256": "f" * 64, "content_sha256": gpt4}]),
                 _Manifest("org/held-out", [{"path": "b.csv.gz", "sha256": other}])]
    trained = training_models(manifests, ["learned-v1", "heuristic-v1", "human-xstest"])
    assert trained == {"learned-v1": {"openai/gpt-4-0613": name}}

    scores = {"openai/gpt-4-0613": [1.0, 0.0, 0.5, 1.0], "org/held-out": [1.0, 1.0, 0.0, 0.5]}
    frame = _frame({"human-xstest": scores, "learned-v1": {m: s[::-1] for m, s in scores.items()}})
    text = agreement_markdown(frame, "xstest", ["human-xstest", "learned-v1"], trained)
    assert f"learned\\-v1 was trained on the answers of openai/gpt\\-4\\-0613 ({name.replace('_', chr(92) + '_').replace('.', chr(92) + '.')})" in text
    held = [line for line in text.splitlines() if "held out\\: 1 model\\(s\\)" in line]
    assert len(held) == 1 and "| 4 |" in held[0]  # only org/held-out's four answers
    table = per_model_table(frame, ["human-xstest", "learned-v1"], trained)
    marks = dict(zip(table["model"], table["training data of"]))
    assert marks == {"openai/gpt-4-0613": "learned-v1", "org/held-out": ""}
    # no card, no mark
    assert "Training data" not in agreement_markdown(frame, "xstest", ["human-xstest", "learned-v1"], {})


@pytest.mark.parametrize("judges, pair", [(["gpt4-xstest", "heuristic-v1", "human-xstest", "learned-v1"],
                                           ("human-xstest", "heuristic-v1")),
                                          (["a", "b", "c"], ("a", "b"))])
def test_disagreements_open_on_people_against_the_offline_judge(judges, pair):
    from space.tabs.disagreements import default_pair

    assert default_pair(judges) == pair
