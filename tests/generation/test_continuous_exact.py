"""The hf backend's continuous batching equals one-prompt-at-a-time greedy decoding, string for string.

Real model (the embedded SmolLM2-135M-Instruct, float32, chat template). Smoke prompts (this model
answers them at length: they run to the token limit) mixed with short questions it answers in 7-30
tokens, so rows finish at different steps; fewer rows than prompts, so waiting prompts join a batch
that is already decoding. The reference is lm-eval's HFLM with batch size 1.
"""
import pytest

from toolkit.stages.generation import make_backend
from toolkit.stages.suites import load_items
from toolkit.stages.generation.components import GenerationRunOptions

MAX_NEW, ROWS = 24, 3
SHORT_ANSWERS = [  # each ends with EOS before 24 tokens (measured: 7, 7, 12, 19 tokens)
    "What is the capital of France? Answer in one word.",
    "What is 2 + 2? Reply with only the number.",
    'Translate "thank you" into French. Reply with the translation only.',
    "Give me a one-sentence fun fact about cats.",
]


@pytest.fixture(scope="module")
def prompts():
    smoke = [i.prompt for i in load_items("smoke")[::6]]  # 5 smoke prompts across categories and lengths
    return [smoke[0], SHORT_ANSWERS[0], smoke[1], smoke[2], SHORT_ANSWERS[1], SHORT_ANSWERS[2], smoke[3],
            SHORT_ANSWERS[3], smoke[4]]


@pytest.fixture(scope="module")
def reference(prompts):
    one = make_backend("hf", {"dtype": "float32"}, GenerationRunOptions(batch_size=1))
    return [one.generate([p], MAX_NEW, 0)[0] for p in prompts]


@pytest.mark.parametrize("rows, workers", [(ROWS, 1), (2 * ROWS, 2)], ids=["one-thread", "two-decode-threads"])
def test_stream_equals_one_at_a_time(hf_backend, prompts, reference, monkeypatch, rows, workers):
    from toolkit.stages.generation import continuous

    runs = []
    original = continuous.ContinuousGreedy.run

    def spy(self, requests, max_new_tokens):
        runs.append(self)
        yield from original(self, requests, max_new_tokens)

    monkeypatch.setattr(continuous.ContinuousGreedy, "run", spy)
    monkeypatch.setattr(hf_backend, "max_rows", rows)
    monkeypatch.setattr(hf_backend, "workers", workers)
    streamed = list(hf_backend.generate_stream(prompts, MAX_NEW, 0))
    assert sorted(i for i, _ in streamed) == list(range(len(prompts)))  # each index exactly once
    got = dict(streamed)
    for i, want in enumerate(reference):
        assert got[i].text == want.text, f"prompt {i}: {prompts[i][:60]!r}"
    # The workload is what the test claims: ragged answers, and prompts joining mid-run.
    reasons = [got[i].finish_reason for i in range(len(prompts))]
    assert "stop" in reasons and "length" in reasons, reasons
    assert all(got[i].n_output_tokens == MAX_NEW for i in range(len(prompts)) if reasons[i] == "length")
    assert runs[0].stats["joined_mid_run"] > 0 and runs[0].stats["max_rows_seen"] == ROWS
    assert runs[0].stats["workers"] == workers
    assert [i for i, _ in streamed] != list(range(len(prompts)))  # yielded as they finish, not in order


@pytest.mark.gpu
def test_stream_equals_one_at_a_time_on_cuda(prompts):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    many = make_backend("hf", {"dtype": "float32", "device": "cuda"}, GenerationRunOptions(batch_size=ROWS))
    one = make_backend("hf", {"dtype": "float32", "device": "cuda"}, GenerationRunOptions(batch_size=1))
    want = [one.generate([p], MAX_NEW, 0)[0].text for p in prompts]
    got = dict(many.generate_stream(prompts, MAX_NEW, 0))
    assert [got[i].text for i in range(len(prompts))] == want
