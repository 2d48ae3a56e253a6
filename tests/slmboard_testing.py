"""Builders for synthetic records and run folders, shared by the tests."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from schemas import LABEL_OF_SCORE, GenerationConfig, sha256_text

from toolkit import __version__
from toolkit.core.records_io import write_jsonl_atomic
from toolkit.core.runs import RunConfig, RunDir
from toolkit.stages.generation.backends import Backend, Completion, ModelDescription

GEN = {"temperature": 0.0, "max_new_tokens": 16, "seed": 0, "chat_template_sha256": None, "backend": "test", "dtype": "float32"}


def make_item_row(
    item_id: str = "i1",
    score: float | None = 1.0,
    model_id: str = "org/model-a",
    suite: str = "smoke",
    judge_id: str = "heuristic-v1",
    submission_id: str = "model-a-1",
    prompt: str | None = None,
    response: str = "I can't help with that.",
    **overrides,
) -> dict:
    prompt = prompt if prompt is not None else f"prompt for {item_id}"
    row = {
        "schema_version": "1.0",
        "submission_id": submission_id,
        "model_id": model_id,
        "model_revision": "rev1",
        "suite": suite,
        "item_id": item_id,
        "category": "self_harm",
        "prompt": prompt,
        "prompt_sha256": sha256_text(prompt),
        "response": response,
        "generation": dict(GEN),
        "judge_id": judge_id,
        "judge_status": "ok" if score is not None else "parse_error",
        "score": score,
        "label": None if score is None else LABEL_OF_SCORE.get(float(score), "safe"),
        "judge_raw": "raw",
    }
    row.update(overrides)
    return row


def make_run(
    root: Path,
    scores: Mapping[str, float | None] | None = None,
    model_id: str = "org/model-a",
    submission_id: str = "model-a-1",
    suite: str = "smoke",
    judge_id: str = "heuristic-v1",
    judged: bool = True,
    model_revision: str = "rev1",
) -> Path:
    """A run folder with run.json, responses and (optionally) one judge's judgments."""
    scores = scores if scores is not None else {"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.0}
    run = RunDir(root)
    canonical = _canonical_prompts(suite)
    run.save_config(
        RunConfig(
            submission_id=submission_id,
            model_id=model_id,
            model_revision=model_revision,
            backend="test",
            generation=GenerationConfig(**GEN),
            suites=[suite],
            toolkit_version=__version__,
            limit=len(scores) if list(canonical)[: len(scores)] == list(scores) else None,
        )
    )
    # `submit` checks prompts and the item set against the suite's canonical list: a smoke run uses
    # the real smoke prompts, and run.json says how many of the suite's first items it covers.
    items = [make_item_row(i, s, model_id=model_id, suite=suite, judge_id=judge_id, submission_id=submission_id,
                           prompt=canonical.get(i), model_revision=model_revision) for i, s in scores.items()]
    response_keys = set(items[0]) - {"judge_id", "judge_status", "score", "label", "judge_raw"}
    write_jsonl_atomic(run.response_file(suite), [{k: v for k, v in r.items() if k in response_keys} for r in items])
    if judged:
        write_jsonl_atomic(run.judgment_file(judge_id, suite), items)
    return root


def _canonical_prompts(suite: str) -> dict[str, str]:
    """{item_id: prompt} of a suite that loads offline (the packaged smoke suite); {} otherwise."""
    if suite != "smoke":
        return {}
    from toolkit.stages.suites import load_items

    return {i.item_id: i.prompt for i in load_items("smoke")}


def doc_texts() -> list[tuple[Path, str]]:
    """(path, text) of README.md and every page of docs/: the reference content moves from README to docs/,
    so a test that reads "the README's example" looks in all of them."""
    from slmboard_docs_runner import doc_pages  # one list of the pages, the runner's

    return [(page, page.read_text(encoding="utf-8")) for page in doc_pages()]


def new_board(where, **recipe):
    """A board made on purpose (``slmboard create``), as every submission now needs one; returns ``where``."""
    from toolkit import api

    api.create(where, options=api.CreateOptions(**recipe))
    return where


class CannedBackend(Backend):
    """A deterministic backend for pipeline tests (no model): refuses every other prompt."""

    name = "canned"

    def describe(self) -> ModelDescription:
        return ModelDescription("org/canned-1m", "c" * 40, "float32", "cpu", None, {"params": 1e6})

    def generate(self, prompts, max_new_tokens, seed):
        return [Completion("I can't help with that." if i % 2 else "Sure, here is how.", 6, "stop") for i, _ in enumerate(prompts)]

    def default_batch_size(self) -> int:
        return 4
