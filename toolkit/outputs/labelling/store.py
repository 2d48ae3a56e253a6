"""The labels dataset beside a board: people's labels, one JSON line per label, and the salt of their pseudonyms.

    README.md                 what the dataset is (gated on the Hub: the labels carry usernames and notes)
    labelling.json            {"board": ..., "salt": ...}: the salt of the pseudonymous ids published records carry
    labels/<stamp>-<hash>.jsonl  one file per batch of labels (an offline round's CSV file, a Space's batch)

Each batch is a new file, so two writers never write the same path (a Hub commit also names its parent commit and
is retried when the dataset moved: :class:`~toolkit.outputs.publishing.hub.HubPublisher`); a local labels dataset is
a git repository, one commit per batch, as a local board is (:class:`~toolkit.outputs.publishing.local_folder.
LocalFolderHub`). Labels are never changed or deleted: a maintainer leaves a labeller out when publishing.
"""
from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from schemas._common import SafeId, Sha256, SuiteName

from toolkit.core.dataset_ref import DatasetRef
from toolkit.core.errors import LabelsRefused, SlmboardError
from toolkit.core.label_policy import CHOICES

CONFIG_FILE = "labelling.json"
LABELS_DIR = "labels"
CARD_FILE = "README.md"


class Label(BaseModel):
    """One person's label of one answer of the board (a line of a labels file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    submission_id: SafeId
    suite: SuiteName
    item_id: str = Field(min_length=1, max_length=256)
    response_sha256: Sha256 = Field(description="the answer labelled: a later answer under the same id is another item")
    labeller: str = Field(min_length=1, description="a Hub username, or csv:<file hash>/<name> of an offline round")
    choice: Literal[CHOICES]  # type: ignore[valid-type]
    note: Optional[str] = None
    when: str = Field(description="ISO 8601 UTC, to the second")
    source: str = Field(description="csv:<file hash> or space")

    @property
    def item(self) -> tuple[str, str, str]:
        return self.submission_id, self.suite, self.item_id


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def pseudonym(salt: str, labeller: str) -> str:
    """The id a published record names a labeller by: a salted hash (the salt stays in the gated labels dataset)."""
    return "person:" + hashlib.sha256(f"{salt}:{labeller}".encode()).hexdigest()[:16]


@dataclass
class LabelsSnapshot:
    salt: str
    labels: list[Label] = field(default_factory=list)

    def pseudonym(self, labeller: str) -> str:
        return pseudonym(self.salt, labeller)


def _read(root: Path, where: str) -> LabelsSnapshot:
    config = root / CONFIG_FILE
    if not config.is_file():
        raise SlmboardError(f"{where}: not a labels dataset (no {CONFIG_FILE}); set init first (toolkit.api.labels_init)", param="init")
    salt = json.loads(config.read_text(encoding="utf-8"))["salt"]
    labels = []
    for path in sorted((root / LABELS_DIR).glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                labels.append(Label.model_validate_json(line))
            except ValidationError as exc:
                raise SlmboardError(f"{where}/{LABELS_DIR}/{path.name}:{n}: not a label: {exc.errors()[0]['msg']}") from None
    return LabelsSnapshot(salt, labels)


def labels_file(labels: list[Label]) -> tuple[str, bytes]:
    """(path, bytes) of a new labels file holding ``labels`` (named by time and content: never an existing path)."""
    body = "".join(label.model_dump_json() + "\n" for label in labels).encode()
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    return f"{LABELS_DIR}/{stamp}-{hashlib.sha256(body).hexdigest()[:12]}.jsonl", body


class LabelsStore:
    """A labels dataset: a local folder (git) or a Hub dataset, read whole and written one batch per commit."""

    def __init__(self, ref: DatasetRef):
        self.ref = ref
        self.last_attempts = 0  # of the last commit (the Hub retries one the dataset moved under)

    @property
    def shown(self) -> str:
        return self.ref.url

    def exists(self) -> bool:
        if self.ref.is_hub:
            from toolkit.core.hub_access import hub_api, hub_call

            with hub_call(self.ref.repo_id):
                return hub_api().repo_exists(self.ref.repo_id, repo_type="dataset")
        return (self.ref.path / CONFIG_FILE).is_file()

    def read(self) -> LabelsSnapshot:
        if not self.ref.is_hub:
            return _read(self.ref.path, self.shown)
        from huggingface_hub import snapshot_download

        from toolkit.core.hub_access import current_token, hub_call

        with hub_call(self.ref.repo_id):
            root = snapshot_download(self.ref.repo_id, repo_type="dataset", token=current_token())
        return _read(Path(root), self.shown)

    def commit(self, message: str, write: Callable[[Path], list[str]], create: bool = False) -> str:
        """Run ``write(root)`` on the dataset's files and commit what it wrote; the new revision."""
        from toolkit.outputs.publishing.hub import HubPublisher
        from toolkit.outputs.publishing.local_folder import LocalFolderHub

        if self.ref.is_hub:  # gated when created: labels carry usernames and notes
            done = HubPublisher(self.ref.repo_id, create=create, gate_new_repo=True).commit(message, write)
            self.last_attempts = done.attempts  # > 1: the dataset moved under the commit, which went again
            return done.revision
        local = LocalFolderHub(self.ref.path)
        if not create and not local.exists():
            raise SlmboardError(f"{self.shown}: no labels dataset; set init first (toolkit.api.labels_init)", param="init")
        self.last_attempts = 1
        return local.commit(message, write).revision

    def add(self, labels: list[Label], message: str) -> str:
        """Commit ``labels`` as one new file; the new revision."""
        path, body = labels_file(labels)

        def write(root: Path) -> list[str]:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(body)
            return [path]

        return self.commit(message, write)

    def check_writable(self) -> None:
        """A local labels dataset this user may not write to is refused before anything is read or written (a Hub
        dataset answers for itself: the commit is refused in one line naming the repo)."""
        import os

        if not self.ref.is_hub and not os.access(self.ref.path / ".git", os.W_OK):
            raise LabelsRefused(f"{self.shown}: no write access to the labels dataset; ask its maintainer to add the "
                                "labels", param="from_csv")


def init_store(store: LabelsStore, board: str) -> bool:
    """Make the labels dataset of ``board`` (README and a fresh salt); False when it exists already (kept as it is)."""
    from toolkit.core.errors import NothingToCommit

    card = (f"# People's labels of {board}\n\nOne JSON line per label under `{LABELS_DIR}/` (written by `slmboard labels "
            f"{board} --from FILE.csv` and the board's Space). Labels name their labellers and keep their notes: keep "
            f"this dataset gated. Published records carry vote counts and salted pseudonyms ({CONFIG_FILE}) only.\n")

    def write(root: Path) -> list[str]:
        if (root / CONFIG_FILE).is_file():
            raise NothingToCommit("the labels dataset exists")
        (root / CONFIG_FILE).write_text(json.dumps({"board": board, "salt": secrets.token_hex(16)}, indent=2) + "\n")
        (root / CARD_FILE).write_text(card, encoding="utf-8")
        return [CONFIG_FILE, CARD_FILE]

    try:
        store.commit(f"The labels dataset of {board}", write, create=True)
    except NothingToCommit:
        return False
    return True


__all__ = ["Label", "LabelsSnapshot", "LabelsStore", "init_store", "labels_file", "now_iso", "pseudonym"]
