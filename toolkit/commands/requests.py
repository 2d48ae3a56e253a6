"""slmboard requests: a board's evaluation requests (pending, running, finished, failed, with reasons)."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def run(a) -> int:
    from toolkit import api

    rows = api.list_requests(a.board, services_of(a))
    if a.status:
        rows = [r for r in rows if r.status == a.status]
    if not rows:
        print(f"no requests{' ' + a.status if a.status else ''} on {a.board}")
        return 0
    for r in rows:
        tail = (f"submission {r.submission_id}" if r.status == "finished" else r.reason if r.status == "failed" else
                f"worker {r.worker}, heartbeat {r.heartbeat}" if r.status == "running" else
                f"pull request #{r.pull_request}" if r.pull_request else "")
        print(f"{r.status:<9} {r.model}@{r.commit[:12]}  by {r.who} at {r.when}" + (f"  {tail}" if tail else ""))
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("board", help="the board (a Hub dataset made by `slmboard create`)")
    p.add_argument("--status", choices=("pending", "running", "finished", "failed"), default=None, help="only these")
    add_token_argument(p)
    p.set_defaults(func=run)
