"""What the moderation calls are told besides their targets: the reliability report
(:func:`toolkit.api.moderation_report`), an item list's draw (:func:`toolkit.api.build_moderation_list`) and an
import of released outputs (:func:`toolkit.api.import_released_moderation`). ``moderate``'s own are
:class:`~toolkit.stages.moderation.components.ModerationRunOptions`. Pydantic only."""
from __future__ import annotations

from typing import Optional

from toolkit.core.defaults import MODERATION_N_BOOTSTRAP
from toolkit.core.registry import Options, option

__all__ = ["ModerationReportOptions", "ModerationListOptions", "ReleasedModerationOptions"]


class ModerationReportOptions(Options):
    n_bootstrap: int = option(MODERATION_N_BOOTSTRAP, help="bootstrap resamples for the 95% bounds", flag="--bootstrap",
                              ge=0, metavar="N")
    n_splits: int = option(20, help="random fit/eval halves for temperature scaling", flag="--splits", ge=1)
    seed: int = option(0, help="seed of the bootstrap, the splits and the subsamples")
    stability_repeats: int = option(100, help="subsample draws per size (n = 50, 100, 150)", ge=1)
    figures: bool = option(True, help="draw the figures (they need matplotlib; the tables are written either way)")


class ModerationListOptions(Options):
    n_per_class: int = option(100, help="items per class of the list", flag="--per-class", ge=1, metavar="N")
    rule: str = option("random", help="which items of each class: a seeded random sample, or the first in source order",
                       choices=("random", "first"))
    seed: int = option(0, help="seed of the random sample")


class ReleasedModerationOptions(Options):
    moderator_id: Optional[str] = option(None, help="the moderator id to record (default: from the file names)")
