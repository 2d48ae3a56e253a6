"""slmboard create: make a board on purpose (its recipe board.yaml and its dataset card, one commit)."""
from __future__ import annotations

import argparse

from toolkit import api
from . import add_token_argument


def run(a: argparse.Namespace) -> int:
    primary = dict(api.parse_pairs(a.primary_judge, "--primary-judge")) if a.primary_judge else None
    r = api.create(a.dataset, suites=a.suites, judges=a.judges, primary_judges=primary, temperature=a.temperature,
                   max_new_tokens=a.max_new_tokens, limit=a.limit, complete=a.complete or None, gate=not a.no_gate,
                   description=a.description, recipe=a.recipe, private=a.private, token=a.token)
    if not r.created:
        print(f"{r.dataset} is already this board (its board.yaml holds this recipe); nothing changed")
    else:
        print(f"created the board {r.dataset} (commit {r.revision[:12]}): board.yaml, dataset card"
              + ("" if r.recipe.gated else "; not gated"))
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", help="the new board: ORG/NAME or hf://datasets/ORG/NAME (Hub), or a folder (./NAME, /abs/NAME)")
    p.add_argument("--suites", default=None, metavar="A,B", help="the suites a submission may hold (default: any)")
    p.add_argument("--judges", default=None, metavar="A,B", help="the judge ids a submission may hold (default: any)")
    p.add_argument("--primary-judge", action="append", default=None, metavar="SUITE=JUDGE",
                   help="the judge a suite is ranked under (repeatable; default: chosen by rule)")
    p.add_argument("--temperature", type=float, default=None, help="decoding every submission must have used")
    p.add_argument("--max-new-tokens", type=int, default=None, help="decoding every submission must have used")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="items per suite every run must be generated with")
    p.add_argument("--complete", action="store_true", help="every submission covers each suite's canonical items")
    p.add_argument("--no-gate", action="store_true",
                   help="no access requests on the dataset (default: gated, since records hold harmful completions)")
    p.add_argument("--description", default=None, help="one line about the board, kept in board.yaml")
    p.add_argument("--recipe", default=None, metavar="board.yaml", help="a whole recipe file instead of the flags above")
    p.add_argument("--private", action="store_true", help="a private Hub dataset")
    add_token_argument(p)
    p.set_defaults(func=run)
