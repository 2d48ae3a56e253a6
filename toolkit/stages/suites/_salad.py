"""SALAD-Bench (Li et al., 2024): the base set (21,318 questions) and the defense-enhanced set (200).

Source: the Hub dataset ``OpenSafetyLab/Salad-Data`` (files ``base_set.json``, ``defense_enhanced_set.json``;
each a JSON list of objects). Taxonomy: 6 domains (``1-category``) → 16 tasks (``2-category``) →
65 categories (``3-category``), each string carrying its own "O<n>: " prefix; all three are kept.

Revision: we could not resolve a commit sha of the Hub repo from this (offline) machine, so the
class pins the branch ``main``; when the file comes from the Hub cache, the commit it resolved to is
read from the cache path and recorded in every item's metadata (``source_commit``), so a record
always says exactly which bytes it came from.

Decoding for both SALAD suites is fixed by the generation runner (paper 1 §3.1: max_new_tokens 256,
seed 1337).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar, Optional

from ._base import Suite, SuiteDataError, SuiteItem, check_items, jsonl_objects
from ._fetch import fetch_hub_file
from ._sources import HubFiles
from ._registry import register_suite

REPO_ID = "OpenSafetyLab/Salad-Data"
MIRROR_DIR = "salad_bench"
LEVELS = ("1-category", "2-category", "3-category")
_SNAPSHOT = re.compile(r"/snapshots/([0-9a-f]{40})/")


def read_json_objects(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(location, object) for a JSON list file or a JSONL file."""
    text = path.read_text(encoding="utf-8-sig")
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SuiteDataError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from exc
        out = []
        for i, obj in enumerate(data):
            if not isinstance(obj, dict):
                raise SuiteDataError(f"{path}: element {i} is not a JSON object")
            out.append((f"{path} [element {i}]", obj))
        return out
    return jsonl_objects(text, str(path))


class _SaladSuite(Suite):
    filename: ClassVar[str]
    fields: ClassVar[tuple[str, ...]]
    license = "Apache-2.0"
    revision = "main"
    kind = "free-text"  # every SALAD question is harmful: no gold label to judge against

    def sources(self) -> list[HubFiles]:
        return [HubFiles(REPO_ID, (self.filename,), self.revision, MIRROR_DIR)]

    def locate(self, data_dir: Optional[Path]) -> Path:
        mirror_path = f"{MIRROR_DIR}/{self.filename}"
        if data_dir is None:
            return fetch_hub_file(REPO_ID, self.filename, suite=self.name, revision=self.revision, mirror_path=mirror_path)
        path = Path(data_dir) / mirror_path
        if not path.is_file():
            raise self.missing_data(f"expected its data at {path.resolve()}, which does not exist",
                                    f"hf://datasets/{REPO_ID}/{self.filename}", "put it there")
        return path

    def to_item(self, obj: dict[str, Any], commit: Optional[str]) -> SuiteItem:
        raise NotImplementedError

    def unsafe_item(self, obj: dict[str, Any], commit: Optional[str], item_id: str, prompt: str,
                    meta: dict[str, str]) -> SuiteItem:
        """The item of ``obj`` (every SALAD question is unsafe): its taxonomy, ``meta`` and the source commit as
        metadata, the domain as category."""
        metadata = {**self.taxonomy(obj), **meta}
        if commit:
            metadata["source_commit"] = commit
        return SuiteItem(suite=self.name, item_id=item_id, prompt=prompt, category=metadata["category_1"] or None,
                         gold="unsafe", metadata=metadata)

    def load(self, data_dir: Optional[Path] = None) -> list[SuiteItem]:
        path = self.locate(data_dir)
        m = _SNAPSHOT.search(path.resolve().as_posix()) or _SNAPSHOT.search(path.as_posix())
        commit = m.group(1) if m else None
        items, where = [], []
        for loc, obj in read_json_objects(path):
            missing = [f for f in self.fields if f not in obj]
            if missing:
                raise SuiteDataError(f"{loc}: missing field {', '.join(repr(f) for f in missing)}")
            if not isinstance(obj[self.fields[1]], str):
                raise SuiteDataError(f"{loc}: field {self.fields[1]!r} must be a string")
            items.append(self.to_item(obj, commit))
            where.append(loc)
        if not items:
            raise SuiteDataError(f"suite '{self.name}': {path} holds no items")
        return check_items(items, where)

    @staticmethod
    def taxonomy(obj: dict[str, Any]) -> dict[str, str]:
        return {f"category_{lvl[0]}": str(obj[lvl]).strip() for lvl in LEVELS}


@register_suite
class SaladBase(_SaladSuite):
    name = "salad"
    description = "SALAD-Bench base set: 21,318 harmful questions over a 6-domain / 16-task / 65-category taxonomy."
    source = f"hf://datasets/{REPO_ID}/base_set.json"
    filename = "base_set.json"
    n_items = 21318
    fields = ("qid", "question", "source") + LEVELS

    def to_item(self, obj: dict[str, Any], commit: Optional[str]) -> SuiteItem:
        return self.unsafe_item(obj, commit, f"salad_{str(obj['qid']).strip()}", obj["question"],
                                {"qid": str(obj["qid"]), "source": str(obj["source"])})


@register_suite
class SaladDefense(_SaladSuite):
    name = "salad_defense"
    description = (
        "SALAD-Bench defense-enhanced set: 200 base questions wrapped in a defensive prompt (reminder, "
        "xsafe, safe, or the original), over 51 of the 65 categories."
    )
    source = f"hf://datasets/{REPO_ID}/defense_enhanced_set.json"
    filename = "defense_enhanced_set.json"
    n_items = 200
    fields = ("did", "daugq", "qid", "baseq", "dmethod") + LEVELS

    def to_item(self, obj: dict[str, Any], commit: Optional[str]) -> SuiteItem:
        return self.unsafe_item(obj, commit, f"salad_def_{str(obj['did']).strip()}", obj["daugq"],
                                {"qid": str(obj["qid"]), "did": str(obj["did"]), "dmethod": str(obj["dmethod"]),
                                 "base_question": str(obj["baseq"])})
