"""The submission manifest: what was evaluated, how, by whom, and the hashes of its record files."""
from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import Field, create_model

from ._common import JudgeId, ModelId, NonEmptyStr, Record, SafeId, SchemaVersion, Sha256


class RecordFile(Record):
    path: NonEmptyStr = Field(description="path relative to the dataset root")
    sha256: Sha256
    n_rows: int = Field(ge=0)
    suite: Optional[str] = None
    judge_id: Optional[JudgeId] = None


class Architecture(Record):
    """Model metadata as in paper 1, Table A2. Unknown values stay null."""

    n_layers: Optional[int] = Field(None, ge=1)
    n_heads: Optional[int] = Field(None, ge=1)
    n_kv_heads: Optional[int] = Field(None, ge=1)
    hidden_size: Optional[int] = Field(None, ge=1)
    vocab_size: Optional[int] = Field(None, ge=1)
    activation: Optional[str] = None
    norm: Optional[str] = None
    position_encoding: Optional[str] = None
    gqa: Optional[bool] = None
    rmsnorm: Optional[bool] = None
    silu: Optional[bool] = None
    swiglu: Optional[bool] = None
    rope: Optional[bool] = None


class Submission(Record):
    schema_version: SchemaVersion = "1.0"
    submission_id: SafeId
    model_id: ModelId
    model_revision: NonEmptyStr
    family: Optional[str] = None
    vendor: Optional[str] = None
    year: Optional[int] = None
    params: Optional[float] = Field(None, gt=0, description="parameter count")
    context_length: Optional[int] = Field(None, ge=1)
    architecture: Architecture = Field(default_factory=Architecture)
    tuning: Literal["base", "instruct", "chat", "unknown"] = "unknown"
    instruction_tuned: Optional[bool] = None
    chat_tuned: Optional[bool] = None
    license: Optional[str] = None
    submitter: Optional[str] = None
    run_config: dict[str, Any] = Field(default_factory=dict)
    judge_configs: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="judge id -> every setting that shaped its requests (model, rubric version, temperature, seed, "
                    "max_tokens, extra request body), as recorded when judging; API judges only",
    )
    toolkit_version: NonEmptyStr
    created_at: Optional[str] = None
    record_files: list[RecordFile] = Field(default_factory=list)
    display_name: Optional[str] = Field(None, description="the model's name as papers and figures print it, e.g. 'GPT-2 Small'")
    # Partial runs (`submit --allow-partial`): canonical items the run lacks, and each suite's item count,
    # so coverage (scored or failed items / suite total) needs no suite files.
    partial: bool = False
    suite_totals: dict[str, int] = Field(default_factory=dict, description="suite -> number of canonical items (where checked)")
    missing_items: dict[str, list[str]] = Field(default_factory=dict, description="suite -> canonical item ids the run lacks")
    metadata_source: Optional[str] = Field(
        None, description="where the model metadata comes from (e.g. 'paper 1 Table A2'); a manifest without record_files is metadata only"
    )


#: The manifest fields the submissions index (``data/submissions/submissions.parquet``) flattens, in column order.
INDEX_FIELDS: tuple[str, ...] = ("submission_id", "model_id", "model_revision", "family", "vendor", "params",
                                 "context_length", "tuning", "instruction_tuned", "chat_tuned", "license", "submitter",
                                 "toolkit_version", "created_at")

#: One row of the submissions index: the manifest fields above (their types are the manifest's) and what
#: the record files hold, flattened (comma-joined suites and judge ids, the number of records).
SubmissionIndexRow = create_model(
    "SubmissionIndexRow",
    __base__=Record,
    __doc__="One submission, flattened for the submissions index config.",
    **{name: (Submission.model_fields[name].annotation, Submission.model_fields[name]) for name in INDEX_FIELDS},
    suites=(str, Field(description="the suites of its record files, comma-separated")),
    judge_ids=(str, Field(description="the judges of its record files, comma-separated")),
    n_records=(int, Field(ge=0)),
)
