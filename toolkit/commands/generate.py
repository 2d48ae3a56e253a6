"""slmboard generate: run a model on suites → response records (resumable)."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags, print_not_comparable, spec_help


def add_model_arguments(p: argparse.ArgumentParser) -> OptionFlags:
    """``--model SPEC``, lm-eval's ``--model-args`` and every backend's options as flags (the same names)."""
    p.add_argument("--model", default=api.DEFAULT_BACKEND, metavar="SPEC",
                   help=spec_help(api.BACKENDS, f"the model (default {api.DEFAULT_BACKEND}: the embedded "
                                                "SmolLM2-135M-Instruct); local weights are hf:<folder>, a served model "
                                                "openai:<name> with --base-url"))
    keys = "; ".join(f"{c.name}: " + ", ".join(c.options.model_fields) for c in api.BACKENDS.components())
    p.add_argument("--model-args", "--model_args", dest="model_args", default="", metavar="KEY=VALUE[,...]",
                   help=f"the model's options lm-eval style, the same names as the flags below ({keys})")
    return OptionFlags(p).add_registry(api.BACKENDS, title="model options")


def backend_spec(a: argparse.Namespace, flags: OptionFlags) -> api.BackendSpec:
    """The model the command line names, with the options given for it as flags or as ``--model-args`` (a flag
    it does not take is refused)."""
    name = a.model.partition(":")[0].strip()
    api.BACKENDS.get(name)  # an unknown name first, listing the valid ones
    return api.BackendSpec.combine(a.model, a.model_args, **flags.values(a, f"model backend:{name}"))


def add_generation_arguments(p: argparse.ArgumentParser) -> tuple[OptionFlags, OptionFlags, OptionFlags]:
    """What ``generate`` and ``evaluate`` share: the model, the run options and where the work runs (one options
    model each)."""
    return (add_model_arguments(p), OptionFlags(p).add_model(api.GenerationRunOptions, "generation", title="run options"),
            OptionFlags(p).add_model(api.FanoutOptions, "fan-out", title="fan-out (a Ray cluster, or shards in this process)"))


def run(a: argparse.Namespace, model_flags: OptionFlags, run_flags: OptionFlags, fanout_flags: OptionFlags) -> int:
    r = api.generate(a.out, backend_spec(a, model_flags), api.GenerationRunOptions(**run_flags.given(a)),
                     api.FanoutOptions(**fanout_flags.given(a)), services_of(a))
    if r.config.generation.chat_template_sha256 is None:
        print("note: the model has no chat template; raw prompts were sent (recorded as chat_template_sha256 = null)")
    print(f"generated {r.n_new} response(s), skipped {r.n_skipped} already done, {r.n_output_tokens} tokens in {r.seconds:.1f}s → {r.run_dir}")
    for line in api.cost_lines(r.cost, ["generation"]):
        print(line)
    print_not_comparable(api.not_comparable(r.config.suites))
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="run folder (re-running the command resumes it)")
    model_flags, run_flags, fanout_flags = add_generation_arguments(p)
    add_token_argument(p)
    p.set_defaults(func=partial(run, model_flags=model_flags, run_flags=run_flags, fanout_flags=fanout_flags))
