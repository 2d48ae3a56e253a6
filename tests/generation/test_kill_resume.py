"""A real `kill -9` in the middle of `slmboard generate`, then the same command again: nothing lost, nothing doubled."""
import json
import os
import signal
import subprocess
import sys
import time

from schemas import ResponseRecord
from toolkit.stages.suites import load_items

LIMIT = 10
CMD = ["-m", "toolkit.cli", "generate", "--suites", "smoke", "--limit", str(LIMIT), "--max-new-tokens", "8", "--batch-size", "2"]


def count_lines(path):
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_kill_9_then_rerun(tmp_path):
    run = tmp_path / "run"
    out = run / "responses" / "smoke.jsonl"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    log = open(tmp_path / "first.log", "wb")
    proc = subprocess.Popen([sys.executable, *CMD, "--out", str(run)], stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 300
        while count_lines(out) < 2:  # a batch written, more to come
            assert proc.poll() is None, (tmp_path / "first.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "no records after 300 s"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        log.close()
    assert proc.returncode == -signal.SIGKILL
    n_before = count_lines(out)
    total = LIMIT
    assert 2 <= n_before < total, "the kill must land mid-run"

    again = subprocess.run([sys.executable, *CMD, "--out", str(run)], capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"skipped {n_before} already done" in again.stdout

    ids = []
    for line in out.read_text(encoding="utf-8").splitlines():
        ids.append(ResponseRecord.model_validate(json.loads(line)).item_id)  # every line whole and valid
    assert sorted(ids) == sorted(i.item_id for i in load_items("smoke", limit=LIMIT))  # none lost
    assert len(ids) == len(set(ids)) == total  # none doubled


def test_kill_during_continuous_batching_loses_only_answers_in_flight(tmp_path):
    """`--concurrency 3`: answers are appended one by one as rows finish; a kill keeps every one written."""
    run = tmp_path / "run"
    out = run / "responses" / "smoke.jsonl"
    cmd = ["-m", "toolkit.cli", "generate", "--suites", "smoke", "--limit", "12", "--max-new-tokens", "24",
           "--concurrency", "3", "--out", str(run)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with open(tmp_path / "first.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, *cmd], stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 300
            while count_lines(out) < 1:  # the first answer is on disk while the others are still decoding
                assert proc.poll() is None, (tmp_path / "first.log").read_text()[-2000:]
                assert time.monotonic() < deadline, "no records after 300 s"
                time.sleep(0.02)
            seen = count_lines(out)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    kept = count_lines(out)
    assert seen <= kept < 12, f"the kill must land mid-generation and keep what was written ({seen} seen, {kept} kept)"
    before = [ResponseRecord.model_validate(json.loads(x)) for x in out.read_text(encoding="utf-8").splitlines()]
    assert all(r.generation.batch_size == 3 for r in before)  # the rows in flight are recorded

    again = subprocess.run([sys.executable, *cmd], capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"generated {12 - kept} response(s), skipped {kept} already done" in again.stdout
    after = [ResponseRecord.model_validate(json.loads(x)) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [r.model_dump() for r in after[:kept]] == [r.model_dump() for r in before]  # written answers untouched
    ids = [r.item_id for r in after]
    assert sorted(ids) == sorted(i.item_id for i in load_items("smoke", limit=12)) and len(set(ids)) == 12
