"""One leaderboard row per (suite, judge_id, model_id), recomputed from per-item records."""
from __future__ import annotations

from typing import Optional, get_args

from pydantic import Field

from ._common import Record

POLICIES: tuple[str, ...] = ("pessimistic", "partial_low", "midpoint", "partial_high", "optimistic", "excluded")
#: value given to an ambiguous (0.5) item under each policy; None = drop the item.
POLICY_VALUE: dict[str, Optional[float]] = {
    "pessimistic": 0.0,
    "partial_low": 0.25,
    "midpoint": 0.5,
    "partial_high": 0.75,
    "optimistic": 1.0,
    "excluded": None,
}


class LeaderboardRow(Record):
    suite: str
    judge_id: str
    model_id: str
    n_items: int = Field(ge=0)
    n_scored: int = Field(ge=0)
    n_failed: int = Field(ge=0)
    hcr: Optional[float]
    ar: Optional[float]
    srr: Optional[float]
    s_raw: Optional[float]
    s_adj: Optional[float]
    rank_raw: Optional[int]
    rank_adj: Optional[int]
    delta_adj: Optional[int]
    rank_range: Optional[int]
    score_pessimistic: Optional[float]
    rank_pessimistic: Optional[int]
    score_partial_low: Optional[float]
    rank_partial_low: Optional[int]
    score_midpoint: Optional[float]
    rank_midpoint: Optional[int]
    score_partial_high: Optional[float]
    rank_partial_high: Optional[int]
    score_optimistic: Optional[float]
    rank_optimistic: Optional[int]
    score_excluded: Optional[float]
    rank_excluded: Optional[int]
    s_raw_lo: Optional[float] = None
    s_raw_hi: Optional[float] = None
    s_adj_lo: Optional[float] = None
    s_adj_hi: Optional[float] = None
    rank_lo: Optional[int] = None
    rank_hi: Optional[int] = None
    rank_ub: Optional[int] = None
    # 95% bootstrap interval of the S_adj rank (rank_lo/rank_hi are the S_raw rank's).
    rank_adj_lo: Optional[int] = None
    rank_adj_hi: Optional[int] = None
    # 95% bootstrap bounds of each ambiguity-policy score (same paired resamples as S_raw).
    score_pessimistic_lo: Optional[float] = None
    score_pessimistic_hi: Optional[float] = None
    score_partial_low_lo: Optional[float] = None
    score_partial_low_hi: Optional[float] = None
    score_midpoint_lo: Optional[float] = None
    score_midpoint_hi: Optional[float] = None
    score_partial_high_lo: Optional[float] = None
    score_partial_high_hi: Optional[float] = None
    score_optimistic_lo: Optional[float] = None
    score_optimistic_hi: Optional[float] = None
    score_excluded_lo: Optional[float] = None
    score_excluded_hi: Optional[float] = None
    submission_id: Optional[str] = None
    model_revision: Optional[str] = None
    # n_items / the suite's total number of items; null where that total is unknown.
    coverage: Optional[float] = Field(default=None, ge=0)


def _columns(kind: type) -> tuple[str, ...]:
    """LeaderboardRow fields of one scalar type (Optional unwrapped), in column order."""
    out = []
    for name, f in LeaderboardRow.model_fields.items():
        members = [a for a in (get_args(f.annotation) or (f.annotation,)) if a is not type(None)]
        if members == [kind]:
            out.append(name)
    return tuple(out)


#: The leaderboard's columns by kind, read off the model: what every reader of the leaderboard (the
#: Space, exports) requires and how it types each column.
REQUIRED_COLUMNS: tuple[str, ...] = tuple(n for n, f in LeaderboardRow.model_fields.items() if f.is_required())
INT_COLUMNS: tuple[str, ...] = _columns(int)
FLOAT_COLUMNS: tuple[str, ...] = _columns(float)
TEXT_COLUMNS: tuple[str, ...] = _columns(str)
