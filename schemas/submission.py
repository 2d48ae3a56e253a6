"""The submission manifest: what was evaluated, how, by whom, and the hashes of its record files."""
from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import Field, create_model

from ._common import JudgeId, ModelRun, NonEmptyStr, Record, Sha256
from .usage import StageCost

#: The kinds of item a suite holds and a judge can judge: a free-text answer judged under the refusal
#: rubric without a gold label (every prompt unsafe), the same with a gold label (safe look-alikes:
#: XSTest), or a multiple-choice answer (BBQ). A judge declares the kinds it fits, a suite its kind.
ITEM_KINDS = ("free-text", "free-text-gold", "multiple-choice")
ItemKind = Literal["free-text", "free-text-gold", "multiple-choice"]
_KIND_WORDS = {"free-text": "free-text answers without a gold label", "free-text-gold": "free-text answers with a gold label",
               "multiple-choice": "multiple-choice answers"}


def describe_kinds(kinds) -> str:
    """How messages name kinds: both free-text kinds -> "free-text answers"; else each kind's words."""
    kinds = sorted(set(kinds))
    if set(kinds) == {"free-text", "free-text-gold"}:
        return "free-text answers"
    return " and ".join(_KIND_WORDS.get(k, k) for k in kinds) or "no kind of item"


class RecordFile(Record):
    path: NonEmptyStr = Field(description="path relative to the dataset root")
    sha256: Sha256 = Field(description="sha256 hex digest of the file's bytes as published")
    n_rows: int = Field(ge=0, description="number of records (rows) in the file")
    suite: Optional[str] = Field(None, description="the suite of a per-item file; null for the moderation file")
    judge_id: Optional[JudgeId] = Field(None, description="the judge of a per-item file; null for the moderation file")


class Architecture(Record):
    """Model metadata as in paper 1, Table A2. Unknown values stay null."""

    n_layers: Optional[int] = Field(None, ge=1, description="number of transformer layers (the config's num_hidden_layers)")
    n_heads: Optional[int] = Field(None, ge=1, description="number of attention heads (num_attention_heads)")
    n_kv_heads: Optional[int] = Field(
        None, ge=1,
        description="number of key/value heads (num_key_value_heads); "
                    "fewer than n_heads means grouped-query attention",
    )
    hidden_size: Optional[int] = Field(None, ge=1, description="width of the hidden representation (hidden_size)")
    vocab_size: Optional[int] = Field(None, ge=1, description="tokenizer vocabulary size (vocab_size)")
    activation: Optional[str] = Field(
        None, description="feed-forward activation function, e.g. 'GELU', 'SiLU', 'SwiGLU' (the config's hidden_act)"
    )
    norm: Optional[str] = Field(None, description="normalisation layer, e.g. 'RMSNorm'")
    position_encoding: Optional[str] = Field(None, description="position encoding, e.g. 'RoPE', 'partial RoPE', 'absolute'")
    gqa: Optional[bool] = Field(None, description="whether the model uses grouped-query attention (n_kv_heads below n_heads)")
    rmsnorm: Optional[bool] = Field(None, description="whether the model normalises with RMSNorm")
    silu: Optional[bool] = Field(None, description="whether the activation is SiLU (swish)")
    swiglu: Optional[bool] = Field(None, description="whether the feed-forward layer is gated SwiGLU")
    rope: Optional[bool] = Field(None, description="whether positions are encoded with rotary embeddings (RoPE)")


class Submission(ModelRun):
    family: Optional[str] = Field(None, description="model family, e.g. 'Qwen2.5', 'SmolLM2'")
    vendor: Optional[str] = Field(None, description="who released the model, e.g. 'Google', 'Meta'")
    year: Optional[int] = Field(None, description="release year of the model (as in paper 1 Table A2)")
    params: Optional[float] = Field(None, gt=0, description="parameter count")
    context_length: Optional[int] = Field(
        None, ge=1, description="maximum context length in tokens (the config's max_position_embeddings)"
    )
    architecture: Architecture = Field(default_factory=Architecture, description="architecture metadata as in paper 1 Table A2")
    tuning: Literal["base", "instruct", "chat", "unknown"] = Field(
        "unknown", description="how the checkpoint was tuned: base, instruct, chat or unknown"
    )
    instruction_tuned: Optional[bool] = Field(
        None, description="whether the checkpoint is instruction-tuned (a metadata feature of paper 1); null when unknown"
    )
    chat_tuned: Optional[bool] = Field(
        None, description="whether the checkpoint is chat-tuned (a metadata feature of paper 1); null when unknown"
    )
    license: Optional[str] = Field(None, description="the model's licence, e.g. 'apache-2.0'")
    submitter: Optional[str] = Field(None, description="who submitted the run (submit --submitter, else RUN/model.json)")
    run_config: dict[str, Any] = Field(
        default_factory=dict,
        description="the run's run.json (model, backend, model args, decoding, suites and their revisions, limit, shard), secrets scrubbed",
    )
    judge_configs: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="judge id -> every setting that shaped its requests (model, rubric version, temperature, seed, "
                    "max_tokens, extra request body), as recorded when judging; API judges only",
    )
    judge_fits: dict[JudgeId, list[ItemKind]] = Field(
        default_factory=dict,
        description="judge id -> the kinds of item it can judge (free-text, free-text-gold, multiple-choice), as "
                    "declared by the judge (an imported judge: the kinds of the suites its source applied it to); "
                    "records of a judge on a suite of another kind are left out of the leaderboard",
    )
    suite_kinds: dict[str, ItemKind] = Field(
        default_factory=dict, description="suite -> the kind of its items (free-text, free-text-gold, multiple-choice)"
    )
    toolkit_version: NonEmptyStr = Field(description="version of slmboard that wrote the manifest")
    created_at: Optional[str] = Field(None, description="when the manifest was made: ISO 8601 UTC timestamp to the second")
    record_files: list[RecordFile] = Field(
        default_factory=list, description="the record files this submission published, with their sha256 and row counts"
    )
    display_name: Optional[str] = Field(None, description="the model's name as papers and figures print it, e.g. 'GPT-2 Small'")
    # Partial runs (`submit --allow-partial`): canonical items the run lacks, and each suite's item count,
    # so coverage (scored or failed items / suite total) needs no suite files.
    partial: bool = Field(
        False, description="true when the run lacks canonical suite items (submit --allow-partial); missing_items lists them"
    )
    suite_totals: dict[str, int] = Field(default_factory=dict, description="suite -> number of canonical items (where checked)")
    missing_items: dict[str, list[str]] = Field(default_factory=dict, description="suite -> canonical item ids the run lacks")
    cost: dict[str, StageCost] = Field(
        default_factory=dict,
        description="what the run spent: 'generation' and each published judge id -> tokens, requests, cache hits, "
                    "seconds and US dollars where a price was known (RUN/cost.json, from the run's usage ledgers); "
                    "empty for a run made before costs were recorded",
    )
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
    n_records=(int, Field(ge=0, description="the number of records in its record files")),
    cost=(Optional[str], Field(None, description="its manifest's cost map as JSON ('generation' and judge id -> "
                                                 "tokens, requests, cache hits, seconds, usd); null when it has none")),
)
