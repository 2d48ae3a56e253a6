"""The moderators and guards users name (``moderate --model``, ``--guard``), with their typed options,
registered once. :class:`ModeratorSpec` is a moderator named by its spec with checked options::

    ModeratorSpec("hf")                                      # the embedded SmolLM2, fp32
    ModeratorSpec("hf:/models/Qwen2.5-0.5B-Instruct")        # local weights: the part after ':'
    ModeratorSpec("openai:smollm2", base_url="http://127.0.0.1:8000/v1", tokenizer="/models/smollm2")
    ModeratorSpec("guard:/models/Llama-Guard-3-1B", guard="llama_guard_3")
    ModeratorSpec("judge", judge=JudgeSpec("openai:gpt-4o", base_url=...))   # any SLM-track judge

Local weights are named the same way for every component (``NAME:<folder>``), and an OpenAI-compatible
server with the same options (:mod:`toolkit.core.endpoints`). This module imports pydantic only.
"""
from __future__ import annotations

from typing import Any, Optional

from pydantic import field_validator

from toolkit.core.endpoints import EndpointOptions
from toolkit.stages.judging.components import DEFAULT_JUDGE, JudgeSpec
from toolkit.core.registry import Options, Registry, Spec, option
from .sources import BENCHMARKS
from .suite import LIST_VERSION

__all__ = ["MODERATORS", "GUARDS", "ModeratorSpec", "LocalModeratorOptions", "APIModeratorOptions",
           "GuardModeratorOptions", "JudgeModeratorOptions", "ModerationRunOptions"]

#: Dedicated guards run locally in their native format (their decision mapped to flag / do not flag).
GUARDS: Registry = Registry("guard")
GUARDS.add("llama_guard_3", "Llama Guard 3: 'safe' / 'unsafe' + category codes", "toolkit.stages.moderation.guards:LLAMA_GUARD_3")
GUARDS.add("shieldgemma", "ShieldGemma: 'Yes' = violates the policy", "toolkit.stages.moderation.guards:SHIELDGEMMA")
GUARDS.add("wildguard", "WildGuard: 'Harmful request/response: yes|no'", "toolkit.stages.moderation.guards:WILDGUARD")


class ModeratorOptions(Options):
    moderator_id: Optional[str] = option(None, help="the id its records carry (default: from the model)")


class LocalModeratorOptions(ModeratorOptions):
    model_dir: Optional[str] = option(None, help="local model folder (default: the embedded SmolLM2-135M-Instruct)")
    dtype: str = option("float32", help="torch dtype of the local model (float32: exact log-probabilities)")
    batch_size: int = option(8, help="items scored together", ge=1, metavar="N")


class APIModeratorOptions(ModeratorOptions, EndpointOptions):
    model: str = option(help="the served model name (the part after ':' in the spec)")
    base_url: str = option(help="OpenAI-compatible completions endpoint with logprobs, e.g. http://127.0.0.1:8000/v1",
                           metavar="URL")
    tokenizer: Optional[str] = option(None, help="tokenizer (chat template) of the served model: a local folder or "
                                                 "Hub id (default: the embedded SmolLM2's)")
    top_logprobs: int = option(20, help="top log-probabilities asked per position", ge=1, cli=False)
    concurrency: int = option(8, help="requests in flight at once", ge=1, metavar="N")
    timeout: float = option(120.0, help="seconds per request", gt=0, metavar="SECONDS")


class GuardModeratorOptions(ModeratorOptions):
    model_dir: str = option(help="the guard's local model folder (the part after ':' in the spec)")
    guard: str = option(help="which guard the weights are (its native prompt and reply)", choices=GUARDS)
    dtype: str = option("float32", help="torch dtype of the local model (float32: exact log-probabilities)")
    batch_size: int = option(8, help="items scored together", ge=1, metavar="N")


class JudgeModeratorOptions(ModeratorOptions):
    judge: Any = option(DEFAULT_JUDGE, help="a judge of the SLM track (its spec, e.g. heuristic, openai:MODEL, or a "
                                            "JudgeSpec with options) whose verdict becomes the decision; on the "
                                            "command line: --judge and the judge options", cli=False)

    @field_validator("judge", mode="before")
    @classmethod
    def _judge_spec(cls, value: Any) -> JudgeSpec:
        return JudgeSpec.of(value)


MODERATORS: Registry = Registry("moderator backend")
MODERATORS.add("hf", "a local transformers model asked the two-option prompt (logit confidence)",
               "toolkit.stages.moderation.moderators:LocalModerator", LocalModeratorOptions, argument="model_dir",
               argument_is_folder=True)
MODERATORS.add("openai", "an OpenAI-compatible completions server asked the two-option prompt (logprob confidence)",
               "toolkit.stages.moderation.moderators:APIModerator", APIModeratorOptions, argument="model")
MODERATORS.add("guard", "a dedicated guard model in its native format (Llama Guard 3, ShieldGemma, WildGuard)",
               "toolkit.stages.moderation.guards:GuardModerator", GuardModeratorOptions, argument="model_dir",
               argument_is_folder=True)
MODERATORS.add("judge", "any judge of the SLM track: 0 or 0.5 flags, 1 does not",
               "toolkit.stages.moderation.moderators:JudgeModerator", JudgeModeratorOptions)


class ModeratorSpec(Spec):
    """A moderator named by its spec (``hf[:<folder>]``, ``openai:<served model>``, ``guard:<folder>``, ``judge``)."""

    registry = MODERATORS


class ModerationRunOptions(Options):
    """What ``moderate`` is told besides the moderator, passed whole to :func:`toolkit.api.moderate`."""

    suites: str = option("xstest,ethics", help=f"comma-separated moderation benchmarks: {', '.join(BENCHMARKS)}",
                         aliases=("--benchmarks",), metavar="BENCHMARK[,BENCHMARK]")
    variant: str = option("default", help="prompt variant: the fixed prompt, a policy paraphrase, or the options "
                                          "swapped (prompt sensitivity)", choices=("default", "paraphrase", "swapped"))
    data_dir: Optional[str] = option(None, help="data folder holding the benchmarks' source files (xstest/xstest_prompts.csv, ethics/cm_test_hard.csv)",
                                     metavar="DIR")
    source_data: dict[str, str] = option({}, help="an export of a Hub-only source in its own schema "
                                                  "(.parquet/.jsonl/.csv); repeatable", metavar="BENCHMARK=FILE")
    lists_dir: Optional[str] = option(None, help="item lists to use instead of the packaged "
                                                 f"{LIST_VERSION} lists", metavar="DIR")
    limit: Optional[int] = option(None, help="first N listed items per benchmark, classes balanced", ge=1, metavar="N")
    submission_id: Optional[str] = option(None, help="the run's submission id (default: from the moderator id)")

