"""Forms of ids: file-name-safe slugs (shared by the run folder and the dataset layout), the judge
names a user may type for an id, and what kind of judge an id declares: people's labels
(:func:`is_people_judge`), a panel (:func:`panel_members`)."""
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


#: The names that declare a judge to be people's labels. An imported label column becomes a judge whose id the
#: importer chooses (``--judge-column human-xstest=final_label``); its name -- the id's part before the first
#: ``-`` or ``:`` -- is the one property that says "people labelled these", so a board imported before this rule
#: (``human-xstest``) is recognised as it is.
PEOPLE_NAMES = ("human", "people")
#: a panel's id: ``panel:RULE:A+B+...`` (toolkit.stages.judging.panel_id builds and checks it)
PANEL_PREFIX = "panel"
#: a leaderboard row ``rank --mean-of-judges`` adds: ``mean:A+B`` (toolkit.data.scoring.mean_of_judges)
MEAN_PREFIX = "mean"


def is_people_judge(judge_id) -> bool:
    """Whether ``judge_id`` is people's labels (``human``, ``human-xstest``, ``people:raters``), not a judge that
    was run: the one place this is decided (the Space, the card, the primary-judge rule and agreement read it)."""
    name = re.split(r"[-:]", str(judge_id), maxsplit=1)[0]
    return name in PEOPLE_NAMES


def panel_members(judge_id) -> list[str]:
    """The member ids of a panel's id (``panel:majority:a+b`` -> ``[a, b]``); ``[]`` for a judge that is no panel."""
    prefix, _, rest = str(judge_id).partition(":")
    if prefix != PANEL_PREFIX or ":" not in rest:
        return []
    return [m for m in rest.partition(":")[2].split("+") if m]


def is_mean_row(judge_id) -> bool:
    """Whether ``judge_id`` names a ``mean:A+B`` leaderboard row (HELM's mean of judges), not a judge of records."""
    return str(judge_id).startswith(MEAN_PREFIX + ":")


def is_built_judge(judge_id) -> bool:
    """A panel, a mean-of-judges row or people's labels: judges the automatic primary-judge rule never picks."""
    return bool(panel_members(judge_id)) or is_mean_row(judge_id) or is_people_judge(judge_id)
