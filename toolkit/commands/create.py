"""slmboard create: make a board on purpose (its recipe board.yaml and its dataset card, one commit)."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags


def run(a: argparse.Namespace, flags: OptionFlags, policy: OptionFlags) -> int:
    options = api.CreateOptions(**flags.given(a), request_policy=policy.given(a) or None)
    r = api.create(a.dataset, a.recipe, options, services_of(a))
    if not r.created:
        print(f"{r.dataset} is already this board (its board.yaml holds this recipe); nothing changed")
    else:
        print(f"created the board {r.dataset} (commit {r.revision[:12]}): board.yaml, dataset card"
              + ("" if r.recipe.gated else "; not gated"))
    if r.labels_dataset:
        print(f"people's labels go to {r.labels_dataset} (`slmboard labels {a.dataset} --init --labellers USER` names "
              "who may label)")
    if r.requests_dataset:
        print(f"requests for evaluations go to {r.requests_dataset} (`slmboard request MODEL --to {a.dataset}`; "
              f"evaluated by `slmboard worker {a.dataset}`)")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", help="the new board: ORG/NAME or hf://datasets/ORG/NAME (Hub), or a folder (./NAME, /abs/NAME)")
    flags = OptionFlags(p).add_model(api.CreateOptions, "create")
    p.add_argument("--recipe", default=None, metavar="board.yaml", help="a whole recipe file instead of the flags above")
    policy = OptionFlags(p, dest_prefix="policy_").add_model(api.RequestPolicy, "requests",
                                                             title="evaluation requests (a Hub board; board.yaml requests:)")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags, policy=policy))
