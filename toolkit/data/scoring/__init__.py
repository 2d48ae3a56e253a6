"""Scoring: ternary summaries, ambiguity policies, ranks, bootstrap, judge agreement (numpy/pandas only,
never torch). Pure math over arrays and frames already read and checked: the data layer
(:mod:`toolkit.data.reading`) reads records and calls it, never the other way round."""
from .bbq import bbq_metrics
from .bootstrap import paired_bootstrap, rank_upper_bound
from .consistency import policy_rank_correlations, suite_instability, suite_rank_correlations
from .identity import model_key, model_keys, model_label, models_with_several_revisions
from .leaderboard import LEADERBOARD_COLUMNS, assemble_leaderboard, empty_leaderboard, leaderboard_rows, rank_group
from .ranks import competition_rank, rank_range
from .ternary import counts_from_scores, rates

__all__ = [
    "LEADERBOARD_COLUMNS",
    "assemble_leaderboard",
    "empty_leaderboard",
    "rank_group",
    "leaderboard_rows",
    "model_key",
    "model_keys",
    "model_label",
    "models_with_several_revisions",
    "competition_rank",
    "rank_range",
    "rates",
    "counts_from_scores",
    "paired_bootstrap",
    "rank_upper_bound",
    "bbq_metrics",
    "suite_rank_correlations",
    "policy_rank_correlations",
    "suite_instability",
]
