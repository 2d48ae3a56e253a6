"""slmboard demo: everything on the embedded default."""
from __future__ import annotations

import argparse


def run(a) -> int:
    from toolkit import api

    api.demo(a.workdir, api.DemoOptions(limit=a.limit, max_new_tokens=a.max_new_tokens, serve=not a.no_serve, port=a.port,
                                       fresh=a.fresh))
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workdir", default="demo-output", help="folder for the run, the dataset and the leaderboard")
    p.add_argument("--limit", type=int, default=None, help="first N smoke items (default: all 30)")
    p.add_argument("--max-new-tokens", type=int, default=None, metavar="N", help="reply token cap (default: the suite's)")
    p.add_argument("--no-serve", action="store_true", help="stop after ranking")
    p.add_argument("--port", type=int, default=7860, help="port of the local Space")
    p.add_argument("--fresh", action="store_true", help="start over instead of resuming the previous demo run")
    p.set_defaults(func=run)
