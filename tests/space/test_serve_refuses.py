"""`slmboard serve` refuses what it cannot show before any server starts: a missing folder, an
unreachable Hub dataset (a closed port as HF_ENDPOINT). A server that started would block until the
timeout; a refusal is one line and exit 1, and nothing listens on the port."""
from __future__ import annotations

import socket
import subprocess

import pytest

from slmboard_hub_clients import cli, hub_env


def free_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("data,needles", [
    ("{tmp}/missing/board", ["missing/board", "no such file or folder"]),
    ("org/board", ["dataset org/board", "cannot reach the Hub"]),
])
def test_serve_refuses_before_starting_a_server(data, needles, tmp_path):
    hub = type("NoEmulator", (), {"url": f"http://127.0.0.1:{free_port()}", "token": "hf_unusedtoken0123"})
    port = free_port()
    try:
        proc = cli(hub_env(hub, tmp_path), "serve", data.format(tmp=tmp_path), "--port", str(port), check=False, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"serve {data} started a server instead of refusing")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and all(n in lines[0] for n in needles), proc.stderr
    assert "Running on" not in proc.stdout and not listening(port)
