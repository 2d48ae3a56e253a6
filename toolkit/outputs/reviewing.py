"""`slmboard review ORG/NAME`: run submit's checks on the files of each open pull request of a Hub
dataset (the ones `submit --create-pr` opens) and post the result as a PR comment.

Checks, on a snapshot of the PR's head beside one of ``main``:
* every record file and manifest passes ``validate_path`` (the schema row by row, unique items);
* every manifest the PR adds passes submit's own checks, reused: ``check_manifest`` (record files
  present with the manifest's sha256, every suite judged by every judge) and the canonical item set of
  each suite (``check_published_item_set``: no item missing unless declared partial, no unknown id,
  no altered prompt); every new record file is listed by a manifest;
* per-item files and manifests already on ``main`` are unchanged and not deleted (append-only); the one
  change accepted is an update (``submit --update --create-pr``): a manifest on ``main`` that only adds
  judgment files of new judges (and those judges' entries), whose responses equal the published ones by
  content hash (:func:`~toolkit.outputs.publishing.update.check_update`).
The comment starts with :data:`~toolkit.data.reading.queue.MARKER` and names the reviewed commit (the format
the data layer's queue reads, :mod:`toolkit.data.reading.queue`), so the Space's queue shows the latest
result and whether the PR moved on since. Both snapshots are opened through the data layer
(:func:`toolkit.data.reading.open_data`, ``ORG/NAME@refs/pr/N``).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from toolkit.core import dataset_layout as layout
from toolkit.core.errors import SlmboardError
from toolkit.core.registry import Options, option
from toolkit.data.reading.queue import MARKER, REVIEWED, open_pull_requests, parse_comment  # noqa: F401 (parse_comment: re-exported)

MAX_LISTED = 20


@dataclass
class Review:
    num: int
    title: str
    head: str
    errors: list[str] = field(default_factory=list)
    n_records: int = 0
    submissions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # checks that could not run (no canonical item list here)

    @property
    def ok(self) -> bool:
        return not self.errors


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in root.rglob("*") if p.is_file() and ".cache" not in p.parts}


def check_pr_folder(pr: Path, main: Path | None, data_dir: str | Path | None = None) -> tuple[list[str], int, list[str], list[str]]:
    """(problems, records checked, submission ids added, notes) for a PR snapshot against main's."""
    from toolkit.data.validation import validate_path

    problems: list[str] = []
    report = validate_path(pr)
    problems += [str(e) for e in report.errors]
    pr_files = _files(pr)
    main_files = _files(main) if main is not None else {}
    added, notes, listed = [], [], set()
    for rel, path in sorted(main_files.items()):
        if not rel.startswith(layout.APPEND_ONLY) or rel.startswith(layout.REBUILT):
            continue
        if rel not in pr_files:
            problems.append(f"{rel}: deleted by the pull request (per-item files and manifests are append-only)")
        elif _sha(pr_files[rel]) != _sha(path):
            if not layout.is_manifest_path(rel):
                problems.append(f"{rel}: changed by the pull request (per-item files and manifests are append-only)")
                continue
            # a manifest may only take new judges (submit --update --create-pr): checked as submit checks it
            found, paths = _check_updated_manifest(rel, path, pr_files, main_files)
            problems += found
            listed |= paths
            added.append(f"{layout.submission_id_of_manifest(rel)} (new judges)")
    for rel in sorted(r for r in pr_files if layout.is_manifest_path(r) and r not in main_files):
        found, n_notes, paths = _check_added_manifest(rel, pr_files, data_dir)
        problems += found
        notes += n_notes
        listed |= paths
        added.append(layout.submission_id_of_manifest(rel))
    for rel in sorted(pr_files):  # a record file no manifest lists would be published unaccounted for
        if (rel.startswith(f"{layout.DATA_DIR}/") and not rel.startswith(layout.REBUILT) and rel not in main_files
                and rel not in listed):
            problems.append(f"{rel}: not listed in the record_files of any submission manifest the pull request adds")
    return problems, report.n_records, added, notes


def _check_added_manifest(rel: str, pr_files: dict[str, Path], data_dir) -> tuple[list[str], list[str], set[str]]:
    """(problems, notes, record file paths it lists) of one manifest the PR adds: submit's own checks
    (:func:`~toolkit.outputs.publishing.integrity.check_manifest`, then the canonical item set of each suite
    via :func:`~toolkit.outputs.publishing.integrity.check_published_item_set`) on the files as published."""
    from types import SimpleNamespace

    import pyarrow.parquet as pq

    from toolkit.outputs.publishing.integrity import check_manifest, check_published_item_set
    from toolkit.data.validation import validate_manifest_file

    manifest = validate_manifest_file(pr_files[rel], [])  # its schema errors: validate_path reported them
    if manifest is None:
        return [], [], set()
    listed = {f.path for f in manifest.record_files}
    files = {p: pr_files[p].read_bytes() for p in sorted(listed) if p in pr_files}
    # check_manifest reads `.suites` and `.imports` (suite-scoped imported judges) of the run config:
    # here, the run.json the manifest carries
    carried = manifest.run_config or {}
    run = SimpleNamespace(suites=list(carried.get("suites") or []), imports=list(carried.get("imports") or []))
    problems = [str(e) for e in check_manifest(manifest, files, run, rel)]
    rows: dict[str, list[dict]] = {}
    for f in manifest.record_files:
        if f.suite and f.judge_id and f.path in files:
            try:
                table = pq.read_table(pr_files[f.path], columns=["item_id", "prompt_sha256"])
            except Exception:  # noqa: BLE001 - not parquet / lacking columns: validate_path reported it
                continue
            rows[f.path] = [{**r, "_row": i} for i, r in enumerate(table.to_pylist(), start=1)]
    items = check_published_item_set(manifest, rows, rel, data_dir)
    problems += [str(e) for e in items.errors]
    notes = [f"{rel}: item set of suite {s!r} not checked against its canonical list ({why}); "
             "review with --data-dir pointing at a local mirror" for s, why in sorted(items.unchecked.items())]
    return problems, notes, listed


def _check_updated_manifest(rel: str, main_path: Path, pr_files: dict[str, Path],
                            main_files: dict[str, Path]) -> tuple[list[str], set[str]]:
    """(problems, record file paths it adds) of a manifest on main that the PR changes: accepted only as an
    update (:func:`~toolkit.outputs.publishing.update.check_update`): the same submission plus judgment files
    of new judges, whose responses equal the published ones by content hash; then submit's manifest checks."""
    from types import SimpleNamespace

    from toolkit.data.validation import validate_manifest_file
    from toolkit.outputs.publishing.integrity import check_manifest
    from toolkit.outputs.publishing.update import check_update, parquet_rows

    errors: list = []
    published, updated = validate_manifest_file(main_path, errors), validate_manifest_file(pr_files[rel], errors)
    if published is None or updated is None:
        return [f"{rel}: changed by the pull request and not readable as a manifest"], set()
    old = {f.path for f in published.record_files}
    new_paths = {f.path for f in updated.record_files} - old

    def read(path: str) -> list[dict]:
        source = main_files.get(path) if path in old else pr_files.get(path)
        if source is None:
            raise FileNotFoundError(path)
        return parquet_rows(source)

    try:
        problems = check_update(published, updated, read, rel)
    except FileNotFoundError as exc:
        return [f"{rel}: record_files: {exc.args[0]} is listed but not in the pull request"], new_paths
    except Exception as exc:  # noqa: BLE001 - an unreadable record file: validate_path reported it
        return [f"{rel}: the update's record files could not be read ({type(exc).__name__})"], new_paths
    problems += [f"{p} is already on main; an update adds new record files only" for p in sorted(new_paths) if p in main_files]
    carried = updated.run_config or {}
    run = SimpleNamespace(suites=list(carried.get("suites") or []), imports=list(carried.get("imports") or []))
    files = {p: pr_files[p].read_bytes() for p in sorted(old | new_paths) if p in pr_files}
    problems += [str(e) for e in check_manifest(updated, files, run, rel)]
    return problems, new_paths


def comment_text(r: Review) -> str:
    head = f"{MARKER}\n**slmboard review**: "
    if r.ok:
        body = (f"✅ passed — {r.n_records} record(s) checked; submission(s): {', '.join(r.submissions) or 'none'}. "
                f"{REVIEWED} `{r.head}`")
    else:
        listed = "\n".join(f"- {e}" for e in r.errors[:MAX_LISTED])
        more = f"\n- … and {len(r.errors) - MAX_LISTED} more" if len(r.errors) > MAX_LISTED else ""
        body = f"❌ failed — {len(r.errors)} problem(s). {REVIEWED} `{r.head}`\n\n{listed}{more}"
    if r.notes:
        body += "\n\nNot checked:\n" + "\n".join(f"- {n}" for n in r.notes[:MAX_LISTED])
    return head + body


def review_dataset(repo_id: str, post: bool = True, token: str | None = None,
                   data_dir: str | Path | None = None) -> list[Review]:
    """Review every open pull request of ``repo_id``; with ``post``, comment each result on its PR.
    ``data_dir``: the benchmark mirror the suites' canonical item lists load from (as `submit --data-dir`)."""
    from toolkit.core.hub_access import hub_api, hub_call, hub_token
    from toolkit.data.reading import HubId, open_data, parse_hub_id
    from toolkit.data.reading.queue import pull_request_details

    hub = parse_hub_id(repo_id)
    if hub is None:  # a local folder board has no pull requests: its checks run when a run is submitted to it
        raise SlmboardError(f"{repo_id}: review checks the open pull requests of a Hub board (ORG/NAME); a local "
                            f"folder board has none: submitting a run to {repo_id} (`slmboard submit`) runs the same "
                            "checks itself and writes nothing on any error", param="dataset")
    with hub_token(token), hub_call(hub.repo_id):  # every Hub failure: one line naming the dataset
        api = hub_api()
        prs = open_pull_requests(api, hub.repo_id)
        reviews = []
        main = open_data(str(hub)).root
        for pr in prs:
            queued = pull_request_details(api, hub.repo_id, pr)
            snapshot = open_data(str(HubId(hub.repo_id, f"refs/pr/{pr.num}")))
            head = queued.heads[-1] if queued.heads else snapshot.revision
            problems, n, added, notes = check_pr_folder(snapshot.root, main, data_dir)
            # local paths mean nothing on the Hub: name files relative to the PR
            problems = [p.replace(str(snapshot.root) + "/", "") for p in problems]
            r = Review(pr.num, pr.title, head, problems, n, added, notes)
            reviews.append(r)
            if post:
                api.comment_discussion(hub.repo_id, pr.num, comment_text(r), repo_type="dataset")
    return reviews


class ReviewOptions(Options):
    """What ``review`` is told besides the Hub dataset (:func:`toolkit.api.review`)."""

    post: bool = option(True, help="comment each result on its pull request (it is printed either way)",
                        flag="--no-comment")
    data_dir: Optional[str] = option(None, help="local benchmark mirror the suites' canonical item lists load from "
                                                "(as for submit)", metavar="DIR")
