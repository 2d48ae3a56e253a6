"""slmboard review: maintainers check each open pull request of a Hub dataset and comment the result."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags


def run(a, flags: OptionFlags) -> int:
    options = api.ReviewOptions(**flags.given(a))
    reviews = api.review(a.dataset, options, services_of(a))
    if not reviews:
        print(f"{a.dataset}: no open pull requests")
        return 0
    for r in reviews:
        status = "passed" if r.ok else f"FAILED ({len(r.errors)} problem(s))"
        print(f"PR #{r.num} {r.title!r} @ {r.head[:12]}: {status}")
        for e in r.errors[:20]:
            print(f"  - {e}")
        for n in r.notes:
            print(f"  (not checked) {n}")
    if options.post:
        print("results posted as PR comments")
    return 0 if all(r.ok for r in reviews) else 1


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", metavar="ORG/NAME", help="the Hub dataset whose open pull requests are checked")
    flags = OptionFlags(p).add_model(api.ReviewOptions, "review")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags))
