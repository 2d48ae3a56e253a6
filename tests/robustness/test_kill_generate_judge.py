"""kill -9 of generation and judging in the middle of writing their output (20 trials each), then
resume: no record lost, none duplicated, every line whole. The model and the judge are served by a
real OpenAI-compatible server on 127.0.0.1 (llm-katan, echo backend with injected latency). Each command is a
process of its own forked from a pre-imported parent (robustness/_zygote.py): the kill is the same, the trials do
not each pay for importing the toolkit.

Each kill is proved to land mid-write: the test waits for a seeded marker (generation: k >= 1 whole
records in the file; judging: k answers in the judge's cache beyond its first appended batch),
freezes the process (SIGSTOP), checks it is alive with at least one and fewer than N records in the
file, then SIGKILLs it and checks nothing more was written. The resumed command must then report
exactly the rest as new work (and, for the judge, reuse exactly the answers its cache had committed)."""
from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from robustness._kill import freeze_look_kill, reap, wait_for
from robustness._zygote import Zygote
from toolkit.stages.judging.components import OpenAIJudgeOptions
from toolkit.testing.servers import TEST_API_KEY, start_llm_katan

pytestmark = pytest.mark.slow
TRIALS = 20
N_ITEMS = 12  # generation
JUDGE_CONCURRENCY = 8


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    handle = start_llm_katan("echo-model", backend="echo", latency_ms=60, workdir=tmp_path_factory.mktemp("katan"))
    yield handle
    handle.stop()


@pytest.fixture(scope="module")
def zygote():
    parent = Zygote(preload=("toolkit.api", "openai", "toolkit.stages.generation.openai_backend",
                             "toolkit.stages.judging.openai_judge"), env=_env())
    yield parent
    parent.close()


def _env() -> dict:
    return {**os.environ, "SLMBOARD_TEST_KEY": TEST_API_KEY, "HF_HUB_OFFLINE": "1"}


def _generate_cmd(run: Path, server) -> list[str]:
    args = f"model=echo-model,base_url={server.base_url},api_key_env=SLMBOARD_TEST_KEY"
    return ["generate", "--out", str(run), "--model", "openai", "--model-args", args,
            "--suites", "smoke", "--limit", str(N_ITEMS), "--max-new-tokens", "8", "--batch-size", "2"]


def _judge_cmd(run: Path, server, cache: Path) -> list[str]:
    return ["judge", str(run), "--judge", "openai:echo-model", "--base-url", server.base_url,
            "--api-key-env", "SLMBOARD_TEST_KEY", "--concurrency", str(JUDGE_CONCURRENCY), "--cache", str(cache)]


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


def _kill_mid_write(zygote: Zygote, cmd: list[str], output: Path, target: int, n_items: int, progress=None) -> tuple[int, int] | None:
    """Start ``cmd``; once ``progress()`` (default: whole records in ``output``) reaches ``target``,
    freeze it, note the progress and the records of ``output``, and kill it. Returns (progress at the
    kill, records at the kill), or None when it finished first (a miss): a kill counts only with
    records still to come."""
    progress = progress or (lambda: len(_item_ids(output)))
    proc = zygote.start(cmd, _env())
    try:
        if not wait_for(lambda: progress() >= target, proc):
            return None
        alive, (at_kill, written) = freeze_look_kill(proc, lambda: (progress(), len(_item_ids(output))))
    finally:
        reap(proc)
    if not (alive and written < n_items):
        return None
    assert len(_item_ids(output)) == written and progress() == at_kill, "output written after the kill"
    return at_kill, written


def _kill_trials(zygote: Zygote, make_cmd, output, prepare, seed: int, n_items: int, targets: tuple[int, int], resume_says,
                 progress_of=None) -> list[tuple[int, int, int]]:
    """TRIALS kills, each once the progress marker reaches a seeded target in ``targets`` and before
    the last record is written (a trial that finishes first is retried, at most 3 times); then resume.
    ``resume_says(at_kill, written)``: lines the resumed command must print (it redoes exactly the rest).
    Returns (target, progress at the kill, records written at the kill) per trial."""
    rng = random.Random(seed)
    landed = []
    for trial in range(1, TRIALS + 1):
        target = rng.randint(*targets)
        for attempt in range(3):
            key = (trial, attempt)
            prepare(key)
            result = _kill_mid_write(zygote, make_cmd(key), output(key), target, n_items, progress_of(key) if progress_of else None)
            if result is not None:
                break
        assert result is not None, f"trial {trial}: the process finished before the kill three times"
        at_kill, written = result
        # records before the kill, some still to come
        assert target <= at_kill and 1 <= written < n_items, (trial, target, at_kill, written)
        partial = _item_ids(output(key))
        assert len(partial) == len(set(partial)), f"trial {trial}: duplicates after the kill"
        done = zygote.run(make_cmd(key), _env())
        assert done.returncode == 0, done.stderr[-2000:]
        for says in resume_says(at_kill, written):
            assert says in done.stdout, (trial, at_kill, written, done.stdout)
        ids = _item_ids(output(key))
        assert len(ids) == n_items and len(set(ids)) == n_items, f"trial {trial}: {len(ids)} records, {len(set(ids))} distinct"
        assert len(output(key).read_text().splitlines()) == n_items  # every line whole: no torn remnant kept
        landed.append((target, at_kill, written))
    return landed


def test_kill_9_generation_then_resume(tmp_path, server, zygote):
    run = lambda key: tmp_path / f"gen-{key[0]}-{key[1]}"  # noqa: E731
    # --batch-size 2: records are appended two at a time, so every target 1..N-2 has records after it.
    landed = _kill_trials(zygote, lambda key: _generate_cmd(run(key), server), lambda key: run(key) / "responses" / "smoke.jsonl",
                          lambda key: None, seed=7, n_items=N_ITEMS, targets=(1, N_ITEMS - 2),
                          resume_says=lambda _, written: [f"generated {N_ITEMS - written} response(s), skipped {written} already done"])
    assert len(landed) == TRIALS and len({w for _, _, w in landed}) > 1  # kills spread over the writing


def test_kill_9_judging_then_resume(tmp_path, server, zygote):
    from slmboard_testing import make_run
    from toolkit.stages.judging.openai_judge import OpenAIJudge

    # The judge commits each answer to its cache as it arrives and appends records to the file one
    # request-pool batch at a time. With three batches, the marker -- cache rows past the first batch --
    # means the file holds one or two batches, and answers not yet in the file are in the cache.
    batch = OpenAIJudge(OpenAIJudgeOptions(model="echo-model", base_url=server.base_url, concurrency=JUDGE_CONCURRENCY, cache=False)).capabilities.preferred_batch_size
    n_items = 2 * batch + batch // 3
    base = make_run(tmp_path / "base", scores={f"harmbench_{k:04d}": 1.0 for k in range(n_items)}, suite="harmbench", judged=False)
    run = lambda key: tmp_path / f"judge-{key[0]}-{key[1]}"  # noqa: E731

    def prepare(key) -> None:
        if not run(key).exists():
            shutil.copytree(base, run(key))

    out = lambda key: run(key) / "judgments" / "openai-echo-model" / "harmbench.jsonl"  # noqa: E731
    cache = lambda key: tmp_path / f"cache-{key[0]}-{key[1]}.sqlite"  # noqa: E731

    # On resume the records in the file are skipped, the answers in the cache are reused without a
    # request, and only the rest is asked for: the counts reconcile exactly with the disk at the kill.
    def resume_says(cached: int, written: int) -> list[str]:
        return [f"judged {n_items - written}, skipped {written} already judged",
                f"requests {n_items - cached}, retries 0, cache hits {cached - written}"]

    landed = _kill_trials(zygote, lambda key: _judge_cmd(run(key), server, cache(key)), out, prepare, seed=11, n_items=n_items,
                          targets=(batch + 1, n_items - 1), resume_says=resume_says,
                          progress_of=lambda key: lambda: _cache_rows(cache(key)))
    assert len(landed) == TRIALS and len({w for _, _, w in landed}) > 1  # after the first and after the second append
    assert sum(cached > written for _, cached, written in landed) >= TRIALS - 2  # answers cached, not yet in the file
    # Echo replies carry no score tag: every item ends explicitly failed (parse_error), none silently scored.
    rows = [json.loads(line) for f in tmp_path.glob("judge-*/judgments/openai-echo-model/harmbench.jsonl") for line in f.read_text().splitlines()]
    assert len(rows) >= TRIALS * n_items
    assert {r["judge_status"] for r in rows} == {"parse_error"}
    assert all(r["score"] is None for r in rows)
