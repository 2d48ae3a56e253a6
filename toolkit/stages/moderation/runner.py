"""Run a moderator over the suite into ``RUN/moderation/<benchmark>.jsonl`` (resumable).

Each batch is built as ModerationRecords and appended whole by the stage engine
(:mod:`toolkit.core.stage_engine`); on a rerun, the (moderator, item, prompt variant) triples already on disk
are skipped, so a killed run continues where it stopped and never duplicates a record.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from schemas import ModerationRecord

from toolkit.core.errors import SlmboardError
from toolkit.core.runs import RunDir
from toolkit.core.stage_engine import Batching, Stage, run_stage
from .moderators import Moderator
from .suite import ModerationItem, load_items


@dataclass
class ModerationRunResult:
    run_dir: Path
    written: dict[str, int] = field(default_factory=dict)  # benchmark -> new records
    skipped: dict[str, int] = field(default_factory=dict)  # benchmark -> already on disk
    no_decision: int = 0  # parse failures among the new records
    files: list[Path] = field(default_factory=list)


def default_submission_id(moderator_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "-", moderator_id.split("/")[-1])[:100] + "-moderation"


class ModerationStage(Stage[ModerationItem, ModerationRecord]):
    """Items -> ModerationRecords in ``RUN/moderation/<benchmark>.jsonl``; one group per benchmark.

    A benchmark file may hold several moderators and prompt variants: only this (moderator,
    variant)'s records count as done; the others are left alone.
    """

    record_type = ModerationRecord
    group_field = "benchmark"

    def __init__(self, run: RunDir, moderator: Moderator, variant: str, submission_id: str, batch_size: int,
                 result: ModerationRunResult) -> None:
        self.run, self.moderator, self.variant, self.submission_id = run, moderator, variant, submission_id
        self.result = result
        self.description = f"moderate {moderator.moderator_id}"
        self.batching = Batching(batch_size)

    def output_file(self, group: str) -> Path:
        return self.run.moderation_file(group)

    def record_key(self, record: ModerationRecord) -> str | None:
        ours = record.moderator_id == self.moderator.moderator_id and record.prompt_variant == self.variant
        return record.item_id if ours else None

    def process(self, batch: list[ModerationItem], progress: Callable[[int], None]) -> Iterator[list[ModerationRecord]]:
        from toolkit import __version__

        outcomes = self.moderator.moderate(batch, self.variant)
        if len(outcomes) != len(batch):
            raise SlmboardError(f"{self.moderator.moderator_id}: {len(outcomes)} outcomes for {len(batch)} items")
        self.result.no_decision += sum(o.decision is None for o in outcomes)
        yield [ModerationRecord(
            submission_id=self.submission_id, moderator_id=self.moderator.moderator_id, benchmark=it.benchmark,
            item_id=it.item_id, gold=it.gold, decision=o.decision, p_flag_logprob=o.p_flag_logprob,
            confidence_verbal=o.confidence_verbal, raw_output=o.raw_output, prompt_variant=self.variant,
            toolkit_version=__version__,
        ) for it, o in zip(batch, outcomes)]


def run_moderator(
    run_dir: str | Path,
    moderator: Moderator,
    benchmarks: Sequence[str],
    variant: str = "default",
    data: dict[str, str | Path] | None = None,
    lists_dir: str | Path | None = None,
    limit: Optional[int] = None,
    submission_id: Optional[str] = None,
    batch_size: int = 16,
    show_progress: bool = True,
    items: dict[str, list[ModerationItem]] | None = None,
) -> ModerationRunResult:
    """Moderate every listed item of each benchmark; ``data[benchmark]`` is a source file or mirror
    folder (else the pinned source / the Hub). ``items`` bypasses loading (already joined items)."""
    run = RunDir(run_dir)
    data = data or {}
    # Load every benchmark first: a missing source fails before any model time is spent.
    loaded = {b: (items or {}).get(b) or load_items(b, data.get(b), lists_dir, limit) for b in benchmarks}
    result = ModerationRunResult(run.root)
    stage = ModerationStage(run, moderator, variant, submission_id or default_submission_id(moderator.moderator_id),
                            batch_size, result)
    outcome = run_stage(stage, [it for its in loaded.values() for it in its], show_progress=show_progress)
    for bench in loaded:
        result.written[bench] = outcome.written.get(bench, 0)
        result.skipped[bench] = outcome.skipped.get(bench, 0)
        result.files.append(run.moderation_file(bench))
    return result
