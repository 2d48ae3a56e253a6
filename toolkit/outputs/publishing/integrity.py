"""Integrity checks a submission must pass before anything is written.

- item set: every suite's records are compared with the suite's canonical item list (missing,
  duplicate and unknown item ids; a prompt whose sha256 differs from the canonical prompt's is an
  altered prompt). The canonical list comes from ``toolkit.stages.suites.load_items`` with the run's data
  dir; a suite that cannot be loaded here (no mirror, offline) is reported as *not checked*.
- moderation records (``RUN/moderation/*.jsonl``): schema, run membership, duplicates.
- manifest completeness: every suite of run.json judged by every judge, record files non-empty
  and their content hashes equal to the bytes that will be published.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemas import Submission, sha256_text

from toolkit.core.errors import RecordError
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunConfig, RunDir
from toolkit.data.validation import iter_validated


@dataclass
class ItemSetReport:
    errors: list[RecordError] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)  # suites compared with their canonical list
    unchecked: dict[str, str] = field(default_factory=dict)  # suite -> why it could not be
    totals: dict[str, int] = field(default_factory=dict)  # suite -> canonical item count (checked suites)
    missing: dict[str, list[str]] = field(default_factory=dict)  # suite -> canonical ids absent (allow_partial)
    refused_partial: bool = False  # canonical items are missing and allow_partial was not given


def canonical_items(suite: str, data_dir: str | Path | None, limit: int | None) -> tuple[dict[str, str] | None, dict[str, str], str | None]:
    """({item_id: prompt_sha256} of the first ``limit`` items, {same, for all items}, why-not) for ``suite``."""
    from toolkit.core.errors import UnknownComponent
    from toolkit.stages.suites import SuiteDataError, load_items

    try:
        items = load_items([suite], data_dir=data_dir)
    except (SuiteDataError, UnknownComponent, OSError, ValueError) as exc:
        return None, {}, str(exc).rstrip(".")  # said to a user: the message, never the exception's class
    full = {i.item_id: sha256_text(i.prompt) for i in items}
    expected = dict(list(full.items())[:limit]) if limit else full
    return expected, full, None


def check_item_set(
    run: RunDir, config: RunConfig, groups: dict[tuple[str, str], list[dict]], data_dir: str | Path | None = None,
    allow_partial: bool = False,
) -> ItemSetReport:
    """Compare each (suite, judge) group and each response file with the suite's canonical items.

    ``allow_partial``: canonical items a run lacks are recorded in ``missing`` instead of refused
    (every judge must still cover the same items: the run's responses)."""
    report = ItemSetReport()
    data_dir = data_dir if data_dir is not None else getattr(config, "data_dir", None)
    suites = sorted({s for s, _ in groups} | {p.stem for p in run.response_files()})
    for suite in suites:
        expected, full, why = canonical_items(suite, data_dir, config.limit)
        if expected is None:
            report.unchecked[suite] = why or "not loadable"
            continue
        report.checked.append(suite)
        report.totals[suite] = len(full)
        # Responses: duplicates and prompts, row by row (the file the user can fix).
        resp_file = run.response_file(suite)
        seen: dict[str, int] = {}
        if resp_file.is_file():
            for row_no, row in iter_jsonl(resp_file):
                if not isinstance(row, dict) or "item_id" not in row:
                    continue
                iid = str(row["item_id"])
                if iid in seen:
                    report.errors.append(RecordError(str(resp_file), row_no, "item_id", f"duplicate item {iid!r} (first at row {seen[iid]})"))
                seen.setdefault(iid, row_no)
                report.errors.extend(_check_one(str(resp_file), row_no, iid, row.get("prompt_sha256"), full))
        judged = [(str(run.judgment_file(judge_id, suite)), rows)
                  for (g_suite, judge_id), rows in sorted(groups.items()) if g_suite == suite]
        _check_judged_items(report, suite, expected, full, judged, allow_partial)
    return report


def check_published_item_set(manifest: Submission, rows_by_path: dict[str, list[dict]], where: str,
                              data_dir: str | Path | None = None) -> ItemSetReport:
    """:func:`check_item_set` for a submission already written as a dataset's files (``slmboard
    review`` of a pull request): each (suite, judge) record file the manifest lists, its rows read
    back (``rows_by_path``: dataset path → rows), against the suite's canonical items, with the run's
    ``limit`` from the manifest's run_config. Items missing are refused unless the manifest is
    ``partial``; then its ``missing_items`` must name exactly the items that are missing."""
    report = ItemSetReport()
    limit = (manifest.run_config or {}).get("limit")
    by_suite: dict[str, list[tuple[str, list[dict]]]] = {}
    for rf in manifest.record_files:
        if rf.suite and rf.judge_id and rf.path in rows_by_path:
            by_suite.setdefault(rf.suite, []).append((rf.path, rows_by_path[rf.path]))
    for suite, judged in sorted(by_suite.items()):
        expected, full, why = canonical_items(suite, data_dir, limit)
        if expected is None:
            report.unchecked[suite] = why or "not loadable"
            continue
        report.checked.append(suite)
        report.totals[suite] = len(full)
        _check_judged_items(report, suite, expected, full, judged, allow_partial=manifest.partial)
        declared, found = sorted(manifest.missing_items.get(suite, [])), report.missing.get(suite, [])
        if manifest.partial and declared != found:
            report.errors.append(RecordError(
                where, None, "missing_items",
                f"{suite}: the manifest declares {len(declared)} missing item(s), the records lack {len(found)}"
                f" (undeclared: {', '.join(sorted(set(found) - set(declared))[:5]) or 'none'};"
                f" present: {', '.join(sorted(set(declared) - set(found))[:5]) or 'none'})"))
    return report


def _check_judged_items(report: ItemSetReport, suite: str, expected: dict[str, str], full: dict[str, str],
                        judged: list[tuple[str, list[dict]]], allow_partial: bool) -> None:
    """Each judge's records of ``suite`` (``(file, rows)``; a row's ``_row`` is its line) against the
    canonical items: unknown ids, altered prompts, and canonical items missing (refused, or recorded
    in ``report.missing`` with ``allow_partial``)."""
    for file, rows in judged:
        ids = set()
        for n, row in enumerate(rows, start=1):
            ids.add(row["item_id"])
            report.errors.extend(_check_one(file, row.get("_row", n), row["item_id"], row.get("prompt_sha256"), full))
        missing = [i for i in expected if i not in ids]
        if missing and allow_partial:
            report.missing[suite] = sorted(set(report.missing.get(suite, [])) | set(missing))
        elif missing:
            report.refused_partial = True
            report.errors.append(RecordError(
                file, None, "item_id",
                f"{len(missing)} of the {len(expected)} canonical {suite} item(s) missing: {', '.join(missing[:5])}"
                + (" …" if len(missing) > 5 else "")))


def _check_one(file: str, row_no: int, item_id: str, prompt_sha: Any, full: dict[str, str]) -> list[RecordError]:
    if item_id not in full:
        return [RecordError(file, row_no, "item_id", f"unknown item {item_id!r}: not in the suite's canonical list")]
    if prompt_sha != full[item_id]:
        return [RecordError(file, row_no, "prompt_sha256",
                            f"prompt of {item_id!r} differs from the canonical prompt (altered prompt)")]
    return []


def moderation_rows(run: RunDir, config: RunConfig) -> tuple[list[dict], list[RecordError]]:
    """Validated ModerationRecords of the run (``RUN/moderation/*.jsonl``), as JSON-ready dicts."""

    rows: list[dict] = []
    errors: list[RecordError] = []
    seen: dict[tuple, str] = {}
    for path in run.moderation_files():
        for name, row_no, rec in iter_validated(path, "moderation"):
            if isinstance(rec, RecordError):
                errors.append(rec)
                continue
            if rec.submission_id != config.submission_id:
                errors.append(RecordError(name, row_no, "submission_id", f"{rec.submission_id!r} differs from run.json ({config.submission_id!r})"))
            if rec.benchmark != path.stem:
                errors.append(RecordError(name, row_no, "benchmark", f"{rec.benchmark!r} in the file for benchmark {path.stem!r}"))
            key = (rec.moderator_id, rec.benchmark, rec.item_id, rec.prompt_variant)
            if key in seen:
                errors.append(RecordError(name, row_no, "item_id", f"duplicate of {seen[key]} (same moderator, benchmark, item, prompt_variant)"))
                continue
            seen[key] = f"{name}:{row_no}"
            rows.append(rec.model_dump(mode="json"))
    rows.sort(key=lambda r: (r["moderator_id"], r["benchmark"], r["item_id"], r["prompt_variant"]))
    return rows, errors


def suite_scoped_judges(config: RunConfig) -> dict[str, set[str]]:
    """Imported judges that the source tool applied to some suites only: judge_id -> those suites.

    HELM judges each scenario with that scenario's own annotator, so ``helm:harm_bench:...`` has
    nothing to say about SimpleSafetyTests. The importer records this in run.json
    (``imports[].judges[judge].suites``); such a judge must cover every item of *its* suites, and
    its absence from the run's other suites is not a missing judgment. Every other judge must
    cover every suite of the run.
    """
    scoped: dict[str, set[str]] = {}
    for entry in config.imports:
        for judge, info in (entry.get("judges") or {}).items():
            if isinstance(info, dict) and isinstance(info.get("suites"), list):
                scoped.setdefault(judge, set()).update(str(s) for s in info["suites"])
    return scoped


def check_manifest(manifest: Submission, files: dict[str, bytes], config: RunConfig, where: str) -> list[RecordError]:
    """Completeness of the manifest and agreement of its content hashes with the bytes to publish."""
    errors: list[RecordError] = []
    if not manifest.record_files:
        errors.append(RecordError(where, None, "record_files", "the submission has no record files"))
    listed = {f.path for f in manifest.record_files}
    for rf in manifest.record_files:
        data = files.get(rf.path)
        if data is None:
            errors.append(RecordError(where, None, "record_files", f"{rf.path} is listed but not part of the submission"))
        elif hashlib.sha256(data).hexdigest() != rf.sha256:
            errors.append(RecordError(where, None, "record_files", f"{rf.path}: sha256 differs from the manifest"))
        if rf.n_rows < 1:
            errors.append(RecordError(where, None, "record_files", f"{rf.path}: no rows"))
    for path in files:
        if path not in listed:
            errors.append(RecordError(where, None, "record_files", f"{path} would be published without a manifest entry"))
    judged = {(f.suite, f.judge_id) for f in manifest.record_files if f.suite and f.judge_id}
    judges = sorted({j for _, j in judged})
    scoped = suite_scoped_judges(config)
    for suite in config.suites:
        for judge in judges:
            unfit = judge in manifest.judge_fits and manifest.suite_kinds.get(suite, "") not in ("", *manifest.judge_fits[judge])
            if (suite, judge) not in judged and suite in scoped.get(judge, {suite}) and not unfit:
                errors.append(RecordError(where, None, "suites", f"run.json lists suite {suite!r} but it has no judgments by {judge}"))
    for fld in ("model_id", "model_revision", "toolkit_version", "created_at"):
        if not getattr(manifest, fld):
            errors.append(RecordError(where, None, fld, "missing"))
    return errors


def metadata_gaps(manifest: Submission) -> list[str]:
    """Optional manifest fields the leaderboard filters use; reported, not refused."""
    gaps = [f for f in ("family", "params") if getattr(manifest, f) in (None, "")]
    if manifest.tuning == "unknown" and manifest.instruction_tuned is None:
        gaps.append("tuning / instruction_tuned")
    return gaps
