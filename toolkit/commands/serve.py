"""slmboard serve: the leaderboard Space, locally."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags


def run(a, flags: OptionFlags) -> int:
    api.serve(a.data, api.ServeOptions(block=True, **flags.given(a)), services_of(a))
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", help="dataset folder, or a Hub dataset id ORG/NAME (downloaded with snapshot_download)")
    flags = OptionFlags(p).add_model(api.ServeOptions, "serve")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags))
