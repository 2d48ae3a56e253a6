"""``helm``: HELM run folders (``run_spec.json`` + ``scenario_state.json``), or ``benchmark_output/runs/<suite>/``.

SOURCE is one run folder, or a folder holding run folders (every sub-folder with a ``run_spec.json``).
All runs must be of one model.

- Scenario → suite: the run name's scenario (``harm_bench:model=...`` → ``harm_bench``) through
  SCENARIO_SUITES (harm_bench → harmbench, simple_safety_tests → sst, xstest, air_bench_2024 →
  airbench, bbq). A run folder of any other scenario (a HELM Safety folder's ``anthropic_red_team``)
  says no suite: the import refuses it naming the folder, skips it with a note (``skip_unmatched``),
  or files it under ``suite`` when that is given.
- Generation runs: each request state of the first train trial is one row, ``instance.input.text``
  (the scenario's prompt, before HELM's adapter adds prefixes) and the completion HELM scores;
  ``instance.id`` is kept as ``source_id`` (HarmBench's BehaviorID). Items match on the prompt text.
- Multiple-choice runs (BBQ): matched on HELM's request prompt or the instance's passage, question and
  options; ``choice`` through ``output_mapping``; HELM's ``exact_match`` → judge ``helm:exact_match``
  (:mod:`.helm_choice`).
- Every model-as-judge result in ``annotations`` is a judge ``helm:<annotator>:<judge model>``, the
  model never guessed (:mod:`.helm_judges`: ``helm_version`` picks the release table, ``judge_models``
  names a key the table lacks). 0 / 0.5 / 1 kept, the reasoning in ``judge_raw``; a missing or
  unparseable score is a ``parse_error``, never 0.5, and so is a number off that scale (HELM keeps any
  float its regex finds, e.g. 7.0 from a judge that answered on a 1-10 scale). An annotation without
  ``*_score`` keys is refused.
- A request HELM kept as failed (``result.success: false``: a non-fatal error such as Gemini's "Content blocked:
  Prompt blocked with reason: 4", which HELM turns into an empty completion and lets its annotators score) is a
  failed item: its record keeps ``result.error`` in ``request_error``, and every judgment of it is imported
  non-ok with the reason (never the annotator's score of the empty string).
- HELM writes no version into a run folder: the provenance's tool version is ``helm_version`` when given.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Sequence

from toolkit.stages.importing.components import HelmOptions
from .base import ParsedSource, SourceRow, fail, require_files
from .helm_choice import EXACT_MATCH_JUDGE, best_completion, choice_question, exact_match_by_instance, request_prompt
from .helm_judges import DEFAULT_VERSION, JUDGE_MODELS, JudgeModels, annotation_judgments, annotation_scale, \
    parse_judge_models, version_table
from .labels import ternary

__all__ = ["parse", "SCENARIO_SUITES", "JUDGE_MODELS", "scenario_of", "version_table"]

SCENARIO_SUITES = {"harm_bench": "harmbench", "simple_safety_tests": "sst", "xstest": "xstest",
                   "air_bench_2024": "airbench", "bbq": "bbq"}


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


def _generation(adapter: dict) -> dict[str, Any]:
    temperature = adapter.get("temperature")
    return {"temperature": temperature, "max_new_tokens": adapter.get("max_tokens"),
            "do_sample": None if temperature is None else temperature > 0}


def _row(rs: dict, n: int, state_path: Path, run_name: str, suite: Optional[str], origin: str) -> SourceRow:
    """Request state ``n`` (1-based) as a row: its prompt, the completion HELM scores, a multiple-choice question."""
    at = f"request_states[{n - 1}]"
    text = ((rs.get("instance") or {}).get("input") or {}).get("text")
    if not isinstance(text, str):
        raise fail(state_path, n, f"{at}.instance.input.text", "missing or not text")
    result = rs.get("result") or {}
    completions = result.get("completions")
    error = None
    if result.get("success") is False:  # HELM kept a non-fatal failure (a content filter) as an empty completion
        error = str(result.get("error") or "").strip() or "the request failed (HELM recorded no error text)"
        completions = [c for c in completions or [] if isinstance(c, dict) and isinstance(c.get("text"), str)] or [{"text": ""}]
    if not completions or not all(isinstance(c, dict) and isinstance(c.get("text"), str) for c in completions):
        raise fail(state_path, n, f"{at}.result.completions", "no completion text (did the request fail?)")
    best = best_completion(completions)
    question = choice_question(rs, best["text"], state_path, n)
    row = SourceRow(where=f"{state_path}:{n}", prompt=request_prompt(rs, state_path, n) if question else text,
                    response=best["text"], suite=suite, source_id=rs["instance"].get("id"), question=question,
                    metadata={"helm_run": run_name}, origin=origin, error=error)
    if question is not None:
        row.metadata.update(mc_mode="generate", helm_output_mapping=rs["output_mapping"])
    if best.get("finish_reason"):
        reason = best["finish_reason"]
        row.finish_reason = str(reason.get("reason") if isinstance(reason, dict) else reason)
    return row


def _rows(folder: Path, models: JudgeModels) -> tuple[list[SourceRow], dict, list[Path]]:
    """The rows of one run folder, its adapter spec and the files read."""
    spec_path, state_path = folder / "run_spec.json", folder / "scenario_state.json"
    run_spec, state = _load(spec_path), _load(state_path)
    if not isinstance(run_spec, dict) or "adapter_spec" not in run_spec:
        raise fail(spec_path, None, "adapter_spec", "not a HELM run_spec.json")
    if not isinstance(state, dict) or not isinstance(state.get("request_states"), list):
        raise fail(state_path, None, "request_states", "not a HELM scenario_state.json")
    scenario = scenario_of(run_spec)
    suite, origin = SCENARIO_SUITES.get(scenario), f"{folder} (HELM scenario {scenario})"
    rows, files = [], [spec_path, state_path]
    exact: Optional[dict[str, float]] = None
    for n, rs in enumerate(state["request_states"], start=1):
        if rs.get("train_trial_index", 0) != 0:
            continue
        row = _row(rs, n, state_path, str(run_spec.get("name")), suite, origin)
        row.generation = _generation(run_spec["adapter_spec"])  # each run its own (BBQ asks for 5 new tokens)
        if row.question is not None:
            if exact is None:  # HELM's own scores of a multiple-choice run
                exact = exact_match_by_instance(folder)
                files += [folder / "per_instance_stats.json"] if exact else []
            if str(row.source_id) in exact:
                row.judgments[EXACT_MATCH_JUDGE] = exact[str(row.source_id)]
        row.judgments.update(annotation_judgments(rs.get("annotations"), state_path, n, models))
        rows.append(row)
    if not rows:
        raise fail(state_path, None, "request_states", "no request states")
    return rows, run_spec["adapter_spec"], files


def _judge_info(judge: str, rows: list[SourceRow], models: JudgeModels) -> dict[str, Any]:
    if judge == EXACT_MATCH_JUDGE:
        return {"metric": "exact_match", "note": "HELM's own per-instance exact_match (per_instance_stats.json): 1 right, 0 wrong"}
    _, key = next(r.judgments[judge] for r in rows if judge in r.judgments)
    return {"annotator": judge.split(":")[1], "judge_key": key, "judge_model": judge.split(":", 2)[2],
            "judge_model_from": models.origin(key), "helm_version_table": models.version}


def parse(paths: list[str | Path], options: HelmOptions | None = None) -> ParsedSource:
    """The rows of HELM run folders, read as ``options`` say (:class:`~.components.HelmOptions`)."""
    options = options or HelmOptions()
    helm_version, judge_models = options.helm_version, options.judge_models
    version = version_table(helm_version or DEFAULT_VERSION)
    if version is None:
        raise fail(paths[0] if paths else "(no source)", None, "helm_version",
                   f"unknown HELM version {helm_version!r}; known: {', '.join(JUDGE_MODELS)} (and their x.y.z releases)",
                   param="helm_version")
    models = JudgeModels(version, parse_judge_models(judge_models))
    folders = _run_folders(require_files(paths, (), "a HELM run folder"))
    rows: list[SourceRow] = []
    adapters, files = [], []
    for folder in folders:
        folder_rows, adapter, read = _rows(folder, models)
        rows.extend(folder_rows)
        adapters.append(adapter)
        files.extend(read)
    models.check_all_used(Path(paths[0]))
    models_seen = {a.get("model") for a in adapters}
    if len(models_seen) > 1:
        raise fail(folders[0], None, "adapter_spec.model", f"runs of {len(models_seen)} models ({', '.join(sorted(map(str, models_seen)))}); "
                                                           "import one model at a time")
    adapter = adapters[0]
    judges = sorted({j for r in rows for j in r.judgments})
    model = adapter.get("model")
    return ParsedSource(
        format="helm", rows=rows, scales={j: ternary if j == EXACT_MATCH_JUDGE else annotation_scale for j in judges},
        tool="crfm-helm", tool_version=helm_version,
        model_id=model if isinstance(model, str) and model.count("/") == 1 else None,
        generation=_generation(adapter),
        files=files, judge_info={j: _judge_info(j, rows, models) for j in judges},
    )
