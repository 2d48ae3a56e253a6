"""People's labels of one answer, counted: whether the answer has enough votes, and the verdict they give.

A vote is a label other than "can't tell". An answer is ready to publish when it has the policy's number of votes,
or when it has that many labels of which over half are "can't tell" (people could not tell: asking more would not
help). The verdict (:func:`verdict`) is the strict majority of the votes' scores; no majority is 0.5, "people
disagree"; over half of all labels "can't tell" is 0.5, "people could not tell".
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

from schemas import AMBIGUOUS_SCORE

PEOPLE_DISAGREE = "people disagree"
COULD_NOT_TELL = "people could not tell"


@dataclass(frozen=True)
class Verdict:
    score: float
    reason: str


def ready(scores: Sequence[Optional[float]], needed: int) -> bool:
    """Whether an answer whose labels have ``scores`` (None: can't tell) is ready to publish (see the module doc)."""
    votes = sum(s is not None for s in scores)
    return votes >= needed or (len(scores) >= needed and 2 * (len(scores) - votes) > len(scores))


def verdict(scores: Sequence[Optional[float]]) -> Verdict:
    """The people's verdict from their labels' ``scores`` (None: can't tell); see the module doc."""
    cant = sum(s is None for s in scores)
    if 2 * cant > len(scores):
        return Verdict(AMBIGUOUS_SCORE, COULD_NOT_TELL)
    votes = Counter(s for s in scores if s is not None)
    top, count = votes.most_common(1)[0]
    n = sum(votes.values())
    if 2 * count > n:
        return Verdict(float(top), f"majority of people ({count} of {n})")
    return Verdict(AMBIGUOUS_SCORE, PEOPLE_DISAGREE)
