"""Validate record files and manifests against the pydantic contracts, collecting every error."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from pydantic import BaseModel, ValidationError

from schemas import ItemRecord, LeaderboardRow, ModerationRecord, ResponseRecord, Submission, describe_kinds

from toolkit.core import dataset_layout as layout
from toolkit.core.errors import RecordError, RecordFileError, SlmboardError, ValidationFailed, pydantic_errors
from toolkit.core.records_io import iter_rows, record_files

RECORD_KINDS: dict[str, type[BaseModel]] = {
    "item": ItemRecord,
    "response": ResponseRecord,
    "moderation": ModerationRecord,
    "submission": Submission,
    "leaderboard": LeaderboardRow,
}


def guess_kind(row: dict[str, Any]) -> str:
    """Which record type a row claims to be, from its distinguishing fields."""
    if "moderator_id" in row:
        return "moderation"
    if "judge_id" in row or "judge_status" in row or "score" in row:
        return "item"
    if "record_files" in row or ("toolkit_version" in row and "prompt" not in row and "suite" not in row):
        return "submission"
    return "response"


@dataclass
class ValidationReport:
    n_files: int = 0
    n_records: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    errors: list[RecordError] = field(default_factory=list)
    records: list[BaseModel] = field(default_factory=list)
    #: a board made by `slmboard create` with no submission yet (a board all the same)
    no_submissions_yet: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors

    def raise_if_failed(self) -> None:
        if self.errors:
            raise ValidationFailed(self.errors)


def _manifest_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path] if path.suffix == ".json" else []
    # In a folder, manifests are the JSON files under a `submissions/` directory (a dataset's layout);
    # other JSON files (run.json, model.json) are configuration, not records.
    return sorted(
        p
        for p in path.rglob("*.json")
        if p.parent.name == layout.MANIFEST_DIR and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )


def iter_validated(path: Path, kind: str | None = None) -> Iterator[tuple[str, int, BaseModel | RecordError]]:
    """Validate each row of one record file; yields (file, row, record_or_error)."""
    name = str(path)
    for row_no, row in iter_rows(path):
        if isinstance(row, RecordError):
            yield name, row_no, row
            continue
        model = RECORD_KINDS[kind or guess_kind(row)]
        try:
            yield name, row_no, model.model_validate(row)
        except ValidationError as exc:
            for err in pydantic_errors(exc, name, row_no):
                yield name, row_no, err


def validate_path(
    path: str | Path,
    kind: str | None = None,
    keep_records: bool = False,
    manifests: bool = True,
) -> ValidationReport:
    """Validate a record file, a folder of record files (and .json manifests), never stopping at the first error.

    Checks per row the pydantic contract, and across rows that
    (submission_id, suite, item_id, judge_id) is unique for judged items. ``hf://datasets/ORG/NAME[@REV]``:
    the Hub dataset, read from its snapshot (errors name its files as ORG/NAME[@REV]/PATH).
    """
    path = Path(path)
    report = ValidationReport()
    dataset_kinds = _dataset_file_kinds(path)
    if dataset_kinds is not None:
        dataset_kinds, tampered = _published_files(path, dataset_kinds)
        report.errors += tampered
    try:
        if path.is_file() and path.suffix == ".json":
            files = []  # a manifest, checked below
        else:
            files = list(dataset_kinds) if dataset_kinds is not None else record_files(path)
    except RecordFileError as exc:
        report.errors.append(RecordError(str(path), None, None, str(exc).split(": ", 1)[-1]))
        return report
    manifest_files = _manifest_files(path) if manifests else []
    from toolkit.core.dataset_layout import BOARD_FILE

    if path.is_dir() and (path / BOARD_FILE).is_file() and not manifest_files:
        report.no_submissions_yet = True
        from toolkit.core.board_recipe import read_recipe

        try:
            read_recipe(path)
        except SlmboardError as exc:
            report.errors.append(RecordError(str(path / BOARD_FILE), None, None, str(exc).split(": ", 1)[-1]))
        return report
    if not files and not manifest_files:
        report.errors.append(RecordError(str(path), None, None, "no .jsonl, .parquet or .json record files found"))
        return report
    seen: dict[tuple, str] = {}
    item_kinds: dict[Path, set[str]] = {}  # a run's judgment file -> the kinds of item its records hold
    for file in files:
        report.n_files += 1
        file_kind = kind or (dataset_kinds or {}).get(file)
        for name, row_no, result in iter_validated(file, file_kind):
            if isinstance(result, RecordError):
                report.errors.append(result)
                continue
            if isinstance(result, ItemRecord):
                item_kinds.setdefault(file, set()).add(_item_kind(result))
            report.n_records += 1
            kind_name = type(result).__name__
            report.counts[kind_name] = report.counts.get(kind_name, 0) + 1
            key = _unique_key(result)
            if key is not None:
                if key in seen:
                    report.errors.append(
                        RecordError(name, row_no, "item_id", f"duplicate of {seen[key]} (same {key_description(result)})")
                    )
                else:
                    seen[key] = f"{name}:{row_no}"
            if keep_records:
                report.records.append(result)
    report.errors += _run_fitness_errors(item_kinds)
    for file in manifest_files:
        report.n_files += 1
        manifest = validate_manifest_file(file, report.errors)
        if manifest is not None:
            report.errors += _manifest_fitness_errors(manifest, str(file))
            report.n_records += 1
            report.counts["Submission"] = report.counts.get("Submission", 0) + 1
            if keep_records:
                report.records.append(manifest)
    return report


def _item_kind(record: ItemRecord) -> str:
    """The kind of item a record holds, read from the record (the suite registry lives a layer up)."""
    if record.gold_choice is not None:
        return "multiple-choice"
    return "free-text-gold" if record.gold == "safe" else "free-text"


def _run_fitness_errors(item_kinds: dict[Path, set[str]]) -> list[RecordError]:
    """A run's judgment file whose records are of a kind its judge does not fit (RUN/judgments/<judge>/
    judge-fits.json, written by the judging stage): such records are never published."""
    errors = []
    for file, kinds in sorted(item_kinds.items()):
        fits_file = file.parent / "judge-fits.json"
        if file.parent.parent.name != "judgments" or not fits_file.is_file():
            continue
        try:
            fits = set(json.loads(fits_file.read_text(encoding="utf-8")).get("fits") or [])
        except (ValueError, AttributeError):
            errors.append(RecordError(str(fits_file), None, "fits", "not a JSON object with a list of kinds"))
            continue
        if "free-text" in kinds and "free-text-gold" in fits:
            kinds = kinds - {"free-text"}  # a gold-label suite's slice may hold no safe item
        unfit = sorted(kinds - fits)
        if unfit:
            errors.append(RecordError(str(file), None, "judge_id", f"its judge judges {describe_kinds(fits)}, and these "
                                      f"records hold {describe_kinds(unfit)}: a judge's records of a suite it cannot "
                                      "judge are not published"))
    return errors


def _manifest_fitness_errors(manifest: Submission, where: str) -> list[RecordError]:
    """A manifest listing a record file of a judge on a suite it does not fit, by its own judge_fits."""
    errors = []
    for rf in manifest.record_files:
        fits, kind = manifest.judge_fits.get(rf.judge_id or ""), manifest.suite_kinds.get(rf.suite or "")
        if fits is not None and kind is not None and kind not in fits:
            errors.append(RecordError(where, None, "record_files", f"{rf.path}: {rf.judge_id} judges "
                                      f"{describe_kinds(fits)}, and {rf.suite} holds {describe_kinds([kind])}: a judge's "
                                      "records of a suite it cannot judge are not published"))
    return errors


def _dataset_file_kinds(path: Path) -> dict[Path, str] | None:
    """In a published dataset folder, the record type of each file follows from where it lives."""
    if not (path.is_dir() and (path / layout.DATA_DIR).is_dir() and (path / layout.CARD_FILE).is_file()):
        return None
    kinds = {f: "item" for f in layout.item_files(path)}
    kinds.update({f: "moderation" for f in layout.moderation_files(path)})
    board = path / layout.LEADERBOARD_FILE
    if board.is_file():
        kinds[board] = "leaderboard"
    return kinds  # the submissions index is derived from the manifests, which are checked themselves


def _published_files(path: Path, kinds: dict[Path, str]) -> tuple[dict[Path, str], list[RecordError]]:
    """Of a published dataset's record files, those a manifest of its commit names and that match its
    hash; one error per submission whose files do not (a file changed after it was published). A folder
    with neither manifests nor git history is read as it is (manifests that do not validate are reported
    by the manifest checks)."""
    from toolkit.data.integrity import check_board, read_local_board

    board = read_local_board(path)
    manifests = []
    for data in board.manifests.values():
        try:
            manifests.append(Submission.model_validate(json.loads(data.decode("utf-8"))))
        except (ValueError, ValidationError):
            continue
    if not manifests and not board.committed:
        return kinds, []
    checked = check_board(manifests, lambda rel: board.root / rel if (board.root / rel).is_file() else None,
                          str(path.resolve()), board.commit, lambda rel: str(path / rel))
    errors = [RecordError(line.split(": ", 1)[0], None, "sha256", line.split(": ", 1)[-1]) for line in checked.refused.values()]
    named = {board.root / rel for rel in checked.files}
    return {f: k for f, k in kinds.items() if k == "leaderboard" or (board.root / f.relative_to(path)) in named}, errors


def key_description(record: BaseModel) -> str:
    if isinstance(record, ItemRecord):
        return "submission_id, suite, item_id, judge_id"
    if isinstance(record, ModerationRecord):
        return "submission_id, benchmark, item_id, prompt_variant"
    return "submission_id, suite, item_id"


def _unique_key(record: BaseModel) -> tuple | None:
    if isinstance(record, ItemRecord):
        return ("item", record.submission_id, record.suite, record.item_id, record.judge_id)
    if isinstance(record, ResponseRecord):
        return ("response", record.submission_id, record.suite, record.item_id)
    if isinstance(record, ModerationRecord):
        return ("moderation", record.submission_id, record.moderator_id, record.benchmark, record.item_id, record.prompt_variant)
    return None


def validate_manifest_file(path: Path, errors: list[RecordError]) -> Submission | None:
    name = str(path)
    try:
        raw = path.read_bytes()
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        errors.append(RecordError(name, None, None, f"not a JSON manifest: {exc}"))
        return None
    if not isinstance(data, dict):
        errors.append(RecordError(name, None, None, "a manifest must be a JSON object"))
        return None
    try:
        return Submission.model_validate(data)
    except ValidationError as exc:
        errors.extend(pydantic_errors(exc, name, None))
        return None


def validate_records(records: Iterable[dict[str, Any]], kind: str, source: str = "<memory>") -> list[BaseModel]:
    """Validate in-memory rows (the API path); raises :class:`ValidationFailed` listing every error."""
    model = RECORD_KINDS[kind]
    out, errors = [], []
    for i, row in enumerate(records, start=1):
        try:
            out.append(model.model_validate(row))
        except ValidationError as exc:
            errors.extend(pydantic_errors(exc, source, i))
    if errors:
        raise ValidationFailed(errors)
    return out
