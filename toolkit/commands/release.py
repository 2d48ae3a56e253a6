"""slmboard release: name the board as it is now, so that a reader can cite it and read it again (BOARD@NAME)."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from . import add_token_argument
from .options import OptionFlags


def run(a: argparse.Namespace, flags: OptionFlags) -> int:
    r = api.release(a.dataset, a.name, api.ReleaseOptions(**flags.given(a)), api.Services(token=a.token))
    e = r.entry
    since = f"since {e['since']}" if e["since"] else "first release"
    print(f"released {r.dataset}@{r.name} (commit {r.revision[:12]}, {since}): {len(e['models_added'])} model(s) and "
          f"{len(e['judges_added'])} judge(s) added, {len(e['ranks_moved'])} rank(s) moved")
    for line in e["ranks_moved"]:
        print(f"  {line}")
    print(f"read it: slmboard rank {a.dataset}@{r.name}")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", help="the board: ORG/NAME or hf://datasets/ORG/NAME (Hub), or its folder")
    p.add_argument("name", help="the release's name (a tag: letters, digits, '.', '_', '-'), e.g. v1")
    flags = OptionFlags(p).add_model(api.ReleaseOptions, "release")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags))
