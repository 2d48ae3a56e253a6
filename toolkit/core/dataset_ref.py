"""A dataset reference: what DATA, ``--to`` and ``--data`` mean, parsed once for every command, the API and the Space.

The grammar (docs/reference/dataset-layout.md, "Naming a dataset"):

- ``hf://datasets/ORG/NAME[@REV]``: a Hub dataset, always.
- ``./x``, ``../x``, ``/x``, ``~/x`` (and a ``Path`` object): a local path, always.
- a path that exists on this machine: that path, even when it is spelled like a Hub id (``org/name``);
  :attr:`DatasetRef.shadows_hub_id` says so when the folder is a board (only a board could be both), and the
  command line says it read the folder, once per command, for the words the user typed (``toolkit.cli``).
- ``PATH@NAME`` where PATH is an existing board folder (a git repository) and ``PATH@NAME`` itself is no
  existing path: that board at the revision NAME (a release tag, a branch or a commit of its history); read only.
- ``ORG/NAME`` or ``ORG/NAME@REV``: a Hub dataset (REV: a branch, tag, commit or ``refs/pr/N`` when
  reading; a branch when writing).
- anything else: a local path when reading (a record file, a run folder); refused as ambiguous when
  writing (``submit --to``, ``create``), where a mistyped name must not become a new folder or repo.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from toolkit.core.errors import BadOption

HUB_PREFIX = "hf://datasets/"
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_EXPLICIT_PATH = ("./", "../", "/", "~")


def is_repo_id(text: str) -> bool:
    """``ORG/NAME`` as the Hub spells a repo id (no revision)."""
    return bool(_REPO_ID.match(text)) and ".." not in text


def _holds_a_board(path: Path) -> bool:
    """Only a board (a dataset folder) could also be the Hub dataset of its spelling; a run folder, a moderation
    run or a folder of records never is one: the words are not both."""
    from toolkit.core.dataset_layout import is_dataset

    return is_dataset(path)


def _board_at_revision(text: str) -> tuple[Path, str] | None:
    """(folder, revision) when ``text`` is ``PATH@NAME`` with PATH an existing board folder (a git repository)."""
    head, at, revision = text.rpartition("@")
    if not at or not head or not revision:
        return None
    folder = Path(head).expanduser()
    return (folder, revision) if (folder / ".git").exists() else None


@dataclass(frozen=True)
class DatasetRef:
    """One dataset: a Hub repo (``repo_id``, ``revision``) or a local ``path`` (with ``revision``: a board
    folder at that revision of its git history); never both."""

    written: str  # as the user wrote it
    repo_id: str | None = None
    revision: str | None = None
    path: Path | None = None
    #: a board folder that exists and is also spelled like a Hub id: the folder was read, not the Hub dataset
    shadows_hub_id: bool = False

    @property
    def is_hub(self) -> bool:
        return self.repo_id is not None

    @property
    def url(self) -> str:
        """``hf://datasets/ORG/NAME[@REV]``, or the local path (``PATH@REV`` at a revision)."""
        return f"{HUB_PREFIX}{self}" if self.is_hub else str(self)

    def __str__(self) -> str:
        head = self.repo_id if self.is_hub else str(self.path)
        return head + (f"@{self.revision}" if self.revision else "")

    @classmethod
    def parse(cls, data: str | os.PathLike, *, writing: bool = False, param: str | None = "data") -> "DatasetRef":
        """DATA as a reference (module docstring). ``writing``: a name that is neither a Hub id nor an existing
        or explicit path is refused as ambiguous, and so is ``ORG/NAME`` whose ORG is a local folder."""
        if isinstance(data, DatasetRef):
            return data
        if isinstance(data, Path):
            return cls(str(data), path=data)
        text = str(data).strip()
        if text.startswith(HUB_PREFIX):
            return cls._hub(text, text[len(HUB_PREFIX):].rstrip("/"), param)
        if text.startswith("hf://"):
            raise BadOption(f"{text!r}: expected hf://datasets/ORG/NAME[@REV]", param=param)
        path = Path(text).expanduser()
        repo, at, revision = text.partition("@")
        spelled_as_id = is_repo_id(repo) and "@" not in revision and not (at and not revision)
        if text.startswith(_EXPLICIT_PATH) or path.exists():
            local = None if path.exists() else _board_at_revision(text)
            if local is not None:
                return cls._local_revision(text, *local, writing=writing, param=param)
            return cls(text, path=path, shadows_hub_id=spelled_as_id and not text.startswith(_EXPLICIT_PATH)
                       and _holds_a_board(path))
        local = _board_at_revision(text)
        if local is not None:
            return cls._local_revision(text, *local, writing=writing, param=param)
        if spelled_as_id:
            if writing and Path(repo.split("/", 1)[0]).is_dir():
                raise BadOption(f"{text!r} is ambiguous: {repo.split('/', 1)[0]}/ is a folder here, and {text} also reads "
                                f"as a Hub dataset id; write ./{text} for a folder or {HUB_PREFIX}{text} for the Hub",
                                param=param)
            return cls(text, repo_id=repo, revision=revision or None)
        if writing:
            raise BadOption(f"{text!r} is ambiguous: neither ORG/NAME (a Hub dataset), an existing folder nor an explicit "
                            f"path; write ORG/NAME or {HUB_PREFIX}ORG/NAME for the Hub, ./{text} for a local folder",
                            param=param)
        return cls(text, path=path)

    @classmethod
    def _local_revision(cls, text: str, folder: Path, revision: str, *, writing: bool, param: str | None) -> "DatasetRef":
        if writing:  # a release is what the board was; new commits go onto the folder's branch
            raise BadOption(f"{text!r} names the board {folder} at its revision {revision!r}, which is read only; write "
                            f"to the board folder itself ({folder})", param=param)
        return cls(text, path=folder, revision=revision)

    @classmethod
    def _hub(cls, text: str, rest: str, param: str | None) -> "DatasetRef":
        repo, _, revision = rest.partition("@")
        if not is_repo_id(repo) or rest.endswith("@") or "@" in revision:
            raise BadOption(f"{text!r}: expected hf://datasets/ORG/NAME[@REV]", param=param)
        return cls(text, repo_id=repo, revision=revision or None)

    def folder_note(self) -> str | None:
        """The line a command prints when an existing folder was read in place of a Hub id of the same spelling."""
        if not self.shadows_hub_id:
            return None
        return (f"read the local folder {self.path} (it exists here); write {HUB_PREFIX}{self.written} for the Hub "
                "dataset of that name")
