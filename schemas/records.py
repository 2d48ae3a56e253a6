"""Per-item records: generation output, judged items, moderator decisions."""
from __future__ import annotations

import math
from typing import Literal, Optional

from pydantic import Field, ValidationInfo, field_validator

from ._common import (
    JudgeId,
    ModelId,
    NonEmptyStr,
    Record,
    SafeId,
    SchemaVersion,
    Sha256,
    SuiteName,
    sha256_text,
)

from typing import get_args

JudgeStatus = Literal["ok", "parse_error", "error"]
Label = Literal["harmful", "ambiguous", "safe"]

#: The ternary rubric: higher is safer. The one definition of valid scores, labels and statuses.
LABEL_OF_SCORE: dict[float, str] = {0.0: "harmful", 0.5: "ambiguous", 1.0: "safe"}
SCORE_OF_LABEL: dict[str, float] = {v: k for k, v in LABEL_OF_SCORE.items()}
#: The only scores a judge may emit (besides None on failure), in rubric order.
TERNARY_SCORES: tuple[float, ...] = tuple(LABEL_OF_SCORE)
#: Label codes of an items × models matrix (the reader's scan builds it, the bootstrap resamples it):
#: a scored item's code is ``LABEL_CODES[LABEL_OF_SCORE[score]]``; failed and missing items have their own.
LABEL_CODES: dict[str, int] = {label: code for code, label in enumerate(LABEL_OF_SCORE.values())}
FAILED_CODE, MISSING_CODE = len(LABEL_CODES), len(LABEL_CODES) + 1
JUDGMENT_STATUSES: tuple[str, ...] = get_args(JudgeStatus)


class GenerationConfig(Record):
    """How a response was produced. Enough to reproduce it."""

    # Null only where the source did not record it (runs imported from another tool's results).
    temperature: Optional[float] = Field(ge=0)
    max_new_tokens: Optional[int] = Field(ge=1)
    seed: Optional[int] = None
    chat_template_sha256: Optional[Sha256] = Field(
        None, description="sha256 of the chat template applied; null when the raw prompt was sent"
    )
    backend: NonEmptyStr = Field(description="hf | vllm | openai | ...")
    dtype: Optional[str] = None
    batch_size: Optional[int] = None
    device: Optional[str] = None
    do_sample: Optional[bool] = False


class _ItemBase(Record):
    schema_version: SchemaVersion = "1.0"
    submission_id: SafeId
    model_id: ModelId
    model_revision: NonEmptyStr = Field(description="Hub commit sha, or content hash of a local model")
    suite: SuiteName
    item_id: NonEmptyStr
    category: Optional[str] = Field(description="the suite's own category of the item (may be null)")
    prompt: str = Field(description="the exact prompt text of the item, before any chat template")
    prompt_sha256: Sha256
    response: str
    generation: GenerationConfig
    # Optional provenance (other tools' records stay valid without them).
    gold: Optional[str] = Field(None, description="expected behaviour where the suite defines one, e.g. 'unsafe' / 'safe' (XSTest)")
    suite_revision: Optional[str] = None
    toolkit_version: Optional[str] = None
    response_sha256: Optional[Sha256] = None
    finish_reason: Optional[str] = None
    n_output_tokens: Optional[int] = Field(None, ge=0)
    # Multiple-choice suites (BBQ): whether the answer is right, the option the model chose (null =
    # unmapped answer) and the right one. Declaration order is the published column order.
    correct: Optional[bool] = None
    choice: Optional[str] = Field(None, description="multiple-choice answer parsed from the response (e.g. 'A'); null when unmapped")
    gold_choice: Optional[str] = None
    item_metadata: Optional[str] = Field(
        None, description="JSON object of suite-specific item fields (BBQ context condition and polarity, AIR-Bench l2/l3/l4, ...)"
    )

    @field_validator("item_id")
    @classmethod
    def _item_id_printable(cls, v: str) -> str:
        if len(v) > 256 or not v.isprintable() or v != v.strip():
            raise ValueError("item_id must be at most 256 printable characters without surrounding spaces")
        return v

    # Cross-field checks are field validators (fields validate in declaration order), so an error
    # names the field that is wrong rather than the whole record.
    @field_validator("prompt_sha256")
    @classmethod
    def _prompt_hash_matches(cls, v: str, info: ValidationInfo) -> str:
        prompt = info.data.get("prompt")
        if prompt is not None and sha256_text(prompt) != v:
            raise ValueError("is not the sha256 of the UTF-8 prompt (was the prompt altered?)")
        return v

    @field_validator("response_sha256")
    @classmethod
    def _response_hash_matches(cls, v: str | None, info: ValidationInfo) -> str | None:
        response = info.data.get("response")
        if v is not None and response is not None and sha256_text(response) != v:
            raise ValueError("is not the sha256 of the UTF-8 response")
        return v


class ResponseRecord(_ItemBase):
    """One model's answer to one suite item, before judging."""


class ItemRecord(_ItemBase):
    """One model x suite item x judge: the unit of the published dataset."""

    judge_id: JudgeId
    judge_status: JudgeStatus
    score: Optional[float] = Field(description="0 harmful, 0.5 ambiguous, 1 safe; null when the judge failed")
    label: Optional[Label]
    judge_raw: Optional[str] = Field(description="the judge's raw output (or the heuristic's rule trace)")
    unsafe_prob: Optional[float] = Field(None, ge=0, le=1)
    judge_reason: Optional[str] = Field(None, description="why the judge decided, or why it failed")
    rubric_version: Optional[str] = None
    # Judges that map a continuous score to ternary with per-model thresholds (MD-Judge + Otsu, paper 1 §3.2).
    judge_threshold_lower: Optional[float] = Field(None, ge=0, le=1, description="unsafe probability at or below which the item is safe (1)")
    judge_threshold_upper: Optional[float] = Field(None, ge=0, le=1, description="unsafe probability above which the item is harmful (0)")

    @field_validator("score", mode="before")
    @classmethod
    def _score_is_ternary(cls, v):
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"score must be 0, 0.5, 1 or null, got {v!r}")
        if math.isnan(v) or float(v) not in LABEL_OF_SCORE:
            raise ValueError(f"score must be 0, 0.5, 1 or null, got {v!r}")
        return float(v)

    @field_validator("score")
    @classmethod
    def _score_agrees_with_status(cls, v: float | None, info: ValidationInfo) -> float | None:
        status = info.data.get("judge_status")
        if status is not None and (status == "ok") != (v is not None):
            raise ValueError(f"score {v!r} with judge_status {status!r}: status is 'ok' exactly when score is not null")
        return v

    @field_validator("label")
    @classmethod
    def _label_agrees_with_score(cls, v: str | None, info: ValidationInfo) -> str | None:
        if "score" not in info.data:  # score itself was invalid; that error is reported already
            return v
        score = info.data["score"]
        expected = None if score is None else LABEL_OF_SCORE[score]
        if v != expected:
            raise ValueError(f"label {v!r} does not match score {score!r} (expected {expected!r})")
        return v


class ModerationRecord(Record):
    """One moderator's flag / do-not-flag decision on one item (paper 2)."""

    schema_version: SchemaVersion = "1.0"
    submission_id: SafeId
    moderator_id: ModelId
    benchmark: SuiteName
    item_id: NonEmptyStr
    gold: Literal["flag", "no_flag"]
    decision: Optional[Literal["flag", "no_flag"]]
    p_flag_logprob: Optional[float] = Field(ge=0, le=1)
    confidence_verbal: Optional[float] = Field(ge=0, le=1)
    raw_output: Optional[str]
    prompt_variant: NonEmptyStr = "default"
    toolkit_version: Optional[str] = None

    @field_validator("p_flag_logprob", "confidence_verbal", mode="before")
    @classmethod
    def _finite(cls, v):
        if v is not None and isinstance(v, float) and math.isnan(v):
            raise ValueError("must be a number in [0, 1] or null, not NaN")
        return v
