"""Which version of the board a page shows: the latest, or one of the board's releases (``slmboard release``).

A release is a tag of the board (a git tag of a local folder, a tag of the Hub dataset); the page's address keeps
the one shown (``?version=NAME``, a choice of the Version selector: a name that is not one of the board's tags is
dropped like any unknown query value). Every event of a page says which version it is for
(:func:`show`, a context variable: each event runs in a context of its own), and :class:`Releases` holds the
boards of the few releases last asked for (least recently used out), read through the data layer as
``BOARD@NAME`` (a Hub dataset: ``hf://datasets/ORG/NAME@NAME``).
"""
from __future__ import annotations

import contextvars
import subprocess
import threading
from collections import OrderedDict
from pathlib import Path

LATEST = "latest"
KEEP = 3  # releases held in memory at once: each is a Board and its Items store

_shown: contextvars.ContextVar[str | None] = contextvars.ContextVar("slmboard_version", default=None)


def show(name: str | None) -> None:
    """The version the current event shows (None or ``latest``: the latest)."""
    _shown.set(None if name in (None, "", LATEST) else str(name))


def shown() -> str | None:
    """The release the current event shows; None for the latest."""
    return _shown.get()


def release_names(source, card_releases: list[dict]) -> list[str]:
    """The board's release tags, newest first: those the card lists (in its order), then any other tag. A board
    served at a revision (``BOARD@NAME``, ``ORG/NAME@REV``) is pinned there: none."""
    from toolkit.data.reading import parse_hub_id
    from toolkit.data.reading.locate import local_revision

    if isinstance(source, Path):
        tags = git_tags(source)
    elif local_revision(source) is not None:
        return []
    else:
        hub = parse_hub_id(source)
        if hub is None or hub.revision:
            return []
        tags = _hub_tags(hub.repo_id)
    listed = [str(r.get("name")) for r in reversed(card_releases)]
    return [n for n in listed if n in tags] + sorted(set(tags) - set(listed), reverse=True)


def git_tags(folder: Path) -> list[str]:
    if not (folder / ".git").exists():
        return []
    proc = subprocess.run(["git", "for-each-ref", "--format=%(refname:short)", "refs/tags"], cwd=folder,
                          capture_output=True, text=True)
    return proc.stdout.split() if proc.returncode == 0 else []


def _hub_tags(repo_id: str) -> list[str]:
    from toolkit.core.hub_access import hub_api, hub_call

    try:
        with hub_call(repo_id):
            return [t.name for t in hub_api().list_repo_refs(repo_id, repo_type="dataset").tags]
    except Exception:  # noqa: BLE001 - the Hub unreachable: the latest board is shown, without a selector
        return []


def release_source(source, name: str) -> str:
    """The data reference of the release ``name`` of the board ``source`` (a folder or ``hf://datasets/ORG/NAME``)."""
    if isinstance(source, Path):
        return f"{source.resolve()}@{name}"
    from toolkit.data.reading import parse_hub_id

    return f"hf://datasets/{parse_hub_id(source).repo_id}@{name}"


class Releases:
    """The boards of the releases asked for lately: at most :data:`KEEP`, the least recently used dropped."""

    def __init__(self, keep: int = KEEP):
        self.keep = keep
        self._held: OrderedDict[str, tuple] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, source, name: str) -> tuple:
        """(Board, ItemStore) of the release ``name`` (read once while held; one read at a time)."""
        from space.data import load_board
        from space.items import ItemStore

        with self._lock:
            if name in self._held:
                self._held.move_to_end(name)
                return self._held[name]
            board = load_board(release_source(source, name))
            self._held[name] = held = (board, ItemStore(board.dataset or board.data_dir))
            while len(self._held) > self.keep:
                self._held.popitem(last=False)
            return held

    def held(self) -> list[str]:
        return list(self._held)
