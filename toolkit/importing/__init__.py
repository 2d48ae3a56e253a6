"""Import results other tools wrote (HELM, lm-eval, Inspect, Every Eval Ever, plain tables) as run folders.

    from toolkit.importing import import_source
    r = import_source("table", ["xstest_v2_completions_gpt4_gpteval.csv"], out="runs/gpt4", suite="xstest",
                      data_dir="benchmarks", model_id="openai/gpt-4-0613", columns="prompt=prompt,response=completion",
                      judge_columns=["human-xstest=final_label"], labels="refusal", skip_unmatched=True)

Each format is a pure parser (``FORMATS.get(name)(paths, **options) -> ParsedSource``); matching to
suite items, label scales and the writer (the import stages on the engine, :mod:`.stage`) are shared.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from ..registry import Options
from ..runs import RunDir
from ..suites import load_items
from .components import FORMATS
from .base import ImportFailed, ImportRefused, ParsedSource, sha256_file
from .matching import IdMap, MatchReport, describe, match_rows, refuse_unmatched
from .records import Identity, build_records, check_judges_read
from .writer import WriteOutcome, new_config, write_into_run, write_new_run

__all__ = ["FORMATS", "import_source", "ImportResult", "ImportFailed", "ImportRefused", "parser_for"]

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

    def report_lines(self) -> list[str]:
        """What was matched, left out and judged, for people (the first rows of each kind)."""
        rep = self.report
        lines = [rep.summary()]
        lines += [f"  unmatched {describe(row)}: {why}" for row, why in rep.unmatched[:20]]
        lines += [f"  duplicate {row.where} (same as {first}; left out)" for row, first in rep.duplicates[:5]]
        for suite, ids in rep.missing.items():
            if ids:
                lines.append(f"  {suite}: {len(ids)} of {rep.totals[suite]} item(s) not in the source: "
                             + ", ".join(ids[:8]) + (" …" if len(ids) > 8 else ""))
        for judge, counts in sorted(self.status.items()):
            lines.append(f"judge {judge}: {counts.get('ok', 0)} scored, {counts.get('parse_error', 0)} parse_error")
        return lines


def _default_submission_id(model_id: str, revision: str) -> str:
    from ..generation.runner import default_submission_id

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


def _suite_items(parsed: ParsedSource, suite: Optional[str], data_dir) -> tuple[str, dict[str, list]]:
    default = suite or parsed.suite
    names = {r.suite for r in parsed.rows if r.suite} | ({default} if default else set())
    if any(r.suite is None for r in parsed.rows) and not default:
        raise ImportRefused(f"the {parsed.format} source does not say which suite it is; pass suite=NAME", param="suite")
    return default or "", {name: _load_suite(name, parsed, data_dir) for name in sorted(names)}


def _load_suite(name: str, parsed: ParsedSource, data_dir) -> list:
    """The suite's items; BBQ from the categories the source answers when the mirror lacks the others."""
    from ..suites import SuiteDataError

    try:
        return load_items([name], data_dir=data_dir)
    except SuiteDataError:
        if name != "bbq":
            raise
        from ..suites import BBQ

        categories = sorted({r.source_id.split(":")[0] for r in parsed.rows if r.suite == "bbq" and r.source_id and ":" in r.source_id})
        if not categories:
            raise
        return BBQ(categories=categories).load(data_dir)


def import_source(fmt: str, sources: Sequence[str | Path], out: str | Path, suite: Optional[str] = None,
                  model_id: Optional[str] = None, model_revision: Optional[str] = None, data_dir=None,
                  id_map: Optional[str] = None, skip_unmatched: bool = False, accept_reworded: bool = False,
                  submission_id: Optional[str] = None, options: Options | Mapping[str, Any] | None = None) -> ImportResult:
    """Read ``sources`` in ``fmt`` and write (or add to) the run folder ``out``; nothing is written on error.

    ``options`` are the format's own (:mod:`.components`); one it does not take is refused by name. Only
    the options given reach the parser and the run's provenance (its defaults are its own)."""
    component = FORMATS.get(fmt)
    checked = component.parse_options(options)
    given = checked.given_kwargs()
    parsed = component.load()(list(sources), **given)
    default_suite, items = _suite_items(parsed, suite, data_dir)
    report = match_rows(parsed.rows, items, default_suite, IdMap(id_map) if id_map else None, accept_reworded)
    if not skip_unmatched:
        refuse_unmatched(report)
    if not report.matched:
        raise ImportRefused(f"no source row matches a suite item ({report.summary()})")
    digests = [sha256_file(p) for p in _all_files(parsed.files)]
    run = RunDir(out)
    ident = _identity(parsed, run, model_id, model_revision, submission_id, digests)
    built = build_records(parsed, report.matched, ident)
    check_judges_read(parsed, built)
    entry = _provenance(parsed, digests, report, dict(suite=suite, id_map=id_map, skip_unmatched=skip_unmatched,
                                                      accept_reworded=accept_reworded, **given))
    if run.exists():
        from .writer import check_same_responses, read_run_responses

        existing = read_run_responses(run)
        check_same_responses(run, existing, built)
        built = build_records(parsed, report.matched, ident, existing)  # judges carry the run's own response rows
        outcome = write_into_run(run, run.load_config(), built, entry)
    else:
        outcome = write_new_run(run.root, new_config(ident, parsed, built, entry), built)
    return ImportResult(run.root, ident.submission_id, report, outcome, built.status)


def _all_files(paths: list[Path]) -> list[Path]:
    out = []
    for p in paths:
        out.extend(sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p])
    return out


def _provenance(parsed: ParsedSource, digests: list[str], report: MatchReport, options: dict) -> dict:
    files = _all_files(parsed.files)
    return {
        "format": parsed.format,
        "tool": parsed.tool,
        "tool_version": parsed.tool_version,
        "sources": [{"path": str(p), "sha256": d} for p, d in zip(files, digests)],
        "options": {k: v for k, v in options.items() if v not in (None, False, [], "")},
        "judges": parsed.judge_info,
        "counts": {"matched": len(report.matched), "unmatched": len(report.unmatched),
                   "duplicate": len(report.duplicates), "reworded": sum(m.reworded for m in report.matched)},
        "unmatched": [{"where": r.where, "why": why} for r, why in report.unmatched],
        "suite_totals": report.totals,
        "missing_items": report.missing,
    }
