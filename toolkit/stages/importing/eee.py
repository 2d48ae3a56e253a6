"""``eee``: Every Eval Ever (schema 0.3.x) aggregate files with their ``*_samples.jsonl``.

SOURCE is an aggregate ``.json`` or a folder holding them; each aggregate's samples file is found
beside it (``<uuid>_samples.jsonl``, or the basename of ``detailed_evaluation_results.file_path``)
and checked against the aggregate's sha256 and row count (a truncated file is refused).

Each aggregate is one judge: the ``judge_id`` slmboard's exporter writes into the aggregate and the
samples, else ``eee:<evaluation_result_id>``. A sample is one (prompt, response, score): ``input.raw``,
``output.raw[0]``, ``evaluation.score`` read on the ternary scale (0 / 0.5 / 1; any other number is a
``parse_error``), ``answer_attribution`` → ``choice``. Items the aggregate lists as failed
(``failed_item_ids``, slmboard exports) become ``parse_error`` records where another aggregate of the
same model gives their response.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from toolkit.core.errors import RecordError
from toolkit.core.records_io import iter_jsonl
from .base import ImportFailed, ParsedSource, SourceRow, Verdict, fail, require_files
from .labels import ternary

SUFFIXES = (".json",)


def _aggregates(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = sorted(q for q in p.rglob("*.json") if q.is_file())
            if not found:
                raise fail(p, None, None, "no EEE aggregate (.json) files in this folder")
            out.extend(found)
        else:
            out.append(p)
    return out


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


def _judge_id(doc: dict, first_sample: dict | None) -> str:
    meta = (first_sample or {}).get("metadata") or {}
    judge = meta.get("judge_id") or _details(doc).get("judge_id")
    if judge:
        return str(judge)
    results = doc.get("evaluation_results") or [{}]
    rid = results[0].get("evaluation_result_id") or results[0].get("evaluation_name") or "score"
    return f"eee:{rid}"


def _need(sample: Any, path: Path, line: int, dotted: str) -> Any:
    value = sample
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise fail(path, line, dotted, "required EEE field is missing")
        value = value[part]
    return value


def _sample_row(sample: dict, path: Path, line: int, judge_id: str) -> SourceRow:
    prompt = _need(sample, path, line, "input.raw")
    outputs = _need(sample, path, line, "output.raw")
    if not isinstance(prompt, str):
        raise fail(path, line, "input.raw", "expected text")
    if not isinstance(outputs, list) or not outputs or not isinstance(outputs[0], str):
        raise fail(path, line, "output.raw", "expected a list holding the response text")
    score = _need(sample, path, line, "evaluation.score")
    attribution = sample.get("answer_attribution") or []
    choice = attribution[0].get("extracted_value") if attribution and isinstance(attribution[0], dict) else None
    meta = sample.get("metadata") or {}
    return SourceRow(where=f"{path}:{line}", prompt=prompt, response=outputs[0], source_id=str(sample.get("sample_id") or "") or None,
                     judgments={judge_id: {"score": score, "raw": meta.get("judge_raw"), "reason": meta.get("judge_reason")}},
                     choice=choice)


def _score_scale(value: Any, gold: Any = None) -> Verdict:
    if isinstance(value, dict) and value.get("failed"):
        return Verdict(None, None, value.get("reason") or "judgment failed in the source (failed_item_ids)")
    score = value.get("score") if isinstance(value, dict) else value
    verdict = ternary(score)
    raw = value.get("raw") if isinstance(value, dict) and value.get("raw") is not None else verdict.raw
    return Verdict(verdict.score, raw, verdict.reason or (value.get("reason") if isinstance(value, dict) else None))


def _read_one(path: Path) -> tuple[dict, str, list[SourceRow]]:
    doc = _load_json(path)
    samples_path = _samples_file(path, doc)
    rows, samples, errors = [], [], []
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
    judge_id = _judge_id(doc, samples[0][1] if samples else None)
    for line, sample in samples:
        if sample.get("model_id") not in (None, doc["model_info"]["id"]):
            raise fail(samples_path, line, "model_id", f"{sample['model_id']!r} is not the aggregate's {doc['model_info']['id']!r}")
        rows.append(_sample_row(sample, samples_path, line, judge_id))
    return doc, judge_id, rows


def parse(paths: list[str | Path]) -> ParsedSource:
    files = _aggregates(require_files(paths, SUFFIXES, "an EEE aggregate .json file or a folder of them"))
    by_prompt: dict[str, SourceRow] = {}
    failed: dict[str, list[str]] = {}
    judges: dict[str, dict] = {}
    models: set[str] = set()
    revisions: set[str] = set()
    suites: set[str] = set()
    version = None
    for path in files:
        doc, judge_id, rows = _read_one(path)
        if judge_id in judges:
            raise fail(path, None, "judge_id", f"judge {judge_id!r} also in {judges[judge_id]['aggregate']}")
        details = _details(doc)
        judges[judge_id] = {"aggregate": str(path), "evaluation_id": doc["evaluation_id"]}
        models.add(doc["model_info"]["id"])
        rev = (doc["model_info"].get("additional_details") or {}).get("model_revision")
        if rev and rev != "unknown":
            revisions.add(str(rev))
        if details.get("suite"):
            suites.add(str(details["suite"]))
        version = version or (doc.get("eval_library") or {}).get("version")
        failed[judge_id] = json.loads(details["failed_item_ids"]) if details.get("failed_item_ids") else []
        for row in rows:
            key = row.prompt
            if key in by_prompt:
                have = by_prompt[key]
                if have.response != row.response:
                    raise fail(path, None, None, f"{row.where}: response differs from {have.where} for the same prompt "
                                                 "(one run folder holds one model's responses)")
                have.judgments.update(row.judgments)
            else:
                by_prompt[key] = row
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
