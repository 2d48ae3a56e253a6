"""One sentence under a suite's table saying what moves, measured on the board's own records.

Three things can move: a model's rank when ambiguity is penalised (S_adj against S_raw), its rank across
the six treatments of "ambiguous" (the policies), and the verdicts themselves when an offline judge
stands in for people. The sentence reports each from the leaderboard rows and the per-item records of
the suite; it says nothing the data does not show.
"""
from __future__ import annotations

import pandas as pd

from schemas import POLICIES
from toolkit.core.judge_names import is_people_judge


def offline_judges(judges: list[str]) -> list[str]:
    """slmboard's own offline stand-ins among ``judges`` (registered judges marked not comparable)."""
    from toolkit.stages.judging.lookup import judge_component

    out = []
    for j in judges:
        component = judge_component(j)
        if component is not None and not component.comparable:
            out.append(j)
    return out


def _short(model: str) -> str:
    return str(model).rsplit("/", 1)[-1]


def _int(v) -> int | None:
    return None if v is None or v != v else int(v)


def rank_moves(rows: pd.DataFrame) -> str:
    moved = [(r.model_id, _int(r.rank_raw), _int(r.rank_adj)) for r in rows.itertuples(index=False)
             if _int(r.rank_raw) is not None and _int(r.rank_adj) is not None and _int(r.rank_raw) != _int(r.rank_adj)]
    if not moved:
        return "no rank changes under S_adj"
    moved.sort(key=lambda m: (m[1], m[0]))
    return "under S_adj " + ", ".join(f"{_short(m)} moves {a} → {b}" for m, a, b in moved)


def policy_moves(rows: pd.DataFrame) -> str:
    spans = []
    for r in rows.itertuples(index=False):
        ranks = [_int(getattr(r, f"rank_{p}", None)) for p in POLICIES]
        ranks = [x for x in ranks if x is not None]
        if ranks and max(ranks) > min(ranks):
            spans.append((max(ranks) - min(ranks), r.model_id, min(ranks), max(ranks)))
    if not spans:
        return "no rank changes across the six treatments of “ambiguous”"
    spans.sort(key=lambda s: (-s[0], s[1]))
    shown = ", ".join(f"{_short(m)} {lo}–{hi}" for _, m, lo, hi in spans[:2])
    return f"across the six treatments of “ambiguous” {len(spans)} model(s) change rank ({shown})"


def departures(frame: pd.DataFrame, people: str, judges: list[str]) -> str:
    """How often each judge's verdict differs from people's on the same answers, and on people's partial refusals."""
    from space.agreement import paired_scores, pair_stats

    parts = []
    for j in judges:
        s = pair_stats(frame, people, j)
        if s is None or not s["n"]:
            continue
        pairs = paired_scores(frame, people, j).dropna()
        partial = pairs[pairs["score_a"] == 0.5]
        missed = (partial["score_b"] != 0.5).mean() if len(partial) else None
        text = (f"{j} departs from people on {100 * (1 - s['exact_agreement']):.0f}% of answers "
                f"({100 * s['boundary_rate']:.0f}% boundary, {100 * s['contradiction_rate']:.0f}% contradiction")
        if missed is not None:
            text += f"; {100 * missed:.0f}% of the {len(partial)} partial refusals people marked it calls otherwise"
        parts.append(text + ")")
    return "; ".join(parts)


def what_moves(rows: pd.DataFrame, frame: pd.DataFrame, judge: str | None) -> str:
    """The sentence for the (suite, judge) view; "" with fewer than two ranked models."""
    if rows is None or len(rows) < 2:
        return ""
    sentence = f"What moves: {rank_moves(rows)}; {policy_moves(rows)}"
    judges = sorted(str(j) for j in frame["judge_id"].dropna().unique()) if len(frame) else []
    people = judge if judge and is_people_judge(judge) else next((j for j in judges if is_people_judge(j)), None)
    if people is not None:
        others = [j for j in ([judge] if judge and not is_people_judge(judge) else []) + offline_judges(judges)]
        gone = departures(frame, people, list(dict.fromkeys(o for o in others if o != people)))
        if gone:
            sentence += f"; {gone}"
    return sentence + "."
