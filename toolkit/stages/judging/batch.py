"""``--batch``: judge through the OpenAI Batch API (half the price, up to 24 h latency).

Flow: build one JSONL line per item not in the cache (``custom_id`` = the item's cache key), upload
it (purpose "batch"), create the batch on ``/v1/chat/completions``, poll until it ends, download
the output (and error) files, turn each reply into a Judgment (same parsing and cache as the
online path). The batch id is written to a state file in the run folder
(``judgments/<judge>/batch-<suite>.json``) *before* polling starts, so a restarted command resumes
the pending batch instead of paying for a second one. A batch that ended failed / expired /
cancelled is forgotten, and its items are submitted again on the next call; items missing from
the output become ``error`` records (retried by the next run).
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from collections import Counter
from typing import Any, Callable, Protocol, Sequence

from toolkit.core.records_io import atomic_write_text
from dataclasses import replace

from .base import JudgeInput, Judgment, RequestUsage
from .cache import JudgmentCache, cache_key, sha256_text
from .rubrics import Rubric


class BatchJudge(Protocol):
    """What the Batch API path needs of a judge (OpenAIJudge provides it; this module never imports it)."""

    judge_id: str
    base_url: str | None
    timeout: float
    cache: JudgmentCache | None
    stats: Counter

    def rubric(self, item: JudgeInput) -> Rubric: ...
    def cache_rubric_key(self, rubric: Rubric) -> str: ...
    def request_body(self, item: JudgeInput) -> tuple[Rubric, dict[str, Any]]: ...
    def interpret(self, rubric: Rubric, reply: str | None) -> Judgment: ...
    def _api_key(self) -> str: ...

__all__ = ["judge_with_batch_api", "batch_lines", "parse_batch_output", "FINAL_STATES"]

FINAL_STATES = frozenset({"completed", "failed", "expired", "cancelled"})


def _custom_id(judge: BatchJudge, item: JudgeInput) -> str:
    rubric = judge.rubric(item)
    return cache_key(judge.judge_id, judge.cache_rubric_key(rubric), sha256_text(item.prompt), sha256_text(item.response))


def batch_lines(judge: BatchJudge, items: Sequence[JudgeInput]) -> tuple[str, dict[str, JudgeInput]]:
    """The upload file (JSONL) and custom_id -> item (identical items share one request)."""
    by_id: dict[str, JudgeInput] = {}
    lines = []
    for item in items:
        cid = _custom_id(judge, item)
        if cid in by_id:
            continue
        by_id[cid] = item
        _, body = judge.request_body(item)
        lines.append(json.dumps({"custom_id": cid, "method": "POST", "url": "/v1/chat/completions", "body": body}))
    return "\n".join(lines) + "\n", by_id


def parse_batch_output(text: str) -> dict[str, tuple[str | None, str | None]]:
    """custom_id -> (reply text, error description) from a Batch API output or error file."""
    out: dict[str, tuple[str | None, str | None]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        cid = row.get("custom_id")
        resp = row.get("response") or {}
        if row.get("error"):
            out[cid] = (None, f"batch error: {row['error']}")
        elif resp.get("status_code") not in (None, 200):
            out[cid] = (None, f"batch request failed: HTTP {resp.get('status_code')}")
        else:
            try:
                out[cid] = (resp["body"]["choices"][0]["message"]["content"], None)
            except (KeyError, IndexError, TypeError):
                out[cid] = (None, "batch output line without choices[0].message.content")
    return out


def parse_batch_usage(text: str) -> dict[str, tuple[int | None, int | None]]:
    """custom_id -> (prompt tokens, completion tokens) of each answered line's ``response.body.usage``."""
    out: dict[str, tuple[int | None, int | None]] = {}
    for line in text.splitlines():
        if line.strip():
            row = json.loads(line)
            usage = ((row.get("response") or {}).get("body") or {}).get("usage")
            if isinstance(usage, dict):
                out[row.get("custom_id")] = (usage.get("prompt_tokens"), usage.get("completion_tokens"))
    return out


def judge_with_batch_api(
    judge: BatchJudge,
    items: Sequence[JudgeInput],
    state_path: Path,
    poll_seconds: float = 30.0,
    timeout_seconds: float | None = None,
    log: Callable[[str], None] = print,
) -> list[Judgment]:
    """Judge ``items`` with one batch (resumed from ``state_path`` when one is pending)."""
    import openai

    results: dict[int, Judgment] = {}
    todo: list[int] = []
    for i, item in enumerate(items):
        hit = judge.cache.get(judge.judge_id, judge.cache_rubric_key(judge.rubric(item)), item.prompt, item.response) if judge.cache else None
        if hit is not None:
            judge.stats["cache_hits"] += 1
            results[i] = replace(hit, usage=RequestUsage(cache_hit=True, batch_api=True))
        else:
            todo.append(i)
    if todo:
        client = openai.OpenAI(base_url=judge.base_url, api_key=judge._api_key(), max_retries=5, timeout=judge.timeout)
        state = json.loads(state_path.read_text()) if state_path.exists() else None
        if state is None:
            payload, _ = batch_lines(judge, [items[i] for i in todo])
            uploaded = client.files.create(file=("judge-batch.jsonl", payload.encode("utf-8")), purpose="batch")
            batch = client.batches.create(input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h")
            state = {"batch_id": batch.id, "input_file_id": uploaded.id, "judge_id": judge.judge_id, "n_requests": payload.count("\n")}
            state_path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(state_path, json.dumps(state, indent=2))  # persisted before any wait
            judge.stats["requests"] += state["n_requests"]
            log(f"batch {batch.id} submitted ({state['n_requests']} requests); state in {state_path}")
        else:
            log(f"resuming batch {state['batch_id']} from {state_path}")
        started = time.monotonic()
        while True:
            batch = client.batches.retrieve(state["batch_id"])
            if batch.status in FINAL_STATES:
                break
            if timeout_seconds is not None and time.monotonic() - started > timeout_seconds:
                raise TimeoutError(f"batch {batch.id} still {batch.status} after {timeout_seconds:.0f} s; re-run to resume it")
            time.sleep(poll_seconds)
        replies: dict[str, tuple[str | None, str | None]] = {}
        usage: dict[str, tuple[int | None, int | None]] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                text = client.files.content(file_id).text
                replies.update(parse_batch_output(text))
                usage.update(parse_batch_usage(text))
        # one job: each item's seconds are its share of the wait this process saw
        share = (time.monotonic() - started) / len(todo)
        counted: set[str] = set()
        state_path.unlink(missing_ok=True)  # finished either way: never resumed again
        for i in todo:
            item = items[i]
            rubric = judge.rubric(item)
            cid = _custom_id(judge, item)
            reply, err = replies.get(cid, (None, f"batch {batch.id} ended {batch.status} without this item"))
            tokens = usage.get(cid)
            spent = RequestUsage(*(tokens or (None, None)), seconds=share, requests=1, batch_api=True,
                                 tokens_from="server" if tokens else "none")
            if cid in counted:  # an identical item shared the request: counted once, with the first
                spent = RequestUsage(cache_hit=True, batch_api=True)
            counted.add(cid)
            if err is not None:
                results[i] = Judgment(None, "error", None, err, usage=spent)
                judge.stats["api_errors"] += 1
                continue
            j = judge.interpret(rubric, reply)
            if judge.cache is not None:
                judge.cache.put(judge.judge_id, judge.cache_rubric_key(rubric), item.prompt, item.response, j)
            results[i] = replace(j, usage=spent)
    return [results[i] for i in range(len(items))]
