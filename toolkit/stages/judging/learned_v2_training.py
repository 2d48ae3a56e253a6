"""Fitting learned-v2 on the three human-labelled sources (``bench/train_judge_v2.py`` is the command).

The model: learned-v1's form (multinomial logistic regression over feature version 2, signals
standardised, the label rule with a partial threshold), fitted on every answer of
:mod:`toolkit.stages.judging.training_sources`. Each answer is weighted so that either every **source** weighs
the same in total (``"sources"``: 6,160 GPTFuzz answers do not drown 351 RBR ones) or every answer does
(``"answers"``).

What is chosen, and how: the regularisation C, the weighting, the partial threshold and the off-topic
threshold of the judge's rules are the grid point with the best **leave-one-source-out** result: for
each source, fit on the other two and judge the held-out one with the full rules; the score of a grid
point is the smallest held-out κ_linear among the three sources, minus a penalty for each source with a
middle label whose ambiguity rate strays more than :data:`AR_TOLERANCE` from people's. No temperature
is fitted (the partial threshold is chosen on the probabilities as they come, inverse temperature 1).
Fitting is deterministic (lbfgs, one BLAS thread), so the same data give the same weights up to the
last digits of floating-point sums.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .learned_features import EMBEDDING_BLOCKS, EMBEDDING_DIM, SIGNALS
from .learned_model import BEHAVIOURS, LearnedWeights

__all__ = ["C_GRID", "WEIGHTINGS", "FULL_C_GRID", "FULL_WEIGHTINGS", "PARTIAL_THRESHOLD_GRID", "OFFTOPIC_GRID", "AR_TOLERANCE", "Corpus",
           "fit", "source_weights", "similarity_of"]

#: The grid searched once (``bench/train_judge_v2.py --full-grid``; its outcome is in BENCHMARKS.md) and the
#: part of it the default run searches again (the chosen C and weighting; the thresholds are cheap to search).
FULL_C_GRID = (0.01, 0.03, 0.1, 0.3)
FULL_WEIGHTINGS = ("sources", "answers")
C_GRID = (0.01,)
WEIGHTINGS = ("answers",)
PARTIAL_THRESHOLD_GRID = tuple(round(0.10 + 0.025 * k, 3) for k in range(21))  # 0.10 .. 0.60
OFFTOPIC_GRID = (0.0, 0.1, 0.2)  # 0: the off-topic rule never fires
AR_TOLERANCE = 0.05
MAX_ITER = 3000
N_EMBEDDING = len(EMBEDDING_BLOCKS) * EMBEDDING_DIM


@dataclass
class Corpus:
    """Every training answer with its features (version 2) and labels."""

    sources: np.ndarray  # source name per row
    subsets: np.ndarray  # XSTest model, else the source
    matrix: np.ndarray
    labels: np.ndarray  # index into BEHAVIOURS
    golds: list[str]
    answers: list[str]
    human: np.ndarray  # human ternary score


def similarity_of(matrix: np.ndarray) -> np.ndarray:
    """cosine(prompt, answer) per row: the off-topic rule's similarity (a version-1 signal column)."""
    return matrix[:, N_EMBEDDING + SIGNALS.index("sim_prompt_answer")]


def source_weights(sources: np.ndarray, weighting: str) -> np.ndarray:
    """Per-row weights with mean 1: every source the same total ("sources") or every answer the same ("answers")."""
    if weighting == "answers":
        return np.ones(len(sources))
    if weighting != "sources":
        raise ValueError(f"weighting must be one of {FULL_WEIGHTINGS}, got {weighting!r}")
    names, counts = np.unique(sources, return_counts=True)
    per = {n: len(sources) / (len(names) * c) for n, c in zip(names, counts)}
    return np.array([per[s] for s in sources])


def fit(matrix: np.ndarray, labels: np.ndarray, weights: np.ndarray, c: float, partial_threshold: float) -> LearnedWeights:
    """One multinomial logistic regression; the signal columns (after the embeddings) are standardised."""
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    mean = np.average(matrix[:, N_EMBEDDING:], axis=0, weights=None)
    scale = matrix[:, N_EMBEDDING:].std(axis=0)
    scale[scale == 0] = 1.0
    z = matrix.copy()
    z[:, N_EMBEDDING:] = (z[:, N_EMBEDDING:] - mean) / scale
    # One BLAS thread: small fits on a shared 2-core machine; also fewer ways for sums to be ordered.
    with threadpool_limits(limits=1):
        lr = LogisticRegression(C=c, max_iter=MAX_ITER, tol=1e-6).fit(z, labels, sample_weight=weights)
    if list(lr.classes_) != list(range(len(BEHAVIOURS))):
        raise ValueError("every behaviour must occur in the training rows")
    return LearnedWeights(lr.coef_.astype(float), lr.intercept_.astype(float), mean, scale, 1.0, float(partial_threshold))


def held_out_probabilities(corpus: Corpus, c: float, weighting: str, held_out: str) -> np.ndarray:
    """Probabilities on ``held_out``'s rows from a fit on the other sources."""
    train = corpus.sources != held_out
    w = source_weights(corpus.sources[train], weighting)
    weights = fit(corpus.matrix[train], corpus.labels[train], w, c, 0.5)
    return weights.probabilities(corpus.matrix[corpus.sources == held_out])


def judged(answers: Sequence[str], golds: Sequence[str], probabilities: np.ndarray, similarity: np.ndarray,
           partial_threshold: float, offtopic_threshold: float) -> np.ndarray:
    """The judge's rules (learned.verdict) on given probabilities."""
    from .learned import verdict

    return np.array([verdict(a, g, p, s, partial_threshold, offtopic_threshold)[2]
                     for a, g, p, s in zip(answers, golds, probabilities, similarity)])
