"""The submission queue of a Hub dataset: its open pull requests with the latest `slmboard review`
result (a PR comment). Validation runs where the toolkit is (`slmboard review`), not in the Space."""
from __future__ import annotations

import pandas as pd

from space.timed_table import TimedTable

COLUMNS = ["PR", "title", "opened", "review", "reviewed commit", "result"]
CACHE_SECONDS = 60.0


def queue_table(dataset: str, api=None) -> pd.DataFrame:
    """One row per open pull request: status = passed / failed / not reviewed yet / outdated
    (commits were added after the latest review)."""
    from toolkit.data.reading.queue import submission_queue

    rows = []
    for queued in submission_queue(dataset, api):
        pr, heads, latest = queued.pr, queued.heads, queued.review
        if latest is None:
            status, head, summary = "not reviewed yet", "—", ""
        else:
            status = "passed" if latest["ok"] else "failed"
            head = (latest["head"] or "")[:12] or "—"
            if heads and latest["head"] and not heads[-1].startswith(latest["head"]):
                status = "outdated (new commits since the review)"
            summary = latest["summary"]
        rows.append([f"#{pr.num}", pr.title, pr.created_at.strftime("%Y-%m-%d %H:%M UTC"), status, head, summary])
    return pd.DataFrame(rows, columns=COLUMNS).astype(str)


class QueueCache(TimedTable):
    """The queue, fetched at most every CACHE_SECONDS (a burst of visitors makes one Hub call)."""

    def __init__(self):
        super().__init__(queue_table, COLUMNS, CACHE_SECONDS,
                         lambda exc: f"{type(exc).__name__}: {exc}")
