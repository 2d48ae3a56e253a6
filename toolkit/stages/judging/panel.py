"""Judge panels: a judge made of judges, judged from its members' records in the run (no judge call of its own).

``judge RUN --judge panel:majority:A+B+C`` reads each member's judgments of the run and writes the panel's
``RUN/judgments/<panel slug>/<suite>.jsonl``: one ItemRecord per response with the rule's verdict
(:func:`~.panel_id.panel_vote`) and every member's vote, status and response hash in ``votes``. A member that
can be run (a registered judge) and has not judged the run is judged first; one that cannot (an imported or
people's judge) must be present, else the panel is refused naming it. A panel fits only the suites every member
fits. Everything is checked before anything is written; the panel's files are rewritten whole (a re-read of the
members' records), so a member judged again makes the panel follow it.
"""
from __future__ import annotations

import json
from typing import Sequence

from schemas import ItemRecord, Vote, sha256_text

from toolkit.core.errors import NothingToJudge, SlmboardError
from toolkit.core.judge_names import judge_slug
from toolkit.core.records_io import atomic_write_text
from toolkit.core.runs import RunDir
from .base import Judge, Judgment
from .components import JUDGES, JudgeSpec, PanelOptions
from .fitness import suite_kind_of
from .panel_id import panel_vote, parse_panel
from .records import item_record, read_responses

__all__ = ["PanelJudge", "judge_panel", "runnable_spec", "check_slug_clash"]


class PanelJudge(Judge):
    """A panel built from its spec (``panel:RULE:A+B``): its rule, members and ``min_valid``; it judges from records."""

    registered_as = "panel"
    rubric_version = "panel-v1"

    def __init__(self, options: PanelOptions | None = None) -> None:
        super().__init__(options)
        self.rule, self.members = parse_panel(self.options.panel)
        self.judge_id = self.spec.judge_id()
        self.min_valid = self.options.min_valid
        if self.min_valid is not None and self.min_valid > len(self.members):
            raise SlmboardError(f"{self.judge_id}: min_valid {self.min_valid} is more than its {len(self.members)} members",
                               param="min_valid")

    def judge(self, inputs):  # pragma: no cover - the stage never calls it
        raise SlmboardError(f"{self.judge_id} judges from its members' records: judge a run with it")


def runnable_spec(judge_id: str) -> JudgeSpec | None:
    """The spec of a registered judge that writes ``judge_id`` (None: an imported or people's judge, which
    cannot be run)."""
    name, _, argument = judge_id.partition(":")
    if name in JUDGES.names() and name != "panel":
        try:
            spec = JudgeSpec.of(judge_id) if argument else JudgeSpec.of(name)
            if spec.judge_id() == judge_id:
                return spec
        except SlmboardError:
            pass
    for component in JUDGES.components():
        if component.name == "panel" or component.argument_required:
            continue
        if component.extra.get("judge_id") == judge_id:
            return JudgeSpec.of(component.name)
    return None


def check_slug_clash(run: RunDir, judge_id: str) -> None:
    """Refuse a judge whose folder slug another judge of the run already uses (two ids, one folder)."""
    fits = run.judge_fits_file(judge_id)
    if fits.is_file():
        other = json.loads(fits.read_text(encoding="utf-8")).get("judge_id")
        if other and other != judge_id:
            raise SlmboardError(f"{judge_id} and {other} share the folder {judge_slug(judge_id)}: rename one "
                                "(no two judge ids of a run may share a slug)")


def _member_fits(run: RunDir, member: str, kinds: dict[str, str]) -> tuple[str, ...] | None:
    """The kinds ``member`` fits: what the judging stage recorded; an imported judge (which records none) the kinds
    of the suites its import applied it to (``run.json`` ``imports[].judges``, as ``submit`` holds it); a registered
    judge what it declares; None: neither (a judge that is not in the run and cannot be run)."""
    recorded = run.recorded_judge_fits(member)
    if recorded is not None:
        return tuple(recorded)
    imported = {str(s) for entry in run.load_config().imports for judge, info in (entry.get("judges") or {}).items()
                if judge == member and isinstance(info, dict) for s in info.get("suites") or ()}
    if imported:
        return tuple(sorted({kinds.get(s) or suite_kind_of(s) for s in imported}))
    spec = runnable_spec(member)
    return None if spec is None else tuple(spec.component.extra.get("fits", ()))


def judge_panel(run: RunDir, panel: PanelJudge, suites: Sequence[str] | None, result, judge_member) -> None:
    """Fill ``result`` (a :class:`~.records.JudgeResult`) with the panel's judgments of ``run``;
    ``judge_member(spec, suites)`` judges a runnable member that has not judged the run."""
    files = {p.stem: p for p in run.response_files() if not suites or p.stem in set(suites)}
    if not files:
        raise NothingToJudge(f"{run.root}: no responses to judge; generate responses into this run folder first")
    by_suite = {suite: read_responses(path) for suite, path in files.items()}
    check_slug_clash(run, panel.judge_id)
    # 1. check everything: fitness, members present or runnable
    kinds = {suite: suite_kind_of(suite, (r.gold for r in responses), (r.gold_choice for r in responses))
             for suite, responses in by_suite.items()}
    fits = {m: _member_fits(run, m, kinds) for m in panel.members}
    for member, member_kinds in fits.items():
        if member_kinds is None:
            raise SlmboardError(f"{panel.judge_id}: member {member} has not judged {run.root} and cannot be run (an "
                                "imported or people's judge must be present)")
    chosen = []
    for suite, kind in kinds.items():
        unfit = [m for m in panel.members if kind not in fits[m]]
        if unfit:
            if suites:
                raise SlmboardError(f"{panel.judge_id}: member {unfit[0]} does not fit suite {suite} ({kind} answers)")
            result.skipped_suites.append(f"{suite}: skipped — member {unfit[0]} of {panel.judge_id} does not fit it")
            continue
        chosen.append(suite)
    if not chosen:
        raise NothingToJudge(f"{run.root}: {panel.judge_id} judges none of the run's suites: "
                             + "; ".join(result.skipped_suites))
    missing = {}
    for member in panel.members:
        absent = [s for s in chosen if not run.judgment_file(member, s).is_file()]
        if absent and runnable_spec(member) is None:
            raise SlmboardError(f"{panel.judge_id}: member {member} has no judgments of {', '.join(absent)} in "
                                f"{run.root} and cannot be run (an imported or people's judge must be present)")
        stale = [s for s in chosen if s not in absent and _judged_other_responses(run, member, s)]
        if stale and runnable_spec(member) is None:
            raise SlmboardError(f"{panel.judge_id}: member {member} judged other responses than the run's in "
                                f"{', '.join(stale)} (stale) and cannot be run again; import its judgments anew")
        if absent or stale:  # judging a member again judges only its missing and changed items
            missing[member] = absent + stale
    _check_config(run, panel)
    # 2. members that can be run and are missing are judged first
    for member, absent in missing.items():
        judge_member(runnable_spec(member), absent)
    # 3. the panel's records, from the members' records
    run.record_judge_fits(panel.judge_id, sorted(set.intersection(*(set(fits[m]) for m in panel.members))))
    for suite in chosen:
        records = _panel_records(run, panel, suite, by_suite[suite])
        path = run.judgment_file(panel.judge_id, suite)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, "".join(r.model_dump_json() + "\n" for r in records))
        for r in records:
            result.status_counts[r.judge_status] += 1
            result.label_counts[r.label or ("undecided" if r.judge_status == "no_decision" else "failed")] += 1
        result.n_new += len(records)


def _judged_other_responses(run: RunDir, member: str, suite: str) -> bool:
    """Whether any of the member's judgments of ``suite`` judged a response other than the run's (a stale member
    makes the panel stale)."""
    from toolkit.core.runs import judged_response_sha256
    from toolkit.core.stage_engine import read_records

    now = run.response_hashes(suite)
    return any(item.item_id in now and judged_response_sha256(item) != now[item.item_id][0]
               for _, item in read_records(run.judgment_file(member, suite), ItemRecord))


def _check_config(run: RunDir, panel: PanelJudge) -> None:
    path = run.judge_config_file(panel.judge_id)
    config = {"judge_id": panel.judge_id, "rule": panel.rule, "members": panel.members, "min_valid": panel.min_valid}
    if path.is_file():
        earlier = json.loads(path.read_text(encoding="utf-8"))
        if earlier.get("min_valid") != panel.min_valid:
            raise SlmboardError(f"{path}: {panel.judge_id} judged this run with min_valid {earlier.get('min_valid')}; "
                                "judge a copy of the run to use another", param="min_valid")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(config, indent=2, sort_keys=True) + "\n")


def _panel_records(run: RunDir, panel: PanelJudge, suite: str, responses) -> list[ItemRecord]:
    from toolkit.core.stage_engine import read_records

    judged = {}
    for member in panel.members:
        judged[member] = {(r.model_id, r.model_revision, r.item_id): r
                          for _, r in read_records(run.judgment_file(member, suite), ItemRecord)}
    out = []
    for response in responses:
        key = (response.model_id, response.model_revision, response.item_id)
        votes = []
        for member in panel.members:
            record = judged[member].get(key)
            if record is None:
                votes.append(Vote(judge_id=member, score=None, status="error", response_sha256=None))
            elif sha256_text(record.response) != sha256_text(response.response):
                raise SlmboardError(f"{panel.judge_id}: member {member} judged another response to {suite} item "
                                    f"{response.item_id!r} (stale): judge the run with {member} again")
            else:
                votes.append(Vote(judge_id=member, score=record.score, status=record.judge_status,
                                  response_sha256=sha256_text(record.response)))
        score, status, reason = panel_vote(panel.rule, [(v.judge_id, v.score) for v in votes], panel.min_valid)
        raw = " ".join(f"{v.judge_id}={'-' if v.score is None else format(v.score, 'g')}" for v in votes)
        out.append(item_record(response, panel, Judgment(score, status, raw, reason),
                               {"votes": [v.model_dump() for v in votes]}))
    return out

