"""What a submission records of judge fitness (the manifest's ``judge_fits`` and ``suite_kinds``) and the
records it refuses: those of a judge on a suite whose kind it does not fit.

A judge's kinds come from what the judging stage recorded in the run (``judge-fits.json``); an imported
judge keeps to the suites its source applied it to (``run.json`` ``imports[].judges[judge].suites``), so
its kinds are those suites' kinds; a run judged before fitness was recorded takes the kinds its registered
judge declares. Downstream (validate, rank, recompute, the Space) reads the manifest, never a judge id.
"""
from __future__ import annotations

from typing import Iterable, Mapping

from toolkit.core.errors import RecordError
from toolkit.core.runs import RunConfig, RunDir
from toolkit.stages.judging.fitness import describe_kinds, fitting_judges_hint, suite_kind_of
from toolkit.stages.judging.lookup import judge_component
from .integrity import suite_scoped_judges

__all__ = ["suite_kinds_of_run", "judge_fits_of_run", "unfit_record_errors", "fits"]


def suite_kinds_of_run(suites: Iterable[str], rows_by_suite: Mapping[str, list[dict]] | None = None) -> dict[str, str]:
    """suite -> its declared kind (a suite no longer registered: read from its records)."""
    out = {}
    for suite in sorted(set(suites)):
        rows = (rows_by_suite or {}).get(suite, [])
        out[suite] = suite_kind_of(suite, (r.get("gold") for r in rows), (r.get("gold_choice") for r in rows))
    return out


def judge_fits_of_run(run: RunDir, config: RunConfig, judge_ids: Iterable[str], suite_kinds: Mapping[str, str],
                      judged_suites: Mapping[str, set[str]]) -> dict[str, list[str]]:
    """judge id -> the kinds of item it can judge (see the module docstring for where each comes from)."""
    scoped = suite_scoped_judges(config)
    out: dict[str, list[str]] = {}
    for judge_id in sorted(set(judge_ids)):
        recorded = run.recorded_judge_fits(judge_id)
        if recorded is not None:
            kinds = set(recorded)
        elif judge_id in scoped:  # imported: the suites its source applied it to
            kinds = {suite_kinds.get(s) or suite_kind_of(s) for s in scoped[judge_id]}
        elif (component := judge_component(judge_id)) is not None and "fits" in component.extra:
            kinds = set(component.extra["fits"])  # judged before the stage recorded fitness
        else:  # records no judge of ours wrote and no import declared: the suites they are on
            kinds = {suite_kinds[s] for s in judged_suites.get(judge_id, ()) if s in suite_kinds}
        out[judge_id] = sorted(kinds)
    return out


def fits(judge_fits: Mapping[str, list[str]], suite_kinds: Mapping[str, str], suite: str, judge_id: str) -> bool:
    """Whether ``judge_id`` can judge ``suite`` (an unrecorded judge or suite constrains nothing)."""
    kinds, kind = judge_fits.get(judge_id), suite_kinds.get(suite)
    return kinds is None or kind is None or kind in kinds


def unfit_record_errors(run: RunDir, pairs: Iterable[tuple[str, str]], judge_fits: Mapping[str, list[str]],
                        suite_kinds: Mapping[str, str]) -> list[RecordError]:
    """One error per (suite, judge) whose records the judge cannot have judged (a heuristic verdict on a
    BBQ letter): never published."""
    errors = []
    for suite, judge_id in sorted(pairs):
        if fits(judge_fits, suite_kinds, suite, judge_id):
            continue
        kind = suite_kinds[suite]
        errors.append(RecordError(str(run.judgment_file(judge_id, suite)), None, "judge_id",
                                  f"{judge_id} judges {describe_kinds(judge_fits[judge_id])}, and {suite} holds "
                                  f"{describe_kinds([kind])}: its records of {suite} are not published; delete this "
                                  f"file and judge {suite} with --judge {fitting_judges_hint(kind)}"))
    return errors
