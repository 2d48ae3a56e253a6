"""``slmboard`` command line: a thin shell over :mod:`toolkit.api`."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from . import __version__


def _add_generate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default="hf", help="backend: hf (lm-eval HFLM; default)")
    p.add_argument("--model-args", "--model_args", dest="model_args", default="",
                   help="lm-eval style: pretrained=org/name,revision=...,dtype=... (default: the embedded SmolLM2-135M-Instruct)")
    p.add_argument("--suites", default="smoke", help="comma-separated suites (smoke, sst, harmbench, xstest)")
    p.add_argument("--data-dir", default=None, help="local mirror of the benchmark files (laid out like shared/benchmarks)")
    p.add_argument("--limit", type=int, default=None, help="first N items of each suite")
    p.add_argument("--batch-size", default=None, help="int, or 'auto' (GPU only; CPU uses a fixed size)")
    p.add_argument("--max-new-tokens", type=int, default=None, help="default 512 (paper 1 §3.1)")
    p.add_argument("--submission-id", default=None)


def _cmd_generate(a) -> int:
    from . import api

    batch = int(a.batch_size) if a.batch_size and a.batch_size != "auto" else a.batch_size
    r = api.generate(a.out, suites=a.suites, model=a.model, model_args=a.model_args, data_dir=a.data_dir, limit=a.limit,
                     batch_size=batch, max_new_tokens=a.max_new_tokens, submission_id=a.submission_id)
    print(f"generated {r.n_new} response(s), skipped {r.n_skipped} already done, {r.n_output_tokens} tokens in {r.seconds:.1f}s → {r.run_dir}")
    return 0


def _cmd_judge(a) -> int:
    from . import api

    r = api.judge(a.run, judge=a.judge, suites=a.suites.split(",") if a.suites else None)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(r.label_counts.items()))
    failed = r.status_counts.get("parse_error", 0) + r.status_counts.get("error", 0)
    print(f"judge {r.judge_id}: judged {r.n_new}, skipped {r.n_skipped} already judged ({counts or 'nothing new'}); failed {failed}")
    return 0


def _cmd_validate(a) -> int:
    from . import api

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


def _cmd_submit(a) -> int:
    from . import api

    r = api.submit(a.run, to=a.to, submitter=a.submitter, n_bootstrap=a.bootstrap)
    print(f"published {r.n_records} record(s) of {r.submission_id} to {r.dataset} (commit {r.revision[:12]})")
    return 0


def _cmd_rank(a) -> int:
    from . import api
    from .terminal import print_leaderboard

    table = api.rank(a.data, out=a.out, n_bootstrap=a.bootstrap, seed=a.seed)
    if not a.quiet:
        print_leaderboard(table)
    if a.out:
        print(f"wrote {a.out}/leaderboard.parquet and {a.out}/leaderboard.csv ({len(table)} rows)")
    return 0


def _cmd_serve(a) -> int:
    from . import api

    api.serve(a.data, host=a.host, port=a.port, block=True)
    return 0


def _cmd_demo(a) -> int:
    from . import api

    api.demo(a.workdir, limit=a.limit, max_new_tokens=a.max_new_tokens, serve=not a.no_serve, port=a.port, fresh=a.fresh)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="slmboard", description="Ambiguity-aware safety evaluation and leaderboards for small language models.")
    parser.add_argument("--version", action="version", version=f"slmboard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("generate", help="run a model on suites → response records (resumable)")
    p.add_argument("--out", required=True, help="run folder")
    _add_generate_args(p)
    p.set_defaults(func=_cmd_generate)

    p = sub.add_parser("judge", help="add judgments to a run (never regenerates)")
    p.add_argument("run", help="run folder")
    p.add_argument("--judge", default="heuristic", help="heuristic (offline default)")
    p.add_argument("--suites", default=None, help="only these suites (comma-separated)")
    p.set_defaults(func=_cmd_judge)

    p = sub.add_parser("validate", help="check record files, run folders, datasets and manifests; exit 1 on any error")
    p.add_argument("paths", nargs="+")
    p.add_argument("--kind", choices=["item", "response", "moderation", "submission"], default=None,
                   help="force the record type (default: guessed per row)")
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("submit", help="validate a run, then publish it to a dataset folder (one commit)")
    p.add_argument("run", help="run folder")
    p.add_argument("--to", required=True, help="dataset folder (a git repository; created if missing)")
    p.add_argument("--submitter", default=None)
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the leaderboard intervals")
    p.set_defaults(func=_cmd_submit)

    p = sub.add_parser("rank", help="recompute the leaderboard from per-item records")
    p.add_argument("data", help=".jsonl/.parquet of ItemRecords, a run folder or a dataset folder")
    p.add_argument("--out", default=None, help="write leaderboard.parquet and leaderboard.csv here")
    p.add_argument("--bootstrap", type=int, default=1000, help="paired bootstrap resamples (0 = no intervals)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true", help="do not print the table")
    p.set_defaults(func=_cmd_rank)

    p = sub.add_parser("serve", help="start the leaderboard Space locally on a dataset folder")
    p.add_argument("data", help="dataset folder")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=7860)
    p.set_defaults(func=_cmd_serve)

    p = sub.add_parser("demo", help="everything on the embedded default: generate → judge → validate → submit → rank → serve")
    p.add_argument("--workdir", default="demo-output")
    p.add_argument("--limit", type=int, default=None, help="first N smoke items (default: all ~30)")
    p.add_argument("--max-new-tokens", type=int, default=None)
    p.add_argument("--no-serve", action="store_true", help="stop after ranking")
    p.add_argument("--port", type=int, default=7860)
    p.add_argument("--fresh", action="store_true", help="start over instead of resuming the previous demo run")
    p.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from .errors import SlmboardError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except SlmboardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (KeyError, ValueError) as exc:  # unknown suite / judge / bad option: messages list the valid values
        if os.environ.get("SLMBOARD_DEBUG"):
            raise
        msg = exc.args[0] if exc.args else str(exc)
        print(f"error: {msg}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; re-run the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
