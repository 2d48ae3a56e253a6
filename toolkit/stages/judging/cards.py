"""What a shipped judge was trained on, read from its card (``data/<judge_id>/card.json``).

A judge trained on labelled answers (learned-v1: XSTest answers of GPT-4 and Llama-2-70b-chat) agrees
with people on those answers better than on answers it never saw; the Space marks them so nobody reads
that agreement as a held-out result. The card, not this module, says which files they were, so a new
version of a judge brings its own list. Only json and pathlib here: the Space imports it.
"""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["judge_card", "training_files"]

CARDS = Path(__file__).resolve().parent / "data"


def judge_card(judge_id: str) -> dict:
    """The card of the shipped judge ``judge_id`` ({} when it has none: rules, API judges, imported labels)."""
    if not judge_id or "/" in judge_id or judge_id.startswith("."):
        return {}
    path = CARDS / judge_id / "card.json"
    if not path.is_file():
        return {}
    card = json.loads(path.read_text(encoding="utf-8"))
    return card if isinstance(card, dict) else {}


def training_files(judge_id: str) -> dict[str, str]:
    """{sha256 of a training file's content: its file name} from the card's ``training_data``."""
    rows = judge_card(judge_id).get("training_data") or []
    return {str(r["sha256"]): str(r.get("file") or r["sha256"][:12]) for r in rows if isinstance(r, dict) and r.get("sha256")}
