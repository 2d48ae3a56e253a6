"""Fuzzing (hypothesis): whatever bytes or JSON a record file holds, validation answers with
RecordErrors — never an exception — and a record that validates can be published as parquet."""
from __future__ import annotations

import hashlib
import json

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import ItemRecord
from slmboard_testing import make_item_row
from toolkit.core.arrow_schemas import ITEM_RECORD_SCHEMA
from toolkit.data.validation import validate_path

_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=10,
)
FIELDS = list(make_item_row())


@_SETTINGS
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes(tmp_path, data):
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    report = validate_path(path)
    for err in report.errors:
        assert err.file == str(path) and err.message


@_SETTINGS
@given(changes=st.dictionaries(st.sampled_from(FIELDS + ["extra"]), json_values, min_size=1, max_size=4))
def test_mutated_records(tmp_path, changes):
    row = make_item_row("fuzz")
    row.update(changes)
    path = tmp_path / "fuzz.jsonl"
    path.write_text(json.dumps(row) + "\n")
    report = validate_path(path, keep_records=True)
    if report.ok:
        # Anything that validates must serialise into the dataset's fixed parquet schema.
        rec = report.records[0]
        assert isinstance(rec, ItemRecord)
        pa.Table.from_pylist([rec.model_dump(mode="json")], schema=ITEM_RECORD_SCHEMA)
    else:
        assert all(e.row == 1 for e in report.errors)


@_SETTINGS
@given(text=st.text(max_size=200))
def test_any_unicode_prompt_round_trips(tmp_path, text):
    """Every string of Unicode scalar values (no lone surrogates: hypothesis' default alphabet) is a
    valid prompt and response, kept exactly — through the JSONL record and the parquet schema."""
    row = make_item_row("u", prompt=text, response=text)
    path = tmp_path / "u.jsonl"
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    report = validate_path(path, keep_records=True)
    assert report.ok, [(e.field, e.message) for e in report.errors]
    rec = report.records[0]
    assert rec.prompt == text and rec.response == text
    table = pa.Table.from_pylist([rec.model_dump(mode="json")], schema=ITEM_RECORD_SCHEMA)
    assert table.column("prompt")[0].as_py() == text


@_SETTINGS
@given(text=st.text(alphabet=st.characters(min_codepoint=0x80, exclude_categories=["Cs"]), min_size=1, max_size=50))
def test_non_ascii_prompts_are_accepted(tmp_path, text):
    """Explicitly non-ASCII text (accents, CJK, emoji, astral planes): never refused."""
    row = make_item_row("u", prompt=text, response=text)
    path = tmp_path / "u.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")  # \uXXXX escapes, surrogate pairs for astral ones
    report = validate_path(path, keep_records=True)
    assert report.ok, [(e.field, e.message) for e in report.errors]
    assert report.records[0].prompt == text


@_SETTINGS
@given(before=st.text(max_size=20), lone=st.characters(categories=["Cs"]), after=st.text(max_size=20))
def test_lone_surrogates_are_refused_by_field(tmp_path, before, lone, after):
    """A lone surrogate (valid JSON escape, not encodable as UTF-8) is a RecordError on that field."""
    text = before + lone + after
    row = make_item_row("u", prompt="placeholder")
    row.update(prompt=text, prompt_sha256=hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    path = tmp_path / "u.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")  # json.dumps escapes it as \udXXX
    report = validate_path(path)
    assert not report.ok
    assert {(e.row, e.field) for e in report.errors} == {(1, "prompt")}
    assert all("surrogate" in e.message for e in report.errors)
