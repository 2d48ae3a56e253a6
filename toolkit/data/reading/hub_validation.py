"""``validate`` of any DATA a reader takes by name: a local path, or ``hf://datasets/ORG/NAME[@REV]`` (the Hub
dataset, read from its snapshot; errors name its files as ORG/NAME[@REV]/PATH, never our cache)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from toolkit.core.dataset_ref import HUB_PREFIX
from toolkit.data.validation import ValidationReport, validate_path
from .locate import fetch_snapshot, parse_hub_id

__all__ = ["validate_data"]


def validate_data(data: str | Path, kind: str | None = None) -> ValidationReport:
    if not str(data).startswith(HUB_PREFIX):
        return validate_path(data, kind=kind)
    hub = parse_hub_id(str(data))
    root = fetch_snapshot(hub).root
    report = validate_path(root, kind=kind)

    def named(text: str) -> str:
        return text.replace(str(root) + "/", f"{hub}/").replace(str(root), str(hub))

    report.errors = [replace(e, file=named(e.file), message=named(e.message)) for e in report.errors]
    return report
