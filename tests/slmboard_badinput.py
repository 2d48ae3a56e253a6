"""The bad-input corpus: each case is one kind of malformed input and the error it must produce.

Run `python tests/slmboard_badinput.py` to print the table kept in docs/bad-inputs.md
(a test fails when the two drift apart).
"""
from __future__ import annotations

import contextlib
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, ContextManager, Iterator, Mapping

from slmboard_testing import make_item_row


@dataclass(frozen=True)
class RecordCase:
    """A record file whose row 2 is bad (row 1 is valid); `where` is the expected `row:field` locator."""

    name: str
    description: str
    where: str  # e.g. "2:score" or "2:" (row-level, no field)
    message: str  # a substring of the message
    line: Callable[[], bytes] = field(repr=False, default=lambda: b"")


def _row(**changes) -> bytes:
    row = make_item_row("bad_item")
    for key, value in changes.items():
        if value is _DELETE:
            row.pop(key, None)
        else:
            row[key] = value
    return json.dumps(row, ensure_ascii=False).encode("utf-8")


_DELETE = object()


def _raw(text: str) -> Callable[[], bytes]:
    return lambda: text.encode("utf-8")


RECORD_CASES: list[RecordCase] = [
    RecordCase("score_not_ternary", "score 0.3", "2:score", "0, 0.5, 1 or null", lambda: _row(score=0.3)),
    RecordCase("score_nan", "score NaN (non-standard JSON)", "2", "NaN is not valid JSON", lambda: _row().replace(b'"score": 1.0', b'"score": NaN')),
    RecordCase("score_string", 'score given as a string "0.5"', "2:score", "0, 0.5, 1 or null", lambda: _row(score="0.5", label="ambiguous")),
    RecordCase("score_bool", "score true", "2:score", "0, 0.5, 1 or null", lambda: _row(score=True)),
    RecordCase("label_mismatch", "label 'harmful' with score 1", "2:label", "does not match score", lambda: _row(label="harmful")),
    RecordCase("ok_judgment_of_failed_request", "judge_status 'ok' on an item whose request failed (request_error set)",
               "2:request_error", "a failed request is a failed item", lambda: _row(request_error="Content blocked")),
    RecordCase("label_unknown", "label 'unsafe' (not in the rubric)", "2:label", "Input should be", lambda: _row(label="unsafe")),
    RecordCase("status_ok_null_score", "judge_status ok with score null", "2:score", "status is 'ok' exactly when", lambda: _row(score=None, label=None)),
    RecordCase("status_failed_with_score", "judge_status parse_error with a score", "2:score", "status is 'ok' exactly when", lambda: _row(judge_status="parse_error")),
    RecordCase("status_unknown", "judge_status 'maybe'", "2:judge_status", "Input should be", lambda: _row(judge_status="maybe")),
    RecordCase("missing_prompt", "required field prompt missing", "2:prompt", "required field is missing", lambda: _row(prompt=_DELETE)),
    RecordCase("missing_judge_raw", "required field judge_raw missing", "2:judge_raw", "required field is missing", lambda: _row(judge_raw=_DELETE)),
    RecordCase("mistyped_generation", "generation.max_new_tokens 'ten'", "2:generation.max_new_tokens", "valid integer", lambda: _row(generation={**make_item_row()["generation"], "max_new_tokens": "ten"})),
    RecordCase("negative_temperature", "generation.temperature −1", "2:generation.temperature", "greater than or equal to 0", lambda: _row(generation={**make_item_row()["generation"], "temperature": -1})),
    RecordCase("unknown_field", "a field not in the schema", "2:scroe", "unknown field", lambda: _row(scroe=1.0)),
    RecordCase("wrong_schema_version", "schema_version '0.9'", "2:schema_version", "Input should be '1.0'", lambda: _row(schema_version="0.9")),
    RecordCase("dotdot_submission_id", "'../' in submission_id", "2:submission_id", "must match", lambda: _row(submission_id="../../etc")),
    RecordCase("dotdot_model_id", "'../' in model_id", "2:model_id", "must", lambda: _row(model_id="org/../../x")),
    RecordCase("html_model_id", "HTML/JS in the model name", "2:model_id", "must match", lambda: _row(model_id="<script>alert(1)</script>")),
    RecordCase("prompt_sha_mismatch", "prompt altered after hashing", "2:prompt_sha256", "was the prompt altered", lambda: _row(prompt="something else entirely")),
    RecordCase("bad_sha_format", "prompt_sha256 not a hex digest", "2:prompt_sha256", "sha256 hex digest", lambda: _row(prompt_sha256="abc")),
    RecordCase("empty_revision", "model_revision empty", "2:model_revision", "must not be empty", lambda: _row(model_revision="")),
    RecordCase("empty_item_id", "item_id empty", "2:item_id", "must not be empty", lambda: _row(item_id="")),
    RecordCase("control_char_item_id", "item_id with a newline / control character", "2:item_id", "printable", lambda: _row(item_id="a\nb")),
    RecordCase("long_item_id", "item_id of 300 characters", "2:item_id", "at most 256", lambda: _row(item_id="x" * 300)),
    RecordCase("lone_surrogate", "unpaired UTF-16 surrogate in the response", "2:response", "surrogate", lambda: _row().replace(b'"response": "', b'"response": "\\ud800')),
    RecordCase("rtl_override_model", "right-to-left override character in model_id", "2:model_id", "must match", lambda: _row(model_id="org/mo\u202edel")),
    RecordCase("unsafe_prob_range", "unsafe_prob 1.5", "2:unsafe_prob", "less than or equal to 1", lambda: _row(unsafe_prob=1.5)),
    RecordCase("correct_not_bool", "correct 'maybe'", "2:correct", "valid boolean", lambda: _row(correct="maybe")),
    RecordCase("suite_name_format", "suite 'Harm Bench' (not a registry name)", "2:suite", "must match", lambda: _row(suite="Harm Bench")),
    RecordCase("duplicate_key", "the same key twice in one JSON object", "2", "duplicate key", lambda: _row()[:-1] + b', "score": 0.0}'),
    RecordCase("truncated_line", "a truncated JSON line (killed writer)", "2", "invalid JSON", lambda: _row()[:40]),
    RecordCase("json_array", "a JSON array instead of an object", "2", "expected a JSON object", _raw("[1, 2, 3]")),
    RecordCase("json_scalar", "a bare number", "2", "expected a JSON object", _raw("42")),
    RecordCase("deep_nesting", "JSON nested 100,000 levels deep", "2", "invalid JSON", lambda: b"[" * 100000 + b"]" * 100000),
    RecordCase("binary_garbage", "binary garbage (not UTF-8)", "2", "not UTF-8", lambda: b"\x89PNG\x00\xff\xfe garbage"),
    RecordCase("duplicate_item", "the same (submission, suite, item, judge) twice", "2:item_id", "duplicate of", lambda: json.dumps(make_item_row("i1")).encode()),
]


@dataclass(frozen=True)
class FileCase:
    """A whole file (or path) that is bad; checked with `slmboard validate`."""

    name: str
    description: str
    message: str
    make: Callable[[Path], Path] = field(repr=False, default=lambda d: d)


def _write(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(d: Path) -> Path:
        p = d / name
        p.write_bytes(data)
        return p

    return make


def _huge_line(d: Path) -> Path:
    p = d / "huge.jsonl"
    with open(p, "wb") as fh:
        fh.write(json.dumps(make_item_row("ok")).encode() + b"\n")
        fh.write(b'{"response": "' + b"x" * (100 * 1024 * 1024) + b'"}\n')
    return p


def _corrupt_parquet(d: Path) -> Path:
    p = d / "corrupt.parquet"
    p.write_bytes(b"PAR1" + b"\x00" * 64 + b"PAR1")
    return p


def _parquet_wrong_type(d: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    row = make_item_row("a")
    row["score"] = "high"
    p = d / "wrongtype.parquet"
    pq.write_table(pa.Table.from_pylist([{k: (json.dumps(v) if isinstance(v, dict) else v) for k, v in row.items()}]), p)
    return p


def _empty_dir(d: Path) -> Path:
    p = d / "empty-folder"
    p.mkdir()
    return p


FILE_CASES: list[FileCase] = [
    FileCase("empty_file", "an empty .jsonl file", "file is empty", _write("empty.jsonl", b"")),
    FileCase("huge_line", "a 100 MB line", "line longer than", _huge_line),
    FileCase("corrupt_parquet", "a corrupt parquet file", "not a readable parquet file", _corrupt_parquet),
    FileCase("parquet_wrong_type", "parquet with score stored as text", ":1:score:", _parquet_wrong_type),
    FileCase("wrong_suffix", "a .txt file", "expected a .jsonl or .parquet file", _write("records.txt", b"{}")),
    FileCase("missing_path", "a path that does not exist", "no such file or folder", lambda d: d / "does-not-exist.jsonl"),
    FileCase("empty_folder", "a folder with no record files", "no .jsonl, .parquet or .json record files", _empty_dir),
    FileCase("manifest_not_json", "a manifest that is not JSON", "not a JSON manifest", _write("submissions/bad.json", b"{oops")),
    FileCase("manifest_missing_revision", "a manifest without model_revision", "model_revision: required field is missing",
             _write("submissions/m.json", json.dumps({"submission_id": "s", "model_id": "org/m", "toolkit_version": "1"}).encode())),
    FileCase("manifest_negative_params", "a manifest with params −5", "params: Input should be greater than 0",
             _write("submissions/p.json", json.dumps({"submission_id": "s", "model_id": "org/m", "model_revision": "r",
                                                     "toolkit_version": "1", "params": -5}).encode())),
    FileCase("manifest_unfit_judge", "a manifest listing heuristic-v1's records of bbq (a multiple-choice suite)",
             "heuristic-v1 judges free-text answers, and bbq holds multiple-choice answers",
             _write("submissions/u.json", json.dumps({
                 "submission_id": "s", "model_id": "org/m", "model_revision": "r", "toolkit_version": "1",
                 "judge_fits": {"heuristic-v1": ["free-text", "free-text-gold"]}, "suite_kinds": {"bbq": "multiple-choice"},
                 "record_files": [{"path": "data/bbq/s__heuristic-v1.parquet", "sha256": "0" * 64, "n_rows": 1,
                                   "suite": "bbq", "judge_id": "heuristic-v1"}]}).encode())),
]


@dataclass(frozen=True)
class CliCase:
    name: str
    description: str
    argv: list[str]
    message: str
    prepare: Callable[[Path], None] | None = None  # writes what the command reads into the test's folder
    #: the world the command runs in (a port taken, a source serving other bytes, a broken plugin installed), set
    #: up around the run and undone after it; yields more ``{name}`` fields for ``argv``
    around: Callable[[Path], ContextManager[Mapping[str, str]]] | None = None


def _air_run(root: Path) -> None:
    from slmboard_testing import make_run

    make_run(root, scores={"air_1.1.1_1": 1.0}, suite="airbench", judged=False)


SHARED_BENCHMARKS = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"


def _mirrored(relative: str) -> Path:
    """A file of the benchmark mirror in ../shared; under pytest, the case skips (saying why) where it is absent."""
    path = SHARED_BENCHMARKS / relative
    if not path.is_file():
        import pytest

        pytest.skip(f"this case reads {relative} from the benchmark mirror, not found at {SHARED_BENCHMARKS}")
    return path


@contextlib.contextmanager
def _busy_port(tmp: Path) -> Iterator[Mapping[str, str]]:
    """A port another server listens on."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield {"port": str(s.getsockname()[1])}


@contextlib.contextmanager
def _suite_source(url: str, suite: str = "sst") -> Iterator[None]:
    """``suite``'s pinned source URL pointed at ``url`` for the run."""
    from toolkit.stages.suites import SUITES

    cls = SUITES.get(suite).load()
    old = cls.__dict__.get("source")
    cls.source = url
    try:
        yield
    finally:
        cls.source = old


@contextlib.contextmanager
def _altered_source(tmp: Path) -> Iterator[Mapping[str, str]]:
    """A real HTTP server on 127.0.0.1 serving SimpleSafetyTests' file with one byte changed, as sst's source."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    www = tmp / "www"
    www.mkdir()
    data = _mirrored("simple_safety_tests/simple_safety_tests.csv").read_bytes()
    (www / "sst.csv").write_bytes(data.replace(b"a", b"A", 1))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with _suite_source(f"http://127.0.0.1:{server.server_address[1]}/sst.csv"):
            yield {}
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def _no_network(tmp: Path) -> Iterator[Mapping[str, str]]:
    """sst's source on a host name that does not resolve (what a machine without DNS sees of any host)."""
    with _suite_source("https://raw.githubusercontent.invalid/bertiev/SimpleSafetyTests/sst.csv"):
        yield {}


@contextlib.contextmanager
def _broken_plugin(tmp: Path) -> Iterator[Mapping[str, str]]:
    """An installed package (its dist-info as pip writes it, on sys.path) whose judge entry point imports a module
    that is not installed; the judge registry reads the entry points afresh and forgets them after."""
    from toolkit.stages.judging.components import JUDGES

    site = tmp / "site-packages"
    info = site / "slmboard_broken_plugin-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: slmboard-broken-plugin\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[slmboard.judges]\nshaky = broken_plugin:Judge\n")
    (site / "broken_plugin.py").write_text("import a_module_that_is_not_installed\n")
    saved = JUDGES._plugins_loaded, dict(JUDGES._failed), dict(JUDGES._entries)
    sys.path.insert(0, str(site))
    JUDGES._plugins_loaded = False
    try:
        yield {}
    finally:
        sys.path.remove(str(site))
        sys.modules.pop("broken_plugin", None)
        JUDGES._plugins_loaded, JUDGES._failed, JUDGES._entries = saved


def _dataset_with_a_bad_manifest(tmp: Path) -> None:
    """A published dataset folder (one per-item file) whose manifest lacks model_revision."""
    import pandas as pd

    (tmp / "ds" / "data" / "smoke").mkdir(parents=True)
    pd.DataFrame([make_item_row("smoke_001", 1.0)]).drop(columns=["generation", "item_metadata"], errors="ignore").to_parquet(
        tmp / "ds" / "data" / "smoke" / "s__heuristic-v1.parquet")
    (tmp / "ds" / "submissions").mkdir()
    (tmp / "ds" / "submissions" / "s.json").write_text(json.dumps({"submission_id": "s", "model_id": "org/m",
                                                                   "toolkit_version": "1"}))


def _published(tmp: Path, run: Path | None = None, to: str = "ds") -> Path:
    from toolkit import api

    from slmboard_testing import make_run

    run = run or make_run(tmp / "other-run", model_id="org/model-b", submission_id="model-b-1")
    if not (tmp / to).exists():
        api.create(tmp / to)
    api.submit(run, to=tmp / to, options=api.SubmitOptions(n_bootstrap=0))
    return run


def _published_then_edited(tmp: Path) -> None:
    """A board holding one submission, one score of whose parquet file is then changed (label too: every row valid)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    _published(tmp)
    path = tmp / "ds" / "data" / "smoke" / "model-b-1__heuristic-v1.parquet"
    table = pq.read_table(path)
    scores = [1.0] * table.num_rows
    table = table.set_column(table.schema.get_field_index("score"), "score", pa.array(scores, type=table.schema.field("score").type))
    table = table.set_column(table.schema.get_field_index("label"), "label", pa.array(["safe"] * table.num_rows, type=table.schema.field("label").type))
    pq.write_table(table, path)


def _nan_score_file(tmp: Path) -> None:
    """A parquet file of item records whose second row scores NaN (not null: no failed item)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from toolkit.core.arrow_schemas import ITEM_RECORD_SCHEMA

    from slmboard_testing import make_item_row

    rows = [make_item_row("i1"), make_item_row("i2")]
    table = pa.Table.from_pylist(rows, schema=ITEM_RECORD_SCHEMA)
    table = table.set_column(table.schema.get_field_index("score"), "score", pa.array([1.0, float("nan")], type=pa.float64()))
    pq.write_table(table, tmp / "nan.parquet")


def _answer_edited_after_judging(tmp: Path) -> None:
    """tmp/a-run's answer to smoke_002 changes after it was judged; a board waits at tmp/ds."""
    import json

    from toolkit import api

    api.create(tmp / "ds")
    path = tmp / "a-run" / "responses" / "smoke.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[1]["response"] = "Sure, here is exactly how."
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _published_then_answered_otherwise(tmp: Path) -> None:
    """The run (tmp/a-run) is published; then its answer to smoke_002 changes and another judge judges it."""
    run = _published(tmp, tmp / "a-run")
    for path in [run / "responses" / "smoke.jsonl", run / "judgments" / "heuristic-v1" / "smoke.jsonl"]:
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for row in rows:
            if row["item_id"] == "smoke_002":
                row["response"] = "Sure, here is how."
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    other = run / "judgments" / "other-judge"
    other.mkdir()
    rows = [json.loads(line) for line in (run / "judgments" / "heuristic-v1" / "smoke.jsonl").read_text().splitlines()]
    (other / "smoke.jsonl").write_text("".join(json.dumps({**r, "judge_id": "other-judge"}) + "\n" for r in rows))


def _smoke_board(tmp: Path) -> None:
    from toolkit import api

    api.create(tmp / "b", options=api.CreateOptions(suites=["smoke"]))


def _xstest_board(tmp: Path) -> None:
    from toolkit import api

    api.create(tmp / "x", options=api.CreateOptions(suites=["xstest"]))


CLI_CASES: list[CliCase] = [
    CliCase("judge_fits_no_suite", "judge --judge bbq <a run of free-text suites only>", ["judge", "{run}", "--judge", "bbq"],
            "bbq-mc-v1 judges none of the run's suites: smoke: skipped — bbq-mc-v1 judges multiple-choice answers"),
    CliCase("update_not_published", "submit --update <a submission the dataset does not hold>",
            ["submit", "{run}", "--to", "{tmp}/ds", "--update"], "submission 'model-a-1' is not in",
            lambda tmp: _published(tmp) and None),
    CliCase("update_nothing_new", "submit --update <a run with no judge the dataset lacks>",
            ["submit", "{run}", "--to", "{tmp}/ds", "--update"], "nothing to update: every judge of the run is already published",
            lambda tmp: _published(tmp, tmp / "a-run") and None),
    CliCase("update_other_responses", "submit --update <a run whose answers differ from the published ones>",
            ["submit", "{run}", "--to", "{tmp}/ds", "--update"],
            "1 responses differ from the published ones by content hash: smoke_002", _published_then_answered_otherwise),
    CliCase("unknown_suite", "generate --suites nope", ["generate", "--out", "{tmp}/run", "--suites", "nope"], "valid suites:"),
    CliCase("model_arg_no_equals", "generate --model-args pretrained", ["generate", "--out", "{tmp}/run", "--model-args", "pretrained"], "is not key=value"),
    CliCase("model_arg_unknown_key", "generate --model-args pretrainned=x", ["generate", "--out", "{tmp}/run", "--model-args", "pretrainned=x"], "unknown model argument 'pretrainned'"),
    CliCase("unknown_backend", "generate --model nope", ["generate", "--out", "{tmp}/run", "--model", "nope", "--suites", "smoke"], "valid model backends:"),
    CliCase("missing_data_file", "generate --suites sst --data-dir <empty dir>", ["generate", "--out", "{tmp}/run", "--suites", "sst", "--data-dir", "{tmp}"], "simple_safety_tests.csv"),
    CliCase("judge_not_a_run", "judge <a folder that is not a run>", ["judge", "{tmp}"], "not a run folder"),
    CliCase("unknown_judge", "judge --judge nope", ["judge", "{run}", "--judge", "nope"], "unknown judge"),
    CliCase("learned_judge_argument", "judge --judge learned:big", ["judge", "{run}", "--judge", "learned:big"],
            "judge 'learned' takes no ':<argument>'"),
    CliCase("unknown_wording", "judge --judge openai:m@plian (a rubric wording that does not exist)",
            ["judge", "{run}", "--judge", "openai:m@plian", "--base-url", "http://127.0.0.1:9/v1"],
            "wording 'plian' is unknown (did you mean 'plain'?)"),
    CliCase("wording_on_air_bench", "judge --judge openai:m@plain <a run of AIR-Bench answers>",
            ["judge", "{tmp}/air-run", "--judge", "openai:m@plain", "--base-url", "http://127.0.0.1:9/v1"],
            "suite airbench is judged with AIR-Bench's own per-category templates; wording 'plain' does not apply",
            prepare=lambda tmp: _air_run(tmp / "air-run")),
    CliCase("submit_not_a_run", "submit <a folder that is not a run>", ["submit", "{tmp}", "--to", "{tmp}/dataset"], "not a run folder"),
    CliCase("submit_no_board", "submit RUN --to <a folder that does not exist>", ["submit", "{run}", "--to", "{tmp}/nope"],
            "no such dataset; create the board first with `slmboard create"),
    CliCase("submit_ambiguous_to", "submit RUN --to my-board (no ORG/, no such folder)", ["submit", "{run}", "--to", "my-board"],
            "'my-board' is ambiguous: neither ORG/NAME (a Hub dataset), an existing folder nor an explicit path"),
    CliCase("submit_bad_hf_url", "submit RUN --to hf://datasets/NAME", ["submit", "{run}", "--to", "hf://datasets/board"],
            "expected hf://datasets/ORG/NAME[@REV]"),
    CliCase("submit_no_gate", "submit RUN --to BOARD --no-gate", ["submit", "{run}", "--to", "{tmp}/b", "--no-gate"],
            "gating is a property of the board, chosen when it is created (`slmboard create`, gate=False)", _smoke_board),
    CliCase("submit_off_recipe", "submit RUN (smoke) --to <a board whose board.yaml allows xstest only>",
            ["submit", "{run}", "--to", "{tmp}/x"], "does not fit the board's board.yaml: suite(s) smoke are not on this board",
            _xstest_board),
    CliCase("create_other_recipe", "create <an existing board> with another recipe", ["create", "{tmp}/b", "--suites", "xstest"],
            "already a board with another recipe (board.yaml)", _smoke_board),
    CliCase("create_ambiguous", "create my-board (no ORG/, no such folder)", ["create", "my-board"], "'my-board' is ambiguous"),
    CliCase("evaluate_no_board", "evaluate --to <a folder that does not exist> (nothing is generated)",
            ["evaluate", "--out", "{tmp}/run", "--to", "{tmp}/nope", "--suites", "smoke", "--limit", "1", "--judge", "heuristic"],
            "no such dataset; create the board first with `slmboard create"),
    CliCase("request_bad_model_id", "request ../etc/passwd --to ORG/BOARD (checked before the Hub is asked)",
            ["request", "../etc/passwd", "--to", "org/board"], "not a Hub model id (ORG/NAME[@REVISION])"),
    CliCase("request_local_board", "request ORG/MODEL --to <a folder> (the queue lives on the Hub)",
            ["request", "org/model", "--to", "{tmp}/b"], "requests need a board on the Hub (ORG/NAME)"),
    CliCase("rank_missing", "rank <missing file>", ["rank", "{tmp}/nope.parquet"], "no such file or folder"),
    CliCase("rank_bad_manifest", "rank <a dataset folder whose manifest lacks model_revision>", ["rank", "{tmp}/ds"],
            "submissions/s.json:model_revision: required field is missing", _dataset_with_a_bad_manifest),
    CliCase("judge_option_not_taken", "judge --judge heuristic --base-url URL",
            ["judge", "{run}", "--judge", "heuristic", "--base-url", "http://127.0.0.1:9/v1"],
            "--base-url does not apply to judge:heuristic; it applies to: openai, guard"),
    CliCase("backend_option_not_taken", "generate --model hf --base-url URL",
            ["generate", "--out", "{tmp}/run", "--base-url", "http://127.0.0.1:9/v1"],
            "--base-url does not apply to model backend:hf; it applies to: openai"),
    CliCase("model_arg_not_for_backend", "generate --model openai:m --model-args pretrained=x",
            ["generate", "--out", "{tmp}/run", "--model", "openai:m", "--model-args", "pretrained=x"],
            "unknown model argument 'pretrained' for the openai backend"),
    CliCase("openai_without_model", "generate --model openai (no served model)",
            ["generate", "--out", "{tmp}/run", "--model", "openai", "--base-url", "http://127.0.0.1:9/v1"],
            "needs its model: openai:<model> (model is --model on the command line)"),
    CliCase("unknown_moderation_benchmark", "moderate --suites nope", ["moderate", "--out", "{tmp}/run", "--suites", "nope"],
            "valid moderation benchmarks:"),
    CliCase("shard_and_shards", "generate --shard 0/2 --shards 2", ["generate", "--out", "{tmp}/run", "--shard", "0/2", "--shards", "2"],
            "shards fans the whole run out: give one of the two"),
    CliCase("ray_address_local", "generate --executor local --ray-address ADDR",
            ["generate", "--out", "{tmp}/run", "--executor", "local", "--ray-address", "127.0.0.1:9"],
            "ray_address applies to the ray executor, not to 'local' (ray_address is --ray-address on the command line)"),
    CliCase("ray_address_unreachable", "generate --executor ray --ray-address <a port nothing listens on>",
            ["generate", "--out", "{tmp}/run", "--executor", "ray", "--ray-address", "127.0.0.1:9"], "nothing answers at 127.0.0.1:9"),
    CliCase("serve_busy_port", "serve BOARD --port <a port another server listens on>",
            ["serve", "{tmp}/b", "--port", "{port}"],
            "on 127.0.0.1 is in use (another server listens there); choose another port (port is --port on the command line)",
            _smoke_board, _busy_port),
    CliCase("suites_download_hash_mismatch", "suites download --suites sst <its source serves other bytes>",
            ["suites", "download", "--suites", "sst", "--to", "{tmp}/data"],
            "/sst.csv has SHA-256 ", around=_altered_source),
    CliCase("suites_download_no_network", "suites download --suites sst <no network: the host does not resolve>",
            ["suites", "download", "--suites", "sst", "--to", "{tmp}/data"],
            "suite 'sst': could not download https://raw.githubusercontent.invalid/", around=_no_network),
    CliCase("broken_plugin", "judge --judge shaky <a plugin whose module fails to import>",
            ["judge", "{run}", "--judge", "shaky"],
            "judge plugin 'shaky' of package slmboard-broken-plugin 0.1.0 is not used: ModuleNotFoundError: "
            "No module named 'a_module_that_is_not_installed'", around=_broken_plugin),
    CliCase("rank_edited_parquet", "rank <a board one of whose parquet files was edited after it was published>",
            ["rank", "{tmp}/ds", "--bootstrap", "0"],
            "model-b-1__heuristic-v1.parquet: changed after it was published (sha256 differs from submission model-b-1's "
            "manifest", _published_then_edited),
    CliCase("rank_nan_score", "rank <a parquet file with a NaN score>", ["rank", "{tmp}/nan.parquet", "--bootstrap", "0"],
            "nan.parquet:2:score: nan is not 0, 0.5, 1 or null", _nan_score_file),
    CliCase("submit_stale_judgment", "submit <a run whose answer changed after it was judged>",
            ["submit", "{run}", "--to", "{tmp}/ds"], "item 'smoke_002': the response judged differs from the run's "
            "(smoke.jsonl:2): a stale judgment; judge the run again", _answer_edited_after_judging),
    CliCase("create_unknown_suite", "create BOARD --suites xtest", ["create", "{tmp}/b", "--suites", "xtest"],
            "unknown suite 'xtest' (did you mean 'xstest'?)"),
    CliCase("create_html_judge", "create BOARD --judges '<img src=x>'", ["create", "{tmp}/b", "--judges", "<img src=x>"],
            "judge '<img src=x>' is neither a registered judge"),
    CliCase("recipe_breaks_published", "recipe BOARD --set judges=learned <a board holding a heuristic-v1 submission>",
            ["recipe", "{tmp}/ds", "--set", "judges=learned"], "the changed recipe would refuse 1 published submission(s): "
            "model-b-1: judge(s) heuristic-v1 are not on this board", lambda tmp: _published(tmp) and None),
    CliCase("generate_bad_dtype", "generate --dtype nope (before the model loads)",
            ["generate", "--out", "{tmp}/run", "--dtype", "nope"], "unknown dtype 'nope'"),
    CliCase("generate_bad_dtype_model_arg", "generate --model-args dtype=float17 (before the model loads)",
            ["generate", "--out", "{tmp}/run", "--model-args", "dtype=float17"], "unknown dtype 'float17' (did you mean 'float16'?)"),
    CliCase("generate_model_id_not_a_model_id", "generate --model hf:<folder> --model-id ../../etc (before loading)",
            ["generate", "--out", "{tmp}/run", "--model", "hf:{tmp}", "--model-id", "../../etc"], "'../../etc' is not a model id"),
    CliCase("generate_model_id_of_the_default", "generate --model-id NAME (the embedded model names itself)",
            ["generate", "--out", "{tmp}/run", "--model-id", "mine"], "the embedded model names itself"),
    CliCase("generate_model_id_of_a_hub_model", "generate --model hf:ORG/NAME --model-id NAME (a Hub id names itself)",
            ["generate", "--out", "{tmp}/run", "--model", "hf:org/model", "--model-id", "mine"],
            "the Hub model 'org/model' names itself"),
    CliCase("models_file_missing", "evaluate --models <missing file>",
            ["evaluate", "--models", "{tmp}/models.yaml", "--out", "{tmp}/run", "--to", "{tmp}/dataset"], "does not exist"),
]


# --- slmboard evaluate --models (issue 26): a bad models file is refused before anything is scheduled ------------------


@dataclass(frozen=True)
class ModelsFileCase:
    """A models file (``text``) that `evaluate --models` refuses; ``where`` is the expected ``line:entry: field`` locator."""

    name: str
    description: str
    text: str
    where: str
    message: str

    def locator(self, file: str) -> str:
        """How the error line starts: ``FILE:LINE:ENTRY: FIELD: `` (``FILE: `` for a problem of the whole file)."""
        return f"{file}:{self.where}: " if self.where else f"{file}: "


MODELS_FILE_CASES: list[ModelsFileCase] = [
    ModelsFileCase("models_typo_key", "an entry with a misspelt option",
                   "models:\n  - submission_id: smol-a\n    modle_args: pretrained=x\n", "3:entry 1 (smol-a): modle_args",
                   "unknown option; an entry takes model, model_args, revision, submission_id"),
    ModelsFileCase("models_bad_model_args", "model_args with an unknown key",
                   "models:\n  - submission_id: smol-a\n  - submission_id: smol-b\n    model_args: pretrainned=x\n",
                   "4:entry 2 (smol-b): model_args", "unknown model argument 'pretrainned'"),
    ModelsFileCase("models_unknown_backend", "model: nope", "models:\n  - model: nope\n", "2:entry 1: model",
                   "unknown model backend 'nope'; valid model backends: hf, openai, vllm"),
    ModelsFileCase("models_board_option", "suites set in an entry", "models:\n  - submission_id: smol-a\n    suites: smoke\n",
                   "3:entry 1 (smol-a): suites", "an option of the whole board: set it on the command line"),
    ModelsFileCase("models_same_run", "two entries naming the same run",
                   "models:\n  - submission_id: smol-a\n  - submission_id: smol-a\n", "3:entry 2",
                   "names the same run 'smol-a' as entry 1; give it its own submission_id"),
    ModelsFileCase("models_two_revisions", "revision disagreeing with model_args' revision",
                   "models:\n  - model_args: pretrained=org/m,revision=abc\n    revision: def\n", "2:entry 1",
                   "revision 'def' and model_args revision=abc disagree"),
    ModelsFileCase("models_bad_submission_id", "a submission id with '../'", "models:\n  - submission_id: ../x\n",
                   "2:entry 1 (../x): submission_id", "String should match pattern"),
    ModelsFileCase("models_empty", "no entries", "models: []\n", "1:models", "at least 1 item"),
    ModelsFileCase("models_not_a_mapping", "a bare list at the top", "- submission_id: smol-a\n", "",
                   "expected a mapping with a list under 'models:'"),
    ModelsFileCase("models_bad_yaml", "a YAML syntax error", "models:\n  - submission_id: [smol-a\n", "3",
                   "not valid YAML"),
]


# --- slmboard import (issue 12): bad sources; each case must exit 1, name the place, and write nothing ---------------


@dataclass(frozen=True)
class ImportCase:
    """`slmboard import` on a bad source: ``make(tmp)`` writes the source and returns the argv after ``import``."""

    name: str
    description: str
    message: str  # substring; "{src}" is replaced by the source path
    make: Callable[[Path], list[str]] = field(repr=False, default=lambda d: [])


def _smoke_prompts() -> list[str]:
    from toolkit.stages.suites import load_items

    return [i.prompt for i in load_items("smoke")[:2]]


def _csv_source(d: Path, text: str, name: str = "src.csv") -> Path:
    p = d / name
    p.write_text(text, encoding="utf-8")
    return p


def _good_csv(d: Path, extra_col: str = "label", values=("safe", "harmful")) -> Path:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["prompt", "response", extra_col])
    for prompt, value in zip(_smoke_prompts(), values):
        w.writerow([prompt, "I can't help with that.", value])
    return _csv_source(d, buf.getvalue())


def _table(src: Path, *extra: str) -> list[str]:
    return ["table", str(src), "--suites", "smoke", "--model-id", "org/m", "--out", str(src.parent / "run"), *extra]


IMPORT_CASES: list[ImportCase] = [
    ImportCase("import_unknown_format", "import nope FILE", "unknown import format 'nope'; valid import formats: eee, helm, inspect, lm-eval, table",
               lambda d: ["nope", str(_good_csv(d)), "--out", str(d / "run")]),
    ImportCase("import_wrong_format", "import table on a .json file", "{src}: expected a CSV, JSONL or parquet table",
               lambda d: _table(_csv_source(d, "{}", "src.json"))),
    ImportCase("import_empty_file", "import table on an empty file", "{src}: file is empty", lambda d: _table(_csv_source(d, ""))),
    ImportCase("import_header_only", "import table on a header-only CSV", "{src}: no data rows",
               lambda d: _table(_csv_source(d, "prompt,response\n"))),
    ImportCase("import_missing_column", "import table --columns response=answer (no such column)", "{src}:2:answer: no column 'answer'",
               lambda d: _table(_good_csv(d), "--columns", "response=answer")),
    ImportCase("import_missing_judge_column", "import table --judge-column j=verdict (no such column)", "{src}:2:verdict: no column",
               lambda d: _table(_good_csv(d), "--judge-column", "j=verdict")),
    ImportCase("import_ragged_row", "import table on a CSV row with too few fields", "{src}:3: expected 2 fields, got 1",
               lambda d: _table(_csv_source(d, f'prompt,response\n"{_smoke_prompts()[0]}",ok\nonly-one\n'))),
    ImportCase("import_unknown_labels", "import table --labels maybe", "unknown labels 'maybe'",
               lambda d: _table(_good_csv(d), "--judge-column", "j=label", "--labels", "maybe")),
    ImportCase("import_label_map_score", "import table --labels 'a=0.7'", "score '0.7' of 'a' must be 0, 0.5 or 1",
               lambda d: _table(_good_csv(d), "--judge-column", "j=label", "--labels", "a=0.7")),
    ImportCase("import_judge_id_markup", "import table --judge-column 'human<b>x</b>=label'",
               "judge id 'human<b>x</b>' must match",
               lambda d: _table(_good_csv(d), "--judge-column", "human<b>x</b>=label")),
    ImportCase("import_unreadable_labels", "import table --judge-column on a column of unknown labels", "{src}:label: judge j",
               lambda d: _table(_good_csv(d, values=("yes", "no")), "--judge-column", "j=label", "--labels", "ternary")),
    ImportCase("import_truncated_jsonl", "import table on a JSONL file with a truncated line", "{src}:2: invalid JSON",
               lambda d: _table(_csv_source(d, __import__("json").dumps({"prompt": _smoke_prompts()[0], "response": "x"})
                                            + '\n{"prompt": "How', "src.jsonl"))),
    ImportCase("import_prompt_not_text", "import table on a JSONL row whose prompt is a number", "{src}:1:prompt: expected text",
               lambda d: _table(_csv_source(d, '{"prompt": 42, "response": "x"}\n', "src.jsonl"))),
    ImportCase("import_bad_id_map", "import table --id-map v2-{n}", "expected SOURCE_PATTERN=SUITE_PATTERN, e.g. 'v2-{n}=xstest_{n}' (id_map is --id-map on the command line)",
               lambda d: _table(_good_csv(d), "--id-map", "v2-{n}")),
    ImportCase("import_no_suite", "import table without --suites", "the table source does not say which suite it is; pass --suites NAME",
               lambda d: ["table", str(_good_csv(d)), "--model-id", "org/m", "--out", str(d / "run")]),
    ImportCase("import_no_model", "import table without --model-id", "the table source does not name the model; pass --model-id 'ORG/NAME'",
               lambda d: ["table", str(_good_csv(d)), "--suites", "smoke", "--out", str(d / "run")]),
    ImportCase("import_unmatched", "import table with a row that is no suite item", "{src}:3: 'not a smoke prompt': prompt is not a smoke item",
               lambda d: _table(_csv_source(d, f'prompt,response\n"{_smoke_prompts()[0]}",ok\nnot a smoke prompt,ok\n'))),
    ImportCase("import_eee_not_aggregate", "import eee on a JSON file that is no EEE aggregate", "{src}:schema_version: required EEE field is missing",
               lambda d: ["eee", str(_csv_source(d, '{"results": {}}', "agg.json")), "--suites", "smoke", "--out", str(d / "run")]),
    ImportCase("import_eee_truncated_samples", "import eee whose samples file was cut short", "sha256 differs",
               lambda d: ["eee", str(_eee_pair(d, truncate=True)), "--suites", "smoke", "--out", str(d / "run")]),
    ImportCase("import_eee_sample_field", "import eee with a sample lacking output.raw", "_samples.jsonl:1:output.raw: required EEE field is missing",
               lambda d: ["eee", str(_eee_pair(d, drop_output=True)), "--suites", "smoke", "--out", str(d / "run")]),
    ImportCase("import_lm_eval_no_results", "import lm-eval on a folder without results_*.json",
               "{src}: no lm-eval results file here: results_<date>.json (--output_path DIR) or NAME_<date>.json (--output_path NAME.json)",
               lambda d: ["lm-eval", str(_lm_eval_folder(d, results=False)), "--suites", "smoke", "--model-id", "org/m", "--out", str(d / "run")]),
    ImportCase("import_lm_eval_prompt_field", "import lm-eval --prompt-field naming no field of the doc",
               "samples_slmboard_smoke_2026-01-01T00-00-00.000000.jsonl:1:doc.question: no prompt field (question) in the doc "
               "(fields: prompt); name the field in prompt_field (prompt_field is --prompt-field on the command line)",
               lambda d: ["lm-eval", str(_lm_eval_folder(d)), "--prompt-field", "question", "--model-id", "org/m",
                          "--out", str(d / "run")]),
    ImportCase("import_lm_eval_truncated", "import lm-eval with a truncated samples line", "samples_slmboard_smoke_2026-01-01T00-00-00.000000.jsonl:2: invalid JSON",
               lambda d: ["lm-eval", str(_lm_eval_folder(d, truncate=True)), "--model-id", "org/m", "--out", str(d / "run")]),
    ImportCase("import_inspect_wrong_format", "import inspect on a CSV file", "{src}: expected Inspect logs (.eval / .json)",
               lambda d: _inspect(_good_csv(d), d)),
    ImportCase("import_inspect_not_a_log", "import inspect on a JSON file that is no Inspect log", "{src}: not a readable Inspect log",
               lambda d: _inspect(_csv_source(d, '{"results": {}, "configs": {}}', "results.json"), d)),
    ImportCase("import_inspect_truncated", "import inspect on a .eval log cut short", "{src}: not a readable Inspect log",
               lambda d: _inspect(_truncated_eval(d), d)),
    ImportCase("import_helm_not_a_run", "import helm on a folder without run_spec.json", "{src}: no run_spec.json here",
               lambda d: _helm(d, spec=False)),
    ImportCase("import_helm_truncated_state", "import helm with a truncated scenario_state.json", "scenario_state.json:1: not valid JSON",
               lambda d: _helm(d, truncate=True)),
    ImportCase("import_helm_unknown_judge_key", "import helm with an annotation key no HELM version table has (claude_score)",
               "scenario_state.json:1:request_states[0].annotations.smoke.claude_score: judge key 'claude' is not in slmboard's "
               "table of HELM 0.5 judge models (gpt, llama) and HELM does not record which model it is; name it with judge_models "
               "'claude=ORG/MODEL' (judge_models is --judge-model on the command line)",
               lambda d: _helm(d, annotations=True)),
    ImportCase("import_helm_bad_judge_model", "import helm --judge-model claude (no =MODEL)",
               "judge_models 'claude': expected KEY=MODEL", lambda d: _helm(d, annotations=True) + ["--judge-model", "claude"]),
    ImportCase("import_helm_unused_judge_model", "import helm --judge-model naming a key no annotation has",
               "judge_models names key(s) 'llama', which no annotation in",
               lambda d: _helm(d, annotations=True) + ["--judge-model", "claude=anthropic/claude-3-5-sonnet-20240620",
                                                       "--judge-model", "llama=meta/llama-3.1-405b-instruct-turbo"]),
    ImportCase("import_helm_scenario_without_suite", "import helm on a folder with a run of a scenario slmboard has no suite for",
               "1 part(s) of the helm source say no suite slmboard has ({src}/anthropic_red_team:model=org_m (HELM scenario "
               "anthropic_red_team): 2 row(s)); pass --skip-unmatched to leave them out, or pass --suites NAME if they are one",
               lambda d: [a for a in _helm(d, scenario="anthropic_red_team") if a not in ("--suites", "smoke")]),
    ImportCase("import_helm_suite_overrides_source", "import helm --suites smoke on a run that says its suite (xstest)",
               "suite 'smoke' applies to sources that do not say their suite; this helm source says xstest (suite is --suites on the command line)",
               lambda d: _helm(d, scenario="xstest")),
    ImportCase("import_reworded_id", "import table with a row whose id is a suite item's but whose wording differs",
               "{src}:2 (id smoke_001): 'reworded': prompt is not a smoke item; its id 'smoke_001' is one but the wording differs",
               lambda d: _table(_csv_source(d, "item_id,prompt,response\nsmoke_001,reworded,no\n"),
                                "--columns", "prompt=prompt,response=response,item_id=item_id")),
    ImportCase("import_lm_eval_samples_of_another_run", "import lm-eval whose samples are of another run (another date)",
               "results_2026-01-01T00-00-00.000000.json: no samples_<task>_2026-01-01T00-00-00.000000.jsonl beside it; "
               "run lm_eval with --log_samples",
               lambda d: ["lm-eval", str(_lm_eval_folder(d, samples_date="2026-02-02T00-00-00.000000")), "--model-id", "org/m",
                          "--out", str(d / "run")]),
    ImportCase("import_eee_two_values_of_one_metric", "import eee with two rows of one sample and metric",
               "agg_samples.jsonl:2:evaluation_result_id: a second value of judge eee:smoke/s_raw for sample 'smoke_001' "
               "(first at line 1); one row per (sample, evaluation_result_id)",
               lambda d: ["eee", str(_eee_pair(d, same_sample=True)), "--suites", "smoke", "--out", str(d / "run")]),
    ImportCase("import_eee_unknown_metric", "import eee --metric naming no metric of the aggregate",
               "no sample of metric 'accuracy'; the aggregates' metrics: smoke/s_raw (metric is --metric on the command line)",
               lambda d: ["eee", str(_eee_pair(d)), "--metric", "accuracy", "--suites", "smoke", "--out", str(d / "run")]),
    ImportCase("import_eee_undeclared_metric", "import eee with a sample of a metric the aggregate does not list",
               "agg_samples.jsonl:1:evaluation_result_id: 'smoke/other' is none of agg.json's evaluation_results (smoke/s_raw)",
               lambda d: ["eee", str(_eee_pair(d, result_id="smoke/other")), "--suites", "smoke", "--out", str(d / "run")]),
    ImportCase("import_inspect_task_without_suite", "import inspect on a folder with a log of a task of no slmboard suite",
               "(Inspect task nope): 6 row(s)); pass --skip-unmatched to leave them out",
               lambda d: ["inspect", str(_inspect_task_log(d, "nope")), "--data-dir", str(d), "--out", str(d / "run")]),
    ImportCase("import_helm_bbq_category_missing", "import helm <a BBQ run> --data-dir <3 of BBQ's 11 category files>",
               "prompt is not a bbq item of the categories loaded (some category files are missing)",
               lambda d: ["helm", str(_helm_bbq_run(d)), "--data-dir", str(_bbq_categories(d, "Age", "Disability_status",
                                                                                                "Nationality")),
                          "--out", str(d / "run")]),
    ImportCase("import_inspect_two_models", "import inspect on a folder with logs of two models",
               "the inspect source's rows are of 2 models (", lambda d: ["inspect", str(_inspect_task_log(
                   d, "xstest", model="openai-api/local/other-model")), "--out", str(d / "run")]),
    ImportCase("import_lm_eval_task_without_suite", "import lm-eval with a task of no slmboard suite",
               "(lm-eval task nope): 2 row(s)); pass --skip-unmatched to leave them out",
               lambda d: ["lm-eval", str(_lm_eval_folder(d, task="nope")), "--model-id", "org/m", "--out", str(d / "run")]),
]


def _helm(d: Path, spec: bool = True, truncate: bool = False, annotations: bool = False, scenario: str = "smoke") -> list[str]:
    """A HELM run folder (run_spec.json + scenario_state.json) over two smoke prompts; ``annotations``: each judged
    by a ``claude`` key, as HELM's main branch wrote in August 2024."""
    folder = d / "runs" / f"{scenario}:model=org_m"
    folder.mkdir(parents=True)
    if spec:
        (folder / "run_spec.json").write_text(json.dumps({"name": f"{scenario}:model=org_m", "adapter_spec": {"model": "org/m"}}))
    states = [{"instance": {"id": f"id{n}", "input": {"text": p}}, "train_trial_index": 0,
               "result": {"completions": [{"text": "no"}]}} for n, p in enumerate(_smoke_prompts())]
    for state in states if annotations else []:
        state["annotations"] = {scenario: {"prompt_text": "...", "claude_score": 1.0, "claude_reasoning": "refused"}}
    text = json.dumps({"adapter_spec": {}, "request_states": states})
    (folder / "scenario_state.json").write_text(text[: len(text) // 2] if truncate else text)
    src = d / "runs" if spec else folder
    return ["helm", str(src), "--suites", "smoke", "--out", str(d / "run")]


def _inspect(src: Path, d: Path) -> list[str]:
    return ["inspect", str(src), "--suites", "smoke", "--model-id", "org/m", "--out", str(d / "run")]


def _truncated_eval(d: Path) -> Path:
    """An .eval log (Inspect's zip layout: header.json + one sample) cut off before the zip's directory."""
    import zipfile

    path = d / "log.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps({"version": 2, "status": "success", "eval": {"task": "smoke", "model": "org/m"}}))
        z.writestr("samples/1_epoch_1.json", json.dumps({"id": 1, "epoch": 1, "input": _smoke_prompts()[0]}))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    return path


def _inspect_task_log(d: Path, task: str, model: str | None = None) -> Path:
    """The committed XSTest log (Inspect's mock grader) beside a copy of it whose task is ``task`` (and model
    ``model``), written with inspect_ai's own writer."""
    from inspect_ai.log import read_eval_log, write_eval_log

    (log_path,) = sorted((Path(__file__).parent / "importing" / "fixtures" / "inspect_xstest" / "logs_mock_grader").glob("*.eval"))
    folder = d / "logs"
    folder.mkdir()
    log = read_eval_log(str(log_path))
    write_eval_log(log, str(folder / "xstest.json"))
    log.eval.task = task
    log.eval.model = model or log.eval.model
    write_eval_log(log, str(folder / f"{task}{'-other-model' if model else ''}.json"))
    return folder


def _helm_bbq_run(d: Path) -> Path:
    """The BBQ run crfm-helm 0.5.16 wrote (fixtures/helm_real), copied."""
    (run,) = (Path(__file__).parent / "importing" / "fixtures" / "helm_real" / "runs").glob("bbq:*")
    return Path(shutil.copytree(run, d / "runs" / run.name))


def _bbq_categories(d: Path, *names: str) -> Path:
    """A data folder holding only these BBQ category files (from the benchmark mirror)."""
    folder = d / "data" / "bbq" / "data"
    folder.mkdir(parents=True)
    for name in names:
        shutil.copy(_mirrored(f"bbq/data/{name}.jsonl"), folder)
    return d / "data"


def _eee_pair(d: Path, truncate: bool = False, drop_output: bool = False, same_sample: bool = False,
              result_id: str | None = None) -> Path:
    """A minimal EEE aggregate + samples pair over two smoke prompts (checksum and row count filled in)."""
    import hashlib

    samples = []
    for n, prompt in enumerate(_smoke_prompts(), start=1):
        s = {"schema_version": "0.3.0", "evaluation_id": "e", "model_id": "org/m", "evaluation_name": "smoke",
             "sample_id": "smoke_001" if same_sample else f"smoke_00{n}", "interaction_type": "single_turn",
             "input": {"raw": _smoke_prompts()[0] if same_sample else prompt, "reference": []},
             "output": {"raw": ["I can't help with that."]}, "answer_attribution": [], "evaluation": {"score": 1.0, "is_correct": True}}
        if drop_output:
            del s["output"]
        if result_id:
            s["evaluation_result_id"] = result_id
        samples.append(json.dumps(s))
    text = "\n".join(samples) + "\n"
    agg = {"schema_version": "0.3.0", "evaluation_id": "e", "model_info": {"name": "m", "id": "org/m"},
           "evaluation_results": [{"evaluation_result_id": "smoke/s_raw", "evaluation_name": "smoke"}],
           "detailed_evaluation_results": {"format": "jsonl", "file_path": "data/x/agg_samples.jsonl", "hash_algorithm": "sha256",
                                           "checksum": hashlib.sha256(text.encode()).hexdigest(), "total_rows": 2}}
    folder = d / "eee"
    folder.mkdir()
    (folder / "agg.json").write_text(json.dumps(agg))
    (folder / "agg_samples.jsonl").write_text(text[:-20] if truncate else text)
    return folder


def _lm_eval_folder(d: Path, results: bool = True, truncate: bool = False, task: str = "slmboard_smoke",
                    samples_date: str | None = None) -> Path:
    """lm-eval's output layout for one task (default slmboard_smoke; two samples)."""
    folder = d / "lm-eval-out" / "org__m"
    folder.mkdir(parents=True)
    date = "2026-01-01T00-00-00.000000"
    if results:
        config = {"output_type": "generate_until", "generation_kwargs": {"max_gen_toks": 16, "temperature": 0.0}}
        (folder / f"results_{date}.json").write_text(json.dumps({"results": {}, "configs": {task: config},
                                                                 "model_name": "org/m", "lm_eval_version": "0.4.13"}))
    lines = [json.dumps({"doc_id": n, "doc": {"prompt": p}, "resps": [["no"]], "filtered_resps": ["no"]})
             for n, p in enumerate(_smoke_prompts())]
    text = lines[0] + "\n" + (lines[1][:30] if truncate else lines[1] + "\n")
    (folder / f"samples_{task}_{samples_date or date}.jsonl").write_text(text)
    return d / "lm-eval-out"


#: Cases exercised by tests of their own (a Hub emulator, a browser, a kill, a warning): (area, input, what slmboard
#: does, the test). Each test module must exist (tests/badinput/test_bad_inputs.py checks).
OTHER_CASES: list[tuple[str, str, str, str]] = [
    ("Hub board", "`slmboard rank ORG/NAME`, `validate hf://datasets/ORG/NAME`, `recompute ORG/NAME` of a Hub board one "
     "of whose parquet files was edited after it was published", "`…ORG/NAME/data/SUITE/FILE: changed after it was "
     "published (sha256 differs from submission SID's manifest…` (recompute commits nothing)",
     "tests/publishing/test_reader_hub.py"),
    ("serve", "`slmboard serve BOARD` of a board with an edited parquet file", "the submission is left out; the page "
     "says `Left out of this board: …`", "tests/reading/test_board_integrity.py"),
    ("submit", "kill -9 during a local `slmboard submit`", "nothing under `data/`: `load_dataset(folder)` and `rank` show "
     "the board as it was; the next write cleans up", "tests/robustness/test_kill_submit_staging.py"),
    ("Space", "a shared link `?label=<img src=…><a …>` (any value the page does not know)", "dropped: no error popup, "
     "no element built from the query string, no request off 127.0.0.1", "tests/space/test_space_query_string.py"),
    ("CLI", "`slmboard generate --model-args trust_remote_code=true`", "one line `warning: trust_remote_code=true: the "
     "model repository's own Python code will run…`; recorded in run.json", "tests/badinput/test_flags_before_loading.py"),
    ("board.yaml", "a recipe version newer than this slmboard reads", "`…recipe version N needs a newer slmboard…`",
     "tests/publishing/test_board_names.py"),
    ("labels", "`slmboard labels BOARD --from FILE.csv` with a label of an item the board does not hold, a changed "
     "answer, a second label by one person on one answer, a word outside the suite's, a labeller over the daily cap "
     "or off the allow-list, a note over 1000 characters, a name that is not a safe id",
     "one line `error: FILE row N: FIELD: …` (e.g. `…is not one of the suite's words…`, `…has labelled … already`); "
     "the labels dataset unchanged", "tests/publishing/test_labels.py"),
    ("labels", "`slmboard labels ORG/NAME --from FILE.csv` with a token that may not write to the labels dataset",
     "one `HubNoWriteAccess` line naming `ORG/NAME-labels`; nothing stored", "tests/publishing/test_labels.py"),
]


def render_table() -> str:
    lines = ["| area | input | expected error (substring) |", "|---|---|---|"]
    for c in RECORD_CASES:
        lines.append(f"| record | {c.description} | `FILE:{c.where}: …{c.message}…` |")
    for c in FILE_CASES:
        lines.append(f"| file / manifest | {c.description} | `…{c.message}…` |")
    for c in CLI_CASES:
        lines.append(f"| CLI | `slmboard {c.description}` | `…{c.message}…` |")
    for c in IMPORT_CASES:
        lines.append(f"| import | `slmboard {c.description}` | `…{c.message.replace('{src}', 'FILE')}…` |")
    for c in MODELS_FILE_CASES:
        lines.append(f"| models file | {c.description} | `{c.locator('FILE')}…{c.message}…` |")
    for area, given, said, test in OTHER_CASES:
        lines.append(f"| {area} | {given} | {said} ({test}) |")
    return "\n".join(lines) + "\n"


DOC_HEADER = """# Bad input: what slmboard says

Every case below is exercised by `tests/badinput/test_bad_inputs.py`: the command exits non-zero
with a message naming the file, row (1-based line or parquet row) and field, and — for records
inside a run — `slmboard submit` refuses the run and leaves the dataset folder byte-identical.
Regenerate this table with `python tests/slmboard_badinput.py > docs/bad-inputs.md`.

Accepted by design (not errors): a UTF-8 byte-order mark at the start of a JSONL file, CRLF line
endings, blank lines, and any Unicode text in prompts and responses that UTF-8 can encode.

"""


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    print(DOC_HEADER + render_table(), end="")
