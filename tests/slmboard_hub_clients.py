"""Real huggingface_hub clients against the Hub emulator, each in a fresh process.

huggingface_hub reads HF_ENDPOINT when it is imported, so every client runs in a subprocess whose
environment points at the emulator (HF_HOME in tmp, the emulator's token, classic LFS uploads).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def hub_env(emu, tmp_path: Path) -> dict:
    return {**os.environ, "HF_ENDPOINT": emu.url, "HF_HOME": str(tmp_path / "hf-home"), "HF_TOKEN": emu.token,
            "HF_HUB_DISABLE_XET": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
            "PYTHONPATH": str(REPO)}


def cli(env, *args, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess:
    """`slmboard ARGS...` in a fresh process; with ``check``, a non-zero exit fails the test with its output."""
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", *args], env=env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"slmboard {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def client(env, code: str, cwd=None, timeout: float = 300) -> dict:
    """Run client code in a fresh process; it prints one JSON object last."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
