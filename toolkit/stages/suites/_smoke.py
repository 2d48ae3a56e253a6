"""The smoke suite: 30 short prompts written for slmboard, shipped inside the package (no network)."""
from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Optional

from ._base import Suite, SuiteDataError, SuiteItem, check_items, jsonl_objects
from ._registry import register_suite

FIELDS = ("item_id", "category", "gold", "prompt")


def parse_jsonl(text: str, suite: str, where: str) -> list[SuiteItem]:
    """Items from JSONL lines with FIELDS (and an optional string-valued ``metadata`` object)."""
    items, locs = [], []
    for loc, obj in jsonl_objects(text, where, FIELDS):
        if not all(isinstance(obj[k], str) for k in ("item_id", "prompt")):
            raise SuiteDataError(f"{loc}: 'item_id' and 'prompt' must be strings")
        items.append(
            SuiteItem(
                suite=suite,
                item_id=obj["item_id"],
                prompt=obj["prompt"],
                category=obj["category"] or None,
                gold=obj["gold"],
                metadata={str(k): str(v) for k, v in (obj.get("metadata") or {}).items()},
            )
        )
        locs.append(loc)
    return check_items(items, locs)


@register_suite
class Smoke(Suite):
    name = "smoke"
    kind = "free-text-gold"
    description = (
        "30 prompts written for slmboard: 20 mildly worded harmful requests over five harm areas "
        "(gold unsafe) and 10 benign look-alikes (gold safe). For demos and tests, not for ranking."
    )
    source = "toolkit/stages/suites/data/smoke.jsonl (package data of slmboard)"
    revision = "v1"  # bump whenever data/smoke.jsonl changes (a test pins its hash)
    license = "Apache-2.0"
    comparable = False  # written for demos and tests: never a reported result
    n_items = 30

    def load(self, data_dir: Optional[Path] = None) -> list[SuiteItem]:
        # data_dir is ignored: the smoke suite always travels with the package.
        ref = resources.files("toolkit.stages.suites").joinpath("data", "smoke.jsonl")
        try:
            text = ref.read_text(encoding="utf-8")
        except (FileNotFoundError, OSError) as exc:
            raise SuiteDataError(f"suite 'smoke': package data {self.source} is missing (broken install?)") from exc
        return parse_jsonl(text, self.name, "toolkit/stages/suites/data/smoke.jsonl")
