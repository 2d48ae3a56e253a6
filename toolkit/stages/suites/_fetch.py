"""Find a suite's source files: in SLMBOARD_DATA_DIR when set, else fetched at the pinned revision into a cache
beside the Hugging Face hub cache."""
from __future__ import annotations

import os
from pathlib import Path

from ._base import SuiteDataError
from ._sources import DATA_DIR_ENV, UrlFile, download_url, env_data_dir

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


def _hint(suite: str, revision: str, mirror_path: str) -> str:
    return (f"Download it into a folder DIR with `slmboard suites download` (toolkit.api.download_suites) where there is "
            f"network (revision {revision}); then pass data_dir=DIR (or set {DATA_DIR_ENV}=DIR) to read DIR/{mirror_path}.")


def in_env_data_dir(suite: str, relative: str, patterns: tuple[str, ...] = ()) -> Path | None:
    """The file (or, with ``patterns``, the folder holding matching files) under SLMBOARD_DATA_DIR; None when that
    variable is unset. Set but missing there is an error: the variable says "read suites from here"."""
    root = env_data_dir()
    if root is None:
        return None
    path = root / relative
    found = any(path.glob(p) for p in patterns) if patterns else path.is_file()
    if not found:
        raise SuiteDataError(f"suite '{suite}': {DATA_DIR_ENV} is {root}, which holds no {relative}"
                             f"{' (' + ', '.join(patterns) + ')' if patterns else ''}; "
                             f"`slmboard suites download` (toolkit.api.download_suites) fetches it there", param="data_dir")
    return path


def fetch_url(file: UrlFile, *, suite: str, revision: str) -> Path:
    """The local copy of ``file`` (a URL pinned to ``revision``): in SLMBOARD_DATA_DIR when set, else in the cache,
    downloading it once (its hash checked) if needed."""
    local = in_env_data_dir(suite, file.path)
    if local is not None:
        return local
    target = cache_root() / suite / revision / Path(file.path).name
    if target.is_file():
        return target
    if offline():
        raise SuiteDataError(
            f"suite '{suite}': no local copy, and HF_HUB_OFFLINE is set so its source {file.url} cannot be fetched "
            f"(looked in {target}). " + _hint(suite, revision, file.path), param="data_dir"
        )
    try:
        download_url(file, target, suite)
    except SuiteDataError as exc:
        raise SuiteDataError(f"{exc}. " + _hint(suite, revision, file.path), param="data_dir") from None
    return target


def fetch_hub_file(repo_id: str, filename: str, *, suite: str, revision: str, mirror_path: str) -> Path:
    """A file of a Hub dataset repo at ``revision``, through the ordinary Hugging Face cache."""
    from huggingface_hub import hf_hub_download

    from toolkit.core.hub_access import current_token

    local = in_env_data_dir(suite, mirror_path)
    if local is not None:
        return local
    source = f"hf://datasets/{repo_id}/{filename}"
    try:
        return Path(
            hf_hub_download(
                repo_id, filename, repo_type="dataset", revision=revision, local_files_only=offline(),
                token=current_token(),  # a gated benchmark: the command's --token
            )
        )
    except Exception as exc:  # hub errors have many types; all mean "not available"
        why = "HF_HUB_OFFLINE is set and it is not cached" if offline() else (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise SuiteDataError(
            f"suite '{suite}': could not get {source}: {why}. " + _hint(suite, revision, mirror_path), param="data_dir"
        ) from exc


def fetch_hub_snapshot(repo_id: str, patterns: list[str], *, suite: str, revision: str, mirror_dir: str) -> Path:
    """The files of a Hub dataset repo matching ``patterns`` at ``revision`` (ordinary HF cache); the snapshot folder."""
    from huggingface_hub import snapshot_download

    from toolkit.core.hub_access import current_token

    local = in_env_data_dir(suite, mirror_dir, tuple(patterns))
    if local is not None:
        return local
    source = f"hf://datasets/{repo_id} ({', '.join(patterns)})"
    try:
        return Path(
            snapshot_download(
                repo_id, repo_type="dataset", revision=revision, allow_patterns=patterns, local_files_only=offline(),
                token=current_token(),
            )
        )
    except Exception as exc:  # hub errors have many types; all mean "not available"
        why = "HF_HUB_OFFLINE is set and it is not cached" if offline() else (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise SuiteDataError(
            f"suite '{suite}': could not get {source}: {why}. " + _hint(suite, revision, mirror_dir + "/"),
            param="data_dir",
        ) from exc
