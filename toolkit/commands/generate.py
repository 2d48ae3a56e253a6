"""slmboard generate: run a model on suites → response records (resumable)."""
from __future__ import annotations

import argparse

from .executor_options import add_executor_arguments, executor_kwargs


def add_generation_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default="hf", help="backend: hf (lm-eval HFLM; default), vllm (GPU, extra [vllm]), "
                   "openai (any OpenAI-compatible chat endpoint: model_args model_id=NAME,base_url=URL,api_key_env=VAR)")
    p.add_argument("--model-args", "--model_args", dest="model_args", default="",
                   help="lm-eval style: pretrained=org/name,revision=...,dtype=... (default: the embedded SmolLM2-135M-Instruct)")
    p.add_argument("--suites", default="smoke", help="comma-separated suites (smoke, sst, harmbench, xstest, airbench, salad, salad_defense, bbq)")
    p.add_argument("--data-dir", default=None, help="local mirror of the benchmark files (laid out like shared/benchmarks)")
    p.add_argument("--limit", type=int, default=None, help="first N items of each suite")
    p.add_argument("--batch-size", default=None, help="int, or 'auto' (GPU only; CPU uses a fixed size)")
    p.add_argument("--max-new-tokens", type=int, default=None,
                   help="overrides the per-suite default (paper 1 §3.1: 512; SALAD 256 with seed 1337; BBQ 1)")
    p.add_argument("--submission-id", default=None)


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """Flags of `generate` alone (not shared with `evaluate`-style commands)."""
    p.add_argument("--shard", default=None, metavar="K/N",
                   help="only shard K (0-based) of a deterministic N-way partition of the items; combine with `slmboard merge`")
    p.add_argument("--mode", default="generate", choices=("generate", "loglikelihood"),
                   help="multiple-choice suites (BBQ): parse the generated answer letter (default; unmapped answers counted) "
                        "or pick the option with the highest loglikelihood")
    p.add_argument("--concurrency", type=int, default=None, metavar="N",
                   help="prompts in flight at once, each finished one replaced at once: requests for the openai backend "
                        "(default: the batch size, 8), rows of the continuous batch for hf (default: the batch size, 32 on CPU)")


def batch_size_arg(value: str | None) -> int | str | None:
    return int(value) if value and value != "auto" else value


def run(a: argparse.Namespace) -> int:
    """`generate` alone: its parser defines every option read here (register adds both argument groups)."""
    from .. import api

    r = api.generate(a.out, suites=a.suites, model=a.model, model_args=a.model_args, data_dir=a.data_dir, limit=a.limit,
                     batch_size=batch_size_arg(a.batch_size), max_new_tokens=a.max_new_tokens, submission_id=a.submission_id,
                     shard=a.shard, mode=a.mode, concurrency=a.concurrency, **executor_kwargs(a))
    if r.config.generation.chat_template_sha256 is None:
        print("note: the model has no chat template; raw prompts were sent (recorded as chat_template_sha256 = null)")
    print(f"generated {r.n_new} response(s), skipped {r.n_skipped} already done, {r.n_output_tokens} tokens in {r.seconds:.1f}s → {r.run_dir}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("generate", help="run a model on suites → response records (resumable)")
    p.add_argument("--out", required=True, help="run folder")
    add_generation_arguments(p)
    add_run_arguments(p)
    add_executor_arguments(p)
    p.set_defaults(func=run)
