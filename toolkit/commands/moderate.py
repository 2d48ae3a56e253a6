"""slmboard moderate: run a moderator on the flag / do-not-flag suite (resumable), build an item
list from a source, or import Safety-Flag's released per-item outputs."""
from __future__ import annotations

import argparse
import sys
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .judge import add_judge_arguments, judge_spec
from .options import OptionFlags, spec_help

#: Spellings of one release ago: they name the part after ':' of the --model spec.
_LEGACY = {"model_dir": "--model-dir", "served_model": "--served-model"}


def moderator_spec(a: argparse.Namespace, flags: OptionFlags) -> api.ModeratorSpec:
    """The moderator the command line names (with its judge, for ``--model judge``) and its options."""
    spec = a.model
    for dest, flag in _LEGACY.items():
        if getattr(a, dest, None):
            if ":" in spec:
                raise api.BadOption(f"{flag} and --model {spec} both name the model; use --model {spec} alone")
            print(f"note: {flag} is deprecated; name the model as --model {spec}:{getattr(a, dest)}", file=sys.stderr)
            spec = f"{spec}:{getattr(a, dest)}"
    name = spec.partition(":")[0].strip()
    api.MODERATORS.get(name)  # an unknown name first, listing the valid ones
    owners = [f"moderator backend:{name}"] + ([f"judge:{a.judge.partition(':')[0].strip()}"] if name == "judge" else [])
    flags.values(a, *owners)  # refuses a flag that neither the moderator nor its judge takes
    options = flags.for_owner(a, owners[0])
    if name == "judge":
        options["judge"] = judge_spec(a, flags)
    elif a.judge != api.DEFAULT_JUDGE:
        raise api.BadOption(f"--judge applies to --model judge, not --model {name}")
    return api.ModeratorSpec(spec, **options)


def run(a: argparse.Namespace, flags: OptionFlags, run_flags: OptionFlags) -> int:
    options = api.ModerationRunOptions(**run_flags.given(a))
    if a.import_released:
        released = api.ReleasedModerationOptions(moderator_id=getattr(a, "moderator_id", None))
        files = api.import_released_moderation(a.import_released, a.out, released)
        print(f"imported {len(files)} file(s) → " + ", ".join(map(str, files)))
        return 0
    if a.build_list:
        if not options.lists_dir:
            raise api.BadOption("--build-list needs --lists-dir DIR (where the list file is written)")
        for bench in options.source_data:
            api.MODERATION_BENCHMARKS.get(bench)  # UnknownComponent lists the benchmarks
        source = options.source_data.get(a.build_list, options.data_dir)
        drawn = api.ModerationListOptions(n_per_class=a.n_per_class, rule=a.rule, seed=a.seed)
        path, n, sha = api.build_moderation_list(a.build_list, options.lists_dir, source, drawn)
        print(f"wrote {path}: {n} items (sha256 {sha})")
        return 0
    if not a.out:
        raise api.BadOption("--out RUN is required")
    r = api.moderate(a.out, moderator_spec(a, flags), options, services=services_of(a))
    for b in r.written:
        print(f"{b}: {r.written[b]} new record(s), {r.skipped[b]} already done → {a.out}/moderation/{b}.jsonl")
    print(f"items without a decision (parse failures): {r.no_decision}")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", help="run folder; records go to RUN/moderation/<benchmark>.jsonl")
    run_flags = OptionFlags(p).add_model(api.ModerationRunOptions, "moderation", title="run options")
    p.add_argument("--model", default=api.DEFAULT_MODERATOR, metavar="SPEC",
                   help=spec_help(api.MODERATORS, f"the moderator (default {api.DEFAULT_MODERATOR}: the embedded "
                                                  "SmolLM2-135M-Instruct); "
                                                  "local weights are hf:<folder> or guard:<folder>, a served model "
                                                  "openai:<name> with --base-url"))
    flags = add_judge_arguments(p, registries=(api.MODERATORS,))
    add_token_argument(p)
    for dest, flag in _LEGACY.items():
        p.add_argument(flag, dest=dest, default=None, help=argparse.SUPPRESS)
    build = p.add_argument_group("building an item list")
    build.add_argument("--build-list", default=None, metavar="BENCHMARK", help="build a balanced item list from the "
                                                                                "source into --lists-dir")
    build.add_argument("--per-class", dest="n_per_class", type=int, default=100, metavar="N", help="items per class of the list")
    build.add_argument("--rule", default="random", choices=("random", "first"),
                       help="which items of each class: a seeded random sample, or the first in source order")
    build.add_argument("--seed", type=int, default=0, help="seed of the random sample")
    p.add_argument("--import-released", nargs="+", default=None, metavar="FILE",
                   help="Safety-Flag released <model>__<benchmark>.jsonl files to import as ModerationRecords")
    p.set_defaults(func=partial(run, flags=flags, run_flags=run_flags))
