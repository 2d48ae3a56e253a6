"""`slmboard space deploy ORG/SPACE --data ORG/DATASET`: create or update the Gradio Space of a
leaderboard dataset.

The Space repo gets ``app.py`` (a two-line entry point), ``space/`` (the app, one module per tab),
``schemas/`` and ``toolkit/`` (the Judges, Items and Moderators tabs read records through the
toolkit's light modules; nothing there imports torch at import time), ``requirements.txt`` and the
Space card (``README.md``). ``SLMBOARD_DATA`` is set as a Space variable; when the dataset is private
or gated the deploying token becomes the Space secret ``HF_TOKEN`` so the Space can read it.
Idempotent: only files whose git blob id differs from the Space's are committed, so a second run
with nothing changed makes no commit.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.core.errors import SlmboardError

REPO_ROOT = Path(__file__).resolve().parents[2]  # toolkit/outputs/ -> the checkout
SHIPPED_PACKAGES = ("space", "schemas", "toolkit")  # whole packages: their __init__s import siblings
SKIP_SUFFIXES = (".pyc", ".pyo")
ENTRY_POINT = '''"""Entry point of the slmboard leaderboard Space (written by `slmboard space deploy`).
The dataset comes from the Space variable SLMBOARD_DATA."""
from space.app import main

main()
'''
DATA_VARIABLE = "SLMBOARD_DATA"
TOKEN_SECRET = "HF_TOKEN"


@dataclass
class DeployResult:
    space_id: str
    url: str
    commit: str | None  # None: nothing changed, no commit made
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    variable_set: bool = False
    token_secret: bool = False


def git_blob_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def space_files(root: Path = REPO_ROOT) -> dict[str, bytes]:
    """{path in the Space repo: content} for everything the Space needs to render every tab."""
    files: dict[str, bytes] = {"app.py": ENTRY_POINT.encode()}
    for package in SHIPPED_PACKAGES:
        base = root / package
        if not (base / "__init__.py").is_file():
            raise SlmboardError(f"{base}: package missing from this install of slmboard; reinstall slmboard")
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(root)
            if path.is_file() and "__pycache__" not in rel.parts and path.suffix not in SKIP_SUFFIXES \
                    and rel.as_posix() not in ("space/README.md", "space/requirements.txt"):
                files[rel.as_posix()] = path.read_bytes()
    files["README.md"] = (root / "space" / "README.md").read_bytes()
    files["requirements.txt"] = (root / "space" / "requirements.txt").read_bytes()
    return files


def _remote_ids(api, space_id: str) -> dict[str, str]:
    """{path: "git:<blob id>" or "lfs:<sha256>"} of the Space's files (LFS files are compared by content hash)."""
    from huggingface_hub.hf_api import RepoFile

    return {e.path: f"lfs:{e.lfs.sha256}" if e.lfs else f"git:{e.blob_id}"
            for e in api.list_repo_tree(space_id, repo_type="space", recursive=True) if isinstance(e, RepoFile)}


def _same(remote: str | None, data: bytes) -> bool:
    if remote is None:
        return False
    kind, _, value = remote.partition(":")
    return value == (hashlib.sha256(data).hexdigest() if kind == "lfs" else git_blob_oid(data))


def _dataset_needs_token(api, data: str) -> bool:
    from toolkit.core.hub_access import hub_call

    repo, _, revision = data.partition("@")
    with hub_call(repo, "dataset", revision=revision or None):
        info = api.dataset_info(repo, revision=revision or None)
    return bool(info.private) or bool(info.gated)


def deploy_space(space_id: str, data: str, private: bool = False, token: str | None = None,
                 root: Path = REPO_ROOT) -> DeployResult:
    from toolkit.core.hub_access import hub_token

    from toolkit.core.dataset_ref import HUB_PREFIX, DatasetRef, is_repo_id

    if not is_repo_id(space_id):
        raise SlmboardError(f"expected ORG/SPACE, got {space_id!r}", param="space")
    text = str(data).strip()  # the Space reads the Hub only: ORG/NAME here is never a local folder
    if not text.startswith("hf://") and not is_repo_id(text.partition("@")[0]):
        raise SlmboardError(f"{text!r}: a Space shows a board on the Hub (ORG/NAME or {HUB_PREFIX}ORG/NAME[@REV]), "
                            "not a local folder; publish the board to the Hub first, or show the folder on this "
                            "machine with `slmboard serve`", param="data")
    ref = DatasetRef.parse(text if text.startswith("hf://") else HUB_PREFIX + text, param="data")
    with hub_token(token):
        return _deploy(space_id, str(ref), private, root)


def _deploy(space_id: str, data: str, private: bool, root: Path) -> DeployResult:
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    from toolkit.core.hub_access import current_token, hub_api, hub_call

    api = hub_api()
    needs_token = _dataset_needs_token(api, data)  # before creating anything: a wrong id writes nothing
    with hub_call(space_id, "space", write=True):
        api.create_repo(space_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
        if private:
            api.update_repo_settings(space_id, repo_type="space", private=True)
        local = space_files(root)
        remote = _remote_ids(api, space_id)
        changed = sorted(p for p, b in local.items() if not _same(remote.get(p), b))
        deleted = sorted(p for p in remote if p.split("/", 1)[0] in SHIPPED_PACKAGES and p not in local)
        commit = None
        if changed or deleted:
            ops = [CommitOperationAdd(path_in_repo=p, path_or_fileobj=local[p]) for p in changed]
            ops += [CommitOperationDelete(path_in_repo=p) for p in deleted]
            info = api.create_commit(space_id, ops, repo_type="space",
                                     commit_message=f"slmboard space deploy: {len(changed)} file(s) updated, {len(deleted)} removed")
            commit = info.oid
        variable_set = False
        current = api.get_space_variables(space_id)
        if DATA_VARIABLE not in current or current[DATA_VARIABLE].value != data:
            api.add_space_variable(space_id, DATA_VARIABLE, data, description="dataset the leaderboard shows")
            variable_set = True
        if needs_token:
            secret = current_token() or api.token
            if not secret:
                from huggingface_hub import get_token

                secret = get_token()
            if not secret:
                raise SlmboardError(f"dataset {data} is private or gated: the Space needs a token to read it; "
                                    "log in with `hf auth login` (or pass a token) and deploy again", param="token")
            api.add_space_secret(space_id, TOKEN_SECRET, secret, description="read access to the leaderboard dataset")
    url = f"{api.endpoint.rstrip('/')}/spaces/{space_id}"
    return DeployResult(space_id, url, commit, changed, deleted, variable_set, needs_token)
