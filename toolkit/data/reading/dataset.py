"""DATA opened once: :func:`open_data` → :class:`Dataset`, the data layer's one entry.

DATA is a record file, a run folder, a dataset folder, a Hub dataset id (:mod:`.locate`), a list of
these, or a DataFrame of records given from Python. A :class:`Dataset` knows its files (item records,
moderation records), and, for a published dataset, its manifests, card, revision and the time of that
revision; :meth:`Dataset.items` plans the item records one (suite, judge) group at a time
(:class:`~toolkit.data.reading.source.ItemSource`), so every consumer streams the same way.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Sequence

import pandas as pd

from toolkit.core import dataset_layout as layout
from toolkit.core.errors import RecordFileError, ValidationFailed
from toolkit.core.records_io import record_files
from toolkit.core.runs import RunDir
from toolkit.data.integrity import CheckedFiles, check_board
from .locate import Snapshot, fetch_snapshot, local_path, local_revision, parse_hub_id
from .fitness import Fitness
from toolkit.data.integrity import BoardRevision, read_local_board
from .source import DataFile, ItemSource

__all__ = ["Dataset", "open_data", "open_work_tree", "read_card_header", "read_manifest_files"]


@dataclass(frozen=True)
class _Place:
    """One entry of DATA on this machine."""

    path: Path
    kind: str  # "dataset" (a published dataset's layout) | "run" | "folder" | "file"
    shown_as: str | None = None  # how its files are named in errors (a Hub dataset: ORG/NAME[@REV]); None: the path
    #: a local board folder at its commit (its manifests read from git); None: a Hub snapshot, a folder without git
    revision: BoardRevision | None = None
    #: files a writer has staged (the same layout) and not yet moved in: read beside the folder's, manifests too
    staged: Path | None = None
    commit: str | None = None  # the commit a Hub snapshot holds

    def name(self, file: Path) -> str:
        if not self.shown_as:
            return str(file)
        bases = [b for b in (self.staged, self.revision.root if self.revision else None) if b is not None]
        base = next((b for b in bases if file.is_relative_to(b)), self.path)
        return f"{self.shown_as}/{file.relative_to(base).as_posix()}"

    def rel_name(self, rel: str) -> str:
        return f"{self.shown_as}/{rel}" if self.shown_as else str(self.path / rel)

    def find(self, rel: str) -> Path | None:
        """A dataset-relative file of this place on this machine (a staged one first); None when absent."""
        for base in (self.staged, self.revision.root if self.revision else self.path):
            if base is not None and (base / rel).is_file():
                return base / rel
        return None

    def manifest_files(self) -> list[tuple[str, bytes]]:
        """(dataset-relative path, bytes) of the manifests this place publishes: a git board's at its
        commit, else those of the folder (and of the staged files)."""
        if self.revision is not None:
            return sorted(self.revision.manifests.items())
        found = {p.relative_to(self.path).as_posix(): p for p in layout.manifest_files(self.path)}
        if self.staged is not None:
            found.update({p.relative_to(self.staged).as_posix(): p for p in layout.manifest_files(self.staged)})
        return [(rel, found[rel].read_bytes()) for rel in sorted(found)]


def _place(path: Path, shown_as: str | None = None, commit: str | None = None) -> _Place:
    if path.is_file():
        return _Place(path, "file", shown_as)
    if layout.is_dataset(path):
        revision = read_local_board(path) if (path / ".git").exists() and shown_as is None else None
        return _Place(path, "dataset", shown_as, revision=revision, commit=commit)
    return _Place(path, "run" if RunDir(path).exists() or RunDir(path).judgments_root.is_dir() else "folder", shown_as)


def _place_at(folder: Path, revision: str) -> _Place:
    """A board folder at a revision of its history (``PATH@NAME``: a release): read from that commit's files, its
    manifests from git, and named ``PATH@NAME/...`` in errors."""
    board = read_local_board(local_path(folder), revision)
    if not layout.is_dataset(board.root):
        raise RecordFileError(f"{folder}@{revision}: not a board at that revision (no {layout.CARD_FILE} or "
                              f"{layout.BOARD_FILE} there)")
    return _Place(board.root, "dataset", f"{folder}@{revision}", revision=board)


def read_card_header(text: str) -> dict:
    """The YAML header of a dataset card ({} when it has none or it does not parse as a mapping)."""
    if not text.startswith("---"):
        return {}
    import yaml

    try:
        header = yaml.safe_load(text.split("---", 2)[1])
    except (yaml.YAMLError, IndexError):
        return {}
    return header if isinstance(header, dict) else {}


def read_manifest_files(files: Sequence[tuple[Path | bytes, str]]) -> list:
    """Submission manifests from (path or its bytes, how errors name it) pairs; every bad file is reported at once
    (ValidationFailed: not JSON, or the fields that do not validate)."""
    import json

    from pydantic import ValidationError

    from schemas import Submission

    from toolkit.core.errors import RecordError, pydantic_errors

    out, errors = [], []
    for path, name in files:
        try:
            text = path.decode("utf-8") if isinstance(path, bytes) else path.read_text(encoding="utf-8")
            out.append(Submission.model_validate(json.loads(text)))
        except json.JSONDecodeError as exc:
            errors.append(RecordError(name, exc.lineno, None, f"not valid JSON ({exc.msg})"))
        except ValidationError as exc:
            errors += pydantic_errors(exc, name, None)
    if errors:
        raise ValidationFailed(errors)
    return out


class Dataset:
    """DATA resolved: where its files are, what it is, and a planned reader of its item records."""

    def __init__(self, data, places: Sequence[_Place], snapshot: Snapshot | None = None,
                 records: pd.DataFrame | None = None, suites: Sequence[str] | None = None,
                 leave_out_refused: bool = False):
        self.data = data
        self.places = list(places)
        self.snapshot = snapshot
        self.records = records  # a DataFrame given from Python (no files)
        self.suites = sorted(suites) if suites else None
        #: a submission whose files differ from its manifest is left out (the Space says so) instead of refused
        self.leave_out_refused = leave_out_refused
        self._sources: dict[tuple, ItemSource] = {}

    # -- what DATA is -------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """How exports and messages name DATA: the Hub repo id, else the path(s) as given."""
        if self.snapshot is not None:
            return self.snapshot.hub.repo_id
        if isinstance(self.data, (list, tuple)):
            return ", ".join(map(str, self.data))
        return "records" if self.records is not None else str(self.data)

    @property
    def root(self) -> Path | None:
        """The folder DATA stands for (a Hub dataset: its snapshot); None for a file, records or several."""
        if len(self.places) == 1 and self.places[0].kind != "file":
            return self.places[0].path
        return None

    @property
    def is_published(self) -> bool:
        """DATA is one dataset laid out as published (a folder, or a Hub dataset's snapshot)."""
        return len(self.places) == 1 and self.places[0].kind == "dataset"

    @property
    def repo_id(self) -> str | None:
        return self.snapshot.hub.repo_id if self.snapshot is not None else None

    @property
    def url(self) -> str | None:
        return f"https://huggingface.co/datasets/{self.repo_id}" if self.repo_id else None

    @cached_property
    def _git(self) -> tuple[str | None, int | None]:
        if self.snapshot is not None or len(self.places) != 1:
            return None, None
        if self.places[0].revision is not None:
            return self.places[0].revision.commit, self.places[0].revision.timestamp
        return _git_head(self.places[0].path)

    @property
    def revision(self) -> str | None:
        """The commit DATA holds: the Hub snapshot's, or the git HEAD of a local folder (None without git)."""
        return self.snapshot.commit if self.snapshot is not None else self._git[0]

    @cached_property
    def timestamp(self) -> int:
        """Unix seconds of that commit; else the newest file's modification time."""
        stamp = self.snapshot.timestamp if self.snapshot is not None else self._git[1]
        return stamp or max((_newest_mtime(p.path) for p in self.places), default=0)

    # -- what a published dataset holds -----------------------------------------------------------

    @cached_property
    def card(self) -> dict:
        """The dataset card's YAML header ({} when there is none)."""
        readme = self.root / layout.CARD_FILE if self.root is not None else None
        if readme is None or not readme.is_file():
            return {}
        return read_card_header(readme.read_text(encoding="utf-8", errors="replace"))

    def card_block(self, key: str) -> dict[str, str]:
        """``slmboard.<key>`` of the card (a mapping of strings; {} when absent or not a mapping)."""
        block = self.card.get("slmboard")
        found = block.get(key) if isinstance(block, dict) else None
        return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}

    @cached_property
    def _place_manifests(self) -> list[tuple[_Place, list]]:
        """Each published dataset of DATA with the manifests it publishes (a git board's: those of its commit)."""
        return [(place, read_manifest_files([(data, place.rel_name(rel)) for rel, data in place.manifest_files()]))
                for place in self.places if place.kind == "dataset"]

    @cached_property
    def manifests(self) -> list:
        """The submission manifests (:class:`schemas.Submission`) of each published dataset in DATA (a git
        board's: those of its commit; a submission left out for files that differ from it: not); one that
        does not validate is an error naming its file and field."""
        left_out = set(self.refused) if self.leave_out_refused else set()
        return [m for _, found in self._place_manifests for m in found if m.submission_id not in left_out]

    @cached_property
    def _checked(self) -> dict[Path, CheckedFiles | None]:
        """Per published dataset: the record files its manifests name that match them (None: a folder
        with neither manifests nor git history, read as it is)."""
        out: dict[Path, CheckedFiles | None] = {}
        for place, found in self._place_manifests:
            if not found and place.revision is None:
                out[place.path] = None
                continue
            board = place.shown_as.rsplit("@", 1)[0] if place.shown_as else str(place.path.resolve())
            commit = place.revision.commit if place.revision is not None else place.commit
            out[place.path] = check_board(found, place.find, board, commit, place.rel_name, self.suites,
                                          absent_ok=self.snapshot is not None and bool(self.suites))
        return out

    @property
    def refused(self) -> dict[str, str]:
        """submission id -> one line: a file of it that differs from its manifest (or is missing)."""
        return {sid: line for checked in self._checked.values() if checked for sid, line in checked.refused.items()}

    def _dataset_files(self, place: _Place, listing) -> list[Path]:
        """The files ``listing`` finds in a published dataset (and its staged files) that its manifests
        name and that match them (every one, for a folder with neither manifests nor history); a
        mismatch is refused unless ``leave_out_refused``."""
        roots = [place.revision.root if place.revision is not None else place.path, place.staged]
        rels = sorted({f.relative_to(r).as_posix() for r in roots if r is not None for f in listing(r)})
        checked = self._checked.get(place.path)
        if checked is not None:
            if not self.leave_out_refused:
                checked.raise_refused()
            rels = [rel for rel in rels if rel in checked.files]
        return [place.find(rel) for rel in rels]

    @cached_property
    def fitness(self) -> Fitness:
        """Which judge fits which suite, as the manifests record it (DATA that is no published dataset: none)."""
        return Fitness.from_manifests(self.manifests)

    def left_out(self, suites: Sequence[str] | None = None, judges: Sequence[str] | None = None) -> list[str]:
        """One line per (suite, judge) group the leaderboard leaves out: a judge on a suite it does not fit."""
        def pairs(manifests) -> set[tuple[str, str]]:
            return {(f.suite, f.judge_id) for m in manifests for f in m.record_files if f.suite and f.judge_id
                    and (not suites or f.suite in suites) and (not judges or f.judge_id in judges)}

        # from the manifests: no record file is read. A manifest from before fitness was recorded cannot be
        # checked: its groups are ranked, and said to be unchecked rather than passed over in silence
        unchecked = pairs(m for m in self.manifests if m.record_files and not m.judge_fits)
        checked = pairs(m for m in self.manifests if m.judge_fits)
        return [*self.fitness.left_out(checked), *Fitness.unchecked(unchecked - checked)]

    def suite_totals(self) -> dict[str, int]:
        """suite -> canonical item count, as the manifests record it (the largest, should two disagree)."""
        totals: dict[str, int] = {}
        for m in self.manifests:
            for suite, n in m.suite_totals.items():
                totals[suite] = max(n, totals.get(suite, 0))
        return totals

    def file(self, relative: str) -> Path | None:
        """A file of DATA's folder by its path in the dataset layout (None when absent)."""
        path = self.root / relative if self.root is not None else None
        return path if path is not None and path.is_file() else None

    def suite_files(self, suite: str) -> list[Path]:
        """The per-item files of one suite in DATA's folder, as the dataset layout places them."""
        return layout.suite_item_files(self.root, suite) if self.root is not None else []

    # -- record files --------------------------------------------------------------------------

    def item_files(self) -> list[DataFile]:
        """Files that may hold item records: a dataset's per-item files; a run's judgments; every record
        file of another folder (the reader skips those that hold no item records); a file itself."""
        out = []
        for place in self.places:
            if place.kind == "file":
                out += [DataFile(f, place.name(f), False) for f in record_files(place.path)]
                continue
            if place.kind == "dataset":
                files = self._dataset_files(place, layout.item_files)
                if self.suites:
                    files = [f for f in files if f.parent.name in self.suites]
            else:
                judgments = RunDir(place.path).judgments_root
                files = record_files(judgments if judgments.is_dir() else place.path)
            out += [DataFile(f, place.name(f), True) for f in files]
        return out

    def moderation_files(self) -> list[Path]:
        """ModerationRecord files: a dataset's data/moderation, a run's moderation folder, a file itself,
        else every record file of the folder."""
        out = []
        for place in self.places:
            if place.kind == "dataset":
                out += self._dataset_files(place, layout.moderation_files)
            elif place.kind == "run" and RunDir(place.path).moderation_dir.is_dir():
                out += record_files(RunDir(place.path).moderation_dir)
            else:
                out += record_files(place.path)
        if not out:
            raise RecordFileError(f"{self.name}: no .jsonl or .parquet ModerationRecord files found")
        return out

    def published_moderation_files(self) -> list[Path]:
        """The ModerationRecord files of DATA's folder, as the dataset layout places them (none: [])."""
        if self.root is None:
            return []
        if self.is_published:
            return self._dataset_files(self.places[0], layout.moderation_files)
        return layout.moderation_files(self.root)

    def items(self, suites: Sequence[str] | None = None, judges: Sequence[str] | None = None) -> ItemSource:
        """The item records planned by (suite, judge) (made once per restriction). A published dataset
        may hold none yet; any other DATA without item records is an error."""
        key = (tuple(sorted(suites or ())), tuple(sorted(judges or ())))
        if key not in self._sources:
            if self.records is not None:
                source = ItemSource.from_frame(self.records, suites=suites, judges=judges)
            else:
                source = ItemSource(self.item_files(), self.name, suites=suites, judges=judges,
                                    allow_empty=self.is_published)
            self._sources[key] = source
        return self._sources[key]


def open_data(data, suites: Sequence[str] | None = None, leave_out_refused: bool = False) -> Dataset:
    """DATA resolved once (:class:`Dataset`); a Dataset is returned as is. ``suites``: a Hub dataset
    then downloads only those suites' per-item files (with the card, manifests and shared tables).
    A published dataset's record files are read only where a manifest of its commit names them and they
    match its hash; a submission whose files do not is refused (:class:`~.checked.TamperedBoard`, one
    line naming the file and the submission), or with ``leave_out_refused`` left out (:attr:`Dataset.refused`)."""
    if isinstance(data, Dataset):
        return data
    if isinstance(data, pd.DataFrame):
        return Dataset(data, [], records=data, suites=suites)
    entries = list(data) if isinstance(data, (list, tuple)) else [data]
    places, snapshot = [], None
    for entry in entries:
        hub = parse_hub_id(entry)
        at = local_revision(entry) if hub is None else None
        if at is not None:
            places.append(_place_at(*at))
            continue
        if hub is None:
            places.append(_place(local_path(entry)))
            continue
        snapshot = fetch_snapshot(hub, suites)
        places.append(_place(snapshot.root, shown_as=str(hub), commit=snapshot.commit))
    return Dataset(data, places, snapshot if len(entries) == 1 else None, suites=suites,
                   leave_out_refused=leave_out_refused)


def open_work_tree(root: Path, staged: Path | None = None) -> Dataset:
    """A board folder's work tree as a writer holding its lock sees it, before its commit: the manifests
    of the folder (and of ``staged``, files laid out the same way, not yet moved in), every record file
    checked against them (``submit``'s and ``recompute``'s rebuild)."""
    return Dataset(root, [_Place(Path(root), "dataset", staged=Path(staged) if staged is not None else None)])


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
