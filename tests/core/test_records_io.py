"""Record files: crash-safe appends, tolerant reads, errors that name file:row:field."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from toolkit.core.records_io import JsonlAppender, iter_jsonl, repair_torn_tail
from toolkit.data.validation import validate_path

from slmboard_testing import make_item_row


def test_appender_cuts_a_torn_last_line_before_appending(tmp_path):
    path = tmp_path / "r.jsonl"
    with JsonlAppender(path) as app:
        app.append([{"item_id": "a"}, {"item_id": "b"}])
    with open(path, "ab") as fh:  # a process killed mid-write
        fh.write(b'{"item_id": "c", "resp')
    with JsonlAppender(path) as app:
        app.append([{"item_id": "c"}])
    rows = [r for _, r in iter_jsonl(path)]
    assert [r["item_id"] for r in rows] == ["a", "b", "c"]


def test_repair_of_file_with_only_a_torn_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"partial": ')
    repair_torn_tail(path)
    assert path.read_bytes() == b""


def test_bom_crlf_and_blank_lines_are_tolerated(tmp_path):
    path = tmp_path / "r.jsonl"
    rows = [make_item_row("a"), make_item_row("b")]
    path.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(json.dumps(r).encode() for r in rows) + b"\r\n\r\n")
    report = validate_path(path)
    assert report.ok, report.errors
    assert report.n_records == 2


def _messages(path):
    return [str(e) for e in validate_path(path).errors]


def test_validation_errors_name_file_row_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = make_item_row("a")
    bad_score = make_item_row("b", score=0.3)
    bad_label = make_item_row("c", label="harmful")
    path.write_text("\n".join(json.dumps(r) for r in (good, bad_score, bad_label)) + "\n{not json\n")
    msgs = _messages(path)
    assert any(m.startswith(f"{path}:2:score:") for m in msgs), msgs
    assert any(m.startswith(f"{path}:3:label:") for m in msgs), msgs
    assert any(m.startswith(f"{path}:4: invalid JSON") for m in msgs), msgs


def test_duplicates_are_reported_with_both_rows(tmp_path):
    path = tmp_path / "dup.jsonl"
    path.write_text("\n".join(json.dumps(make_item_row("a")) for _ in range(2)) + "\n")
    msgs = _messages(path)
    assert msgs == [f"{path}:2:item_id: duplicate of {path}:1 (same submission_id, suite, item_id, judge_id)"]


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", "file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00garbage", "not UTF-8"),
        (b"[1, 2, 3]\n", "expected a JSON object"),
        (b'{"score": NaN}\n', "invalid JSON"),
    ],
)
def test_unreadable_content(tmp_path, content, expected):
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    msgs = _messages(path)
    assert msgs and expected in msgs[0], msgs


def test_parquet_rows_are_validated_too(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from toolkit.core.arrow_schemas import ITEM_RECORD_SCHEMA

    rows = [make_item_row("a"), make_item_row("b", score=0.5, label="safe")]
    pq.write_table(pa.Table.from_pylist(rows, schema=ITEM_RECORD_SCHEMA), tmp_path / "x.parquet")
    msgs = _messages(tmp_path / "x.parquet")
    assert len(msgs) == 1 and msgs[0].startswith(f"{tmp_path / 'x.parquet'}:2:label:")


def test_validate_cli_exit_codes(tmp_path):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text(json.dumps(make_item_row("a")) + "\n")
    bad.write_text(json.dumps(make_item_row("a", score=0.3)) + "\n")
    ok = subprocess.run([sys.executable, "-m", "toolkit.cli", "validate", str(good)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    fail = subprocess.run([sys.executable, "-m", "toolkit.cli", "validate", str(bad)], capture_output=True, text=True)
    assert fail.returncode == 1
    assert f"{bad}:1:score:" in fail.stderr
    missing = subprocess.run([sys.executable, "-m", "toolkit.cli", "validate", str(tmp_path / "nope.jsonl")], capture_output=True, text=True)
    assert missing.returncode == 1 and "no such file" in missing.stdout + missing.stderr


def test_light_commands_do_not_import_torch(tmp_path):
    """rank and validate must start without torch (the Space and maintainers' machines may lack it)."""
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(make_item_row("a")) + "\n")
    code = (
        "import sys; from toolkit.cli import main; "
        f"rc = main(['validate', {str(path)!r}]) or main(['rank', {str(path)!r}, '--quiet', '--bootstrap', '0']); "
        "assert 'torch' not in sys.modules, 'torch was imported'; sys.exit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
