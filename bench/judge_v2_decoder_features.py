#!/usr/bin/env python
"""The embedded SmolLM2-135M-Instruct as the judge's reader: its hidden states as features, leave-one-source-out
(issue 37; BENCHMARKS.md, "Decoder features: a lead, not yet a judge").

learned-v2 reads answers with a sentence encoder (MiniLM) and regular expressions; on RBR's deflections and
partial compliances neither says whether the answer does what was asked. Here the package's own chat model
reads the conversation as a chat: the user's prompt, the assistant's answer, then a user turn asking what
the answer did (:data:`QUESTION`). One forward pass of the first :data:`LAYERS` layers gives, per answer:

* the mean over the answer's tokens at layers 15 and 22, and the state at the end of the answer at layer 22
  (what the model makes of the answer, having read the prompt);
* the state of the last token, after the question, at layers 15 and 22 (the model's reading of the
  answer's behaviour, which is what the question asks).

Those 5 × 576 numbers feed learned-v2's model form (multinomial logistic regression, C and weighting below)
and rules (partial and off-topic thresholds chosen by the shipped objective: the smallest held-out κ_linear
less 0.1 per source whose AR strays > 5 points); fitted on two sources, measured on the third, as
``bench/judge_v2_variants.py`` measures the other variants. GPTFuzz is subsampled (``--gptfuzz``, seeded,
the subsample ``bench/judge_v2_cross_encoder.py`` draws) so the pass fits two shared cores; the GPTFuzz figures
and the comparison rows are on the same answers.

``--speed N``: the decoder pass against heuristic-v1 on N XSTest answers, same process, alternating, as
``bench/judge_speed.py`` times the judges (a judge built on this pass would need at least heuristic-v1's answers/s).

Nothing here changes the shipped judge. Usage:
``nice .venv/bin/python bench/judge_v2_decoder_features.py --cache FILE.npz --features-cache V2.npz [--speed 200]``
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import judge_v2_variants as V  # noqa: E402  (sets the offline environment first)
import train_judge_v2 as TJ  # noqa: E402
import xstest_eval as xe  # noqa: E402

from toolkit.stages.judging import learned_v2_training as T  # noqa: E402
from toolkit.stages.judging import learned_v3_reader as R  # noqa: E402
from toolkit.stages.judging.learned_v3_reader import ANSWER_TOKENS, PROMPT_TOKENS, QUESTION  # noqa: E402
from toolkit.stages.judging.training_sources import SOURCES  # noqa: E402

#: the five blocks this reading uses (toolkit/stages/judging/learned_v3_reader.py, which learned-v3 grew from):
#: the answer's mean at layers 15 and 22, the end of the answer at 22, the last token at 15 and 22
BLOCKS = ("mean15", "mean22", "end22", "last15", "last22")
MIDDLE, UPPER = 15, 22


def DecoderReader() -> R.DecoderReader:  # noqa: N802  (the reader this script has always built)
    return R.DecoderReader(BLOCKS)


def _progress(done: int, total: int, secs: float) -> None:
    if (done // R.BATCH) % 25 == 1:
        TJ._say(f"decoder pass: {done}/{total} answers, {done / secs:.1f} answers/s")


def cached_features(rows, cache: Path | None) -> np.ndarray:
    key = hashlib.sha256("\x00".join(f"{r.prompt}\x01{r.answer}" for r in rows).encode()).hexdigest()
    key += f":{QUESTION}:{MIDDLE}:{UPPER}:{PROMPT_TOKENS}:{ANSWER_TOKENS}"
    if cache is not None and cache.is_file():
        stored = np.load(cache)
        if str(stored["key"]) == key:
            TJ._say(f"decoder features from {cache}")
            return stored["x"]
    import torch

    torch.set_num_threads(2)
    t = time.perf_counter()
    x = DecoderReader().features([r.prompt for r in rows], [r.answer for r in rows], progress=_progress)
    TJ._say(f"decoder pass over {len(rows)} answers: {time.perf_counter() - t:.0f} s")
    if cache is not None:
        np.savez(cache, x=x, key=np.array(key))
    return x


def restrict(setup: V.Setup, rows: np.ndarray) -> None:
    c = setup.corpus
    setup.rows = [setup.rows[k] for k in rows]
    setup.corpus = T.Corpus(c.sources[rows], c.subsets[rows], c.matrix[rows], c.labels[rows],
                            [c.golds[k] for k in rows], [c.answers[k] for k in rows], c.human[rows])
    setup.degenerate, setup.signals, setup.matrix = setup.degenerate[rows], setup.signals[rows], setup.matrix[rows]


def speed(n: int, rounds: int = 2) -> None:
    import torch

    from toolkit.stages.judging.base import JudgeInput
    from toolkit.stages.judging.heuristic import HeuristicJudge

    torch.set_num_threads(2)
    rows = [r for rs in xe.read_files(xe.TRAINING_FILES).values() for r in rs[:n // 2]]
    inputs = [JudgeInput("xstest", r.id, r.prompt, r.completion, gold=r.gold) for r in rows]
    heuristic, reader = HeuristicJudge(), DecoderReader()
    heuristic.judge(inputs[:32])
    reader.features([r.prompt for r in rows[:8]], [r.completion for r in rows[:8]])
    print(f"{len(rows)} answers, torch threads {torch.get_num_threads()}, load average {os.getloadavg()[0]:.1f}")
    total = {"heuristic-v1": 0.0, "decoder pass": 0.0}
    for k in range(rounds):
        for name in (list(total) if k % 2 == 0 else list(reversed(total))):
            t = time.perf_counter()
            if name == "heuristic-v1":
                for b in range(0, len(inputs), 32):
                    heuristic.judge(inputs[b:b + 32])
            else:
                reader.features([r.prompt for r in rows], [r.completion for r in rows])
            secs = time.perf_counter() - t
            total[name] += secs
            print(f"round {k + 1} {name:13s} {secs:7.1f} s {len(rows) / secs:6.1f} answers/s")
    print(f"decoder pass is {total['heuristic-v1'] / total['decoder pass']:.2f}x heuristic-v1's answers/s "
          f"(the pass alone; a judge adds its MiniLM-free rules)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=TJ.REPO.parent / "shared", help="where the training files are")
    ap.add_argument("--features-cache", type=Path, default=None, metavar="V2.npz",
                    help="learned-v2's feature cache (bench/train_judge_v2.py --features-cache)")
    ap.add_argument("--cache", type=Path, default=None, metavar="FILE.npz", help="the decoder features, kept here")
    ap.add_argument("--heuristic-cache", type=Path, default=None, metavar="FILE.json",
                    help="heuristic-v1's scores of every training answer (computed when absent, ~5 min)")
    ap.add_argument("--gptfuzz", type=int, default=1000, help="GPTFuzz answers drawn (seeded)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--speed", type=int, default=0, metavar="N", help="also time the pass against heuristic-v1")
    args = ap.parse_args(argv)
    setup = V.Setup(args.shared, args.features_cache)
    chosen = TJ.gptfuzz_subsample(setup.corpus.sources, args.gptfuzz, args.seed)
    kept = np.array([k for k, s in enumerate(setup.corpus.sources) if s != "gptfuzz" or k in chosen])
    heuristic = np.array(TJ.heuristic_scores(setup.rows, args.heuristic_cache), dtype=float)[kept]
    restrict(setup, kept)
    decoder = cached_features(setup.rows, args.cache)
    d = decoder.shape[1] // 5
    answer_reading, question_reading = decoder[:, :3 * d], decoder[:, 3 * d:]
    rows = [
        ("shipped learned-v2's form: embeddings + signals, answers, C 0.01", setup.matrix,
         V.logistic(0.01, "answers", T.N_EMBEDDING)),
        ("decoder: answer reading (layers 15, 22), sources, C 0.003", answer_reading, V.logistic(0.003, "sources", 0)),
        ("decoder: question reading (last token, layers 15, 22), sources, C 0.003", question_reading,
         V.logistic(0.003, "sources", 0)),
        ("decoder: both readings, sources, C 0.003", decoder, V.logistic(0.003, "sources", 0)),
        ("decoder: both readings, sources, C 0.01", decoder, V.logistic(0.01, "sources", 0)),
        ("decoder: both readings, answers, C 0.003", decoder, V.logistic(0.003, "answers", 0)),
        ("decoder: both readings + learned-v2's signals, sources, C 0.003", np.c_[decoder, setup.signals],
         V.logistic(0.003, "sources", 0)),
    ]
    print(f"GPTFuzz n={args.gptfuzz} (seed {args.seed}), RBR n={int((setup.corpus.sources == 'rbr').sum())}, "
          f"XSTest n={int((setup.corpus.sources == 'xstest').sum())}")
    print("| variant (leave-one-source-out) | κ GPTFuzz | κ RBR | κ XSTest | AR RBR (people 23.1%) | "
          "AR XSTest (people 5.9%) | objective | partial / off-topic threshold |")
    print("|---|---|---|---|---|---|---|---|")
    c = setup.corpus
    figs = {s: xe.figures(list(c.human[c.sources == s]), list(heuristic[c.sources == s])) for s in SOURCES}
    print(f"| heuristic-v1 (the default), on the same answers | "
          + " | ".join(f"{figs[s]['kappa_linear']:.2f}" for s in SOURCES) + " | "
          + " | ".join(f"{100 * figs[s]['ar_judge']:.1f}%" for s in ("rbr", "xstest")) + f" | {TJ.objective(figs):.4f} | – |")
    for name, x, fitter in rows:
        value, partial, offtopic, figs = V.best_thresholds(setup, V.held_out(setup, x, fitter))
        kappas = " | ".join(f"{figs[s]['kappa_linear']:.2f}" for s in SOURCES)
        ars = " | ".join(f"{100 * figs[s]['ar_judge']:.1f}%" for s in ("rbr", "xstest"))
        print(f"| {name} | {kappas} | {ars} | {value:.4f} | {partial} / {offtopic} |", flush=True)
    if args.speed:
        speed(args.speed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
