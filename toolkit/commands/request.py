"""slmboard request: ask a board to evaluate a model (its request policy checked first)."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def run(a) -> int:
    from toolkit import api

    filed = api.request_evaluation(a.model, a.to, services=services_of(a))
    r = filed.request
    if filed.pull_request_url:
        print(f"requested {r.model}@{r.commit[:12]} as a pull request on {filed.dataset} (this token may not write "
              f"there): {filed.pull_request_url}")
    else:
        print(f"requested {r.model}@{r.commit[:12]} ({r.params:,} parameters) on {filed.dataset}; "
              f"see `slmboard requests {a.to}`")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL[@REVISION]", help="the Hub model to evaluate (revision: a branch, tag or "
                                                             "commit; default main, resolved to a commit)")
    to = p.add_argument("--to", required=True, metavar="BOARD", help="the board (a Hub dataset made by `slmboard create`)")
    to.param = "board"  # the API's parameter it fills: a message about board names --to
    add_token_argument(p)
    p.set_defaults(func=run)
