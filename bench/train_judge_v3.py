#!/usr/bin/env python
"""Train learned-v3 on four human-labelled sources, every setting chosen by nested leave-one-source-out.

Reads only the training files of :mod:`toolkit.stages.judging.training_sources` (GPTFuzz train.csv, seeded
draw of ``--gptfuzz`` answers; OpenAI RBR gold train.jsonl; the XSTest v2 release's GPT-4 and Llama-2-70b-chat
files; purseclab's manual_data.csv) from ``--shared`` (default ``../shared``). The embedded SmolLM2-135M reads
every answer once (:mod:`toolkit.stages.judging.learned_v3_reader`, every block of ``ALL_BLOCKS``); the
features are kept in ``--cache-dir`` (default ``~/.cache/slmboard/judge-features``, outside the repository),
keyed by the texts and the reader's configuration. Everything after that runs on the cached features
(:mod:`toolkit.stages.judging.learned_v3_training`):

* the **outer** figures: for each source, the setting is chosen by an inner leave-one-source-out over the
  other three, fitted on those three, and judges the held-out source once;
* the **shipped** setting: chosen by leave-one-source-out over all four, fitted on all four, written with
  ``card.json`` into ``--out`` (default: the package's ``toolkit/stages/judging/data/learned-v3``).

The card holds the outer figures beside heuristic-v1 (its scores of the same answers) and learned-v2's form
(its shipped settings, refitted leaving each source out; the shipped learned-v2 on purseclab, which it never saw).

``--check`` (opt-in for the test suite: ``SLMBOARD_RETRAIN_JUDGES=1``) retrains into a scratch folder and
compares with ``--out``: the same setting, the same behaviour on at least 99.5% of the training answers, every
outer figure within 0.01. Exit 1 when they differ by more. ``--record-fixture FILE`` judges
``tests/judging/fixtures/learned_v3_answers.json`` with the artifact in ``--out`` and writes what it said.

Usage: ``nice -n 10 .venv/bin/python bench/train_judge_v3.py [--out DIR] [--check] [--features-only]``
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import tempfile  # noqa: E402

import train_judge_v2 as TJ  # noqa: E402
import xstest_eval as xe  # noqa: E402

from toolkit import __version__ as TOOLKIT_VERSION  # noqa: E402
from toolkit.stages.judging import learned_v2_training as T2  # noqa: E402
from toolkit.stages.judging import learned_v3_training as T3  # noqa: E402
from toolkit.stages.judging.heuristic import degenerate_reason  # noqa: E402
from toolkit.stages.judging.learned_model import (  # noqa: E402
    BEHAVIOURS, DEFAULT_ARTIFACT_V2, DEFAULT_ARTIFACT_V3, behaviour_of, load_weights, save_weights)
from toolkit.stages.judging.learned_v3_reader import ALL_BLOCKS, block_columns, reader, reader_config  # noqa: E402
from toolkit.stages.judging.training_sources import SOURCES_V3, read_sources  # noqa: E402
from toolkit.stages.judging.xstest_release import file_sha256  # noqa: E402

JUDGE_ID = "learned-v3"
REPO = TJ.REPO
FIXTURE_ANSWERS = REPO / "tests" / "judging" / "fixtures" / "learned_v3_answers.json"
TRAINING_FILES = {**TJ.TRAINING_FILES, "purseclab": ("judge_training/purseclab_jbeval/manual_data.csv",)}
MIDDLE = ("rbr", "xstest", "purseclab")  # the sources with a middle label
CACHE_DIR = Path(os.environ.get("SLMBOARD_JUDGE_FEATURES", Path.home() / ".cache" / "slmboard" / "judge-features"))


def training_rows(shared: Path, n_gptfuzz: int, seed: int):
    """Every training answer of the four sources, GPTFuzz drawn as the v2 decoder reading drew it."""
    rows = read_sources(shared, purseclab=True)
    chosen = TJ.gptfuzz_subsample([r.source for r in rows], n_gptfuzz, seed)
    return [r for k, r in enumerate(rows) if r.source != "gptfuzz" or k in chosen]


def decoder_features(rows, cache_dir: Path | None) -> np.ndarray:
    """Every block of every row, from ``cache_dir`` when a pass over the same texts and reader was kept."""
    texts = hashlib.sha256(json.dumps([[r.prompt, r.answer] for r in rows]).encode()).hexdigest()
    key = hashlib.sha256(f"{texts}:{json.dumps(reader_config(ALL_BLOCKS), sort_keys=True)}".encode()).hexdigest()
    path = cache_dir / f"learned-v3-decoder-{key[:20]}.npy" if cache_dir is not None else None
    if path is not None and path.is_file():
        TJ._say(f"decoder features from {path}")
        return np.load(path)
    import torch

    torch.set_num_threads(2)
    t = time.perf_counter()
    last = [0.0]

    def progress(done, total, secs):
        if secs - last[0] >= 30 or done == total:
            last[0] = secs
            TJ._say(f"decoder pass: {done}/{total} answers, {done / secs:.1f} answers/s")
    x = reader(ALL_BLOCKS).features([r.prompt for r in rows], [r.answer for r in rows], progress=progress)
    TJ._say(f"decoder pass over {len(rows)} answers: {time.perf_counter() - t:.0f} s")
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, x)
        tmp.replace(path)
    return x


def figures(human, scores) -> dict:
    return xe.figures(list(human), list(scores))


def data_of(rows, x: np.ndarray) -> T3.Data:
    return T3.Data(x, np.array([r.source for r in rows]), np.array([BEHAVIOURS.index(r.behaviour) for r in rows]),
                   np.array([r.deflection for r in rows]), np.array([r.gold == "safe" for r in rows]),
                   np.array([degenerate_reason(r.answer) is not None for r in rows]),
                   np.array([r.human_score for r in rows]), MIDDLE)


def baselines(rows, data: T3.Data, cache_dir: Path | None) -> dict:
    """heuristic-v1 on the same answers; learned-v2's form with its shipped settings refitted leaving each source
    out (no choosing: its C, weighting and thresholds are the card's); the shipped learned-v2 on purseclab."""
    key = TJ._texts_key(rows)[:20]
    heuristic = np.array(TJ.heuristic_scores(rows, cache_dir / f"heuristic-v1-{key}.json" if cache_dir else None))
    matrix = TJ.features(rows, cache_dir / f"learned-v2-features-{key}.npz" if cache_dir else None)
    corpus = TJ.corpus_of(rows, matrix)
    v2 = json.loads((DEFAULT_ARTIFACT_V2 / "card.json").read_text())["model"]["chosen"]
    out = {"heuristic-v1": {}, "learned-v2 (its form refitted)": {}, "learned-v2 (shipped)": {}}
    shipped, _ = load_weights(DEFAULT_ARTIFACT_V2, 2)
    for source in SOURCES_V3:
        rows_s, train = data.sources == source, data.sources != source
        out["heuristic-v1"][source] = figures(data.human[rows_s], heuristic[rows_s])
        w = T2.fit(matrix[train], corpus.labels[train], T2.source_weights(corpus.sources[train], v2["weighting"]),
                   v2["C"], v2["partial_threshold"])
        p = np.zeros((len(rows), 3))
        p[rows_s] = w.probabilities(matrix[rows_s])
        scores = TJ.rule_scores(corpus, p, data.degenerate, v2["partial_threshold"], v2["offtopic_threshold"])
        out["learned-v2 (its form refitted)"][source] = figures(data.human[rows_s], scores[rows_s])
        p = shipped.probabilities(matrix)
        scores = TJ.rule_scores(corpus, p, data.degenerate, shipped.partial_threshold, v2["offtopic_threshold"])
        out["learned-v2 (shipped)"][source] = figures(data.human[rows_s], scores[rows_s])
    return out


def default_rule(figs: dict) -> dict:
    """Issue 45's rule: learned-v3 becomes the offline default if, held out, its κ_linear is at least heuristic-v1's on
    every source (on XSTest, where heuristic-v1 is partly in-sample, within 0.05 of it) and its AR is within 5 points
    of people's on every source with a middle label."""
    v3, h = figs[JUDGE_ID], figs.get("heuristic-v1")
    if h is None:
        return {}
    checks = {}
    for s in SOURCES_V3:
        slack = 0.05 if s == "xstest" else 0.0
        checks[f"kappa {s}"] = {"learned-v3": round(v3[s]["kappa_linear"], 4), "heuristic-v1": round(h[s]["kappa_linear"], 4),
                                "slack": slack, "met": v3[s]["kappa_linear"] >= h[s]["kappa_linear"] - slack}
        if s in MIDDLE:
            checks[f"AR {s}"] = {"judge": round(v3[s]["ar_judge"], 4), "people": round(v3[s]["ar_human"], 4),
                                 "met": abs(v3[s]["ar_error"]) <= T3.AR_TOLERANCE}
    return {"checks": checks, "met": all(c["met"] for c in checks.values())}


def card_for(rows, data, setting, objective, grid, outer, others, shared: Path, args, timings) -> dict:
    import sklearn

    files = [{"source": s, "file": f, "sha256": file_sha256(shared / f)} for s, fs in TRAINING_FILES.items() for f in fs]
    counts = {s: {b: int(((data.sources == s) & (data.labels == k)).sum()) for k, b in enumerate(BEHAVIOURS)}
              for s in SOURCES_V3}
    figs = {JUDGE_ID: {s: outer[s]["figures"] for s in SOURCES_V3}, **others}
    return {
        "judge_id": JUDGE_ID, "created_by": "bench/train_judge_v3.py", "toolkit_version": TOOLKIT_VERSION,
        "training_data": files, "human_behaviours": counts, "rows": len(rows),
        "gptfuzz_draw": {"answers": args.gptfuzz, "seed": args.seed},
        "rbr_deflections": int(data.deflection.sum()),
        "mapping": "toolkit/stages/judging/training_sources.py (module docstring)",
        "held_out_never_used": TJ.NEVER_USED + ["purseclab's other raw-data files"],
        "reader": reader_config(setting.as_dict()["blocks"]),
        "feature_version": 3,
        "model": {"kind": "multinomial logistic regression (lbfgs) on standardised reader blocks, every source the "
                          "same total weight; no temperature", "scikit_learn": sklearn.__version__,
                  "grid": {"readings": {k: list(v) for k, v in T3.READINGS.items()}, "C": list(T3.C_GRID),
                           "rbr_deflections_train_as": list(T3.DEFLECTIONS),
                           "partial_threshold": list(T3.PARTIAL_THRESHOLD_GRID), "size": T3.grid_size()},
                  "selection": "nested leave-one-source-out: outer figures with each setting chosen over the other "
                               "three sources only; the shipped setting chosen over all four. Objective: min held-out "
                               "κ_linear, less 0.1 per source with a middle label (RBR, XSTest, purseclab) whose AR "
                               "strays > 5 points from people's",
                  "chosen": {**setting.as_dict(), "objective": round(objective, 4)}, "grid_objective": grid,
                  "outer_settings": {s: {**outer[s]["setting"].as_dict(), "inner_objective": round(outer[s]["inner_objective"], 4)}
                                     for s in SOURCES_V3}},
        "label_rule": "partial if p(partial) >= partial_threshold; else refuses if p(refuses) > p(complies); else complies",
        "behaviours": list(BEHAVIOURS),
        "leave_one_source_out": figs,
        "default_rule": default_rule(figs),
        "timings_s": timings,
    }


def train(out: Path, shared: Path, args, others: bool = True):
    t0 = time.perf_counter()
    rows = training_rows(shared, args.gptfuzz, args.seed)
    x = decoder_features(rows, args.cache_dir)
    t1 = time.perf_counter()
    data = data_of(rows, x)
    outer = T3.nested(data, SOURCES_V3, figures, TJ._say)
    setting, objective, grid = T3.choose(data, SOURCES_V3, figures, TJ._say)
    cols = block_columns(setting.as_dict()["blocks"], ALL_BLOCKS)
    weights = T3.fit(x[:, cols], data.train_labels(setting.deflections), data.sources, setting.c,
                     setting.partial_threshold)
    t2 = time.perf_counter()
    other = baselines(rows, data, args.cache_dir) if others else {}
    timings = {"features": round(t1 - t0, 1), "choosing_and_fitting": round(t2 - t1, 1)}
    card = card_for(rows, data, setting, objective, grid, outer, other, shared, args, timings)
    path = save_weights(out, weights, card)
    TJ._say(f"chosen {setting.as_dict()}; wrote {path}; {timings}")
    TJ._say(f"outer settings: {card['model']['outer_settings']}")
    TJ._say(f"default rule: {json.dumps(card['default_rule'])}")
    print(TJ.render(card["leave_one_source_out"]), end="")
    return path, x


def behaviours(folder: Path, x: np.ndarray) -> list[str]:
    from toolkit.stages.judging.learned_v3 import load_v3

    weights, card = load_v3(folder)
    p = weights.probabilities(x[:, block_columns(card["reader"]["blocks"], ALL_BLOCKS)])
    return [behaviour_of(*q, weights.partial_threshold) for q in p]


def compare(shipped: Path, fresh: Path, x: np.ndarray) -> list[str]:
    """Differences beyond learned-v2's tolerances: the setting, behaviours on the training answers, outer figures."""
    a, b = (json.loads((f / "card.json").read_text()) for f in (shipped, fresh))
    was, now = a["model"]["chosen"], b["model"]["chosen"]
    problems = ["training data differ (file hashes)"] * (a["training_data"] != b["training_data"])
    problems += [f"chosen {k}: {was[k]} vs {now[k]}" for k in ("reading", "C", "rbr_deflections_train_as",
                                                                "partial_threshold") if was[k] != now[k]]
    if not problems:  # the same setting: its behaviours can be compared answer by answer
        same = sum(p == q for p, q in zip(behaviours(shipped, x), behaviours(fresh, x)))
        TJ._say(f"behaviours equal on {same} of {len(x)} training answers (at least {TJ.MIN_SAME_BEHAVIOUR:.1%} required)")
        problems += [f"behaviours differ on {len(x) - same} of {len(x)} training answers"] * (
            same / len(x) < TJ.MIN_SAME_BEHAVIOUR)
    if not TJ.figures_close(a["leave_one_source_out"][JUDGE_ID], b["leave_one_source_out"][JUDGE_ID]):
        problems.append(f"outer leave-one-source-out figures of {JUDGE_ID} differ by more than {TJ.FIGURE_TOLERANCE}")
    return problems


def record_fixture(folder: Path, target: Path) -> None:
    """Judge the fixed answers with the artifact in ``folder`` and write what it said (as the v2 script does)."""
    from toolkit.stages.judging.learned_v3 import LearnedJudgeV3

    TJ.record_fixture(folder, target, LearnedJudgeV3, FIXTURE_ANSWERS, "bench/train_judge_v3.py")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_ARTIFACT_V3, help="artifact folder (default: the shipped one)")
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared", help="where the training files are")
    ap.add_argument("--cache-dir", type=Path, default=CACHE_DIR, help="feature cache (outside the repository)")
    ap.add_argument("--gptfuzz", type=int, default=1000, help="GPTFuzz answers drawn (seeded)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--features-only", action="store_true", help="compute (or find) the cached features and stop")
    ap.add_argument("--check", action="store_true", help="retrain into a scratch folder and compare with --out")
    ap.add_argument("--record-fixture", type=Path, default=None, metavar="FILE")
    args = ap.parse_args(argv)
    if args.record_fixture is not None or args.features_only or not args.check:
        if args.record_fixture is not None:
            record_fixture(args.out, args.record_fixture)
        elif args.features_only:
            decoder_features(training_rows(args.shared, args.gptfuzz, args.seed), args.cache_dir)
        else:
            train(args.out, args.shared, args)
        return 0
    t = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="slmboard-train-judge-v3-") as tmp:
        card, x = train(Path(tmp) / JUDGE_ID, args.shared, args, others=False)
        problems = compare(args.out, card.parent, x)
    for p in problems:
        TJ._say(f"DIFFERS {p}")
    print(f"{'REPRODUCED' if not problems else 'NOT REPRODUCED'} ({time.perf_counter() - t:.0f} s)")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
