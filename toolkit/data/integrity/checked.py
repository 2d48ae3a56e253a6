"""What a published board proves it holds: the record files its manifests name, each checked against the
manifest's sha256 before a row of it is used (part of the data layer).

:func:`check_board` takes a board's manifests and the folder its files are in (a work tree, a commit's
copy, a Hub snapshot) and returns a :class:`CheckedFiles`: the files each submission's manifest names and
that hash as listed, and one line per submission refused (a file changed after it was published, or
missing). A file no manifest names (left by a killed writer, or put there by hand) is not read at all.

Hashes are checked once per board revision: the result is kept per (board, commit, file) with the file's
size and modification time, so a process that reads the same revision again (the Space, ``recompute``,
``submit``'s rebuild) hashes only what changed.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from toolkit.core import dataset_layout as layout
from toolkit.core.errors import RecordFileError

__all__ = ["CheckedFiles", "TamperedBoard", "check_board", "file_sha256"]

#: (board, commit or "", dataset-relative path) -> (sha256 it matched, size, mtime_ns) when it was hashed
_VERIFIED: dict[tuple[str, str, str], tuple[str, int, int]] = {}


class TamperedBoard(RecordFileError):
    """A board file differs from what its submission's manifest records (or is missing): never ranked."""


@dataclass
class CheckedFiles:
    """The record files of a board that its manifests name and that match them."""

    files: dict[str, str] = field(default_factory=dict)  # dataset-relative path -> submission id
    refused: dict[str, str] = field(default_factory=dict)  # submission id -> one line: which file, and why

    def raise_refused(self) -> None:
        if self.refused:
            lines = list(self.refused.values())
            raise TamperedBoard(lines[0] if len(lines) == 1 else "\n".join(lines))


def file_sha256(path: Path) -> str:
    """sha256 of the file's bytes, read in blocks (nothing of it is kept)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _matches(board: str, commit: str, rel: str, path: Path, expected: str) -> bool:
    st = path.stat()
    key = (board, commit, rel)
    if _VERIFIED.get(key) == (expected, st.st_size, st.st_mtime_ns):
        return True
    if file_sha256(path) != expected:
        return False
    _VERIFIED[key] = (expected, st.st_size, st.st_mtime_ns)
    return True


def check_board(manifests: Sequence, where: Callable[[str], Path | None], board: str, commit: str | None,
                name: Callable[[str], str], suites: Sequence[str] | None = None,
                absent_ok: bool = False) -> CheckedFiles:
    """Check every record file ``manifests`` (:class:`schemas.Submission`) name: ``where(rel)`` is the
    file on this machine (None: absent), ``name(rel)`` how a message names it; ``board`` and ``commit``
    key the cache. ``suites``: only those suites' files (a Hub snapshot may hold no others);
    ``absent_ok``: a listed file that is absent is passed over (a partial download), not refused."""
    out = CheckedFiles()
    for manifest in manifests:
        sid = manifest.submission_id
        for rf in manifest.record_files:
            if suites and rf.suite and rf.suite not in suites:
                continue
            path = where(rf.path)
            if path is None:
                if not absent_ok:
                    out.refused.setdefault(sid, f"{name(rf.path)}: listed by submission {sid}'s manifest but missing; "
                                                f"the submission is not read (restore the file from the board's history)")
                continue
            if not _matches(board, commit or "", rf.path, path, rf.sha256):
                out.refused.setdefault(sid, f"{name(rf.path)}: changed after it was published (sha256 differs from "
                                            f"submission {sid}'s manifest {layout.manifest_file(sid)}); the submission is "
                                            f"not read — restore the file from the board's history")
                continue
            out.files[rf.path] = sid
    for sid in out.refused:  # a refused submission is left out whole, never in part
        out.files = {rel: s for rel, s in out.files.items() if s != sid}
    return out
