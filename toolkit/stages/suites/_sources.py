"""What each suite's data is made of (files at a pinned revision) and ``slmboard suites download``: those files
into a data folder laid out as ``data_dir`` reads it, each checked against its pinned hash, for machines without
network (then ``--data-dir DIR``, or ``SLMBOARD_DATA_DIR=DIR``).

Two kinds of source: a file at a URL that names a commit (checked against its SHA-256), and files of a Hub
dataset at a commit (the commit is their hash: the Hub serves exactly those bytes for it). A source pinned to a
branch (SALAD's ``main``) is downloaded at the commit the branch points to now, and that commit is recorded.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator, Sequence

from ._base import SuiteDataError

#: the data folder every suite reads when no data_dir is given (what `slmboard suites download` filled)
DATA_DIR_ENV = "SLMBOARD_DATA_DIR"
#: what `suites download` writes beside the files: which suite, source, revision and hash each one is
MANIFEST = "slmboard-suites.json"
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class UrlFile:
    """One file at a URL that names a pinned commit."""

    url: str
    path: str  # where a data folder holds it (relative; the layout data_dir reads)
    #: hex SHA-256 of its bytes; a prefix (>= 8 digits) where only that much is published; None: not pinned
    sha256: str | None

    def check(self, digest: str, suite: str) -> None:
        if self.sha256 is not None and not digest.startswith(self.sha256):
            raise SuiteDataError(f"suite '{suite}': {self.url} has SHA-256 {digest}, not the pinned {self.sha256}; "
                                 "the file changed upstream or was altered on the way, so it was not kept")


@dataclass(frozen=True)
class HubFiles:
    """Files of a Hub dataset matching ``patterns`` at ``revision``."""

    repo_id: str
    patterns: tuple[str, ...]
    revision: str
    folder: str  # where a data folder holds them

    @property
    def pinned(self) -> bool:
        return bool(_COMMIT.match(self.revision))


Source = UrlFile | HubFiles


@dataclass(frozen=True)
class FetchedFile:
    """One file ``suites download`` left in the data folder, and what it is."""

    suite: str
    path: str  # relative to the data folder
    source: str
    revision: str  # the commit its bytes are from
    sha256: str
    fresh: bool  # False: it was already there with the right bytes


def env_data_dir() -> Path | None:
    value = os.environ.get(DATA_DIR_ENV, "").strip()
    return Path(value).expanduser() if value else None


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def download_url(file: UrlFile, target: Path, suite: str) -> tuple[str, bool]:
    """``file`` at ``target`` with its hash checked: (sha256, downloaded now). A half download or a file with
    the wrong bytes is never left at ``target``."""
    if target.is_file():
        digest = _sha256(target)
        if file.sha256 is not None and digest.startswith(file.sha256):
            return digest, False
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    h = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(file.url, timeout=60) as resp:
            while chunk := resp.read(1 << 16):
                h.update(chunk)
                out.write(chunk)
        file.check(h.hexdigest(), suite)
        os.replace(tmp, target)
    except (urllib.error.URLError, OSError) as exc:
        raise SuiteDataError(f"suite '{suite}': could not download {file.url}: {_reason(exc)} (no network here? "
                             "download where there is one and copy the folder)") from None
    finally:
        Path(tmp).unlink(missing_ok=True)
    return h.hexdigest(), True


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    text = str(reason if reason is not None else exc)
    return text.splitlines()[0] if text else type(exc).__name__


def download_hub(files: HubFiles, root: Path, suite: str) -> Iterator[FetchedFile]:
    """The files of ``files`` under ``root/files.folder`` at its commit (a branch: the commit it points to now)."""
    from huggingface_hub import HfApi, snapshot_download

    from toolkit.core.hub_access import current_token, hub_call

    folder = root / files.folder
    with hub_call(files.repo_id, revision=files.revision):
        commit = files.revision if files.pinned else HfApi().dataset_info(
            files.repo_id, revision=files.revision, token=current_token()).sha
        before = {p: _sha256(p) for p in _matching(folder, files.patterns)}
        snapshot_download(files.repo_id, repo_type="dataset", revision=commit, allow_patterns=list(files.patterns),
                          local_dir=folder, token=current_token())
    got = _matching(folder, files.patterns)
    if not got:
        raise SuiteDataError(f"suite '{suite}': hf://datasets/{files.repo_id}@{commit} has no file matching "
                             f"{', '.join(files.patterns)}")
    for path in got:
        digest = _sha256(path)
        yield FetchedFile(suite, path.relative_to(root).as_posix(), f"hf://datasets/{files.repo_id}/{path.name}",
                          commit, digest, before.get(path) != digest)


def _matching(folder: Path, patterns: Sequence[str]) -> list[Path]:
    return sorted({p for pattern in patterns for p in folder.glob(pattern) if p.is_file()})


def download(suites: Sequence, to: Path) -> list[FetchedFile]:
    """Every source file of ``suites`` (Suite instances) into the data folder ``to``; the manifest beside them
    says what each file is. A suite whose data ships with the package (smoke) has nothing to download."""
    to = Path(to).expanduser()
    if to.exists() and not to.is_dir():
        raise SuiteDataError(f"{to}: not a folder", param="to")
    out: list[FetchedFile] = []
    before = _folders(to)
    try:
        for suite in suites:
            for source in suite.sources():
                if isinstance(source, UrlFile):
                    digest, fresh = download_url(source, to / source.path, suite.name)
                    out.append(FetchedFile(suite.name, source.path, source.url, suite.revision, digest, fresh))
                else:
                    out.extend(download_hub(source, to, suite.name))
            if out:
                _write_manifest(to, out)  # after each suite: an interrupted download keeps what it finished
    except BaseException:
        _remove_new_empty_folders(to, before)  # a refused download leaves no empty suite folder behind
        raise
    return out


def _folders(root: Path) -> set[Path]:
    if not root.is_dir():
        return set()
    return {root, *(p for p in root.rglob("*") if p.is_dir())}


def _remove_new_empty_folders(root: Path, before: set[Path]) -> None:
    """The folders made by a download that failed and hold no file (the Hub client's ``.cache`` bookkeeping
    aside), deepest first, ``root`` included when the download made it."""
    for folder in sorted(_folders(root) - before, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not any(p.is_file() and ".cache" not in p.relative_to(folder).parts
                                       for p in folder.rglob("*")):
            shutil.rmtree(folder, ignore_errors=True)


def _write_manifest(to: Path, files: list[FetchedFile]) -> None:
    path = to / MANIFEST
    try:
        old = {f["path"]: f for f in json.loads(path.read_text(encoding="utf-8"))["files"]} if path.is_file() else {}
    except (ValueError, KeyError, TypeError):
        old = {}  # a damaged manifest is rewritten from what is downloaded now
    for f in files:
        entry = asdict(f)
        entry.pop("fresh")
        old[f.path] = entry
    body = json.dumps({"files": [old[k] for k in sorted(old)]}, indent=1) + "\n"
    tmp = path.with_name(f".{MANIFEST}.part")
    tmp.write_text(body, encoding="utf-8")
    os.replace(tmp, path)
