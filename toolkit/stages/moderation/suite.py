"""The flag / do-not-flag suite: fixed, balanced, versioned item-id lists joined to source text.

The lists are package data (``lists/<version>/<benchmark>.jsonl``: ``{"item_id", "gold"}`` rows, no
source text) described by ``lists/<version>/MANIFEST.json`` (source, split, selection rule, counts,
sha256 of each list, the checks it passed, and whether it can be joined to source text). Text is read from
the source at run time, and the source's own label must still harmonise to the listed gold, or loading
stops (the source changed, or is not the split the list was drawn from).

v2 holds Safety-Flag's released item sets (github.com/yibo-hu-lab/safety-flag-benchmark, per-item files
@ 75718fc / d0da355): every id its leaderboard scores. ToxiGen's ids are positions in Safety-Flag's own
sample with no published mapping to source rows, so that list is marked ``joinable: false`` and loading
it for a run stops with the reason.
"""
from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Optional

from toolkit.stages.suites._base import SuiteDataError
from .sources import BENCHMARKS, harmonised, source, source_rows

LIST_VERSION = "v2"
GOLDS = ("flag", "no_flag")


@dataclass(frozen=True)
class ModerationItem:
    benchmark: str
    item_id: str
    text: str
    gold: str  # "flag" | "no_flag"


def _package_lists(version: str) -> Path:
    return Path(str(resources.files("toolkit.stages.moderation") / "lists" / version))


def manifest(version: str = LIST_VERSION, lists_dir: str | Path | None = None) -> dict:
    base = Path(lists_dir) if lists_dir else _package_lists(version)
    path = base / "MANIFEST.json"
    if not path.is_file():
        return {"version": version, "lists": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def read_item_list(path: str | Path) -> list[dict[str, str]]:
    path = Path(path)
    rows, seen = [], set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise SuiteDataError(f"{path}:{n}: invalid JSON: {exc}") from exc
        if not isinstance(obj, dict) or set(obj) != {"item_id", "gold"}:
            raise SuiteDataError(f"{path}:{n}: expected {{\"item_id\", \"gold\"}}, got {obj!r}"[:300])
        if obj["gold"] not in GOLDS:
            raise SuiteDataError(f"{path}:{n}:gold: expected 'flag' or 'no_flag', got {obj['gold']!r}")
        if obj["item_id"] in seen:
            raise SuiteDataError(f"{path}:{n}:item_id: duplicate id {obj['item_id']!r}")
        seen.add(obj["item_id"])
        rows.append({"item_id": str(obj["item_id"]), "gold": obj["gold"]})
    return rows


def load_item_list(benchmark: str, lists_dir: str | Path | None = None, version: str = LIST_VERSION) -> list[dict[str, str]]:
    """The fixed item list of ``benchmark`` (from ``lists_dir`` when given, else the package's)."""
    source(benchmark)  # unknown names fail here with the list of known ones
    base = Path(lists_dir) if lists_dir else _package_lists(version)
    path = base / f"{benchmark}.jsonl"
    if not path.is_file():
        note = manifest(version, lists_dir).get("pending", {}).get(benchmark, "")
        raise SuiteDataError(
            f"{benchmark}: no item list at {path}. {note} Build one from the source with "
            f"build_moderation_list({benchmark!r}, lists_dir=DIR, data=FILE) and pass lists_dir=DIR.",
            param=("build_moderation_list", "lists_dir", "data"),
        )
    return read_item_list(path)


def select_balanced(labelled: list[tuple[str, Optional[str]]], n_per_class: int = 100, rule: str = "random", seed: int = 0) -> list[dict[str, str]]:
    """A balanced list from (id, label) pairs (label None = excluded): ``n_per_class`` of each class,
    the first ones in source order (``rule="first"``) or a seeded random draw (``"random"``);
    returned in source order."""
    order = {item_id: i for i, (item_id, _) in enumerate(labelled)}
    picked = []
    for gold in GOLDS:
        ids = [i for i, lab in labelled if lab == gold]
        if len(ids) < n_per_class:
            raise SuiteDataError(f"only {len(ids)} '{gold}' items available, {n_per_class} requested")
        if rule == "first":
            chosen = ids[:n_per_class]
        elif rule == "random":
            chosen = random.Random(seed).sample(ids, n_per_class)
        else:
            raise ValueError(f"rule must be 'first' or 'random', got {rule!r}")
        picked += [{"item_id": i, "gold": gold} for i in chosen]
    return sorted(picked, key=lambda r: order[r["item_id"]])


def build_item_list(benchmark: str, data: str | Path | None = None, n_per_class: int = 100, rule: str = "random", seed: int = 0) -> list[dict[str, str]]:
    rows, where = source_rows(benchmark, data)
    labelled = [(item_id, label) for item_id, _, label in harmonised(benchmark, rows, where)]
    return select_balanced(labelled, n_per_class=n_per_class, rule=rule, seed=seed)


def write_item_list(path: str | Path, rows: list[dict[str, str]]) -> str:
    """Write a list file atomically; returns its sha256 (recorded in the manifest)."""
    from toolkit.core.records_io import atomic_write_text

    text = "".join(json.dumps({"item_id": r["item_id"], "gold": r["gold"]}) + "\n" for r in rows)
    atomic_write_text(path, text)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def balanced_head(rows: list[dict[str, str]], limit: Optional[int]) -> list[dict[str, str]]:
    """The first ``limit`` items keeping the classes balanced (ceil/floor halves), in list order."""
    if limit is None or limit >= len(rows):
        return rows
    quota = {"flag": (limit + 1) // 2, "no_flag": limit // 2}
    keep = []
    for r in rows:
        if quota[r["gold"]] > 0:
            quota[r["gold"]] -= 1
            keep.append(r)
    return keep


def load_items(
    benchmark: str,
    data: str | Path | None = None,
    lists_dir: str | Path | None = None,
    limit: Optional[int] = None,
) -> list[ModerationItem]:
    """The listed items of ``benchmark`` with their text; every listed id must exist in the source
    and harmonise to the listed gold."""
    listed = load_item_list(benchmark, lists_dir)
    entry = manifest(LIST_VERSION, lists_dir).get("lists", {}).get(benchmark, {})
    if entry.get("joinable", True) is False:
        raise SuiteDataError(
            f"{benchmark}: the {len(listed)} listed ids cannot be joined to source text: {entry.get('join', 'no mapping')}. "
            f"Build a joinable list from the source with build_moderation_list({benchmark!r}, lists_dir=DIR, data=FILE) "
            f"and pass lists_dir=DIR.",
            param=("build_moderation_list", "lists_dir", "data"),
        )
    wanted = balanced_head(listed, limit)
    rows, where = source_rows(benchmark, data)
    by_id = {item_id: (text, label) for item_id, text, label in harmonised(benchmark, rows, where)}
    items, problems = [], []
    for r in wanted:
        found = by_id.get(r["item_id"])
        if found is None:
            problems.append(f"item {r['item_id']!r} is not in {where}")
        elif found[1] != r["gold"]:
            problems.append(f"item {r['item_id']!r}: listed gold {r['gold']!r} but the source harmonises to {found[1]!r}")
        else:
            items.append(ModerationItem(benchmark, r["item_id"], found[0], r["gold"]))
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise SuiteDataError(f"{benchmark}: {len(problems)} listed item(s) do not match the source: " + "; ".join(problems[:5]) + more)
    return items


__all__ = ["BENCHMARKS", "LIST_VERSION", "ModerationItem", "build_item_list", "load_item_list", "load_items",
           "manifest", "read_item_list", "select_balanced", "write_item_list", "balanced_head"]
