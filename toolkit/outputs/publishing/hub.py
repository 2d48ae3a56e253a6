"""The Hugging Face Hub publisher: the same submission as the local folder, as one Hub commit.

Per-item records go to new files only (one per submission, suite and judge), so two submitters
never write the same path. The shared files (README.md from dataset_card.md, the leaderboard, the
submissions index) depend on everything already published: they are rebuilt from a snapshot of the
branch head and committed with ``parent_commit=head``. If someone else committed in between the Hub
answers 412 (branch moved) or 409 (commit in progress); we then re-read the new head, rebuild and
try again. datasets' own push retry does not recognise hub 2.4's error type, hence our own loop.

``create_pr=True`` opens a pull request instead (moderated leaderboards): a maintainer merges it.
The token is the command's (:mod:`toolkit.core.hub_access`; by default huggingface_hub's HF_TOKEN / its login);
it is never put into a record, a manifest, a log line or an error message. Hub failures end in one
:class:`~toolkit.core.errors.HubAccessError` naming the dataset and what to do.
"""
from __future__ import annotations

import os
import random
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from toolkit.core.dataset_ref import DatasetRef
from toolkit.core.errors import (BadOption, HubCommitConflict, NothingToCommit, PublishError, SlmboardError,
                                 ValidationFailed)



@dataclass
class HubCommit:
    revision: str
    files: list[str]
    attempts: int
    pr_url: str | None = None
    pr_revision: str | None = None  # "refs/pr/N" in PR mode


def parse_target(to: str | os.PathLike, param: str | None = "to") -> DatasetRef:
    """``--to`` as a dataset reference for writing (:class:`~toolkit.core.dataset_ref.DatasetRef`, the grammar
    every command reads DATA with): a Hub id or ``hf://datasets/...`` is the Hub, an existing folder or an
    explicit path (``./x``, ``/x``, ``~/x``) is a folder; any other name is refused as ambiguous."""
    return DatasetRef.parse(to, writing=True, param=param)


def scrub(text: str, token: str | None) -> str:
    """Remove the token (and anything that looks like a token) from a message (:func:`~toolkit.core.secrets.scrub_secrets`)."""
    from toolkit.core.secrets import scrub_secrets

    return scrub_secrets(text, [token])


def _token() -> str | None:
    """The token Hub calls carry now (the command's, else huggingface_hub's own), to scrub from messages."""
    from huggingface_hub import get_token

    from toolkit.core.hub_access import current_token

    return current_token() or get_token()


class HubPublisher:
    """Publish to the dataset repo ``repo_id`` on the Hub (or whatever HF_ENDPOINT points at)."""

    def __init__(self, repo_id: str, create_pr: bool = False, private: bool = False, max_attempts: int = 8,
                 xet: bool | None = None, revision: str = "main", gate_new_repo: bool = True, create: bool = True):
        self.repo_id = repo_id
        self.gate_new_repo = gate_new_repo  # records hold harmful completions: a repo we create is gated
        self.create = create  # False (recompute): a missing repo is an error, never created under a mistyped name
        self.create_pr = create_pr
        self.private = private
        self.max_attempts = max_attempts
        self.revision = revision
        if xet is False:  # classic LFS upload; huggingface_hub checks this flag at upload time
            from huggingface_hub import constants

            constants.HF_HUB_DISABLE_XET = True

    def __repr__(self) -> str:
        return f"HubPublisher({self.repo_id!r})"

    @property
    def shown(self) -> str:
        """How errors name the dataset's files (as reading names them): ``ORG/NAME[@REV]/PATH``."""
        return self.repo_id + ("" if self.revision == "main" else f"@{self.revision}")

    def _api(self):
        from toolkit.core.hub_access import hub_api

        return hub_api()

    def _call(self, write: bool = False):
        """Hub failures inside become one HubAccessError about this dataset."""
        from toolkit.core.hub_access import hub_call

        return hub_call(self.repo_id, write=write, pull_request=write and self.create_pr)

    def check_branch(self) -> None:
        """A submission is committed onto a branch: ``@REV`` naming a tag, a commit or a pull request is refused
        (before anything is written), naming the branches there are."""
        if self.revision == "main":
            return
        with self._call():
            refs = self._api().list_repo_refs(self.repo_id, repo_type="dataset")
        branches = [b.name for b in refs.branches]
        if self.revision not in branches:
            what = "a tag" if self.revision in [t.name for t in refs.tags] else "not a branch"
            raise BadOption(f"{self.repo_id}@{self.revision}: {self.revision!r} is {what} of the dataset; a submission is "
                            f"committed onto a branch ({', '.join(branches) or 'none yet'})", param="to")

    def head(self) -> str | None:
        from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError

        with self._call():
            try:
                return self._api().repo_info(self.repo_id, repo_type="dataset", revision=self.revision).sha
            except (RepositoryNotFoundError, RevisionNotFoundError):
                return None

    def snapshot(self, revision: str, dest: Path) -> Path:
        """A writable copy of the repo at ``revision`` (the cache's snapshot folder is named by commit,
        so a re-read never serves stale files)."""
        from huggingface_hub import snapshot_download

        from toolkit.core.hub_access import current_token

        with self._call():
            snap = snapshot_download(self.repo_id, repo_type="dataset", revision=revision, token=current_token())
        shutil.copytree(snap, dest, symlinks=False, ignore=shutil.ignore_patterns(".cache"))
        return dest

    def commit(self, message: str, write: Callable[[Path], list[str]]) -> HubCommit:
        """Snapshot the head, let ``write(root)`` add files and rebuild the shared ones, commit every
        changed file under ``parent_commit=head``; on 412/409 start over from the new head. A repo this call
        creates is deleted again when its first commit fails (no empty dataset is left under the name)."""
        api = self._api()
        with self._call(write=True):
            existed = api.repo_exists(self.repo_id, repo_type="dataset")
            if not existed and not self.create:
                from toolkit.core.hub_access import not_found

                raise not_found(self.repo_id)
            api.create_repo(self.repo_id, repo_type="dataset", exist_ok=True, private=self.private)
        if existed:
            return self._commit(message, write)
        first_head = None
        try:
            first_head = self.head()
            if self.gate_new_repo:
                self.set_gated("auto")  # before the first record is uploaded
            return self._commit(message, write)
        except BaseException:
            self._remove_new_repo(first_head)  # a failed first commit leaves no empty dataset behind
            raise

    def _remove_new_repo(self, first_head: str | None) -> None:
        """Delete the repo this command created, unless someone else committed to it meanwhile; a failure here
        is not reported over the error that brought us here."""
        try:
            if first_head is not None and self.head() == first_head:
                with self._call(write=True):
                    self._api().delete_repo(self.repo_id, repo_type="dataset")
        except Exception:  # noqa: BLE001 - the original failure is the one to report
            pass

    def _commit(self, message: str, write: Callable[[Path], list[str]]) -> HubCommit:
        from huggingface_hub import CommitOperationAdd

        api = self._api()
        delay = 0.5
        for attempt in range(1, self.max_attempts + 1):
            head = self.head()
            if head is None:
                raise PublishError(f"dataset {self.repo_id} has no branch {self.revision!r}")
            with tempfile.TemporaryDirectory(prefix="slmboard-hub-") as tmp:
                root = self.snapshot(head, Path(tmp) / "repo")
                before = _digests(root)
                try:
                    write(root)  # raises (nothing committed) when the submission is refused
                except SlmboardError as exc:
                    _name_as_the_datasets(exc, root, self.shown)
                    raise
                after = _digests(root)
                changed = sorted(p for p, d in after.items() if before.get(p) != d)
                ops = [CommitOperationAdd(p, (root / p).read_bytes()) for p in changed]
                if not ops:
                    raise NothingToCommit("nothing to commit: the dataset already holds exactly these files")
                try:
                    with self._call(write=True):
                        info = api.create_commit(self.repo_id, ops, commit_message=message, repo_type="dataset",
                                                 revision=self.revision, parent_commit=head, create_pr=self.create_pr)
                except HubCommitConflict as exc:
                    if attempt < self.max_attempts:
                        time.sleep(delay * (1 + random.random()))  # jitter: two retriers must not collide again
                        delay = min(delay * 2, 8.0)
                        continue
                    exc.args = (f"{exc.problem}, {attempt} attempts; {exc.advice}",)
                    raise
                return HubCommit(info.oid, changed, attempt, info.pr_url, info.pr_revision)
        raise PublishError(f"commit to {self.repo_id} kept conflicting; gave up after {self.max_attempts} attempts")

    def set_gated(self, gated: str | bool) -> None:
        """Access requests on the dataset (``"auto"``: approved once the card's form is filled; False: open)."""
        with self._call(write=True):
            self._api().update_repo_settings(self.repo_id, repo_type="dataset", gated=gated)

    def verify(self, revision: str, hashes: dict[str, str]) -> list[str]:
        """Paths whose published content hash (LFS sha256) differs from the manifest's; [] when all agree."""
        with self._call():
            infos = self._api().get_paths_info(self.repo_id, list(hashes), repo_type="dataset", revision=revision)
        seen = {i.path: i for i in infos}
        bad = []
        for path, sha in hashes.items():
            info = seen.get(path)
            if info is None:
                bad.append(f"{path}: missing after commit")
            elif getattr(info, "lfs", None) is not None and info.lfs.sha256 != sha:
                bad.append(f"{path}: sha256 {info.lfs.sha256} on the Hub, {sha} in the manifest")
        return bad


def _name_as_the_datasets(exc: SlmboardError, root: Path, shown: str) -> None:
    """``exc`` naming the files of the snapshot (a temporary folder of ours, gone once the command ends) as the
    dataset's own files, ``SHOWN/PATH``."""
    from dataclasses import replace

    def named(text: str) -> str:
        return text.replace(str(root) + os.sep, shown + "/").replace(str(root), shown)

    exc.args = tuple(named(a) if isinstance(a, str) else a for a in exc.args)
    if isinstance(exc, ValidationFailed):
        exc.errors = [replace(e, file=named(e.file), message=named(e.message)) for e in exc.errors]


def _digests(root: Path) -> dict[str, str]:
    import hashlib

    out = {}
    for p in root.rglob("*"):
        if p.is_file() and ".cache" not in p.relative_to(root).parts:
            out[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out
