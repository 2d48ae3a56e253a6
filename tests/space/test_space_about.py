"""The About tab says which offline judge is which and how far each agrees with people, with the numbers of
the shipped card (cross-validation) and of bench/results/judges_xstest.md (held out)."""
from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_about_quotes_the_cards_cross_validation():
    from space.texts import ABOUT_MD

    card = json.loads((REPO / "toolkit" / "stages" / "judging" / "data" / "learned-v1" / "card.json").read_text())
    pooled = {j: per["pooled"]["kappa_linear"] for j, per in card["cross_validation"]["results"].items()}
    assert f"learned-v1 {pooled['learned-v1']:.2f}, heuristic-v1 {pooled['heuristic-v1']:.2f}" in ABOUT_MD
    assert f"GPT-4 classifier {pooled['GPT-4 classifier (release)']:.2f}" in ABOUT_MD
    assert "`heuristic-v1` is the offline default" in ABOUT_MD


def test_about_held_out_numbers_are_the_benchmarks():
    from space.texts import ABOUT_MD, HELD_OUT_KAPPA

    table = (REPO / "bench" / "results" / "judges_xstest.md").read_text()
    held = table.split("### Held out: the release's other three models")[1].split("###")[0]
    for model, (learned, heuristic) in HELD_OUT_KAPPA.items():
        for judge, value in (("learned-v1", learned), ("heuristic-v1", heuristic)):
            row = re.search(rf"^\| {re.escape(model)} \| {judge} \| [^|]+ \| [^|]+ \| ([0-9.]+) \|", held, re.M)
            assert row and float(row.group(1)) == value, (model, judge)
        assert f"{model} {learned:.2f} vs {heuristic:.2f}" in ABOUT_MD
