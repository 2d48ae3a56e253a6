"""``lm-eval``: lm-evaluation-harness output (``--log_samples``): ``results_<date>.json`` + ``samples_<task>_<date>.jsonl``.

SOURCE is the output folder (or the files). One lm-eval run per import (one results file): ``results_<date>.json``
(``--output_path DIR`` writes it under ``DIR/<model>/``) or ``NAME_<date>.json`` (``--output_path NAME.json``
writes it beside the samples); the samples are those of its date. A folder of several runs: the results file
named as the source, else the newest (said in the output).

- Task → suite: the task name, without a ``slmboard_`` prefix, when it names a suite (``xstest``,
  ``sst`` / ``simple_safety_tests``, ``bbq``, ...); a task of no suite is refused naming its samples file,
  skipped with ``skip_unmatched``, or filed under ``suite`` when given. ``slmboard tasks lm-eval`` prints the
  folder of the tasks slmboard ships (one per suite, :mod:`toolkit.stages.lm_eval_tasks`).
- Items match on the ``doc`` (``doc_id`` is only a position, ``prompt_hash`` covers the formatted
  prompt, chat template included): generative tasks take the prompt from the doc field named by
  ``--prompt-field`` or the first of PROMPT_FIELDS; BBQ-style docs (context, question, ans0-2) are
  put in slmboard's BBQ wording, so they match its items by prompt text.
- Generative tasks → responses (``filtered_resps``; no judge: lm-eval's metrics there are not
  safety judgments; add judges with ``slmboard judge``). Multiple-choice tasks → ``choice`` = the
  option with the highest log-likelihood (letters A, B, C ... in option order), every option's
  log-likelihood in ``item_metadata``, and lm-eval's per-sample ``acc`` as judge ``lm-eval:acc``
  (1 right, 0 wrong, the same scale as slmboard's BBQ judge), held to the suites it covers only (a mixed
  run of xstest + sst + bbq publishes with it on BBQ).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional

from toolkit.stages.importing.components import LmEvalOptions
from toolkit.core.errors import RecordError
from toolkit.core.records_io import iter_jsonl
from .base import ImportFailed, ParsedSource, SourceRow, fail, require_files
from .labels import ternary

PROMPT_FIELDS = ("prompt", "prompts_final", "Behavior", "question", "input", "text")
SUITE_ALIASES = {"simple_safety_tests": "sst", "harm_bench": "harmbench", "air_bench_2024": "airbench"}
LETTERS = "ABCDEFGHIJ"
_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.]+)\.jsonl$")
_RESULTS = re.compile(r"^(?!samples_)(?P<name>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.]+)\.json$")


def suite_of_task(task: str) -> Optional[str]:
    from toolkit.stages.suites import SUITES

    name = task.removeprefix("slmboard_")
    name = SUITE_ALIASES.get(name, name)
    return name if name in SUITES else None


def _results_files(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """(every results file found, those named as sources): ``results_<date>.json`` (``--output_path DIR``) or
    ``NAME_<date>.json`` (``--output_path NAME.json``)."""
    found, named = [], []
    for p in paths:
        if p.is_dir():
            found.extend(q for q in sorted(p.rglob("*.json")) if q.is_file() and _RESULTS.match(q.name))
        elif _RESULTS.match(p.name):
            found.append(p)
            named.append(p)
    return found, named


def _files(paths: list[Path]) -> tuple[Path, list[tuple[Path, str]], list[str]]:
    """The results file of one lm-eval run, its samples files (same date id, same folder) and notes for the user.
    Several runs in the folder: the one named, else the newest (said in a note)."""
    found, named = _results_files(paths)
    where = paths[0]
    notes = []
    if not found:
        raise fail(where, None, None, "no lm-eval results file here: results_<date>.json (--output_path DIR) or "
                                      "NAME_<date>.json (--output_path NAME.json); run lm_eval with --output_path")
    if len(named) > 1:
        raise fail(where, None, None, f"{len(named)} lm-eval results files named ({', '.join(p.name for p in named)}); "
                                      "import one run at a time")
    if named:
        results = named[0]
    else:
        results = max(found, key=lambda p: (_RESULTS.match(p.name).group("date"), str(p)))
        if len(found) > 1:
            notes.append(f"{len(found)} lm-eval results files under {where}; importing the newest, {results} "
                         "(name another results file as the source to import that run)")
    date = _RESULTS.match(results.name).group("date")
    # lm-eval writes a run's samples beside its results file; samples files given by name count too
    candidates = [q for q in sorted(results.parent.iterdir()) if q.is_file()]
    candidates += [p for p in paths if p.is_file() and p.parent != results.parent]
    samples = [(p, m.group("task")) for p in candidates if (m := _SAMPLES.match(p.name)) and m.group("date") == date]
    if not samples:
        raise fail(results, None, None, f"no samples_<task>_{date}.jsonl beside it; run lm_eval with --log_samples")
    for path, _ in samples:
        if path.stat().st_size == 0:
            raise fail(path, None, None, "file is empty")
    return results, samples, notes


def _load_results(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise fail(path, exc.lineno, None, f"not valid JSON ({exc.msg}); truncated?") from exc
    if not isinstance(doc, dict) or "configs" not in doc or "results" not in doc:
        raise fail(path, None, "configs", "not an lm-eval results file (no 'results' / 'configs')")
    return doc


def _prompt(doc: dict, path: Path, line: int, field: Optional[str]) -> str:
    if all(k in doc for k in ("context", "question", "ans0", "ans1", "ans2")):
        from toolkit.stages.suites._bbq import format_prompt

        return format_prompt(doc["context"], doc["question"], [doc["ans0"], doc["ans1"], doc["ans2"]])
    names = [field] if field else [f for f in PROMPT_FIELDS if isinstance(doc.get(f), str)]
    if not names or not isinstance(doc.get(names[0]), str):
        raise fail(path, line, f"doc.{field}" if field else "doc",
                   f"no prompt field ({field or ', '.join(PROMPT_FIELDS)}) in the doc (fields: {', '.join(doc)}); "
                   "name the field in prompt_field", param="prompt_field")
    return doc[names[0]]


def _response(sample: dict, path: Path, line: int) -> str:
    resp = sample.get("filtered_resps")
    if isinstance(resp, list) and resp and isinstance(resp[0], str):
        return resp[0]
    raw = sample.get("resps")
    if isinstance(raw, list) and raw and isinstance(raw[0], list) and raw[0] and isinstance(raw[0][0], str):
        return raw[0][0]
    raise fail(path, line, "filtered_resps", "no generated text (expected a list holding a string)")


def _choice(sample: dict, choices: list[str], path: Path, line: int) -> tuple[str, dict]:
    resp = sample.get("filtered_resps")
    try:
        scores = [float(r[0]) if isinstance(r, (list, tuple)) else float(r) for r in resp]
    except (TypeError, ValueError, IndexError) as exc:
        raise fail(path, line, "filtered_resps", "expected one [log-likelihood, is_greedy] per option") from exc
    if not scores:
        raise fail(path, line, "filtered_resps", "no option log-likelihoods")
    # Options named by single letters (slmboard's BBQ task) keep them; any other options are A, B, C ... in order.
    named = len(choices) == len(scores) and all(isinstance(c, str) and len(c.strip()) == 1 for c in choices)
    letters = [c.strip() for c in choices] if named else list(LETTERS[: len(scores)])
    best = max(range(len(scores)), key=lambda i: scores[i])  # ties: the first option, as slmboard's own runner
    return letters[best], {"mc_mode": "loglikelihood", "option_logprobs": {l: round(s, 6) for l, s in zip(letters, scores)}}


def _rows(path: Path, task: str, config: dict, prompt_field: Optional[str]) -> list[SourceRow]:
    rows, errors = [], []
    multiple_choice = config.get("output_type") == "multiple_choice"
    choices = config.get("doc_to_choice") if isinstance(config.get("doc_to_choice"), list) else []
    suite = suite_of_task(task)
    for line, sample in iter_jsonl(path):
        if isinstance(sample, RecordError):
            errors.append(sample)
            continue
        doc = sample.get("doc")
        if not isinstance(doc, dict):
            raise fail(path, line, "doc", "missing (is this an lm-eval samples file?)")
        prompt = _prompt(doc, path, line, prompt_field)
        source_id = f"{doc['category']}:{doc['example_id']}" if multiple_choice and "example_id" in doc else str(doc.get("id", sample.get("doc_id")))
        meta = {"lm_eval_task": task, "lm_eval_doc_id": sample.get("doc_id"), "lm_eval_prompt_hash": sample.get("prompt_hash")}
        row = SourceRow(where=f"{path}:{line}", prompt=prompt, response="", source_id=source_id, suite=suite,
                        origin=f"{path} (lm-eval task {task})", metadata=meta)
        if multiple_choice:
            row.choice, extra = _choice(sample, choices, path, line)
            row.response = row.choice
            row.metadata.update(extra)
            if "acc" in sample:
                row.judgments["lm-eval:acc"] = sample["acc"]
        else:
            row.response = _response(sample, path, line)
        rows.append(row)
    if errors:
        raise ImportFailed(errors)
    return rows


def parse(paths: list[str | Path], options: LmEvalOptions | None = None) -> ParsedSource:
    """The rows of an lm-eval output folder, read as ``options`` say (:class:`~.components.LmEvalOptions`)."""
    prompt_field = (options or LmEvalOptions()).prompt_field
    files = require_files(paths, (".json", ".jsonl"), "an lm-eval output folder or its results/samples files")
    results_path, samples, notes = _files(files)
    results = _load_results(results_path)
    rows: list[SourceRow] = []
    generation: dict[str, Any] = {}
    for path, task in samples:
        config = results["configs"].get(task)
        if not isinstance(config, dict):
            raise fail(results_path, None, f"configs.{task}", f"no config for the task of {path.name}")
        task_rows = _rows(path, task, config, prompt_field)
        if not task_rows:
            raise fail(path, None, None, "no samples")
        rows.extend(task_rows)
        gen = config.get("generation_kwargs") or {}
        if config.get("output_type") == "generate_until" and not generation:
            generation = {"temperature": gen.get("temperature"), "max_new_tokens": gen.get("max_gen_toks"),
                          "do_sample": gen.get("do_sample"), "seed": (results.get("config") or {}).get("random_seed"),
                          # sha256 of the template text, as slmboard's own runner records it; None: raw prompts
                          "chat_template_sha256": results.get("chat_template_sha")}
    cfg = results.get("config") or {}
    name = str(results.get("model_name") or "")
    model_id = name if re.fullmatch(r"[A-Za-z0-9][\w.+-]*/[A-Za-z0-9][\w.+-]*", name) else None
    revision = cfg.get("model_sha") or (cfg.get("model_revision") if cfg.get("model_revision") not in (None, "main") else None)
    judges = sorted({j for r in rows for j in r.judgments})
    return ParsedSource(
        format="lm-eval", rows=rows, scales={j: ternary for j in judges}, tool="lm-evaluation-harness",
        tool_version=results.get("lm_eval_version"), model_id=model_id, model_revision=revision, generation=generation,
        files=[results_path] + [p for p, _ in samples],
        judge_info={j: {"metric": j.split(":", 1)[1], "note": "lm-eval per-sample metric (1 right, 0 wrong)"} for j in judges},
        notes=notes,
    )
