"""One evaluation request: a small JSON file in the board's requests dataset.

Every field is validated before a file is written or after one is read (a Hub id, a 40-hex commit, a
known status, plain one-line text), so no request can carry markup or a path into the Space or the
dataset: the file's path is made from the validated id and commit only.
"""
from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolkit.core.errors import SlmboardError, pydantic_errors
from toolkit.core.request_policy import HUB_ID

STATUSES = ("pending", "running", "finished", "failed")
OPEN = ("pending", "running")
COMMIT = re.compile(r"^[0-9a-f]{40}$")
#: Hub user names, worker names: no spaces, no markup.
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,95}$")
REQUESTS_DIR = "requests"


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def age_s(stamp: str | None) -> float:
    if not stamp:
        return float("inf")
    then = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return (datetime.now(timezone.utc) - then).total_seconds()


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:500]


class EvalRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="the Hub id of the requested model")
    commit: str = Field(description="the model's revision, resolved to a commit when filed")
    revision: str = Field("main", description="the revision as the user wrote it")
    status: Literal["pending", "running", "finished", "failed"] = "pending"
    who: str = Field(description="the Hub user who filed it (whoami)")
    when: str = Field(description="when it was filed, UTC")
    params: Optional[int] = Field(None, description="parameters, from the safetensors metadata")
    worker: Optional[str] = None
    heartbeat: Optional[str] = None
    attempts: int = 0
    submission_id: Optional[str] = None
    reason: Optional[str] = Field(None, description="why it failed (one line)")
    pull_request: Optional[int] = Field(None, description="the pull request it was filed as, when the filer could not write")
    log: list[str] = Field(default_factory=list, description="what happened to it, one line per event")

    @field_validator("model")
    @classmethod
    def _hub_id(cls, v: str) -> str:
        if not HUB_ID.match(v):
            raise ValueError(f"{v!r} is not a Hub model id (ORG/NAME)")
        return v

    @field_validator("commit")
    @classmethod
    def _commit(cls, v: str) -> str:
        if not COMMIT.match(v):
            raise ValueError("not a 40-hex commit")
        return v

    @field_validator("revision")
    @classmethod
    def _revision(cls, v: str) -> str:
        if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_./-]{0,199}$", v) or ".." in v:
            raise ValueError(f"{v!r} is not a revision name")
        return v

    @field_validator("who", "worker")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        if v is not None and not NAME.match(v):
            raise ValueError(f"{v!r} is not a user or worker name")
        return v

    @field_validator("reason")
    @classmethod
    def _reason(cls, v: str | None) -> str | None:
        return _one_line(v) if v is not None else None

    @property
    def path(self) -> str:
        return request_path(self.model, self.commit)

    def noted(self, line: str, **changes) -> "EvalRequest":
        """A copy with ``changes`` and one more log line (stamped)."""
        return self.model_copy(update={**changes, "log": [*self.log, f"{now()} {_one_line(line)}"]})

    def to_bytes(self) -> bytes:
        return (json.dumps(self.model_dump(mode="json", exclude_none=True), indent=1) + "\n").encode()


def request_path(model: str, commit: str) -> str:
    org, name = model.split("/")
    return f"{REQUESTS_DIR}/{org}/{name}@{commit}.json"


def parse_request(data: bytes, where: str) -> EvalRequest:
    try:
        request = EvalRequest.model_validate(json.loads(data))
    except (ValueError, TypeError) as exc:
        if isinstance(exc, ValidationError):
            raise SlmboardError("; ".join(str(e) for e in pydantic_errors(exc, where, None))) from None
        raise SlmboardError(f"{where}: not a JSON request: {exc}") from None
    if request.path != where.split("#")[0] and where.startswith(REQUESTS_DIR + "/"):
        raise SlmboardError(f"{where}: its model and commit belong at {request.path}")
    return request
