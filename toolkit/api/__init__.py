"""The Python API: each pipeline stage as one typed function (every CLI command is a thin shell over these).

    from toolkit import api
    run = api.generate("runs/smol", options=api.GenerationRunOptions(suites="smoke", limit=5))
    api.judge("runs/smol", judge=api.JudgeSpec("openai:gpt-4o-2024-05-13", concurrency=16))
    api.validate("runs/smol").raise_if_failed()
    api.create("./my-dataset")                      # a board is created on purpose (board.yaml, card)
    api.submit("runs/smol", to="./my-dataset")
    board = api.rank("./my-dataset")

Every function takes its target(s) (paths, a dataset, a board), the component it runs (``model``, ``judge``: a spec
string, a typed spec such as :class:`JudgeSpec`, :class:`BackendSpec`, :class:`ModeratorSpec`, or a built one),
its options as objects (pydantic models such as :class:`GenerationRunOptions`, :class:`SubmitOptions`; an unknown
option is refused by name) and ``services`` (:class:`Services`: the Hugging Face token, progress bars, where a
line is said). The functions live by what a caller does -- :mod:`.running`, :mod:`.judging`, :mod:`.boards`,
:mod:`.interop`, :mod:`.moderation`, :mod:`.evaluation_requests` -- and are all here. The registries and option
models are re-exported too, so the command line needs nothing else. Every error meant for a user is a
:class:`~toolkit.core.errors.SlmboardError` (the CLI prints it and exits 1). Heavy modules are imported inside
the functions that need them.
"""
from __future__ import annotations

import importlib
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

from toolkit.core.defaults import (DEFAULT_BACKEND, DEFAULT_JUDGE, DEFAULT_MODERATOR, MODERATION_N_BOOTSTRAP,
                                   N_BOOTSTRAP)
from toolkit.core.errors import BadOption, RecordError, SlmboardError, ValidationFailed
from toolkit.core.registry import Component, Description, OptionInfo, Options, Registry, option_infos, parse_pairs
from toolkit.core.runs import NotARun, RunMismatch
from toolkit.core.services import Services, services_or_default
from toolkit.core.usage import cost_lines, read_cost

from .boards import (analyze, create, deploy_space, judge_sensitivity, read_items, rank, recipe, recompute, release, review,
                     serve, submit, validate)
from .evaluation_requests import list_requests, request_evaluation, work_requests
from .interop import download_suites, embedded_model_path, export, export_eee, export_eval_results, import_results, suite_list, task_folder
from .labelling import labels_export, labels_from_csv, labels_init, labels_progress, labels_publish
from .judging import agreement, agreement_with_people, estimate_judging, judge, not_comparable
from .moderation import build_moderation_list, import_released_moderation, moderate, moderation_report
from .running import demo, estimate_evaluation, evaluate, evaluate_models, generate, merge

#: The registries, specs and option models, served on first use: each loads its stage's package, which
#: validating or ranking never needs (and the command line builds only the parser of the command it runs).
_LAZY = {"SUITES": "toolkit.stages.suites", "JUDGES": "toolkit.stages.judging.components",
         "JudgeSpec": "toolkit.stages.judging.components", "JudgingRunOptions": "toolkit.stages.judging.components",
         "BACKENDS": "toolkit.stages.generation.components", "BackendSpec": "toolkit.stages.generation.components",
         "GenerationRunOptions": "toolkit.stages.generation.components",
         "MODERATORS": "toolkit.stages.moderation.components", "ModeratorSpec": "toolkit.stages.moderation.components",
         "ModerationRunOptions": "toolkit.stages.moderation.components",
         "MODERATION_BENCHMARKS": "toolkit.stages.moderation.sources", "FORMATS": "toolkit.stages.importing.components",
         "EXPORT_FORMATS": "toolkit.outputs.exporting.components", "SubmitOptions": "toolkit.outputs.publishing.options",
         "AlreadyPublished": "toolkit.outputs.publishing.submit", "FanoutOptions": "toolkit.stages.executors.base",
         "EvaluationOptions": "toolkit.workflows.fanout.options", "MergeOptions": "toolkit.stages.generation.merge_options",
         "DemoOptions": "toolkit.workflows.demo_board", "CreateOptions": "toolkit.outputs.publishing.options",
         "RecomputeOptions": "toolkit.outputs.publishing.options", "RecipeOptions": "toolkit.outputs.publishing.options",
         "ReleaseOptions": "toolkit.outputs.publishing.options", "RankOptions": "toolkit.data.reading.options",
         "JudgeSensitivityOptions": "toolkit.data.scoring.judge_sensitivity",
         "AnalyzeOptions": "toolkit.outputs.analysis.options", "ReviewOptions": "toolkit.outputs.reviewing",
         "ServeOptions": "toolkit.outputs.space_options", "DeploySpaceOptions": "toolkit.outputs.space_options",
         "ImportOptions": "toolkit.stages.importing.options", "EeeOptions": "toolkit.outputs.exporting.components",
         "EvalResultsOptions": "toolkit.outputs.exporting.components",
         "SuiteDownloadOptions": "toolkit.stages.suites.download_options",
         "ModerationReportOptions": "toolkit.stages.moderation.options",
         "ModerationListOptions": "toolkit.stages.moderation.options",
         "ReleasedModerationOptions": "toolkit.stages.moderation.options",
         "WorkRequestsOptions": "toolkit.workflows.requests.options", "RequestPolicy": "toolkit.core.request_policy",
         "LabelPolicy": "toolkit.core.label_policy", "LabelsOptions": "toolkit.outputs.labelling.options",
         "estimate_lines": "toolkit.stages.judging.estimate", "evaluation_lines": "toolkit.workflows.estimate"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    from toolkit.data.reading.options import RankOptions
    from toolkit.data.scoring.judge_sensitivity import JudgeSensitivityOptions
    from toolkit.outputs.analysis.options import AnalyzeOptions
    from toolkit.outputs.exporting.components import EXPORT_FORMATS, EeeOptions, EvalResultsOptions
    from toolkit.outputs.publishing.options import CreateOptions, RecomputeOptions, ReleaseOptions, SubmitOptions
    from toolkit.outputs.publishing.submit import AlreadyPublished
    from toolkit.outputs.reviewing import ReviewOptions
    from toolkit.outputs.space_options import DeploySpaceOptions, ServeOptions
    from toolkit.stages.executors.base import FanoutOptions
    from toolkit.stages.generation.components import BACKENDS, BackendSpec, GenerationRunOptions
    from toolkit.stages.generation.merge_options import MergeOptions
    from toolkit.stages.importing.components import FORMATS
    from toolkit.stages.importing.options import ImportOptions
    from toolkit.stages.judging.components import JUDGES, JudgeSpec, JudgingRunOptions
    from toolkit.stages.moderation.components import MODERATORS, ModerationRunOptions, ModeratorSpec
    from toolkit.stages.moderation.options import (ModerationListOptions, ModerationReportOptions,
                                                   ReleasedModerationOptions)
    from toolkit.stages.moderation.sources import MODERATION_BENCHMARKS
    from toolkit.stages.suites import SUITES
    from toolkit.stages.suites.download_options import SuiteDownloadOptions
    from toolkit.workflows.demo_board import DemoOptions
    from toolkit.workflows.fanout.options import EvaluationOptions
    from toolkit.workflows.requests.options import WorkRequestsOptions
    from toolkit.core.request_policy import RequestPolicy
    from toolkit.core.label_policy import LabelPolicy
    from toolkit.outputs.labelling.options import LabelsOptions

__all__ = ["generate", "judge", "validate", "create", "recipe", "release", "submit", "rank", "judge_sensitivity", "read_items",
           "serve", "demo", "merge", "agreement", "agreement_with_people", "analyze", "evaluate", "recompute", "moderate",
           "moderation_report",
           "import_released_moderation", "build_moderation_list", "evaluate_models", "request_evaluation",
           "work_requests", "list_requests", "labels_init", "labels_export", "labels_from_csv", "labels_progress",
           "labels_publish", "LabelPolicy", "LabelsOptions", "task_folder", "suite_list", "download_suites", "embedded_model_path", "export", "export_eee",
           "export_eval_results", "import_results", "review", "deploy_space", "components", "not_comparable",
           "JudgeSpec", "BackendSpec", "ModeratorSpec", "JUDGES", "BACKENDS", "MODERATORS", "SUITES", "FORMATS",
           "EXPORT_FORMATS", "MODERATION_BENCHMARKS", "GenerationRunOptions", "JudgingRunOptions", "SubmitOptions",
           "ModerationRunOptions", "FanoutOptions", "EvaluationOptions", "MergeOptions", "DemoOptions",
           "CreateOptions", "RecomputeOptions", "RecipeOptions", "ReleaseOptions", "RankOptions", "JudgeSensitivityOptions", "AnalyzeOptions", "ReviewOptions", "ServeOptions",
           "DeploySpaceOptions", "ImportOptions", "EeeOptions", "EvalResultsOptions", "SuiteDownloadOptions",
           "ModerationReportOptions", "ModerationListOptions", "ReleasedModerationOptions", "WorkRequestsOptions", "RequestPolicy",
           "Services", "MODERATION_N_BOOTSTRAP", "Options", "OptionInfo", "Registry", "Component", "Description",
           "N_BOOTSTRAP", "DEFAULT_JUDGE", "DEFAULT_BACKEND", "DEFAULT_MODERATOR", "ValidationFailed", "RecordError",
           "BadOption", "SlmboardError", "AlreadyPublished", "NotARun", "RunMismatch", "option_infos", "parse_pairs",
           "downloads_token",
           "estimate_judging", "estimate_lines", "estimate_evaluation", "evaluation_lines", "cost_lines", "read_cost"]


def components(kind: str) -> list[Description]:
    """What each component of ``kind`` ("suite", "judge", "model backend", "moderator backend", "moderation
    benchmark", "import format", "export format") is, with its options."""
    kinds = ("SUITES", "JUDGES", "BACKENDS", "MODERATORS", "MODERATION_BENCHMARKS", "FORMATS", "EXPORT_FORMATS")
    registries = {r.kind: r for r in map(__getattr__, kinds)}
    if kind not in registries:
        raise BadOption(f"unknown component kind {kind!r}; valid kinds: {', '.join(registries)}", param="kind")
    return [c.describe() for c in registries[kind].components()]


@contextmanager
def downloads_token(services: Services | None = None) -> Iterator[None]:
    """The token of ``services`` as HF_TOKEN while the block runs: model and benchmark downloads (transformers,
    lm-eval, datasets) and the processes started in it resolve it as huggingface_hub does; restored after (the
    CLI runs each command in it with the command's ``--token``)."""
    from toolkit.core.hub_access import downloads_token as as_hf_token

    with as_hf_token(services_or_default(services).token):
        yield
