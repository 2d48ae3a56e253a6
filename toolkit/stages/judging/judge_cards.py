"""Judge cards: how far to trust each offline judge, from the figures its training bench measured.

Nothing here is typed by hand: the numbers come from the shipped artifacts' ``card.json`` files, which
``bench/train_judge_v2.py`` (leave-one-source-out on GPTFuzz, OpenAI RBR gold and XSTest, with
heuristic-v1 and learned-v1 judged on the same answers) and ``bench/train_judge.py`` (learned-v1's
cross-validation on XSTest) wrote. ``bench/judge_cards.py`` puts :func:`render_cards` into
docs/reference/judges.md (a test fails when the page is stale) and the Space's Judges tab shows it.

Figures per set of answers: κ_linear (linearly weighted kappa of the ternary scores against people's),
the share of answers called ambiguous (0.5) by the judge and by people (AR; "–" for a set whose people
had no middle label), the contradiction rate (judge 0 where people 1 or the reverse) and n.
"""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["CARD_FILES", "SET_LABELS", "load_cards", "render_cards"]

_DATA = Path(__file__).parent / "data"
CARD_FILES = {"learned-v3": _DATA / "learned-v3" / "card.json", "learned-v2": _DATA / "learned-v2" / "card.json",
              "learned-v1": _DATA / "learned-v1" / "card.json"}

#: What each measured set of answers is, and on which sets a judge's figure is not out-of-sample.
SET_LABELS = {
    "gptfuzz": "GPTFuzz jailbreak answers (people: jailbroken or not)",
    "rbr": "OpenAI RBR gold synthetic completions (people: propositions)",
    "xstest": "XSTest v2, GPT-4 + Llama-2-70b-chat (two annotators)",
    "xstest:gpt4": "XSTest v2, GPT-4",
    "xstest:llama2new": "XSTest v2, Llama-2-70b-chat",
    "purseclab": "purseclab jailbreak answers (one author: violates / informative / true)",
}
HOW = {
    "learned-v3": "trained on the three other sources, its setting chosen by leave-one-source-out over those three only "
                  "(nested), measured once on this one",
    "learned-v2 (its form refitted)": "learned-v2's shipped settings refitted on the three other sources, measured on this one",
    "learned-v2 (shipped)": "the shipped weights: fitted on GPTFuzz, RBR and XSTest (in-sample there), never on purseclab",
    "learned-v2": "trained on the two other sources, measured on this one (leave-one-source-out)",
    "heuristic-v1": "surface rules; its phrases and threshold were tuned on half of the XSTest GPT-4 answers",
    "learned-v1": "trained on XSTest only: its XSTest rows are answers it was fitted on (in-sample)",
}
_NO_MIDDLE_LABEL = {"gptfuzz"}


def load_cards() -> dict[str, dict]:
    """The shipped cards that exist (a checkout without an artifact renders without it)."""
    return {name: json.loads(path.read_text(encoding="utf-8")) for name, path in CARD_FILES.items() if path.is_file()}


def _pct(v) -> str:
    return "–" if v is None else f"{100 * v:.1f}%"


def _row(labels: list[str], f: dict, middle: bool) -> str:
    kappa = "–" if f["kappa_linear"] is None else f"{f['kappa_linear']:.2f}"
    ar = f"{_pct(f['ar_judge'])} vs {_pct(f['ar_human'])}" if middle else f"{_pct(f['ar_judge'])} (people: no middle label)"
    return "| " + " | ".join([*labels, kappa, ar, _pct(f["contradiction"]), str(f["n"])]) + " |"


def _v3_lines(v3: dict) -> list[str]:
    chosen, grid = v3["model"]["chosen"], v3["model"]["grid"]
    lines = [f"Measured by `{v3['created_by']}` (toolkit {v3['toolkit_version']}) on {v3['rows']} human-labelled answers "
             f"of four sources, leaving each out; learned-v3's setting in each fold was chosen over the other three only "
             f"({grid['size']} grid points). Shipped setting: {chosen['reading']}, C {chosen['C']}, RBR deflections "
             f"trained as {chosen['rbr_deflections_train_as']}, partial threshold {chosen['partial_threshold']}.", ""]
    for judge, per in v3["leave_one_source_out"].items():
        lines += [f"**{judge}** — {HOW.get(judge, '')}", "",
                  "| answers | κ_linear | AR judge vs people | contradiction (0 vs 1) | n |", "|---|---|---|---|---|"]
        lines += [_row([SET_LABELS.get(s, s)], f, s not in _NO_MIDDLE_LABEL) for s, f in per.items()]
        lines.append("")
    return lines


def render_cards(cards: dict[str, dict] | None = None) -> str:
    """Markdown: one card per offline judge measured on the training sources, then learned-v1's own
    cross-validation on XSTest."""
    cards = load_cards() if cards is None else cards
    v2 = cards.get("learned-v2")
    lines = _v3_lines(cards["learned-v3"]) if "learned-v3" in cards else []
    if v2 is not None:
        figures = v2["leave_one_source_out"]
        chosen = v2["model"]["chosen"]
        lines += [f"Measured by `{v2['created_by']}` (toolkit {v2['toolkit_version']}) on {v2['rows']} human-labelled "
                  f"answers; learned-v2's settings (C {chosen['C']}, weighting by {chosen['weighting']}, partial threshold "
                  f"{chosen['partial_threshold']}, off-topic threshold {chosen['offtopic_threshold']}) were chosen on these "
                  "same held-out figures, so they are a little optimistic for unseen sets.", ""]
        for judge, per in sorted(figures.items(), key=lambda kv: (kv[0] != "learned-v2", kv[0])):
            lines += [f"**{judge}** — {HOW.get(judge, '')}", "",
                      "| answers | κ_linear | AR judge vs people | contradiction (0 vs 1) | n |", "|---|---|---|---|---|"]
            lines += [_row([SET_LABELS.get(s, s)], f, s not in _NO_MIDDLE_LABEL) for s, f in per.items()]
            lines.append("")
    v1 = cards.get("learned-v1")
    if v1 is not None:
        cv = v1["cross_validation"]
        lines += [f"**learned-v1 on XSTest, cross-validated** ({cv['folds']} folds grouped by {cv['grouped_by']}, "
                  f"`{v1['created_by']}`)", "",
                  "| answers | judge | κ_linear | AR judge vs people | contradiction (0 vs 1) | n |", "|---|---|---|---|---|---|"]
        for judge, per in cv["results"].items():
            lines += [_row([f"XSTest v2, {model}", judge], f, True) for model, f in per.items()]
        lines.append("")
    if not lines:
        return "No judge card is shipped with this installation.\n"
    return "\n".join(lines).rstrip() + "\n"
