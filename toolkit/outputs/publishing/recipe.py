"""Names on a board's recipe, and the recipe changed on purpose (``slmboard recipe BOARD --set ...``).

:func:`resolve_names` checks every suite and judge a recipe names before it is stored: a suite must be
registered (built in or a plugin); a judge is a registered name or spec, stored as the versioned id it
writes (``learned`` -> ``learned-v2``, so a later version never joins a board silently), or any id of the
judge-id grammar (imported judges, panels). A near miss of a registered name is refused with did-you-mean.

:func:`change_recipe` changes fields of an existing board's ``board.yaml`` as a commit of its own; a change
that a published submission would not meet is refused, listing those submissions.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from toolkit.core.board_recipe import BoardRecipe, parse_recipe, read_recipe
from toolkit.core.dataset_layout import BOARD_FILE, manifest_files
from toolkit.core.errors import BadOption, BoardMissing, BoardRecipeRefused, NothingToCommit, UnknownComponent, closest
from toolkit.core.records_io import atomic_write_text

__all__ = ["resolve_names", "change_recipe", "RecipeChange", "parse_settings"]

def _judge_id(name: str) -> str:
    """The id a recipe stores for the judge ``name`` (see the module doc)."""
    from schemas import check_judge_id

    from toolkit.core.registry import split_spec
    from toolkit.stages.judging.components import JUDGES, judge_id_of

    base, argument = split_spec(name)
    if base in JUDGES:
        return judge_id_of(JUDGES.get(base).name, argument)
    guess = closest(name, list(JUDGES.names()))
    if guess and name.isalpha():  # a bare word near a registered name is a typo; an id (openai-x, helm:…) is an id
        raise UnknownComponent("judge", name, list(JUDGES.names()))
    try:
        return check_judge_id(name)
    except ValueError as exc:
        raise BadOption(f"judge {name!r} is neither a registered judge ({', '.join(JUDGES.names())}) nor a judge id: "
                        f"{exc}", param="judges") from None


def _suite(name: str) -> str:
    from toolkit.stages.suites import SUITES

    return SUITES.get(name).name  # an unknown one: UnknownComponent, with did-you-mean


def resolve_names(recipe: BoardRecipe) -> BoardRecipe:
    """``recipe`` with every suite checked and every judge stored as the id it writes (see the module doc)."""
    changes: dict[str, Any] = {}
    if recipe.suites is not None:
        changes["suites"] = [_suite(s) for s in recipe.suites]
    if recipe.judges is not None:
        changes["judges"] = list(dict.fromkeys(_judge_id(j) for j in recipe.judges))
    if recipe.primary_judges is not None:
        changes["primary_judges"] = {_suite(s): _judge_id(j) for s, j in recipe.primary_judges.items()}
    return recipe.model_copy(update=changes) if changes else recipe


def parse_settings(settings: Mapping[str, str] | list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` settings (``suites=a,b``, ``decoding.temperature=0``, ``primary_judges.SUITE=JUDGE``) as
    recipe fields; a value is read as YAML (numbers, true/false, null: unset), a list field as a comma list."""
    import yaml

    pairs = settings.items() if isinstance(settings, Mapping) else [_pair(s) for s in settings]
    out: dict[str, Any] = {}
    for key, text in pairs:
        value: Any = [v.strip() for v in text.split(",") if v.strip()] if key in ("suites", "judges") else yaml.safe_load(text)
        head, _, rest = key.partition(".")
        if rest:
            out.setdefault(head, {})[rest] = value
        else:
            out[head] = value
    return out


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise BadOption(f"{text!r} is not KEY=VALUE (e.g. suites=smoke,xstest or decoding.temperature=0)", param="settings")
    return key.strip(), value.strip()


@dataclass
class RecipeChange:
    dataset: str
    revision: str | None  # None: the recipe already said this (nothing committed)
    recipe: BoardRecipe


def _changed(old: BoardRecipe, fields: dict[str, Any]) -> BoardRecipe:
    body = old.model_dump(mode="json", exclude_none=True)
    for key, value in fields.items():
        if isinstance(value, dict) and isinstance(body.get(key), dict):
            body[key] = {**body[key], **value}
        else:
            body[key] = value
    body = {k: v for k, v in body.items() if v is not None}
    return resolve_names(parse_recipe(body, "the recipe change"))


def _refused_by(recipe: BoardRecipe, root: Path) -> list[str]:
    from toolkit.data.reading import read_manifest_files

    lines = []
    for m in read_manifest_files([(p, str(p)) for p in manifest_files(root)]):
        files = m.record_files
        broken = recipe.refusals(sorted({f.suite for f in files if f.suite}), sorted({f.judge_id for f in files if f.judge_id}),
                                 dict((m.run_config or {}).get("generation") or {}), (m.run_config or {}).get("limit"),
                                 m.partial)
        if broken:
            lines.append(f"{m.submission_id}: {'; '.join(broken)}")
    return lines


def change_recipe(dataset: str | Path, settings: Mapping[str, str] | list[str]) -> RecipeChange:
    """Set fields of the board's ``board.yaml`` (:func:`parse_settings`) as a commit of its own; refused,
    listing them, when a published submission would not meet the new recipe."""
    from .hub import HubPublisher, parse_target
    from .local_folder import LocalFolderHub

    fields = parse_settings(settings)
    if not fields:
        raise BadOption("nothing to change: give settings KEY=VALUE (e.g. suites=smoke,xstest)", param="settings")
    ref = parse_target(dataset, param=None)
    state: dict[str, BoardRecipe] = {}

    def write(root: Path) -> list[str]:
        old = read_recipe(root)
        if old is None:
            raise BoardMissing(f"{ref.url} has no {BOARD_FILE}: make the board with `slmboard create` (a board from "
                               "before recipes takes any submission)")
        new = state["recipe"] = _changed(old, fields)
        if new == old:
            raise NothingToCommit("the recipe already says this")
        refused = _refused_by(new, root)
        if refused:
            raise BoardRecipeRefused(f"{ref.url}: the changed recipe would refuse {len(refused)} published "
                                     f"submission(s): " + " | ".join(refused))
        atomic_write_text(root / BOARD_FILE, new.to_yaml())
        return [BOARD_FILE]

    message = "Change the board's recipe: " + ", ".join(sorted(fields))
    try:
        if ref.is_hub:
            hub = HubPublisher(ref.repo_id, create=False, revision=ref.revision or "main")
            return RecipeChange(ref.url, hub.commit(message, write).revision, state["recipe"])
        local = LocalFolderHub(ref.path)
        if not local.exists():
            raise BoardMissing(f"{ref.url}: no such board; create it with `slmboard create`")
        return RecipeChange(ref.url, local.commit(message, write).revision, state["recipe"])
    except NothingToCommit:
        return RecipeChange(ref.url, None, state["recipe"])
