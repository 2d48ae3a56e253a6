"""File-name-safe forms of ids (shared by the run folder and the dataset layout)."""
from __future__ import annotations

import re


def judge_slug(judge_id: str) -> str:
    """A file-name-safe form of a judge id ('openai:gpt-4o' → 'openai-gpt-4o')."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", judge_id).strip("-.") or "judge"
