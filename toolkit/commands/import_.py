"""slmboard import: results another tool wrote → an ordinary run folder (or more judges for one)."""
from __future__ import annotations

import argparse
import sys
from functools import partial

from toolkit import api
from .options import OptionFlags, spec_help

#: the library's reasons name parameters; this is the command line
_CLI_WORDS = (("accept_reworded keeps it", "--accept-reworded keeps it"), ("fit id_map", "fit --id-map"),
              ("(skip_unmatched)", "(--skip-unmatched)"), ("keep them with accept_reworded", "keep them with --accept-reworded"))


def _cli(text: str) -> str:
    for library, cli in _CLI_WORDS:
        text = text.replace(library, cli)
    return text


def run(a: argparse.Namespace, flags: OptionFlags) -> int:
    api.FORMATS.get(a.format)  # an unknown format first, listing the valid ones
    options = api.ImportOptions(suite=a.suites, model_id=a.model_id, model_revision=a.model_revision,
                                data_dir=a.data_dir, id_map=a.id_map, skip_unmatched=a.skip_unmatched,
                                accept_reworded=a.accept_reworded, submission_id=a.submission_id)
    r = api.import_results(a.format, a.source, a.out, options, flags.values(a, f"import format:{a.format}"))
    for line in r.report_lines():
        print(_cli(line))
    o = r.outcome
    for stale in o.stale_removed:
        print(f"removed {stale.path}: staging folder of an import that was killed (pid {stale.pid}, no longer running)",
              file=sys.stderr)
    verb = "wrote" if o.created else "updated"
    print(f"{verb} {r.run_dir} ({r.submission_id}); judges added: {', '.join(o.judges_added) or 'none'}"
          + (f"; unchanged: {', '.join(o.judges_unchanged)}" if o.judges_unchanged else ""))
    if any(r.report.missing.values()):
        print(f"the run lacks suite items: publish it with `slmboard submit {r.run_dir} --to DATASET --allow-partial`",
              file=sys.stderr)
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("format", help=spec_help(api.FORMATS, "the source's format"))
    p.add_argument("source", nargs="+", help="source files or folders")
    p.add_argument("--out", required=True, help="run folder to write (or to add judges to, when it holds the same responses)")
    p.add_argument("--suites", default=None, metavar="SUITE",
                   help="the suite the source answers, for sources (or parts, e.g. HELM run folders) that do not say theirs")
    p.add_argument("--suite", dest="suites", default=None, help=argparse.SUPPRESS)
    p.add_argument("--data-dir", default=None, metavar="DIR", help="local mirror of the benchmark files")
    p.add_argument("--model-id", default=None, metavar="ORG/NAME", help="the model (when the source does not say)")
    p.add_argument("--model-revision", default=None, help="model revision (default: from the source, else a hash of the source files)")
    p.add_argument("--submission-id", default=None, help="the run's submission id (default: from the model id and revision)")
    p.add_argument("--id-map", default=None, metavar="SOURCE=SUITE",
                   help="match by id: SOURCE=SUITE pattern, e.g. 'v2-{n}=xstest_{n}' (default: by prompt text)")
    p.add_argument("--skip-unmatched", action="store_true",
                   help="leave out source rows that match no suite item, and parts of the source of no slmboard suite "
                        "(a HELM run folder of another scenario); both listed")
    p.add_argument("--accept-reworded", action="store_true",
                   help="import rows matched by id (--id-map, or the source's own id when it is a suite id) whose prompt "
                        "wording differs (source wording kept in item_metadata)")
    flags = OptionFlags(p).add_registry(api.FORMATS, title="format options")
    p.set_defaults(func=partial(run, flags=flags))
