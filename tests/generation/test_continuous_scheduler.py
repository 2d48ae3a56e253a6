"""The continuous-batching scheduler against plain one-prompt greedy decoding, on a small random Llama.

Cheap enough to cover the scheduler's bookkeeping many times over: rows leaving mid-batch (slot
moves), waiting prompts joining, slot growth, prompts that stop on their first token. The
real-model exactness test (SmolLM2, smoke prompts) is tests/generation/test_continuous_exact.py.
"""
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from toolkit.stages.generation import continuous  # noqa: E402

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


def test_worker_threads_match_one_prompt_at_a_time(tiny_llama, monkeypatch):
    """Rows split among decode threads: each its own continuous batch of a fixed share of the prompts."""
    monkeypatch.setattr(continuous, "_GROW_STEP", 8)
    monkeypatch.setattr(continuous, "SUPPORTED_MODEL_TYPES", {"llama"})
    # One intra-op thread everywhere: this random model's near-tied logits flip with the thread count
    # (another reduction order), which is not what this test is about; the workers get 1 // 2 -> 1.
    threads_before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        _check_worker_threads(tiny_llama, monkeypatch)
    finally:
        torch.set_num_threads(threads_before)
    assert torch.get_num_threads() == threads_before


def _check_worker_threads(tiny_llama, monkeypatch):
    data = prompts(17, seed=3)
    max_new = 20
    expected = [one_at_a_time(tiny_llama, ids, max_new) for ids in data]
    assert min(map(len, expected)) < max_new == max(map(len, expected)), "need ragged answers"
    threads_before = torch.get_num_threads()
    decode_threads, seen_by = set(), {}

    engine = continuous.ContinuousGreedy(tiny_llama, max_rows=5, is_stop=lambda t: t[-1] in STOP_IDS, workers=2)
    original_step = engine._step

    def spy_step(rows, cache):
        import threading

        name = threading.current_thread().name
        decode_threads.add((name, torch.get_num_threads(), torch.is_inference_mode_enabled()))
        seen_by.setdefault(name, set()).update(r.request.index for r in rows)
        return original_step(rows, cache)

    monkeypatch.setattr(engine, "_step", spy_step)
    got = list(engine.run([continuous.Request(i, ids) for i, ids in enumerate(data)], max_new))

    assert sorted(f.index for f in got) == list(range(len(data)))  # every prompt exactly once
    assert {f.index: f.tokens for f in got} == dict(enumerate(expected))
    assert [c.shape[2] for c in engine.caches] == [3, 2]  # 5 rows split 3 + 2
    # Both threads decoded, each with its share of the intra-op threads, in inference mode.
    assert {name for name, _, _ in decode_threads} == {"decode-0", "decode-1"}
    # A new thread starts with the machine's default count: 1 here means the worker set its share.
    assert {(n, inf) for _, n, inf in decode_threads} == {(max(1, threads_before // 2), True)}
    # Worker k decodes prompts k, k + 2, ...: batch composition never depends on thread timing.
    assert seen_by["decode-0"] <= set(range(0, len(data), 2)) and seen_by["decode-1"] <= set(range(1, len(data), 2))
    assert engine.stats["workers"] == 2 and engine.stats["prefills"] == len(data)
    assert engine.stats["joined_mid_run"] > 0 and engine.stats["max_rows_seen"] == 3
    assert torch.get_num_threads() == threads_before  # the caller's thread count is untouched


def test_worker_error_reaches_the_caller_and_closing_stops_workers(tiny_llama, monkeypatch):
    import threading

    monkeypatch.setattr(continuous, "SUPPORTED_MODEL_TYPES", {"llama"})
    data = [continuous.Request(i, ids) for i, ids in enumerate(prompts(12, seed=5))]
    engine = continuous.ContinuousGreedy(tiny_llama, max_rows=4, is_stop=lambda t: False, workers=2)
    original_step, calls = engine._step, []

    def failing_step(rows, cache):
        calls.append(1)
        if len(calls) == 7:
            raise RuntimeError("out of memory in step 7")
        return original_step(rows, cache)

    monkeypatch.setattr(engine, "_step", failing_step)
    with pytest.raises(RuntimeError, match="out of memory in step 7"):
        list(engine.run(data, 30))
    assert not [t for t in threading.enumerate() if t.name.startswith("decode-")]  # workers joined

    # A consumer that stops early: the workers stop after their current step, nothing keeps running.
    monkeypatch.setattr(engine, "_step", original_step)
    assert len(list(engine.run(data, 30))) == len(data)
    steps_for_all = engine.stats["steps"]
    stream = engine.run(data, 30)
    first = next(stream)
    stream.close()
    assert first.index in range(len(data))
    assert not [t for t in threading.enumerate() if t.name.startswith("decode-")]
    assert engine.stats["steps"] <= steps_for_all // 2  # the rest of the prompts were never decoded


def test_recycled_memory_never_reaches_an_answer(tiny_llama, monkeypatch):
    """Slot positions past a row's length are masked, but 0 x NaN is NaN: the slots must never hold
    what recycled memory held. torch.empty is made to return NaN-filled memory, as it may in a
    process that ran another model before (observed: a row of token 0s)."""
    monkeypatch.setattr(continuous, "SUPPORTED_MODEL_TYPES", {"llama"})
    monkeypatch.setattr(continuous, "_GROW_STEP", 8)  # the slots are reallocated during the run
    real_empty = torch.empty

    def recycled(*args, **kwargs):
        return real_empty(*args, **kwargs).fill_(float("nan")) if kwargs.get("dtype", torch.float32).is_floating_point else real_empty(*args, **kwargs)

    data = prompts(6)
    expected = {i: one_at_a_time(tiny_llama, ids, 12) for i, ids in enumerate(data)}
    monkeypatch.setattr(torch, "empty", recycled)
    engine = continuous.ContinuousGreedy(tiny_llama, max_rows=4, is_stop=lambda t: t[-1] in STOP_IDS)
    got = {f.index: f.tokens for f in engine.run([continuous.Request(i, d) for i, d in enumerate(data)], 12)}
    assert got == expected


def test_default_workers_and_the_decode_workers_model_arg(monkeypatch):
    from toolkit.core.errors import BadOption
    from toolkit.stages.generation import BackendSpec

    monkeypatch.setattr(torch, "get_num_threads", lambda: 4)
    # One decode thread per intra-op thread while each keeps >= 8 rows; one on an accelerator.
    assert [continuous.default_workers("cpu", rows) for rows in (1, 8, 15, 16, 24, 32, 100)] == [1, 1, 1, 2, 3, 4, 4]
    assert continuous.default_workers("cuda:0", 100) == 1
    assert BackendSpec.combine("hf", "dtype=float32,decode_workers=3").options.decode_workers == 3
    assert BackendSpec.combine("hf", "dtype=float32").options.decode_workers is None
    for bad in ("0", "two", "-1", "1.5"):
        with pytest.raises(BadOption, match=f"option 'decode_workers': .*got '{bad}'"):
            BackendSpec.combine("hf", f"decode_workers={bad}")
