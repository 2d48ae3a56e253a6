"""slmboard worker: evaluate a board's requests (claim, heartbeat, generate → judge → submit, close)."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def run(a) -> int:
    from toolkit import api

    options = api.WorkRequestsOptions(once=a.poll is None, poll=a.poll, runs=a.runs, executor=a.executor,
                                      ray_address=a.ray_address, batch_size=a.batch_size, heartbeat_s=a.heartbeat)
    done = api.work_requests(a.board, options, services_of(a, progress=not a.quiet))
    if a.poll is None and not done:
        print(f"no request of {a.board} is waiting")
    return 1 if any(o.request.status == "failed" for o in done) and a.poll is None else 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("board", help="the board (a Hub dataset made by `slmboard create`)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--once", action="store_true", help="handle one request (or none waiting) and exit (the default)")
    mode.add_argument("--poll", type=float, default=None, metavar="SECONDS",
                      help="keep working: look for a request every SECONDS when the queue is empty")
    p.add_argument("--runs", default="slmboard-worker-runs", metavar="DIR",
                   help="run folders (on storage every worker shares, a reclaimed request resumes its records)")
    p.add_argument("--executor", choices=("local", "ray"), default="local", help="where the evaluation runs")
    p.add_argument("--ray-address", default=None, metavar="ADDRESS", help="the Ray cluster (--executor ray)")
    p.add_argument("--batch-size", default=None, metavar="N", type=int, help="rows decoded together")
    p.add_argument("--heartbeat", type=float, default=60.0, metavar="SECONDS",
                   help="how often the claimed request's heartbeat is written (default 60)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_token_argument(p)
    p.set_defaults(func=run)
