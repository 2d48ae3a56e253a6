"""kill -9 of generation and judging in the middle of writing their output (20 trials each), then
resume: no record lost, none duplicated, every line whole. The model and the judge are served by a
real OpenAI-compatible server on 127.0.0.1 (llm-katan, echo backend with injected latency).

Each kill is proved to land mid-write: the test waits until the output file holds a seeded number
k (1 <= k <= N-2) of whole records, freezes the process (SIGSTOP), checks it is alive with fewer
than N records written, then SIGKILLs it and checks nothing more was written."""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from slmboard_servers import TEST_API_KEY, start_llm_katan

pytestmark = pytest.mark.slow
TRIALS = 20
N_ITEMS = 12


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    handle = start_llm_katan("echo-model", backend="echo", latency_ms=150, workdir=tmp_path_factory.mktemp("katan"))
    yield handle
    handle.stop()


def _env() -> dict:
    return {**os.environ, "SLMBOARD_TEST_KEY": TEST_API_KEY, "HF_HUB_OFFLINE": "1"}


def _generate_cmd(run: Path, server) -> list[str]:
    args = f"model=echo-model,base_url={server.base_url},api_key_env=SLMBOARD_TEST_KEY"
    return [sys.executable, "-m", "toolkit.cli", "generate", "--out", str(run), "--model", "openai", "--model-args", args,
            "--suites", "smoke", "--limit", str(N_ITEMS), "--max-new-tokens", "8", "--batch-size", "2"]


def _judge_cmd(run: Path, server, cache: Path) -> list[str]:
    return [sys.executable, "-m", "toolkit.cli", "judge", str(run), "--judge", "openai:echo-model", "--base-url", server.base_url,
            "--api-key-env", "SLMBOARD_TEST_KEY", "--concurrency", "2", "--cache", str(cache)]


def _item_ids(path: Path) -> list[str]:
    """Item ids of the whole records in ``path`` (a torn last line, no newline yet, is not a record)."""
    if not path.exists():
        return []
    text = path.read_text()
    whole = text[: text.rfind("\n") + 1]
    return [json.loads(line)["item_id"] for line in whole.splitlines() if line.strip()]


def _cache_rows(path: Path) -> int:
    """Judgments committed to the judge's sqlite cache (one commit per judgment as it arrives)."""
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM judgments").fetchone()[0])
    except sqlite3.OperationalError:  # created but no table yet
        return 0


def _kill_mid_write(cmd: list[str], output: Path, target: int, progress=None) -> tuple[int, int] | None:
    """Start ``cmd``; once ``progress()`` (default: whole records in ``output``) reaches ``target``,
    freeze and kill it. Returns (progress at the kill, records of ``output`` after it), or None when
    it finished first (a miss). A kill counts only if fewer than N records were written at that moment."""
    progress = progress or (lambda: len(_item_ids(output)))
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
    deadline = time.monotonic() + 300
    try:
        while proc.poll() is None and progress() < target:
            assert time.monotonic() < deadline, "the child never reached the marker"
            time.sleep(0.002)
        if proc.poll() is not None:
            return None
        os.kill(proc.pid, signal.SIGSTOP)
        alive = proc.poll() is None
        at_kill, written = progress(), len(_item_ids(output))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if not (alive and at_kill < N_ITEMS and written < N_ITEMS):
        return None
    assert len(_item_ids(output)) == written and progress() == at_kill, "output written after the kill"
    return at_kill, written


def _kill_trials(make_cmd, output, prepare, seed: int, progress_of=None) -> list[tuple[int, int, int]]:
    """TRIALS kills, each mid-write (a trial that finishes before the kill is retried, at most 3 times).
    Returns (target, progress at the kill, records written at the kill) per trial."""
    rng = random.Random(seed)
    landed = []
    for trial in range(1, TRIALS + 1):
        target = rng.randint(1, N_ITEMS - 2)
        for attempt in range(3):
            key = (trial, attempt)
            prepare(key)
            result = _kill_mid_write(make_cmd(key), output(key), target, progress_of(key) if progress_of else None)
            if result is not None:
                break
        assert result is not None, f"trial {trial}: the process finished before the kill three times"
        at_kill, written = result
        # work done before the kill (at least the marker), some still to come
        assert target <= at_kill < N_ITEMS and written < N_ITEMS, (trial, target, at_kill, written)
        partial = _item_ids(output(key))
        assert len(partial) == len(set(partial)), f"trial {trial}: duplicates after the kill"
        done = subprocess.run(make_cmd(key), capture_output=True, text=True, env=_env(), timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        ids = _item_ids(output(key))
        assert len(ids) == N_ITEMS and len(set(ids)) == N_ITEMS, f"trial {trial}: {len(ids)} records, {len(set(ids))} distinct"
        assert len(output(key).read_text().splitlines()) == N_ITEMS  # every line whole: no torn remnant kept
        landed.append((target, at_kill, written))
    return landed


def test_kill_9_generation_then_resume(tmp_path, server):
    run = lambda key: tmp_path / f"gen-{key[0]}-{key[1]}"  # noqa: E731
    landed = _kill_trials(lambda key: _generate_cmd(run(key), server), lambda key: run(key) / "responses" / "smoke.jsonl",
                          lambda key: None, seed=7)
    assert len(landed) == TRIALS and len({at for _, at, _ in landed}) > 1  # kills spread over the writing


def test_kill_9_judging_then_resume(tmp_path, server):
    base = tmp_path / "base"
    subprocess.run(_generate_cmd(base, server), check=True, capture_output=True, env=_env(), timeout=300)
    run = lambda key: tmp_path / f"judge-{key[0]}-{key[1]}"  # noqa: E731

    def prepare(key) -> None:
        if not run(key).exists():
            shutil.copytree(base, run(key))

    out = lambda key: run(key) / "judgments" / "openai-echo-model" / "smoke.jsonl"  # noqa: E731
    cache = lambda key: tmp_path / f"cache-{key[0]}-{key[1]}.sqlite"  # noqa: E731
    # The judge commits each judgment to its cache as it arrives and appends records to the file in
    # groups: the marker is the cache, and the kill must come before the file holds every record.
    landed = _kill_trials(lambda key: _judge_cmd(run(key), server, cache(key)), out, prepare, seed=11,
                          progress_of=lambda key: lambda: _cache_rows(cache(key)))
    assert len(landed) == TRIALS and len({at for _, at, _ in landed}) > 1
    # Echo replies carry no score tag: every item ends explicitly failed (parse_error), none silently scored.
    rows = [json.loads(line) for f in tmp_path.glob("judge-*/judgments/openai-echo-model/smoke.jsonl") for line in f.read_text().splitlines()]
    assert len(rows) >= TRIALS * N_ITEMS
    assert {r["judge_status"] for r in rows} <= {"parse_error", "ok", "error"}
    assert all((r["score"] is None) == (r["judge_status"] != "ok") for r in rows)
