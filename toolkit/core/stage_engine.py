"""One resumable stage engine: generate, judge, moderate (and import) are stages run by :func:`run_stage`.

A *stage* turns tasks (suite items to answer, responses to judge, ...) into records (pydantic
models) appended to one JSONL file per *group* (a suite, a benchmark). The stage declares only
what differs between stages; the engine owns everything they share:

    class MyStage(Stage[Task, MyRecord]):
        record_type = MyRecord                      # rows on disk are validated as this
        description = "my stage"                    # progress-bar label
        batching = Batching(size=16)                # or WHOLE_GROUP / WHOLE_RUN
        group_field = "suite"                       # a task's and a record's group: their attribute of that
                                                    # name; their identity: item_id (or override these:)
        def output_file(self, group): ...           # the JSONL file of one group
        def group_of(self, task): ...               # the group a task's record goes to
        def record_group(self, record): ...         # the group a record belongs to
        def task_key(self, task): ...               # identity of a task ...
        def record_key(self, record): ...           # ... and of a record on disk (None: not ours, kept)
        def process(self, batch, progress): ...     # yield lists of records as they are ready

    result = run_stage(MyStage(...), tasks, show_progress=True)

What the engine does, in order:

1. **Done set.** For each group's file: cut a torn last line (a killed writer), read every row
   and validate it as ``record_type``. One bad-row policy: any bad row stops the stage with
   :class:`~toolkit.core.errors.RecordFileCorrupt` naming file, line and field, before anything is
   written. Records the stage does not keep on resume (:meth:`Stage.keep_on_resume`, e.g. API
   failures to retry) are dropped with one atomic rewrite and their tasks run again.
   :meth:`Stage.check_resume` may refuse what is on disk (e.g. another answer mode).
2. **Pending** tasks are those whose :meth:`Stage.task_key` is not the key of a record on disk;
   they keep the order the planner gave.
3. **Batches** follow :attr:`Stage.batching`: a preferred size (``Batching(size=n)``), the whole
   group (``WHOLE_GROUP``) or the whole run (``WHOLE_RUN``); a batch mixes groups only with
   ``across_groups=True``.
4. **Atomic appends.** Every list of records :meth:`Stage.process` yields is appended as whole,
   fsynced lines the moment it is yielded: a kill loses only work not yet yielded.
5. **Progress** with counts and rates; a stage that learns of finished items earlier (a request
   pool) reports them through the ``progress`` callable it is given, without double counting.
6. **Finalisation.** With ``finalizes = True``, once every task of a group is on disk (also after a
   resume), :meth:`Stage.finalize_group` sees all of the group's records; when it changes them the
   file is rewritten atomically.
7. **Interruption.** On any exception (Ctrl-C included) files and the bar are closed and the
   exception propagates; what was appended stays, and re-running the command resumes.

This module imports nothing heavy.
"""
from __future__ import annotations

import abc
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Generic, Hashable, Iterable, Iterator, Sequence, TypeVar

from pydantic import BaseModel, ValidationError

from toolkit.core.errors import RecordError, RecordFileCorrupt, SlmboardError, pydantic_errors
from toolkit.core.progress import progress_bar
from toolkit.core.records_io import JsonlAppender, iter_jsonl, repair_torn_tail, to_json_line, atomic_write_text

__all__ = ["Batching", "WHOLE_GROUP", "WHOLE_RUN", "Stage", "StageResult", "run_stage", "read_records", "write_records"]

T = TypeVar("T")
R = TypeVar("R", bound=BaseModel)

#: At most this many bad rows are listed in one error (the rest are counted).
MAX_LISTED_ERRORS = 20


@dataclass(frozen=True)
class Batching:
    """How tasks are cut into batches. ``size=None``: no limit (a whole group, or the whole run)."""

    size: int | None = 32
    across_groups: bool = False

    def __post_init__(self) -> None:
        if self.size is not None and self.size < 1:
            raise ValueError(f"batch size must be >= 1, got {self.size}")


WHOLE_GROUP = Batching(size=None, across_groups=False)
WHOLE_RUN = Batching(size=None, across_groups=True)


class Stage(abc.ABC, Generic[T, R]):
    """What one stage declares; see the module docstring for what :func:`run_stage` does with it."""

    record_type: type[R]
    description: str = "stage"
    unit: str = "item"
    batching: Batching = Batching()
    finalizes: bool = False
    group_field: str = "suite"  # the attribute of a task and of a record that names its group

    @abc.abstractmethod
    def output_file(self, group: str) -> Path:
        """The JSONL file holding the records of ``group``."""

    # By default a task and its record both carry their group in the attribute ``group_field`` and their
    # identity in ``item_id``; a stage whose tasks are shaped otherwise (tuples, rows) overrides the methods.
    def group_of(self, task: T) -> str:
        """The group whose file the record of ``task`` goes to."""
        return getattr(task, self.group_field)

    def record_group(self, record: R) -> str:
        """The group a record belongs to (the file it is appended to)."""
        return getattr(record, self.group_field)

    def task_key(self, task: T) -> Hashable:
        """Identity of a task: it is done when a record on disk has the same key."""
        return getattr(task, "item_id")

    def record_key(self, record: R) -> Hashable | None:
        """Identity of a record on disk; None for records of another producer sharing the file."""
        return getattr(record, "item_id")

    @abc.abstractmethod
    def process(self, batch: list[T], progress: Callable[[int], None]) -> Iterable[Sequence[R]]:
        """Yield the batch's records, one list at a time as they are ready (each list is appended atomically)."""

    def keep_on_resume(self, record: R) -> bool:
        """False for a record on disk that should be dropped and redone (e.g. an API failure)."""
        return True

    def check_resume(self, group: str, records: Sequence[R]) -> None:
        """Inspect a group's records on disk before anything is added; raise SlmboardError to refuse."""

    def finalize_group(self, group: str, records: list[R]) -> list[R]:
        """All records of a complete group (only called when ``finalizes``); return them, changed or not."""
        return records

    def progress_note(self, seconds: float) -> str | None:
        """Extra text for the progress bar (e.g. tokens/s), or None."""
        return None


@dataclass
class StageResult:
    """Counts per group: records written now, tasks already done, records dropped to be redone."""

    written: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    redone: dict[str, int] = field(default_factory=dict)
    finalized: list[str] = field(default_factory=list)  # groups whose file finalize_group rewrote
    files: dict[str, Path] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def n_written(self) -> int:
        return sum(self.written.values())

    @property
    def n_skipped(self) -> int:
        return sum(self.skipped.values())

    @property
    def n_redone(self) -> int:
        return sum(self.redone.values())


def read_records(path: Path, record_type: type[R]) -> list[tuple[int, R]]:
    """``(line, record)`` of every row of a stage's file, after cutting a torn last line.

    The one bad-row policy: any row that is not valid JSON or not a valid ``record_type`` raises
    :class:`RecordFileCorrupt` listing file, line and field of each bad row.
    """
    if not path.is_file():
        return []
    repair_torn_tail(path)  # a killed writer's half line: its item is simply redone
    out: list[tuple[int, R]] = []
    errors: list[RecordError] = []
    for line, row in iter_jsonl(path):
        if isinstance(row, RecordError):
            errors.append(row)
            continue
        try:
            out.append((line, record_type.model_validate(row)))
        except ValidationError as exc:
            errors.extend(pydantic_errors(exc, str(path), line))
    if errors:
        raise RecordFileCorrupt(errors[:MAX_LISTED_ERRORS] + (
            [RecordError(str(path), None, None, f"... and {len(errors) - MAX_LISTED_ERRORS} more")]
            if len(errors) > MAX_LISTED_ERRORS else []))
    return out


def write_records(path: Path, records: Iterable[BaseModel]) -> None:
    """Replace a stage's file with ``records`` atomically (all or nothing)."""
    atomic_write_text(path, "".join(to_json_line(r.model_dump(mode="json")) for r in records))


class _Progress:
    """The bar ticks when records are written, or earlier when the stage reports finished items."""

    def __init__(self, bar) -> None:
        self.bar, self.ahead = bar, 0

    def reported(self, n: int = 1) -> None:  # given to Stage.process as ``progress``
        self.bar.update(n)
        self.ahead += n

    def written(self, n: int) -> None:
        covered = min(n, self.ahead)
        self.ahead -= covered
        if n > covered:
            self.bar.update(n - covered)


def _groups_in_order(stage: Stage[T, R], tasks: Sequence[T]) -> dict[str, list[T]]:
    by_group: dict[str, list[T]] = {}
    for task in tasks:
        by_group.setdefault(stage.group_of(task), []).append(task)
    return by_group


def _done_keys(stage: Stage[T, R], group: str, result: StageResult) -> set[Hashable]:
    path = stage.output_file(group)
    rows = read_records(path, stage.record_type)
    kept = [(line, r) for line, r in rows if stage.record_key(r) is None or stage.keep_on_resume(r)]
    if len(kept) != len(rows):
        result.redone[group] = len(rows) - len(kept)
        keep_lines = {line for line, _ in kept}
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        # Kept records stay byte for byte as they were; only the dropped lines go.
        atomic_write_text(path, "".join(text for no, text in enumerate(lines, start=1) if no in keep_lines))
    records = [r for _, r in kept]
    stage.check_resume(group, [r for r in records if stage.record_key(r) is not None])
    return {key for key in map(stage.record_key, records) if key is not None}


def _batches(stage: Stage[T, R], pending: dict[str, list[T]]) -> Iterator[list[T]]:
    size = stage.batching.size
    if stage.batching.across_groups:
        flat = [t for tasks in pending.values() for t in tasks]
        streams = [flat] if flat else []
    else:
        streams = [tasks for tasks in pending.values() if tasks]
    for tasks in streams:
        step = size or len(tasks)
        for start in range(0, len(tasks), step):
            yield tasks[start : start + step]


def run_stage(stage: Stage[T, R], tasks: Sequence[T], show_progress: bool = True) -> StageResult:
    """Run ``stage`` on every task not already done; see the module docstring."""
    started = time.perf_counter()
    result = StageResult()
    by_group = _groups_in_order(stage, tasks)
    pending: dict[str, list[T]] = {}
    for group, group_tasks in by_group.items():  # every group is read (and checked) before any write
        done = _done_keys(stage, group, result)
        pending[group] = [t for t in group_tasks if stage.task_key(t) not in done]
        result.skipped[group] = len(group_tasks) - len(pending[group])
        result.written[group] = 0
        result.files[group] = stage.output_file(group)
    bar = progress_bar(sum(map(len, pending.values())), stage.description, unit=stage.unit, enabled=show_progress)
    progress = _Progress(bar)
    appenders: dict[str, JsonlAppender] = {}
    try:
        for batch in _batches(stage, pending):
            for records in stage.process(batch, progress.reported):
                _append(stage, records, appenders, result)
                progress.written(len(records))
                note = stage.progress_note(time.perf_counter() - started)
                if note:
                    bar.set_postfix_str(note)
    finally:
        bar.close()
        for appender in appenders.values():
            appender.close()
    if stage.finalizes:
        for group in by_group:
            _finalize(stage, group, result)
    result.seconds = time.perf_counter() - started
    return result


def _append(stage: Stage[T, R], records: Sequence[R], appenders: dict[str, JsonlAppender], result: StageResult) -> None:
    by_group: dict[str, list[dict]] = {}
    for record in records:
        if not isinstance(record, stage.record_type):
            raise SlmboardError(f"{stage.description}: produced a {type(record).__name__}, not a {stage.record_type.__name__}")
        by_group.setdefault(stage.record_group(record), []).append(record.model_dump(mode="json"))
    for group, rows in by_group.items():
        if group not in result.written:
            raise SlmboardError(f"{stage.description}: a record of group {group!r}, which no task belongs to")
        if group not in appenders:
            appenders[group] = JsonlAppender(stage.output_file(group))
        appenders[group].append(rows)
        result.written[group] += len(rows)


def _finalize(stage: Stage[T, R], group: str, result: StageResult) -> None:
    path = stage.output_file(group)
    records = [r for _, r in read_records(path, stage.record_type)]
    if not records:
        return
    final = stage.finalize_group(group, list(records))
    if [r.model_dump(mode="json") for r in final] != [r.model_dump(mode="json") for r in records]:
        write_records(path, final)
        result.finalized.append(group)
