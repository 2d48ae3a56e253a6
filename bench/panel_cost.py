#!/usr/bin/env python
"""What a judge panel over judgments a run already has costs, beside a plain re-read of the same records.

    python bench/panel_cost.py [--models 5] [--repeats 5] [--work DIR]

Sets up (once, not timed) the demo's XSTest runs: the first --models release models imported from package data
(``gpt4-xstest`` and people's labels), heuristic-v1 and learned-v1 replayed from their shipped verdicts. Then, in
each repeat and in alternating order so both see the same load, times per run:

- ``re-read``: what a panel must read — the run's responses and its three members' records, each row validated
  as the panel's reader validates it (:func:`toolkit.core.stage_engine.read_records`);
- ``re-read + write``: the re-read, then one member's records written back whole (a panel's row count): the floor
  of any stage that reads these records and writes one record per response;
- ``panel:RULE``: ``judge RUN --judge panel:RULE:gpt4-xstest+heuristic-v1+learned-v1`` for the demo's three rules —
  the same reads, the votes, one ItemRecord per response built and validated, the file written whole. No judge
  is called (the members' records are there), so this is all a panel costs.

Prints the median seconds of each over the runs' total, the records per second, the ratio to the re-read and the
machine's load average (on a shared 2-core machine it decides much of the number). Exits 1 when a panel takes
more than --target times the re-read. Output goes to BENCHMARKS.md ("Judge panels over existing judgments").
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def set_up(work: Path, n_models: int) -> list[Path]:
    """The demo's first ``n_models`` XSTest runs, each judged by the members of the demo's panels."""
    from toolkit.stages.judging import judge_run
    from toolkit.workflows import xstest_release as xr

    data_dir = xr.unpack_prompts(work / "benchmarks")
    judges = [xr.offline_judge(spec)[0] for spec in xr.OFFLINE_JUDGES]
    runs = []
    for model in xr.MODELS[:n_models]:
        run = work / model.run_name
        xr.import_model(model, run, data_dir)
        for judge in judges:
            judge_run(run, judge, show_progress=False)
        runs.append(run)
    return runs


def re_read(runs: list[Path], members: tuple[str, ...], write: bool = False) -> int:
    """Read every response and every member record of ``runs`` as a panel reads them; returns the rows read.
    ``write``: then write the first member's records back whole to a scratch file (as many rows as a panel writes):
    the floor of any stage that reads these records and writes one record per response."""
    from schemas import ItemRecord
    from toolkit.core.records_io import atomic_write_text
    from toolkit.core.runs import RunDir
    from toolkit.core.stage_engine import read_records
    from toolkit.stages.judging.records import read_responses

    n = 0
    for root in runs:
        run = RunDir(root)
        for path in run.response_files():
            n += len(read_responses(path))
            read = [[r for _, r in read_records(run.judgment_file(member, path.stem), ItemRecord)] for member in members]
            n += sum(map(len, read))
            if write:
                atomic_write_text(root / "copy.jsonl", "".join(r.model_dump_json() + "\n" for r in read[0]))
    return n


def judge_panel(runs: list[Path], panel: str) -> int:
    from toolkit.stages.judging import judge_run

    return sum(judge_run(run, panel, show_progress=False).n_new for run in runs)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=int, default=5, help="release models (1-5), 449 answers each")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--work", default=None, help="scratch folder (default: a temporary one, removed after)")
    p.add_argument("--target", type=float, default=3.0, help="most a panel may take, in re-reads (exit 1 above)")
    a = p.parse_args()
    from toolkit.workflows.xstest_release import PANEL_MEMBERS, PANELS

    work = Path(a.work or tempfile.mkdtemp(prefix="panel-cost-"))
    shutil.rmtree(work, ignore_errors=True)
    t0 = time.perf_counter()
    runs = set_up(work, max(1, min(a.models, 5)))
    print(f"set-up (import, replay 2 offline judges, {len(runs)} run(s)): {time.perf_counter() - t0:.1f} s, not timed below")
    load0 = os.getloadavg()[0]
    phases = {"re-read": lambda: re_read(runs, PANEL_MEMBERS),
              "re-read + write": lambda: re_read(runs, PANEL_MEMBERS, write=True)}
    phases.update({panel.split(":")[1]: (lambda panel=panel: judge_panel(runs, panel)) for panel in PANELS})
    seconds: dict[str, list[float]] = {name: [] for name in phases}
    rows: dict[str, int] = {}
    for repeat in range(a.repeats):
        order = list(phases) if repeat % 2 == 0 else list(phases)[::-1]
        for name in order:
            start = time.perf_counter()
            rows[name] = phases[name]()
            seconds[name].append(time.perf_counter() - start)
    print(f"cpus={os.cpu_count()} load_avg_1min start={load0:.1f} end={os.getloadavg()[0]:.1f} repeats={a.repeats}")
    base = statistics.median(seconds["re-read"])
    print(f"re-read: {rows['re-read']} rows (responses + {len(PANEL_MEMBERS)} members' records): median {base:.3f} s "
          f"({rows['re-read'] / base:,.0f} rows/s)")
    copy = statistics.median(seconds["re-read + write"])
    print(f"re-read + write (one member's records written back, a panel's row count): median {copy:.3f} s, "
          f"{copy / base:.2f}× the re-read")
    missed = []
    for name in phases:
        if name.startswith("re-read"):
            continue
        median = statistics.median(seconds[name])
        print(f"panel {name}: {rows[name]} panel records written from the same reads: median {median:.3f} s "
              f"({rows[name] / median:,.0f} records/s), {median / base:.2f}× the re-read")
        if median > a.target * base:
            missed.append(name)
    if missed:
        print(f"MISSED: {', '.join(missed)} took more than {a.target}× the re-read")
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
