"""What ``evaluate`` and ``evaluate_models`` are told besides the runs, the board, the model and the judge: the
options of the three steps and of where the work runs, one object each (:func:`toolkit.api.evaluate`). Pydantic
only."""
from __future__ import annotations

from pydantic import Field

from toolkit.core.registry import Options
from toolkit.outputs.publishing.options import SubmitOptions
from toolkit.stages.executors.base import FanoutOptions
from toolkit.stages.generation.components import GenerationRunOptions
from toolkit.stages.judging.components import JudgingRunOptions

__all__ = ["EvaluationOptions"]


class EvaluationOptions(Options):
    """generate → judge → submit: each step's options (the suites judged are the ones generated, and submit checks
    against the data folder generated from, so ``judging.suites`` and ``submission.data_dir`` stay unset)."""

    generation: GenerationRunOptions = Field(default_factory=GenerationRunOptions,
                                             description="the generate step's options")
    judging: JudgingRunOptions = Field(default_factory=JudgingRunOptions, description="the judge step's options")
    submission: SubmitOptions = Field(default_factory=SubmitOptions, description="the submit step's options")
    execution: FanoutOptions = Field(default_factory=FanoutOptions, description="where the work runs (executor, shards)")
