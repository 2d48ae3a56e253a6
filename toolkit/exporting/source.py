"""What an export reads: per-item records and where they came from (folder or Hub dataset, commit).

Every number an exporter writes comes from :func:`compute_leaderboard` over the per-item records
read here; a published leaderboard file or any submitted aggregate is never read.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import SlmboardError
from ..scoring.bootstrap import N_BOOTSTRAP

_HUB_ID = re.compile(r"^(?:hf://datasets/)?([A-Za-z0-9][\w.-]*/[\w.-]+?)(?:@([\w./-]+))?/?$")


class ExportError(SlmboardError):
    """An export that cannot be written (bad input, missing dataset id, ...); nothing was written."""


@dataclass
class ExportSource:
    """The records' location: ``root`` is a local path to read; ``repo_id``/``revision`` name the dataset."""

    root: Path
    label: str  # what the files call the dataset: the Hub id, or the folder / file path as given
    repo_id: str | None = None
    revision: str | None = None  # commit of the dataset (git HEAD, or the Hub snapshot's commit)
    timestamp: int = 0  # unix seconds: the commit's time, else the newest record file's mtime
    card: dict = field(default_factory=dict)  # the dataset card's YAML header ({} when there is none)

    @property
    def url(self) -> str | None:
        return f"https://huggingface.co/datasets/{self.repo_id}" if self.repo_id else None


def open_source(data: str | Path) -> ExportSource:
    """A local file/folder as is; ``ORG/NAME[@REV]`` or ``hf://datasets/ORG/NAME[@REV]`` (not a local
    path) is downloaded with ``snapshot_download`` and read from its commit-named snapshot."""
    path = Path(str(data)).expanduser()
    if path.exists():
        revision, stamp = _git_head(path)
        return ExportSource(path, str(data), None, revision, stamp or _newest_mtime(path), _card_header(path))
    m = _HUB_ID.match(str(data).strip())
    if not m:
        raise ExportError(f"{data}: no such file or folder, and not a Hub dataset id (ORG/NAME or hf://datasets/ORG/NAME)")
    repo_id, rev = m.group(1), m.group(2)
    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.errors import HfHubHTTPError

    try:
        info = HfApi().dataset_info(repo_id, revision=rev)
        snap = Path(snapshot_download(repo_id, repo_type="dataset", revision=info.sha))
    except HfHubHTTPError as exc:
        raise ExportError(f"cannot read Hub dataset {repo_id}{'@' + rev if rev else ''}: {exc}") from None
    stamp = int(info.last_modified.timestamp()) if info.last_modified else _newest_mtime(snap)
    return ExportSource(snap, repo_id, repo_id, info.sha, stamp, _card_header(snap))


def read_records(source: ExportSource) -> pd.DataFrame:
    """Every per-item record (all columns), with the source file named in any error."""
    from ..reading import read_item_frame

    return read_item_frame(source.root)


def leaderboard(items: pd.DataFrame, n_bootstrap: int = N_BOOTSTRAP, seed: int = 0) -> pd.DataFrame:
    """The leaderboard recomputed from ``items`` exactly as ``slmboard rank`` computes it."""
    from ..scoring import compute_leaderboard
    from ..scoring.leaderboard import REQUIRED_COLUMNS

    cols = [c for c in (*REQUIRED_COLUMNS, "submission_id", "model_revision") if c in items.columns]
    return compute_leaderboard(items[cols], n_bootstrap=n_bootstrap, seed=seed)


def _git_head(path: Path) -> tuple[str | None, int | None]:
    root = path if path.is_dir() else path.parent
    if not (root / ".git").exists():
        return None, None
    proc = subprocess.run(["git", "log", "-1", "--format=%H %ct"], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0 or not proc.stdout.strip():
        return None, None
    sha, stamp = proc.stdout.split()
    return sha, int(stamp)


def _newest_mtime(path: Path) -> int:
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file() and ".git" not in p.parts]
    return int(max((p.stat().st_mtime for p in files), default=0))


def _card_header(path: Path) -> dict:
    readme = path / "README.md" if path.is_dir() else None
    if readme is None or not readme.is_file():
        return {}
    from ..publishing.card import read_card_header

    return read_card_header(readme.read_text(encoding="utf-8"))
