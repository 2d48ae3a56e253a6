"""Fuzzing (hypothesis): whatever bytes or JSON a record file holds, validation answers with
RecordErrors — never an exception — and a record that validates can be published as parquet."""
from __future__ import annotations

import json

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import ItemRecord
from slmboard_testing import make_item_row
from toolkit.records_io import ITEM_RECORD_SCHEMA
from toolkit.validation import validate_path

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
    row = make_item_row("u", prompt=text, response=text)
    path = tmp_path / "u.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8", errors="surrogatepass")
    report = validate_path(path, keep_records=True)
    if report.ok:
        assert report.records[0].prompt == text
    else:
        assert any(e.field in ("prompt", "response", "prompt_sha256") for e in report.errors)
