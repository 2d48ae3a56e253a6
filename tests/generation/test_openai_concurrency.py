"""`generate --concurrency N` on the openai backend: N requests in flight, each finished one replaced at once.

A real OpenAI-compatible server on 127.0.0.1 (llm-katan, echo backend, 300 ms per request). The
first request is made slow on the client side (an extra sleep before the real request), so a
lockstep batch would wait for it; the test proves that the fast ones are replaced while the slow
one is still running.
"""
import json
import threading
import time

import pytest

from toolkit.testing.servers import TEST_API_KEY, start_llm_katan
from toolkit import api
from toolkit.core.errors import SlmboardError
from toolkit.stages.generation.openai_backend import OpenAIBackend

SERVED = "echo-under-test"
SLOW_EXTRA_S = 2.0


@pytest.fixture(scope="module")
def katan(tmp_path_factory):
    handle = start_llm_katan(SERVED, backend="echo", latency_ms=300, workdir=tmp_path_factory.mktemp("katan"))
    yield handle
    handle.stop()


def test_requests_stay_in_flight_continuously(tmp_path, katan, monkeypatch):
    monkeypatch.setenv("SLMBOARD_TEST_KEY", TEST_API_KEY)
    events, lock, state = [], threading.Lock(), {"in_flight": 0, "most": 0}
    real_one = OpenAIBackend._one

    def timed_one(self, prompt, max_new_tokens, seed):
        with lock:
            slow = not events  # the first request of the run
            state["in_flight"] += 1
            state["most"] = max(state["most"], state["in_flight"])
            events.append(("start", prompt, time.monotonic()))
            if slow:
                state["slow"] = prompt
        try:
            if slow:
                time.sleep(SLOW_EXTRA_S)
            return real_one(self, prompt, max_new_tokens, seed)
        finally:
            with lock:
                state["in_flight"] -= 1
                events.append(("end", prompt, time.monotonic()))

    monkeypatch.setattr(OpenAIBackend, "_one", timed_one)
    model_args = f"model={SERVED},base_url={katan.base_url},api_key_env=SLMBOARD_TEST_KEY"
    r = api.generate(tmp_path / "run", model=api.BackendSpec.combine("openai", model_args), options=api.GenerationRunOptions(suites="smoke", limit=10, max_new_tokens=8, concurrency=3), services=api.Services(progress=False))
    assert r.n_new == 10
    assert state["most"] == 3  # never more than N in flight
    slow_end = next(t for kind, p, t in events if kind == "end" and p == state["slow"])
    started_before = sum(1 for kind, _, t in events if kind == "start" and t < slow_end)
    # Lockstep batches of 3 start 3 requests before the slow first one ends; continuous
    # replacement keeps the two other slots busy meanwhile (2.3 s / ~0.3 s per request).
    assert started_before >= 7, events
    rows = [json.loads(x) for x in (tmp_path / "run" / "responses" / "smoke.jsonl").read_text().splitlines()]
    assert len({row["item_id"] for row in rows}) == 10 and all(row["generation"]["batch_size"] == 3 for row in rows)


def test_concurrency_is_refused_where_it_means_nothing(tmp_path):
    from toolkit.stages.generation.backends import Backend

    class Fixed(Backend):
        name = "fixed"

        def describe(self):
            raise AssertionError("not reached")

        def generate(self, prompts, max_new_tokens, seed):
            raise AssertionError("not reached")

    with pytest.raises(SlmboardError, match="backend 'fixed' has no concurrency setting"):
        api.generate(tmp_path / "r", model=Fixed(), options=api.GenerationRunOptions(suites="smoke", limit=1, concurrency=2), services=api.Services(progress=False))
    with pytest.raises(SlmboardError, match="^concurrency must be at least 1"):
        api.generate(tmp_path / "r", model=Fixed(), options=api.GenerationRunOptions(suites="smoke", limit=1, concurrency=0), services=api.Services(progress=False))
