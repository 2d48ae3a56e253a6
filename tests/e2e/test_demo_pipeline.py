"""The whole spine on the real embedded model (SmolLM2 via lm-eval HFLM), a few items, short answers."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("demo")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit.cli", "demo", "--workdir", str(work), "--limit", "3", "--max-new-tokens", "24", "--no-serve"],
        capture_output=True, text=True, env=env, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (work / "demo-stdout.txt").write_text(proc.stdout)
    return work


def test_demo_prints_the_leaderboard(demo_dir):
    out = (demo_dir / "demo-stdout.txt").read_text()
    assert "HuggingFaceTB/SmolLM2-135M-Instruct" in out
    assert "suite smoke" in out and "judge heuristic-v1" in out


def test_demo_records_carry_provenance(demo_dir):
    from datasets import load_dataset

    items = load_dataset(str(demo_dir / "dataset"), "smoke", split="test", cache_dir=str(demo_dir / "hf-cache"))
    assert len(items) == 3
    row = items[0]
    assert row["model_id"] == "HuggingFaceTB/SmolLM2-135M-Instruct"
    assert row["model_revision"].startswith("gguf-q4_1-sha256:")
    gen = row["generation"]
    assert gen["backend"] == "hf" and gen["temperature"] == 0.0 and gen["max_new_tokens"] == 24
    assert len(gen["chat_template_sha256"]) == 64  # SmolLM2 has a chat template: it was applied and recorded
    assert row["judge_id"] == "heuristic-v1" and row["rubric_version"] == "heuristic-v1"
    assert row["toolkit_version"] and row["response_sha256"]
    assert {r["label"] for r in items} <= {"harmful", "ambiguous", "safe"}


def test_demo_wrote_leaderboard_files_and_a_git_commit(demo_dir):
    import pandas as pd

    board = pd.read_csv(demo_dir / "leaderboard" / "leaderboard.csv")
    assert list(board["model_id"]) == ["HuggingFaceTB/SmolLM2-135M-Instruct"]
    assert board.loc[0, "n_items"] == 3 and board.loc[0, "rank_raw"] == 1
    log = subprocess.run(["git", "log", "--oneline"], cwd=demo_dir / "dataset", capture_output=True, text=True).stdout
    assert len(log.strip().splitlines()) == 1


def test_rerun_resumes_instead_of_regenerating(demo_dir):
    run = demo_dir / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit.cli", "generate", "--out", str(run), "--suites", "smoke", "--limit", "3", "--max-new-tokens", "24"],
        capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "generated 0 response(s), skipped 3 already done" in proc.stdout
    judged = subprocess.run([sys.executable, "-m", "toolkit.cli", "judge", str(run)], capture_output=True, text=True, timeout=600)
    assert judged.returncode == 0 and "judged 0, skipped 3" in judged.stdout
    lines = (run / "responses" / "smoke.jsonl").read_text().splitlines()
    assert len(lines) == 3 and len({json.loads(l)["item_id"] for l in lines}) == 3


def test_space_serves_the_demo_dataset(demo_dir):
    from space.app import start

    app, url = start(demo_dir / "dataset", "127.0.0.1", None, quiet=True)
    try:
        html = urllib.request.urlopen(url, timeout=30).read().decode()
        assert "<gradio-app" in html or "gradio" in html.lower()
        from gradio_client import Client

        rows = Client(url, verbose=False).predict("smoke", "heuristic-v1", api_name="/leaderboard")
        assert rows[0]["model_id"] == "HuggingFaceTB/SmolLM2-135M-Instruct"
    finally:
        app.close()
