#!/usr/bin/env python
"""learned-v2 and learned-v1 vs heuristic-v1: judging throughput side by side on the same answers, same process.

Answers: the XSTest release's GPT-4 and Llama-2-70b-chat files (900 real answers: short refusals,
long refusals, long compliances; ``--items`` takes the first N of each file). Both judges are loaded and
warmed up first (model loading is not timed); then ``--rounds`` rounds each judge every answer in
batches of ``--batch-size`` (the judging stage's default, 32), the order of the judges
reversing between rounds. Reported: seconds and items/s per judge per round, and each learned judge's
ratio of totals to heuristic-v1's. Target (issues 24, 37): learned-v1 and learned-v2 each at least as fast
as heuristic-v1, ratio >= 1.00.

Usage: ``.venv/bin/python bench/judge_speed.py [--items 450] [--rounds 2] [--batch-size 32]``
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


def timed(judge, inputs: list[JudgeInput], batch_size: int) -> float:
    t = time.perf_counter()
    for k in range(0, len(inputs), batch_size):
        out = judge.judge(inputs[k:k + batch_size])
        assert all(j.status == "ok" for j in out)
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=450, help="answers taken from each of the two files")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    a = ap.parse_args(argv)
    import torch

    rows = [r for rs in xe.read_files(xe.TRAINING_FILES).values() for r in rs[:a.items]]
    inputs = [JudgeInput("xstest", r.id, r.prompt, r.completion, gold=r.gold) for r in rows]
    judges = {"heuristic-v1": HeuristicJudge(), "learned-v1": LearnedJudge(), "learned-v2": LearnedJudgeV2()}
    for judge in judges.values():  # load the encoders, warm the caches
        judge.judge(inputs[:a.batch_size])
    print(f"{len(inputs)} answers ({sum(len(r.completion) for r in rows) / len(rows):.0f} chars on average), "
          f"batch {a.batch_size}, torch threads {torch.get_num_threads()}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at start")
    totals = dict.fromkeys(judges, 0.0)
    for k in range(a.rounds):
        order = list(judges) if k % 2 == 0 else list(reversed(judges))
        for name in order:
            secs = timed(judges[name], inputs, a.batch_size)
            totals[name] += secs
            print(f"round {k + 1} {name:13s} {secs:7.1f} s  {len(inputs) / secs:6.1f} answers/s")
    ratios = {name: totals["heuristic-v1"] / totals[name] for name in ("learned-v1", "learned-v2")}
    for name, ratio in ratios.items():
        print(f"total heuristic-v1 {totals['heuristic-v1']:.1f} s, {name} {totals[name]:.1f} s: "
              f"{name} is {ratio:.2f}x the speed of heuristic-v1 [target >= 1.00]")
    print(f"load average {os.getloadavg()[0]:.1f} at end")
    ok = all(r >= 1.0 for r in ratios.values())
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
