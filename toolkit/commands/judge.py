"""slmboard judge: add judgments to a run (never regenerates)."""
from __future__ import annotations

import argparse
import sys
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags, print_not_comparable, spec_help


def add_judge_arguments(p: argparse.ArgumentParser, prefix: str = "", registries: tuple = ()) -> OptionFlags:
    """``--judge SPEC`` and the judges' options (``prefix``: ``evaluate`` spells them ``--judge-...``); the
    flags of further ``registries`` that share options with judges join the same set."""
    p.add_argument("--judge", default=api.DEFAULT_JUDGE, metavar="SPEC",
                   help=spec_help(api.JUDGES, f"the judge (default {api.DEFAULT_JUDGE})"))
    kinds = " and ".join(r.kind.split()[0] for r in (*registries, api.JUDGES))
    return OptionFlags(p, prefix).add_registry(*registries, api.JUDGES, title=f"{kinds} options"
                                               + (f" (spelled --{prefix}...)" if prefix else ""))


def judge_spec(a: argparse.Namespace, flags: OptionFlags) -> api.JudgeSpec:
    """The judge the command line names, with the options given for it (one it does not take is refused)."""
    name = api.JudgeSpec(a.judge).name  # an unknown name first, listing the valid ones
    return api.JudgeSpec(a.judge, **flags.values(a, f"judge:{name}"))


def run(a: argparse.Namespace, judge_flags: OptionFlags, run_flags: OptionFlags) -> int:
    spec = judge_spec(a, judge_flags)
    options = api.JudgingRunOptions(**run_flags.given(a))
    if options.estimate:
        for line in api.estimate_lines(api.estimate_judging(a.run, spec, options, services_of(a))):
            print(line)
        return 0
    r = api.judge(a.run, spec, options, services_of(a))
    for line in r.skipped_suites:
        print(line)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(r.label_counts.items()) if k != "failed")
    pe, err = r.status_counts.get("parse_error", 0), r.status_counts.get("error", 0)
    print(f"judge {r.judge_id}: judged {r.n_new}, skipped {r.n_skipped} already judged ({counts or 'no scores'}); "
          f"failed {pe + err} (parse_error {pe}, error {err})")
    if r.n_retried_errors:
        print(f"  re-judged {r.n_retried_errors} item(s) whose earlier API call had failed")
    if r.judge_stats:
        s = r.judge_stats
        print(f"  requests {s.get('requests', 0)}, retries {s.get('retries', 0)}, cache hits {s.get('cache_hits', 0)}, "
              f"tokens {s.get('prompt_tokens', 0)}+{s.get('completion_tokens', 0)}")
    for line in api.cost_lines(r.cost, [r.judge_id]):
        print(line)
    for reason, n in r.failure_reasons.most_common(5):
        print(f"  {n:>5} x {reason}")
    print_not_comparable(api.not_comparable(judge_specs=[spec]))
    if err:
        print(f"{err} API failure(s) recorded as judge_status 'error'; re-run the same command to retry them", file=sys.stderr)
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="run folder")
    run_flags = OptionFlags(p).add_model(api.JudgingRunOptions, "judging")
    judge_flags = add_judge_arguments(p)
    add_token_argument(p)
    p.set_defaults(func=partial(run, judge_flags=judge_flags, run_flags=run_flags))
