"""Arrow schemas come from the pydantic models (one function); writers reject keys outside them;
secrets are scrubbed by one function (issue 15 §5)."""
from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from slmboard_testing import make_item_row

from toolkit.core.arrow_schemas import ITEM_RECORD_SCHEMA, MODERATION_RECORD_SCHEMA, RESPONSE_RECORD_SCHEMA
from toolkit.core.errors import SlmboardError

REPO = Path(__file__).resolve().parents[2]

# The column types and order of files published before the schemas were derived, typed by hand
# here (independently of the derivation) so that new shards stay readable beside old ones.
GENERATION = pa.struct([("temperature", pa.float64()), ("max_new_tokens", pa.int64()), ("seed", pa.int64()),
                        ("chat_template_sha256", pa.string()), ("backend", pa.string()), ("dtype", pa.string()),
                        ("batch_size", pa.int64()), ("device", pa.string()), ("do_sample", pa.bool_())])
COMMON = [("schema_version", pa.string()), ("submission_id", pa.string()), ("model_id", pa.string()),
          ("model_revision", pa.string()), ("suite", pa.string()), ("item_id", pa.string()), ("category", pa.string()),
          ("prompt", pa.string()), ("prompt_sha256", pa.string()), ("response", pa.string()), ("generation", GENERATION),
          ("gold", pa.string()), ("suite_revision", pa.string()), ("toolkit_version", pa.string()),
          ("response_sha256", pa.string()), ("finish_reason", pa.string()), ("n_output_tokens", pa.int64()),
          ("correct", pa.bool_()), ("choice", pa.string()), ("gold_choice", pa.string()), ("item_metadata", pa.string())]
JUDGED = [("judge_id", pa.string()), ("judge_status", pa.string()), ("score", pa.float64()), ("label", pa.string()),
          ("judge_raw", pa.string()), ("unsafe_prob", pa.float64()), ("judge_reason", pa.string()),
          ("rubric_version", pa.string()), ("judge_threshold_lower", pa.float64()), ("judge_threshold_upper", pa.float64())]
MODERATION = [("schema_version", pa.string()), ("submission_id", pa.string()), ("moderator_id", pa.string()),
              ("benchmark", pa.string()), ("item_id", pa.string()), ("gold", pa.string()), ("decision", pa.string()),
              ("p_flag_logprob", pa.float64()), ("confidence_verbal", pa.float64()), ("raw_output", pa.string()),
              ("prompt_variant", pa.string()), ("toolkit_version", pa.string())]


# Fields added later go last, after every column of the files published before them.
ADDED = [("request_error", pa.string())]
#: judge panels' votes (ItemRecord only): one voter's judge_id, score, status and response hash
VOTES = [("votes", pa.list_(pa.struct([("judge_id", pa.string()), ("score", pa.float64()), ("status", pa.string()),
                                       ("response_sha256", pa.string())])))]


def test_derived_schemas_keep_the_published_columns_and_order():
    assert ITEM_RECORD_SCHEMA.equals(pa.schema(COMMON + JUDGED + ADDED + VOTES))
    assert RESPONSE_RECORD_SCHEMA.equals(pa.schema(COMMON + ADDED))
    assert MODERATION_RECORD_SCHEMA.equals(pa.schema(MODERATION))


def test_submit_refuses_a_key_outside_the_schema_instead_of_dropping_it():
    from toolkit.outputs.publishing.submit import _parquet_bytes

    row = make_item_row("smoke_001")
    table = pq.read_table(io.BytesIO(_parquet_bytes([row])))
    assert table.num_rows == 1 and table.column("item_id").to_pylist() == ["smoke_001"]
    with pytest.raises(SlmboardError, match=r"row 1: fields \['reviewer_note'\] are not in the parquet schema"):
        _parquet_bytes([{**row, "reviewer_note": "x"}])


NEW_FIELD_SCRIPT = textwrap.dedent('''
    import sys
    from pathlib import Path
    from typing import Optional

    import schemas, schemas.records
    from pydantic import Field

    class ItemRecord(schemas.records.ItemRecord):  # the field a future schema version adds
        reviewer_note: Optional[str] = Field(None, description="a new optional field")

    ItemRecord.__name__ = "ItemRecord"
    schemas.ItemRecord = schemas.records.ItemRecord = ItemRecord

    sys.path.insert(0, str(Path(sys.argv[3]) / "tests"))
    from slmboard_testing import make_run
    from toolkit import api
    from toolkit.core.records_io import iter_jsonl, write_jsonl_atomic
    import pyarrow.parquet as pq

    run = make_run(Path(sys.argv[1]))
    path = next(Path(run, "judgments").rglob("*.jsonl"))
    rows = [{**row, "reviewer_note": f"note {n}"} for n, row in iter_jsonl(path)]
    write_jsonl_atomic(path, rows)
    api.create(sys.argv[2])
    api.submit(run, to=sys.argv[2], options=api.SubmitOptions(n_bootstrap=0))
    files = sorted(Path(sys.argv[2], "data").rglob("*__*.parquet"))
    table = pq.read_table(files[0])
    print(sorted(table.column("reviewer_note").to_pylist()))
''')


def test_a_new_item_record_field_reaches_the_published_parquet(tmp_path):
    script = tmp_path / "new_field.py"
    script.write_text(NEW_FIELD_SCRIPT)
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "run"), str(tmp_path / "ds"), str(REPO)],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "['note 1', 'note 2', 'note 3']"


def test_one_scrubber_masks_known_values_token_shapes_and_credential_keys():
    from toolkit.core.secrets import scrub_secrets

    key = "local-secret-value-123"
    text = f"failed with {key} and hf_abcdefghijkl and sk-proj_ABCDEFGH12 but not hf_short"
    assert scrub_secrets(text, [key, None]) == "failed with *** and *** and *** but not hf_short"
    args = {"pretrained": "org/m", "token": "anything", "nested": [{"api_key": "k"}, "hf_ZZZZZZZZZZ"]}
    assert scrub_secrets(args) == {"pretrained": "org/m", "token": "***", "nested": [{"api_key": "***"}, "***"]}


def test_decoding_settings_are_not_mistaken_for_credentials():
    """Key names are read as words: counts of tokens, the tokenizer and where a key is read from are
    published as they are (a manifest's max_new_tokens is part of what produced its numbers)."""
    from toolkit.core.secrets import scrub_secrets

    kept = {"max_new_tokens": 256, "max_tokens": 64, "num_tokens": 3, "prompt_tokens": 12, "tokenizer": "org/tok",
            "api_key_env": "OPENAI_API_KEY", "monkey": "x", "turkey": "y", "token_type": "bearer"}
    assert scrub_secrets(kept) == kept
    masked = {"hf_token": "a", "HF_TOKEN": "b", "apiKey": "c", "apikey": "d", "x-api-key": "e", "authToken": "f",
              "Authorization": "g", "client_secret": "h", "password": "i", "accesstoken": "j", "api_keys": ["k"]}
    assert scrub_secrets(masked) == {k: "***" for k in masked}
