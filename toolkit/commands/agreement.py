"""slmboard agreement: how two judges' labels on the same items agree (paper 1, Tables 5-6), or, without
--judges, every judge against people's labels."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def _f(v) -> str:  # printed at the precision of the figure; the files keep every digit
    return "n/a" if v is None else f"{v:.3f}"


def _signed(v) -> str:
    return "n/a" if v is None else f"{v:+.3f}"


def run_against_people(a) -> int:
    from toolkit import api

    result, paths = api.agreement_with_people(a.data[0] if len(a.data) == 1 else a.data, a.out, services_of(a))
    for suite, blocks in result.items():
        for people, block in blocks.items():
            for judge, m in block["judges"].items():
                print(f"{suite}: {judge} against {people}: n={m['n']} kappa_w={_f(m['kappa_linear'])} "
                      f"exact={_f(m['exact_agreement'])} ar_error={_signed(m['ar_error'])} "
                      f"contradiction={_f(m['contradiction_rate'])}")
            for panel in block["panels_with_people"]:
                print(f"{suite}: {panel} holds {people}'s labels: left out of the figures against {people}")
            corr = block["error_correlation"]
            print(f"{suite}: error correlation against {people}: mean phi={_f(corr['mean_phi'])} over "
                  f"{corr['n_judges']} judges, n_eff={_f(corr['n_eff'])}")
    print(f"wrote {', '.join(str(p) for p in paths)}")
    return 0


def run(a) -> int:
    from toolkit import api

    if a.judges is None:
        return run_against_people(a)
    names = [x.strip() for x in a.judges.split(",") if x.strip()]
    if len(names) != 2:
        raise api.BadOption(f"--judges needs exactly two judge ids separated by a comma, got {a.judges!r}")
    result, paths = api.agreement(a.data[0] if len(a.data) == 1 else a.data, names[0], names[1], a.out, services_of(a))
    for suite, m in result.items():
        print(f"{suite}: n={m['n']} exact={_f(m['exact_agreement'])} kappa_w={_f(m['kappa_linear'])} "
              f"boundary={_f(m['boundary_rate'])} contradiction={_f(m['contradiction_rate'])}")
        rows = "; ".join(f"{score}: {' '.join(str(v) for v in row)}" for score, row in zip(("0", "0.5", "1"), m["confusion"]))
        print(f"{suite}: confusion, rows {names[0]} × columns {names[1]} (scores 0 0.5 1): {rows}")
    print(f"wrote {paths[0]} and {paths[1]}")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", nargs="+", help=".jsonl/.parquet of ItemRecords, run folder(s), a dataset folder or a Hub "
                                           "dataset id (ORG/NAME, hf://datasets/ORG/NAME, optional @revision)")
    p.add_argument("--judges", default=None, metavar="A,B",
                   help="two judges, by the id they wrote or the name they were run with, e.g. "
                        "heuristic,openai:gpt-4o-2024-05-13 (heuristic stands for heuristic-v1); without it, every "
                        "judge against people's labels (against_people.json/.csv, error_correlation.csv)")
    p.add_argument("--out", required=True, help="folder for agreement.json and agreement.csv (against_people.json, "
                                                 "against_people.csv and error_correlation.csv without --judges)")
    add_token_argument(p)
    p.set_defaults(func=run)
