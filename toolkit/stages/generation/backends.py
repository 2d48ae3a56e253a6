"""Generation backends behind one interface (the runner never knows which one it drives)."""
from __future__ import annotations

import abc
import time
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

from toolkit.core.errors import BadOption, SlmboardError
from .components import BACKENDS, BackendSpec, GenerationRunOptions

__all__ = ["BACKENDS", "Backend", "BackendSpec", "Completion", "ModelDescription", "make_backend", "model_info_from_config"]


@dataclass(frozen=True)
class Completion:
    text: str
    n_output_tokens: int | None
    finish_reason: str | None  # "stop" | "length" | None when the backend cannot tell
    #: the context's tokens (chat template included) and the answer's wall seconds (its share of a batch), where
    #: the backend knows them: the run's usage ledger, never the record
    n_prompt_tokens: int | None = None
    seconds: float | None = None


@dataclass
class ModelDescription:
    model_id: str
    model_revision: str
    dtype: str | None
    device: str | None
    chat_template_sha256: str | None  # None: no chat template, raw prompts were sent (recorded, not hidden)
    info: dict[str, Any] = field(default_factory=dict)


def model_info_from_config(config: Any) -> dict[str, Any]:
    """Architecture metadata (paper 1, Table A2) from a transformers config, for the submission manifest."""
    return {
        "n_layers": getattr(config, "num_hidden_layers", None),
        "n_heads": getattr(config, "num_attention_heads", None),
        "n_kv_heads": getattr(config, "num_key_value_heads", None),
        "hidden_size": getattr(config, "hidden_size", None),
        "vocab_size": getattr(config, "vocab_size", None),
        "context_length": getattr(config, "max_position_embeddings", None),
        "activation": getattr(config, "hidden_act", None),
        "architecture": (getattr(config, "architectures", None) or [None])[0],
    }


class Backend(abc.ABC):
    name: str
    #: Runs the model in this process (so a fanned-out task asks for a GPU where the cluster has one);
    #: False for a client of a model served elsewhere.
    uses_accelerator: bool = True

    @abc.abstractmethod
    def describe(self) -> ModelDescription: ...

    @abc.abstractmethod
    def generate(self, prompts: list[str], max_new_tokens: int, seed: int | None) -> list[Completion]:
        """Greedy completions of user prompts (the backend applies the chat template), same order."""

    def generate_stream(self, prompts: list[str], max_new_tokens: int, seed: int | None) -> Iterator[tuple[int, Completion]]:
        """Yield ``(index into prompts, Completion)`` as each answer finishes, every index exactly once.

        This default calls :meth:`generate` on chunks of :meth:`default_batch_size` prompts and yields
        in order; backends that finish answers out of order (a server, continuous batching) override it
        so that the generation stage can append each answer the moment it exists.
        """
        size = max(1, self.default_batch_size())
        for start in range(0, len(prompts), size):
            chunk = prompts[start : start + size]
            started = time.perf_counter()
            completions = self.generate(chunk, max_new_tokens, seed)
            if len(completions) != len(chunk):
                raise SlmboardError(f"backend {self.name} returned {len(completions)} completions for {len(chunk)} prompts")
            share = (time.perf_counter() - started) / len(chunk)
            for offset, completion in enumerate(completions):
                yield start + offset, completion if completion.seconds is not None else replace(completion, seconds=share)

    def set_concurrency(self, n: int) -> None:
        """How many prompts are in flight at once (``generate --concurrency``); only some backends have it."""
        raise BadOption(f"backend {self.name!r} has no concurrency setting; it applies to the hf and openai backends",
                        param="concurrency")

    def default_batch_size(self) -> int:
        return 8

    def option_logprobs(self, prompts: list[str], options: list[list[str]]) -> list[list[float]]:
        """log P(option | prompt) for each option of each prompt (multiple choice by loglikelihood, e.g. BBQ).

        The backend applies the chat template exactly as in :meth:`generate`; options are the bare
        answers (e.g. "A"); the backend decides their leading whitespace for its prompt format.
        """
        raise BadOption(f"backend {self.name!r} cannot score option loglikelihoods; use mode='generate', or the hf backend",
                        param="mode")


def make_backend(spec: "BackendSpec | str", model_args: str | dict[str, str] | None = None,
                 run: "GenerationRunOptions | None" = None) -> Backend:
    """Build a backend from its spec (``hf``, ``openai:<served model>``, ...) and lm-eval ``model_args``, told the
    run's options ``run`` (its batch size); :class:`~toolkit.core.errors.UnknownComponent` lists the valid names."""
    return BackendSpec.combine(spec, model_args).build(run)
