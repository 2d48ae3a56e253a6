"""HELM's model-as-judge annotations → judges ``helm:<annotator>:<judge model>``; the judge model is never guessed.

crfm-helm's safety annotators write ``<key>_score`` / ``<key>_reasoning`` pairs, ``<key>`` a short name
of the judge: ``gpt`` and ``llama`` in the 0.5.x releases (0.5.16 only ``gpt``); HELM's main branch of
August 2024 also wrote ``claude``. HELM does not record which model a key stands for, so it comes from
JUDGE_MODELS (the table of the release ``helm_version`` names, by its longest dotted prefix) or from
``judge_models`` ("KEY=MODEL", repeatable, which also overrides the table). A key that neither names is
refused, naming the key and the option: an invented name would be published on the leaderboard.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from schemas import TERNARY_SCORES

from .base import ImportRefused, Verdict, fail

#: HELM version (prefix) → the judge model behind each short name of its safety annotators (HELM's own
#: model names). crfm-helm 0.5.x: helm/benchmark/annotation/model_as_judge.py, SHORT_NAME_TO_MODEL_INFO
#: (read in 0.5.16, which has dropped "llama"; older 0.5.x runs have both). No release wrote "claude".
JUDGE_MODELS = {
    "0.5": {"gpt": "openai/gpt-4o-2024-05-13", "llama": "meta/llama-3.1-405b-instruct-turbo"},
}
DEFAULT_VERSION = "0.5"
SCORE_KEY = re.compile(r"^(?P<key>[a-z0-9]+)_score$")
_MODEL = re.compile(r"^[A-Za-z0-9][\w.+-]*(/[A-Za-z0-9][\w.+:-]*)?$")


def version_table(version: str) -> Optional[str]:
    """The JUDGE_MODELS key for a HELM version: the longest key that is the version or a dotted prefix of it."""
    keys = [k for k in JUDGE_MODELS if version == k or version.startswith(k + ".")]
    return max(keys, key=len) if keys else None


def parse_judge_models(specs: Sequence[str] | None) -> dict[str, str]:
    """``["claude=anthropic/claude-3-5-sonnet-20240620", ...]`` → key → model; ImportRefused naming a bad one."""
    out: dict[str, str] = {}
    for spec in specs or ():
        key, eq, model = str(spec).partition("=")
        key, model = key.strip(), model.strip()
        if not eq or not re.fullmatch(r"[a-z0-9]+", key) or not _MODEL.match(model):
            raise ImportRefused(f"judge_models {spec!r}: expected KEY=MODEL, the annotation key (the part before "
                                "'_score') and the judge model, e.g. 'claude=anthropic/claude-3-5-sonnet-20240620'",
                                param="judge_models")
        if key in out and out[key] != model:
            raise ImportRefused(f"judge_models names key {key!r} twice ({out[key]!r}, {model!r})", param="judge_models")
        out[key] = model
    return out


@dataclass
class JudgeModels:
    """The judge model of each annotation key, from the release table and ``judge_models``; remembers the keys met."""

    version: str  # the JUDGE_MODELS table in use
    given: dict[str, str]  # from judge_models
    seen: set[str] = field(default_factory=set)

    def model(self, key: str, file: Path, row: int, fld: str) -> str:
        self.seen.add(key)
        if key in self.given:
            return self.given[key]
        table = JUDGE_MODELS[self.version]
        if key not in table:
            raise fail(file, row, fld, f"judge key {key!r} is not in slmboard's table of HELM {self.version} judge models "
                                       f"({', '.join(sorted(table))}) and HELM does not record which model it is; name it "
                                       f"with judge_models '{key}=ORG/MODEL'", param="judge_models")
        return table[key]

    def origin(self, key: str) -> str:
        if key in self.given:
            return "judge_models option"
        return f"slmboard's table of HELM {self.version} judge models (HELM records only the key)"

    def check_all_used(self, where: Path) -> None:
        unused = sorted(set(self.given) - self.seen)
        if unused:
            raise ImportRefused(f"judge_models names key(s) {', '.join(map(repr, unused))}, which no annotation in {where} "
                                f"has (keys there: {', '.join(sorted(self.seen)) or 'none'})", param="judge_models")


def score_verdict(annotation: dict, key: str) -> Verdict:
    """``<key>_score`` 0 / 0.5 / 1 kept; anything else (missing, None, text, 0.7) is a parse_error."""
    # A reply HELM could not parse keeps its text in <key>_response_text (reasoning and score None).
    texts = [annotation.get(f"{key}_reasoning"), annotation.get(f"{key}_response_text")]
    raw = next((t for t in texts if isinstance(t, str)), None)
    value = annotation.get(f"{key}_score")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return Verdict(None, raw, f"{key}_score is {value!r}, not a number (the judge's reply did not parse)")
    if float(value) not in TERNARY_SCORES:
        return Verdict(None, raw, f"{key}_score {value!r} is not 0, 0.5 or 1")
    return Verdict(float(value), raw)


def annotation_judgments(annotations: Any, path: Path, n: int, models: JudgeModels) -> dict[str, tuple[dict, str]]:
    """judge id → (annotation, key) for every model-as-judge result of one request state (``n``: 1-based)."""
    out: dict[str, tuple[dict, str]] = {}
    if annotations is None:
        return out
    at = f"request_states[{n - 1}].annotations"
    if not isinstance(annotations, dict):
        raise fail(path, n, at, "expected an object of annotator → result")
    for annotator, result in annotations.items():
        if not isinstance(result, dict):
            raise fail(path, n, f"{at}.{annotator}", "expected an object")
        keys = sorted({m.group("key") for k in result if (m := SCORE_KEY.match(k))}
                      | {k[: -len("_reasoning")] for k in result if k.endswith("_reasoning")})
        if not keys:
            raise fail(path, n, f"{at}.{annotator}",
                       f"no <judge>_score keys (keys: {', '.join(result) or 'none'}); not a model-as-judge annotation")
        for key in keys:
            model = models.model(key, path, n, f"{at}.{annotator}.{key}_score")
            out[f"helm:{annotator}:{model}"] = (result, key)
    return out


def annotation_scale(value: Any, gold: Optional[str] = None) -> Verdict:
    annotation, key = value
    return score_verdict(annotation, key)
