"""Fetch a suite's source file at a pinned revision into a cache beside the Hugging Face hub cache."""
from __future__ import annotations

import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from ._base import SuiteDataError

_TRUE = {"1", "on", "yes", "true"}


def offline() -> bool:
    """HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE), read now: huggingface_hub reads it only at import."""
    from huggingface_hub import constants

    env = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return env.strip().lower() in _TRUE or bool(constants.HF_HUB_OFFLINE)


def cache_root() -> Path:
    # Looked up at call time so HF_HOME / a patched constant is honoured.
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE).parent / "slmboard" / "suites"


def _hint(revision: str, mirror_path: str) -> str:
    return (
        f"Download it (revision {revision}) yourself and pass data_dir=DIR with the file at DIR/{mirror_path}."
    )


def fetch_url(url: str, *, suite: str, revision: str, mirror_path: str) -> Path:
    """The cached copy of ``url`` (a URL pinned to ``revision``), downloading it once if needed."""
    target = cache_root() / suite / revision / Path(mirror_path).name
    if target.is_file():
        return target
    if offline():
        raise SuiteDataError(
            f"suite '{suite}': no local copy, and HF_HUB_OFFLINE is set so its source {url} cannot be fetched "
            f"(looked in {target}). " + _hint(revision, mirror_path), param="data_dir"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as resp:
            while chunk := resp.read(1 << 16):
                out.write(chunk)
        os.replace(tmp, target)  # atomic: a half download never looks cached
    except (urllib.error.URLError, OSError) as exc:
        Path(tmp).unlink(missing_ok=True)
        raise SuiteDataError(
            f"suite '{suite}': could not fetch {url}: {exc}. " + _hint(revision, mirror_path), param="data_dir"
        ) from exc
    return target


def fetch_hub_file(repo_id: str, filename: str, *, suite: str, revision: str, mirror_path: str) -> Path:
    """A file of a Hub dataset repo at ``revision``, through the ordinary Hugging Face cache."""
    from huggingface_hub import hf_hub_download

    from toolkit.core.hub_access import current_token

    source = f"hf://datasets/{repo_id}/{filename}"
    try:
        return Path(
            hf_hub_download(
                repo_id, filename, repo_type="dataset", revision=revision, local_files_only=offline(),
                token=current_token(),  # a gated benchmark: the command's --token
            )
        )
    except Exception as exc:  # hub errors have many types; all mean "not available"
        why = "HF_HUB_OFFLINE is set and it is not cached" if offline() else str(exc)
        raise SuiteDataError(
            f"suite '{suite}': could not get {source}: {why}. " + _hint(revision, mirror_path), param="data_dir"
        ) from exc


def fetch_hub_snapshot(repo_id: str, patterns: list[str], *, suite: str, revision: str, mirror_dir: str) -> Path:
    """The files of a Hub dataset repo matching ``patterns`` at ``revision`` (ordinary HF cache); the snapshot folder."""
    from huggingface_hub import snapshot_download

    from toolkit.core.hub_access import current_token

    source = f"hf://datasets/{repo_id} ({', '.join(patterns)})"
    try:
        return Path(
            snapshot_download(
                repo_id, repo_type="dataset", revision=revision, allow_patterns=patterns, local_files_only=offline(),
                token=current_token(),
            )
        )
    except Exception as exc:  # hub errors have many types; all mean "not available"
        why = "HF_HUB_OFFLINE is set and it is not cached" if offline() else str(exc)
        raise SuiteDataError(
            f"suite '{suite}': could not get {source}: {why}. Download it (revision {revision}) yourself and pass "
            f"data_dir=DIR with the files under DIR/{mirror_dir}/.",
            param="data_dir",
        ) from exc
