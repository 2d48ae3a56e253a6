"""A judge panel's id and rules: ``panel:RULE:A+B+...`` (a judge made of judges, its rule part of its id).

The members are written as resolved judge ids (``heuristic`` → ``heuristic-v1``) in sorted order, so one panel
has one id; a nested panel, a member twice, a panel of one judge, an unknown rule and an id over the judge-id
limit (256 characters) are refused, one line each. :func:`panel_vote` is the one place a rule turns the
members' votes into the panel's verdict. This module knows no judge: the registry resolves member names and declares :class:`PanelOptions`.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, Optional, Sequence

from schemas import AMBIGUOUS_SCORE, NO_DECISION, check_judge_id

from toolkit.core.errors import BadOption
from toolkit.core.judge_names import PANEL_PREFIX

__all__ = ["PANEL_RULES", "PANEL_PREFIX", "MAX_JUDGE_ID", "parse_panel", "panel_id", "panel_vote",
           "member_id", "is_panel"]

#: rule -> what it does with the valid votes (the judges reference page lists these)
PANEL_RULES: dict[str, str] = {
    "majority": "the strict majority of the valid votes; none → no decision",
    "majority-or-ambiguous": "the strict majority of the valid votes; none → 0.5 (the reason lists the votes)",
    "unanimous-or-ambiguous": "all valid votes agree → that score; otherwise 0.5 (the reason lists the votes)",
    "lowest": "the lowest valid vote (any 0 → 0)",
}
#: the judge-id pattern's limit (schemas: ``[A-Za-z0-9][A-Za-z0-9._:/@+=-]{0,255}``)
MAX_JUDGE_ID = 256


def is_panel(judge_id: str) -> bool:
    return judge_id.startswith(PANEL_PREFIX + ":")


def member_id(name: str, resolve: Callable[[str], str] = str) -> str:
    """The id a member named ``name`` writes: ``resolve`` maps a registered judge's spec to its id (``heuristic`` →
    ``heuristic-v1``; the judge registry passes it, this module knowing no judges); the result is checked."""
    name = name.strip()
    if is_panel(name):
        raise BadOption(f"panel member {name!r} is a panel: nested panels are refused")
    if not name:
        raise BadOption("a panel member is empty (members are joined by '+': RULE:A+B)")
    resolved = resolve(name)
    try:
        check_judge_id(resolved)
    except ValueError as exc:
        raise BadOption(f"panel member: {exc}") from None
    return resolved


def parse_panel(argument: str, resolve: Callable[[str], str] = str) -> tuple[str, list[str]]:
    """(rule, canonical member ids) of ``RULE:A+B+...`` (the part after ``panel:``), each member through ``resolve``
    (see :func:`member_id`); BadOption naming what is wrong."""
    from toolkit.core.options import did_you_mean

    rule, sep, rest = argument.strip().partition(":")
    if not sep or not rest:
        raise BadOption(f"panel {argument!r}: expected panel:RULE:A+B (rules: {', '.join(PANEL_RULES)})")
    if rule not in PANEL_RULES:
        hint = did_you_mean(rule, list(PANEL_RULES))
        raise BadOption(f"panel rule {rule!r} is unknown{hint}; rules: {', '.join(PANEL_RULES)}")
    members = [member_id(m, resolve) for m in rest.split("+")]
    twice = sorted(m for m, n in Counter(members).items() if n > 1)
    if twice:
        raise BadOption(f"panel {argument!r}: member {twice[0]} given twice")
    if len(members) < 2:
        raise BadOption(f"panel {argument!r}: a panel of one judge is that judge; name at least two members")
    return rule, sorted(members)


def panel_id(rule: str, members: Sequence[str]) -> str:
    """The one id of a panel: ``panel:RULE:`` + its members sorted, joined by '+'; refused over 256 characters."""
    out = f"{PANEL_PREFIX}:{rule}:" + "+".join(sorted(members))
    if len(out) > MAX_JUDGE_ID:
        raise BadOption(f"panel id is {len(out)} characters, over the judge-id limit of {MAX_JUDGE_ID}: {out[:60]}...")
    return out


def _shown(score: float) -> str:
    return f"{score:g}"


def panel_vote(rule: str, votes: Sequence[tuple[str, Optional[float]]], min_valid: int | None = None,
               ) -> tuple[Optional[float], str, Optional[str]]:
    """(score, judge_status, reason) of a panel from its members' (judge id, score or None) votes, by ``rule``.

    Fewer valid votes than ``min_valid`` (default: every member) → no decision, naming the members that failed."""
    needed = len(votes) if min_valid is None else min_valid
    valid = [s for _, s in votes if s is not None]
    if len(valid) < needed:
        failed = ", ".join(j for j, s in votes if s is None)
        return None, NO_DECISION, f"{len(valid)} valid votes of {len(votes)}, fewer than {needed}: {failed} gave none"
    if rule == "lowest":
        return min(valid), "ok", None
    counts = Counter(valid)
    disagree = "judges disagree: " + ", ".join(_shown(s) for s in sorted(valid, reverse=True))
    if rule == "unanimous-or-ambiguous":
        return (valid[0], "ok", None) if len(counts) == 1 else (AMBIGUOUS_SCORE, "ok", disagree)
    top, n = counts.most_common(1)[0]
    if 2 * n > len(valid):
        return top, "ok", None
    if rule == "majority-or-ambiguous":
        return AMBIGUOUS_SCORE, "ok", disagree
    if rule == "majority":
        return None, NO_DECISION, "no strict majority: " + disagree.split(": ", 1)[1]
    raise BadOption(f"panel rule {rule!r} is unknown; rules: {', '.join(PANEL_RULES)}")
