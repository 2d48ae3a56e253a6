"""Safety-Flag's released formulas (yibo-hu-lab/safety-flag-benchmark @ d0da355: analysis/build_leaderboard.py,
analysis/rigor_analysis.py), written out independently with plain loops, for the tests' expected values."""
from __future__ import annotations

import math

import numpy as np


def loop_ece(conf, correct):
    """Equal-width ECE, bin i = (i/10, (i+1)/10], bin 0 also holding 0 (plain loops)."""
    edges = np.linspace(0, 1, 11)
    total, n = 0.0, len(conf)
    for i in range(10):
        members = [j for j, c in enumerate(conf) if (edges[i] < c <= edges[i + 1]) or (i == 0 and c == 0)]
        if members:
            acc = sum(correct[j] for j in members) / len(members)
            mean_conf = sum(conf[j] for j in members) / len(members)
            total += len(members) / n * abs(acc - mean_conf)
    return total


def loop_risks(conf, correct):
    """Cumulative error rate along the release's order (np.argsort(-conf))."""
    order = np.argsort(-np.asarray(conf, dtype=float))
    errors, risks = 0, []
    for k, i in enumerate(order, start=1):
        errors += 0 if correct[i] else 1
        risks.append(errors / k)
    return risks


def loop_aurc(conf, correct):
    risks, n = loop_risks(conf, correct), len(conf)
    return sum((risks[k] + risks[k + 1]) / 2 * (1 / n) for k in range(n - 1))


def loop_risk_at(conf, correct, c):
    return loop_risks(conf, correct)[max(1, int(round(c * len(conf)))) - 1]


def loop_temperature_scaling(y, p, correct, seed=0, splits=20):
    """rigor_analysis.py B1.4 written out: default_rng(SEED + 100) permutations, first half fits T on
    linspace(0.3, 20, 800) by NLL (logits clipped at 1e-6, probabilities at 1e-9), second half scores."""
    y, p, correct = np.asarray(y, float), np.asarray(p, float), np.asarray(correct, float)
    pc = np.clip(p, 1e-6, 1 - 1e-6)
    z = np.log(pc / (1 - pc))
    rng = np.random.default_rng(seed + 100)
    grid = np.linspace(0.3, 20.0, 800)
    temps, pre, post = [], [], []
    for _ in range(splits):
        perm = rng.permutation(len(y))
        fit, held = perm[: len(y) // 2], perm[len(y) // 2:]
        best, best_t = float("inf"), None
        for t in grid:
            nll = 0.0
            for i in fit:
                q = 1 / (1 + math.exp(-z[i] / t))
                nll -= math.log(max(q, 1e-9)) if y[i] else math.log(max(1 - q, 1e-9))
            if nll / len(fit) < best:
                best, best_t = nll / len(fit), t
        q_held = [1 / (1 + math.exp(-z[i] / best_t)) for i in held]
        pre.append(loop_ece([max(p[i], 1 - p[i]) for i in held], [correct[i] for i in held]))
        post.append(loop_ece([max(q, 1 - q) for q in q_held], [correct[i] for i in held]))
        temps.append(best_t)
    ratios = [a / b for a, b in zip(pre, post) if b > 1e-9]
    return {"temperature": np.mean(temps), "temperature_sd": np.std(temps, ddof=1), "ece_heldout": np.mean(pre),
            "ece_scaled": np.mean(post), "ts_reduction": np.mean(ratios)}
