"""`slmboard review ORG/NAME`: run submit's checks on the files of each open pull request of a Hub
dataset (the ones `submit --create-pr` opens) and post the result as a PR comment.

Checks, on a snapshot of the PR's head beside one of ``main``:
* every record file and manifest passes ``validate_path`` (the schema row by row, unique items);
* every manifest the PR adds lists record files that are in the PR with the same sha256 and row count;
* per-item files and manifests already on ``main`` are unchanged and not deleted (append-only).
The comment starts with :data:`MARKER` and names the reviewed commit, so the Space's queue shows the
latest result and whether the PR moved on since.
"""
from __future__ import annotations

import hashlib
import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SlmboardError

MARKER = "<!-- slmboard-review -->"
MAX_LISTED = 20
_HEAD = re.compile(r"reviewed commit `([0-9a-f]{7,40})`")
APPEND_ONLY = ("data/", "submissions/")
SHARED = ("data/leaderboard/", "data/submissions/")  # rebuilt by every submission


@dataclass
class Review:
    num: int
    title: str
    head: str
    errors: list[str] = field(default_factory=list)
    n_records: int = 0
    submissions: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in root.rglob("*") if p.is_file() and ".cache" not in p.parts}


def check_pr_folder(pr: Path, main: Path | None) -> tuple[list[str], int, list[str]]:
    """(problems, records checked, submission ids added) for a PR snapshot against main's."""
    from .validation import validate_path

    problems: list[str] = []
    report = validate_path(pr)
    problems += [str(e) for e in report.errors]
    pr_files = _files(pr)
    main_files = _files(main) if main is not None else {}
    for rel, path in sorted(main_files.items()):
        if not rel.startswith(APPEND_ONLY) or rel.startswith(SHARED):
            continue
        if rel not in pr_files:
            problems.append(f"{rel}: deleted by the pull request (per-item files and manifests are append-only)")
        elif _sha(pr_files[rel]) != _sha(path):
            problems.append(f"{rel}: changed by the pull request (per-item files and manifests are append-only)")
    added = []
    for rel in sorted(r for r in pr_files if r.startswith("submissions/") and r.endswith(".json") and r not in main_files):
        try:
            manifest = json.loads(pr_files[rel].read_text(encoding="utf-8"))
        except ValueError:
            continue  # validate_path reported it
        added.append(str(manifest.get("submission_id", rel)))
        for f in manifest.get("record_files") or []:
            path = pr_files.get(str(f.get("path")))
            if path is None:
                problems.append(f"{rel}: record file {f.get('path')} is not in the pull request")
            elif _sha(path) != f.get("sha256"):
                problems.append(f"{rel}: record file {f.get('path')} has sha256 {_sha(path)[:12]}…, "
                                f"the manifest says {str(f.get('sha256'))[:12]}…")
    return problems, report.n_records, added


def comment_text(r: Review) -> str:
    head = f"{MARKER}\n**slmboard review**: "
    if r.ok:
        body = (f"✅ passed — {r.n_records} record(s) checked; submission(s): {', '.join(r.submissions) or 'none'}. "
                f"reviewed commit `{r.head}`")
    else:
        listed = "\n".join(f"- {e}" for e in r.errors[:MAX_LISTED])
        more = f"\n- … and {len(r.errors) - MAX_LISTED} more" if len(r.errors) > MAX_LISTED else ""
        body = f"❌ failed — {len(r.errors)} problem(s). reviewed commit `{r.head}`\n\n{listed}{more}"
    return head + body


def parse_comment(text: str) -> dict | None:
    """{"ok", "head", "summary"} of a review comment; None for any other comment."""
    if not text.startswith(MARKER):
        return None
    m = _HEAD.search(text)
    first = text.split("\n")[1] if "\n" in text else text
    return {"ok": "✅ passed" in first, "head": m.group(1) if m else None,
            "summary": first.replace("**slmboard review**: ", "").split(" reviewed commit")[0].rstrip(". ")}


def open_pull_requests(api, repo_id: str) -> list:
    return list(api.get_repo_discussions(repo_id, repo_type="dataset", discussion_type="pull_request",
                                         discussion_status="open"))


def review_dataset(repo_id: str, post: bool = True, token: str | None = None) -> list[Review]:
    """Review every open pull request of ``repo_id``; with ``post``, comment each result on its PR."""
    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.utils import RepositoryNotFoundError

    api = HfApi(token=token)
    repo_id = repo_id.removeprefix("hf://datasets/")
    try:
        prs = open_pull_requests(api, repo_id)
    except RepositoryNotFoundError as exc:
        raise SlmboardError(f"dataset {repo_id!r} not found on the Hub (or not visible with this token)") from exc
    reviews = []
    with tempfile.TemporaryDirectory(prefix="slmboard-review-") as tmp:
        main = Path(snapshot_download(repo_id, repo_type="dataset", local_dir=Path(tmp) / "main", token=token))
        for pr in prs:
            details = api.get_discussion_details(repo_id, pr.num, repo_type="dataset")
            heads = [e.oid for e in details.events if getattr(e, "type", "") == "commit"]
            where = Path(tmp) / f"pr{pr.num}"
            snapshot_download(repo_id, repo_type="dataset", revision=f"refs/pr/{pr.num}", local_dir=where, token=token)
            head = heads[-1] if heads else api.dataset_info(repo_id, revision=f"refs/pr/{pr.num}").sha
            problems, n, added = check_pr_folder(where, main)
            # local paths mean nothing on the Hub: name files relative to the PR
            problems = [p.replace(str(where) + "/", "") for p in problems]
            r = Review(pr.num, pr.title, head, problems, n, added)
            reviews.append(r)
            if post:
                api.comment_discussion(repo_id, pr.num, comment_text(r), repo_type="dataset")
    return reviews
