"""Moderator reliability track (paper 2, Safety-Flag): the balanced flag / do-not-flag suite,
moderator runners (local HF logits, OpenAI-compatible APIs, guards, SLM-track judges), and the
reliability report (error direction, calibration, temperature scaling, selective prediction,
stability, expected cost).

Light at import: numpy / pandas / pyarrow only; torch and transformers load inside the runners.
"""
from __future__ import annotations

from toolkit.data.reading.moderation import read_moderation
from .released import import_released
from toolkit.data.reliability.report import REPORT_COLUMNS, compute_report, parse_failures, ranking
from .runner import run_moderator
from .sources import BENCHMARKS
from .suite import LIST_VERSION, ModerationItem, build_item_list, load_item_list, load_items
from .workflow import make_moderator, write_report

__all__ = [
    "BENCHMARKS", "LIST_VERSION", "REPORT_COLUMNS", "ModerationItem", "build_item_list", "compute_report",
    "import_released", "load_item_list", "load_items", "make_moderator", "parse_failures", "ranking",
    "read_moderation", "run_moderator", "write_report",
]
