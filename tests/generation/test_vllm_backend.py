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
        api.generate(tmp_path / "r", suites="smoke", model="vllm", limit=1)


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda() or importlib.util.find_spec("vllm") is None, reason="needs a CUDA GPU and vllm")
def test_vllm_matches_hf_greedy_on_the_embedded_model(tmp_path):
    import json

    v = api.generate(tmp_path / "v", suites="smoke", model="vllm", model_args="dtype=float32", limit=4, max_new_tokens=16,
                     show_progress=False)
    h = api.generate(tmp_path / "h", suites="smoke", model_args="dtype=float32", limit=4, max_new_tokens=16, show_progress=False)
    read = lambda r: {json.loads(x)["item_id"]: json.loads(x)["response"] for x in (r.run_dir / "responses" / "smoke.jsonl").read_text().splitlines()}  # noqa: E731
    assert read(v) == read(h)
    assert v.config.generation.chat_template_sha256 == h.config.generation.chat_template_sha256
