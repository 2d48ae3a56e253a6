"""slmboard serve: the leaderboard Space, locally."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def run(a) -> int:
    from toolkit import api

    api.serve(a.data, api.ServeOptions(host=a.host, port=a.port, block=True, refresh=a.refresh), services_of(a))
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", help="dataset folder, or a Hub dataset id ORG/NAME (downloaded with snapshot_download)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    p.add_argument("--port", type=int, default=7860, help="port to listen on")
    p.add_argument("--refresh", type=float, default=None, metavar="SECONDS",
                   help="re-read the dataset this often when it changed (default 300; 0 = only on Refresh)")
    add_token_argument(p)
    p.set_defaults(func=run)
