"""``eee``: Every Eval Ever (schema 0.3.x) aggregate files with their ``*_samples.jsonl``.

SOURCE is an aggregate ``.json`` or a folder holding them; each aggregate's samples file is found
beside it (``<uuid>_samples.jsonl``, or the basename of ``detailed_evaluation_results.file_path``)
and checked against the aggregate's sha256 and row count (a truncated file is refused).

Each metric is one judge: the ``judge_id`` slmboard's exporter writes into the aggregate and the samples
(one metric per aggregate), else ``eee:<evaluation_result_id>``, the sample row's own (EEE writes one row per
item and metric, e.g. a HELM run's exact_match and quasi_exact_match; a row naming none takes the
aggregate's first result). ``metric`` keeps one ``evaluation_result_id``. Two values of one judge for one
item are an error naming both rows, never an overwrite. A sample is one (prompt, response, score):
``input.raw``, ``output.raw[0]``, ``evaluation.score`` read on the ternary scale (0 / 0.5 / 1; any other
number is a ``parse_error``), ``answer_attribution`` → ``choice``; its ``error`` (a failed request) is kept
in ``request_error`` and none of its judgments is ``ok``. Decoding settings: the result's
``generation_config`` (temperature, max_tokens; seed and the rest from slmboard's exports). Items the
aggregate lists as failed (``failed_item_ids``, slmboard exports) become ``parse_error`` records where
another aggregate of the same model gives their response.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from toolkit.stages.importing.components import EeeOptions
from toolkit.core.errors import RecordError
from toolkit.core.records_io import iter_jsonl
from .base import ImportFailed, ParsedSource, SourceRow, Verdict, fail, files_in_folders, require_files
from .labels import ternary

SUFFIXES = (".json",)


def _load_json(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise fail(path, None, None, f"not UTF-8 text ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise fail(path, exc.lineno, None, f"not valid JSON ({exc.msg}); truncated?") from exc
    if not isinstance(doc, dict):
        raise fail(path, None, None, "expected a JSON object (an EEE aggregate file)")
    for key in ("schema_version", "evaluation_id", "model_info", "evaluation_results"):
        if key not in doc:
            raise fail(path, None, key, "required EEE field is missing (is this an EEE aggregate file?)")
    if not str(doc["schema_version"]).startswith("0.3"):
        raise fail(path, None, "schema_version", f"EEE schema {doc['schema_version']!r}; this reader knows 0.3.x")
    if not isinstance(doc["model_info"], dict) or not doc["model_info"].get("id"):
        raise fail(path, None, "model_info.id", "required EEE field is missing")
    return doc


def _samples_file(path: Path, doc: dict) -> Path:
    detail = doc.get("detailed_evaluation_results")
    if not isinstance(detail, dict):
        raise fail(path, None, "detailed_evaluation_results", "no per-instance samples referenced; importing needs them")
    candidates = [path.with_name(f"{path.stem}_samples.jsonl")]
    if detail.get("file_path"):
        candidates.append(path.with_name(Path(str(detail["file_path"])).name))
    for c in candidates:
        if c.is_file():
            data = c.read_bytes()
            if detail.get("checksum") and detail.get("hash_algorithm", "sha256") == "sha256":
                if hashlib.sha256(data).hexdigest() != detail["checksum"]:
                    raise fail(c, None, None, f"sha256 differs from {path.name}'s detailed_evaluation_results.checksum "
                                              "(truncated or edited samples file)")
            return c
    raise fail(path, None, "detailed_evaluation_results.file_path", f"samples file not found beside it ({candidates[-1].name})")


def _details(doc: dict) -> dict:
    meta = doc.get("source_metadata") or {}
    return meta.get("additional_details") or {} if isinstance(meta, dict) else {}


def _slmboard_judge(doc: dict, first_sample: dict | None) -> str | None:
    """The judge slmboard's exporter named (one per aggregate), or None for any other tool's file."""
    meta = (first_sample or {}).get("metadata") or {}
    judge = meta.get("judge_id") or _details(doc).get("judge_id")
    return str(judge) if judge else None


def _result_ids(doc: dict) -> list[str]:
    return [str(r["evaluation_result_id"]) for r in doc.get("evaluation_results") or []
            if isinstance(r, dict) and r.get("evaluation_result_id")]


def _fallback_result_id(doc: dict) -> str:
    """The metric of a sample that names none: the aggregate's first result (its one, in the files seen so far)."""
    results = doc.get("evaluation_results") or [{}]
    first = results[0] if isinstance(results[0], dict) else {}
    return str(first.get("evaluation_result_id") or first.get("evaluation_name") or "score")


def _generation_by_result(doc: dict) -> dict[str, dict[str, Any]]:
    """evaluation_result_id → decoding settings, from each result's ``generation_config`` (temperature, max_tokens,
    and what slmboard's exporter puts in ``additional_details``: seed, do_sample, chat_template_sha256)."""
    out: dict[str, dict[str, Any]] = {}
    for result in doc.get("evaluation_results") or []:
        config = (result or {}).get("generation_config") if isinstance(result, dict) else None
        args = (config or {}).get("generation_args") if isinstance(config, dict) else None
        if not isinstance(args, dict) or not args:
            continue
        extra = (config.get("additional_details") or {}) if isinstance(config.get("additional_details"), dict) else {}
        temperature = args.get("temperature")
        sample = extra.get("do_sample")
        gen = {"temperature": temperature, "max_new_tokens": args.get("max_tokens"),
               "do_sample": {"True": True, "False": False}.get(str(sample)) if sample is not None
               else (None if temperature is None else temperature > 0),
               "seed": int(extra["seed"]) if str(extra.get("seed", "")).lstrip("-").isdigit() else None,
               "chat_template_sha256": extra.get("chat_template_sha256")}
        out[str(result.get("evaluation_result_id") or _fallback_result_id(doc))] = gen
    return out


def _need(sample: Any, path: Path, line: int, dotted: str) -> Any:
    value = sample
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise fail(path, line, dotted, "required EEE field is missing")
        value = value[part]
    return value


def _sample_row(sample: dict, path: Path, line: int, judge_id: str, generation: dict | None) -> SourceRow:
    prompt = _need(sample, path, line, "input.raw")
    outputs = _need(sample, path, line, "output.raw")
    if not isinstance(prompt, str):
        raise fail(path, line, "input.raw", "expected text")
    if isinstance(outputs, list) and not outputs and sample.get("error"):
        outputs = [""]  # a failed request: no answer, the error says why
    if not isinstance(outputs, list) or not outputs or not isinstance(outputs[0], str):
        raise fail(path, line, "output.raw", "expected a list holding the response text")
    score = _need(sample, path, line, "evaluation.score")
    attribution = sample.get("answer_attribution") or []
    choice = attribution[0].get("extracted_value") if attribution and isinstance(attribution[0], dict) else None
    meta = sample.get("metadata") or {}
    error = sample.get("error")  # the source marks a failed request (timeout, refusal, API error)
    return SourceRow(where=f"{path}:{line}", prompt=prompt, response=outputs[0], source_id=str(sample.get("sample_id") or "") or None,
                     judgments={judge_id: {"score": score, "raw": meta.get("judge_raw"), "reason": meta.get("judge_reason")}},
                     choice=choice, generation=generation, error=str(error) if error not in (None, "") else None)


def _score_scale(value: Any, gold: Any = None) -> Verdict:
    if isinstance(value, dict) and value.get("failed"):
        return Verdict(None, None, value.get("reason") or "judgment failed in the source (failed_item_ids)")
    score = value.get("score") if isinstance(value, dict) else value
    verdict = ternary(score)
    raw = value.get("raw") if isinstance(value, dict) and value.get("raw") is not None else verdict.raw
    return Verdict(verdict.score, raw, verdict.reason or (value.get("reason") if isinstance(value, dict) else None))


def _read_one(path: Path, metric: str | None) -> tuple[dict, dict[str, str], list[SourceRow]]:
    """The aggregate, its judges (judge id → evaluation_result_id) and its sample rows, one per (sample, metric):
    EEE writes one row per ``evaluation_result_id`` (a HELM run's exact_match, quasi_exact_match ...), each its
    own judge; ``metric`` keeps one. The same (sample, judge) twice is an error naming both rows."""
    doc = _load_json(path)
    samples_path = _samples_file(path, doc)
    samples, errors = [], []
    for line, sample in iter_jsonl(samples_path):
        if isinstance(sample, RecordError):
            errors.append(sample)
            continue
        samples.append((line, sample))
    if errors:
        raise ImportFailed(errors)
    expected = (doc.get("detailed_evaluation_results") or {}).get("total_rows")
    if isinstance(expected, int) and expected != len(samples):
        raise fail(samples_path, None, None, f"{len(samples)} rows, the aggregate says total_rows {expected} (truncated?)")
    slmboard_judge = _slmboard_judge(doc, samples[0][1] if samples else None)
    declared, generation = _result_ids(doc), _generation_by_result(doc)
    judges: dict[str, str] = {}
    rows, seen = [], {}
    for line, sample in samples:
        if sample.get("model_id") not in (None, doc["model_info"]["id"]):
            raise fail(samples_path, line, "model_id", f"{sample['model_id']!r} is not the aggregate's {doc['model_info']['id']!r}")
        rid = sample.get("evaluation_result_id")
        if rid is not None and declared and str(rid) not in declared:
            raise fail(samples_path, line, "evaluation_result_id",
                       f"{rid!r} is none of {path.name}'s evaluation_results ({', '.join(declared)})")
        rid = str(rid) if rid is not None else _fallback_result_id(doc)
        if metric is not None and rid != metric:
            continue
        judge_id = slmboard_judge or f"eee:{rid}"
        judges[judge_id] = rid
        gen = generation.get(rid) or (next(iter(generation.values())) if len(generation) == 1 else None)
        row = _sample_row(sample, samples_path, line, judge_id, gen)
        key = (row.source_id or row.prompt, judge_id)
        if key in seen:
            raise fail(samples_path, line, "evaluation_result_id",
                       f"a second value of judge {judge_id} for sample {key[0][:60]!r} (first at line {seen[key]}); "
                       "one row per (sample, evaluation_result_id)")
        seen[key] = line
        rows.append(row)
    return doc, judges, rows


def parse(paths: list[str | Path], options: EeeOptions | None = None) -> ParsedSource:
    """The rows of the EEE files ``paths``, read as ``options`` say (:class:`~.components.EeeOptions`)."""
    metric = (options or EeeOptions()).metric
    files = files_in_folders(require_files(paths, SUFFIXES, "an EEE aggregate .json file or a folder of them"),
                             lambda folder: folder.rglob("*.json"), "no EEE aggregate (.json) files in this folder")
    by_prompt: dict[str, SourceRow] = {}
    first_value: dict[tuple[str, str], str] = {}  # (prompt, judge) -> where its value is
    failed: dict[str, list[str]] = {}
    judges: dict[str, dict] = {}
    models: set[str] = set()
    revisions: set[str] = set()
    suites: set[str] = set()
    declared: set[str] = set()
    version = None
    for path in files:
        doc, read_judges, rows = _read_one(path, metric)
        declared.update(_result_ids(doc))
        details = _details(doc)
        for judge_id, rid in read_judges.items():
            info = judges.setdefault(judge_id, {"aggregate": str(path), "evaluation_id": doc["evaluation_id"],
                                                "evaluation_result_id": rid})
            if info["aggregate"] != str(path):
                info.setdefault("also_in", []).append(str(path))
            failed.setdefault(judge_id, []).extend(json.loads(details["failed_item_ids"]) if details.get("failed_item_ids") else [])
        models.add(doc["model_info"]["id"])
        rev = (doc["model_info"].get("additional_details") or {}).get("model_revision")
        if rev and rev != "unknown":
            revisions.add(str(rev))
        if details.get("suite"):
            suites.add(str(details["suite"]))
        version = version or (doc.get("eval_library") or {}).get("version")
        for row in rows:
            key = row.prompt
            (judge_id,) = row.judgments
            if (key, judge_id) in first_value:
                raise fail(path, None, None, f"{row.where}: a second value of judge {judge_id} for the same prompt "
                                             f"(first at {first_value[(key, judge_id)]}); one value per item and judge")
            first_value[(key, judge_id)] = row.where
            if key in by_prompt:
                have = by_prompt[key]
                if have.response != row.response:
                    raise fail(path, None, None, f"{row.where}: response differs from {have.where} for the same prompt "
                                                 "(one run folder holds one model's responses)")
                have.judgments.update(row.judgments)
                have.error = have.error or row.error
                have.generation = have.generation or row.generation
            else:
                by_prompt[key] = row
    if metric is not None and not judges:
        raise fail(files[0], None, "evaluation_result_id", f"no sample of metric {metric!r}; the aggregates' metrics: "
                   f"{', '.join(sorted(declared)) or 'none named'}", param="metric")
    if len(models) > 1:
        raise fail(files[0], None, "model_info.id", f"aggregates of several models ({', '.join(sorted(models))}); import one model per run")
    rows = list(by_prompt.values())
    _mark_failed(rows, failed, judges)
    return ParsedSource(
        format="eee", rows=rows, scales={j: _score_scale for j in judges}, tool="every_eval_ever", tool_version=version,
        model_id=next(iter(models)), model_revision=",".join(sorted(revisions)) or None,
        suite=next(iter(suites)) if len(suites) == 1 else None, files=files, judge_info=judges,
    )


def _mark_failed(rows: list[SourceRow], failed: dict[str, list[str]], judges: dict[str, dict]) -> None:
    """A judge's failed items (listed in its aggregate) get a parse_error where another judge gives the
    response; any other item a judge lacks is an error (each judge must cover the same responses)."""
    for row in rows:
        for judge_id in judges:
            if judge_id in row.judgments:
                continue
            if row.source_id in failed.get(judge_id, []):
                row.judgments[judge_id] = {"failed": True}
            else:
                raise fail(judges[judge_id]["aggregate"], None, "samples",
                           f"no sample of item {row.source_id or row.prompt[:40]!r} (answered in {row.where}) and not in failed_item_ids")
