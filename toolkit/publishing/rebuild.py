"""The submissions index and manifests of a dataset (the leaderboard comes from :func:`toolkit.reading.leaderboard`)."""
from __future__ import annotations

import json

import pyarrow as pa

from schemas import Submission

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
