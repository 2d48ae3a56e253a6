"""Secrets: HF_TOKEN / OPENAI_API_KEY values never appear in records, logs, the dataset, the judge
cache or error messages. A full offline run (judge with an unreachable API judge and with the
heuristic, submit, rank, validate) is scanned byte for byte."""
from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from slmboard_testing import make_run, new_board

pytestmark = pytest.mark.slow

HF_SECRET = "hf_SECRETtokenVALUE1234567890abcdef"
OPENAI_SECRET = "sk-SECRETopenaiKEY0987654321zyxwvu"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once the socket is closed


def _run(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolkit.cli", *args], capture_output=True, text=True, env=env, timeout=600)


def test_no_secret_reaches_any_output(tmp_path):
    env = {**os.environ, "HF_TOKEN": HF_SECRET, "OPENAI_API_KEY": OPENAI_SECRET,
           "SLMBOARD_JUDGE_CACHE": str(tmp_path / "cache" / "judge.sqlite"), "HF_HUB_OFFLINE": "1"}
    run = make_run(tmp_path / "run", judged=False)
    outputs = []
    api_judge = _run(["judge", str(run), "--judge", "openai:gpt-4o-2024-05-13", "--base-url",
                      f"http://127.0.0.1:{_closed_port()}/v1", "--max-attempts", "2", "--timeout", "2"], env)
    outputs.append(api_judge)
    assert "error" in (api_judge.stdout + api_judge.stderr).lower()  # every item failed, with a reason
    new_board(tmp_path / "dataset")
    for args in (["judge", str(run)], ["validate", str(run)], ["submit", str(run), "--to", str(tmp_path / "dataset"), "--bootstrap", "20"],
                 ["rank", str(tmp_path / "dataset"), "--out", str(tmp_path / "lb"), "--bootstrap", "20"],
                 ["submit", str(tmp_path / "nope"), "--to", str(tmp_path / "dataset")]):
        outputs.append(_run(args, env))
    assert outputs[3].returncode == 0, outputs[3].stderr
    texts = [o.stdout + o.stderr for o in outputs]
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any("judgments" in str(p) for p in files) and any(p.suffix == ".parquet" for p in files)
    for secret in (HF_SECRET, OPENAI_SECRET):
        for text in texts:
            assert secret not in text
        for path in files:
            assert secret.encode() not in path.read_bytes(), f"{secret[:6]}… found in {path}"
