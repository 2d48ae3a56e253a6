"""The continuous-batching scheduler against plain one-prompt greedy decoding, on a small random Llama.

Cheap enough to cover the scheduler's bookkeeping many times over: rows leaving mid-batch (slot
moves), waiting prompts joining, slot growth, prompts that stop on their first token. The
real-model exactness test (SmolLM2, smoke prompts) is tests/generation/test_continuous_exact.py.
"""
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from toolkit.generation import continuous  # noqa: E402

VOCAB = 96
STOP_IDS = {5, 17, 42}


@pytest.fixture(scope="module")
def tiny_llama():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=256, eos_token_id=None, bos_token_id=None, pad_token_id=0,
    )
    model = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():  # larger weights: peaked logits, so greedy paths vary between prompts
        for p in model.parameters():
            p.mul_(8.0)
    return model


def one_at_a_time(model, ids: list[int], max_new_tokens: int) -> list[int]:
    """Plain greedy decoding of one prompt: a loop over the model with transformers' own cache."""
    cache = transformers.DynamicCache(config=model.config)
    out, step = [], torch.tensor([ids])
    with torch.inference_mode():
        for _ in range(max_new_tokens):
            logits = model(input_ids=step, cache=cache, use_cache=True).logits[0, -1]
            token = int(torch.argmax(logits))
            out.append(token)
            if token in STOP_IDS:
                break
            step = torch.tensor([[token]])
    return out


def prompts(n: int, seed: int = 1) -> list[list[int]]:
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, 24, (n,), generator=g).tolist()
    return [torch.randint(1, VOCAB, (k,), generator=g).tolist() for k in lengths]


def test_matches_one_prompt_at_a_time(tiny_llama, monkeypatch):
    monkeypatch.setattr(continuous, "_GROW_STEP", 8)  # slots grow many times during the run
    monkeypatch.setattr(continuous, "SUPPORTED_MODEL_TYPES", {"llama"})
    data = prompts(14)
    max_new = 20
    expected = [one_at_a_time(tiny_llama, ids, max_new) for ids in data]
    lengths = [len(e) for e in expected]
    assert min(lengths) < max_new and max(lengths) == max_new, f"need ragged answers to test anything: {lengths}"

    engine = continuous.ContinuousGreedy(tiny_llama, max_rows=4, is_stop=lambda toks: toks[-1] in STOP_IDS)
    requests = [continuous.Request(i, ids) for i, ids in enumerate(data)]
    got = list(engine.run(requests, max_new))

    assert sorted(f.index for f in got) == list(range(len(data)))  # every prompt exactly once
    by_index = {f.index: f for f in got}
    for i, want in enumerate(expected):
        assert by_index[i].tokens == want, f"prompt {i}"
        assert by_index[i].stopped == (want[-1] in STOP_IDS)
    assert [f.index for f in got] != list(range(len(data)))  # answers leave as they finish, not in order
    assert engine.stats["joined_mid_run"] > 0 and engine.stats["max_rows_seen"] == 4
    assert engine.cache.capacity > 8  # the slots grew


def test_one_row_and_one_token(tiny_llama, monkeypatch):
    monkeypatch.setattr(continuous, "SUPPORTED_MODEL_TYPES", {"llama"})
    data = prompts(3, seed=7)
    engine = continuous.ContinuousGreedy(tiny_llama, max_rows=1, is_stop=lambda toks: toks[-1] in STOP_IDS)
    got = {f.index: f.tokens for f in engine.run([continuous.Request(i, d) for i, d in enumerate(data)], 1)}
    assert got == {i: one_at_a_time(tiny_llama, d, 1) for i, d in enumerate(data)}
    got = {f.index: f.tokens for f in engine.run([continuous.Request(i, d) for i, d in enumerate(data)], 9)}
    assert got == {i: one_at_a_time(tiny_llama, d, 9) for i, d in enumerate(data)}


def test_unsupported_architectures_are_declined(tiny_llama):
    assert continuous.supports(tiny_llama)
    sliding = transformers.MistralConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                         num_attention_heads=2, num_key_value_heads=1, sliding_window=16,
                                         max_position_embeddings=256)
    assert not continuous.supports(transformers.MistralForCausalLM(sliding))
    gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=VOCAB))
    assert not continuous.supports(gpt2)
