#!/usr/bin/env python
"""Throughput of the ``openai:<model>`` judge against a local server with injected latency.

Starts llm-katan (echo backend, 127.0.0.1) with ``--latency-ms L`` and judges a synthetic run of
N items at each concurrency C through the real path (runner -> async judge -> ``openai`` client ->
HTTP). A server that takes L seconds per request can serve at most C/L items per second with C
requests in flight; target: measured throughput >= 80% of C/L. Then the same items are judged
again into a fresh run folder with the same disk cache: target 0 requests (counted by the server).

Echo replies do not parse (they repeat the prompt), so every item ends as a counted parse_error;
the timing covers request, parse, cache write and record write all the same.

Usage: ``.venv/bin/python bench/judging.py [--latency-ms 1000] [--concurrency 4 16 32] [--rounds 6]``
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
sys.path.insert(0, str(REPO))

from toolkit import api  # noqa: E402
from toolkit.stages.judging.cache import JudgmentCache  # noqa: E402
from toolkit.stages.judging.openai_judge import OpenAIJudge  # noqa: E402
from toolkit.stages.judging.components import OpenAIJudgeOptions  # noqa: E402
from toolkit.testing.runs import make_run  # noqa: E402
from toolkit.testing.servers import TEST_API_KEY, start_llm_katan  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency-ms", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[4, 16, 32])
    ap.add_argument("--rounds", type=int, default=6, help="items per run = rounds x C")
    a = ap.parse_args(argv)
    os.environ.setdefault("OPENAI_API_KEY", TEST_API_KEY)
    work = Path(tempfile.mkdtemp(prefix="slmboard-bench-judging-"))
    latency = a.latency_ms / 1000.0
    server = start_llm_katan("judge", latency_ms=a.latency_ms, max_concurrent=max(a.concurrency) * 2,
                             workdir=work / "server", dashboard=False)
    print(f"server: llm-katan echo, latency {a.latency_ms} ms, pid {server.pid}")
    print(f"{'C':>4} {'items':>6} {'seconds':>8} {'items/s':>8} {'C/L':>7} {'ratio':>6} {'target':>7} {'requests':>8}")
    ok = True
    try:
        # Warm-up (imports, first connection) so that the timed runs measure steady-state judging.
        warm = make_run(work / "warm", scores={"hb_warm": 1.0}, suite="harmbench", judged=False)
        api.judge(warm, judge=api.JudgeSpec("openai:judge", base_url=server.base_url, cache=False), services=api.Services(progress=False))
        for c in a.concurrency:
            n = a.rounds * c
            run = make_run(work / f"run-c{c}", scores={f"hb_{k:05d}": 1.0 for k in range(n)}, suite="harmbench", judged=False)
            cache = JudgmentCache(work / f"cache-c{c}.sqlite")
            before = server.request_count()
            t = time.perf_counter()
            r = api.judge(run, judge=OpenAIJudge(OpenAIJudgeOptions(model="judge", base_url=server.base_url, concurrency=c), judgment_cache=cache), services=api.Services(progress=False))
            secs = time.perf_counter() - t
            reqs = server.request_count() - before
            ideal = c / latency
            ratio = (n / secs) / ideal
            ok &= ratio >= 0.8 and r.n_new == n
            print(f"{c:>4} {n:>6} {secs:>8.2f} {n / secs:>8.1f} {ideal:>7.1f} {ratio:>6.2f} {'>=0.80':>7} {reqs:>8}")
            # Fully cached re-run: a fresh copy of the run, same cache.
            copy = work / f"run-c{c}-again"
            shutil.copytree(run, copy)
            shutil.rmtree(copy / "judgments")
            before = server.request_count()
            t = time.perf_counter()
            r2 = api.judge(copy, judge=OpenAIJudge(OpenAIJudgeOptions(model="judge", base_url=server.base_url, concurrency=c), judgment_cache=cache), services=api.Services(progress=False))
            secs2 = time.perf_counter() - t
            reqs2 = server.request_count() - before
            ok &= reqs2 == 0 and r2.n_new == n
            print(f"{'':>4} cached re-run: {n} items in {secs2:.2f} s, {reqs2} requests (target 0), cache hits {r2.judge_stats.get('cache_hits', 0)}")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
