"""The submissions index and manifests of a dataset (the leaderboard comes from :func:`toolkit.data.reading.leaderboard`)."""
from __future__ import annotations

import json

import pyarrow as pa

from schemas import INDEX_FIELDS, Submission, SubmissionIndexRow

from toolkit.core.arrow_schemas import arrow_schema

#: The submissions index's columns, derived from the manifest model (schemas.SubmissionIndexRow).
SUBMISSIONS_INDEX_SCHEMA = arrow_schema(SubmissionIndexRow)


def submissions_index(manifests: list[Submission]) -> pa.Table:
    rows = []
    for m in manifests:
        rows.append(
            {
                **{name: getattr(m, name) for name in INDEX_FIELDS},
                "suites": ",".join(sorted({f.suite for f in m.record_files if f.suite})),
                "judge_ids": ",".join(sorted({f.judge_id for f in m.record_files if f.judge_id})),
                "n_records": sum(f.n_rows for f in m.record_files),
                "cost": cost_text(m),
            }
        )
    return pa.Table.from_pylist(rows, schema=SUBMISSIONS_INDEX_SCHEMA)


def cost_text(manifest: Submission) -> str | None:
    """The manifest's cost map, compact (what the card and the Space show; the manifest keeps the prices)."""
    if not manifest.cost:
        return None
    keep = ("items", "requests", "cache_hits", "prompt_tokens", "output_tokens", "seconds", "usd")
    return json.dumps({k: c.model_dump(include=set(keep)) for k, c in sorted(manifest.cost.items())}, sort_keys=True)


def manifest_json(manifest: Submission) -> str:
    return json.dumps(manifest.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
