"""Add one judge's judgments to a run: ResponseRecords → ItemRecords (resumable; never regenerates)."""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from schemas import LABEL_OF_SCORE, ItemRecord, ResponseRecord

from .. import __version__
from ..errors import RecordError, SlmboardError, ValidationFailed
from ..progress import progress_bar
from ..records_io import JsonlAppender, iter_jsonl
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


def item_record(response: ResponseRecord, judge: Judge, judgment: Judgment) -> ItemRecord:
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
    )


def _done_ids(path: Path) -> set[str]:
    done = set()
    if path.exists():
        for _, row in iter_jsonl(path):
            if isinstance(row, dict) and "item_id" in row:
                done.add(row["item_id"])
    return done


def judge_run(
    run_dir: str | Path,
    judge: str | Judge = "heuristic",
    suites: Sequence[str] | None = None,
    batch_size: int = 32,
    show_progress: bool = True,
    **judge_options,
) -> JudgeResult:
    """Judge every response of the run that this judge has not judged yet."""
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
    for path in response_files:
        suite = path.stem
        done = _done_ids(run.judgment_file(judge_obj.judge_id, suite))
        for response in read_responses(path):
            if response.item_id in done:
                result.n_skipped += 1
            else:
                pending.append((suite, response))
    started = time.perf_counter()
    bar = progress_bar(total=len(pending), desc=f"judge {judge_obj.judge_id}", unit="item", enabled=show_progress)
    appenders: dict[str, JsonlAppender] = {}
    try:
        for start in range(0, len(pending), batch_size):
            batch = pending[start : start + batch_size]
            inputs = [
                JudgeInput(suite=r.suite, item_id=r.item_id, prompt=r.prompt, response=r.response, gold=r.gold, category=r.category)
                for _, r in batch
            ]
            judgments = judge_obj.judge(inputs)
            if len(judgments) != len(inputs):
                raise SlmboardError(f"judge {judge_obj.judge_id} returned {len(judgments)} judgments for {len(inputs)} items")
            by_suite: dict[str, list[dict]] = {}
            for (suite, response), judgment in zip(batch, judgments):
                record = item_record(response, judge_obj, judgment)
                by_suite.setdefault(suite, []).append(record.model_dump(mode="json"))
                result.status_counts[judgment.status] += 1
                result.label_counts[record.label or "failed"] += 1
            for suite, rows in by_suite.items():
                if suite not in appenders:
                    appenders[suite] = JsonlAppender(run.judgment_file(judge_obj.judge_id, suite))
                appenders[suite].append(rows)
            result.n_new += len(batch)
            bar.update(len(batch))
    finally:
        bar.close()
        for appender in appenders.values():
            appender.close()
    result.seconds = time.perf_counter() - started
    return result
