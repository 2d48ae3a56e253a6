"""slmboard merge: combine `generate --shard K/N` run folders into one run, checked complete."""
from __future__ import annotations

import argparse


def run(a) -> int:
    from toolkit import api

    r = api.merge(a.shards, a.out, api.MergeOptions(data_dir=a.data_dir))
    counts = ", ".join(f"{s} {n}" for s, n in r.counts.items())
    dup = f"; {r.n_duplicates} identical duplicate(s) kept once" if r.n_duplicates else ""
    print(f"merged {r.n_shards} shard(s): {counts} response(s), complete against the suite item lists{dup} → {r.out}")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("shards", nargs="+", help="the shard run folders (all N of them)")
    p.add_argument("--out", required=True, help="new run folder for the merged run")
    p.add_argument("--data-dir", default=None, help="the same local mirror the shards were generated from (if any)")
    p.set_defaults(func=run)
