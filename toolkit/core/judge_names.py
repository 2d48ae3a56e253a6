"""Forms of ids: file-name-safe slugs (shared by the run folder and the dataset layout) and the judge
names a user may type for an id."""
from __future__ import annotations

import re
from typing import Iterable


def judge_slug(judge_id: str) -> str:
    """A file-name-safe form of a judge id ('openai:gpt-4o' → 'openai-gpt-4o')."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", judge_id).strip("-.") or "judge"


_VERSIONED = re.compile(r"^(?P<name>.+?)(-[A-Za-z0-9]+)*-v\d+$")


def resolve_judge_name(name: str, present: Iterable[str]) -> str | None:
    """The judge id among ``present`` that ``name`` stands for, or None.

    A judge is read back by the name it was run with as well as by the id it wrote: ``name`` may be the
    id itself, its folder slug (``openai-gpt-4o``) or a judge name whose one versioned id is present
    (``heuristic`` -> ``heuristic-v1``, ``bbq`` -> ``bbq-mc-v1``; with two versions present, neither is
    guessed)."""
    ids = sorted(set(present))
    if name in ids:
        return name
    for candidates in ([j for j in ids if judge_slug(j) == name],
                       [j for j in ids if (m := _VERSIONED.match(j)) and m.group("name") == name]):
        if len(candidates) == 1:
            return candidates[0]
    return None


def slug_clash(judge_ids: Iterable[str], others: Iterable[str] = ()) -> tuple[str, str] | None:
    """Two distinct judge ids that share a folder/file slug — two of ``judge_ids``, or one of them and one of
    ``others`` (the ids already somewhere, e.g. on a board) — or None. Two such ids would write one folder of a run
    and one file name of a board (``openai:gpt-4o`` and ``openai/gpt-4o`` are both ``openai-gpt-4o``)."""
    seen: dict[str, str] = {}
    for judge_id in sorted(set(others)):
        seen.setdefault(judge_slug(judge_id), judge_id)
    mine: dict[str, str] = {}
    for judge_id in sorted(set(judge_ids)):
        slug = judge_slug(judge_id)
        other = mine.get(slug) or seen.get(slug)
        if other is not None and other != judge_id:
            return judge_id, other
        mine[slug] = judge_id
    return None
