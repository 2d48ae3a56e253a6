"""A release: the board as it is now, named so that a reader can cite it (``slmboard release BOARD NAME``).

One commit writes the release's entry into the dataset card (``slmboard.releases`` of its header, and a
"Releases" section of its body): what changed since the previous release, from the two published
leaderboards (models and judges added, ranks that moved under each suite's primary judge), with the
maintainer's notes. That commit is then tagged NAME: a git tag on a local board (inside the board's lock, so
two releases never take one name), a tag of the Hub dataset (``HfApi.create_tag``). A release is read like any
revision: ``BOARD@NAME`` (docs/reference/dataset-layout.md, "Releases").

Refused, before anything is written: a name that is not a plain tag name, a name the board already has (a
tag or a branch), and, on a Hub board, while pull requests are open (a release should hold what the board
will show once they are decided).
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from toolkit.core import dataset_layout as layout
from toolkit.core.errors import BadOption, BoardMissing, ReleaseRefused
from toolkit.core.records_io import atomic_write_text

__all__ = ["Release", "release", "release_entry", "check_release_name"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_RANK = "rank_adj"  # S_adj, the reported score: the rank a reader cites


@dataclass
class Release:
    dataset: str
    name: str
    revision: str  # the commit the tag names
    entry: dict


def check_release_name(name: str) -> str:
    """A release name is a plain tag name (letters, digits, ``.``, ``_``, ``-``; up to 64), not ``main``/``HEAD``
    and not a hexadecimal word a reader would take for a commit."""
    if not _NAME.match(name or "") or name.endswith((".", ".lock")) or ".." in name:
        raise BadOption(f"release name {name!r}: use letters, digits, '.', '_' and '-' (up to 64, starting with a "
                        "letter or digit), e.g. v1 or 2026-12", param="name")
    if name in ("main", "HEAD") or (len(name) >= 7 and re.fullmatch(r"[0-9a-fA-F]+", name)):
        raise BadOption(f"release name {name!r} reads as a branch or a commit; pick a name such as v1", param="name")
    return name


def release_entry(name: str, notes: str | None, since: str | None, before: pd.DataFrame | None, now: pd.DataFrame,
                  primary: dict[str, str]) -> dict:
    """The card's entry for a release: what changed between the leaderboards ``before`` (the previous release's;
    None: this is the first) and ``now``. Ranks are compared under each suite's primary judge (``primary``: suite ->
    judge; a suite without one: every judge)."""
    before = before if before is not None else pd.DataFrame(columns=["suite", "judge_id", "model_id", _RANK])
    moved = []
    if len(before) and len(now):
        keys = ["suite", "judge_id", "model_id"]
        pair = now[[*keys, _RANK]].merge(before[[*keys, _RANK]], on=keys, suffixes=("", "_before"))
        shown = pair[[primary.get(s, j) == j for s, j in zip(pair["suite"], pair["judge_id"])]]
        for row in shown.sort_values(keys).itertuples(index=False):
            was, rank = getattr(row, f"{_RANK}_before"), getattr(row, _RANK)
            if pd.notna(was) and pd.notna(rank) and int(was) != int(rank):
                moved.append(f"{row.suite} · {row.judge_id}: {row.model_id} {int(was)} → {int(rank)}")
    return {"name": name, "date": time.strftime("%Y-%m-%d", time.gmtime()), "notes": notes or "", "since": since,
            "models_added": sorted(set(now.get("model_id", [])) - set(before["model_id"])),
            "judges_added": sorted(set(now.get("judge_id", [])) - set(before["judge_id"])), "ranks_moved": moved}


def _primary(root: Path) -> dict[str, str]:
    """suite -> the judge the card shows it under."""
    from toolkit.data.reading import open_data

    return open_data(root).card_block("primary_judges")


def _leaderboard(data) -> pd.DataFrame:
    from toolkit.data.reading import published_leaderboard

    table = published_leaderboard(data, columns=["suite", "judge_id", "model_id", _RANK])
    return table if table is not None else pd.DataFrame(columns=["suite", "judge_id", "model_id", _RANK])


def release(dataset, name: str, notes: str | None = None) -> Release:
    """Write the release's entry into the card, commit it and tag that commit NAME (see the module doc)."""
    from .card import card_choices, render_card
    from .hub import parse_target

    name = check_release_name(name)
    ref = parse_target(dataset, param="dataset")
    state: dict = {}

    def write(root: Path, previous) -> list[str]:
        """``previous(name)``: the leaderboard of the release ``name``."""
        if not layout.is_dataset(root):
            raise BoardMissing(f"{ref.url}: not a board (no {layout.BOARD_FILE} or {layout.CARD_FILE})")
        choices = card_choices(root)
        last = choices.releases[-1]["name"] if choices.releases else None
        entry = state["entry"] = release_entry(name, notes, last, previous(last) if last else None,
                                               _leaderboard(root), _primary(root))
        choices.releases = [*choices.releases, entry]
        atomic_write_text(root / layout.CARD_FILE, render_card(root, repo_id=ref.repo_id, choices=choices))
        return [layout.CARD_FILE]

    message = f"Release {name}" + (f": {notes}" if notes else "")
    if ref.is_hub:
        return _release_on_hub(ref, name, message, write, state)
    return _release_local(ref, name, message, write, state)


def _release_local(ref, name: str, message: str, write, state: dict) -> Release:
    from .local_folder import LocalFolderHub

    local = LocalFolderHub(ref.path)
    if not local.exists():
        raise BoardMissing(f"{ref.url}: no such board; create it with `slmboard create`")

    def refuse_taken(root: Path) -> None:
        taken = local.ref_kind(name)
        if taken:
            raise ReleaseRefused(f"{ref.url}: the board already has a {taken} named {name!r}; a release name is given once")

    def write_entry(root: Path) -> list[str]:
        refuse_taken(root)  # again under the board's lock: another release may have taken the name meanwhile
        return write(root, lambda last: _leaderboard(f"{local.root}@{last}"))

    refuse_taken(local.root)
    done = local.commit(message, write_entry, tag=name)
    return Release(ref.url, name, done.revision, state["entry"])


def _release_on_hub(ref, name: str, message: str, write, state: dict) -> Release:
    from toolkit.core.hub_access import hub_api, hub_call
    from toolkit.data.reading.queue import open_pull_requests

    from .hub import HubPublisher

    hub = HubPublisher(ref.repo_id, create=False, revision=ref.revision or "main")
    hub.check_branch()
    api = hub_api()
    with hub_call(ref.repo_id):
        refs = api.list_repo_refs(ref.repo_id, repo_type="dataset")
        pulls = open_pull_requests(api, ref.repo_id)
    taken = "tag" if name in [t.name for t in refs.tags] else "branch" if name in [b.name for b in refs.branches] else None
    if taken:
        raise ReleaseRefused(f"{ref.url}: the dataset already has a {taken} named {name!r}; a release name is given once")
    if pulls:
        listed = "; ".join(f"#{p.num} {p.title!r}" for p in pulls)
        raise ReleaseRefused(f"{ref.url}: {len(pulls)} pull request(s) open ({listed}); merge or close them first, "
                             "so the release holds what the board will show")
    done = hub.commit(message, lambda root: write(root, lambda last: _hub_leaderboard(ref.repo_id, last)))
    with hub_call(ref.repo_id, write=True):
        api.create_tag(ref.repo_id, tag=name, revision=done.revision, repo_type="dataset", tag_message=message)
    return Release(ref.url, name, done.revision, state["entry"])


def _hub_leaderboard(repo_id: str, revision: str) -> pd.DataFrame:
    """The leaderboard file of the Hub dataset at ``revision`` (one file, not the release's snapshot)."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError

    from toolkit.core.hub_access import current_token, hub_call

    with hub_call(repo_id, revision=revision):
        try:
            path = hf_hub_download(repo_id, layout.LEADERBOARD_FILE, repo_type="dataset", revision=revision,
                                   token=current_token())
        except EntryNotFoundError:  # released before its first submission
            return pd.DataFrame(columns=["suite", "judge_id", "model_id", _RANK])
    return pd.read_parquet(path, columns=["suite", "judge_id", "model_id", _RANK])
