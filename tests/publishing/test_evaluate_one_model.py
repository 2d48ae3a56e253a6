"""`evaluate` is generate → judge → submit of one model, each step's options one typed object of
:class:`EvaluationOptions` (the API takes option objects only: no keyword options)."""
from __future__ import annotations

import inspect
import json

import pytest

from toolkit import api
from toolkit.core.defaults import DEFAULT_BACKEND
from toolkit.stages.generation import runner
from slmboard_testing import CannedBackend, new_board


def _records(folder):
    """Every record line under a run folder's responses and judgments, without the times they were made (the usage
    ledgers under .usage/ are no records: what they time differs run to run)."""
    out = {}
    for path in sorted(p for p in folder.rglob("*.jsonl") if not p.relative_to(folder).parts[0].startswith(".")):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for row in rows:
            for key in ("created_at", "judged_at", "latency_s"):
                row.pop(key, None)
        out[str(path.relative_to(folder))] = rows
    return out


def test_evaluate_is_generate_judge_submit_of_one_model(tmp_path):
    quiet = api.Services(progress=False)
    run = api.GenerationRunOptions(suites=["smoke"], limit=3)
    new_board(tmp_path / "ds1")
    steps = api.EvaluationOptions(generation=run, submission=api.SubmitOptions(n_bootstrap=0))
    r = api.evaluate(tmp_path / "a", tmp_path / "ds1", CannedBackend(), options=steps, services=quiet)
    assert r.n_records == 3 and r.judge_id == "heuristic-v1"

    new_board(tmp_path / "ds2")
    api.generate(tmp_path / "b", CannedBackend(), run, services=quiet)
    judged = api.judge(tmp_path / "b", "heuristic", services=quiet)
    api.submit(tmp_path / "b", tmp_path / "ds2", api.SubmitOptions(n_bootstrap=0))
    assert judged.judge_id == r.judge_id
    assert _records(tmp_path / "a") == _records(tmp_path / "b")  # the same records, made the same way


def test_a_wider_options_object_resumes_the_run(tmp_path):
    options = api.GenerationRunOptions(suites=["smoke"], limit=2, max_new_tokens=8)
    first = api.generate(tmp_path / "a", model=CannedBackend(), options=options, services=api.Services(progress=False))
    assert first.n_new == 2 and first.config.generation.max_new_tokens == 8
    wider = api.generate(tmp_path / "a", CannedBackend(), options.model_copy(update={"limit": 3}),
                         services=api.Services(progress=False))
    assert (wider.n_new, wider.n_skipped, wider.config.generation.max_new_tokens) == (1, 2, 8)
    with pytest.raises(api.BadOption, match=r"^limit must be at least 1, got 0$") as exc:
        api.GenerationRunOptions(suites=["smoke"], limit=0)
    assert exc.value.param == "limit" and not (tmp_path / "b").exists()


def test_evaluate_models_takes_option_objects_and_refuses_per_model_ones(tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text("models:\n  - submission_id: one\n")
    new_board(tmp_path / "ds")
    with pytest.raises(api.BadOption, match=r"has no option 'limt' \(did you mean 'limit'\?\)"):
        api.GenerationRunOptions(limt=2)
    with pytest.raises(TypeError):
        api.evaluate_models(models, tmp_path / "runs", tmp_path / "ds", limit=2)  # type: ignore[call-arg]
    sharded = api.EvaluationOptions(generation=api.GenerationRunOptions(shard="0/2"))
    with pytest.raises(api.BadOption, match="^shard names one model or one run; with a models file") as exc:
        api.evaluate_models(models, tmp_path / "runs", tmp_path / "ds", options=sharded)
    assert exc.value.param == "shard"
    with pytest.raises(api.BadOption, match="update publishes the judges"):
        api.evaluate(tmp_path / "run", tmp_path / "ds",
                     options=api.EvaluationOptions(submission=api.SubmitOptions(update=True)))
    assert not (tmp_path / "runs").exists() and not (tmp_path / "run").exists()


def test_the_runner_defaults_to_the_default_backend():
    assert inspect.signature(runner.generate).parameters["model"].default == DEFAULT_BACKEND
