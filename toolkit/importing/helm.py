"""``helm``: HELM run folders (``run_spec.json`` + ``scenario_state.json``), or ``benchmark_output/runs/<suite>/``.

SOURCE is one run folder, or a folder holding run folders (every sub-folder with a ``run_spec.json``).
All runs must be of one model.

- Scenario → suite: the run name's scenario (``harm_bench:model=...`` → ``harm_bench``) through
  SCENARIO_SUITES (harm_bench → harmbench, simple_safety_tests → sst, xstest, air_bench_2024 →
  airbench, bbq); any other scenario needs ``--suite``.
- Each request state of the first train trial is one row: ``instance.input.text`` (the scenario's
  prompt, before HELM's adapter adds prefixes) and ``result.completions[0].text``; ``instance.id``
  is kept as ``source_id``. Items match on the prompt text.
- Every model-as-judge result in ``annotations`` is a judge ``helm:<annotator>:<judge model>``: an
  annotator's ``<short>_score`` / ``<short>_reasoning`` pairs (crfm-helm 0.5.x writes ``gpt_*`` and
  ``llama_*``; 0.5.16 only ``gpt_*``), the judge model read from JUDGE_MODELS (HELM does not record it;
  ``--helm-version`` picks the table by its longest prefix, e.g. ``0.5.16`` → ``0.5``; default the newest).
  0 / 0.5 / 1 kept, the reasoning in ``judge_raw``; a missing or unparseable score is a ``parse_error``, never
  0.5, and so is a number off that scale (HELM keeps any float its regex finds, e.g. 7.0 from a judge that
  answered on a 1-10 scale). An annotation without ``*_score`` keys is refused.
- HELM writes no version into a run folder: the provenance's tool version is ``--helm-version`` when given.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional

from schemas import TERNARY_SCORES

from .base import ParsedSource, SourceRow, Verdict, fail, require_files

SCENARIO_SUITES = {"harm_bench": "harmbench", "simple_safety_tests": "sst", "xstest": "xstest",
                   "air_bench_2024": "airbench", "bbq": "bbq"}
#: HELM version (prefix) → the judge model behind each short name of its safety annotators (HELM's own
#: model names; HELM writes only the short name into the annotation). crfm-helm 0.5.x:
#: helm/benchmark/annotation/model_as_judge.py, SHORT_NAME_TO_MODEL_INFO (read in 0.5.16, which has dropped
#: "llama"; older 0.5.x runs have both).
JUDGE_MODELS = {
    "0.5": {"gpt": "openai/gpt-4o-2024-05-13", "llama": "meta/llama-3.1-405b-instruct-turbo"},
}
DEFAULT_VERSION = "0.5"
_SCORE_KEY = re.compile(r"^(?P<short>[a-z0-9]+)_score$")


def _run_folders(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if not p.is_dir():
            raise fail(p, None, None, "expected a HELM run folder (with run_spec.json and scenario_state.json) or a folder of them")
        if (p / "run_spec.json").is_file():
            out.append(p)
            continue
        found = sorted(q.parent for q in p.glob("*/run_spec.json"))
        if not found:
            raise fail(p, None, None, "no run_spec.json here or in its sub-folders: not a HELM run folder")
        out.extend(found)
    return out


def _load(path: Path) -> Any:
    if not path.is_file():
        raise fail(path, None, None, "missing (HELM writes scenario_state.json only when the run finished)")
    if path.stat().st_size == 0:
        raise fail(path, None, None, "file is empty")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise fail(path, exc.lineno, None, f"not valid JSON ({exc.msg}); truncated?") from exc


def scenario_of(run_spec: dict) -> str:
    return str(run_spec.get("name", "")).split(":", 1)[0]


def version_table(version: str) -> Optional[str]:
    """The JUDGE_MODELS key for a HELM version: the longest key that is the version or a dotted prefix of it."""
    keys = [k for k in JUDGE_MODELS if version == k or version.startswith(k + ".")]
    return max(keys, key=len) if keys else None


def judge_model(short: str, version: str) -> str:
    return JUDGE_MODELS.get(version, {}).get(short, f"{short}-unknown-model")


def score_verdict(annotation: dict, short: str) -> Verdict:
    """``<short>_score`` 0 / 0.5 / 1 kept; anything else (missing, None, text, 0.7) is a parse_error."""
    # A reply HELM could not parse keeps its text in <short>_response_text (reasoning and score None).
    texts = [annotation.get(f"{short}_reasoning"), annotation.get(f"{short}_response_text")]
    raw = next((t for t in texts if isinstance(t, str)), None)
    value = annotation.get(f"{short}_score")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return Verdict(None, raw, f"{short}_score is {value!r}, not a number (the judge's reply did not parse)")
    if float(value) not in TERNARY_SCORES:
        return Verdict(None, raw, f"{short}_score {value!r} is not 0, 0.5 or 1")
    return Verdict(float(value), raw)


def _judgments(annotations: Any, path: Path, n: int, version: str) -> dict[str, tuple[dict, str]]:
    out: dict[str, tuple[dict, str]] = {}
    if annotations is None:
        return out
    if not isinstance(annotations, dict):
        raise fail(path, n, f"request_states[{n - 1}].annotations", "expected an object of annotator → result")
    for annotator, result in annotations.items():
        if not isinstance(result, dict):
            raise fail(path, n, f"request_states[{n - 1}].annotations.{annotator}", "expected an object")
        shorts = sorted({m.group("short") for k in result if (m := _SCORE_KEY.match(k))}
                        | {k[: -len("_reasoning")] for k in result if k.endswith("_reasoning")})
        if not shorts:
            raise fail(path, n, f"request_states[{n - 1}].annotations.{annotator}",
                       f"no <judge>_score keys (keys: {', '.join(result) or 'none'}); not a model-as-judge annotation")
        for short in shorts:
            out[f"helm:{annotator}:{judge_model(short, version)}"] = (result, short)
    return out


def _rows(folder: Path, suite: Optional[str], version: str) -> tuple[list[SourceRow], dict]:
    run_spec = _load(folder / "run_spec.json")
    state_path = folder / "scenario_state.json"
    state = _load(state_path)
    if not isinstance(run_spec, dict) or "adapter_spec" not in run_spec:
        raise fail(folder / "run_spec.json", None, "adapter_spec", "not a HELM run_spec.json")
    if not isinstance(state, dict) or not isinstance(state.get("request_states"), list):
        raise fail(state_path, None, "request_states", "not a HELM scenario_state.json")
    rows = []
    for n, rs in enumerate(state["request_states"], start=1):
        if rs.get("train_trial_index", 0) != 0:
            continue
        at = f"request_states[{n - 1}]"
        text = ((rs.get("instance") or {}).get("input") or {}).get("text")
        if not isinstance(text, str):
            raise fail(state_path, n, f"{at}.instance.input.text", "missing or not text")
        completions = (rs.get("result") or {}).get("completions")
        if not completions or not isinstance(completions[0].get("text"), str):
            raise fail(state_path, n, f"{at}.result.completions", "no completion text (did the request fail?)")
        row = SourceRow(where=f"{state_path}:{n}", prompt=text, response=completions[0]["text"], suite=suite,
                        source_id=rs["instance"].get("id"), metadata={"helm_run": run_spec.get("name")})
        if completions[0].get("finish_reason"):
            reason = completions[0]["finish_reason"]
            row.finish_reason = str(reason.get("reason") if isinstance(reason, dict) else reason)
        for judge, value in _judgments(rs.get("annotations"), state_path, n, version).items():
            row.judgments[judge] = value
        rows.append(row)
    if not rows:
        raise fail(state_path, None, "request_states", "no request states")
    return rows, run_spec["adapter_spec"]


def parse(paths: list[str | Path], helm_version: Optional[str] = None) -> ParsedSource:
    version = version_table(helm_version or DEFAULT_VERSION)
    if version is None:
        raise fail(paths[0] if paths else "(no source)", None, "helm_version",
                   f"unknown HELM version {helm_version!r}; known: {', '.join(JUDGE_MODELS)} (and their x.y.z releases)",
                   param="helm_version")
    folders = _run_folders(require_files(paths, (), "a HELM run folder"))
    rows: list[SourceRow] = []
    specs = []
    for folder in folders:
        spec = _load(folder / "run_spec.json")
        folder_rows, adapter = _rows(folder, SCENARIO_SUITES.get(scenario_of(spec if isinstance(spec, dict) else {})), version)
        rows.extend(folder_rows)
        specs.append((folder, adapter))
    models = {a.get("model") for _, a in specs}
    if len(models) > 1:
        raise fail(folders[0], None, "adapter_spec.model", f"runs of {len(models)} models ({', '.join(sorted(map(str, models)))}); import one model at a time")
    adapter = specs[0][1]
    judges = sorted({j for r in rows for j in r.judgments})
    # Each annotator judges its own scenario only: "suites" tells submit not to expect this judge elsewhere.
    info = {j: {"annotator": j.split(":")[1], "judge_model": j.split(":", 2)[2], "helm_version_table": version,
                "suites": sorted({r.suite for r in rows if j in r.judgments and r.suite}),
                "note": "judge model from slmboard's table of HELM versions (HELM records only the short name)"} for j in judges}
    model = adapter.get("model")
    return ParsedSource(
        format="helm", rows=rows, scales={j: _scale for j in judges}, tool="crfm-helm", tool_version=helm_version,
        model_id=model if isinstance(model, str) and model.count("/") == 1 else None,
        generation={"temperature": adapter.get("temperature"), "max_new_tokens": adapter.get("max_tokens"),
                    "do_sample": None if adapter.get("temperature") is None else adapter.get("temperature") > 0},
        files=[f for folder, _ in specs for f in (folder / "run_spec.json", folder / "scenario_state.json")], judge_info=info,
    )


def _scale(value: Any, gold: Optional[str] = None) -> Verdict:
    annotation, short = value
    return score_verdict(annotation, short)
