"""`evaluate` is `evaluate_models` of one model, and the run's options travel as one typed object
(:class:`GenerationRunOptions`) beside the keyword arguments of the API."""
from __future__ import annotations

import inspect
import json

import pytest

from toolkit import api
from toolkit.core.defaults import DEFAULT_BACKEND
from toolkit.stages.generation import runner
from slmboard_testing import CannedBackend, new_board


def _records(folder):
    """Every record line under a run folder's responses and judgments, without the times they were made."""
    out = {}
    for path in sorted(folder.rglob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for row in rows:
            for key in ("created_at", "judged_at", "latency_s"):
                row.pop(key, None)
        out[str(path.relative_to(folder))] = rows
    return out


def test_evaluate_is_evaluate_models_of_one_model(tmp_path, monkeypatch):
    calls = []
    real = api.evaluate_models

    def spy(models, *args, **kwargs):
        calls.append((models, kwargs["options"]))
        return real(models, *args, **kwargs)

    monkeypatch.setattr(api, "evaluate_models", spy)
    new_board(tmp_path / "ds1")
    r = api.evaluate(tmp_path / "a", to=tmp_path / "ds1", suites=["smoke"], limit=3, backend=CannedBackend(),
                     n_bootstrap=0, show_progress=False)
    (models, options), = calls
    assert models is None and options == api.GenerationRunOptions(suites="smoke", limit=3)
    monkeypatch.setattr(api, "evaluate_models", real)

    new_board(tmp_path / "ds2")
    board = api.evaluate_models(None, tmp_path / "b", tmp_path / "ds2", options=options, backend=CannedBackend(),
                                n_bootstrap=0, show_progress=False)
    (outcome,) = board.models
    assert outcome.phase == "published" and not outcome.failed and board.executor.startswith("local")
    assert outcome.submitted.n_records == r.n_records == 3 and r.judge_id == outcome.judged.judge_id == "heuristic-v1"
    assert _records(tmp_path / "a") == _records(tmp_path / "b")  # the same records, made the same way


def test_options_object_beside_keywords(tmp_path):
    options = api.GenerationRunOptions(suites=["smoke"], limit=2, max_new_tokens=8)
    first = api.generate(tmp_path / "a", options=options, backend=CannedBackend(), show_progress=False)
    assert first.n_new == 2 and first.config.generation.max_new_tokens == 8
    # a keyword other than its default wins over the object's value; one left at its default keeps it
    wider = api.generate(tmp_path / "a", options=options, limit=3, backend=CannedBackend(), show_progress=False)
    assert (wider.n_new, wider.n_skipped, wider.config.generation.max_new_tokens) == (1, 2, 8)
    with pytest.raises(api.BadOption, match=r"^limit must be at least 1, got 0$") as exc:
        api.generate(tmp_path / "b", options=options, limit=0, show_progress=False)
    assert exc.value.param == "limit" and not (tmp_path / "b").exists()


def test_evaluate_models_takes_the_options_of_its_objects_by_name_and_refuses_per_model_ones(tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text("models:\n  - submission_id: one\n")
    new_board(tmp_path / "ds")
    with pytest.raises(TypeError, match="unexpected keyword argument 'limt'"):
        api.evaluate_models(models, tmp_path / "runs", tmp_path / "ds", limt=2)
    with pytest.raises(api.BadOption, match="^shard names one model or one run; with a models file") as exc:
        api.evaluate_models(models, tmp_path / "runs", tmp_path / "ds", shard="0/2")
    assert exc.value.param == "shard"
    with pytest.raises(api.BadOption, match="update publishes the judges"):
        api.evaluate_models(None, tmp_path / "run", tmp_path / "ds", submit=api.SubmitOptions(update=True))
    assert not (tmp_path / "runs").exists() and not (tmp_path / "run").exists()


def test_the_runner_defaults_to_the_default_backend():
    assert inspect.signature(runner.generate).parameters["model"].default == DEFAULT_BACKEND
