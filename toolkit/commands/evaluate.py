"""slmboard evaluate: generate → judge → submit for a new SLM in one command (each step resumable);
with --models, for every model of a board at once.

Its flags are generate's, judge's and submit's, built from the same options models; the judge's options
carry the prefix ``--judge-`` (``--judge-base-url``), since the model may have options of the same name.
"""
from __future__ import annotations

import argparse
import sys
from functools import partial

from toolkit import api
from .generate import add_generation_arguments, backend_spec
from . import add_token_argument, services_of
from .judge import add_judge_arguments, judge_spec
from .options import OptionFlags, print_not_comparable


def evaluation_options(a: argparse.Namespace, flags: dict[str, OptionFlags]) -> api.EvaluationOptions:
    """Each step's options object, from the flags given for it."""
    return api.EvaluationOptions(generation=api.GenerationRunOptions(**flags["generation"].given(a)),
                                 judging=api.JudgingRunOptions(**flags["judging"].given(a)),
                                 submission=api.SubmitOptions(**flags["submit"].given(a)),
                                 execution=api.FanoutOptions(**flags["fanout"].given(a)))


def run(a: argparse.Namespace, flags: dict[str, OptionFlags]) -> int:
    if a.models:
        return run_board(a, flags)
    options = evaluation_options(a, flags)
    if options.judging.estimate:
        for line in api.evaluation_lines(api.estimate_evaluation(a.out, judge_spec(a, flags["judge"]), options,
                                                                 services_of(a))):
            print(line)
        return 0
    r = api.evaluate(a.out, a.to, backend_spec(a, flags["model"]), judge_spec(a, flags["judge"]), options,
                     services_of(a))
    for note in r.notes:
        print(f"note: {note}", file=sys.stderr)
    print_not_comparable(r.not_comparable)
    print(f"judge {r.judge_id} wrote the judgments")
    for line in api.cost_lines(api.read_cost(a.out), ["generation", r.judge_id]):
        print(line)
    print(f"published {r.n_records} record(s) of {r.submission_id} to {r.pr_url or r.dataset} (commit {r.revision[:12]})")
    return 0


#: Options that name one model or one run: with a models file each entry says them.
_PER_MODEL = ("model", "model_args", "submission_id", "shard", "mode", "concurrency", "retry_errors")


def run_board(a: argparse.Namespace, flags: dict[str, OptionFlags]) -> int:
    """Every model of the models file; one line per model, exit 1 when any failed (the others are published)."""
    given = {**flags["generation"].given(a), **flags["judging"].given(a)}
    for param in _PER_MODEL:
        if param in given or (param == "model_args" and a.model_args) or (param == "model" and a.model != api.DEFAULT_BACKEND):
            raise api.BadOption(f"{param} names one model or one run; with a models file, leave it out (or write it "
                                "in each entry)", param=param)
    if flags["model"].given(a):
        name = next(iter(flags["model"].given(a)))
        raise api.BadOption(f"{name} names one model; with a models file, write it in each entry", param=name)
    board = api.evaluate_models(a.models, a.out, a.to, judge_spec(a, flags["judge"]), evaluation_options(a, flags),
                                services_of(a))
    for m in board.models:
        if m.failed:
            print(f"{m.name}: FAILED: {m.error_text()}", file=sys.stderr)
            continue
        r = m.submitted
        retried = "".join(f"; shard {s.shard} started {s.attempt} times (resumed from its records)" for s in m.retried())
        if m.phase == "published":
            print(f"{m.name}: published {r.n_records} record(s) of {r.submission_id} to {r.pr_url or r.dataset} "
                  f"(commit {r.revision[:12]}){retried}")
        else:
            print(f"{m.name}: {m.phase} in {r.dataset} (submission {r.submission_id}){retried}")
        for note in r.notes:
            print(f"note: {m.name}: {note}", file=sys.stderr)
        print_not_comparable(r.not_comparable)
    n_ok = len(board.models) - len(board.failed)
    print(f"board: {n_ok} of {len(board.models)} model(s) done in {board.seconds:.1f}s on {board.executor}")
    return 1 if board.failed else 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="run folder (re-running the command resumes it); with --models, the "
                                                "folder holding one run folder per model")
    p.add_argument("--to", required=True, help="dataset folder, hf://datasets/ORG/NAME or ORG/NAME")
    p.add_argument("--models", default=None, metavar="FILE",
                   help="a YAML models file: one entry per model (model, model_args, revision, submission_id, ...); "
                        "the whole board in one command")
    model, generation, fanout = add_generation_arguments(p)
    judge = add_judge_arguments(p, prefix="judge-")
    # the suites judged and the mirror submit checks against are the ones generated from
    judging = OptionFlags(p).add_model(api.JudgingRunOptions, "judging", title="judging options", exclude={"suites"})
    submit = OptionFlags(p).add_model(api.SubmitOptions, "submit", title="submit options", exclude={"data_dir", "update"})
    add_token_argument(p)
    flags = {"model": model, "generation": generation, "judge": judge, "judging": judging, "submit": submit,
             "fanout": fanout}
    p.set_defaults(func=partial(run, flags=flags))
