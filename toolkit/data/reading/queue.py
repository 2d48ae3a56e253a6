"""A Hub dataset's submission queue, read side: its open pull requests (the ones ``submit --create-pr``
opens) and the latest ``slmboard review`` result posted on each. The comment format is defined here,
where it is read; :mod:`toolkit.outputs.reviewing` writes it."""
from __future__ import annotations

import re
from dataclasses import dataclass

MARKER = "<!-- slmboard-review -->"
#: What a review comment says before the commit it reviewed (``reviewed commit `abc1234```).
REVIEWED = "reviewed commit"
_HEAD = re.compile(rf"{REVIEWED} `([0-9a-f]{{7,40}})`")


def parse_comment(text: str) -> dict | None:
    """{"ok", "head", "summary"} of a review comment; None for any other comment."""
    if not text.startswith(MARKER):
        return None
    m = _HEAD.search(text)
    first = text.split("\n")[1] if "\n" in text else text
    return {"ok": "✅ passed" in first, "head": m.group(1) if m else None,
            "summary": first.replace("**slmboard review**: ", "").split(f" {REVIEWED}")[0].rstrip(". ")}


def open_pull_requests(api, repo_id: str) -> list:
    return list(api.get_repo_discussions(repo_id, repo_type="dataset", discussion_type="pull_request",
                                         discussion_status="open"))


@dataclass(frozen=True)
class QueuedPullRequest:
    """One open pull request: its commits (oldest first) and the latest review result (None: not reviewed)."""

    pr: object  # huggingface_hub's Discussion
    heads: list[str]
    review: dict | None


def pull_request_details(api, repo_id: str, pr) -> QueuedPullRequest:
    details = api.get_discussion_details(repo_id, pr.num, repo_type="dataset")
    heads = [e.oid for e in details.events if getattr(e, "type", "") == "commit"]
    review = None
    for e in details.events:
        parsed = parse_comment(getattr(e, "content", "") or "") if getattr(e, "type", "") == "comment" else None
        review = parsed or review
    return QueuedPullRequest(pr, heads, review)


def submission_queue(repo_id: str, api=None) -> list[QueuedPullRequest]:
    """The open pull requests of ``repo_id`` with their commits and latest review result."""
    from toolkit.core.hub_access import hub_api

    api = api or hub_api()
    return [pull_request_details(api, repo_id, pr) for pr in open_pull_requests(api, repo_id)]
