"""The stage engine (toolkit/core/stage_engine.py) through the commands that use it: one bad-row policy,
torn-line repair, records appended the moment the backend yields them, resume without duplicates."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from slmboard_testing import make_run

from toolkit import api
from toolkit.core.errors import SlmboardError
from toolkit.stages.generation.backends import Backend, Completion, ModelDescription
from toolkit.core.records_io import iter_jsonl


class EchoBackend(Backend):
    """A backend without a model: the answer is a fixed function of the prompt."""

    name = "echo"

    def __init__(self, batch: int = 2) -> None:
        self.batch, self.calls = batch, []

    def describe(self) -> ModelDescription:
        return ModelDescription("org/echo", "rev1", None, "cpu", None)

    def default_batch_size(self) -> int:
        return self.batch

    def generate(self, prompts, max_new_tokens, seed):
        self.calls.append(list(prompts))
        return [Completion(f"answer to {p[:20]}", 3, "stop") for p in prompts]


def _ids(path: Path) -> list[str]:
    return [row["item_id"] for _, row in iter_jsonl(path)]


def test_generate_default_stream_writes_every_item_once_and_resumes(tmp_path):
    run = tmp_path / "run"
    first = api.generate(run, model=EchoBackend(), options=api.GenerationRunOptions(suites="smoke", limit=3), services=api.Services(progress=False))
    assert (first.n_new, first.n_skipped) == (3, 0)
    again = api.generate(run, model=EchoBackend(), options=api.GenerationRunOptions(suites="smoke", limit=5), services=api.Services(progress=False))
    assert (again.n_new, again.n_skipped) == (2, 3)
    ids = _ids(run / "responses" / "smoke.jsonl")
    assert len(ids) == len(set(ids)) == 5


def test_bad_row_in_responses_stops_generate_naming_file_and_line(tmp_path):
    run = tmp_path / "run"
    api.generate(run, model=EchoBackend(), options=api.GenerationRunOptions(suites="smoke", limit=3), services=api.Services(progress=False))
    path = run / "responses" / "smoke.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    row = json.loads(lines[1])
    row["n_output_tokens"] = -4  # a record no writer of ours produces
    lines[1] = json.dumps(row) + "\n"
    path.write_text("".join(lines))
    before = path.read_bytes()
    with pytest.raises(SlmboardError, match=r"smoke\.jsonl:2:n_output_tokens"):
        api.generate(run, model=EchoBackend(), options=api.GenerationRunOptions(suites="smoke", limit=5), services=api.Services(progress=False))
    assert path.read_bytes() == before  # nothing appended after a bad row


def test_invalid_json_line_stops_judge_naming_file_and_line(tmp_path):
    run = make_run(tmp_path / "run", judged=False)
    api.judge(run, judge="heuristic", services=api.Services(progress=False))
    path = next((run / "judgments").rglob("smoke.jsonl"))
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(1, '{"item_id": "smoke_009", "score": 0.7}\n')
    path.write_text("".join(lines))
    with pytest.raises(SlmboardError, match=r"smoke\.jsonl:2"):
        api.judge(run, judge="heuristic", services=api.Services(progress=False))


def test_torn_last_line_is_cut_and_its_item_redone(tmp_path):
    run = tmp_path / "run"
    api.generate(run, model=EchoBackend(), options=api.GenerationRunOptions(suites="smoke", limit=3), services=api.Services(progress=False))
    path = run / "responses" / "smoke.jsonl"
    text = path.read_text()
    last_start = text.rstrip("\n").rfind("\n") + 1
    path.write_text(text[: last_start + 25])  # a writer killed in the middle of the last record
    result = api.generate(run, model=EchoBackend(), options=api.GenerationRunOptions(suites="smoke", limit=3), services=api.Services(progress=False))
    assert (result.n_new, result.n_skipped) == (1, 2)
    assert path.read_text() == text  # same bytes as the uninterrupted run


class StreamThenFail(EchoBackend):
    """Streams the second prompt's answer first, then dies (a kill while the rest are decoding)."""

    def generate_stream(self, prompts, max_new_tokens, seed) -> Iterator[tuple[int, Completion]]:
        yield 1, Completion(f"answer to {prompts[1][:20]}", 3, "stop")
        raise RuntimeError("backend died")


def test_each_streamed_answer_is_on_disk_before_the_next_is_awaited(tmp_path):
    run = tmp_path / "run"
    with pytest.raises(RuntimeError, match="backend died"):
        api.generate(run, model=StreamThenFail(), options=api.GenerationRunOptions(suites="smoke", limit=3), services=api.Services(progress=False))
    rows = [row for _, row in iter_jsonl(run / "responses" / "smoke.jsonl")]
    assert len(rows) == 1 and rows[0]["response"].startswith("answer to ")
    # The resumed run answers only the two missing items, with the default (in-order) stream.
    result = api.generate(run, model=EchoBackend(), options=api.GenerationRunOptions(suites="smoke", limit=3), services=api.Services(progress=False))
    assert (result.n_new, result.n_skipped) == (2, 1)


def test_default_generate_stream_chunks_by_batch_size_and_yields_every_index():
    backend = EchoBackend(batch=2)
    prompts = [f"p{k}" for k in range(5)]
    out = list(backend.generate_stream(prompts, 8, 0))
    assert [i for i, _ in out] == [0, 1, 2, 3, 4]
    assert [c.text for _, c in out] == [f"answer to p{k}" for k in range(5)]
    assert backend.calls == [["p0", "p1"], ["p2", "p3"], ["p4"]]
