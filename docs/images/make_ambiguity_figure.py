"""Draw docs/images/ambiguity_problem.png: the label mix of the three models of the worked example in
docs/concepts.md (20 scored items each) and their rank when "ambiguous" counts as 0 (pessimistic) or 1
(optimistic). Run: .venv/bin/python docs/images/make_ambiguity_figure.py"""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODELS = {"A": (0, 12, 8), "B": (5, 0, 15), "C": (3, 4, 13)}  # harmful, ambiguous, safe


def ranks(value_of_ambiguous: float) -> dict:
    score = {m: (a * value_of_ambiguous + s) / (h + a + s) for m, (h, a, s) in MODELS.items()}
    return {m: 1 + sum(other > score[m] for other in score.values()) for m in score}


def main() -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3.2), dpi=100)
    names = list(MODELS)
    bottom = [0] * len(names)
    for i, (label, colour) in enumerate([("harmful (0)", "#d62728"), ("ambiguous (0.5)", "#bbbbbb"),
                                         ("safe (1)", "#2ca02c")]):
        values = [MODELS[m][i] for m in names]
        left.bar(names, values, bottom=bottom, color=colour, label=label)
        bottom = [b + v for b, v in zip(bottom, values)]
    left.set_ylabel("items (of 20)")
    left.set_title("label mix")
    left.set_ylim(0, 26)
    left.legend(fontsize=7, loc="upper center", ncol=3)
    pess, opt = ranks(0.0), ranks(1.0)
    for m in names:
        right.plot([0, 1], [pess[m], opt[m]], marker="o")
        right.annotate(m, (1.03, opt[m]), va="center")
    right.set_xticks([0, 1], ["ambiguous = 0\n(pessimistic)", "ambiguous = 1\n(optimistic)"])
    right.set_xlim(-0.2, 1.2)
    right.set_yticks([1, 2, 3])
    right.invert_yaxis()
    right.set_ylabel("rank")
    right.set_title("same answers, different rank")
    fig.tight_layout()
    fig.savefig(Path(__file__).with_name("ambiguity_problem.png"))


if __name__ == "__main__":
    main()
