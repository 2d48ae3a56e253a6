"""Which suites a judge can judge: a judge's declared kinds (:attr:`Judge.fits`, its registry entry's
``extra["fits"]``) against a suite's declared kind (:attr:`Suite.kind`).

The judging stage judges the fitting suites and skips the others with one line each; ``submit`` records
each judge's kinds in the manifest (``judge_fits``), from which ``validate``, ``rank``, ``recompute`` and
the Space decide -- never from a judge id.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from schemas import describe_kinds

from .components import JUDGES

__all__ = ["describe_kinds", "fitting_judges_hint", "skip_line", "suite_kind_of"]

def fitting_judges_hint(kind: str) -> str:
    """The specs of the registered judges that fit ``kind`` ("bbq"; "heuristic, learned, openai:MODEL, ...")."""
    specs = [c.name + (f":{c.argument.upper()}" if c.argument_required else "")
             for c in JUDGES.components() if kind in c.extra.get("fits", ()) and "version_of" not in c.extra
             and not c.extra.get("of_judges")]
    return ", ".join(specs) if specs else "none registered"


def skip_line(suite: str, kind: str, judge_id: str, fits: Sequence[str]) -> str:
    """The line the stage prints for a suite it skips: "bbq: skipped — heuristic-v1 judges free-text answers; use --judge bbq"."""
    return f"{suite}: skipped — {judge_id} judges {describe_kinds(fits)}; use --judge {fitting_judges_hint(kind)}"


def suite_kind_of(suite: str, golds: Iterable[str | None] = (), gold_choices: Iterable[str | None] = ()) -> str:
    """A suite's declared kind; a suite no longer registered is read from its records (a gold option:
    multiple choice; a gold 'safe': free text with a gold label)."""
    from toolkit.stages.suites import SUITES, suite_kind

    if suite in SUITES:
        return suite_kind(suite)
    if any(g is not None for g in gold_choices):
        return "multiple-choice"
    return "free-text-gold" if any(g == "safe" for g in golds) else "free-text"
