"""Which (suite, judge) groups of a published dataset the leaderboard leaves out: those of a judge on a suite
whose kind it does not fit, as the submissions' manifests record it (``judge_fits``, ``suite_kinds``; never
read from a judge id). The records stay in the data; each pair left out gets one line.

A dataset published before manifests recorded fitness constrains nothing: its groups are ranked as before,
each with a line saying it is unchecked.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from schemas import describe_kinds


@dataclass(frozen=True)
class Fitness:
    """judge id -> the kinds it fits (the union over the manifests that record it), suite -> its kind."""

    judge_fits: dict[str, frozenset[str]] = field(default_factory=dict)
    suite_kinds: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_manifests(cls, manifests: Iterable) -> "Fitness":
        fits: dict[str, set[str]] = {}
        kinds: dict[str, str] = {}
        for m in manifests:
            for judge_id, judge_kinds in (getattr(m, "judge_fits", None) or {}).items():
                fits.setdefault(judge_id, set()).update(judge_kinds)
            kinds.update(getattr(m, "suite_kinds", None) or {})
        return cls({j: frozenset(k) for j, k in fits.items()}, kinds)

    def fits(self, suite: str, judge_id: str) -> bool:
        """False only where both are recorded and the suite's kind is not among the judge's."""
        kinds, kind = self.judge_fits.get(judge_id), self.suite_kinds.get(suite)
        return kinds is None or kind is None or kind in kinds

    def note(self, suite: str, judge_id: str) -> str:
        return (f"{suite} · {judge_id}: left out of the leaderboard — {judge_id} judges "
                f"{describe_kinds(self.judge_fits[judge_id])}, {suite} holds {describe_kinds([self.suite_kinds[suite]])} "
                "(its records stay in the data)")

    @staticmethod
    def unchecked(pairs: Iterable[tuple[str, str]]) -> list[str]:
        """One line per (suite, judge) pair ranked without a fitness check (its manifests record none)."""
        return [f"{suite} · {judge_id}: ranked unchecked — its submission's manifest predates judge fitness "
                f"records, so nothing says {judge_id} can judge {suite}'s kind of item" for suite, judge_id in sorted(set(pairs))]

    def left_out(self, pairs: Iterable[tuple[str, str]]) -> list[str]:
        """One line per (suite, judge) pair the leaderboard leaves out, in (suite, judge) order."""
        return [self.note(s, j) for s, j in sorted(set(pairs)) if not self.fits(s, j)]
