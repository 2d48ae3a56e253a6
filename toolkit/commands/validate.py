"""slmboard validate: check record files, run folders, datasets and manifests; exit 1 on any error."""
from __future__ import annotations

import argparse

import sys


def run(a) -> int:
    from toolkit import api

    rc = 0
    for path in a.paths:
        report = api.validate(path, kind=a.kind)
        for err in report.errors:
            print(err, file=sys.stderr)
        kinds = ", ".join(f"{v} {k}" for k, v in sorted(report.counts.items())) or "no records"
        status = "OK" if report.ok else f"{len(report.errors)} error(s)"
        print(f"{path}: {report.n_files} file(s), {kinds}: {status}")
        rc = rc or (0 if report.ok else 1)
    return rc


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", help="record files (.jsonl/.parquet), run folders, dataset folders or manifests")
    p.add_argument("--kind", choices=["item", "response", "moderation", "submission", "leaderboard"], default=None,
                   help="force the record type (default: guessed per row, or from the dataset layout)")
    p.set_defaults(func=run)
