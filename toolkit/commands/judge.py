"""slmboard judge: add judgments to a run (never regenerates)."""
from __future__ import annotations


def run(a) -> int:
    from .. import api

    r = api.judge(a.run, judge=a.judge, suites=a.suites.split(",") if a.suites else None)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(r.label_counts.items()))
    failed = r.status_counts.get("parse_error", 0) + r.status_counts.get("error", 0)
    print(f"judge {r.judge_id}: judged {r.n_new}, skipped {r.n_skipped} already judged ({counts or 'nothing new'}); failed {failed}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("judge", help="add judgments to a run (never regenerates)")
    p.add_argument("run", help="run folder")
    p.add_argument("--judge", default="heuristic", help="heuristic (offline default)")
    p.add_argument("--suites", default=None, help="only these suites (comma-separated)")
    p.set_defaults(func=run)
