"""What every tab of the Space shares: settings, the data (one Board + item store swapped
atomically on refresh), the query-parameter keys of a shareable view."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from space import versions
from space.data import LEADERBOARD_PATH, Board, data_source, load_board
from space.items import ItemStore
from space.plot_cache import PlotCache

PAGE_SIZE = 25
TABS = {"leaderboard": "Leaderboard", "sensitivity": "Rank sensitivity", "labelmix": "Label mix", "judges": "Judges",
        "moderators": "Moderators", "items": "Items", "disagreements": "Disagreements", "label": "Label", "submit": "Submit",
        "about": "About"}


@dataclass(frozen=True)
class Settings:
    """How the app runs; passed to build_app (never read from the environment at import time)."""

    #: re-read the data this often when it changed (0 = only on Refresh)
    refresh_seconds: float = 300.0
    #: Hub dataset whose open pull requests the Submit tab lists (None: the served dataset when it is a Hub id)
    queue_dataset: str | None = None
    #: at start-up and after a reload, in the background: build the Items index and prepare the views
    #: of every (suite, judge, sort) (space/prepared.py)
    warm: bool = True
    #: serve Gradio's front-end files from memory, compressed once, and the page rendered once per config, gzipped (space/static_cache.py, space/page_cache.py)
    static_cache: bool = True


class Holder:
    """The Board shared by all sessions. Refresh builds a new Board and swaps the reference in
    one assignment (atomic), so a concurrent request sees either the old or the new data.

    ``board`` and ``items`` are the latest data's, or, in an event that shows a release
    (:func:`space.versions.show`), that release's (a few held at a time, :class:`space.versions.Releases`)."""

    def __init__(self, data: str | Path | None, warm: bool = True):
        self.data = data
        self.warm = warm
        self.releases = versions.Releases()
        self.board = load_board(data)
        #: the board's releases, newest first (the Version selector's choices after "latest")
        self.release_names: list[str] = self._release_names(self.board)
        self.items = ItemStore(self.board.dataset or self.board.data_dir)
        self.plots = PlotCache()  # keyed by the rows drawn: stays valid across reloads
        #: called after each reload, in the reloading event (the app re-bakes the landing view)
        self.on_reload: list = []
        #: counts reloads: a page that shows an older version re-renders on its refresh timer
        self.version = 0
        self._refresh_lock = threading.Lock()
        self._probed_at: float | None = None  # time.monotonic() of the last refresh_if_changed probe
        self.signature = self._signature(self.board)
        if warm:
            self.items.warm()

    def _shown_release(self) -> tuple[Board, ItemStore] | None:
        """The (board, items) of the release this event shows; None for the latest."""
        name = versions.shown()
        return None if name is None or name not in self.release_names else self.releases.get(data_source(self.data), name)

    @property
    def board(self) -> Board:
        release = self._shown_release()
        return self._board if release is None else release[0]

    @board.setter
    def board(self, board: Board) -> None:
        self._board = board

    @property
    def items(self) -> ItemStore:
        release = self._shown_release()
        return self._items if release is None else release[1]

    @items.setter
    def items(self, items: ItemStore) -> None:
        self._items = items

    def _release_names(self, board: Board) -> list[str]:
        card = board.dataset.card if board.dataset is not None else {}
        block = card.get("slmboard") if isinstance(card.get("slmboard"), dict) else {}
        listed = block.get("releases") if isinstance(block.get("releases"), list) else []
        return versions.release_names(data_source(self.data), [r for r in listed if isinstance(r, dict)])

    def _signature(self, board: Board) -> tuple:
        """What changes when the dataset changes: the snapshot folder (named by commit for a Hub
        dataset), the leaderboard file's mtime/size (a local folder is updated in place) and a local
        folder's tags (a release commits only the card)."""
        p = Path(board.data_dir) / LEADERBOARD_PATH
        st = p.stat() if p.is_file() else None
        source = data_source(self.data)
        tags = tuple(versions.git_tags(source)) if isinstance(source, Path) else ()
        return (str(board.data_dir), st.st_mtime_ns if st else None, st.st_size if st else None, tags)

    def reload(self, board: Board | None = None) -> Board:
        board = board if board is not None else load_board(self.data)
        items = ItemStore(board.dataset or board.data_dir)
        if self.warm:
            items.warm()
        self.items = items
        self.board = board
        self.release_names = self._release_names(board)
        self.signature = self._signature(board)
        self.version += 1
        for hook in list(self.on_reload):
            hook()
        return board

    def refresh_if_changed(self, at_most_every: float = 0.0) -> None:
        """Reload when the data changed. Every open page's timer asks: one probe per ``at_most_every``
        seconds is made (a Hub probe is a snapshot download), and one of the pages reloads."""
        with self._refresh_lock:
            now = time.monotonic()
            if self._probed_at is not None and now - self._probed_at < at_most_every:
                return
            self._probed_at = now
            hub = self.is_hub()
            latest = load_board(self.data) if hub else self._board  # a local folder's files are read in place
            if self._signature(latest) != self.signature:
                self.reload(latest if hub else None)

    def is_hub(self) -> bool:
        return not isinstance(data_source(self.data), Path)

    def hub_id(self) -> str | None:
        """The Hub dataset the Space serves (ORG/NAME), None for a local folder."""
        from toolkit.data.reading import parse_hub_id

        hub = parse_hub_id(data_source(self.data))
        return hub.repo_id if hub is not None else None


def share_query(values: dict[str, object], defaults: dict[str, object]) -> str:
    """The query string of a view: only values that differ from the defaults (lists comma-joined)."""
    out = {}
    for key, value in values.items():
        if value is None or value == defaults.get(key):
            continue
        out[key] = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return urlencode(out)
