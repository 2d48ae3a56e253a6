"""slmboard review: maintainers check each open pull request of a Hub dataset and comment the result."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def run(a) -> int:
    from toolkit import api

    reviews = api.review(a.dataset, api.ReviewOptions(post=not a.no_comment, data_dir=a.data_dir), services_of(a))
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
    if not a.no_comment:
        print("results posted as PR comments")
    return 0 if all(r.ok for r in reviews) else 1


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", metavar="ORG/NAME", help="the Hub dataset whose open pull requests are checked")
    p.add_argument("--data-dir", help="local benchmark mirror the suites' canonical item lists load from "
                                       "(as for submit); suites without one are reported as not checked")
    p.add_argument("--no-comment", action="store_true", help="print the results only")
    add_token_argument(p)
    p.set_defaults(func=run)
