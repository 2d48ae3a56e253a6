"""Generation: backends (hf via lm-eval's HFLM, vllm, openai; see :mod:`.components`) and the resumable runner."""
from .backends import BACKENDS, Backend, BackendSpec, Completion, ModelDescription, make_backend
from .components import EMBEDDED_MODEL, parse_model_args
from .merge import MergeResult, merge_runs
from .runner import GenerateResult, default_submission_id, generate
from .shards import parse_shard, select_shard

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendSpec",
    "Completion",
    "ModelDescription",
    "make_backend",
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
