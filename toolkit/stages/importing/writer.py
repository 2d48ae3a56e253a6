"""Write imported records as an ordinary run folder, or add judges to an existing one.

Nothing is written until every check has passed. The records are written by the import stages on
the engine (:mod:`.stage`). A new run folder is assembled beside ``--out`` and renamed into place
(one step); staging folders that killed imports left beside it are removed first (:mod:`.staging`,
only those of dead processes). An existing run gets its new records appended by the same stages (a killed import
resumes), then its run.json. Into an existing run:

- responses must equal the run's byte for byte, item set included (else: the first differing item);
- a judge the run already has is left as it is when its records would be identical, and is an
  error naming the first differing item and field when they differ (never a duplicate record).
"""
from __future__ import annotations

import datetime as _dt
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from schemas import GenerationConfig

from toolkit import __version__
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunConfig, RunDir
from toolkit.stages.suites import get_suite
from .base import ImportRefused
from .records import BuiltRecords
from .stage import first_difference, run_import_stages
from .staging import StaleStaging, make_staging, remove_stale_staging



@dataclass
class WriteOutcome:
    created: bool  # a new run folder
    judges_added: list[str] = field(default_factory=list)
    judges_unchanged: list[str] = field(default_factory=list)
    suites_added: list[str] = field(default_factory=list)
    stale_removed: list[StaleStaging] = field(default_factory=list)  # staging folders of killed imports


def read_run_responses(run: RunDir) -> dict[str, dict[str, dict]]:
    out: dict[str, dict[str, dict]] = {}
    for path in run.response_files():
        rows: dict[str, dict] = {}
        for line, row in iter_jsonl(path):
            if not isinstance(row, dict) or "item_id" not in row:
                raise ImportRefused(f"{path}:{line}: unreadable response record; run `slmboard validate {run.root}`")
            rows[row["item_id"]] = row
        out[path.stem] = rows
    return out


def check_same_responses(run: RunDir, existing: dict[str, dict[str, dict]], built: BuiltRecords) -> None:
    """The imported responses of each suite the run has must be the run's, byte for byte."""
    for suite, rows in built.responses.items():
        if suite not in existing:
            continue
        have = existing[suite]
        for row in rows:
            old = have.get(row["item_id"])
            where = built.where[(suite, row["item_id"])]
            if old is None:
                raise ImportRefused(f"{where}: item {row['item_id']!r} has no response in {run.response_file(suite)}; "
                                    "a run folder holds one set of responses (import into another out folder)", param="out")
            if old.get("response") != row["response"]:
                raise ImportRefused(f"{where}: response to {row['item_id']!r} differs from {run.response_file(suite)} "
                                    "(judges are added only to the same responses, byte for byte)")
        lacking = [i for i in have if i not in {r["item_id"] for r in rows}]
        if lacking:
            raise ImportRefused(f"{run.response_file(suite)}: the source lacks {len(lacking)} item(s) of the run, first "
                                f"{lacking[0]!r}; a judge must cover every response of the run")


def judge_file_state(path: Path, rows: list[dict]) -> str:
    """'new' (no file), 'same' (identical records), 'resume' (identical so far: an import killed
    part-way) or raise naming the first differing item and field."""
    if not path.exists():
        return "new"
    old = {r["item_id"]: r for _, r in iter_jsonl(path) if isinstance(r, dict) and "item_id" in r}  # a torn line is cut later
    new = {r["item_id"]: r for r in rows}
    for item_id, before in old.items():
        row = new.get(item_id)
        if row is None:
            raise ImportRefused(f"{path}: judge {before.get('judge_id')} has a record of item {item_id!r}, which the source lacks")
        fld = first_difference(before, row)
        if fld is not None:
            raise ImportRefused(f"{path}: judge {row['judge_id']} already judged {item_id!r} with another {fld} "
                                f"({str(before.get(fld))[:60]!r} there, {str(row.get(fld))[:60]!r} in the source)")
    return "same" if len(old) == len(new) else "resume"


def suite_generation(built: BuiltRecords) -> dict[str, GenerationConfig]:
    """Each suite's decoding, as its first record carries it (the records of one suite share it)."""
    return {suite: GenerationConfig.model_validate(rows[0]["generation"]) for suite, rows in built.responses.items()}


def new_config(ident, parsed, built: BuiltRecords, entry: dict) -> RunConfig:
    per_suite = suite_generation(built)
    suites = list(built.responses)
    return RunConfig(
        submission_id=ident.submission_id, model_id=ident.model_id, model_revision=ident.model_revision,
        backend=f"import:{parsed.format}", generation=per_suite[suites[0]], suite_generation=per_suite, suites=suites,
        suite_revisions={s: get_suite(s).revision for s in suites}, toolkit_version=__version__,
        created_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), imports=[entry],
    )


def write_new_run(out: Path, config: RunConfig, built: BuiltRecords) -> WriteOutcome:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ImportRefused(f"{out} exists and is not a run folder (no run.json); choose another out folder", param="out")
    out.parent.mkdir(parents=True, exist_ok=True)
    stale = remove_stale_staging(out)
    staging = make_staging(out)
    try:
        run_import_stages(staging, built.responses, built.judgments)
        RunDir(staging).save_config(config)
        if out.exists():
            out.rmdir()  # empty, checked above
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return WriteOutcome(True, sorted({j for j, _ in built.judgments}), [], list(built.responses), stale)


def write_into_run(run: RunDir, config: RunConfig, built: BuiltRecords, entry: dict) -> WriteOutcome:
    """Add suites and judges to an existing run (checks first, then writes)."""
    existing = read_run_responses(run)
    check_same_responses(run, existing, built)
    new_suites = {s for s in built.responses if s not in existing}
    states = {key: judge_file_state(run.judgment_file(*key), rows) for key, rows in built.judgments.items()}
    to_write = [key for key, state in states.items() if state in ("new", "resume")]
    run_import_stages(run.root, built.responses, built.judgments)  # what is on disk already is skipped (checked equal)
    updated = config.model_copy(update={
        "suites": config.suites + [s for s in built.responses if s not in config.suites],
        "suite_revisions": {**config.suite_revisions, **{s: get_suite(s).revision for s in new_suites}},
        "suite_generation": {**config.suite_generation,
                             **{s: g for s, g in suite_generation(built).items() if s in new_suites}},
        # the same source imported again changes nothing: its entry is there already
        "imports": config.imports if entry in config.imports else config.imports + [entry],
    })
    run.save_config(updated)
    stale = remove_stale_staging(run.root)
    added = sorted({j for j, _ in to_write})
    same = sorted({j for (j, _), s in states.items() if s == "same"} - set(added))
    return WriteOutcome(False, added, same, sorted(new_suites), stale)

