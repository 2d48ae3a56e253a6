#!/usr/bin/env python
"""The offline judges' throughput side by side on the same answers, same process: learned-v3, learned-v2, learned-v1, heuristic-v1.

Answers: the XSTest release's GPT-4 and Llama-2-70b-chat files (900 real answers: short refusals,
long refusals, long compliances; ``--items`` takes the first N of each file). Both judges are loaded and
warmed up first (model loading is not timed); then ``--rounds`` rounds each judge every answer in
batches of ``--batch-size`` (the judging stage's default, 32), the order of the judges
reversing between rounds. Reported: seconds and items/s per judge per round, and each learned judge's
ratio of totals to heuristic-v1's. Targets: learned-v1 and learned-v2 each at least as fast as heuristic-v1,
ratio >= 1.00 (issues 24, 37); learned-v3, which reads with the embedded decoder, at least
:data:`V3_FLOOR` answers/s (issue 45: a 1,000-answer suite in under 6 minutes on 2 CPU cores), its progress
shown on stderr as it judges (the judging stage shows the same counts).

Usage: ``.venv/bin/python bench/judge_speed.py [--items 450] [--rounds 2] [--batch-size 32] [--judges a,b]``
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import xstest_eval as xe  # noqa: E402

from toolkit.stages.judging.base import JudgeInput  # noqa: E402
from toolkit.stages.judging.heuristic import HeuristicJudge  # noqa: E402
from toolkit.stages.judging.learned import LearnedJudge, LearnedJudgeV2  # noqa: E402
from toolkit.stages.judging.learned_v3 import LearnedJudgeV3  # noqa: E402

V3_FLOOR = 3.0
JUDGES = {"heuristic-v1": HeuristicJudge, "learned-v1": LearnedJudge, "learned-v2": LearnedJudgeV2,
          "learned-v3": LearnedJudgeV3}


def timed(judge, inputs: list[JudgeInput], batch_size: int, name: str = "") -> float:
    t, done, said = time.perf_counter(), [0], [0.0]

    def progress(n: int) -> None:
        done[0] += n
        secs = time.perf_counter() - t
        if secs - said[0] >= 15:
            said[0] = secs
            print(f"  {name}: {done[0]}/{len(inputs)} answers, {done[0] / secs:.1f} answers/s", file=sys.stderr, flush=True)
    for k in range(0, len(inputs), batch_size):
        out = judge.judge_with_progress(inputs[k:k + batch_size], progress)
        assert all(j.status == "ok" for j in out)
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=450, help="answers taken from each of the two files")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--judges", default=",".join(JUDGES), help="comma-separated, heuristic-v1 always included")
    a = ap.parse_args(argv)
    import torch

    rows = [r for rs in xe.read_files(xe.TRAINING_FILES).values() for r in rs[:a.items]]
    inputs = [JudgeInput("xstest", r.id, r.prompt, r.completion, gold=r.gold) for r in rows]
    names = ["heuristic-v1"] + [n for n in a.judges.split(",") if n and n != "heuristic-v1"]
    judges = {name: JUDGES[name]() for name in names}
    for judge in judges.values():  # load the encoders, warm the caches
        judge.judge(inputs[:a.batch_size])
    print(f"{len(inputs)} answers ({sum(len(r.completion) for r in rows) / len(rows):.0f} chars on average), "
          f"batch {a.batch_size}, torch threads {torch.get_num_threads()}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at start")
    totals = dict.fromkeys(judges, 0.0)
    for k in range(a.rounds):
        order = list(judges) if k % 2 == 0 else list(reversed(judges))
        for name in order:
            secs = timed(judges[name], inputs, a.batch_size, name)
            totals[name] += secs
            print(f"round {k + 1} {name:13s} {secs:7.1f} s  {len(inputs) / secs:6.1f} answers/s")
    ratios = {name: totals["heuristic-v1"] / totals[name] for name in ("learned-v1", "learned-v2") if name in judges}
    for name, ratio in ratios.items():
        print(f"total heuristic-v1 {totals['heuristic-v1']:.1f} s, {name} {totals[name]:.1f} s: "
              f"{name} is {ratio:.2f}x the speed of heuristic-v1 [target >= 1.00]")
    ok = all(r >= 1.0 for r in ratios.values())
    if "learned-v3" in judges:
        rate = a.rounds * len(inputs) / totals["learned-v3"]
        print(f"learned-v3: {rate:.1f} answers/s over {a.rounds} rounds [floor >= {V3_FLOOR:.1f}]")
        ok = ok and rate >= V3_FLOOR
    print(f"load average {os.getloadavg()[0]:.1f} at end")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
