"""Reading ModerationRecords from a .jsonl / .parquet file, a run folder or a dataset folder."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import RecordError, RecordFileError, ValidationFailed
from ..records_io import record_files
from ..validation import validate_path

#: Columns of the frame :func:`read_moderation` returns (the ModerationRecord fields).
FIELDS = (
    "schema_version", "submission_id", "moderator_id", "benchmark", "item_id", "gold", "decision",
    "p_flag_logprob", "confidence_verbal", "raw_output", "prompt_variant", "toolkit_version",
)


def moderation_files(data: str | Path) -> list[Path]:
    """The record files DATA stands for: a file; RUN/moderation/*.jsonl of a run folder;
    data/moderation/*.parquet of a dataset folder; otherwise every record file under the folder."""
    data = Path(data)
    if not data.exists():
        raise RecordFileError(f"{data}: no such file or folder")
    if data.is_file():
        return record_files(data)
    for sub in (data / "moderation", data / "data" / "moderation"):
        if sub.is_dir():
            files = record_files(sub)
            if files:
                return files
    files = record_files(data)
    if not files:
        raise RecordFileError(f"{data}: no .jsonl or .parquet ModerationRecord files found")
    return files


def read_moderation(data: str | Path) -> pd.DataFrame:
    """Every ModerationRecord under DATA, validated (all errors listed, file:row:field), as a frame."""
    records = []
    errors: list[RecordError] = []
    for file in moderation_files(data):
        report = validate_path(file, kind="moderation", keep_records=True, manifests=False)
        errors.extend(report.errors)
        records.extend(report.records)
    if errors:
        raise ValidationFailed(errors)
    # Duplicates across files (validate_path checks within one file only).
    frame = pd.DataFrame([r.model_dump() for r in records], columns=list(FIELDS))
    key = ["submission_id", "moderator_id", "benchmark", "item_id", "prompt_variant"]
    dup = frame.duplicated(key, keep="first")
    if dup.any():
        first = frame[dup].iloc[0]
        raise ValidationFailed([RecordError(str(data), None, "item_id",
                                            f"{int(dup.sum())} duplicate record(s), e.g. {dict(first[key])}")])
    if frame.empty:
        raise RecordFileError(f"{data}: no ModerationRecords found")
    return frame
