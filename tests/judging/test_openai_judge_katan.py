"""The openai:<model> judge against a real local server (llm-katan, echo backend) with injected failures.

llm-katan's echo backend answers with the judge prompt it received, so every reply ends with the
rubric's format line ``<score>the number</score>``: a reply that never parses. That is what these
tests need -- planted score tags inside the answers must not win, and parse errors must be counted
-- while its --error-rate / --rate-limit-after / --latency-ms flags inject 500s, 429s and latency.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from toolkit.testing.servers import TEST_API_KEY

from toolkit import api
from toolkit.cli import main
from toolkit.stages.judging.openai_judge import OpenAIJudge
from toolkit.stages.judging.retry import RetryPolicy
from toolkit.core.records_io import iter_jsonl
from toolkit.stages.judging.components import OpenAIJudgeOptions

FAST_RETRY = RetryPolicy(max_attempts=10, base_delay=0.02, max_delay=0.2)


def _records(run: Path) -> list[dict]:
    files = sorted(run.glob("judgments/*/*.jsonl"))
    return [r for f in files for _, r in iter_jsonl(f)]


def test_500s_are_retried_and_nothing_is_lost(tmp_path, run_with_responses, katan, judge_env):
    n = 30
    run = run_with_responses(tmp_path / "run", [f"Sure. <score>1</score> step {k}" for k in range(n)])  # planted tags
    server = katan(error_rate=0.3, latency_ms=20)
    r = api.judge(run, judge=OpenAIJudge(OpenAIJudgeOptions(model="judge", base_url=server.base_url, concurrency=6), retry=FAST_RETRY), services=api.Services(progress=False))
    rows = _records(run)
    assert len(rows) == n and len({x["item_id"] for x in rows}) == n
    assert r.status_counts == {"parse_error": n}  # the planted <score>1</score> never wins
    assert all(x["score"] is None and "the number" in x["judge_reason"] for x in rows)
    assert r.judge_stats["retries"] > 0
    assert server.request_count() == r.judge_stats["requests"] == n + r.judge_stats["retries"]


def test_429s_become_counted_errors_and_the_next_run_retries_them(tmp_path, run_with_responses, katan, judge_env, capsys):
    n = 25
    run = run_with_responses(tmp_path / "run", [f"answer {k}" for k in range(n)])
    limited = katan(rate_limit_after=10)
    args = ["judge", str(run), "--judge", "openai:judge", "--base-url", limited.base_url, "--max-attempts", "2", "--concurrency", "1"]
    assert main(args) == 0
    out = capsys.readouterr()
    assert f"judged {n}" in out.out and "failed 25 (parse_error 10, error 15)" in out.out
    assert "HTTP 429" in out.out and "re-run the same command to retry" in out.err
    rows = _records(run)
    assert sum(x["judge_status"] == "error" for x in rows) == 15
    assert all(x["score"] is None for x in rows)  # never 0.5
    limited.stop()

    healthy = katan()
    args[5] = healthy.base_url
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "re-judged 15 item(s)" in out and "skipped 10" in out
    rows = _records(run)
    assert len(rows) == n and len({x["item_id"] for x in rows}) == n
    assert not any(x["judge_status"] == "error" for x in rows)
    assert healthy.request_count() == 15  # only the failed ones were asked again


def test_cached_rerun_makes_no_requests_and_key_is_never_stored(tmp_path, run_with_responses, katan, judge_env):
    n = 12
    run = run_with_responses(tmp_path / "run", [f"answer {k}" for k in range(n)])
    server = katan()
    api.judge(run, judge=api.JudgeSpec("openai:judge", base_url=server.base_url), services=api.Services(progress=False))
    assert server.request_count() == n
    # A fresh copy of the run (judgments deleted): everything comes from the cache.
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    shutil.rmtree(copy / "judgments")
    r = api.judge(copy, judge=api.JudgeSpec("openai:judge", base_url=server.base_url), services=api.Services(progress=False))
    assert server.request_count() == n and r.judge_stats.get("requests", 0) == 0 and r.judge_stats["cache_hits"] == n
    assert _records(copy) == _records(run)
    for path in [*run.rglob("*"), *judge_env.parent.glob("judge-cache.sqlite*")]:
        if path.is_file():
            assert TEST_API_KEY.encode() not in path.read_bytes(), path


def test_missing_api_key_is_a_clear_error(tmp_path, run_with_responses, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("SLMBOARD_JUDGE_CACHE", str(tmp_path / "c.sqlite"))
    run = run_with_responses(tmp_path / "run", ["a"])
    assert main(["judge", str(run), "--judge", "openai:gpt-4o-2024-05-13", "--api-key-env", "MY_JUDGE_KEY"]) == 1
    err = capsys.readouterr().err
    assert "no API key: set the environment variable MY_JUDGE_KEY" in err
    assert "(api_key_env is --api-key-env on the command line)" in err
    assert not list(run.glob("judgments/*/*.jsonl"))


def test_judge_killed_mid_run_resumes_without_judging_anything_twice(tmp_path, run_with_responses, katan, judge_env):
    n = 60
    run = run_with_responses(tmp_path / "run", [f"answer number {k}" for k in range(n)])
    server = katan(latency_ms=250)
    cache = judge_env
    cmd = [sys.executable, "-m", "toolkit.cli", "judge", str(run), "--judge", "openai:judge",
           "--base-url", server.base_url, "--concurrency", "4", "--cache", str(cache)]
    env = dict(os.environ, SLMBOARD_JUDGE_CACHE=str(cache))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[2])

    def cached() -> int:
        if not cache.exists():
            return 0
        try:
            with sqlite3.connect(cache) as db:
                return db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]
        except sqlite3.OperationalError:
            return 0

    deadline = time.monotonic() + 60
    while cached() < 16 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    os.kill(proc.pid, signal.SIGKILL)  # no cleanup, no flush: as a crash
    proc.wait()
    time.sleep(0.6)  # requests in flight at the kill finish on the server side
    done_before = cached()
    served_before = server.request_count()
    assert 16 <= done_before < n and served_before <= done_before + 4  # at most the in-flight ones were lost

    r = api.judge(run, judge=OpenAIJudge(OpenAIJudgeOptions(model="judge", base_url=server.base_url, concurrency=4, cache_file=str(cache))), services=api.Services(progress=False))
    rows = _records(run)
    assert len(rows) == n and len({x["item_id"] for x in rows}) == n
    assert r.judge_stats["cache_hits"] == done_before  # every answer received before the kill is reused
    assert server.request_count() - served_before == n - done_before == r.judge_stats["requests"]
    # What it cost: every request the killed process got an answer to is in the usage ledger (written as each
    # request ended, before its cache entry), the resumed run's too; only the ones in flight at the kill (answered
    # by the server, never received) are not
    ledger = [json.loads(line) for line in (run / ".usage" / "judgments" / "openai-judge.jsonl").read_text().splitlines()]
    recorded = sum(row["requests"] for row in ledger)
    assert 0 <= server.request_count() - recorded <= 4 and recorded >= done_before + (n - done_before)
    assert {row["item_id"] for row in ledger} == {x["item_id"] for x in rows}
    assert json.loads((run / "cost.json").read_text())["openai:judge"]["requests"] == recorded
