"""slmboard export: per-item results in other tools' formats, one subcommand per registered export format."""
from __future__ import annotations

import argparse
import sys
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags


def run(a: argparse.Namespace, flags: OptionFlags) -> int:
    r = api.export(a.format, a.data, a.out, flags.given(a), services_of(a))
    for note in r.notes:
        print(f"note: {note}", file=sys.stderr)
    lines = r.report_lines()
    print("\n".join(lines[:-1] if not r.ok else lines))
    if not r.ok:
        print(lines[-1], file=sys.stderr)
        return 1
    return 0


def register(p: argparse.ArgumentParser) -> None:
    formats = p.add_subparsers(dest="format", required=True, metavar="FORMAT", help="the format to write")
    for component in api.EXPORT_FORMATS.components():
        f = formats.add_parser(component.name, help=component.summary)
        f.add_argument("data", help="dataset folder, run folder, record file, or Hub dataset ORG/NAME[@REV]")
        f.add_argument("--out", required=True, help="folder to write the files into")
        flags = OptionFlags(f).add_model(component.options, component.name)
        add_token_argument(f)
        f.set_defaults(func=partial(run, flags=flags))
