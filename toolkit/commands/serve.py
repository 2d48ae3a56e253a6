"""slmboard serve: the leaderboard Space, locally."""
from __future__ import annotations


def run(a) -> int:
    from .. import api

    api.serve(a.data, host=a.host, port=a.port, block=True)
    return 0


def register(sub) -> None:
    p = sub.add_parser("serve", help="start the leaderboard Space locally on a dataset folder")
    p.add_argument("data", help="dataset folder")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=7860)
    p.set_defaults(func=run)
