"""Batched vs one-prompt-at-a-time greedy generation on CPU, same prompts, same model (the hf backend).

    .venv/bin/python bench/generation.py --dtype float32 --n-prompts 16 --max-new-tokens 64 --batch-size 16

Both paths are the ``hf`` backend (lm-eval HFLM) the runner uses: one-at-a-time = ``generate([p])`` per
prompt; batched = ``generate(prompts)`` with ``batch_size`` B (HFLM groups by length, left-pads). The
prompts are the smoke suite's first N, chat template applied. Reports tokens/s of each path, the
ratio, and whether every output is identical (exact string equality). Prints a Markdown table; with
``--out FILE`` also writes it there.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def measure(dtype: str, n_prompts: int, max_new_tokens: int, batch_size: int) -> dict:
    import torch

    from toolkit.generation import make_backend
    from toolkit.suites import load_items

    prompts = [i.prompt for i in load_items("smoke", limit=n_prompts)]
    one = make_backend("hf", {"dtype": dtype}, 1)
    many = make_backend("hf", {"dtype": dtype}, batch_size)
    one.generate(prompts[:1], 4, 0)  # warm-up: first-call allocations are not throughput
    many.generate(prompts[:2], 4, 0)

    t = time.perf_counter()
    seq = [one.generate([p], max_new_tokens, 0)[0] for p in prompts]
    t_seq = time.perf_counter() - t
    t = time.perf_counter()
    bat = many.generate(prompts, max_new_tokens, 0)
    t_bat = time.perf_counter() - t

    tok_seq = sum(c.n_output_tokens or 0 for c in seq)
    tok_bat = sum(c.n_output_tokens or 0 for c in bat)
    same = [a.text == b.text for a, b in zip(seq, bat)]
    return {
        "dtype": dtype, "n_prompts": len(prompts), "max_new_tokens": max_new_tokens, "batch_size": batch_size,
        "threads": torch.get_num_threads(), "seq_s": t_seq, "bat_s": t_bat, "seq_tokens": tok_seq, "bat_tokens": tok_bat,
        "seq_tps": tok_seq / t_seq, "bat_tps": tok_bat / t_bat, "ratio": (tok_bat / t_bat) / (tok_seq / t_seq),
        "identical": sum(same), "differ": [i for i, s in enumerate(same) if not s],
    }


def table(rows: list[dict]) -> str:
    head = ("| dtype | prompts × max new tokens | one-at-a-time tok/s (s) | batched bs tok/s (s) | ratio | identical outputs |\n"
            "|---|---|---|---|---|---|\n")
    body = "".join(
        f"| {r['dtype']} | {r['n_prompts']} × {r['max_new_tokens']} | {r['seq_tps']:.1f} ({r['seq_s']:.1f} s, {r['seq_tokens']} tok) "
        f"| bs {r['batch_size']}: {r['bat_tps']:.1f} ({r['bat_s']:.1f} s, {r['bat_tokens']} tok) | **{r['ratio']:.1f}×** "
        f"| {r['identical']}/{r['n_prompts']}{'' if not r['differ'] else ' (differ: ' + ', '.join(map(str, r['differ'])) + ')'} |\n"
        for r in rows
    )
    return head + body


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dtype", default="float32", help="comma list, e.g. float32,bfloat16")
    ap.add_argument("--n-prompts", type=int, default=16)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    rows = []
    for d in a.dtype.split(","):
        rows.append(measure(d.strip(), a.n_prompts, a.max_new_tokens, a.batch_size))
        print(table(rows[-1:]), flush=True)  # each dtype as soon as it is measured (slow on busy machines)
    cpu = platform.processor() or platform.machine()
    text = (f"machine: {os.cpu_count()} CPU cores ({cpu}), torch threads {rows[0]['threads']}, load average "
            f"{os.getloadavg()[0]:.1f} at the end\n\n" + table(rows))
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n", encoding="utf-8")
    return 0 if all(r["ratio"] >= 5 and not r["differ"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
