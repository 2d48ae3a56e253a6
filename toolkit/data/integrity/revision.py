"""A local board at one revision: the one reader of a board folder's git history (part of the data layer).

:func:`read_local_board` resolves a revision of a board folder (HEAD by default) to the commit it names
and to the manifests that commit holds, read from git itself, so a file a killed or foreign writer left
in the work tree (an uncommitted manifest, an edited one) is never taken for a published one. At HEAD the
board's files are read from the work tree (their hashes are checked against those manifests before any
row is used: :mod:`.checked`); at an older revision they are read from a copy of that commit's tree,
made once per commit. A folder that is not a git repository (a copy, a Hub snapshot) has no revision:
its manifests are the files under ``submissions/``.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from toolkit.core import dataset_layout as layout
from toolkit.core.errors import RecordFileError

__all__ = ["BoardRevision", "read_local_board"]


@dataclass(frozen=True)
class BoardRevision:
    """A board folder at one commit."""

    folder: Path  # the board's folder (its git work tree)
    root: Path  # where the revision's files are read: the work tree at HEAD, else a copy of the commit's tree
    commit: str | None  # None: not a git repository, or nothing committed yet
    timestamp: int | None  # unix seconds of the commit
    manifests: dict[str, bytes]  # dataset-relative manifest path -> its bytes at that commit

    @property
    def committed(self) -> bool:
        return self.commit is not None


def _git(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, env=env)


def _blobs(root: Path, commit: str, paths: list[str]) -> dict[str, bytes]:
    """The bytes of ``paths`` at ``commit``, all read by one ``git cat-file --batch``."""
    if not paths:
        return {}
    proc = _git(root, "cat-file", "--batch", stdin="".join(f"{commit}:{p}\n" for p in paths).encode())
    out, pos, found = proc.stdout, 0, {}
    for path in paths:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            found[path] = out[pos:pos + size]
            pos += size + 1
    return found


def read_local_board(folder: str | Path, revision: str = "HEAD") -> BoardRevision:
    """``folder`` at ``revision`` (a commit, branch or tag; HEAD by default). Not a git repository, or
    nothing committed yet: every manifest of the folder, no commit (``revision`` other than HEAD is then an
    error). An unknown revision is one :class:`RecordFileError` naming it."""
    folder = Path(folder)
    if not (folder / ".git").exists():
        if revision != "HEAD":
            raise RecordFileError(f"{folder}: not a git repository, so it has no revision {revision!r}")
        return BoardRevision(folder, folder, None, None, _folder_manifests(folder))
    proc = _git(folder, "log", "-1", "--format=%H %ct", revision, "--")
    if proc.returncode != 0 or not proc.stdout.strip():
        if revision == "HEAD":  # a board repository with nothing committed yet: it publishes nothing
            return BoardRevision(folder, folder, None, None, {})
        raise RecordFileError(f"{folder}: no revision {revision!r} (a commit, branch or tag of the board's git history)")
    commit, stamp = proc.stdout.decode().split()
    listed = _git(folder, "ls-tree", "-r", "--name-only", commit, "--", f"{layout.MANIFEST_DIR}/").stdout.decode().split("\n")
    manifests = _blobs(folder, commit, [p for p in listed if layout.is_manifest_path(p)])
    head = _git(folder, "rev-parse", "HEAD").stdout.decode().strip()
    root = folder if commit == head else _tree_copy(folder, commit)
    return BoardRevision(folder, root, commit, int(stamp), manifests)


def _folder_manifests(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in layout.manifest_files(folder)}


def _tree_copy(folder: Path, commit: str) -> Path:
    """The files of ``commit`` in a folder of their own (made once per commit, beside the system's temp files)."""
    target = Path(tempfile.gettempdir()) / "slmboard-revisions" / commit
    if (target / ".complete").is_file():
        return target
    scratch = Path(tempfile.mkdtemp(prefix=f".{commit[:12]}-", dir=_parent(target)))
    archive = _git(folder, "archive", "--format=tar", commit)
    subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive.stdout, check=True, capture_output=True)
    (scratch / ".complete").write_text(commit)
    try:
        os.rename(scratch, target)
    except OSError:  # another reader made it first
        subprocess.run(["rm", "-rf", str(scratch)], check=False)
    return target


def _parent(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    return target.parent
