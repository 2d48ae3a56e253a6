"""slmboard agreement: how two judges' labels on the same items agree (paper 1, Tables 5-6)."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def run(a) -> int:
    from toolkit import api

    names = [x.strip() for x in a.judges.split(",") if x.strip()]
    if len(names) != 2:
        raise api.BadOption(f"--judges needs exactly two judge ids separated by a comma, got {a.judges!r}")
    result, paths = api.agreement(a.data[0] if len(a.data) == 1 else a.data, names[0], names[1], a.out, services_of(a))
    for suite, m in result.items():
        kappa = "n/a" if m["kappa_linear"] is None else f"{m['kappa_linear']:.3f}"
        exact = "n/a" if m["exact_agreement"] is None else f"{m['exact_agreement']:.3f}"
        print(f"{suite}: n={m['n']} exact={exact} kappa_w={kappa} boundary={m['boundary_rate']} contradiction={m['contradiction_rate']}")
    print(f"wrote {paths[0]} and {paths[1]}")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", nargs="+", help=".jsonl/.parquet of ItemRecords, run folder(s), a dataset folder or a Hub "
                                           "dataset id (ORG/NAME, hf://datasets/ORG/NAME, optional @revision)")
    p.add_argument("--judges", required=True, metavar="A,B",
                   help="two judges, by the id they wrote or the name they were run with, e.g. "
                        "heuristic,openai:gpt-4o-2024-05-13 (heuristic stands for heuristic-v1)")
    p.add_argument("--out", required=True, help="folder for agreement.json and agreement.csv")
    add_token_argument(p)
    p.set_defaults(func=run)
