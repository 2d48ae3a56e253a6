"""How long the guides' lm-eval step takes offline: the command bring-results.md shows, on the embedded model's
folder (``slmboard model-path``) and the package's samples (``slmboard suites download --sample``).

    .venv/bin/python bench/lm_eval_step.py --out bench/results/lm_eval_step.md

Each configuration runs ``lm_eval`` once in a fresh folder with the network off (HF_HUB_OFFLINE=1) and is timed
wall-clock, lm-eval's start-up and model load included (what a reader waits for). The configurations: the guide's
command as it was (batch size 1, the tasks' 512 new tokens), then with ``--batch_size 8`` and
``--gen_kwargs max_gen_toks=64`` (what the guide now shows). Why the first is slow: lm-eval's ``hf`` model at
batch size 1 decodes one sequence at a time, ~12 tokens/s on 2 cores (bench/results/generation-64.md, path d), and
SmolLM2 rarely stops before 512 tokens on these prompts: 6 answers x 512 tokens is most of it.
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIGS = {
    "guide before (batch size 1, 512 new tokens)": [],
    "batch size 8, 512 new tokens": ["--batch_size", "8"],
    "batch size 8, 64 new tokens (the guide now)": ["--batch_size", "8", "--gen_kwargs", "max_gen_toks=64"],
}


def lm_eval_argv(model: str, tasks_dir: str, extra: list[str]) -> list[str]:
    return [str(Path(sys.executable).with_name("lm_eval")), "--model", "hf", "--model_args", f"pretrained={model}",
            "--include_path", tasks_dir, "--tasks", "slmboard_xstest,slmboard_sst,slmboard_bbq",
            "--apply_chat_template", "--log_samples", "--output_path", "lm-eval-out/", "--limit", "3",
            "--metadata", '{"data_dir": "suite-data", "bbq_categories": "Age"}', *extra]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="write the table here (markdown)")
    ap.add_argument("--configs", default=",".join(str(i) for i in range(len(CONFIGS))),
                    help="which configurations, by index (default: all)")
    args = ap.parse_args()
    slmboard = [sys.executable, "-m", "toolkit.cli"]
    model = subprocess.run([*slmboard, "model-path"], check=True, capture_output=True, text=True).stdout.strip()
    tasks = subprocess.run([*slmboard, "tasks", "lm-eval"], check=True, capture_output=True, text=True).stdout.strip()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    rows = []
    for index, (name, extra) in enumerate(CONFIGS.items()):
        if str(index) not in args.configs.split(","):
            continue
        with tempfile.TemporaryDirectory() as work:
            subprocess.run([*slmboard, "suites", "download", "--sample", "--to", "suite-data"], cwd=work, env=env,
                           check=True, capture_output=True)
            load = os.getloadavg()
            started = time.monotonic()
            proc = subprocess.run(lm_eval_argv(model, tasks, extra), cwd=work, env=env, capture_output=True, text=True)
            wall = time.monotonic() - started
            if proc.returncode:
                sys.exit(f"{name}: lm_eval exit {proc.returncode}\n{proc.stderr[-3000:]}")
        rows.append(f"| {name} | {' '.join(extra) or '(none)'} | {wall:.0f} | {load[0]:.1f} → {os.getloadavg()[0]:.1f} |")
        print(rows[-1], flush=True)
    import torch

    head = (f"lm-eval step of docs/guides/bring-results.md, offline: SmolLM2-135M-Instruct from `slmboard model-path`, "
            f"float32, `--limit 3` of xstest, sst, bbq (Age), the package's samples; torch {torch.__version__}, "
            f"{torch.get_num_threads()} threads, {os.cpu_count()} CPU cores ({platform.machine()}); "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n"
            "| configuration | flags added | wall s | load 1 min before → after |\n|---|---|---|---|\n")
    text = head + "\n".join(rows) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
