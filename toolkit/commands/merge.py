"""slmboard merge: combine `generate --shard K/N` run folders into one run, checked complete."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from .options import OptionFlags


def run(a, flags: OptionFlags) -> int:
    r = api.merge(a.shards, a.out, api.MergeOptions(**flags.given(a)))
    counts = ", ".join(f"{s} {n}" for s, n in r.counts.items())
    dup = f"; {r.n_duplicates} identical duplicate(s) kept once" if r.n_duplicates else ""
    print(f"merged {r.n_shards} shard(s): {counts} response(s), complete against the suite item lists{dup} → {r.out}")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("shards", nargs="+", help="the shard run folders (all N of them)")
    p.add_argument("--out", required=True, help="new run folder for the merged run")
    flags = OptionFlags(p).add_model(api.MergeOptions, "merge")
    p.set_defaults(func=partial(run, flags=flags))
