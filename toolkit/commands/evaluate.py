"""slmboard evaluate: generate → judge → submit for a new SLM in one command (each step resumable).

Its flags are generate's, judge's and submit's, built from the same options models; the judge's options
carry the prefix ``--judge-`` (``--judge-base-url``), since the model may have options of the same name.
"""
from __future__ import annotations

import argparse
import sys
from functools import partial

from .. import api
from .generate import add_generation_arguments, backend_spec
from .judge import add_judge_arguments, judge_spec
from .options import OptionFlags, print_not_comparable


def run(a: argparse.Namespace, flags: dict[str, OptionFlags]) -> int:
    r = api.evaluate(a.out, to=a.to, model=backend_spec(a, flags["model"]), judge=judge_spec(a, flags["judge"]),
                     **flags["generation"].given(a), **flags["judging"].given(a),
                     **flags["submit"].given(a))
    for note in r.notes:
        print(f"note: {note}", file=sys.stderr)
    print_not_comparable(r.not_comparable)
    print(f"judge {r.judge_id} wrote the judgments")
    print(f"published {r.n_records} record(s) of {r.submission_id} to {r.pr_url or r.dataset} (commit {r.revision[:12]})")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="run folder (re-running the command resumes it)")
    p.add_argument("--to", required=True, help="dataset folder, hf://datasets/ORG/NAME or ORG/NAME")
    model, generation = add_generation_arguments(p)
    judge = add_judge_arguments(p, prefix="judge-")
    # the suites judged and the mirror submit checks against are the ones generated from
    judging = OptionFlags(p).add_model(api.JudgingRunOptions, "judging", title="judging options", exclude={"suites"})
    submit = OptionFlags(p).add_model(api.SubmitOptions, "submit", title="submit options", exclude={"data_dir"})
    flags = {"model": model, "generation": generation, "judge": judge, "judging": judging, "submit": submit}
    p.set_defaults(func=partial(run, flags=flags))
