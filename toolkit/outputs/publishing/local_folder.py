"""The embedded hub: a local folder that is a git repository, one commit per submission.

A submission either lands whole (one commit) or not at all: files are written into the work tree
only after validation, under an exclusive lock, with an in-flight marker; any failure — or a crash
found by the next writer through that marker — is rolled back to the last commit.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from toolkit.core.errors import NothingToCommit, PublishError

_GIT_IDENTITY = ["-c", "user.name=slmboard", "-c", "user.email=slmboard@localhost", "-c", "commit.gpgsign=false"]
_INFLIGHT = "slmboard-inflight"
#: where a submission stages its files until just before its commit (inside .git: no reader sees them)
STAGING = ".git/slmboard-staged"


@dataclass
class CommitInfo:
    revision: str
    message: str
    files: list[str]


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    proc = subprocess.run(["git", *_GIT_IDENTITY, *args], cwd=root, capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise PublishError(f"git {' '.join(args)} failed in {root}: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc


class LocalFolderHub:
    """Publish into ``root`` (created and ``git init``-ed on first use)."""

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()

    def __repr__(self) -> str:
        return f"LocalFolderHub({str(self.root)!r})"

    # -- reading ---------------------------------------------------------------------------
    def exists(self) -> bool:
        return (self.root / ".git").is_dir()

    def head(self) -> str | None:
        if not self.exists():
            return None
        proc = _git(self.root, "rev-parse", "--verify", "-q", "HEAD", check=False)
        return proc.stdout.strip() or None

    def ref_kind(self, name: str) -> str | None:
        """"tag" or "branch" when the repository has a ref of that name; else None."""
        for kind, prefix in (("tag", "refs/tags/"), ("branch", "refs/heads/")):
            if _git(self.root, "show-ref", "--verify", "-q", prefix + name, check=False).returncode == 0:
                return kind
        return None

    def snapshot_dir(self) -> Path:
        """Where readers find the files (the work tree itself for a local folder)."""
        return self.root

    # -- writing ---------------------------------------------------------------------------
    def _ensure_repo(self) -> None:
        if self.root.exists() and not self.root.is_dir():
            raise PublishError(f"{self.root} exists and is not a folder")
        if self.root.is_dir() and not self.exists() and any(self.root.iterdir()):
            raise PublishError(f"{self.root} is a non-empty folder that is not a dataset repository (no .git)")
        self.root.mkdir(parents=True, exist_ok=True)
        if not self.exists():
            self._init_repo()

    def _init_repo(self) -> None:
        # Two first submitters may race here, before any lock exists: each builds a repository in
        # its own scratch folder and renames its .git into place; a rename onto the winner's
        # (non-empty) .git fails, and the loser simply uses the winner's.
        try:
            scratch = Path(tempfile.mkdtemp(prefix=f".{self.root.name}.init-", dir=self.root.parent))
        except PermissionError:  # a given empty folder under a read-only parent (a mounted volume)
            _git(self.root, "init", "-q", "-b", "main")
            return
        try:
            _git(scratch, "init", "-q", "-b", "main")
            try:
                os.rename(scratch / ".git", self.root / ".git")
            except OSError as exc:
                if not self.exists():
                    raise PublishError(f"could not create the dataset repository {self.root / '.git'}: {exc}") from exc
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        fd = os.open(self.root / ".git", os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # serialises concurrent submitters on this machine
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _rollback(self) -> None:
        shutil.rmtree(self.root / STAGING, ignore_errors=True)
        if self.head():
            _git(self.root, "reset", "-q", "--hard", "HEAD")
            _git(self.root, "clean", "-q", "-fdx", "-e", ".git")
        else:  # nothing committed yet: the work tree must be empty
            for child in self.root.iterdir():
                if child.name == ".git":
                    continue
                shutil.rmtree(child) if child.is_dir() else child.unlink()
            _git(self.root, "read-tree", "--empty", check=False)

    def has_inflight(self) -> bool:
        """Whether a submission was interrupted after it started writing (rolled back by the next commit)."""
        return (self.root / ".git" / _INFLIGHT).exists()

    def recover(self) -> bool:
        """Undo a submission that a killed process left half-written. Returns True if it did."""
        marker = self.root / ".git" / _INFLIGHT
        if not marker.exists():
            dirty = _git(self.root, "status", "--porcelain", check=False).stdout.strip()
            if dirty:
                raise PublishError(
                    f"{self.root} has uncommitted changes that slmboard did not make; commit or remove them first:\n{dirty[:500]}"
                )
            return False
        self._rollback()
        marker.unlink()
        return True

    def commit(self, message: str, write: Callable[[Path], list[str]], tag: str | None = None) -> CommitInfo:
        """Run ``write(root)`` (which writes files and returns their relative paths), then commit them; ``tag``: and
        tag that commit (an annotated tag, under the same lock: two writers never take one name).

        Everything ``write`` does is rolled back if it, or the commit, fails.
        """
        self._ensure_repo()
        with self._locked():
            self.recover()
            marker = self.root / ".git" / _INFLIGHT
            marker.write_text(str(os.getpid()))
            try:
                files = write(self.root)
                _git(self.root, "add", "-A")
                if not _git(self.root, "status", "--porcelain", check=False).stdout.strip():
                    raise NothingToCommit("nothing to commit: the dataset already holds exactly these files")
                before = self.head()
                _git(self.root, "commit", "-q", "-m", message)
                if tag is not None:
                    tagged = _git(self.root, "tag", "-a", tag, "-m", message, check=False)
                    if tagged.returncode != 0:  # the commit goes too: no untagged release entry is left behind
                        if before:
                            _git(self.root, "reset", "-q", "--soft", before)
                        raise PublishError(f"git tag {tag} failed in {self.root}: {tagged.stderr.strip()}")
            except BaseException:
                self._rollback()
                marker.unlink(missing_ok=True)
                raise
            marker.unlink()
            return CommitInfo(revision=self.head() or "", message=message, files=files)
