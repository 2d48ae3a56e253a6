"""slmboard demo: everything on the embedded default."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from .options import OptionFlags


def run(a, flags: OptionFlags) -> int:
    api.demo(a.workdir, api.DemoOptions(**flags.given(a)))
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workdir", default="demo-output", help="folder for the run, the dataset and the leaderboard")
    flags = OptionFlags(p).add_model(api.DemoOptions, "demo")
    p.set_defaults(func=partial(run, flags=flags))
