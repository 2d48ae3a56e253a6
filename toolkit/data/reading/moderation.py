"""The moderation reader: ModerationRecords of DATA (a record file, a run folder, a dataset folder or a
Hub dataset id, resolved by :func:`~toolkit.data.reading.open_data`), validated, as one frame."""
from __future__ import annotations

import pandas as pd

from toolkit.core.errors import RecordError, RecordFileError, ValidationFailed
from toolkit.data.validation import validate_path
from .dataset import open_data

#: Columns of the frame :func:`read_moderation` returns (the ModerationRecord fields).
FIELDS = (
    "schema_version", "submission_id", "moderator_id", "benchmark", "item_id", "gold", "decision",
    "p_flag_logprob", "confidence_verbal", "raw_output", "prompt_variant", "toolkit_version",
)


def read_moderation(data) -> pd.DataFrame:
    """Every ModerationRecord of DATA, validated (all errors listed, file:row:field), as a frame."""
    dataset = open_data(data)
    records = []
    errors: list[RecordError] = []
    for file in dataset.moderation_files():
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
        raise ValidationFailed([RecordError(dataset.name, None, "item_id",
                                            f"{int(dup.sum())} duplicate record(s), e.g. {dict(first[key])}")])
    if frame.empty:
        raise RecordFileError(f"{dataset.name}: no ModerationRecords found")
    return frame
