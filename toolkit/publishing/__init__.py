"""Publishing: dataset layout, card rendering, the local-folder hub, submit."""
from .card import render_card
from .layout import configs, item_file, judge_slug, suite_configs
from .local_folder import LocalFolderHub
from .rebuild import leaderboard_table, read_item_scores
from .submit import PreparedSubmission, SubmitResult, prepare_submission, rebuild_shared_files, submit

__all__ = [
    "render_card",
    "configs",
    "item_file",
    "judge_slug",
    "suite_configs",
    "LocalFolderHub",
    "leaderboard_table",
    "read_item_scores",
    "PreparedSubmission",
    "SubmitResult",
    "prepare_submission",
    "rebuild_shared_files",
    "submit",
]
