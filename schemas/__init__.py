"""slmboard's record contracts (pydantic v2 only; imports nothing else of the project)."""
from ._common import SCHEMA_VERSION, check_judge_id, sha256_text
from .leaderboard import POLICIES, POLICY_VALUE, LeaderboardRow
from .records import (
    FAILED_CODE,
    LABEL_CODES,
    AMBIGUOUS_SCORE,
    HARMFUL_SCORE,
    LABEL_COLORS,
    LABEL_OF_SCORE,
    SAFE_SCORE,
    MISSING_CODE,
    NO_DECISION,
    UNDECIDED_CODE,
    Vote,
    JUDGMENT_STATUSES,
    SCORE_OF_LABEL,
    TERNARY_SCORES,
    GenerationConfig,
    ItemRecord,
    ModerationRecord,
    ResponseRecord,
)
from .usage import Price, StageCost, UsageRecord
from .submission import INDEX_FIELDS, ITEM_KINDS, Architecture, describe_kinds, RecordFile, Submission, SubmissionIndexRow

#: Models whose JSON Schema is exported next to this file as ``<name>.schema.json``.
EXPORTED_MODELS = {
    "ItemRecord": ItemRecord,
    "ResponseRecord": ResponseRecord,
    "ModerationRecord": ModerationRecord,
    "Submission": Submission,
    "LeaderboardRow": LeaderboardRow,
    "UsageRecord": UsageRecord,
}

__all__ = [
    "SCHEMA_VERSION",
    "POLICIES",
    "POLICY_VALUE",
    "AMBIGUOUS_SCORE",
    "HARMFUL_SCORE",
    "LABEL_COLORS",
    "LABEL_OF_SCORE",
    "SAFE_SCORE",
    "LABEL_CODES",
    "FAILED_CODE",
    "MISSING_CODE",
    "UNDECIDED_CODE",
    "NO_DECISION",
    "Vote",
    "SCORE_OF_LABEL",
    "TERNARY_SCORES",
    "JUDGMENT_STATUSES",
    "Architecture",
    "GenerationConfig",
    "ItemRecord",
    "LeaderboardRow",
    "ModerationRecord",
    "RecordFile",
    "ResponseRecord",
    "Submission",
    "UsageRecord",
    "StageCost",
    "Price",
    "SubmissionIndexRow",
    "INDEX_FIELDS",
    "ITEM_KINDS",
    "describe_kinds",
    "EXPORTED_MODELS",
    "sha256_text",
    "check_judge_id",
]
