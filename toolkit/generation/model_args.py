"""lm-eval style model arguments: ``pretrained=org/name,revision=main,dtype=bfloat16``."""
from __future__ import annotations

from ..errors import SlmboardError

#: Keys the backends understand; anything else is a typo until proven otherwise.
KNOWN_KEYS = {
    "pretrained",
    "revision",
    "dtype",
    "device",
    "trust_remote_code",
    "tokenizer",
    "max_length",
    "model_id",
    "base_url",
    "api_key_env",
    "tensor_parallel_size",
    "data_parallel_size",
    "gpu_memory_utilization",
    "pipeline_parallel_size",
    "distributed_executor_backend",
    "model",  # openai backend: the served model name (lm-eval's local-chat-completions spelling)
    "max_retries",
    "timeout",
    "decode_workers",  # hf backend: decode threads of the continuous batch (default: one per core on CPU)
}
EMBEDDED_MODEL = "smollm2-135m-instruct"


def parse_model_args(text: str | None) -> dict[str, str]:
    """Parse ``k=v,k=v``; raise a clear error on malformed pairs or unknown keys."""
    args: dict[str, str] = {}
    if not text:
        return args
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise SlmboardError(f"model argument {part!r} is not key=value (expected e.g. pretrained=org/name,revision=main)")
        key, value = (s.strip() for s in part.split("=", 1))
        if key not in KNOWN_KEYS:
            raise SlmboardError(f"unknown model argument {key!r}; valid keys: {', '.join(sorted(KNOWN_KEYS))}")
        if key in args:
            raise SlmboardError(f"model argument {key!r} given twice")
        args[key] = value
    return args
