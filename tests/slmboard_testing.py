"""Helpers of the tests only (the docs pages, a board made on purpose, a canned backend); the run builders the
bench scripts share too live in toolkit.testing.runs and are re-exported here."""
from __future__ import annotations

from pathlib import Path

from toolkit.stages.generation.backends import Backend, Completion, ModelDescription
from toolkit.testing.runs import GEN, make_item_row, make_run  # noqa: F401  (re-exported: the tests import them here)


def doc_texts() -> list[tuple[Path, str]]:
    """(path, text) of README.md and every page of docs/: the reference content moves from README to docs/,
    so a test that reads "the README's example" looks in all of them."""
    from slmboard_docs_runner import doc_pages  # one list of the pages, the runner's

    return [(page, page.read_text(encoding="utf-8")) for page in doc_pages()]


def write_csv(path: Path, rows: list[dict]) -> Path:
    """``rows`` as a CSV file at ``path`` (the first row's keys are the header); returns ``path``."""
    import csv

    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


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


def kappa_linear_by_hand(pairs):
    """Linear-weighted Cohen's kappa of (a, b) score pairs on 0 / 0.5 / 1, from its definition (a test oracle,
    never the code under test): 1 − observed / expected weighted disagreement; None when nothing is expected."""
    levels = [0.0, 0.5, 1.0]
    n = len(pairs)
    obs = [[0] * 3 for _ in range(3)]
    for x, y in pairs:
        obs[levels.index(x)][levels.index(y)] += 1
    rows = [sum(obs[i]) / n for i in range(3)]
    cols = [sum(obs[i][j] for i in range(3)) / n for j in range(3)]
    w = lambda i, j: abs(i - j) / 2  # noqa: E731 - linear disagreement weight
    observed = sum(w(i, j) * obs[i][j] / n for i in range(3) for j in range(3))
    expected = sum(w(i, j) * rows[i] * cols[j] for i in range(3) for j in range(3))
    return 1 - observed / expected if expected else None
