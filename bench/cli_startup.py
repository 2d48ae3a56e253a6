"""Start-up cost of the command line: ``slmboard --help`` and ``slmboard validate RUN`` (a 3-record run), the
checkout's code against another checkout's (``--base``), run in turn A B A B ... so the ratio is taken pair by pair.

    python bench/cli_startup.py --base /path/to/other/checkout [--repeats 9]

Building the parser imports every component registry (their options models are the flags), so this is what
typed components cost a command before it does anything.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _seconds(checkout: Path, argv: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "toolkit.cli", *argv], cwd=checkout, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the other checkout (its toolkit/ is imported for B)")
    ap.add_argument("--repeats", type=int, default=9)
    a = ap.parse_args()
    from toolkit.testing.runs import make_run

    run = make_run(Path(tempfile.mkdtemp(prefix="slmboard-bench-cli-")) / "run")
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    print(f"{'command':<24} {'this (s)':>9} {'base (s)':>9} {'ratio':>6}   (medians of {a.repeats} pairs)")
    for name, argv in (("slmboard --help", ["--help"]), ("slmboard validate RUN", ["validate", str(run)])):
        _seconds(ROOT, argv), _seconds(Path(a.base), argv)  # warm the file cache
        pairs = [(_seconds(ROOT, argv), _seconds(Path(a.base), argv)) for _ in range(a.repeats)]
        this, base = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
        ratio = statistics.median(p[0] / p[1] for p in pairs)
        print(f"{name:<24} {this:>9.2f} {base:>9.2f} {ratio:>6.2f}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
