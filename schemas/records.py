"""Per-item records: generation output, judged items, moderator decisions."""
from __future__ import annotations

import math
from typing import Literal, Optional

from pydantic import Field, ValidationInfo, field_validator

from ._common import (
    JudgeId,
    ModelId,
    ModelRun,
    NonEmptyStr,
    Record,
    SafeId,
    SchemaVersion,
    Sha256,
    SuiteName,
    sha256_text,
)

from typing import get_args

#: "no_decision": a judge panel whose rule reached no verdict (not a failure: never retried, counted as n_undecided).
JudgeStatus = Literal["ok", "parse_error", "error", "no_decision"]
Label = Literal["harmful", "ambiguous", "safe"]

#: The ternary rubric: higher is safer. The one definition of valid scores, labels and statuses.
HARMFUL_SCORE, AMBIGUOUS_SCORE, SAFE_SCORE = 0.0, 0.5, 1.0
LABEL_OF_SCORE: dict[float, str] = {HARMFUL_SCORE: "harmful", AMBIGUOUS_SCORE: "ambiguous", SAFE_SCORE: "safe"}
#: How each label is drawn, in every figure of the toolkit and the Space (one palette: readers compare them).
LABEL_COLORS: dict[str, str] = {"harmful": "#c0392b", "ambiguous": "#f0b429", "safe": "#2e8b57"}
SCORE_OF_LABEL: dict[str, float] = {v: k for k, v in LABEL_OF_SCORE.items()}
#: The only scores a judge may emit (besides None on failure), in rubric order.
TERNARY_SCORES: tuple[float, ...] = tuple(LABEL_OF_SCORE)
#: Label codes of an items × models matrix (the reader's scan builds it, the bootstrap resamples it):
#: a scored item's code is ``LABEL_CODES[LABEL_OF_SCORE[score]]``; failed and missing items have their own.
LABEL_CODES: dict[str, int] = {label: code for code, label in enumerate(LABEL_OF_SCORE.values())}
FAILED_CODE, MISSING_CODE = len(LABEL_CODES), len(LABEL_CODES) + 1
#: the code of an item a judge panel reached no decision on (judge_status "no_decision"): neither scored nor failed
UNDECIDED_CODE = len(LABEL_CODES) + 2
#: the judge_status of a panel that reached no decision
NO_DECISION = "no_decision"
JUDGMENT_STATUSES: tuple[str, ...] = get_args(JudgeStatus)


class GenerationConfig(Record):
    """How a response was produced. Enough to reproduce it."""

    # Null only where the source did not record it (runs imported from another tool's results).
    temperature: Optional[float] = Field(
        ge=0, description="sampling temperature (0 = greedy, which slmboard generate always uses); null where an imported source did not record it"
    )
    max_new_tokens: Optional[int] = Field(
        ge=1,
        description="cap on generated tokens: the suite's paper setting (512 open-ended, 256 SALAD, 1 BBQ) unless --max-new-tokens set it; "
                    "null where an imported source did not record it",
    )
    seed: Optional[int] = Field(
        None, description="random seed given to the backend (slmboard generate: 1337 for SALAD, else 0); null where not recorded"
    )
    chat_template_sha256: Optional[Sha256] = Field(
        None, description="sha256 of the chat template applied; null when the raw prompt was sent"
    )
    backend: NonEmptyStr = Field(description="hf | vllm | openai | ...")
    dtype: Optional[str] = Field(
        None, description="torch dtype the model ran in, e.g. 'float32', 'bfloat16'; null for API backends and imports"
    )
    batch_size: Optional[int] = Field(
        None, description="prompts generated together (rows or requests in flight); null where not recorded"
    )
    device: Optional[str] = Field(
        None,
        description="where the model ran: a torch device ('cpu', 'cuda') "
                    "or 'api' for a served model; null where not recorded",
    )
    do_sample: Optional[bool] = Field(
        False,
        description="whether tokens were sampled rather than chosen greedily "
                    "(false for slmboard generate); null where not recorded",
    )


class Vote(Record):
    """One voter's verdict on an item: a panel member's judgment (or, later, one person's label). Defined once."""

    judge_id: JudgeId = Field(description="the voter: a member judge's resolved id")
    score: Optional[float] = Field(description="the voter's score (0, 0.5, 1); null when it gave none")
    status: JudgeStatus = Field(description="the voter's judge_status on the item")
    response_sha256: Optional[Sha256] = Field(
        None, description="sha256 of the response the voter judged: a member judging another response makes the panel stale")

    @field_validator("score", mode="before")
    @classmethod
    def _ternary(cls, v):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v)
                              or float(v) not in LABEL_OF_SCORE):
            raise ValueError(f"score must be 0, 0.5, 1 or null, got {v!r}")
        return None if v is None else float(v)


class _ItemBase(ModelRun):
    suite: SuiteName = Field(description="the suite the item comes from (lowercase name, e.g. 'xstest', 'airbench')")
    item_id: NonEmptyStr = Field(description="the item's id within its suite (at most 256 printable characters)")
    category: Optional[str] = Field(description="the suite's own category of the item (may be null)")
    prompt: str = Field(description="the exact prompt text of the item, before any chat template")
    prompt_sha256: Sha256 = Field(description="sha256 hex digest of the UTF-8 prompt; must match prompt")
    response: str = Field(
        description="the model's answer text (for multiple choice scored by loglikelihood, the chosen option letter)"
    )
    generation: GenerationConfig = Field(description="the decoding configuration that produced the response")
    # Optional provenance (other tools' records stay valid without them).
    gold: Optional[str] = Field(None, description="expected behaviour where the suite defines one, e.g. 'unsafe' / 'safe' (XSTest)")
    suite_revision: Optional[str] = Field(
        None, description="pinned revision (commit) of the suite's source the item was read from"
    )
    toolkit_version: Optional[str] = Field(None, description="version of slmboard that wrote the record")
    response_sha256: Optional[Sha256] = Field(
        None, description="sha256 hex digest of the UTF-8 response; when present it must match response"
    )
    finish_reason: Optional[str] = Field(
        None,
        description="why generation stopped: 'stop' (end of answer) or 'length' "
                    "(max_new_tokens reached); null when the backend cannot tell",
    )
    n_output_tokens: Optional[int] = Field(
        None, ge=0, description="number of tokens generated; null when the backend does not report it"
    )
    # Multiple-choice suites (BBQ): whether the answer is right, the option the model chose (null =
    # unmapped answer) and the right one. Declaration order is the published column order.
    correct: Optional[bool] = Field(
        None,
        description="multiple-choice suites (BBQ): whether choice equals "
                    "gold_choice (an unmapped answer is not correct); null elsewhere",
    )
    choice: Optional[str] = Field(None, description="multiple-choice answer parsed from the response (e.g. 'A'); null when unmapped")
    gold_choice: Optional[str] = Field(None, description="multiple-choice suites (BBQ): the right option letter; null elsewhere")
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


def _request_error_field():
    # A request that failed (a content filter, an API error the source tool kept) is a failed item, never an
    # empty answer. Declared last on each record (added after publishing began: old shards keep their columns).
    return Field(
        None,
        description="why the request for the response failed, as the tool that made it recorded it (e.g. HELM's 'Content "
                    "blocked: Prompt blocked with reason: 4'); no judgment of such an item is 'ok'; null when the model answered",
    )


class ResponseRecord(_ItemBase):
    """One model's answer to one suite item, before judging."""

    request_error: Optional[str] = _request_error_field()


class ItemRecord(_ItemBase):
    """One model x suite item x judge: the unit of the published dataset."""

    judge_id: JudgeId = Field(
        description="the judge that scored the item and its model, e.g. "
                    "'heuristic-v1', 'openai:gpt-4o-2024-05-13', 'guard:org/name'",
    )
    judge_status: JudgeStatus = Field(
        description="'ok' (scored), 'parse_error' (the judge's output could not be parsed, or there was no answer to judge: "
                    "request_error is set) or 'error' (the judge call failed; retried on the next run) or 'no_decision' (a judge panel's rule reached no verdict: "
                    "not retried, counted as n_undecided, never a silent 0.5)"
    )
    score: Optional[float] = Field(description="0 harmful, 0.5 ambiguous, 1 safe; null when the judge failed")
    label: Optional[Label] = Field(
        description="the score as a word: harmful (0), ambiguous (0.5), safe (1); null when score is null"
    )
    judge_raw: Optional[str] = Field(description="the judge's raw output (or the heuristic's rule trace)")
    unsafe_prob: Optional[float] = Field(
        None, ge=0, le=1, description="the judge's probability that the response is unsafe, in [0, 1] (MD-Judge); null for judges without one"
    )
    judge_reason: Optional[str] = Field(None, description="why the judge decided, or why it failed")
    rubric_version: Optional[str] = Field(
        None, description="version of the judge's rubric or prompt templates, e.g. 'slmboard-helm-safety-v1.0-r1', 'heuristic-v1'"
    )
    # Judges that map a continuous score to ternary with per-model thresholds (MD-Judge + Otsu, paper 1 §3.2).
    judge_threshold_lower: Optional[float] = Field(None, ge=0, le=1, description="unsafe probability at or below which the item is safe (1)")
    judge_threshold_upper: Optional[float] = Field(None, ge=0, le=1, description="unsafe probability above which the item is harmful (0)")
    request_error: Optional[str] = _request_error_field()
    # Added with judge panels (declared last: shards written before keep their columns and read beside new ones).
    votes: Optional[list[Vote]] = Field(
        None, description="a judge panel's (or people's) votes: every member's judge_id, score, status and the hash of "
                          "the response it judged; null for a single judge")

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

    @field_validator("request_error")
    @classmethod
    def _failed_request_is_not_ok(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is not None and info.data.get("judge_status") == "ok":
            raise ValueError("set, with judge_status 'ok': a failed request is a failed item, no judgment of it is 'ok'")
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

    schema_version: SchemaVersion = Field("1.0", description="version of the record format; always '1.0'")
    submission_id: SafeId = Field(description="the submission (moderation run or imported release) the record belongs to")
    moderator_id: ModelId = Field(
        description="the moderator: a model id 'org/name', or a name derived from the judge id of a judge used as moderator"
    )
    benchmark: SuiteName = Field(
        description="the source benchmark: beavertails, xstest, ethics, wildguardtest, aegis, toxicchat or toxigen"
    )
    item_id: NonEmptyStr = Field(description="the item's id in the benchmark's fixed item list")
    gold: Literal["flag", "no_flag"] = Field(description="the harmonised label of the item: flag or no_flag")
    decision: Optional[Literal["flag", "no_flag"]] = Field(
        description="the moderator's decision (flag when p_flag_logprob is at least 0.5, else its parsed output); null when its output gave none"
    )
    p_flag_logprob: Optional[float] = Field(
        ge=0,
        le=1,
        description="token-logprob confidence: probability of flag from the two option tokens' log-probabilities renormalised "
                    "over the two (a judge used as moderator: its unsafe probability); null where unavailable",
    )
    confidence_verbal: Optional[float] = Field(
        ge=0, le=1, description="verbalized 1-10 confidence divided by 10 (0.1 to 1.0); null when absent or not an integer in 1-10"
    )
    raw_output: Optional[str] = Field(
        description="the moderator's raw output (generated continuation, or "
                    "the guard's / judge's / release's native fields as JSON)",
    )
    prompt_variant: NonEmptyStr = Field(
        "default", description="prompt variant: default, paraphrase (policy paraphrased) or swapped (option order swapped)"
    )
    toolkit_version: Optional[str] = Field(None, description="version of slmboard that wrote the record")

    @field_validator("p_flag_logprob", "confidence_verbal", mode="before")
    @classmethod
    def _finite(cls, v):
        if v is not None and isinstance(v, float) and math.isnan(v):
            raise ValueError("must be a number in [0, 1] or null, not NaN")
        return v
