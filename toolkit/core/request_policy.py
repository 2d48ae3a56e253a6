"""What a board accepts as an evaluation request, and what every accepted request is evaluated with.

Two parts of ``board.yaml``: :class:`RequestPolicy` (its ``requests:`` section: who may ask for what) and
:class:`EvaluationRecipe` (the board's suites, judges, decoding and limits, read as the evaluation every
request gets). Kept apart from the rest of the recipe so the queue reads only what it needs; a board.yaml
without a ``requests:`` section takes requests under the defaults below (a model of at most 4B
parameters, as paper 1 bounds an SLM, with a chat template).
"""
from __future__ import annotations

import re
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolkit.core.defaults import DEFAULT_JUDGE, DEFAULT_SUITES
from toolkit.core.errors import SlmboardError, pydantic_errors
from toolkit.core.options import comma_names, option

#: Paper 1 bounds a small language model at 4B parameters.
DEFAULT_MAX_PARAMS = 4_000_000_000
#: A Hub repo id as the Hub accepts it: ORG/NAME of letters, digits, '-', '_', '.' (no '..', no leading '.' or '-').
HUB_ID = re.compile(r"^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")


class RequestPolicy(BaseModel):
    """``board.yaml`` ``requests:`` — checked by ``slmboard request`` before a request is written."""

    model_config = ConfigDict(extra="forbid")

    dataset: Optional[str] = option(None, help="the requests dataset (default: the board's id + '-requests')",
                                    flag="--requests-dataset", metavar="ORG/NAME")
    max_params: int = option(DEFAULT_MAX_PARAMS, help="most parameters a requested model may have (from its "
                                                      "safetensors metadata)", ge=1, metavar="N")
    chat_template_required: bool = option(True, help="require a chat template of every requested model (its replies "
                                                     "are generated through it)", flag="--allow-no-chat-template")
    licenses: Optional[list[str]] = option(None, help="licences a model card may declare (unset: any)", metavar="A,B")
    per_user_per_day: int = option(5, help="requests one Hub user may file in 24 hours", ge=1, metavar="N")
    stale_after_s: int = option(600, help="a running request whose heartbeat is older is claimed again",
                                flag="--stale-after", ge=1, metavar="SECONDS")

    @field_validator("licenses", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        return comma_names(value) if isinstance(value, (str, list, tuple)) else value  # "A,B", or the flag repeated

    def requests_dataset(self, board: str) -> str:
        return self.dataset or f"{board}-requests"


class EvaluationRecipe(BaseModel):
    """The evaluation every request of a board gets: the board's suites, its first judge, decoding and limit."""

    model_config = ConfigDict(extra="forbid")

    suites: list[str] = Field(default_factory=lambda: list(DEFAULT_SUITES))
    judge: str = DEFAULT_JUDGE
    max_new_tokens: Optional[int] = Field(None, ge=1)
    limit: Optional[int] = Field(None, ge=1, description="items per suite; a limited recipe publishes partial runs")


def recipe_parts(board_yaml: dict[str, Any] | None, where: str) -> tuple[RequestPolicy, EvaluationRecipe]:
    """(policy, evaluation) of a board.yaml mapping (None: a board without one: the defaults)."""
    data = board_yaml or {}
    judges = data.get("judges") or []
    evaluation = {"suites": data.get("suites") or list(DEFAULT_SUITES), "judge": judges[0] if judges else DEFAULT_JUDGE,
                  "max_new_tokens": (data.get("decoding") or {}).get("max_new_tokens"),
                  "limit": (data.get("limits") or {}).get("items")}
    try:
        return RequestPolicy.model_validate(data.get("requests") or {}), EvaluationRecipe.model_validate(evaluation)
    except ValidationError as exc:
        raise SlmboardError("; ".join(str(e) for e in pydantic_errors(exc, where, None))) from None
