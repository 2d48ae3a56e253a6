"""What ``slmboard labels BOARD`` is told: one action (none: the round's progress); the policy's fields are
:class:`~toolkit.core.label_policy.LabelPolicy`'s. Pydantic only."""
from __future__ import annotations

from typing import Any, Optional

from pydantic import field_validator, model_validator

from toolkit.core.options import comma_names
from toolkit.core.registry import Options, option
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP

__all__ = ["LabelsOptions"]


class LabelsOptions(Options):
    init: bool = option(False, help="write the labelling policy (the flags below) into the board's recipe and make the "
                                    "labels dataset beside the board")
    export: Optional[str] = option(None, help="write the answers that need votes as an offline round's CSV file",
                                   metavar="FILE.csv")
    from_csv: Optional[str] = option(None, help="store the labels of an offline round's CSV file (needs write access "
                                                "to the labels dataset)", flag="--from", metavar="FILE.csv")
    publish: bool = option(False, help="publish the answers with enough votes as the board's people judge "
                                       "(human-NAME-labels)")
    exclude: Optional[list[str]] = option(None, help="publish without this labeller's labels (a stored id, csv:NAME or "
                                                     "a pseudonym; repeatable)", metavar="USER")
    n_bootstrap: int = option(N_BOOTSTRAP, help="bootstrap resamples for the leaderboard intervals (0 = none)",
                              flag="--bootstrap", ge=0, metavar="N")

    @field_validator("exclude", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        return comma_names(value) if isinstance(value, (str, list, tuple)) else value

    @model_validator(mode="after")
    def _one_action(self) -> "LabelsOptions":
        chosen = [name for name in ("init", "export", "from_csv", "publish") if getattr(self, name)]
        if len(chosen) > 1:
            raise ValueError(f"one action at a time: {', '.join(chosen)} given together")
        if self.exclude and not self.publish:
            raise ValueError("exclude applies to publish only")
        return self
