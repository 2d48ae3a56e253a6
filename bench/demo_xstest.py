"""Time the demo's XSTest step (step 5 of `slmboard demo`) and the ranking after it.

    python bench/demo_xstest.py [--work DIR]

Imports the five release models from package data, replays both offline judges' shipped verdicts, judges the
demo's three panels from those records, submits the five runs into a fresh dataset folder (1000 bootstrap
resamples, as the demo) and ranks the dataset; prints the seconds of each part and the machine's load average, which on a shared
2-core machine decides most of the number. Output goes to BENCHMARKS.md ("Demo: the XSTest board").
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", default=None)
    p.add_argument("--bootstrap", type=int, default=None, help="bootstrap resamples (default: the demo's)")
    a = p.parse_args()
    from rich.console import Console

    from toolkit.core.board_recipe import BoardRecipe
    from toolkit.data.reading import leaderboard
    from toolkit.data.scoring.bootstrap import N_BOOTSTRAP
    from toolkit.outputs.publishing.create import create_board
    from toolkit.workflows.xstest_release import publish_release

    work = Path(a.work or tempfile.mkdtemp(prefix="demo-xstest-"))
    shutil.rmtree(work, ignore_errors=True)
    quiet = Console(file=open(os.devnull, "w"))
    n_bootstrap = N_BOOTSTRAP if a.bootstrap is None else a.bootstrap
    create_board(work / "dataset", BoardRecipe(description="bench/demo_xstest.py: the demo's XSTest board"))  # on purpose, as every board
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    publish_release(work, work / "dataset", n_bootstrap, quiet)
    t1 = time.perf_counter()
    table = leaderboard(work / "dataset", n_bootstrap=n_bootstrap)
    t2 = time.perf_counter()
    print(f"cpus={os.cpu_count()} load_avg_1min start={load0:.1f} end={os.getloadavg()[0]:.1f}")
    print(f"import + replay + 3 panels + submit (5 models, 4 judges): {t1 - t0:.1f} s")
    print(f"rank (the whole dataset, {len(table)} rows, {n_bootstrap} bootstrap): {t2 - t1:.1f} s")
    print(f"total: {t2 - t0:.1f} s")
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
