"""Shared files of a dataset, rebuilt from its per-item records and manifests (never from aggregates)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa

from schemas import Submission

from ..scoring import compute_leaderboard
from . import layout

_LEADERBOARD_INPUT = ["suite", "judge_id", "model_id", "item_id", "score", "submission_id", "model_revision"]

SUBMISSIONS_INDEX_SCHEMA = pa.schema(
    [
        ("submission_id", pa.string()),
        ("model_id", pa.string()),
        ("model_revision", pa.string()),
        ("family", pa.string()),
        ("vendor", pa.string()),
        ("params", pa.float64()),
        ("context_length", pa.int64()),
        ("tuning", pa.string()),
        ("instruction_tuned", pa.bool_()),
        ("chat_tuned", pa.bool_()),
        ("license", pa.string()),
        ("submitter", pa.string()),
        ("toolkit_version", pa.string()),
        ("created_at", pa.string()),
        ("suites", pa.string()),
        ("judge_ids", pa.string()),
        ("n_records", pa.int64()),
    ]
)


def read_item_scores(root: Path) -> pd.DataFrame:
    """The columns the leaderboard needs, from every per-item parquet file of the dataset (checked)."""
    from ..reading import read_item_frame

    files = layout.item_files(root)
    if not files:
        return pd.DataFrame(columns=_LEADERBOARD_INPUT)
    return read_item_frame(files, columns=_LEADERBOARD_INPUT)


def leaderboard_table(root: Path, n_bootstrap: int = 1000, seed: int = 0) -> pd.DataFrame:
    """The leaderboard of a dataset folder, read and ranked one (suite, judge) group at a time;
    ``coverage`` from the suite totals its manifests record."""
    from ..scoring.leaderboard import leaderboard_from

    totals = suite_totals(read_manifests(root)) or None
    files = layout.item_files(root)  # the per-item files only (the card may not be written yet)
    if not files:
        return compute_leaderboard(pd.DataFrame(columns=_LEADERBOARD_INPUT), n_bootstrap=n_bootstrap, seed=seed)
    return leaderboard_from(files, n_bootstrap=n_bootstrap, seed=seed, suite_totals=totals)


def suite_totals(manifests: list[Submission]) -> dict[str, int]:
    """suite -> canonical item count, as the manifests record it (the largest, should two disagree)."""
    totals: dict[str, int] = {}
    for m in manifests:
        for suite, n in m.suite_totals.items():
            totals[suite] = max(n, totals.get(suite, 0))
    return totals


def read_manifests(root: Path) -> list[Submission]:
    folder = root / layout.MANIFEST_DIR
    if not folder.is_dir():
        return []
    return [Submission.model_validate_json(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def submissions_index(manifests: list[Submission]) -> pa.Table:
    rows = []
    for m in manifests:
        rows.append(
            {
                "submission_id": m.submission_id,
                "model_id": m.model_id,
                "model_revision": m.model_revision,
                "family": m.family,
                "vendor": m.vendor,
                "params": m.params,
                "context_length": m.context_length,
                "tuning": m.tuning,
                "instruction_tuned": m.instruction_tuned,
                "chat_tuned": m.chat_tuned,
                "license": m.license,
                "submitter": m.submitter,
                "toolkit_version": m.toolkit_version,
                "created_at": m.created_at,
                "suites": ",".join(sorted({f.suite for f in m.record_files if f.suite})),
                "judge_ids": ",".join(sorted({f.judge_id for f in m.record_files if f.judge_id})),
                "n_records": sum(f.n_rows for f in m.record_files),
            }
        )
    return pa.Table.from_pylist(rows, schema=SUBMISSIONS_INDEX_SCHEMA)


def manifest_json(manifest: Submission) -> str:
    return json.dumps(manifest.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
