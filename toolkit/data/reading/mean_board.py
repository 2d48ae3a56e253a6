"""``rank --mean-of-judges A,B``: the mean-of-judges rows of DATA (:mod:`toolkit.data.scoring.mean_of_judges`).

Each named judge is resolved per suite among the judges present (an id, its folder slug or a versioned name);
a suite gets a row where every named judge is present. Fewer than two judges, one named twice, or no suite
holding them all is refused in one line.
"""
from __future__ import annotations

from typing import Optional, Sequence

import pandas as pd

from toolkit.core.errors import SlmboardError
from toolkit.core.judge_names import resolve_judge_name
from toolkit.data.scoring.mean_of_judges import MeanOfJudgesOptions, mean_of_judges_rows
from .dataset import open_data
from .items import iter_item_groups

__all__ = ["mean_of_judges_board"]


def mean_of_judges_board(data, judges: Sequence[str], options: Optional[MeanOfJudgesOptions] = None) -> pd.DataFrame:
    """The rows ``mean:A+B`` of every suite of DATA that holds all of ``judges`` (leaderboard columns, ranked)."""
    from toolkit.data.scoring.leaderboard import assemble_leaderboard

    names = [j.strip() for j in judges if j.strip()]
    if len(names) < 2 or len(set(names)) < len(names):
        raise SlmboardError(f"mean_of_judges {','.join(names)}: name at least two different judges", param="mean_of_judges")
    dataset = open_data(data)
    source = dataset.items()
    by_suite: dict[str, list[str]] = {}
    for suite, judge in source.groups():
        by_suite.setdefault(suite, []).append(judge)
    chosen = {}
    for suite, present in sorted(by_suite.items()):
        resolved = [resolve_judge_name(n, present) for n in names]
        if None not in resolved and len(set(resolved)) == len(resolved):
            chosen[suite] = resolved
    if not chosen:
        raise SlmboardError(f"mean_of_judges {','.join(names)}: no suite of {data} has all of these judges",
                            param="mean_of_judges")
    rows = []
    for suite, members in chosen.items():
        frames = {g.judge_id: g.frame for g in iter_item_groups(source, ["score"], [suite], members)}
        rows.append(mean_of_judges_rows(suite, frames, options))
    return assemble_leaderboard(rows)
