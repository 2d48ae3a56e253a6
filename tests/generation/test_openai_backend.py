"""The openai backend against a real OpenAI-compatible server on 127.0.0.1 (llm-katan serving the dense SmolLM2).

The server must start: if it cannot, these tests fail (toolkit.testing.servers raises ServerStartError).
"""
import json

import pytest

from toolkit.testing.servers import TEST_API_KEY, start_llm_katan
from schemas import ResponseRecord
from toolkit import api
from toolkit.core.errors import SlmboardError

SERVED = "smol-under-test"


@pytest.fixture(scope="module")
def katan(tmp_path_factory):
    handle = start_llm_katan(SERVED, backend="transformers", workdir=tmp_path_factory.mktemp("katan"))
    yield handle
    handle.stop()


def args(server, **extra):
    parts = {"model": SERVED, "base_url": server.base_url, "api_key_env": "SLMBOARD_TEST_KEY", **extra}
    return ",".join(f"{k}={v}" for k, v in parts.items())


def test_generates_through_the_server_resumably(tmp_path, katan, monkeypatch):
    monkeypatch.setenv("SLMBOARD_TEST_KEY", TEST_API_KEY)
    run = tmp_path / "run"
    before = katan.request_count()
    r = api.generate(run, model=api.BackendSpec.combine("openai", args(katan)), options=api.GenerationRunOptions(suites="smoke", limit=3, max_new_tokens=16), services=api.Services(progress=False))
    assert r.n_new == 3
    assert katan.request_count() - before == 3 + 1  # three chat completions + the /models check
    rows = [json.loads(x) for x in (run / "responses" / "smoke.jsonl").read_text().splitlines()]
    for row in rows:
        rec = ResponseRecord.model_validate(row)
        assert rec.generation.backend == "openai" and rec.generation.chat_template_sha256 is None
        assert rec.model_id == SERVED and rec.model_revision == f"api:{SERVED}" and rec.response.strip()
        assert rec.n_output_tokens and rec.n_output_tokens <= 16
    config = (run / "run.json").read_text()
    assert TEST_API_KEY not in config and "SLMBOARD_TEST_KEY" in config  # the variable's name, never the key
    # Same command again: every item is done, no chat request is made.
    before = katan.request_count()
    again = api.generate(run, model=api.BackendSpec.combine("openai", args(katan)), options=api.GenerationRunOptions(suites="smoke", limit=3, max_new_tokens=16), services=api.Services(progress=False))
    assert (again.n_new, again.n_skipped) == (0, 3) and katan.request_count() - before == 1  # the /models check only

    # The server runs the same weights greedily: its answers equal the hf backend's in float32.
    hf = api.generate(tmp_path / "hf", model=api.BackendSpec.combine(api.DEFAULT_BACKEND, "dtype=float32"), options=api.GenerationRunOptions(suites="smoke", limit=3, max_new_tokens=16), services=api.Services(progress=False))
    hf_rows = {json.loads(x)["item_id"]: json.loads(x)["response"] for x in (hf.run_dir / "responses" / "smoke.jsonl").read_text().splitlines()}
    assert {r["item_id"]: r["response"] for r in rows} == hf_rows


def test_unknown_model_lists_served_models(tmp_path, katan):
    with pytest.raises(SlmboardError, match=f"model 'nope' is not served at .*; valid models: {SERVED}"):
        api.generate(tmp_path / "r", model=api.BackendSpec.combine("openai", args(katan, model="nope")), options=api.GenerationRunOptions(suites="smoke", limit=1))


def test_missing_key_for_a_remote_endpoint_names_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("SLMBOARD_NO_SUCH_KEY", raising=False)
    with pytest.raises(SlmboardError, match="set the environment variable SLMBOARD_NO_SUCH_KEY") as caught:
        api.generate(tmp_path / "r", model=api.BackendSpec.combine("openai", "model=gpt-4o,base_url=https://api.example.invalid/v1,api_key_env=SLMBOARD_NO_SUCH_KEY"), options=api.GenerationRunOptions(suites="smoke", limit=1))
    assert caught.value.param == "api_key_env"  # the CLI points at --api-key-env


def test_loglikelihood_mode_is_refused_with_a_reason(tmp_path, katan, monkeypatch):
    from slmboard_suite_fixtures import write_bbq

    monkeypatch.setenv("SLMBOARD_TEST_KEY", TEST_API_KEY)
    write_bbq(tmp_path / "data", None, per_category=1)
    with pytest.raises(SlmboardError, match="cannot score option loglikelihoods; use mode='generate'"):
        api.generate(tmp_path / "r", model=api.BackendSpec.combine("openai", args(katan)), options=api.GenerationRunOptions(suites="bbq", data_dir=tmp_path / "data", mode="loglikelihood"), services=api.Services(progress=False))
