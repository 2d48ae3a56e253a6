"""Shared files of a dataset, rebuilt from its per-item records and manifests (never from aggregates)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa

from schemas import INDEX_FIELDS, Submission, SubmissionIndexRow

from ..arrow_schemas import arrow_schema
from ..scoring import compute_leaderboard
from ..scoring.bootstrap import N_BOOTSTRAP
from . import layout

_LEADERBOARD_INPUT = ["suite", "judge_id", "model_id", "item_id", "score", "submission_id", "model_revision"]

#: The submissions index's columns, derived from the manifest model (schemas.SubmissionIndexRow).
SUBMISSIONS_INDEX_SCHEMA = arrow_schema(SubmissionIndexRow)


def read_item_scores(root: Path) -> pd.DataFrame:
    """The columns the leaderboard needs, from every per-item parquet file of the dataset (checked)."""
    from ..reading import read_item_frame

    files = layout.item_files(root)
    if not files:
        return pd.DataFrame(columns=_LEADERBOARD_INPUT)
    return read_item_frame(files, columns=_LEADERBOARD_INPUT)


def leaderboard_table(root: Path, n_bootstrap: int = N_BOOTSTRAP, seed: int = 0) -> pd.DataFrame:
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
                **{name: getattr(m, name) for name in INDEX_FIELDS},
                "suites": ",".join(sorted({f.suite for f in m.record_files if f.suite})),
                "judge_ids": ",".join(sorted({f.judge_id for f in m.record_files if f.judge_id})),
                "n_records": sum(f.n_rows for f in m.record_files),
            }
        )
    return pa.Table.from_pylist(rows, schema=SUBMISSIONS_INDEX_SCHEMA)


def manifest_json(manifest: Submission) -> str:
    return json.dumps(manifest.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
