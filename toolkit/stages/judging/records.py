"""What judging reads and writes, shared by the judging stage and judge panels: a suite's responses, one judged
item's record, and the counts a judge run reports."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from schemas import LABEL_OF_SCORE, ItemRecord, ResponseRecord

from toolkit.core.stage_engine import read_records
from .base import Judge, Judgment

__all__ = ["JudgeResult", "read_responses", "item_record"]


@dataclass
class JudgeResult:
    run_dir: Path
    judge_id: str
    n_new: int = 0
    n_skipped: int = 0
    status_counts: Counter = field(default_factory=Counter)
    label_counts: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    n_retried_errors: int = 0  # earlier "error" records judged again this run
    failure_reasons: Counter = field(default_factory=Counter)  # reason (truncated) -> count, failures only
    judge_stats: dict = field(default_factory=dict)  # requests, retries, cache_hits, ... when the judge counts them
    #: one line per suite of the run the judge does not fit (nothing was written for it)
    skipped_suites: list[str] = field(default_factory=list)
    #: the run's cost.json after this call: "generation" and judge id -> schemas.usage.StageCost
    cost: dict = field(default_factory=dict)

    @property
    def n_failed(self) -> int:
        return self.status_counts.get("parse_error", 0) + self.status_counts.get("error", 0)


def read_responses(path: Path) -> list[ResponseRecord]:
    """Responses of one suite; any bad row stops judging with file:line:field errors."""
    return [record for _, record in read_records(path, ResponseRecord)]


def item_record(response: ResponseRecord, judge: Judge, judgment: Judgment, extra: dict | None = None) -> ItemRecord:
    """``extra``: optional ItemRecord fields a judge adds (e.g. MD-Judge's Otsu thresholds)."""
    fields = response.model_dump()
    correct = fields.pop("correct", None)
    return ItemRecord(
        **fields,
        correct=correct,
        judge_id=judge.judge_id,
        judge_status=judgment.status,
        score=judgment.score,
        label=None if judgment.score is None else LABEL_OF_SCORE[judgment.score],
        judge_raw=judgment.raw,
        judge_reason=judgment.reason,
        unsafe_prob=judgment.unsafe_prob,
        rubric_version=judge.rubric_version,
        **(extra or {}),
    )
