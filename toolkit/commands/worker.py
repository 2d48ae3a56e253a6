"""slmboard worker: evaluate a board's requests (claim, heartbeat, generate → judge → submit, close)."""
from __future__ import annotations

import argparse
import sys
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags


def run(a, flags: OptionFlags) -> int:
    given = flags.given(a)
    if a.once and given.get("poll") is not None:
        print("error: --once and --poll: choose one (one request and exit, or keep working)", file=sys.stderr)
        return 2
    once = given.get("poll") is None  # --once is the default; --poll keeps working
    done = api.work_requests(a.board, api.WorkRequestsOptions(once=once, **given), services_of(a, progress=not a.quiet))
    if once and not done:
        print(f"no request of {a.board} is waiting")
    return 1 if once and any(o.request.status == "failed" for o in done) else 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("board", help="the board (a Hub dataset made by `slmboard create`)")
    p.add_argument("--once", action="store_true", help="handle one request (or none waiting) and exit (the default; "
                                                       "not with --poll)")
    flags = OptionFlags(p).add_model(api.WorkRequestsOptions, "worker", exclude={"once"})
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags))
