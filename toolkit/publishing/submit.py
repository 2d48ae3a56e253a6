"""Validate a run, then publish it as one commit: per-item parquet files, manifest, rebuilt shared files."""
from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from schemas import Architecture, ItemRecord, RecordFile, Submission

from .. import __version__
from ..errors import RecordError, SlmboardError, ValidationFailed
from ..records_io import ITEM_RECORD_SCHEMA, LEADERBOARD_SCHEMA, atomic_write_bytes, atomic_write_text, iter_jsonl
from ..runs import RunConfig, RunDir
from ..validation import pydantic_errors
from . import layout
from .card import render_card
from .local_folder import CommitInfo, LocalFolderHub
from .rebuild import leaderboard_table, manifest_json, read_manifests, submissions_index


@dataclass
class PreparedSubmission:
    manifest: Submission
    files: dict[str, bytes]  # dataset-relative path → parquet bytes
    n_records: int


@dataclass
class SubmitResult:
    dataset: Path
    submission_id: str
    revision: str
    files: list[str]
    n_records: int


def _parquet_bytes(rows: list[dict[str, Any]]) -> bytes:
    table = pa.Table.from_pylist(rows, schema=ITEM_RECORD_SCHEMA)
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def _check_run_records(run: RunDir, config: RunConfig) -> tuple[dict[tuple[str, str], list[dict]], list[RecordError]]:
    """Validate every judgment row and check that it belongs to this run and covers its responses."""
    from pydantic import ValidationError

    errors: list[RecordError] = []
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    seen: dict[tuple, str] = {}
    files = run.judgment_files()
    if not files:
        errors.append(RecordError(str(run.root), None, None, f"no judgments; run `slmboard judge {run.root}` first"))
        return groups, errors
    for path in files:
        name = str(path)
        for row_no, row in iter_jsonl(path):
            if isinstance(row, RecordError):
                errors.append(row)
                continue
            try:
                record = ItemRecord.model_validate(row)
            except ValidationError as exc:
                errors.extend(pydantic_errors(exc, name, row_no))
                continue
            for field in ("submission_id", "model_id", "model_revision"):
                if getattr(record, field) != getattr(config, field):
                    errors.append(RecordError(name, row_no, field, f"{getattr(record, field)!r} differs from run.json ({getattr(config, field)!r})"))
            if record.suite != path.stem:
                errors.append(RecordError(name, row_no, "suite", f"{record.suite!r} in the file for suite {path.stem!r}"))
            key = (record.suite, record.item_id, record.judge_id)
            if key in seen:
                errors.append(RecordError(name, row_no, "item_id", f"duplicate of {seen[key]} (same suite, item_id, judge_id)"))
                continue
            seen[key] = f"{name}:{row_no}"
            groups[(record.suite, record.judge_id)].append(record.model_dump(mode="json"))
    # Every generated response must be judged by every judge present (no silent drops).
    responses: dict[str, set[str]] = {}
    for path in run.response_files():
        responses[path.stem] = {row["item_id"] for _, row in iter_jsonl(path) if isinstance(row, dict) and "item_id" in row}
    judges = sorted({j for _, j in groups})
    for suite, ids in responses.items():
        for judge_id in judges:
            judged = {r["item_id"] for r in groups.get((suite, judge_id), [])}
            missing = sorted(ids - judged)
            unknown = sorted(judged - ids)
            file = str(run.judgment_file(judge_id, suite))
            if missing:
                errors.append(RecordError(file, None, "item_id", f"{len(missing)} generated item(s) not judged by {judge_id}: {', '.join(missing[:5])}"))
            if unknown:
                errors.append(RecordError(file, None, "item_id", f"{len(unknown)} judged item(s) with no response in the run: {', '.join(unknown[:5])}"))
    return groups, errors


def _model_metadata(run: RunDir, config: RunConfig) -> dict[str, Any]:
    """Manifest fields from the model config the run recorded, overridden by RUN/model.json."""
    info = dict(config.model_info)
    arch = {k: info.get(k) for k in ("n_layers", "n_heads", "n_kv_heads", "hidden_size", "vocab_size")}
    act = (info.get("activation") or "") or None
    arch.update(
        activation=act,
        gqa=(info.get("n_kv_heads") or 0) < (info.get("n_heads") or 0) if info.get("n_kv_heads") and info.get("n_heads") else None,
        silu=(act in ("silu", "swish")) if act else None,
    )
    meta: dict[str, Any] = {
        "params": float(info["params"]) if info.get("params") else None,
        "context_length": info.get("context_length"),
        "architecture": {k: v for k, v in arch.items() if v is not None},
    }
    if run.model_info_path.is_file():
        try:
            extra = json.loads(run.model_info_path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise SlmboardError(f"{run.model_info_path}: not valid JSON: {exc}") from exc
        if not isinstance(extra, dict):
            raise SlmboardError(f"{run.model_info_path}: expected a JSON object of manifest fields")
        arch_extra = extra.pop("architecture", {}) or {}
        meta["architecture"] = {**meta["architecture"], **arch_extra}
        meta.update(extra)
    return meta


def prepare_submission(run_dir: str | Path, submitter: str | None = None) -> PreparedSubmission:
    """Everything a submission would write, validated; raises :class:`ValidationFailed` on any problem."""
    run = RunDir(run_dir)
    config = run.load_config()
    groups, errors = _check_run_records(run, config)
    if errors:
        raise ValidationFailed(errors)
    files: dict[str, bytes] = {}
    record_files = []
    for (suite, judge_id), rows in sorted(groups.items()):
        rows.sort(key=lambda r: r["item_id"])
        path = layout.item_file(suite, config.submission_id, judge_id)
        data = _parquet_bytes(rows)
        files[path] = data
        record_files.append(
            RecordFile(path=path, sha256=hashlib.sha256(data).hexdigest(), n_rows=len(rows), suite=suite, judge_id=judge_id)
        )
    meta = _model_metadata(run, config)
    try:
        manifest = Submission(
            submission_id=config.submission_id,
            model_id=config.model_id,
            model_revision=config.model_revision,
            submitter=submitter or meta.pop("submitter", None),
            run_config=config.model_dump(mode="json", exclude={"model_info"}),
            toolkit_version=__version__,
            created_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            record_files=record_files,
            **{k: v for k, v in meta.items() if k != "submitter"},
        )
    except Exception as exc:
        from pydantic import ValidationError

        if isinstance(exc, ValidationError):
            raise ValidationFailed(pydantic_errors(exc, str(run.model_info_path), None)) from exc
        raise
    return PreparedSubmission(manifest, files, sum(f.n_rows for f in record_files))


def submit(run_dir: str | Path, to: str | Path, submitter: str | None = None, n_bootstrap: int = 1000) -> SubmitResult:
    """Validate ``run_dir`` and publish it into the dataset ``to`` (a local folder) as one commit."""
    prepared = prepare_submission(run_dir, submitter)  # nothing is touched before this passes
    hub = LocalFolderHub(to)
    manifest = prepared.manifest
    sid = manifest.submission_id

    def refuse_existing(root: Path) -> None:
        if (root / layout.manifest_file(sid)).exists():
            raise SlmboardError(f"submission {sid!r} is already in {root}; choose another --submission-id")
        for rel in prepared.files:
            if (root / rel).exists():
                raise SlmboardError(f"{root / rel} already exists; per-item files are append-only")

    refuse_existing(hub.root)  # before taking the lock: a refused submission touches nothing

    def write(root: Path) -> list[str]:
        refuse_existing(root)  # again under the lock: another submitter may have landed meanwhile
        for rel, data in prepared.files.items():
            atomic_write_bytes(root / rel, data)
        atomic_write_text(root / layout.manifest_file(sid), manifest_json(manifest))
        rebuild_shared_files(root, n_bootstrap=n_bootstrap)
        return sorted(prepared.files) + [layout.manifest_file(sid)]

    info: CommitInfo = hub.commit(f"Add submission {sid} ({manifest.model_id}@{manifest.model_revision[:12]})", write)
    return SubmitResult(hub.root, sid, info.revision, info.files, prepared.n_records)


def rebuild_shared_files(root: Path, n_bootstrap: int = 1000) -> None:
    """Leaderboard, submissions index and README, recomputed from what the folder holds."""
    table = leaderboard_table(root, n_bootstrap=n_bootstrap)
    path = root / layout.LEADERBOARD_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(leaderboard_arrow(table), path)
    index = submissions_index(read_manifests(root))
    (root / layout.SUBMISSIONS_INDEX_FILE).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(index, root / layout.SUBMISSIONS_INDEX_FILE)
    atomic_write_text(root / "README.md", render_card(root))


def leaderboard_arrow(table) -> pa.Table:
    """The leaderboard with one fixed arrow schema, whatever pandas inferred (all-null columns included)."""
    clean = table.astype(object).where(table.notna(), None)
    return pa.Table.from_pylist(clean.to_dict(orient="records"), schema=LEADERBOARD_SCHEMA)
