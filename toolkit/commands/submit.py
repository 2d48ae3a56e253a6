"""slmboard submit: validate a run, then publish it to a dataset (one commit)."""
from __future__ import annotations

import argparse
import sys
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags, print_not_comparable


def run(a: argparse.Namespace, flags: OptionFlags) -> int:
    r = api.submit(a.run, a.to, api.SubmitOptions(**flags.given(a)), services_of(a))
    for note in r.notes:
        print(f"note: {note}", file=sys.stderr)
    print_not_comparable(r.not_comparable)
    where = f"pull request {r.pr_url}" if r.pr_url else f"{r.dataset}"
    print(f"published {r.n_records} record(s) of {r.submission_id} to {where} (commit {r.revision[:12]}"
          + (f", {r.attempts} attempts" if r.attempts > 1 else "") + ")")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="run folder")
    p.add_argument("--to", required=True,
                   help="the board (made by `slmboard create`): ORG/NAME[@BRANCH], hf://datasets/ORG/NAME[@BRANCH], or a folder "
                        "(an existing one, or ./NAME, /abs/NAME)")
    flags = OptionFlags(p).add_model(api.SubmitOptions, "submit")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags))
