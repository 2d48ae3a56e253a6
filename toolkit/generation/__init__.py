"""Generation: backends (hf via lm-eval's HFLM, ...) and the resumable runner."""
from . import hf as _hf  # noqa: F401  (registers the "hf" backend; heavy imports stay inside it)
from .backends import BACKENDS, Backend, Completion, ModelDescription, make_backend, register_backend
from .model_args import EMBEDDED_MODEL, parse_model_args
from .runner import GenerateResult, default_submission_id, generate

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
]
