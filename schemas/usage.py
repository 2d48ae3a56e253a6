"""What a run spent: one row per answer or judgment (the run's usage ledger) and the totals of a stage (cost.json,
the manifest's ``cost`` map). Kept beside the published records, never inside them: a re-judged item must give
the same ItemRecord bytes whatever its request cost."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from ._common import Record

USAGE_STAGES = ("generation", "judgment")
#: where token counts come from: the server's ``usage`` of the reply, the backend's own count, a tokenizer run
#: here (the judge's, where a server gives none), or nowhere (a local judge reads no tokens)
TokenSource = Literal["server", "backend", "tokenizer", "none"]


class UsageRecord(Record):
    """One answer or judgment: what it took. A cache answer costs no request and no tokens (``cache_hit``)."""

    stage: Literal["generation", "judgment"] = Field(description="generation (an answer) or judgment (a verdict)")
    producer: str = Field(description="the backend (generation) or the judge id (judgment)")
    suite: str = Field(description="the item's suite")
    item_id: str = Field(description="the item's id")
    prompt_tokens: Optional[int] = Field(None, ge=0, description="input tokens of the request (null: unknown)")
    output_tokens: Optional[int] = Field(None, ge=0, description="output tokens of the reply (null: unknown)")
    tokens_from: TokenSource = Field("none", description="where the token counts come from")
    seconds: float = Field(ge=0, description="wall seconds of the request, or the item's share of its batch")
    requests: int = Field(0, ge=0, description="HTTP requests sent for it, retries included (0: local or cached)")
    cache_hit: bool = Field(False, description="the judge's cache answered: nothing was sent")
    batch_api: bool = Field(False, description="sent in a Batch API job (its price, where one is known)")
    device: Optional[str] = Field(None, description="where it ran: the backend's device, or the judge's server")


class Price(Record):
    """US dollars per million tokens, with where and when the figure was read."""

    input_per_1m: float = Field(ge=0, description="USD per 1M input tokens")
    output_per_1m: float = Field(ge=0, description="USD per 1M output tokens")
    source: str = Field(description="the page the price was read from, or 'given' (--price)")
    read_on: Optional[str] = Field(None, description="the date it was read (ISO 8601)")


class StageCost(Record):
    """The totals of one stage of a run: the generation, or one judge."""

    items: int = Field(0, ge=0, description="answers or judgments counted")
    requests: int = Field(0, ge=0, description="HTTP requests sent, retries included")
    cache_hits: int = Field(0, ge=0, description="judgments the cache answered")
    prompt_tokens: int = Field(0, ge=0, description="input tokens sent")
    output_tokens: int = Field(0, ge=0, description="output tokens received")
    unknown_tokens: int = Field(0, ge=0, description="items whose token counts are unknown")
    seconds: float = Field(0.0, ge=0, description="seconds spent, summed over the items: each request's own (concurrent "
                                                  "requests overlap: wall time is less), or each item's share of its batch")
    usd: Optional[float] = Field(None, ge=0, description="US dollars at ``price``; null when no price is known")
    price: Optional[Price] = Field(None, description="the price used (batch price for Batch API requests)")
    batch_price: Optional[Price] = Field(None, description="the Batch API price used for Batch API requests")
