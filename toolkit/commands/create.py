"""slmboard create: make a board on purpose (its recipe board.yaml and its dataset card, one commit)."""
from __future__ import annotations

import argparse

from toolkit import api
from . import add_token_argument, services_of


def run(a: argparse.Namespace) -> int:
    primary = dict(api.parse_pairs(a.primary_judge, "--primary-judge")) if a.primary_judge else None
    given = {"dataset": a.requests_dataset, "max_params": a.max_params, "per_user_per_day": a.per_user_per_day,
             "licenses": [x for x in a.licenses.split(",") if x] if a.licenses else None,
             "chat_template_required": False if a.allow_no_chat_template else None, "stale_after_s": a.stale_after}
    policy = {k: v for k, v in given.items() if v is not None} or None
    options = api.CreateOptions(suites=a.suites, judges=a.judges, primary_judges=primary, temperature=a.temperature,
                                max_new_tokens=a.max_new_tokens, limit=a.limit, complete=a.complete or None,
                                gate=not a.no_gate, description=a.description, private=a.private,
                                requests=not a.no_requests, request_policy=policy)
    r = api.create(a.dataset, a.recipe, options, services_of(a))
    if not r.created:
        print(f"{r.dataset} is already this board (its board.yaml holds this recipe); nothing changed")
    else:
        print(f"created the board {r.dataset} (commit {r.revision[:12]}): board.yaml, dataset card"
              + ("" if r.recipe.gated else "; not gated"))
    if r.requests_dataset:
        print(f"requests for evaluations go to {r.requests_dataset} (`slmboard request MODEL --to {a.dataset}`; "
              f"evaluated by `slmboard worker {a.dataset}`)")
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
    q = p.add_argument_group("evaluation requests (a Hub board; board.yaml requests:)")
    q.add_argument("--no-requests", action="store_true", help="no requests dataset: the board takes no evaluation requests")
    q.add_argument("--requests-dataset", default=None, metavar="ORG/NAME", help="where requests go (default: the board's "
                                                                                  "id + '-requests')")
    q.add_argument("--max-params", type=int, default=None, metavar="N",
                   help="most parameters a requested model may have (default 4000000000)")
    q.add_argument("--per-user-per-day", type=int, default=None, metavar="N", help="requests one user may file a day "
                                                                                    "(default 5)")
    q.add_argument("--licenses", default=None, metavar="A,B", help="licences a requested model's card may declare "
                                                                    "(default: any)")
    q.add_argument("--allow-no-chat-template", action="store_true", help="take models without a chat template")
    q.add_argument("--stale-after", type=int, default=None, metavar="SECONDS",
                   help="a running request whose heartbeat is older is claimed again (default 600)")
    add_token_argument(p)
    p.set_defaults(func=run)
