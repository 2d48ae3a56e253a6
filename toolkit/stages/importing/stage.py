"""Import as stages of the engine (:mod:`toolkit.core.stage_engine`): one stage writes the responses, one per judge its judgments.

The records are prepared (parsed, matched, validated) before any stage runs, so a stage's ``process``
only hands them over. What the engine adds: a killed import resumes (records already on disk are
skipped, a torn last line is cut), and :meth:`PreparedRecordsStage.check_resume` compares what is on
disk with what would be written, so an import into a run folder that holds other responses or other
judgments of the same judge is refused before anything is appended (never a duplicate record).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Hashable, Iterable, Sequence

from schemas import ItemRecord, ResponseRecord

from toolkit.core.stage_engine import WHOLE_GROUP, Stage, run_stage
from .base import ImportRefused

# Fields that record which toolkit wrote a record, not what it says.
VOLATILE_FIELDS = ("toolkit_version",)


def first_difference(old: dict, new: dict) -> str | None:
    """The first field (sorted) in which two records differ, ignoring VOLATILE_FIELDS; None if equal."""
    keys = sorted((set(old) | set(new)) - set(VOLATILE_FIELDS))
    return next((k for k in keys if old.get(k) != new.get(k)), None)


class PreparedRecordsStage(Stage[dict, ResponseRecord]):
    """Writes prepared records (dicts, one kind) into one file per suite; resumable."""

    batching = WHOLE_GROUP
    unit = "record"

    def __init__(self, record_type: type, output_file: Callable[[str], Path], records: dict[str, list[dict]],
                 judge_id: str | None = None):
        self.record_type = record_type
        self._output_file = output_file
        self.judge_id = judge_id
        self.description = f"import {judge_id or 'responses'}"
        self._by_key = {(suite, r["item_id"]): r for suite, rows in records.items() for r in rows}

    def output_file(self, group: str) -> Path:
        return self._output_file(group)

    def group_of(self, task: dict) -> str:
        return task["suite"]

    def task_key(self, task: dict) -> Hashable:
        return task["item_id"]

    def record_key(self, record) -> Hashable | None:
        if self.judge_id is not None and getattr(record, "judge_id", None) != self.judge_id:
            return None
        return record.item_id

    def check_resume(self, group: str, records: Sequence) -> None:
        for record in records:
            old = record.model_dump(mode="json")
            new = self._by_key.get((group, record.item_id))
            what = f"judge {self.judge_id}" if self.judge_id else "the run's responses"
            if new is None:
                raise ImportRefused(f"{self.output_file(group)}: {what} hold item {record.item_id!r}, which the source lacks")
            field = first_difference(old, new) if self.judge_id else ("response" if old["response"] != new["response"] else None)
            if field:
                raise ImportRefused(f"{self.output_file(group)}: {what} differ at item {record.item_id!r} in {field} "
                                    f"({str(old.get(field))[:60]!r} there, {str(new.get(field))[:60]!r} in the source)")

    def process(self, batch: list[dict], progress: Callable[[int], None]) -> Iterable[Sequence]:
        yield [self.record_type.model_validate(row) for row in batch]


def run_import_stages(root: Path, responses: dict[str, list[dict]], judgments: dict[tuple[str, str], list[dict]],
                      show_progress: bool = False) -> dict[str, int]:
    """Run the response stage, then one stage per judge, into the run folder ``root``; records written per stage."""
    from toolkit.core.runs import RunDir

    run = RunDir(root)
    written = {}
    stage = PreparedRecordsStage(ResponseRecord, run.response_file, responses)
    written["responses"] = run_stage(stage, [r for rows in responses.values() for r in rows], show_progress).n_written
    for judge_id in sorted({j for j, _ in judgments}):
        rows = {suite: recs for (j, suite), recs in judgments.items() if j == judge_id}
        stage = PreparedRecordsStage(ItemRecord, lambda suite, j=judge_id: run.judgment_file(j, suite), rows, judge_id)
        written[judge_id] = run_stage(stage, [r for recs in rows.values() for r in recs], show_progress).n_written
    return written
