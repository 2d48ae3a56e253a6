"""Disk cache of judgments: nothing is judged twice.

Keyed by (judge model, rubric version + rubric name, sha256 of the prompt, sha256 of the
response). One sqlite file (WAL mode; each judgment committed as soon as it arrives, so a judge
killed mid-run loses nothing it already paid for). Default location: ``$SLMBOARD_JUDGE_CACHE`` or
``<user cache>/slmboard/judge-cache.sqlite``.

Only verdicts are stored: ok and parse_error judgments (at temperature 0 a malformed reply would
come back malformed). API failures ("error") are never cached, so they are retried next time.
No request headers, keys or settings are stored.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from pathlib import Path

from .base import Judgment

__all__ = ["JudgmentCache", "default_cache_path", "cache_key"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgments (
    key TEXT PRIMARY KEY,
    judge_model TEXT NOT NULL,
    rubric TEXT NOT NULL,
    prompt_sha256 TEXT NOT NULL,
    response_sha256 TEXT NOT NULL,
    status TEXT NOT NULL,
    score REAL,
    raw TEXT,
    reason TEXT,
    unsafe_prob REAL,
    created_at TEXT DEFAULT CURRENT_TIMESTAMP
)
"""


def default_cache_path() -> Path:
    env = os.environ.get("SLMBOARD_JUDGE_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("SLMBOARD_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "slmboard")
    return Path(base) / "judge-cache.sqlite"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(judge_model: str, rubric: str, prompt_sha256: str, response_sha256: str) -> str:
    return sha256_text("\x1f".join((judge_model, rubric, prompt_sha256, response_sha256)))


class JudgmentCache:
    """A small sqlite key/value store for Judgments (thread-safe; one connection per instance)."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a commit survives the process being killed (what resuming needs) without an fsync per judgment.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except sqlite3.Error as exc:
            raise RuntimeError(f"{self.path}: cannot open the judge cache ({exc}); delete it or pass another cache path") from exc
        self.hits = 0
        self.misses = 0

    def get(self, judge_model: str, rubric: str, prompt: str, response: str) -> Judgment | None:
        key = cache_key(judge_model, rubric, sha256_text(prompt), sha256_text(response))
        with self._lock:
            row = self._db.execute(
                "SELECT status, score, raw, reason, unsafe_prob FROM judgments WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        status, score, raw, reason, unsafe_prob = row
        return Judgment(score=score, status=status, raw=raw, reason=reason, unsafe_prob=unsafe_prob)

    def put(self, judge_model: str, rubric: str, prompt: str, response: str, judgment: Judgment) -> None:
        if judgment.status == "error":
            return  # transient: retry next run
        p, r = sha256_text(prompt), sha256_text(response)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO judgments (key, judge_model, rubric, prompt_sha256, response_sha256, status, score, raw, reason, unsafe_prob)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (cache_key(judge_model, rubric, p, r), judge_model, rubric, p, r, judgment.status, judgment.score,
                 judgment.raw, judgment.reason, judgment.unsafe_prob),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
