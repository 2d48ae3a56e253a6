"""Which judge a suite is shown under by default (leaderboard, Space, eval-results export).

A maintainer sets it per suite (``--primary-judge SUITE=JUDGE``, recorded in the dataset card);
unset, the rule is: the judge that covers the most models, then the fewest failed items, then the
judge id (alphabetical) so the choice never depends on row order. The rule never picks a panel, a
``mean:`` row or people's labels (:func:`toolkit.core.judge_names.is_built_judge`): those are a
suite's primary judge only when the maintainer names them; a suite that has no other judge gets none
from the rule.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import pandas as pd

from toolkit.core.errors import SlmboardError
from toolkit.core.judge_names import is_built_judge, resolve_judge_name


@dataclass(frozen=True)
class PrimaryJudge:
    suite: str
    judge_id: str
    #: "set by the maintainer" or the rule that decided (shown to users on the Space)
    reason: str


def choose_primary_judges(board: pd.DataFrame, overrides: Mapping[str, str] | None = None) -> dict[str, PrimaryJudge]:
    """One :class:`PrimaryJudge` per suite of ``board`` (a leaderboard: suite, judge_id, model_id, n_failed).

    An override naming a judge the suite does not have is an error (a typo would silently fall back).
    """
    overrides = dict(overrides or {})
    out: dict[str, PrimaryJudge] = {}
    if board.empty:
        return out
    for suite, rows in board.groupby("suite", sort=True):
        judges = sorted(set(rows["judge_id"]))
        if suite in overrides:
            # the name a judge was run with stands for its id ("heuristic" -> "heuristic-v1")
            chosen = resolve_judge_name(overrides[suite], judges) or overrides[suite]
            if chosen not in judges:
                raise SlmboardError(
                    f"primary judge {chosen!r} for suite {suite!r} has no records; judges of {suite}: {', '.join(judges)}"
                )
            out[suite] = PrimaryJudge(suite, chosen, "set by the maintainer (--primary-judge)")
            continue
        built = rows["judge_id"].map(is_built_judge)
        rows = rows[~built]
        if rows.empty:  # only panels, mean rows or people's labels: the maintainer chooses among them
            continue
        stats = rows.groupby("judge_id").agg(models=("model_id", "nunique"), failed=("n_failed", "sum"))
        stats = stats.reset_index().sort_values(["models", "failed", "judge_id"], ascending=[False, True, True])
        best = stats.iloc[0]
        if len(stats) == 1:
            reason = ("the only judge of this suite" if not built.any() else
                      "the only judge the rule may pick (a panel, mean row or people's labels only by --primary-judge)")
        else:
            second = stats.iloc[1]
            if best["models"] > second["models"]:
                reason = f"covers the most models ({int(best['models'])})"
            elif best["failed"] < second["failed"]:
                reason = f"covers the most models ({int(best['models'])}), then fewest failed items ({int(best['failed'])})"
            else:
                reason = "tied on models covered and failed items; first by name"
        out[suite] = PrimaryJudge(suite, str(best["judge_id"]), reason)
    for suite in overrides:
        if suite not in out:
            raise SlmboardError(f"primary judge given for suite {suite!r}, which has no records")
    return out
