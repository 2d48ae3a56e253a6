"""Scoring: ternary summaries, ambiguity policies, ranks, bootstrap (numpy/pandas only, never torch)."""
from .bbq import bbq_metrics
from .bootstrap import paired_bootstrap, rank_upper_bound
from .consistency import policy_rank_correlations, suite_instability, suite_rank_correlations
from .leaderboard import LEADERBOARD_COLUMNS, compute_leaderboard, leaderboard_rows
from .ranks import competition_rank, rank_range
from .ternary import counts_from_scores, rates

__all__ = [
    "LEADERBOARD_COLUMNS",
    "compute_leaderboard",
    "leaderboard_rows",
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
