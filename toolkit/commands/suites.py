"""slmboard suites: what each suite is and where its data comes from; download the data for a machine without
network."""
from __future__ import annotations

import argparse
import re
from urllib.parse import unquote

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags

KINDS = {"free-text": "free text", "free-text-gold": "free text, gold label", "multiple-choice": "multiple choice"}
_RAW = re.compile(r"^https://raw\.githubusercontent\.com/([^/]+/[^/]+)/[0-9a-f]{40}/(.+)$")


def short_source(source: str) -> str:
    """A pinned GitHub file URL as ``github.com/OWNER/REPO: PATH`` (the commit is the revision column)."""
    m = _RAW.match(source)
    return f"github.com/{m.group(1)}: {unquote(m.group(2))}" if m else source


def run_list(a: argparse.Namespace) -> int:
    rows = [("name", "kind", "items", "source", "revision", "licence")]
    rows += [(s.name, KINDS.get(s.kind, s.kind), "?" if s.items is None else f"{s.items:,}", short_source(s.source), s.revision, s.license) for s in api.suite_list()]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
    return 0


def run_download(a: argparse.Namespace, flags: OptionFlags) -> int:
    options = api.SuiteDownloadOptions(**flags.given(a))
    files = api.download_suites(a.to, options, services_of(a))
    if not files:
        print(f"nothing to download: {options.suites} ships with the package")
        return 0
    made = "written" if options.sample else "downloaded"
    for f in files:
        print(f"{f.suite:<14} {f.path}  sha256 {f.sha256[:16]}…  {made if f.fresh else 'already there'}"
              f"  ({f.source} @ {f.revision[:12]})")
    print(f"{len(files)} file(s) in {a.to}; read them with --data-dir {a.to} (or SLMBOARD_DATA_DIR={a.to})")
    if options.sample:
        print("samples: a run judged or published from them covers only their rows; "
              "`slmboard suites download` without --sample fetches the full files")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION", help="list or download")
    ls = actions.add_parser("list", help="every suite: name, kind, items, source, pinned revision, licence")
    ls.set_defaults(func=run_list)
    dl = actions.add_parser("download", help="the suites' pinned source files into DIR, hashes checked "
                                             "(then --data-dir DIR, or SLMBOARD_DATA_DIR=DIR, on a machine without network)")
    flags = OptionFlags(dl).add_model(api.SuiteDownloadOptions, "suites download")
    dl.add_argument("--to", required=True, metavar="DIR", help="the data folder to fill (created if missing)")
    add_token_argument(dl)
    dl.set_defaults(func=lambda a: run_download(a, flags))
