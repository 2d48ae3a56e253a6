"""Validate a run, then publish it as one commit: per-item parquet files, manifest, rebuilt shared files.

The target is a local folder (:class:`LocalFolderHub`, a git repository) or a Hub dataset repo
(:class:`~toolkit.outputs.publishing.hub.HubPublisher`); both take the same ``write(root)`` callback, so
what a submission writes is decided once, here.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import os
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from schemas import RecordFile, Submission

from toolkit import __version__
from toolkit.core.board_recipe import read_recipe
from toolkit.core.dataset_layout import BOARD_FILE
from toolkit.core.errors import AlreadyPublished, BadOption, BoardRecipeRefused, RecordError, SlmboardError, ValidationFailed
from toolkit.core.arrow_schemas import ITEM_RECORD_SCHEMA, MODERATION_RECORD_SCHEMA
from toolkit.stages.judging.lookup import not_comparable
from toolkit.core.records_io import (
    arrow_table,
    atomic_write_bytes,
    atomic_write_text,
    iter_jsonl,
)
from toolkit.core.runs import RunConfig, RunDir
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP
from toolkit.core.secrets import scrub_secrets
from toolkit.data.validation import iter_validated, pydantic_errors
from . import layout
from .boards import refuse_missing_board
from .card import CardChoices, card_choices, dataset_eval_yaml, license_text, render_card
from toolkit.stages.judging.fitness import fitting_judges_hint
from toolkit.stages.suites import FULL_ITEMS, FULL_OF, sampled_suites
from .fitness import fits, judge_fits_of_run, suite_kinds_of_run, unfit_record_errors
from .integrity import check_item_set, check_manifest, metadata_gaps, moderation_rows, suite_scoped_judges
from .local_folder import CommitInfo, LocalFolderHub
from .rebuild import manifest_json, submissions_index

if TYPE_CHECKING:
    import pandas as pd


ROW_KEY = "_row"  # the source line of a record, carried beside it until the parquet is written


@dataclass
class PreparedSubmission:
    manifest: Submission
    files: dict[str, bytes]  # dataset-relative path → parquet bytes
    n_records: int
    notes: list[str] = field(default_factory=list)  # checks that could not run, metadata gaps
    not_comparable: list[str] = field(default_factory=list)  # suites / judges whose results are not comparable


@dataclass
class SubmitResult:
    dataset: Path | str  # a folder, or "hf://datasets/org/name"
    submission_id: str
    revision: str
    files: list[str]
    n_records: int
    pr_url: str | None = None
    attempts: int = 1
    notes: list[str] = field(default_factory=list)
    judge_id: str | None = None  # evaluate: the id its judge wrote
    #: suites and judges of the run whose results are not comparable with reported results (smoke, heuristic)
    not_comparable: list[str] = field(default_factory=list)


def _parquet_bytes(rows: list[dict[str, Any]], schema: pa.Schema = ITEM_RECORD_SCHEMA) -> bytes:
    """Parquet of ``rows``; a key outside the schema is an error (never silently dropped)."""
    table = arrow_table(rows, schema)
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def _fitness(run: RunDir, config: RunConfig, groups: dict[tuple[str, str], list[dict]],
             responses: dict[str, set[str]]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """(judge id -> kinds it fits, suite -> kind) of the run: what the manifest records."""
    rows_by_suite: dict[str, list[dict]] = {}
    for (suite, _), rows in groups.items():
        rows_by_suite.setdefault(suite, rows)
    suite_kinds = suite_kinds_of_run([*responses, *(s for s, _ in groups)], rows_by_suite)
    judged: dict[str, set[str]] = defaultdict(set)
    for suite, judge_id in groups:
        judged[judge_id].add(suite)
    return judge_fits_of_run(run, config, judged, suite_kinds), suite_kinds


def _check_run_records(run: RunDir, config: RunConfig) -> tuple[dict[tuple[str, str], list[dict]], list[RecordError]]:
    """Validate every judgment row and check that it belongs to this run and covers its responses."""
    errors: list[RecordError] = []
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    seen: dict[tuple, str] = {}
    files = run.judgment_files()
    if not files and not run.moderation_files():
        errors.append(RecordError(str(run.root), None, None, f"no judgments; run `slmboard judge {run.root}` first"))
        return groups, errors
    for path in files:
        for name, row_no, record in iter_validated(path, "item"):
            if isinstance(record, RecordError):
                errors.append(record)
                continue
            for key in ("submission_id", "model_id", "model_revision"):
                if getattr(record, key) != getattr(config, key):
                    errors.append(RecordError(name, row_no, key, f"{getattr(record, key)!r} differs from run.json ({getattr(config, key)!r})"))
            if record.suite != path.stem:
                errors.append(RecordError(name, row_no, "suite", f"{record.suite!r} in the file for suite {path.stem!r}"))
            key = (record.suite, record.item_id, record.judge_id)
            if key in seen:
                errors.append(RecordError(name, row_no, "item_id", f"duplicate of {seen[key]} (same suite, item_id, judge_id)"))
                continue
            seen[key] = f"{name}:{row_no}"
            # "_row" (the file line, for error messages) is stripped before the parquet is written.
            groups[(record.suite, record.judge_id)].append({**record.model_dump(mode="json"), ROW_KEY: row_no})
    # Every generated response must be judged by every judge present (no silent drops).
    responses: dict[str, set[str]] = {}
    for path in run.response_files():
        responses[path.stem] = {row["item_id"] for _, row in iter_jsonl(path) if isinstance(row, dict) and "item_id" in row}
    errors += stale_judgments(run, groups)
    judges = sorted({j for _, j in groups})
    scoped = suite_scoped_judges(config)
    fitness = _fitness(run, config, groups, responses)
    errors += unfit_record_errors(run, groups, *fitness)
    for suite, ids in responses.items():
        for judge_id in judges:
            if suite not in scoped.get(judge_id, {suite}) and (suite, judge_id) not in groups:
                continue  # an imported judge of other suites only (HELM's per-scenario annotators)
            if not fits(*fitness, suite, judge_id):
                continue  # a judge that cannot judge this suite's kind (refused above where it has records)
            judged = {r["item_id"] for r in groups.get((suite, judge_id), [])}
            missing = sorted(ids - judged)
            unknown = sorted(judged - ids)
            file = str(run.judgment_file(judge_id, suite))
            if missing:
                errors.append(RecordError(file, None, "item_id", f"{len(missing)} generated item(s) not judged by {judge_id}: {', '.join(missing[:5])}"))
            if unknown:
                errors.append(RecordError(file, None, "item_id", f"{len(unknown)} judged item(s) with no response in the run: {', '.join(unknown[:5])}"))
    return groups, errors


def stale_judgments(run: RunDir, groups: dict[tuple[str, str], list[dict]]) -> list[RecordError]:
    """A judgment whose judged response differs from the run's response for that item (edited after it
    was judged) is refused, naming the item and the way out: judge again (unchanged items are free)."""
    from toolkit.core.runs import judged_response_sha256

    errors: list[RecordError] = []
    hashes = {suite: run.response_hashes(suite) for suite in {s for s, _ in groups}}
    for (suite, judge_id), rows in sorted(groups.items()):
        for row in rows:
            now = hashes[suite].get(row["item_id"])
            if now is not None and judged_response_sha256(row) != now[0]:
                errors.append(RecordError(
                    str(run.judgment_file(judge_id, suite)), row[ROW_KEY], "response",
                    f"item {row['item_id']!r}: the response judged differs from the run's "
                    f"({run.response_file(suite).name}:{now[1]}): a stale judgment; judge the run again with the "
                    f"judge that made {judge_id} (`slmboard judge {run.root} --judge SPEC`: only changed items are "
                    "judged anew)"))
            for vote in row.get("votes") or ():  # a panel whose member judged another response is stale too
                if now is not None and vote.get("response_sha256") not in (None, now[0]):
                    errors.append(RecordError(
                        str(run.judgment_file(judge_id, suite)), row[ROW_KEY], "votes",
                        f"item {row['item_id']!r}: member {vote.get('judge_id')} of {judge_id} judged another "
                        f"response than the run's ({run.response_file(suite).name}:{now[1]}): a stale panel; judge "
                        f"the run with {judge_id} again (`slmboard judge {run.root} --judge {judge_id}`)"))
    return errors


#: Manifest fields submit fills from the run; RUN/model.json may not set them.
_SET_BY_SUBMIT = frozenset({"submission_id", "model_id", "model_revision", "run_config", "toolkit_version", "created_at",
                            "record_files", "judge_configs", "judge_fits", "suite_kinds", "partial", "suite_totals",
                            "missing_items", "cost"})


def _model_metadata(run: RunDir, config: RunConfig) -> dict[str, Any]:
    """Manifest fields from the model config the run recorded, overridden by RUN/model.json."""
    info = dict(config.model_info)
    arch = {k: info.get(k) for k in ("n_layers", "n_heads", "n_kv_heads", "hidden_size", "vocab_size")}
    act = (info.get("activation") or "") or None
    arch.update(
        activation=act,
        gqa=(info.get("n_kv_heads") or 0) < (info.get("n_heads") or 0) if info.get("n_kv_heads") and info.get("n_heads") else None,
        silu=(act in ("silu", "swish")) if act else None,
    )
    meta: dict[str, Any] = {
        "params": float(info["params"]) if info.get("params") else None,
        "context_length": info.get("context_length"),
        "architecture": {k: v for k, v in arch.items() if v is not None},
    }
    from toolkit.stages.generation.embedded import MODEL_ID, MODEL_METADATA

    if config.model_id == MODEL_ID:  # the package's own model: its family, tuning and licence are known
        meta.update({k: v for k, v in MODEL_METADATA.items() if meta.get(k) is None})
    if run.model_info_path.is_file():
        try:
            extra = json.loads(run.model_info_path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise SlmboardError(f"{run.model_info_path}: not valid JSON: {exc}") from exc
        if not isinstance(extra, dict):
            raise SlmboardError(f"{run.model_info_path}: expected a JSON object of manifest fields")
        reserved = sorted(set(extra) & _SET_BY_SUBMIT)
        if reserved:  # these come from the run itself; letting model.json override them would misstate it
            raise SlmboardError(f"{run.model_info_path}: {', '.join(reserved)} cannot be set here: submit takes "
                                f"{'it' if len(reserved) == 1 else 'them'} from the run ({run.config_path}); remove "
                                f"{'it' if len(reserved) == 1 else 'them'} from {run.model_info_path.name}")
        arch_extra = extra.pop("architecture", {}) or {}
        meta["architecture"] = {**meta["architecture"], **arch_extra}
        meta.update(extra)
    return meta


def _judge_configs(run: RunDir, judge_ids: list[str]) -> tuple[dict[str, dict], list[RecordError]]:
    """The request settings each API judge recorded when it judged this run (``judge-config.json``), so a
    published verdict can be reproduced; judges that record none (local ones) are left out."""
    configs, errors = {}, []
    for judge_id in judge_ids:
        path = run.judge_config_file(judge_id)
        if not path.is_file():
            continue
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            errors.append(RecordError(str(path), None, None, f"not valid JSON: {exc}"))
            continue
        if not isinstance(config, dict) or config.get("judge_id", judge_id) != judge_id:
            errors.append(RecordError(str(path), None, "judge_id",
                                      f"expected the settings of judge {judge_id!r}, found {str(config)[:200]}"))
            continue
        configs[judge_id] = scrub_secrets(config)
    return configs, errors


def board_judge_ids(root: Path) -> dict[str, str]:
    """judge id -> a submission that publishes it, over every manifest of the board folder ``root``."""
    out: dict[str, str] = {}
    for path in layout.manifest_files(Path(root)):
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a broken manifest is the reader's to report; it publishes no judge here
        files = manifest.get("record_files") if isinstance(manifest, dict) else None
        for f in files if isinstance(files, list) else ():
            if isinstance(f, dict) and isinstance(f.get("judge_id"), str):
                out.setdefault(f["judge_id"], str(manifest.get("submission_id") or path.stem))
    return out


def refuse_slug_clash(judge_ids: Sequence[str], root: Path | None = None, where: str = "") -> None:
    """No two judge ids may share a file slug (one folder of a run, one file name of a board): two of the run's, or
    one of the run's and one the board ``root`` already publishes; one line naming both, before anything is written."""
    from toolkit.core.judge_names import judge_slug, slug_clash

    on_board = board_judge_ids(root) if root is not None else {}
    clash = slug_clash(judge_ids, on_board)
    if clash is None:
        return
    mine, other = clash
    there = f" (published in {where} by {on_board[other]})" if other in on_board and other not in judge_ids else ""
    raise SlmboardError(f"judge ids {mine} and {other}{there} share the file slug {judge_slug(mine)}: rename one "
                        "(no two judge ids may share a slug)")


def run_cost_of(run: RunDir, judge_ids: set[str]) -> dict:
    """The run's cost.json, kept to the generation and the judges published (a judge left out costs the board
    nothing it shows)."""
    from toolkit.core.usage import GENERATION, read_cost

    return {k: v for k, v in read_cost(run).items() if k == GENERATION or k in judge_ids}


def unchecked_note(suite: str, why: str, sample: str | None, data_dir) -> str:
    """Why a suite's items were not checked against its canonical list, and what would check them."""
    if sample:
        return (f"suite {suite!r}: the data folder {data_dir} holds slmboard's sample of it ({sample}), not its "
                f"canonical list, so its items are not checked against one; its coverage counts against "
                f"{FULL_OF[suite]} ({FULL_ITEMS[suite]} items), so the board shows it as partial")
    fix = ("put its files there (`slmboard suites download`)" if data_dir is not None
           else "pass --data-dir with a local mirror")
    return f"item set of suite {suite!r} not checked against its canonical list ({why}); {fix}"


_GAP_EXAMPLES = {"family": '"family": "<its family>"', "params": '"params": <parameter count>',
                 "tuning / instruction_tuned": '"tuning": "base" | "instruct" | "chat"'}


def metadata_note(gaps: list[str], model_id: str, model_info_path: Path) -> str:
    """What the leaderboard's filters miss and how a run gets it: a published manifest keeps its fields (an
    update only adds judges), so the fields go into RUN/model.json before the run is submitted."""
    example = ", ".join(_GAP_EXAMPLES[g] for g in gaps if g in _GAP_EXAMPLES)
    return (f"manifest of {model_id} lacks {', '.join(gaps)} (the leaderboard's filters use them); a published "
            f"manifest keeps its fields (an update only adds judges), so a run takes them from {model_info_path}, "
            f"written before it is submitted: a JSON object of manifest fields ({{{example}}})")


def prepare_submission(run_dir: str | Path, submitter: str | None = None, data_dir: str | Path | None = None,
                       allow_partial: bool = False) -> PreparedSubmission:
    """Everything a submission would write, validated; raises :class:`ValidationFailed` on any problem.

    ``allow_partial``: a run lacking canonical suite items is published; the manifest lists them."""
    run = RunDir(run_dir)
    config = run.load_config()
    groups, errors = _check_run_records(run, config)
    refuse_slug_clash(sorted({judge_id for _, judge_id in groups}))
    items = check_item_set(run, config, groups, data_dir, allow_partial=allow_partial)
    errors.extend(items.errors)
    mod_rows, mod_errors = moderation_rows(run, config)
    errors.extend(mod_errors)
    judge_configs, config_errors = _judge_configs(run, sorted({judge_id for _, judge_id in groups}))
    judge_fits, suite_kinds = _fitness(run, config, groups, {s: set() for s in config.suites})
    errors.extend(config_errors)
    if errors:
        refused = ValidationFailed(errors, param="allow_partial" if items.refused_partial else None)
        if items.refused_partial:
            refused.args = (f"{refused.args[0]}\na run lacking canonical items is published with allow_partial "
                            "(the manifest lists them)",)
        raise refused
    # a data folder holding the package's sample of a suite (an import has no run.json mark of it): said as such,
    # and its coverage counts against the whole of what the sample is cut from, as for a run made from it
    folder = data_dir if data_dir is not None else getattr(config, "data_dir", None)
    held = sampled_suites(folder, sorted(set(config.suites) | set(items.unchecked)))
    notes = [unchecked_note(s, why, held.get(s), folder) for s, why in sorted(items.unchecked.items())]
    files: dict[str, bytes] = {}
    record_files = []
    for (suite, judge_id), rows in sorted(groups.items()):
        rows.sort(key=lambda r: r["item_id"])
        path = layout.item_file(suite, config.submission_id, judge_id)
        data = _parquet_bytes([{k: v for k, v in r.items() if k != ROW_KEY} for r in rows])
        files[path] = data
        record_files.append(
            RecordFile(path=path, sha256=hashlib.sha256(data).hexdigest(), n_rows=len(rows), suite=suite, judge_id=judge_id)
        )
    if mod_rows:
        path = layout.moderation_file(config.submission_id)
        data = _parquet_bytes(mod_rows, MODERATION_RECORD_SCHEMA)
        files[path] = data
        record_files.append(RecordFile(path=path, sha256=hashlib.sha256(data).hexdigest(), n_rows=len(mod_rows)))
    meta = _model_metadata(run, config)
    # a run made from the package's sample counts its coverage against the whole suite (shown as partial)
    sampled = {s: share for s, share in {**config.suite_samples, **held}.items() if s in FULL_ITEMS}
    totals = {**items.totals, **{s: max(FULL_ITEMS[s], items.totals.get(s, 0)) for s in sampled}}
    try:
        manifest = Submission(
            submission_id=config.submission_id,
            model_id=config.model_id,
            model_revision=config.model_revision,
            submitter=submitter or meta.pop("submitter", None),
            run_config=scrub_secrets(config.model_dump(mode="json", exclude={"model_info"})),  # model_args may carry a token
            toolkit_version=__version__,
            created_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            record_files=record_files,
            judge_configs=judge_configs,
            judge_fits=judge_fits,
            suite_kinds=suite_kinds,
            cost=run_cost_of(run, {f.judge_id for f in record_files if f.judge_id}),
            partial=any(items.missing.values()),
            suite_totals=totals,
            missing_items={k: v for k, v in items.missing.items() if v},
            **{k: v for k, v in meta.items() if k != "submitter"},
        )
    except Exception as exc:
        from pydantic import ValidationError

        if isinstance(exc, ValidationError):
            raise ValidationFailed(pydantic_errors(exc, str(run.model_info_path), None)) from exc
        raise
    manifest_errors = check_manifest(manifest, files, config, str(run.config_path))
    if manifest_errors:
        raise ValidationFailed(manifest_errors)
    gaps = metadata_gaps(manifest)
    for suite in sorted(set(config.suites) - {f.suite for f in record_files if f.suite}):
        kind = suite_kinds.get(suite, "")
        notes.append(f"suite {suite}: no judge of the run can judge it ({kind}); its responses are not published — "
                     f"judge it with --judge {fitting_judges_hint(kind)} and submit again")
    for suite, ids in sorted(items.missing.items()):
        notes.append(f"partial: {len(ids)} of {items.totals[suite]} {suite} item(s) missing (listed in the manifest)")
    for suite, share in sorted(sampled.items()):
        if suite not in items.unchecked:  # (an unchecked suite's note says it already)
            notes.append(f"suite {suite}: made from slmboard's sample ({share}); its coverage counts against "
                         f"{FULL_OF[suite]} ({totals[suite]} items), so the board shows it as partial")
    if gaps:
        notes.append(metadata_note(gaps, config.model_id, run.model_info_path))
    caveats = not_comparable([f.suite for f in record_files if f.suite], [f.judge_id for f in record_files if f.judge_id])
    return PreparedSubmission(manifest, files, sum(f.n_rows for f in record_files), notes, caveats)


def submit(run_dir: str | Path, to: str | Path, submitter: str | None = None, n_bootstrap: int = N_BOOTSTRAP,
           data_dir: str | Path | None = None, create_pr: bool = False, xet: bool | None = None,
           max_attempts: int = 8, allow_partial: bool = False, primary_judges: dict[str, str] | None = None,
           gate: bool | None = None) -> SubmitResult:
    """Validate ``run_dir`` and publish it into the board ``to`` as one commit: a local folder (git), or a Hub
    dataset (``hf://datasets/org/name[@branch]`` or ``org/name[@branch]``), made by ``slmboard create``; a
    board that does not exist is refused. Nothing is written unless every check passes, board.yaml's included.

    ``primary_judges`` ({suite: judge}) are recorded in the dataset card; None keeps what the card already
    says. ``gate=False`` is refused: gating is the board's, set when it is created."""
    from .hub import HubPublisher, parse_target

    refuse_gate_option(gate)
    ref = parse_target(to)  # an ambiguous --to is refused before the run is read
    where = ref.repo_id if ref.is_hub else ref.path
    prepared = prepare_submission(run_dir, submitter, data_dir, allow_partial)  # nothing is touched before this passes
    manifest = prepared.manifest
    sid = manifest.submission_id
    refuse_missing_board(ref)

    def refuse_existing(root: Path) -> None:
        refuse_slug_clash([f.judge_id for f in manifest.record_files if f.judge_id], root, str(where))
        if (root / layout.manifest_file(sid)).exists():
            raise AlreadyPublished(f"submission {sid!r} is already in {where}; to publish the judges it has gained "
                                   "since, submit it as an update; a new revision of the model takes a new submission id",
                                   param="update")
        for rel in prepared.files:
            if (root / rel).exists():
                raise AlreadyPublished(f"{rel} already exists in {where}; per-item files are append-only")

    def write(root: Path) -> list[str]:
        refuse_existing(root)  # under the lock / on the fresh snapshot: another submitter may have landed
        fit_recipe(root)
        staged = staging_dir(root)  # a local board: outside data/ until just before the commit
        for rel, data in prepared.files.items():
            atomic_write_bytes((staged or root) / rel, data)
        atomic_write_text((staged or root) / layout.manifest_file(sid), manifest_json(manifest))
        choices = card_choices(root, primary_judges, gate)  # --primary-judge / --no-gate, else the card's
        table = rebuild_shared_files(root, n_bootstrap=n_bootstrap, repo_id=ref.repo_id, choices=choices, staged=staged)
        prepared.notes.extend(table.attrs.get("left_out", []))
        return sorted(prepared.files) + [layout.manifest_file(sid)]

    def fit_recipe(root: Path) -> None:
        """A board made by `slmboard create` takes only what its board.yaml allows (a board without one: anything)."""
        recipe = read_recipe(root)
        if recipe is None:
            return
        files = manifest.record_files
        broken = recipe.refusals(sorted({f.suite for f in files if f.suite}), sorted({f.judge_id for f in files if f.judge_id}),
                                 dict(manifest.run_config.get("generation") or {}), manifest.run_config.get("limit"),
                                 manifest.partial)
        if broken:
            raise BoardRecipeRefused(f"{where}: the run does not fit the board's {BOARD_FILE}: {'; '.join(broken)}")

    message = f"Add submission {sid} ({manifest.model_id}@{manifest.model_revision[:12]})"
    if ref.is_hub:
        if create_pr is None:
            create_pr = False
        hub = HubPublisher(ref.repo_id, create_pr=create_pr, xet=xet, max_attempts=max_attempts, create=False,
                           revision=ref.revision or "main")
        hub.check_branch()
        done = hub.commit(message, write)
        bad = hub.verify(done.pr_revision or done.revision, {f.path: f.sha256 for f in manifest.record_files})
        if bad:
            raise SlmboardError(f"published files disagree with the manifest: {'; '.join(bad)}")
        return SubmitResult(ref.url, sid, done.revision, done.files, prepared.n_records,
                            done.pr_url, done.attempts, prepared.notes, not_comparable=prepared.not_comparable)
    if create_pr:
        raise SlmboardError(f"a pull request needs a Hub board (ORG/NAME); the local folder {ref.written} has no pull "
                            "requests: leave create_pr unset and submit to it directly (its checks run before anything is written)",
                            param="create_pr")
    local = LocalFolderHub(where)
    if not local.has_inflight():
        # Before taking the lock, so a refused submission touches nothing. With a crashed writer's
        # leftovers in the tree this check waits until commit() has rolled them back.
        refuse_existing(local.root)
    info: CommitInfo = local.commit(message, write)
    return SubmitResult(local.root, sid, info.revision, info.files, prepared.n_records, notes=prepared.notes,
                        not_comparable=prepared.not_comparable)


def move_in(staged: Path, root: Path) -> None:
    """Every file of ``staged`` renamed to its place in ``root`` (same file system: each move is atomic)."""
    for path in sorted(p for p in staged.rglob("*") if p.is_file()):
        target = root / path.relative_to(staged)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)
    shutil.rmtree(staged, ignore_errors=True)


def refuse_gate_option(gate: bool | None) -> None:
    """Gating is a property of the board, set when it is created; a submission does not change it."""
    if gate is False:
        raise BadOption("gating is a property of the board, chosen when it is created (`slmboard create`, gate=False); "
                        "a board that exists keeps it (a maintainer lifts it with `slmboard recompute`)", param="gate")


def submit_unless_published(run_dir: str | Path, to: str | Path, judge_ids: Sequence[str] = (), **options: Any) -> SubmitResult:
    """:func:`submit`, with a run the dataset already holds reported (revision "already-published", the
    reason in ``notes``) instead of refused: a re-run of ``evaluate`` resumes to the end without failing.
    ``judge_ids``: the judges just run, for what makes the run not comparable with reported results."""
    try:
        return submit(run_dir, to, **options)
    except AlreadyPublished as exc:
        config = RunDir(run_dir).load_config()
        return SubmitResult(str(to), config.submission_id, "already-published", [], 0, notes=[str(exc)],
                            not_comparable=not_comparable(config.suites, judge_ids))


def staging_dir(root: Path) -> Path | None:
    """Where a submission to a local board writes its files until just before the commit: inside ``.git``,
    so neither git, ``load_dataset`` nor a reader of ``data/`` sees them (None: a Hub snapshot's copy)."""
    from .local_folder import STAGING

    if not (root / ".git").is_dir():
        return None
    shutil.rmtree(root / STAGING, ignore_errors=True)
    return root / STAGING


def rebuild_shared_files(root: Path, n_bootstrap: int = N_BOOTSTRAP, repo_id: str | None = None,
                         choices: CardChoices | None = None, staged: Path | None = None) -> pd.DataFrame:
    """Leaderboard, submissions index, README (card), LICENSE.md and eval.yaml, recomputed from what the
    folder holds (each written atomically); ``choices`` (gating, primary judges) default to what the
    current card records. ``staged``: new files a submission laid out there, read beside the folder's and
    moved in (with the leaderboard and index) just before the card is written. Returns the leaderboard."""
    from toolkit.data.reading import leaderboard, leaderboard_parquet
    from toolkit.data.reading.dataset import open_work_tree

    dataset = open_work_tree(root, staged)
    table = leaderboard(dataset, n_bootstrap=n_bootstrap)
    target = staged or root
    atomic_write_bytes(target / layout.LEADERBOARD_FILE, leaderboard_parquet(table))
    index = io.BytesIO()
    pq.write_table(submissions_index(dataset.manifests), index)
    atomic_write_bytes(target / layout.SUBMISSIONS_INDEX_FILE, index.getvalue())
    if staged is not None:
        move_in(staged, root)
    choices = card_choices(root) if choices is None else choices
    atomic_write_text(root / layout.CARD_FILE, render_card(root, repo_id=repo_id, choices=choices, board=table))
    atomic_write_text(root / layout.LICENSE_FILE, license_text(root))
    atomic_write_text(root / layout.EVAL_FILE, dataset_eval_yaml(root))
    return table
