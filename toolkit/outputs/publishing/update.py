"""``submit RUN --to DATASET --update``: a published submission takes the judges its run has gained since.

The update publishes the run's judgment files that the dataset does not hold yet and adds their judges to
the submission's manifest (``record_files``, ``judge_configs``, ``judge_fits``, ``suite_kinds``); nothing
already published changes. It is refused unless the run's responses equal the published ones by content
hash (prompt and response sha256 of every item, naming the items that differ), the submission is on the
board, and the run adds at least one judge. ``review`` runs the same check (:func:`check_update`) on a
pull request that changes a manifest, so an update also goes through PR mode (``--create-pr``).
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import Callable, Mapping

from schemas import RecordFile, Submission, sha256_text

from toolkit.core.errors import SlmboardError, UpdateRefused
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP
from . import layout

#: Manifest fields an update may extend (only with entries for the record files and judges it adds).
EXTENDED = ("record_files", "judge_configs", "judge_fits", "suite_kinds", "cost")
MAX_NAMED = 10


def _hashes(rows: list[dict]) -> dict[str, tuple[str, str]]:
    """item_id -> (prompt sha256, response sha256) of per-item rows."""
    return {r["item_id"]: (r.get("prompt_sha256") or sha256_text(r.get("prompt") or ""),
                           r.get("response_sha256") or sha256_text(r.get("response") or "")) for r in rows}


def parquet_rows(data: bytes | Path) -> list[dict]:
    import pyarrow.parquet as pq

    source = io.BytesIO(data) if isinstance(data, bytes) else data
    return pq.read_table(source, columns=["item_id", "prompt_sha256", "response", "response_sha256"]).to_pylist()


def check_update(published: Submission, updated: Submission, read: Callable[[str], list[dict]],
                 where: str) -> list[str]:
    """Problems that make ``updated`` more than ``published`` plus new judges (empty: a valid update).

    ``read(path)``: the rows (item_id, prompt_sha256, response, response_sha256) of a record file, published
    or added. Every field but :data:`EXTENDED` is unchanged; published record files and judge entries stay
    as they are; each added record file is a (suite, judge) the submission lacks, on a suite it already
    publishes, with the same items and the same prompt and response hashes as the published records."""
    problems = []
    keep = set(Submission.model_fields) - set(EXTENDED)
    before, after = published.model_dump(include=keep), updated.model_dump(include=keep)
    problems += [f"{where}: {k}: changed by the update ({before[k]!r} -> {after[k]!r}); an update only adds judges"
                 for k in sorted(keep) if before[k] != after[k] and k != "created_at"]
    old_files = {f.path: f for f in published.record_files}
    new_files = {f.path: f for f in updated.record_files}
    problems += [f"{where}: record_files: {p} removed or changed by the update" for p in sorted(old_files)
                 if new_files.get(p) != old_files[p]]
    for name in ("judge_configs", "judge_fits", "suite_kinds", "cost"):
        old, new = getattr(published, name), getattr(updated, name)
        problems += [f"{where}: {name}: {k!r} removed or changed by the update" for k in sorted(old) if new.get(k) != old[k]]
    pairs = {(f.suite, f.judge_id) for f in published.record_files if f.suite}
    published_by_suite: dict[str, dict[str, tuple[str, str]]] = {}
    for f in published.record_files:
        if f.suite and f.suite not in published_by_suite:
            published_by_suite[f.suite] = _hashes(read(f.path))
    added = [f for p, f in sorted(new_files.items()) if p not in old_files]
    for f in added:
        if not f.suite or not f.judge_id:
            problems.append(f"{where}: record_files: {f.path}: an update adds judgment files only")
            continue
        if (f.suite, f.judge_id) in pairs:
            problems.append(f"{where}: record_files: {f.path}: {f.judge_id}'s judgments of {f.suite} are already published")
            continue
        if f.suite not in published_by_suite:
            problems.append(f"{where}: record_files: {f.path}: suite {f.suite!r} is not published for this submission; "
                            "an update adds judges to the suites already published")
            continue
        problems += response_differences(published_by_suite[f.suite], _hashes(read(f.path)), f.path)
    judges_added = {f.judge_id for f in added}
    for name in ("judge_configs", "judge_fits", "cost"):
        # the generation's cost may join a manifest published before costs were recorded
        extra = sorted(set(getattr(updated, name)) - set(getattr(published, name)) - judges_added - {"generation"})
        problems += [f"{where}: {name}: {j!r} added without a record file of that judge" for j in extra]
    return problems


def response_differences(published: Mapping[str, tuple[str, str]], run: Mapping[str, tuple[str, str]],
                         where: str) -> list[str]:
    """One problem naming the items whose prompt or response differs from the published ones (and the
    items only one side has); [] when they are equal by content hash."""
    differing = sorted(i for i in set(published) & set(run) if published[i] != run[i])
    missing, extra = sorted(set(published) - set(run)), sorted(set(run) - set(published))
    problems = []
    for what, ids in (("responses differ from the published ones by content hash", differing),
                      ("published items the update lacks", missing), ("items the published submission lacks", extra)):
        if ids:
            more = f" … and {len(ids) - MAX_NAMED} more" if len(ids) > MAX_NAMED else ""
            problems.append(f"{where}: {len(ids)} {what}: {', '.join(ids[:MAX_NAMED])}{more}")
    return problems


def updated_manifest(published: Submission, prepared: Submission) -> tuple[Submission, list[RecordFile]]:
    """The published manifest plus the prepared run's record files (and judges) it lacks."""
    have = {(f.suite, f.judge_id) for f in published.record_files if f.suite}
    added = [f for f in prepared.record_files if f.suite and f.judge_id and (f.suite, f.judge_id) not in have]
    judges = {f.judge_id for f in added}
    manifest = published.model_copy(update={
        "record_files": [*published.record_files, *added],
        "judge_configs": {**published.judge_configs, **{j: c for j, c in prepared.judge_configs.items() if j in judges}},
        "judge_fits": {**published.judge_fits, **{j: k for j, k in prepared.judge_fits.items() if j in judges}},
        "suite_kinds": {**prepared.suite_kinds, **published.suite_kinds},
        # the added judges' cost; the generation's where the published manifest has none (made before costs were)
        "cost": {**{k: c for k, c in prepared.cost.items() if k in judges or k == "generation"}, **published.cost},
    })
    return manifest, added


def write_update(root: Path, prepared, where: str) -> tuple[list[str], Submission, list[RecordFile]]:
    """Add the prepared run's new judgment files to the dataset folder ``root`` and extend its manifest
    (checked first: nothing is written when refused). Returns (files written, manifest, added record files)."""
    from toolkit.core.records_io import atomic_write_bytes, atomic_write_text
    from toolkit.data.validation import validate_manifest_file
    from .rebuild import manifest_json

    from .submit import refuse_slug_clash

    sid = prepared.manifest.submission_id
    refuse_slug_clash([f.judge_id for f in prepared.manifest.record_files if f.judge_id], root, where)
    path = root / layout.manifest_file(sid)
    if not path.is_file():
        raise UpdateRefused(f"submission {sid!r} is not in {where}; submit it first (not as an update)", param="update")
    errors: list = []
    published = validate_manifest_file(path, errors)
    if published is None:
        raise UpdateRefused(f"{where}/{layout.manifest_file(sid)}: {'; '.join(str(e) for e in errors)}")
    manifest, added = updated_manifest(published, prepared.manifest)
    if not added:
        raise UpdateRefused(f"nothing to update: every judge of the run is already published for {sid} in {where}")

    published_paths = {f.path for f in published.record_files}

    def read(rel: str) -> list[dict]:
        if rel not in published_paths:
            return parquet_rows(prepared.files[rel])  # an added file: the run's
        if not (root / rel).is_file():  # a published one: the dataset's bytes, never the run's
            raise UpdateRefused(f"{where}/{rel}: listed in the published manifest but missing")
        return parquet_rows(root / rel)

    problems = check_update(published, manifest, read, layout.manifest_file(sid))
    for f in added:
        if (root / f.path).exists():
            problems.append(f"{f.path} already exists in {where}; per-item files are append-only")
    if problems:
        raise UpdateRefused(f"update of {sid} refused:\n  " + "\n  ".join(problems))
    for f in added:
        atomic_write_bytes(root / f.path, prepared.files[f.path])
    atomic_write_text(path, manifest_json(manifest))
    return [f.path for f in added] + [layout.manifest_file(sid)], manifest, added


def submit_update(run_dir: str | Path, to: str | Path, submitter: str | None = None, n_bootstrap: int = N_BOOTSTRAP,
                  data_dir: str | Path | None = None, create_pr: bool = False, xet: bool | None = None,
                  max_attempts: int = 8, allow_partial: bool = False, primary_judges: dict[str, str] | None = None,
                  gate: bool | None = None):
    """``submit --update``: check the run as ``submit`` does, then publish the judgments the submission in
    ``to`` lacks (see the module docstring) as one commit, or as a pull request with ``create_pr``."""
    from .card import card_choices
    from .boards import refuse_missing_board
    from .hub import HubPublisher, parse_target
    from .local_folder import LocalFolderHub
    from .submit import SubmitResult, prepare_submission, rebuild_shared_files, refuse_slug_clash

    prepared = prepare_submission(run_dir, submitter, data_dir, allow_partial)  # nothing is touched before this passes

    sid = prepared.manifest.submission_id
    ref = parse_target(to)
    where = ref.repo_id if ref.is_hub else ref.path
    refuse_missing_board(ref)
    state: dict = {}

    def write(root: Path) -> list[str]:
        files, manifest, added = write_update(root, prepared, str(where))
        state.update(manifest=manifest, added=added)
        table = rebuild_shared_files(root, n_bootstrap=n_bootstrap, repo_id=ref.repo_id,
                                     choices=card_choices(root, primary_judges, gate))
        state["left_out"] = list(table.attrs.get("left_out", []))
        return files

    if ref.is_hub:
        hub = HubPublisher(ref.repo_id, create_pr=create_pr, xet=xet, max_attempts=max_attempts, create=False,
                           revision=ref.revision or "main")
        hub.check_branch()
        done = hub.commit(f"Update submission {sid}: add judges", write)
        added = state["added"]
        bad = hub.verify(done.pr_revision or done.revision, {f.path: f.sha256 for f in added})
        if bad:
            raise SlmboardError(f"published files disagree with the manifest: {'; '.join(bad)}")
        return SubmitResult(ref.url, sid, done.revision, done.files, sum(f.n_rows for f in added),
                            done.pr_url, done.attempts, [*prepared.notes, *state["left_out"]],
                            not_comparable=prepared.not_comparable)
    if create_pr:
        raise SlmboardError(f"a pull request needs a Hub board (ORG/NAME); the local folder {ref.written} has no pull "
                            "requests: leave create_pr unset and submit to it directly (its checks run before anything is written)",
                            param="create_pr")
    local = LocalFolderHub(where)
    if not local.exists():
        raise UpdateRefused(f"{where} is not a dataset folder (no .git); an update adds judges to a published submission",
                            param="update")
    # before the lock too, so a refused update touches nothing (write_update checks again under it)
    refuse_slug_clash([f.judge_id for f in prepared.manifest.record_files if f.judge_id], local.root, str(where))
    info = local.commit(f"Update submission {sid}", write)
    added = state["added"]
    return SubmitResult(local.root, sid, info.revision, info.files, sum(f.n_rows for f in added),
                        notes=[*prepared.notes, *state["left_out"]], not_comparable=prepared.not_comparable)


def replace_built_judge(root: Path, submission_id: str, judge_id: str, rows_by_suite: Mapping[str, list[dict]],
                        fits: list[str], config: dict, where: str) -> list[str]:
    """The update path of a judge built from the board's own records (people's labels): it covers a subset of the
    submission's items. Each of ``rows_by_suite``'s ItemRecords must be an answer the submission publishes (same
    item, prompt and response sha256); the items it lacks are absent, not failed. The judge's files of the
    submission are replaced whole (it is rebuilt from its source at each publish) and its manifest entries with
    them: ``record_files`` (``n_rows``: the items it covers per suite), ``judge_fits``, ``judge_configs`` (with
    ``n_items`` per suite). Checked first: nothing is written when refused. Returns the files written or removed."""
    from toolkit.core.arrow_schemas import ITEM_RECORD_SCHEMA
    from toolkit.core.records_io import atomic_write_text, write_parquet_atomic
    from toolkit.data.validation import validate_manifest_file
    from .rebuild import manifest_json

    path = root / layout.manifest_file(submission_id)
    errors: list = []
    published = validate_manifest_file(path, errors) if path.is_file() else None
    if published is None:
        raise UpdateRefused(f"{where}/{layout.manifest_file(submission_id)}: "
                            + ("; ".join(str(e) for e in errors) or "no such submission"))
    own = [f for f in published.record_files if f.judge_id == judge_id]
    others = [f for f in published.record_files if f.judge_id != judge_id]
    problems = []
    for suite, rows in sorted(rows_by_suite.items()):
        source = next((f for f in others if f.suite == suite), None)
        if source is None:
            problems.append(f"{where}: {submission_id} publishes no answers of {suite}")
            continue
        have = _hashes(parquet_rows(root / source.path))
        built = _hashes(rows)
        problems += [p for p in response_differences(have, built, f"{judge_id} on {suite}")
                     if "published items the update lacks" not in p]  # a subset: unlabelled items are absent
    if problems:
        raise UpdateRefused(f"{judge_id} of {submission_id} refused:\n  " + "\n  ".join(problems))
    touched, files = [], []
    for f in own:
        (root / f.path).unlink(missing_ok=True)
        touched.append(f.path)
    for suite, rows in sorted(rows_by_suite.items()):
        rel = layout.item_file(suite, submission_id, judge_id)
        write_parquet_atomic(root / rel, rows, ITEM_RECORD_SCHEMA)
        data = (root / rel).read_bytes()
        import hashlib

        files.append(RecordFile(path=rel, sha256=hashlib.sha256(data).hexdigest(), n_rows=len(rows), suite=suite,
                                judge_id=judge_id))
        touched.append(rel)
    configs = {k: v for k, v in published.judge_configs.items() if k != judge_id}
    fits_all = {k: v for k, v in published.judge_fits.items() if k != judge_id}
    if files:
        configs[judge_id] = {**config, "n_items": {f.suite: f.n_rows for f in files}}
        fits_all[judge_id] = list(fits)
    manifest = published.model_copy(update={"record_files": [*others, *files], "judge_configs": configs,
                                            "judge_fits": fits_all})
    atomic_write_text(path, manifest_json(manifest))
    return sorted(set(touched)) + [layout.manifest_file(submission_id)]
