"""Publishing: dataset layout, card rendering, the local-folder and Hub publishers, submit, recompute."""
from .card import render_card
from .layout import configs, item_file, judge_slug, suite_configs
from .hub import HubPublisher, parse_target
from .local_folder import LocalFolderHub
from .submit import PreparedSubmission, SubmitResult, prepare_submission, rebuild_shared_files, submit

__all__ = [
    "render_card",
    "configs",
    "item_file",
    "judge_slug",
    "suite_configs",
    "LocalFolderHub",
    "HubPublisher",
    "parse_target",
    "PreparedSubmission",
    "SubmitResult",
    "prepare_submission",
    "rebuild_shared_files",
    "submit",
]
