"""Generation: backends (hf via lm-eval's HFLM, ...) and the resumable runner."""
from . import hf as _hf  # noqa: F401  (registers the "hf" backend; heavy imports stay inside it)
from . import openai_backend as _openai  # noqa: F401  (registers "openai"; the client is imported inside)
from . import vllm_backend as _vllm  # noqa: F401  (registers "vllm"; vllm is imported inside, GPU only)
from .backends import BACKENDS, Backend, Completion, ModelDescription, make_backend, register_backend
from .model_args import EMBEDDED_MODEL, parse_model_args
from .merge import MergeResult, merge_runs
from .runner import GenerateResult, default_submission_id, generate
from .shards import parse_shard, select_shard

__all__ = [
    "BACKENDS",
    "Backend",
    "Completion",
    "ModelDescription",
    "make_backend",
    "register_backend",
    "EMBEDDED_MODEL",
    "parse_model_args",
    "GenerateResult",
    "default_submission_id",
    "generate",
    "MergeResult",
    "merge_runs",
    "parse_shard",
    "select_shard",
]
