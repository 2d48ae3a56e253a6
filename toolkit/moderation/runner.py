"""Run a moderator over the suite into ``RUN/moderation/<benchmark>.jsonl`` (resumable).

Each batch is validated as ModerationRecords and appended whole (JsonlAppender); on a rerun, the
(moderator, item, prompt variant) triples already on disk are skipped, so a killed run continues
where it stopped and never duplicates a record.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from ..errors import SlmboardError
from ..progress import progress_bar
from ..records_io import JsonlAppender, iter_jsonl, repair_torn_tail
from ..runs import RunDir
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


def _done(path: Path, moderator_id: str, variant: str) -> set[str]:
    done = set()
    if not path.is_file():
        return done
    repair_torn_tail(path)  # a killed run's half line is cut (its item is redone), as the appender would
    for line, obj in iter_jsonl(path):
        if not isinstance(obj, dict):
            raise SlmboardError(f"{obj}; fix or remove the file before resuming")
        if obj.get("moderator_id") == moderator_id and obj.get("prompt_variant", "default") == variant:
            done.add(str(obj.get("item_id")))
    return done


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
    from schemas import ModerationRecord

    from .. import __version__

    run = RunDir(run_dir)
    submission_id = submission_id or default_submission_id(moderator.moderator_id)
    data = data or {}
    # Load every benchmark first: a missing source fails before any model time is spent.
    loaded = {b: (items or {}).get(b) or load_items(b, data.get(b), lists_dir, limit) for b in benchmarks}
    result = ModerationRunResult(run.root)
    for bench, its in loaded.items():
        path = run.moderation_file(bench)
        done = _done(path, moderator.moderator_id, variant)
        todo = [it for it in its if it.item_id not in done]
        result.skipped[bench] = len(its) - len(todo)
        result.written[bench] = 0
        result.files.append(path)
        bar = progress_bar(len(todo), f"moderate {bench}", enabled=show_progress)
        with JsonlAppender(path) as out:
            for start in range(0, len(todo), batch_size):
                batch = todo[start:start + batch_size]
                outcomes = moderator.moderate(batch, variant)
                if len(outcomes) != len(batch):
                    raise SlmboardError(f"{moderator.moderator_id}: {len(outcomes)} outcomes for {len(batch)} items")
                rows = []
                for it, o in zip(batch, outcomes):
                    row = {
                        "schema_version": "1.0", "submission_id": submission_id, "moderator_id": moderator.moderator_id,
                        "benchmark": bench, "item_id": it.item_id, "gold": it.gold, "decision": o.decision,
                        "p_flag_logprob": o.p_flag_logprob, "confidence_verbal": o.confidence_verbal,
                        "raw_output": o.raw_output, "prompt_variant": variant, "toolkit_version": __version__,
                    }
                    ModerationRecord.model_validate(row)  # a bad record stops the run before it is written
                    rows.append(row)
                    result.no_decision += o.decision is None
                out.append(rows)
                result.written[bench] += len(rows)
                bar.update(len(rows))
        bar.close()
    return result
