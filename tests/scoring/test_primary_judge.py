"""The default judge of a suite: maintainer's choice, else most models, fewest failed, name."""
from __future__ import annotations

import pandas as pd
import pytest

from toolkit.core.errors import SlmboardError
from toolkit.core.registry import parse_pairs
from toolkit.data.scoring.primary_judge import choose_primary_judges


def _board(rows):
    return pd.DataFrame(rows, columns=["suite", "judge_id", "model_id", "n_failed"])


def test_most_models_wins_over_name():
    board = _board([("x", "a-judge", "m1", 0), ("x", "z-judge", "m1", 0), ("x", "z-judge", "m2", 0)])
    chosen = choose_primary_judges(board)["x"]
    assert chosen.judge_id == "z-judge" and "most models" in chosen.reason


def test_fewest_failed_breaks_model_tie():
    board = _board([("x", "a-judge", "m1", 3), ("x", "b-judge", "m1", 1)])
    assert choose_primary_judges(board)["x"].judge_id == "b-judge"


def test_name_breaks_full_tie_regardless_of_row_order():
    rows = [("x", "human-xstest", "m1", 0), ("x", "gpt4-xstest", "m1", 0)]
    assert choose_primary_judges(_board(rows))["x"].judge_id == "gpt4-xstest"
    assert choose_primary_judges(_board(rows[::-1]))["x"].judge_id == "gpt4-xstest"


def test_override_and_errors():
    rows = [("x", "human-xstest", "m1", 0), ("x", "gpt4-xstest", "m1", 0)]
    chosen = choose_primary_judges(_board(rows), {"x": "human-xstest"})["x"]
    assert chosen.judge_id == "human-xstest" and "maintainer" in chosen.reason
    with pytest.raises(SlmboardError, match="no records"):
        choose_primary_judges(_board(rows), {"x": "nope"})
    with pytest.raises(SlmboardError, match="suite 'y'"):
        choose_primary_judges(_board(rows), {"y": "human-xstest"})
    assert parse_pairs(["x=human-xstest"], "primary judge") == {"x": "human-xstest"}
    with pytest.raises(SlmboardError, match="is not SUITE=JUDGE"):
        parse_pairs(["x"], "primary judge", key="SUITE", value="JUDGE")
