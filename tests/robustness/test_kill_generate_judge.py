"""kill -9 of generation and judging at seeded random moments (20 trials each), then resume:
no record lost, none duplicated, every line whole. The model and the judge are served by a real
OpenAI-compatible server on 127.0.0.1 (llm-katan, echo backend with injected latency, so a run
lasts long enough to be killed in the middle)."""
from __future__ import annotations

import json
import os
import random
import signal
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
    handle = start_llm_katan("echo-model", backend="echo", latency_ms=60, workdir=tmp_path_factory.mktemp("katan"))
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
    if not path.exists():
        return []
    return [json.loads(line)["item_id"] for line in path.read_text().splitlines() if line.strip()]


def _kill_trials(make_cmd, output: Path, prepare, seed: int) -> int:
    rng = random.Random(seed)
    started = time.perf_counter()
    prepare(0)
    subprocess.run(make_cmd(0), check=True, capture_output=True, env=_env(), timeout=300)
    duration = time.perf_counter() - started
    killed = 0
    for trial in range(1, TRIALS + 1):
        prepare(trial)
        proc = subprocess.Popen(make_cmd(trial), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
        time.sleep(rng.uniform(0.2 * duration, duration))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            killed += 1
        proc.wait()
        partial = _item_ids(output(trial)) if output(trial).exists() else []
        assert len(partial) == len(set(partial)), f"trial {trial}: duplicates after the kill"
        done = subprocess.run(make_cmd(trial), capture_output=True, text=True, env=_env(), timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        ids = _item_ids(output(trial))
        assert len(ids) == N_ITEMS and len(set(ids)) == N_ITEMS, f"trial {trial}: {len(ids)} records, {len(set(ids))} distinct"
    return killed


def test_kill_9_generation_then_resume(tmp_path, server):
    runs = {t: tmp_path / f"gen-{t}" for t in range(TRIALS + 1)}
    killed = _kill_trials(lambda t: _generate_cmd(runs[t], server), lambda t: runs[t] / "responses" / "smoke.jsonl",
                          lambda t: None, seed=7)
    assert killed >= TRIALS // 2, f"only {killed} of {TRIALS} kills hit a running generate"


def test_kill_9_judging_then_resume(tmp_path, server):
    base = tmp_path / "base"
    subprocess.run(_generate_cmd(base, server), check=True, capture_output=True, env=_env(), timeout=300)
    runs = {t: tmp_path / f"judge-{t}" for t in range(TRIALS + 1)}

    def prepare(t: int) -> None:
        if not runs[t].exists():
            import shutil

            shutil.copytree(base, runs[t])

    out = lambda t: runs[t] / "judgments" / "openai-echo-model" / "smoke.jsonl"  # noqa: E731
    killed = _kill_trials(lambda t: _judge_cmd(runs[t], server, tmp_path / f"cache-{t}.sqlite"), out, prepare, seed=11)
    assert killed >= TRIALS // 2, f"only {killed} of {TRIALS} kills hit a running judge"
    # Echo replies carry no score tag: every item ends explicitly failed (parse_error), none silently scored.
    rows = [json.loads(line) for line in out(1).read_text().splitlines()]
    assert {r["judge_status"] for r in rows} <= {"parse_error", "ok", "error"}
    assert all((r["score"] is None) == (r["judge_status"] != "ok") for r in rows)
