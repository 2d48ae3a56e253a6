"""What a command uses when it is not told: each default named once (a leaf: imports nothing).

Signatures, options models and flags all read these, so ``slmboard rank --bootstrap`` and
``api.RankOptions(n_bootstrap=...)`` cannot drift apart.
"""
from __future__ import annotations

#: Paired bootstrap resamples behind every leaderboard interval.
N_BOOTSTRAP = 1000
#: Bootstrap resamples behind the moderation report's 95% bounds.
MODERATION_N_BOOTSTRAP = 2000
#: The judge when none is named: offline, and not comparable with reported results.
DEFAULT_JUDGE = "heuristic"
#: The suites a run answers when none is named: the 30-prompt smoke suite (a check, not a benchmark).
DEFAULT_SUITES: tuple[str, ...] = ("smoke",)
#: The generation backend when none is named: the embedded SmolLM2 on this machine.
DEFAULT_BACKEND = "hf"
#: The moderator when none is named: the embedded SmolLM2 asked the two-option prompt.
DEFAULT_MODERATOR = "hf"
#: Where a run's work runs when not told: this process, unsharded.
DEFAULT_EXECUTOR = "local"
