"""The record contract: valid records pass, every listed violation fails on the right field."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from pydantic import ValidationError

import schemas
from schemas import ItemRecord, LeaderboardRow, ModerationRecord, Submission
from schemas.export import render

from slmboard_testing import make_item_row

SPEC_ITEM_FIELDS = [
    "schema_version", "submission_id", "model_id", "model_revision", "suite", "item_id", "category", "prompt",
    "prompt_sha256", "response", "judge_id", "judge_status", "score", "label", "judge_raw", "unsafe_prob", "correct",
    "generation",
]


def _error_fields(row: dict) -> set[str]:
    with pytest.raises(ValidationError) as info:
        ItemRecord.model_validate(row)
    return {".".join(str(p) for p in e["loc"]) for e in info.value.errors()}


def test_valid_record_round_trips():
    rec = ItemRecord.model_validate(make_item_row(score=0.5))
    assert rec.label == "ambiguous" and rec.score == 0.5
    assert ItemRecord.model_validate_json(rec.model_dump_json()) == rec


def test_spec_fields_exist_and_added_fields_are_optional():
    fields = ItemRecord.model_fields
    assert set(SPEC_ITEM_FIELDS) <= set(fields)
    for name, field in fields.items():
        if name not in SPEC_ITEM_FIELDS:
            assert not field.is_required(), f"added field {name} must be optional"
    # A record with exactly the SPEC fields (as another tool would write) is valid.
    row = make_item_row()
    row["unsafe_prob"] = None
    row["correct"] = None
    assert set(row) == set(SPEC_ITEM_FIELDS)
    ItemRecord.model_validate(row)


@pytest.mark.parametrize(
    "change, field",
    [
        ({"score": 0.3}, "score"),
        ({"score": float("nan")}, "score"),
        ({"score": True}, "score"),
        ({"label": "safe", "score": 0.0}, "label"),
        ({"judge_status": "parse_error"}, "score"),  # score 1.0 with a failed status
        ({"prompt_sha256": "0" * 64}, "prompt_sha256"),
        ({"prompt_sha256": "not-hex"}, "prompt_sha256"),
        ({"model_revision": ""}, "model_revision"),
        ({"model_revision": "   "}, "model_revision"),
        ({"model_id": "../etc/passwd"}, "model_id"),
        ({"model_id": "<script>alert(1)</script>"}, "model_id"),
        ({"submission_id": "a/../b"}, "submission_id"),
        ({"schema_version": "0.9"}, "schema_version"),
        ({"suite": "Smoke Suite"}, "suite"),
        ({"unexpected": 1}, "unexpected"),
        ({"unsafe_prob": 1.5}, "unsafe_prob"),
        ({"generation": {"temperature": 0}}, "generation.max_new_tokens"),
    ],
)
def test_violations_name_the_field(change, field):
    row = make_item_row()
    row.update(change)
    assert field in _error_fields(row)


@pytest.mark.parametrize("missing", ["judge_raw", "label", "score", "category", "prompt_sha256", "generation"])
def test_required_fields(missing):
    row = make_item_row()
    del row[missing]
    assert missing in _error_fields(row)


def test_failed_judgment_has_null_score_and_label():
    rec = ItemRecord.model_validate(make_item_row(score=None, judge_status="error", judge_reason="timeout"))
    assert rec.score is None and rec.label is None
    assert "label" in _error_fields(make_item_row(score=None, label="ambiguous"))


def test_moderation_record_rules():
    base = dict(submission_id="s1", moderator_id="org/guard", benchmark="xstest", item_id="1", gold="flag",
                decision="no_flag", p_flag_logprob=0.2, confidence_verbal=0.8, raw_output="B")
    ModerationRecord.model_validate(base)
    for change in ({"gold": "maybe"}, {"p_flag_logprob": 1.2}, {"p_flag_logprob": math.nan}):
        with pytest.raises(ValidationError):
            ModerationRecord.model_validate({**base, **change})


def test_submission_requires_identity():
    with pytest.raises(ValidationError):
        Submission.model_validate({"submission_id": "x", "model_id": "m", "toolkit_version": "1"})  # no model_revision


@pytest.mark.parametrize("name", sorted(schemas.EXPORTED_MODELS))
def test_exported_json_schema_matches_models(name):
    """The checked-in JSON Schemas must equal what the models export (run `python -m schemas.export`)."""
    path = Path(schemas.__file__).parent / f"{name}.schema.json"
    assert path.is_file(), f"{path} missing: run `python -m schemas.export`"
    assert json.loads(path.read_text()) == json.loads(render(name)), f"{path.name} drifted from the model"


def test_leaderboard_row_columns_cover_spec():
    spec = "suite judge_id model_id n_items n_scored n_failed hcr ar srr s_raw s_adj rank_raw rank_adj delta_adj rank_range".split()
    policies = [f"{k}_{p}" for p in schemas.POLICIES for k in ("score", "rank")]
    assert set(spec + policies + ["s_raw_lo", "s_raw_hi", "s_adj_lo", "s_adj_hi"]) <= set(LeaderboardRow.model_fields)
