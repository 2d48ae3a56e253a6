"""Where DATA is: the one grammar of a Hub dataset id, and the one resolver of DATA to local folders.

DATA is a local path (a record file, a run folder, a dataset folder), a board folder at a revision
(``PATH@NAME``: a release), or a Hub dataset id:
``ORG/NAME``, ``ORG/NAME@REV`` or ``hf://datasets/ORG/NAME[@REV]`` (REV: a branch, tag, commit or
``refs/pr/N``), as :class:`~toolkit.core.dataset_ref.DatasetRef` parses it. A bare ``ORG/NAME`` that exists
on this machine is a path. A Hub dataset is fetched
once, as a commit-named snapshot (huggingface_hub's cache), and read from there like a folder.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

from toolkit.core.dataset_ref import HUB_PREFIX, DatasetRef  # noqa: F401  (HUB_PREFIX: re-exported)
from toolkit.core.errors import HubAccessError, HubRepoNotFound, RecordFileError

class HubId(NamedTuple):
    """A Hub dataset named by DATA (compares equal to the tuple ``(repo_id, revision)``)."""

    repo_id: str
    revision: str | None

    def __str__(self) -> str:
        return self.repo_id + (f"@{self.revision}" if self.revision else "")


def parse_hub_id(data) -> HubId | None:
    """The Hub dataset DATA names (:class:`~toolkit.core.dataset_ref.DatasetRef`, the one grammar); None for a
    local path. An existing folder spelled like a Hub id is read as the folder (the command line says so for the
    words a user typed: ``toolkit.cli``; a path a workflow chose itself is said nothing about)."""
    ref = DatasetRef.parse(data)
    return HubId(ref.repo_id, ref.revision) if ref.is_hub else None


def local_revision(data) -> tuple[Path, str] | None:
    """(board folder, revision) when DATA is ``PATH@NAME`` (:class:`~toolkit.core.dataset_ref.DatasetRef`); None
    for anything else."""
    if not isinstance(data, (str, Path)):
        return None
    ref = DatasetRef.parse(data)
    return (ref.path, ref.revision) if not ref.is_hub and ref.revision else None


@dataclass(frozen=True)
class Snapshot:
    """A Hub dataset on this machine: its snapshot folder and the commit it holds."""

    hub: HubId
    root: Path
    commit: str
    timestamp: int | None  # unix seconds of the commit (None when the Hub does not say)


def hub_patterns(suites: Sequence[str] | None) -> list[str] | None:
    """What a snapshot downloads: everything, or, for some suites, their per-item files and the rest
    of the dataset (card, manifests, shared tables)."""
    if not suites:
        return None
    from toolkit.core import dataset_layout as layout
    shared = [f"{layout.DATA_DIR}/{name}/*" for name in layout.RESERVED_CONFIGS]
    return [layout.CARD_FILE, f"{layout.MANIFEST_DIR}/*.json", *shared,
            *(f"{layout.DATA_DIR}/{s}/*.parquet" for s in suites)]


def fetch_snapshot(hub: HubId, suites: Sequence[str] | None = None) -> Snapshot:
    """Resolve the revision to a commit (``dataset_info``) and download that commit's snapshot; a
    failure (not found, offline, no access) is one :class:`~toolkit.core.errors.HubAccessError` naming the id."""
    from huggingface_hub import snapshot_download

    from toolkit.core.hub_access import current_token, hub_api, hub_call

    try:
        with hub_call(hub.repo_id, revision=hub.revision):
            info = hub_api().dataset_info(hub.repo_id, revision=hub.revision)
            root = Path(snapshot_download(hub.repo_id, repo_type="dataset", revision=info.sha, token=current_token(),
                                          allow_patterns=hub_patterns(suites)))
    except HubAccessError as exc:
        if isinstance(exc, HubRepoNotFound) and exc.status == 404:  # DATA may as well be a mistyped local path: say both
            raise HubRepoNotFound(exc.repo, exc.status, f"{hub}: no such local file or folder, and no such dataset on "
                                  f"the Hub", "check the path, or the name ORG/NAME", param=exc.param,
                                  revision=hub.revision) from None
        raise
    stamp = int(info.last_modified.timestamp()) if info.last_modified else None
    return Snapshot(hub, root, info.sha, stamp)


def local_path(data) -> Path:
    """DATA as an existing local path, or the error every reader gives for one that is missing."""
    path = Path(str(data)).expanduser() if not isinstance(data, Path) else data
    if not path.exists():
        raise RecordFileError(f"{path}: no such file or folder (expected a .jsonl/.parquet file, a run folder, a dataset "
                              "folder or a Hub dataset id ORG/NAME)")
    return path
