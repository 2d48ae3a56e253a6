"""Shared field types and validators for every record."""
from __future__ import annotations

import hashlib
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

SCHEMA_VERSION = "1.0"
SchemaVersion = Literal["1.0"]

# Names that end up in file paths or HTML: no path separators beyond one org/name slash,
# no "..", no whitespace or markup characters.
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$")
_MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._+-]{0,95})?$")
_SUITE = re.compile(r"^[a-z0-9][a-z0-9_]{0,63}$")
# Judge ids name a judge and its model ("heuristic-v1", "openai:gpt-4o-2024-05-13", "guard:org/name",
# "mdjudge:/models/md-judge", "human-xstest"): no whitespace, quotes or markup characters.
_JUDGE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/@+=-]{0,255}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _no_dotdot(value: str) -> str:
    if ".." in value:
        raise ValueError("must not contain '..'")
    return value


def _check(pattern: re.Pattern[str], what: str):
    def check(value: str) -> str:
        if not pattern.match(value):
            raise ValueError(f"{what} {value[:80]!r} must match {pattern.pattern}")
        return _no_dotdot(value)

    return check


SafeId = Annotated[str, AfterValidator(_check(_SAFE_ID, "identifier"))]
ModelId = Annotated[str, AfterValidator(_check(_MODEL_ID, "model id"))]
SuiteName = Annotated[str, AfterValidator(_check(_SUITE, "suite name"))]


def check_judge_id(value: str) -> str:
    """``value`` if it is a valid judge id; ValueError naming the pattern otherwise."""
    if not isinstance(value, str) or not _JUDGE_ID.match(value):
        raise ValueError(f"judge id {str(value)[:80]!r} must match {_JUDGE_ID.pattern}")
    return value


JudgeId = Annotated[str, AfterValidator(check_judge_id)]
Sha256 = Annotated[str, AfterValidator(_check(_SHA256, "sha256 hex digest"))]


def _nonblank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


NonEmptyStr = Annotated[str, AfterValidator(_nonblank)]


def sha256_text(text: str) -> str:
    """sha256 hex digest of the UTF-8 encoding of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_SURROGATE = re.compile("[\ud800-\udfff]")


def _no_lone_surrogates(value):
    # JSON allows "\ud800", but such a string cannot be encoded as UTF-8 (parquet, git, HTML).
    if isinstance(value, str) and _SURROGATE.search(value):
        raise ValueError("contains an unpaired UTF-16 surrogate (not encodable as UTF-8)")
    return value


class Record(BaseModel):
    """Base for every record: unknown fields are errors (a typo must not pass silently)."""

    model_config = ConfigDict(extra="forbid", frozen=False, validate_assignment=False)

    @field_validator("*", mode="after")
    @classmethod
    def _strings_are_utf8_encodable(cls, value):
        return _no_lone_surrogates(value)


class ModelRun(Record):
    """The fields that open both a per-item record and a submission manifest: which run of which model."""

    schema_version: SchemaVersion = Field("1.0", description="version of the format; always '1.0'")
    submission_id: SafeId = Field(
        description="the submission (run): names its manifest submissions/ID.json and appears on every record it published"
    )
    model_id: ModelId = Field(description="the evaluated model: a Hub id 'org/name' or a local model's name")
    model_revision: NonEmptyStr = Field(description="the pinned model revision: Hub commit sha, or content hash of a local model")
