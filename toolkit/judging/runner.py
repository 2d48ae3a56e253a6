"""Add one judge's judgments to a run: ResponseRecords → ItemRecords (resumable; never regenerates).

Resume semantics: an item that already has a record from this judge is skipped. Records whose
judge_status is "error" (an API failure, not a verdict) are retried on the next run by default:
they are dropped from the judgments file (atomic rewrite) and judged again; parse errors are
verdicts about the reply and stay. Judges with their own request pool (``preferred_batch_size``)
get larger batches; judges that need a whole suite at once (``whole_run``, e.g. MD-Judge's
per-model Otsu thresholds) get every pending item in one call.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from schemas import LABEL_OF_SCORE, ItemRecord, ResponseRecord


from ..errors import RecordError, SlmboardError, ValidationFailed
from ..progress import progress_bar
from ..records_io import JsonlAppender, atomic_write_text, iter_jsonl, repair_torn_tail
from ..runs import RunDir
from ..validation import pydantic_errors
from .base import Judge, JudgeInput, Judgment, make_judge


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

    @property
    def n_failed(self) -> int:
        return self.status_counts.get("parse_error", 0) + self.status_counts.get("error", 0)


def read_responses(path: Path) -> list[ResponseRecord]:
    """Responses of one suite; any bad row stops judging with file:row:field errors."""
    from pydantic import ValidationError

    out, errors = [], []
    for row_no, row in iter_jsonl(path):
        if isinstance(row, RecordError):
            errors.append(row)
            continue
        try:
            out.append(ResponseRecord.model_validate(row))
        except ValidationError as exc:
            errors.extend(pydantic_errors(exc, str(path), row_no))
    if errors:
        raise ValidationFailed(errors)
    return out


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


def _done_ids(path: Path, retry_errors: bool = False) -> tuple[set[str], int]:
    """Item ids this judge has already judged, and how many "error" records would be retried."""
    done: set[str] = set()
    n_errors = 0
    if path.exists():
        for _, row in iter_jsonl(path):
            if isinstance(row, dict) and "item_id" in row:
                if retry_errors and row.get("judge_status") == "error":
                    n_errors += 1
                else:
                    done.add(row["item_id"])
    return done, n_errors


def _drop_error_records(path: Path) -> None:
    """Rewrite a judgments file without its "error" records (atomic: all or nothing)."""
    repair_torn_tail(path)
    kept = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        try:
            if json.loads(line).get("judge_status") == "error":
                continue
        except (ValueError, AttributeError):
            pass  # a bad line stays for `validate` to report
        kept.append(line)
    atomic_write_text(path, "".join(kept))


def judge_run(
    run_dir: str | Path,
    judge: str | Judge = "heuristic",
    suites: Sequence[str] | None = None,
    batch_size: int = 32,
    show_progress: bool = True,
    retry_errors: bool = True,
    **judge_options,
) -> JudgeResult:
    """Judge every response of the run that this judge has not judged yet.

    ``retry_errors``: judge again the items whose earlier record is an API failure ("error").
    """
    run = RunDir(run_dir)
    run.load_config()  # fails clearly on a folder that is not a run
    response_files = run.response_files()
    if suites:
        wanted = set(suites)
        response_files = [f for f in response_files if f.stem in wanted]
    if not response_files:
        raise SlmboardError(f"{run.root}: no responses to judge; run `slmboard generate --out {run.root}` first")
    judge_obj = make_judge(judge, **judge_options) if isinstance(judge, str) else judge
    result = JudgeResult(run.root, judge_obj.judge_id)
    pending: list[tuple[str, ResponseRecord]] = []
    responses_by_suite = {path.stem: read_responses(path) for path in response_files}  # validate all before writing
    for suite, responses in responses_by_suite.items():
        out_path = run.judgment_file(judge_obj.judge_id, suite)
        done, n_errors = _done_ids(out_path, retry_errors)
        if n_errors:
            _drop_error_records(out_path)
            result.n_retried_errors += n_errors
        for response in responses:
            if response.item_id in done:
                result.n_skipped += 1
            else:
                pending.append((suite, response))
    if getattr(judge_obj, "batch_api", False) and getattr(judge_obj, "batch_state_path", "") is None:
        # The pending batch id lives in the run folder, so a restarted command resumes it.
        judge_obj.batch_state_path = run.judgments_dir(judge_obj.judge_id) / "batch-state.json"
    if getattr(judge_obj, "whole_run", False):
        batch_size = max(1, len(pending))
    else:
        batch_size = max(batch_size, int(getattr(judge_obj, "preferred_batch_size", 0) or 0))
    extras = getattr(judge_obj, "record_extras", None)
    started = time.perf_counter()
    bar = progress_bar(total=len(pending), desc=f"judge {judge_obj.judge_id}", unit="item", enabled=show_progress)
    per_item = hasattr(judge_obj, "on_item") and judge_obj.on_item is None
    if per_item:
        judge_obj.on_item = bar.update  # the judge ticks the bar as each answer arrives
    appenders: dict[str, JsonlAppender] = {}
    try:
        for start in range(0, len(pending), batch_size):
            batch = pending[start : start + batch_size]
            inputs = [
                JudgeInput(suite=r.suite, item_id=r.item_id, prompt=r.prompt, response=r.response, gold=r.gold, category=r.category,
                           gold_choice=r.gold_choice)
                for _, r in batch
            ]
            judgments = judge_obj.judge(inputs)
            if len(judgments) != len(inputs):
                raise SlmboardError(f"judge {judge_obj.judge_id} returned {len(judgments)} judgments for {len(inputs)} items")
            by_suite: dict[str, list[dict]] = {}
            for (suite, response), judgment, x in zip(batch, judgments, inputs):
                record = item_record(response, judge_obj, judgment, extras(x) if callable(extras) else None)
                by_suite.setdefault(suite, []).append(record.model_dump(mode="json"))
                result.status_counts[judgment.status] += 1
                result.label_counts[record.label or "failed"] += 1
                if judgment.status != "ok":
                    result.failure_reasons[f"{judgment.status}: {(judgment.reason or '?')[:120]}"] += 1
            for suite, rows in by_suite.items():
                if suite not in appenders:
                    appenders[suite] = JsonlAppender(run.judgment_file(judge_obj.judge_id, suite))
                appenders[suite].append(rows)
            result.n_new += len(batch)
            if not per_item:
                bar.update(len(batch))
    finally:
        if per_item:
            judge_obj.on_item = None
        bar.close()
        for appender in appenders.values():
            appender.close()
    result.seconds = time.perf_counter() - started
    stats = getattr(judge_obj, "stats", None)
    if stats:
        result.judge_stats = dict(stats)
    return result
