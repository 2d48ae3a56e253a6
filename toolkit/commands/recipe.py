"""slmboard recipe: change a board's recipe (board.yaml) on purpose, as a commit of its own."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from . import add_token_argument
from .options import OptionFlags


def run(a: argparse.Namespace, flags: OptionFlags) -> int:
    r = api.recipe(a.dataset, api.RecipeOptions(**flags.given(a)), api.Services(token=a.token))
    if r.revision is None:
        print(f"{r.dataset}: the recipe already says this; nothing changed")
    else:
        print(f"changed the recipe of {r.dataset} (commit {r.revision[:12]}): board.yaml")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", help="the board: ORG/NAME or hf://datasets/ORG/NAME (Hub), or its folder")
    flags = OptionFlags(p).add_model(api.RecipeOptions, "recipe")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags))
