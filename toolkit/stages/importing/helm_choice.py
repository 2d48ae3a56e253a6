"""HELM multiple-choice runs (``method=multiple_choice_joint``, e.g. BBQ): the question, the chosen option, HELM's score.

- A request state with an ``output_mapping`` (letter → option text, in the order HELM lettered the
  options) is a multiple-choice question. The row's prompt is HELM's whole request prompt
  (instructions, passage, lettered options, ``Answer:``); the instance's parts (passage and question
  from ``instance.input.text``, options from ``instance.references``) are kept, so a suite that words
  its items from them (BBQ) matches the row when the request prompt is worded otherwise (HELM's
  output-format instructions, in-context examples).
- The answer: the completion HELM scores (the most likely one), read by slmboard's rule
  (:func:`toolkit.core.choices.parse_choice` over HELM's letters) and mapped through ``output_mapping`` to the
  option's text; the importer turns that text into the suite's letter (``choice``), so HELM's option
  order never matters.
- HELM's own per-instance correctness, ``exact_match`` in ``per_instance_stats.json`` (HELM's reading:
  the stripped completion must be a letter of the mapping), becomes the judge ``helm:exact_match``
  (1 right, 0 wrong), so ``slmboard agreement`` can compare it with slmboard's ``bbq`` judge.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from toolkit.core.choices import parse_choice
from .base import ChoiceQuestion, fail

EXACT_MATCH_JUDGE = "helm:exact_match"
QUESTION_PREFIX = "\nQuestion: "  # HELM's PassageQuestionInput joins passage and question with it


def best_completion(completions: list[dict]) -> dict:
    """The completion HELM's metrics score: the most likely one (HELM sorts by log-probability; ties keep order)."""
    return sorted(completions, key=lambda c: -float(c.get("logprob") or 0.0))[0]


def choice_question(rs: dict, completion: str, path: Path, n: int) -> Optional[ChoiceQuestion]:
    """The multiple-choice question of request state ``n`` (1-based), or None when it is not one."""
    mapping = rs.get("output_mapping")
    if not mapping:
        return None
    at = f"request_states[{n - 1}]"
    if not isinstance(mapping, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
        raise fail(path, n, f"{at}.output_mapping", "expected an object of option letter → option text")
    instance = rs.get("instance") or {}
    references = instance.get("references") or []
    options = [((ref or {}).get("output") or {}).get("text") for ref in references]
    if not all(isinstance(o, str) for o in options):
        raise fail(path, n, f"{at}.instance.references", "an option without output.text")
    passage, sep, question = instance["input"]["text"].rpartition(QUESTION_PREFIX)
    if not sep:  # a question without a passage (HELM's plain Input)
        passage, question = "", instance["input"]["text"]
    letter = parse_choice(completion, tuple(k for k in mapping if len(k) == 1 and k.isupper()) or tuple(mapping))
    return ChoiceQuestion(passage, question, tuple(options), mapping.get(letter) if letter else None)


def request_prompt(rs: dict, path: Path, n: int) -> str:
    prompt = (rs.get("request") or {}).get("prompt")
    if not isinstance(prompt, str):
        raise fail(path, n, f"request_states[{n - 1}].request.prompt", "missing or not text")
    return prompt


def exact_match_by_instance(folder: Path) -> dict[str, float]:
    """instance id → HELM's ``exact_match`` of its first train trial, unperturbed; {} without per_instance_stats.json."""
    path = folder / "per_instance_stats.json"
    if not path.is_file():
        return {}
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise fail(path, exc.lineno, None, f"not valid JSON ({exc.msg}); truncated?") from exc
    if not isinstance(entries, list):
        raise fail(path, None, None, "expected a list of per-instance stats")
    out: dict[str, float] = {}
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("train_trial_index", 0) != 0 or entry.get("perturbation"):
            continue
        for stat in entry.get("stats") or []:
            name = stat.get("name") or {}
            if name.get("name") == "exact_match" and not name.get("perturbation"):
                value = stat.get("mean", stat.get("sum"))
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise fail(path, None, f"[{n}].stats.exact_match.mean", f"expected a number, got {value!r}")
                out[str(entry.get("instance_id"))] = float(value)
    return out


def exact_match_files(folder: Path) -> list[Path]:
    path = folder / "per_instance_stats.json"
    return [path] if path.is_file() else []

