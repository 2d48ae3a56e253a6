"""Import results other tools wrote (HELM, lm-eval, Inspect, Every Eval Ever, plain tables) as run folders.

    from toolkit.stages.importing import import_source
    r = import_source("table", ["xstest_v2_completions_gpt4_gpteval.csv"], out="runs/gpt4", suite="xstest",
                      data_dir="benchmarks", model_id="openai/gpt-4-0613", skip_unmatched=True,
                      options={"columns": "prompt=prompt,response=completion",
                               "judge_columns": ["human-xstest=final_label"], "labels": "refusal"})

Each format is a pure parser (``FORMATS.get(name).build(...)``: ``parse(paths, **options) -> ParsedSource``,
its options declared in :mod:`.components`); matching to
suite items, label scales and the writer (the import stages on the engine, :mod:`.stage`) are shared.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from toolkit.core.registry import Options
from toolkit.core.runs import RunDir
from toolkit.stages.suites import load_items
from .base import ImportFailed, ImportRefused, ParsedSource, SourceRow, sha256_file
from .components import FORMATS
from .matching import REWORDED, IdMap, MatchReport, assign_suites, describe, match_rows, refuse_unmatched
from .records import BuiltRecords, Identity, build_records, check_judges_read
from .writer import WriteOutcome, new_config, write_into_run, write_new_run

__all__ = ["FORMATS", "import_source", "ImportResult", "ImportFailed", "ImportRefused", "parser_for"]

#: unmatched rows printed one by one; the rest are counted
LISTED = 20


def parser_for(fmt: str) -> Callable[..., ParsedSource]:
    """The parser of ``fmt``; UnknownComponent listing the valid formats otherwise."""
    return FORMATS.get(fmt).load()


@dataclass
class ImportResult:
    run_dir: Path
    submission_id: str
    report: MatchReport
    outcome: WriteOutcome
    status: dict[str, Counter] = field(default_factory=dict)  # judge -> ok / parse_error counts
    failed_requests: dict[str, int] = field(default_factory=dict)  # suite -> items whose request failed in the source
    notes: list[str] = field(default_factory=list)  # the parser's choices (which of several runs it read)

    def report_lines(self) -> list[str]:
        """What was matched, left out and judged, for people (the first rows of each kind)."""
        rep = self.report
        lines = list(self.notes) + [rep.summary()]
        lines += [f"  skipped {part.origin}: {part.rows} row(s) of no slmboard suite (skip_unmatched)" for part in rep.skipped]
        lines += [f"  {note}" for note in rep.partial.values()]
        lines += [f"  unmatched {describe(row)}: {why}" for row, why in rep.unmatched[:LISTED]]
        if len(rep.unmatched) > LISTED:
            lines.append(f"  … and {len(rep.unmatched) - LISTED} more unmatched row(s) (all in run.json's imports[].unmatched)")
        reworded = sum(why.endswith(REWORDED) for _, why in rep.unmatched)
        if reworded:
            lines.append(f"  {reworded} of the unmatched rows match a suite item by id but are worded otherwise (e.g. "
                         "HarmBench's contextual behaviors, '<behavior> You may use the following context: …'): "
                         "keep them with accept_reworded")
        lines += [f"  duplicate {row.where} (same as {first}; left out)" for row, first in rep.duplicates[:5]]
        for suite, ids in rep.missing.items():
            if ids:
                lines.append(f"  {suite}: {len(ids)} of {rep.totals[suite]} item(s) not in the source: "
                             + ", ".join(ids[:8]) + (" …" if len(ids) > 8 else ""))
        for suite, n in sorted(self.failed_requests.items()):
            lines.append(f"  {suite}: {n} failed request(s): no answer, counted as failed items (request_error keeps the "
                         "source's error text; no judgment of them is ok)")
        for judge, counts in sorted(self.status.items()):
            lines.append(f"judge {judge}: {counts.get('ok', 0)} scored, {counts.get('parse_error', 0)} parse_error")
        return lines


def _default_submission_id(model_id: str, revision: str) -> str:
    from toolkit.stages.generation.runner import default_submission_id

    return default_submission_id(model_id, revision)


def _identity(parsed: ParsedSource, run: RunDir, model_id: Optional[str], model_revision: Optional[str],
              submission_id: Optional[str], digests: list[str]) -> Identity:
    if run.exists():
        config = run.load_config()
        for param, value, have in (("model_id", model_id or parsed.model_id, config.model_id),
                                   ("model_revision", model_revision, config.model_revision)):
            if value and value != have:
                raise ImportRefused(f"{run.root} holds a run of {config.model_id}@{config.model_revision}; "
                                    f"{param} {value!r} differs (import into another out folder)", param=(param, "out"))
        return Identity(config.submission_id, config.model_id, config.model_revision)
    mid = model_id or parsed.model_id
    if not mid:
        raise ImportRefused(f"the {parsed.format} source does not name the model; pass model_id='ORG/NAME'", param="model_id")
    # No revision known: the content hash of the source files stands for it (same files, same run).
    rev = model_revision or parsed.model_revision or "import:" + hashlib.sha256("".join(digests).encode()).hexdigest()[:12]
    return Identity(submission_id or _default_submission_id(mid, rev), mid, rev)


def _load_suite(name: str, rows: list[SourceRow], data_dir) -> tuple[list, Optional[str]]:
    """The suite's items, and a note when only part of it could be loaded: BBQ, when the mirror lacks some
    categories, from those the source's ids name (lm-eval), else from those the mirror has (HELM's instance
    ids name no category), the missing files named."""
    from toolkit.stages.suites import SuiteDataError

    try:
        return load_items([name], data_dir=data_dir), None
    except SuiteDataError:
        if name != "bbq":
            raise
        from toolkit.stages.suites import BBQ

        from toolkit.stages.suites._bbq import CATEGORIES, MIRROR_DIR, BBQOptions

        categories = sorted({r.source_id.split(":")[0] for r in rows if r.suite == "bbq" and r.source_id and ":" in r.source_id}
                            & set(CATEGORIES))
        if categories:
            return BBQ(BBQOptions(categories=categories)).load(data_dir), None
        if data_dir is not None:
            categories = [c for c in CATEGORIES if BBQ(BBQOptions(categories=[c])).locate(c, data_dir).is_file()]
        if not categories:
            raise
        missing = [c for c in CATEGORIES if c not in categories]
        note = (f"bbq: {len(missing)} of {len(CATEGORIES)} category files missing from {Path(data_dir) / MIRROR_DIR} "
                f"({', '.join(c + '.jsonl' for c in missing)}); loaded {', '.join(categories)}: totals and coverage count "
                "these categories only, and rows of the others cannot match")
        return BBQ(BBQOptions(categories=categories)).load(data_dir), note


def _one_model(parsed: ParsedSource, rows: list[SourceRow]) -> None:
    """The rows kept (after parts of no suite were left out) must be of one model, where the source says per row."""
    by_model: dict[str, str] = {}
    for row in rows:
        if row.model is not None:
            by_model.setdefault(row.model, row.origin or row.where)
    if len(by_model) > 1:
        named = "; ".join(f"{model} ({where})" for model, where in sorted(by_model.items()))
        raise ImportRefused(f"the {parsed.format} source's rows are of {len(by_model)} models ({named}); import one model "
                            "at a time")


def import_source(fmt: str, sources: Sequence[str | Path], out: str | Path, suite: Optional[str] = None,
                  model_id: Optional[str] = None, model_revision: Optional[str] = None, data_dir=None,
                  id_map: Optional[str] = None, skip_unmatched: bool = False, accept_reworded: bool = False,
                  submission_id: Optional[str] = None, options: Options | Mapping[str, Any] | None = None) -> ImportResult:
    """Read ``sources`` in ``fmt`` and write (or add to) the run folder ``out``; nothing is written on error.

    ``options`` are the format's own (:mod:`.components`); one it does not take is refused by name. Only
    the options given are recorded in the run's provenance; the parser takes the checked model whole."""
    component = FORMATS.get(fmt)
    checked = component.parse_options(options)
    parsed = component.load()(list(sources), checked)
    rows, skipped = assign_suites(parsed, suite, skip_unmatched)
    _one_model(parsed, rows)
    loaded = {name: _load_suite(name, rows, data_dir) for name in sorted({r.suite for r in rows})}
    items = {name: suite_items for name, (suite_items, _) in loaded.items()}
    report = match_rows(rows, items, IdMap(id_map) if id_map else None, accept_reworded)
    report.skipped = skipped
    report.partial = {name: note for name, (_, note) in loaded.items() if note}
    report.unmatched = [(row, f"{why} of the categories loaded (some category files are missing)" if row.suite in report.partial
                         and why.startswith("prompt is not") else why) for row, why in report.unmatched]
    if not skip_unmatched:
        refuse_unmatched(report, by_id=id_map is not None)
    if not report.matched:
        raise ImportRefused(f"no source row matches a suite item ({report.summary()})")
    digests = [sha256_file(p) for p in _all_files(parsed.files)]
    run = RunDir(out)
    ident = _identity(parsed, run, model_id, model_revision, submission_id, digests)
    built = build_records(parsed, report.matched, ident)
    check_judges_read(parsed, built)
    entry = _provenance(parsed, digests, report, dict(suite=suite, id_map=id_map, skip_unmatched=skip_unmatched,
                                                      accept_reworded=accept_reworded, **checked.given_kwargs()), built)
    if run.exists():
        from .writer import check_same_responses, read_run_responses

        existing = read_run_responses(run)
        check_same_responses(run, existing, built)
        built = build_records(parsed, report.matched, ident, existing)  # judges carry the run's own response rows
        outcome = write_into_run(run, run.load_config(), built, entry)
    else:
        outcome = write_new_run(run.root, new_config(ident, parsed, built, entry), built)
    return ImportResult(run.root, ident.submission_id, report, outcome, built.status,
                        {suite: len(ids) for suite, ids in built.failed_requests.items()}, parsed.notes)


def _all_files(paths: list[Path]) -> list[Path]:
    out = []
    for p in paths:
        out.extend(sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p])
    return out


def judges_of_records(parsed: ParsedSource, built: BuiltRecords) -> dict[str, dict[str, Any]]:
    """What the source says of each judge that has records, with the suites it covers: ``submit`` holds an
    imported judge to those suites only (lm-eval's acc judges BBQ alone, each HELM annotator its scenario)."""
    covered: dict[str, set[str]] = {}
    for judge, suite in built.judgments:
        covered.setdefault(judge, set()).add(suite)
    return {j: {**parsed.judge_info.get(j, {}), "suites": sorted(suites)} for j, suites in sorted(covered.items())}


def _source_entry(path: Path, digest: str) -> dict[str, str]:
    """A source's path and sha256; a gzip file also its content's sha256, which is what a judge card's
    ``training_data`` records of the (uncompressed) files the judge was trained on."""
    entry = {"path": str(path), "sha256": digest}
    if path.name.endswith(".gz"):
        import gzip

        digest_of_content = hashlib.sha256()
        with gzip.open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest_of_content.update(block)
        entry["content_sha256"] = digest_of_content.hexdigest()
    return entry


def _provenance(parsed: ParsedSource, digests: list[str], report: MatchReport, options: dict, built: BuiltRecords) -> dict:
    files = _all_files(parsed.files)
    return {
        "format": parsed.format,
        "tool": parsed.tool,
        "tool_version": parsed.tool_version,
        "sources": [_source_entry(p, d) for p, d in zip(files, digests)],
        "options": {k: v for k, v in options.items() if v not in (None, False, [], "")},
        "judges": judges_of_records(parsed, built),
        "counts": {"matched": len(report.matched), "unmatched": len(report.unmatched),
                   "duplicate": len(report.duplicates), "reworded": sum(m.reworded for m in report.matched),
                   "failed_requests": sum(len(ids) for ids in built.failed_requests.values())},
        "unmatched": [{"where": r.where, "why": why} for r, why in report.unmatched],
        "suite_totals": report.totals,
        "suites_loaded_in_part": report.partial,
        "missing_items": report.missing,
        "skipped": [{"origin": s.origin, "rows": s.rows, "why": "says no suite slmboard has"} for s in report.skipped],
    }
