"""``--shard K/N``: a deterministic partition of a run's items into N disjoint parts.

Item i of each suite (0-based, in the suite's file order after ``--limit``) belongs to shard
``i % N``. The suite's item list is pinned to a revision, so the partition is the same on every
machine and every scheduler (Slurm array task K, Ray job K, ...); round robin keeps the shards the
same size to within one item per suite and mixes long and short prompts evenly.
"""
from __future__ import annotations

import re
from typing import Iterable, Optional

from toolkit.core.errors import SlmboardError
from toolkit.stages.suites import SuiteItem

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: Optional[str]) -> Optional[tuple[int, int]]:
    """``"K/N"`` → (K, N) with 0 <= K < N; None stays None."""
    if text is None or text == "":
        return None
    m = _SHARD.match(str(text))
    if not m:
        raise SlmboardError(f"shard {text!r} is not K/N (e.g. 0/4 for the first of four shards; K counts from 0)")
    k, n = int(m.group(1)), int(m.group(2))
    if n < 1 or k >= n:
        raise SlmboardError(f"shard {text!r}: K must be in 0..N-1 and N >= 1 (valid for N={max(n, 1)}: 0/{max(n, 1)} .. {max(n, 1) - 1}/{max(n, 1)})")
    return k, n


def shard_label(shard: Optional[tuple[int, int]]) -> Optional[str]:
    return None if shard is None else f"{shard[0]}/{shard[1]}"


def select_shard(items: Iterable[SuiteItem], shard: Optional[tuple[int, int]]) -> list[SuiteItem]:
    """The items of shard K of N (all items when ``shard`` is None)."""
    items = list(items)
    if shard is None:
        return items
    k, n = shard
    position: dict[str, int] = {}
    out = []
    for item in items:
        i = position.get(item.suite, 0)
        position[item.suite] = i + 1
        if i % n == k:
            out.append(item)
    return out


def shard_of(index_in_suite: int, n: int) -> int:
    return index_in_suite % n
